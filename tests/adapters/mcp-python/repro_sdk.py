"""What the MCP Python SDK (mcp 2.3.0) does that bears on RT-TOOL-3, without the
oracle: an `MCPServer` and a `Client` connected in-process, a tool per behaviour.
Each check prints one line; the script exits 1, loudly, once any behaviour
differs from what FINDINGS.md records, so an SDK upgrade that changes one says
so (and the adapter's workaround, or a variant's expectation, needs a look).

    python repro_sdk.py     exit 0: every behaviour as recorded; 1: one changed
"""
import importlib
import json
import logging
import sys
from importlib.metadata import version
from typing import Annotated, Any

import anyio
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, EmbeddedResource, ResourceLink, TextContent, TextResourceContents
from pydantic import BaseModel

logging.getLogger("mcp").setLevel(logging.CRITICAL)  # the SDK logs each failure
server = MCPServer("repro")
RESULT = {"data": "ok", "error": "decoy", "artifacts": [{"type": "link", "payload": {"url": "https://x.invalid"}}]}


@server.tool()
def returns_dict() -> dict[str, Any]:
    """A tool that returns a dict."""
    return RESULT


@server.tool()
def returns_overflow() -> dict[str, Any]:
    """What json.loads makes of 1e400, returned."""
    return {"payload": {"big": json.loads("1e400")}}


@server.tool()
def raises() -> dict[str, Any]:
    """A failure, raised the documented way."""
    raise ToolError("disk full")


class Out(BaseModel):
    n: int


@server.tool()
def hand_built_error() -> Annotated[CallToolResult, Out]:
    """A failure built by hand, whose structuredContent breaks the output schema."""
    return CallToolResult(is_error=True, content=[TextContent(type="text", text="failed")],
                          structured_content={"n": "not an int", "artifacts": [{"type": "link", "payload": {}}]})


@server.tool()
def hand_built_ok() -> Annotated[CallToolResult, Out]:
    """The same, without isError."""
    return CallToolResult(content=[], structured_content={"n": "not an int"})


@server.tool()
def lone_surrogate() -> dict[str, Any]:
    """A string with a lone surrogate, as json.loads makes of "\\ud800"."""
    return {"data": "ok", "payload": {"text": json.loads('"\\ud800"')}}


@server.tool()
def nested(depth: int) -> dict[str, Any]:
    """A value nested `depth` objects deep."""
    v: dict = {}
    for _ in range(depth):
        v = {"a": v}
    return {"payload": v}


failures = []


def check(what, got, want):
    line = f"mcp {version('mcp')}: {what}: {got!r}"
    if got == want:
        print(f"{line} (as recorded)")
    else:
        failures.append(what)
        print(f"FAIL {line}, but {want!r} was recorded", file=sys.stderr)


async def main():
    async with Client(server) as client:
        r = await client.call_tool("returns_dict", {})
        check("a dict return: structuredContent is the dict", r.structured_content, RESULT)
        check("a dict return: its text block is the JSON of the whole return, artifacts and error included",
              [json.loads(b.text) for b in r.content if isinstance(b, TextContent)], [RESULT])

        r = await client.call_tool("returns_overflow", {})
        check("1e400 in a return: structuredContent", r.structured_content, {"payload": {"big": None}})
        check("1e400 in a return: the text block (not JSON)", "Infinity" in r.content[0].text, True)

        r = await client.call_tool("raises", {})
        check("a raised ToolError: isError, structuredContent, text",
              (r.is_error, r.structured_content, r.content[0].text), (True, None, "Error executing tool raises: disk full"))

        r = await client.call_tool("hand_built_error", {})
        check("a hand-built isError result breaking the output schema: passes through, unvalidated",
              (r.is_error, r.structured_content["n"], len(r.structured_content["artifacts"])), (True, "not an int", 1))
        try:
            r = await client.call_tool("hand_built_ok", {})
            got = ("returned", r.is_error)
        except Exception as e:  # the client's validation
            got = ("raised", type(e).__name__)
        check("the same without isError: refused by the server (an isError result of its own)", got, ("returned", True))

        r = await client.call_tool("lone_surrogate", {})
        check("a lone surrogate in a return: the call becomes an error",
              (r.is_error, r.structured_content, r.content[0].text), (True, None, "Error executing tool lone_surrogate"))

        depths = {}
        for depth in (200, 253, 254, 300):
            r = await client.call_tool("nested", {"depth": depth})
            depths[depth] = "error" if r.is_error else "ok"
        # {"payload": v}, v nested `depth` deep: the return is depth + 1 objects deep
        check("a return holding a value nested N objects deep (N: outcome)", depths,
              {200: "ok", 253: "ok", 254: "error", 300: "error"})

    resource = EmbeddedResource(type="resource", resource=TextResourceContents(
        uri="artifact:0", mime_type="application/json", text='{"type":"link","payload":{}}'))
    link = ResourceLink(type="resource_link", uri="artifact:0", name="link", mime_type="application/json")
    check("an embedded resource's own keys", sorted(resource.resource.model_dump(by_alias=True, exclude_none=True)),
          ["mimeType", "text", "uri"])
    check("a resource link's own keys", sorted(link.model_dump(by_alias=True, exclude_none=True)),
          ["mimeType", "name", "type", "uri"])

    try:
        importlib.import_module("mcp.server.fastmcp")
        got = "imported"
    except ModuleNotFoundError as e:
        got = "ModuleNotFoundError: " + ("MCPServer" if "MCPServer" in str(e) else str(e))
    check("import mcp.server.fastmcp (v1's FastMCP)", got, "ModuleNotFoundError: MCPServer")
    memory = importlib.import_module("mcp.shared.memory")
    check("v1's in-memory helper mcp.shared.memory.create_connected_server_and_client_session",
          hasattr(memory, "create_connected_server_and_client_session"), False)


anyio.run(main)
if failures:
    print(f"FAIL: {len(failures)} MCP Python SDK behaviour(s) changed: update FINDINGS.md, the adapter's "
          "workarounds and the variants' expectations in tests/adapters/run", file=sys.stderr)
    sys.exit(1)
