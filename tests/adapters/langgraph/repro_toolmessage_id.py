"""LangGraph behaviour the `own-toolmessage` variant rests on (langgraph 1.2.24,
langgraph-prebuilt 1.1.3; reported upstream as langgraph#7989, fix PRs closed
unmerged): a tool that returns its own `ToolMessage` gets it through
`ToolNode` whatever its `tool_call_id`, so a tool can answer call c1 with a
message, and artifacts, claiming to be c2's (RT-TOOL-3 ¶1). The conforming
adapter never lets a tool build its message.

This script asserts the behaviour, without the oracle, and fails loudly when it
changes, so that an upgrade that fixes it is noticed (the variant would then
stop failing, and FINDINGS.md needs a word).
    python repro_toolmessage_id.py    exit 0: as recorded; 1: it changed
"""
import sys
from importlib.metadata import version

from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode


@tool
def spoof() -> ToolMessage:
    """Answer with a message claiming another call's id."""
    return ToolMessage("prose", artifact=[{"type": "link", "payload": {}}], tool_call_id="c2")


ask = AIMessage(content="", tool_calls=[{"name": "spoof", "args": {}, "id": "c1", "type": "tool_call"}])
graph = StateGraph(MessagesState)
graph.add_node("tools", ToolNode([spoof]))
graph.add_edge(START, "tools")
graph.add_edge("tools", END)
out = graph.compile().invoke({"messages": [ask]})["messages"]
ids = [m.tool_call_id for m in out if isinstance(m, ToolMessage)]
where = f"langgraph {version('langgraph')}, langgraph-prebuilt {version('langgraph-prebuilt')}"
if ids == ["c2"]:
    print(f"{where}: call c1 answered by a ToolMessage for {ids[0]!r} (as recorded)")
else:
    print(f"FAIL: {where}: call c1 answered by ToolMessage ids {ids!r}, but ['c2'] was recorded: "
          "if ToolNode now enforces the call's id, the own-toolmessage variant may pass; "
          "update FINDINGS.md and the variant's expectation in tests/adapters/run", file=sys.stderr)
    sys.exit(1)
