"""RT-TOOL-3 over LangGraph: a `ToolNode` inside a `StateGraph`, driven offline.

    python adapter.py [--variant conforming|letter|plain-tuple|own-toolmessage|raw-dicts]

Each case becomes one `AIMessage` whose `tool_calls` are the case's calls, with
their ids, all to one tool, `lookup(i)`, which returns what call `i` of the case
returned. LangGraph does the work the rule is about:
- it pairs each tool's return with the call that asked for it: every
  `ToolMessage` carries the `tool_call_id` the framework gives it (RT-TOOL-3 ¶1);
- with `response_format="content_and_artifact"` the tool hands the framework
  two things, the prose (the `ToolMessage.content` the model reads) and the
  artifacts (`ToolMessage.artifact`, which travels beside it and never reaches
  the model) (RT-TOOL-3 ¶3).
This adapter only reads the `ToolMessage`s back: `messages` from their content,
`tool_artifacts` built key by key from each one's artifact list and its own
`tool_call_id`. `letter` conforms to the stricter reading of ¶3 as well
(`diff --prose letter`: a failed call's `error` may not reach its prose); the
variants that must fail are marked `VARIANT`.
"""
import argparse
import json
import re
import sys
from importlib.metadata import version
from typing import Annotated

from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, ToolException, tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

VARIANTS = ["conforming", "letter", "plain-tuple", "own-toolmessage", "raw-dicts"]
VARIANT = "conforming"  # set once from the command line


class Num(str):
    """A JSON number, kept as written, so payloads pass through unchanged."""


def enc(v, sort=False):
    """Compact JSON; numbers as written (exponent spelled as the oracle does)."""
    if isinstance(v, Num):
        return re.sub(r"[eE](?=\d)", "e+", v).replace("E", "e")
    if isinstance(v, dict):
        items = sorted(v.items()) if sort else v.items()
        return "{" + ",".join(enc(k) + ":" + enc(x, sort) for k, x in items) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(enc(x, sort) for x in v) + "]"
    return json.dumps(v, ensure_ascii=False)


def prose(data):
    """The prose of a result's `data` (RT-TOOL-3 ¶3); an object's reserved
    `artifacts` key is dropped first (RT-TOOL-2), so nothing under it is read."""
    if isinstance(data, dict):
        data = {k: v for k, v in data.items() if k != "artifacts"}
        if list(data) == ["result"] and type(data["result"]) is str:
            return data["result"]
    if type(data) is str:
        return data
    return "" if data is None else enc(data, sort=True)


def kept(artifacts):
    """RT-TOOL-2's filter: an object with a non-empty string `type` and an object `payload`."""
    return [a for a in artifacts if isinstance(a, dict) and type(a.get("type")) is str
            and a["type"] and isinstance(a.get("payload"), dict)]


RESULTS: list = []  # the current case's results; requests are served one at a time


def returned(i):
    """What call i returned, as an object (a non-object result is lenient: its
    `data` is rendered and nothing of it is delivered)."""
    result = RESULTS[i]
    return result if isinstance(result, dict) else {}


def succeeded(result):
    """Only `success: true` carries artifacts; `artifacts` must be an array."""
    artifacts = result.get("artifacts")
    return result.get("success") is True and isinstance(artifacts, list)


def fail_if_failed(result):
    # A failed call raises; ToolNode turns the ToolException into a ToolMessage
    # with status="error" (see handle_tool_errors below), and no artifact.
    # LangGraph writes its content as "Error: ToolException(<repr of the
    # message>)\n Please fix your mistakes.": with the tool's `error` as the
    # message, the error reaches the model, which the default reading of ¶3
    # allows; `letter` raises with the prose of `data` instead.
    if result.get("success") is False:
        raise ToolException(prose(result.get("data")) if VARIANT == "letter" else result.get("error"))


@tool(response_format="content_and_artifact")
def lookup(i: int) -> tuple[str, list]:
    """Return the result of call i of the case: (prose for the model, artifacts)."""
    result = returned(i)
    fail_if_failed(result)
    return prose(result.get("data")), kept(result["artifacts"]) if succeeded(result) else []


@tool  # VARIANT plain-tuple: no content_and_artifact, so the tuple is serialised into the content (¶3)
def lookup_plain_tuple(i: int) -> tuple[str, list]:
    """Return the result of call i of the case."""
    result = returned(i)
    fail_if_failed(result)
    return prose(result.get("data")), kept(result["artifacts"]) if succeeded(result) else []


@tool  # VARIANT own-toolmessage: the tool builds its own ToolMessage with the id the result claims (¶1)
def lookup_own_toolmessage(i: int, tool_call_id: Annotated[str, InjectedToolCallId]) -> ToolMessage:
    """Return the result of call i of the case."""
    result = returned(i)
    fail_if_failed(result)
    artifacts = kept(result["artifacts"]) if succeeded(result) else []
    claimed = [a["tool_call_id"] for a in artifacts if type(a.get("tool_call_id")) is str]
    claimed += [result["tool_call_id"]] if type(result.get("tool_call_id")) is str else []
    # LangGraph passes a returned ToolMessage through whatever its tool_call_id
    # (langgraph#7989): the claimed id wins over the real one.
    return ToolMessage(prose(result.get("data")), artifact=artifacts,
                       tool_call_id=(claimed or [tool_call_id])[0])


def build_graph():
    tool_fn = {"plain-tuple": lookup_plain_tuple,
               "own-toolmessage": lookup_own_toolmessage}.get(VARIANT, lookup)
    # handle_tool_errors=(ToolException,): a tool's declared failure becomes a
    # ToolMessage(status="error") whose content is LangGraph's own
    # "Error: ToolException('...')\n Please fix your mistakes."; any other
    # exception (a bug) propagates and the case is answered `errored`.
    # (The default handles only invalid arguments and re-raises the rest.)
    node = ToolNode([tool_fn], handle_tool_errors=(ToolException,))
    graph = StateGraph(MessagesState)
    graph.add_node("tools", node)
    graph.add_edge(START, "tools")
    graph.add_edge("tools", END)
    return graph.compile(), tool_fn.name


def content_of(message):
    if isinstance(message.content, str):
        return message.content
    return enc(message.content)  # content blocks: never produced here, but never lost


def run(graph, tool_name, case):
    global RESULTS
    calls = case["calls"]
    RESULTS = [call.get("result") for call in calls]
    ask = AIMessage(content="", tool_calls=[
        {"name": tool_name, "args": {"i": i}, "id": call["tool_call_id"], "type": "tool_call"}
        for i, call in enumerate(calls)])
    state = graph.invoke({"messages": [ask]}) if calls else {"messages": []}
    messages, artifacts = [], []
    for m in state["messages"]:
        if not isinstance(m, ToolMessage):
            continue
        cid = m.tool_call_id  # the framework's pairing, not anything the tool returned
        messages.append({"tool_call_id": cid, "content": content_of(m)})
        for a in m.artifact or []:
            if VARIANT == "raw-dicts":  # VARIANT raw-dicts: the tool's dict as returned, plus the id (¶1)
                artifacts.append({**a, "tool_call_id": cid})
            else:  # key by key (¶1)
                artifacts.append({"type": a["type"], "payload": a["payload"], "tool_call_id": cid})
    # The port is hidden unless the author exposed it (¶2); delivery above never
    # looked at `exposed` (¶4).
    return {"messages": messages, "tool_artifacts": artifacts, "exposed": case.get("exposed") is True}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", choices=VARIANTS, default="conforming")
    global VARIANT
    VARIANT = parser.parse_args().variant
    graph, tool_name = build_graph()
    sys.stdin.reconfigure(encoding="utf-8")
    sys.stdout.reconfigure(encoding="utf-8")
    sys.setrecursionlimit(20_000)  # results nest up to 512 deep
    name = (f"langgraph {version('langgraph')} (langgraph-prebuilt {version('langgraph-prebuilt')}, "
            f"langchain-core {version('langchain-core')}) ToolNode, variant {VARIANT}")
    for line in filter(str.strip, sys.stdin):
        try:
            req = json.loads(line, parse_int=Num, parse_float=Num)
        except (ValueError, RecursionError) as e:  # answer its seq, so the run goes on
            seq = re.search(r'"seq"\s*:\s*(\d+)', line)
            req = {"cmd": "unreadable", "seq": Num(seq[1]) if seq else None, "why": repr(e)}
        req = req if isinstance(req, dict) else {}
        cmd = req.get("cmd")
        if cmd == "stop":
            return
        if cmd == "start":
            reply = {"ready": True, "version": 1,
                     "implementation": {"name": name, "language": "python"}}
        elif cmd == "run":
            try:
                reply = {"seq": req["seq"], "outcome": run(graph, tool_name, req["case"])}
            except Exception as e:  # never crash: say why instead
                reply = {"seq": req.get("seq"), "errored": True, "message": repr(e)[:2000]}
        else:
            reply = {"seq": req.get("seq"), "errored": True, "message": req.get("why") or f"unknown cmd {cmd!r}"}
        print(enc(reply), flush=True)


if __name__ == "__main__":
    main()
