"""rt-tool-3's reference adapter: rule RT-TOOL-3 (with RT-TOOL-2's filter) over
the JSON-lines protocol, in Python 3 with the standard library only. Written
from the README alone, to show that an implementer can hook in from the docs:
    rt-tool-3 diff -- python3 tests/adapter/reference_adapter.py
Numbers stay as their source text, so payloads pass through unchanged.
"""
import json
import re
import sys


class Num(str):
    """A JSON number, kept as written."""


def enc(v, sort=False):
    """Compact JSON; numbers as written but for the exponent, which is spelled
    `e` with its sign as the oracle spells it (`1E2` -> `1e+2`, the same number)."""
    if isinstance(v, Num):
        return re.sub(r"[eE](?=\d)", "e+", v).replace("E", "e")
    if isinstance(v, dict):
        items = sorted(v.items()) if sort else v.items()
        return "{" + ",".join(enc(k) + ":" + enc(x, sort) for k, x in items) + "}"
    if isinstance(v, list):
        return "[" + ",".join(enc(x, sort) for x in v) + "]"
    return json.dumps(v, ensure_ascii=False)  # str, bool, None


def prose(data):
    """The reference rendering of a result's `data` (RT-TOOL-3 ¶3), without
    RT-TOOL-2's reserved `artifacts` key, which never reaches the prose."""
    if isinstance(data, dict):
        data = {k: v for k, v in data.items() if k != "artifacts"}
    if type(data) is str:
        return data
    if isinstance(data, dict) and list(data) == ["result"] and type(data["result"]) is str:
        return data["result"]
    return "" if data is None else enc(data, sort=True)


def run(case):
    messages, artifacts = [], []
    for call in case["calls"]:
        cid, result = call["tool_call_id"], call.get("result")
        result = result if isinstance(result, dict) else {}
        messages.append({"tool_call_id": cid, "content": prose(result.get("data"))})
        kept = result.get("artifacts") if result.get("success") is True else None
        for a in kept if isinstance(kept, list) else []:
            if (isinstance(a, dict) and type(a.get("type")) is str and a["type"]
                    and isinstance(a.get("payload"), dict)):  # RT-TOOL-2's filter
                artifacts.append({"type": a["type"], "payload": a["payload"], "tool_call_id": cid})
    return {"messages": messages, "tool_artifacts": artifacts, "exposed": case.get("exposed") is True}


def main():
    sys.stdin.reconfigure(encoding="utf-8")
    sys.stdout.reconfigure(encoding="utf-8")
    sys.setrecursionlimit(10_000)  # results nest up to 512 deep; enc takes 2 frames a level
    for line in filter(str.strip, sys.stdin):
        req = json.loads(line, parse_int=Num, parse_float=Num)
        if req.get("cmd") == "stop":
            return
        if req.get("cmd") == "start":
            reply = {"ready": True, "version": 1,
                     "implementation": {"name": "reference_adapter.py", "language": "python"}}
        elif req.get("cmd") == "run":
            try:
                reply = {"seq": req["seq"], "outcome": run(req["case"])}
            except Exception as e:  # never crash: say why instead
                reply = {"seq": req["seq"], "errored": True, "message": repr(e)}
        elif "seq" in req:  # a command of a later protocol: one reply, errored
            reply = {"seq": req["seq"], "errored": True, "message": f"unknown cmd {req.get('cmd')!r}"}
        else:  # no seq, so no reply is owed: a line on stdout would be a fault
            print(f"unknown cmd {req.get('cmd')!r}, no seq: ignored", file=sys.stderr)
            continue
        print(enc(reply), flush=True)


if __name__ == "__main__":
    main()
