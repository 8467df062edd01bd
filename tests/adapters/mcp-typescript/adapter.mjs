// RT-TOOL-3 over the official MCP TypeScript SDK (@modelcontextprotocol/sdk):
// a tool node whose tools are real MCP tools, served by `McpServer` and called
// through the SDK's `Client` over its `InMemoryTransport`, on Node 20, offline.
//
//     node adapter.mjs [--variant NAME]     (NAME in VARIANTS below)
//
// One server, one client and one linked transport pair live for the whole
// process. Each case's calls become concurrent `tools/call` requests to one MCP
// tool, `lookup({i})`, which returns what call i of the case returned. The SDK
// does the pairing of requests and results, the validation, and the error
// handling; the node only reads `CallToolResult`s.
//
// The convention this node and its tools share (the template an MCP team starts
// from), and where the SDK does the rule's work:
// - A tool returns its result (`{success, data, error, artifacts}`) as its
//   `structuredContent` and, as the SDK's documentation shows, the same JSON in a
//   text block for clients without structured output. The node reads
//   `structuredContent` alone: prose from its `data` (RT-TOOL-3 ¶3), artifacts
//   from its `artifacts`, built key by key with the id of the call the SDK
//   paired the result with (¶1). The text block is a trap (FINDINGS.md).
// - MCP's own failure flag, `isError`, is the call's `success`: a failed call
//   delivers no artifacts (RT-TOOL-2). A tool that throws loses its
//   `structuredContent` (and so its `data`); ours reports a failure with an
//   `isError` result that keeps the result as its `structuredContent`, which
//   the server does not validate, so the node must honour `isError` (variant
//   `iserror-ignored` does not).
// - With `--variant resources` the tool carries each artifact the other way MCP
//   offers, as an embedded resource (`uri`, `mimeType`, `text`), and the node
//   builds the entry key by key from the artifact the resource holds.
// - A payload holding a number no IEEE double can hold (`1e400`) cannot be
//   encoded: JavaScript reads it as Infinity, the in-memory transport hands the
//   object over as it is, and `JSON.stringify` writes `null`. RT-TOOL-6 drops
//   such an artifact with a warning and does not fail the run: the node finds
//   such numbers in what the tool returned and drops the artifact with a
//   warning on stderr, never delivering the mangled payload.
//
// The variants that must fail are marked VARIANT.
import { createInterface } from "node:readline";
import { readFileSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { z } from "zod";

const VARIANTS = {
  conforming: "structuredContent read; prose from its data; isError honoured",
  resources: "artifacts carried as embedded resources, entries built key by key",
  "text-blocks": "VARIANT: prose from the text blocks (RT-TOOL-3 ¶3)",
  "whole-result": "VARIANT: the whole CallToolResult fed to the model as JSON (¶3)",
  "resource-keys": "VARIANT: embedded resources kept as entries, uri and mimeType included (¶1)",
  "both-channels": "VARIANT: artifacts read from structuredContent and from the resources (¶1)",
  "iserror-ignored": "VARIANT: isError ignored, a failed call's artifacts delivered (RT-TOOL-2)",
};
const argv = process.argv.slice(2);
const variant = argv[0] === "--variant" ? argv[1] : argv.length ? argv[0] : "conforming";
if (!Object.hasOwn(VARIANTS, variant)) {
  console.error(`usage: node adapter.mjs [--variant ${Object.keys(VARIANTS).join("|")}]`);
  process.exit(2);
}
// The variants whose tool carries artifacts as embedded resources.
const RESOURCE_CARRIER = ["resources", "resource-keys", "both-channels"].includes(variant);
const ARTIFACT_MIME = "application/vnd.flowdrop.artifact+json";
const ARTIFACT_URI = "flowdrop-artifact:";
// The package's `exports` hide its package.json from require: read the file.
const sdkVersion = JSON.parse(readFileSync(new URL("node_modules/@modelcontextprotocol/sdk/package.json", import.meta.url))).version;

const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);

// Compact JSON with sorted keys, for prose rendered from `data`.
function sorted(v) {
  if (Array.isArray(v)) return `[${v.map(sorted).join(",")}]`;
  if (isObject(v)) {
    const keys = Object.keys(v).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${keys.map((k) => `${JSON.stringify(k)}:${sorted(v[k])}`).join(",")}}`;
  }
  return JSON.stringify(v);
}

// The prose of a result's `data` (¶3); an object's reserved `artifacts` key is
// dropped first (RT-TOOL-2), so nothing under it is read.
function prose(data) {
  if (isObject(data)) {
    data = Object.fromEntries(Object.entries(data).filter(([k]) => k !== "artifacts"));
    const keys = Object.keys(data);
    if (keys.length === 1 && keys[0] === "result" && typeof data.result === "string") return data.result;
  }
  if (typeof data === "string") return data;
  return data === null || data === undefined ? "" : sorted(data);
}

// Whether every number in a value survives JSON: JSON has no infinity, so a
// non-finite number here is one of the request that overflowed a double
// (`1e400`, or an integer of more than 309 digits).
function encodes(v) {
  if (typeof v === "number") return Number.isFinite(v);
  if (Array.isArray(v)) return v.every(encodes);
  if (isObject(v)) return Object.values(v).every(encodes);
  return true;
}

// --- the tools: an MCP server, as a tool author writes one --------------------

let RESULTS = []; // the current case's results; cases are served one at a time
const server = new McpServer({ name: "flowdrop-tools", version: "1.0.0" });

const errorText = (result) => (typeof result.error === "string" ? result.error : JSON.stringify(result.error ?? null));

server.registerTool(
  "lookup",
  {
    description: "Return the result of call i of the case.",
    inputSchema: { i: z.number().int() },
    outputSchema: z.looseObject({}),
  },
  async ({ i }) => {
    const result = isObject(RESULTS[i]) ? RESULTS[i] : {}; // a non-object result: nothing of it travels
    if ("success" in result && result.success !== true) {
      // WORKAROUND (FINDINGS.md): throwing would give an isError result with the
      // message alone, no structuredContent, and so no `data` for the prose;
      // this one keeps the result, and the server does not validate it.
      return { content: [{ type: "text", text: errorText(result) }], structuredContent: result, isError: true };
    }
    if (!RESOURCE_CARRIER) {
      // The SDK documentation's pattern: structured, and the same JSON as text.
      return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result };
    }
    // The resource carrier: each artifact entry an embedded resource, the rest
    // structured (both-channels: the whole result stays structured too).
    const entries = Array.isArray(result.artifacts) ? result.artifacts : [];
    const structured =
      variant === "both-channels" ? result : Object.fromEntries(Object.entries(result).filter(([k]) => k !== "artifacts"));
    const resources = entries.flatMap((a, k) =>
      isObject(a)
        ? [{ type: "resource", resource: { uri: `${ARTIFACT_URI}${k}`, mimeType: ARTIFACT_MIME, text: JSON.stringify(a) } }]
        : [],
    );
    return { content: [{ type: "text", text: JSON.stringify(structured) }, ...resources], structuredContent: structured };
  },
);

// --- the node: an MCP client, as a runtime author writes one ------------------

const warn = (message) => process.stderr.write(`warning: ${message}\n`);

// RT-TOOL-2's filter: an object with a non-empty string `type` and an object `payload`.
const kept = (a) => isObject(a) && typeof a.type === "string" && a.type !== "" && isObject(a.payload);

const textBlocks = (answer) =>
  answer.content
    .filter((b) => b.type === "text")
    .map((b) => b.text)
    .join("\n");

// [index, artifact, resource] for each embedded resource carrying an artifact.
function resourceArtifacts(answer) {
  return answer.content
    .filter((b) => b.type === "resource" && b.resource.mimeType === ARTIFACT_MIME && b.resource.uri.startsWith(ARTIFACT_URI))
    .map((b) => [Number(b.resource.uri.slice(ARTIFACT_URI.length)), JSON.parse(b.resource.text), b.resource]);
}

// The call's entries for the port. `raw` is the call's result as the node
// received it from the tool: its artifacts' payloads say which numbers JSON
// cannot carry (RT-TOOL-6).
function deliver(answer, callId, raw) {
  const rawEntries = isObject(raw) && Array.isArray(raw.artifacts) ? raw.artifacts : [];
  const structured = isObject(answer.structuredContent) ? answer.structuredContent : {};
  let success = !answer.isError;
  if (variant === "iserror-ignored") success = true; // VARIANT: MCP's failure flag ignored (RT-TOOL-2)
  const found = []; // [index in the tool's list, artifact, the resource carrying it or null]
  if (!RESOURCE_CARRIER || variant === "both-channels") {
    const entries = Array.isArray(structured.artifacts) ? structured.artifacts : [];
    entries.forEach((a, k) => found.push([k, a, null]));
  }
  if (RESOURCE_CARRIER) found.push(...resourceArtifacts(answer));
  const out = [];
  for (const [k, a, resource] of success ? found : []) {
    if (!kept(a)) continue;
    if (isObject(rawEntries[k]) && !encodes(rawEntries[k].payload)) {
      // RT-TOOL-6: a payload that does not encode is dropped with a warning;
      // JSON.stringify would deliver `null` in its place.
      warn(`RT-TOOL-6: artifact ${k} of call ${JSON.stringify(callId)} dropped: its payload holds a number no IEEE double can hold`);
      continue;
    }
    if (variant === "resource-keys") {
      // VARIANT: the resource's own keys kept (¶1)
      const { text, ...keys } = resource;
      out.push({ ...keys, type: a.type, payload: a.payload, tool_call_id: callId });
    } else {
      out.push({ type: a.type, payload: a.payload, tool_call_id: callId }); // key by key, the call's own id (¶1)
    }
  }
  return out;
}

// What the model reads of the call.
function content(answer) {
  if (variant === "text-blocks") return textBlocks(answer); // VARIANT: the usual thing to feed a model (¶3)
  if (variant === "whole-result") return JSON.stringify(answer); // VARIANT: the whole result, as JSON (¶3)
  if (!isObject(answer.structuredContent)) {
    // No structured result: the SDK's own failure; the model reads its error text.
    return answer.isError ? textBlocks(answer) : "";
  }
  return prose(answer.structuredContent.data); // from `data` alone (¶3)
}

async function run(client, testCase) {
  const calls = testCase.calls;
  RESULTS = calls.map((c) => c.result);
  // The calls of one invocation run at once; the SDK pairs each answer with its request.
  const answers = await Promise.all(calls.map((_, i) => client.callTool({ name: "lookup", arguments: { i } })));
  const messages = calls.map((c, i) => ({ tool_call_id: c.tool_call_id, content: content(answers[i]) }));
  const toolArtifacts = calls.flatMap((c, i) => deliver(answers[i], c.tool_call_id, c.result));
  // Hidden unless the author exposed it (¶2); delivery never looked at it (¶4).
  return { messages, tool_artifacts: toolArtifacts, exposed: testCase.exposed === true };
}

const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
await server.connect(serverTransport);
const client = new Client({ name: "flowdrop-node", version: "1.0.0" });
await client.connect(clientTransport);
await client.listTools(); // the client validates structuredContent against the listed outputSchema

const say = (reply) => process.stdout.write(JSON.stringify(reply) + "\n");
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (!line.trim()) continue;
  let req;
  try {
    req = JSON.parse(line);
  } catch (e) {
    // Unreadable: answer its seq, if it can be found, so the run goes on.
    const seq = /"seq"\s*:\s*(\d+)/.exec(line);
    say({ seq: seq ? Number(seq[1]) : null, errored: true, message: `unreadable request: ${e}` });
    continue;
  }
  if (req.cmd === "stop") break;
  if (req.cmd === "start") {
    say({
      ready: true,
      version: 1,
      implementation: { name: `@modelcontextprotocol/sdk ${sdkVersion} McpServer + Client (InMemoryTransport), variant ${variant}`, language: "javascript" },
    });
  } else if (req.cmd === "run") {
    try {
      say({ seq: req.seq, outcome: await run(client, req.case) });
    } catch (e) {
      say({ seq: req.seq, errored: true, message: String(e?.stack ?? e).slice(0, 2000) });
    }
  } else {
    say({ seq: req.seq, errored: true, message: `unknown cmd ${JSON.stringify(req.cmd)}` });
  }
}
await client.close();
process.exit(0);
