"""RT-TOOL-3 over the official MCP Python SDK (`mcp` 2.3.0): a tool node whose
tools are real MCP tools, served by `MCPServer` and called through the SDK's
`Client`, connected in-process, fully offline.

    python adapter.py [--variant NAME]     (NAME in VARIANTS below)

One `MCPServer` and one `Client` live for the whole process. Each case's calls
become concurrent `tools/call` requests to one MCP tool, `lookup(i)`, which
returns what call i of the case returned. The SDK does the serialisation, the
error handling and the content blocks; the node only reads `CallToolResult`s.

The convention this node and its tools share (the template an MCP team starts
from), and where the SDK does the rule's work:
- A tool returns its result (`{success, data, error, artifacts}`) as a dict.
  `MCPServer` makes it the call's `structuredContent` and ALSO writes a text
  block holding the JSON of the whole return, artifacts, decoys and `error`
  included (FINDINGS.md). The node reads `structuredContent` alone: prose from
  its `data` (RT-TOOL-3 ¶3), artifacts from its `artifacts`, built key by key
  with the id of the call the SDK paired the result with (¶1).
- MCP's own failure flag, `isError`, is the call's `success`: a failed call
  delivers no artifacts (RT-TOOL-2). A tool that raises loses its
  `structuredContent` (and so its `data`); ours reports a failure by returning
  a `CallToolResult(isError=True)` built by hand that keeps the result as its
  `structuredContent`, which the SDK passes through unvalidated, so the node
  must honour `isError` (variant `iserror-ignored` does not).
- With `--variant resources` the tool carries each artifact the other way MCP
  offers, as an embedded resource (`uri`, `mimeType`, `text`), and the node
  builds the entry key by key from the artifact the resource holds.
- A payload holding a number no IEEE double can hold (`1e400`) cannot be
  encoded: the SDK writes it as `null` in `structuredContent` (and `Infinity`,
  not JSON, in the text block). RT-TOOL-6 drops such an artifact with a
  warning and does not fail the run: the node finds such numbers in the JSON
  the tool returned before the SDK touches it, and drops the artifact with a
  warning on stderr, never delivering the mangled payload.
- A result nested deeper than the SDK serialises (254 levels: pydantic_core's
  recursion limit) cannot be carried at all: the node answers such a case
  `skipped`, naming the call and the limit, rather than deliver the SDK's
  error in its place.

The variants that must fail are marked `VARIANT`.
"""
import argparse
import json
import logging
import math
import sys
from importlib.metadata import version
from typing import Any

import anyio
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, EmbeddedResource, TextContent, TextResourceContents

VARIANTS = {
    "conforming": "structuredContent read; prose from its data; isError honoured",
    "resources": "artifacts carried as embedded resources, entries built key by key",
    "text-blocks": "VARIANT: prose from the text blocks (RT-TOOL-3 ¶3)",
    "whole-result": "VARIANT: the whole CallToolResult fed to the model as JSON (¶3)",
    "resource-keys": "VARIANT: embedded resources kept as entries, uri and mimeType included (¶1)",
    "both-channels": "VARIANT: artifacts read from structuredContent and from the resources (¶1)",
    "iserror-ignored": "VARIANT: isError ignored, a failed call's artifacts delivered (RT-TOOL-2)",
}
VARIANT = "conforming"  # set once from the command line
# The variants whose tool carries artifacts as embedded resources.
RESOURCE_CARRIER = {"resources", "resource-keys", "both-channels"}
ARTIFACT_MIME = "application/vnd.flowdrop.artifact+json"
ARTIFACT_URI = "flowdrop-artifact:"


def is_obj(v):
    return isinstance(v, dict)


def compact(v):
    """Compact JSON with sorted keys, for prose rendered from `data`."""
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def prose(data):
    """The prose of a result's `data` (RT-TOOL-3 ¶3); an object's reserved
    `artifacts` key is dropped first (RT-TOOL-2), so nothing under it is read."""
    if is_obj(data):
        data = {k: v for k, v in data.items() if k != "artifacts"}
        if list(data) == ["result"] and type(data["result"]) is str:
            return data["result"]
    if type(data) is str:
        return data
    return "" if data is None else compact(data)


def encodes(v):
    """Whether the SDK can encode every number in a value. JSON has no
    infinity, so an infinite float here is a number of the request that
    overflowed a double (`1e400`); Python's integers (and the SDK's encoding of
    them) keep every digit, so an integer always encodes."""
    if isinstance(v, float):
        return math.isfinite(v)
    if isinstance(v, dict):
        return all(encodes(x) for x in v.values())
    if isinstance(v, list):
        return all(encodes(x) for x in v)
    return True


# --- the tools: an MCP server, as a tool author writes one --------------------

RESULTS: list = []  # the current case's results; cases are served one at a time
server = MCPServer("flowdrop-tools")


def failed(result):
    """MCP's isError: anything but `success: true` (RT-TOOL-2)."""
    return result.get("success") is not True


def error_text(result):
    error = result.get("error")
    return error if isinstance(error, str) else json.dumps(error, ensure_ascii=False)


@server.tool()
def lookup(i: int) -> dict[str, Any]:
    """Return the result of call i of the case."""
    result = RESULTS[i] if is_obj(RESULTS[i]) else {}  # a non-object result: nothing of it travels
    if failed(result) and "success" in result:
        # WORKAROUND (FINDINGS.md): raising ToolError would drop the result's
        # structuredContent, and with it the `data` the prose is built from;
        # built by hand, the SDK passes it through without validating it.
        return CallToolResult(is_error=True, content=[TextContent(type="text", text=error_text(result))],
                              structured_content=result)
    if VARIANT not in RESOURCE_CARRIER:
        return result  # MCPServer: structuredContent, plus a text block of the same JSON
    # The resource carrier: each artifact entry an embedded resource, the rest
    # structured (both-channels: the whole result stays structured too).
    entries = result.get("artifacts") if isinstance(result.get("artifacts"), list) else []
    structured = result if VARIANT == "both-channels" else {k: v for k, v in result.items() if k != "artifacts"}
    resources = [EmbeddedResource(type="resource", resource=TextResourceContents(
        uri=f"{ARTIFACT_URI}{k}", mime_type=ARTIFACT_MIME, text=json.dumps(a, ensure_ascii=False)))
        for k, a in enumerate(entries) if is_obj(a)]
    return CallToolResult(content=[TextContent(type="text", text=json.dumps(structured, ensure_ascii=False)),
                                   *resources], structured_content=structured)


# --- the node: an MCP client, as a runtime author writes one ------------------

def warn(message):
    print(f"warning: {message}", file=sys.stderr, flush=True)


def kept(entry):
    """RT-TOOL-2's filter: an object with a non-empty string `type` and an object `payload`."""
    return is_obj(entry) and type(entry.get("type")) is str and entry["type"] != "" and is_obj(entry.get("payload"))


def text_blocks(answer):
    return "\n".join(b.text for b in answer.content if isinstance(b, TextContent))


def resource_artifacts(answer):
    """(index, artifact, resource) for each embedded resource carrying an artifact."""
    for block in answer.content:
        resource = getattr(block, "resource", None)
        if isinstance(block, EmbeddedResource) and isinstance(resource, TextResourceContents) \
                and resource.mime_type == ARTIFACT_MIME and resource.uri.startswith(ARTIFACT_URI):
            yield int(resource.uri[len(ARTIFACT_URI):]), json.loads(resource.text), resource


def deliver(answer, call_id, raw):
    """The call's entries for the port. `raw` is the call's result as the node
    received it from the tool, before the SDK serialised it: its artifacts'
    payloads say which numbers no double can hold (RT-TOOL-6)."""
    raw_entries = raw.get("artifacts") if is_obj(raw) and isinstance(raw.get("artifacts"), list) else []
    structured = answer.structured_content if is_obj(answer.structured_content) else {}
    success = not answer.is_error
    if VARIANT == "iserror-ignored":  # VARIANT: MCP's failure flag ignored (RT-TOOL-2)
        success = True
    found = []  # (index in the tool's list, artifact, the resource carrying it or None)
    if VARIANT not in RESOURCE_CARRIER or VARIANT == "both-channels":
        entries = structured.get("artifacts")
        found += [(k, a, None) for k, a in enumerate(entries if isinstance(entries, list) else [])]
    if VARIANT in RESOURCE_CARRIER:
        found += list(resource_artifacts(answer))
    out = []
    for k, a, resource in found if success else []:
        if not kept(a):
            continue
        if k < len(raw_entries) and is_obj(raw_entries[k]) and not encodes(raw_entries[k].get("payload")):
            # RT-TOOL-6: a payload that does not encode is dropped with a
            # warning; the SDK would deliver `null` in its place.
            warn(f"RT-TOOL-6: artifact {k} of call {call_id!r} dropped: its payload holds a number "
                 "no IEEE double can hold")
            continue
        if VARIANT == "resource-keys":  # VARIANT: the resource's own keys kept (¶1)
            keys = resource.model_dump(by_alias=True, exclude_none=True, exclude={"text"})
            out.append({**keys, "type": a["type"], "payload": a["payload"], "tool_call_id": call_id})
        else:  # key by key, the call's own id (¶1)
            out.append({"type": a["type"], "payload": a["payload"], "tool_call_id": call_id})
    return out


def content(answer):
    """What the model reads of the call."""
    structured = answer.structured_content if is_obj(answer.structured_content) else None
    if VARIANT == "text-blocks":  # VARIANT: the text blocks, the usual thing to feed a model (¶3)
        return text_blocks(answer)
    if VARIANT == "whole-result":  # VARIANT: the whole result, as JSON (¶3)
        return answer.model_dump_json(by_alias=True, exclude_none=True)
    if structured is None:
        # No structured result: the SDK's own failure (a return it could not
        # serialise); the model reads the SDK's error text.
        return text_blocks(answer) if answer.is_error else ""
    return prose(structured.get("data"))  # from `data` alone (¶3)


# The deepest result the SDK serialises: pydantic_core stops at its recursion
# limit, and a result nested 255 deep fails the tool (FINDINGS.md).
SDK_DEPTH = 254


class Skip(Exception):
    """A case this node cannot run on the SDK: it answers `skipped`."""


def depth(value):
    """How many containers deep `value` nests (a scalar: 0), without recursion."""
    deepest, todo = 0, [(value, 0)]
    while todo:
        v, d = todo.pop()
        if isinstance(v, (dict, list)):
            deepest = max(deepest, d + 1)
            todo += [(x, d + 1) for x in (v.values() if isinstance(v, dict) else v)]
    return deepest


def handed_to_sdk(result):
    """What the tool hands the SDK to serialise of a result: the result, less
    its artifacts under the resource carrier (they travel as JSON text)."""
    if not is_obj(result):
        return {}
    if VARIANT in RESOURCE_CARRIER and VARIANT != "both-channels" and not failed(result):
        return {k: v for k, v in result.items() if k != "artifacts"}
    return result


async def run(client, case):
    global RESULTS
    calls = case["calls"]
    for call in calls:
        if depth(handed_to_sdk(call.get("result"))) > SDK_DEPTH:
            # WORKAROUND (FINDINGS.md): the SDK cannot serialise it; the
            # node says so rather than deliver the SDK's error for it.
            raise Skip(f"call {call['tool_call_id']!r}: its result nests deeper than the {SDK_DEPTH} "
                       "levels the MCP Python SDK serialises (pydantic_core's recursion limit)")
    RESULTS = [call.get("result") for call in calls]
    answers = [None] * len(calls)

    async def call(i):
        answers[i] = await client.call_tool("lookup", {"i": i})

    async with anyio.create_task_group() as tg:  # the calls of one invocation run at once
        for i in range(len(calls)):
            tg.start_soon(call, i)
    messages, artifacts = [], []
    for call, answer in zip(calls, answers):
        cid = call["tool_call_id"]  # the call the SDK paired this result with
        messages.append({"tool_call_id": cid, "content": content(answer)})
        artifacts += deliver(answer, cid, call.get("result"))
    # Hidden unless the author exposed it (¶2); delivery never looked at it (¶4).
    return {"messages": messages, "tool_artifacts": artifacts, "exposed": case.get("exposed") is True}


def say(reply):
    sys.stdout.write(json.dumps(reply, ensure_ascii=False, separators=(",", ":")) + "\n")
    sys.stdout.flush()


async def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", choices=list(VARIANTS), default="conforming")
    global VARIANT
    VARIANT = parser.parse_args().variant
    # The SDK logs every tool failure (with a traceback for a crash): quiet it.
    logging.getLogger("mcp").setLevel(logging.CRITICAL)
    sys.stdin.reconfigure(encoding="utf-8")
    sys.stdout.reconfigure(encoding="utf-8")
    sys.setrecursionlimit(20_000)  # results nest up to 512 deep
    name = f"mcp {version('mcp')} MCPServer + Client (in-process), variant {VARIANT}"
    async with Client(server) as client:  # one client and server for the whole process
        while line := await anyio.to_thread.run_sync(sys.stdin.readline):
            if not line.strip():
                continue
            try:
                req = json.loads(line)
            except (ValueError, RecursionError) as e:  # answer its seq, so the run goes on
                say({"seq": None, "errored": True, "message": f"unreadable request: {e!r}"})
                continue
            req = req if is_obj(req) else {}
            cmd = req.get("cmd")
            if cmd == "stop":
                return
            if cmd == "start":
                say({"ready": True, "version": 1, "implementation": {"name": name, "language": "python"}})
            elif cmd == "run":
                try:
                    say({"seq": req["seq"], "outcome": await run(client, req["case"])})
                except Skip as e:
                    say({"seq": req["seq"], "skipped": True, "message": str(e)})
                except Exception as e:  # never crash: say why instead
                    say({"seq": req.get("seq"), "errored": True, "message": repr(e)[:2000]})
            else:
                say({"seq": req.get("seq"), "errored": True, "message": f"unknown cmd {cmd!r}"})


if __name__ == "__main__":
    anyio.run(main)
