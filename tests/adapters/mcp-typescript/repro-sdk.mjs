// What the MCP TypeScript SDK (@modelcontextprotocol/sdk 1.32.2, Node 20) does
// that bears on RT-TOOL-3, without the oracle: an `McpServer` and a `Client`
// over the SDK's `InMemoryTransport`, a tool per behaviour. Each check prints
// one line; the script exits 1, loudly, once any behaviour differs from what
// FINDINGS.md records, so an SDK upgrade that changes one says so.
//
//     node repro-sdk.mjs     exit 0: every behaviour as recorded; 1: one changed
import { readFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { z } from "zod";

const version = JSON.parse(readFileSync(new URL("node_modules/@modelcontextprotocol/sdk/package.json", import.meta.url))).version;
const RESULT = { data: "ok", error: "decoy", artifacts: [{ type: "link", payload: { url: "https://x.invalid" } }] };

const server = new McpServer({ name: "repro", version: "1.0.0" });
const tools = {
  // The documentation's pattern: structuredContent, and the same JSON as text.
  documented: () => ({ content: [{ type: "text", text: JSON.stringify(RESULT) }], structuredContent: RESULT }),
  structuredOnly: () => ({ structuredContent: RESULT }),
  overflow: () => ({ content: [], structuredContent: { payload: { big: JSON.parse("1e400") } } }),
  throws: () => {
    throw new Error("disk full");
  },
  loneSurrogate: () => ({ content: [], structuredContent: { payload: { text: JSON.parse('"\\ud800"') } } }),
};
for (const [name, fn] of Object.entries(tools)) {
  server.registerTool(name, { inputSchema: {}, outputSchema: z.looseObject({}) }, async () => fn());
}
// An output schema, and failures built by hand that break it.
const strict = { inputSchema: {}, outputSchema: z.looseObject({ n: z.number() }) };
server.registerTool("handBuiltError", strict, async () => ({
  content: [{ type: "text", text: "failed" }],
  structuredContent: { n: "not a number", artifacts: [{ type: "link", payload: {} }] },
  isError: true,
}));
server.registerTool("handBuiltErrorNoStructured", strict, async () => ({ content: [{ type: "text", text: "failed" }], isError: true }));

const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
await server.connect(serverTransport);
const client = new Client({ name: "repro", version: "1.0.0" });
await client.connect(clientTransport);
await client.listTools();
const call = async (name) => {
  try {
    return await client.callTool({ name, arguments: {} });
  } catch (e) {
    return { thrown: e.message };
  }
};

let changed = 0;
function check(what, got, want) {
  const line = `@modelcontextprotocol/sdk ${version}: ${what}: ${JSON.stringify(got)}`;
  if (isDeepStrictEqual(got, want)) {
    console.log(`${line} (as recorded)`);
  } else {
    changed++;
    console.error(`FAIL ${line}, but ${JSON.stringify(want)} was recorded`);
  }
}

let r = await call("documented");
check("the documented pattern: the text block is the JSON of the whole result, artifacts and error included",
  r.content.map((b) => JSON.parse(b.text)), [RESULT]);
r = await call("structuredOnly");
check("a structuredContent alone: no text block is written for it", r.content, []);
r = await call("overflow");
check("1e400 (Infinity once parsed) in structuredContent: handed over as it is, then JSON.stringify writes null",
  [r.structuredContent.payload.big, JSON.stringify(r.structuredContent)], [Infinity, '{"payload":{"big":null}}']);
r = await call("throws");
check("a thrown error: isError, no structuredContent, the message as text",
  [r.isError, "structuredContent" in r, r.content], [true, false, [{ type: "text", text: "disk full" }]]);
r = await call("handBuiltError");
check("a hand-built isError result breaking the output schema: the server passes it, the client's callTool throws",
  r.thrown?.startsWith("MCP error -32602: Structured content does not match the tool's output schema"), true);
r = await call("handBuiltErrorNoStructured");
check("a hand-built isError result without structuredContent: passes", [r.isError, r.content[0].text], [true, "failed"]);
r = await call("loneSurrogate");
check("a lone surrogate in structuredContent: handed over as it is (no serialisation in memory)",
  [r.isError ?? false, r.structuredContent.payload.text === "\ud800"], [false, true]);

await client.close();
if (changed) {
  console.error(
    `FAIL: ${changed} MCP TypeScript SDK behaviour(s) changed: update FINDINGS.md, the adapter's ` +
      "workarounds and the variants' expectations in tests/adapters/run",
  );
  process.exit(1);
}
