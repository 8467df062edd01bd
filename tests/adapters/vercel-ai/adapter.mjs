// RT-TOOL-3 over the Vercel AI SDK: `generateText` with the SDK's own mock
// language model (`ai/test`), driven offline on Node 20.
//
//     node adapter.mjs [--variant conforming|letter|no-to-model-output]
//
// The mock model's first turn emits the case's calls as tool calls, with their
// ids, all to one tool, `lookup({i})`, whose `execute` returns what call i of
// the case returned. The SDK does the work the rule is about:
// - it pairs each tool's output with the call that asked for it: every tool
//   result carries the SDK's `toolCallId` (RT-TOOL-3 ¶1);
// - `toModelOutput` decides what the model reads of an output; the output
//   itself stays on the step's tool results, beside the prose (RT-TOOL-3 ¶3).
// This adapter reads back `messages` from the tool message the mock model
// receives in its second turn, and `tool_artifacts`, built key by key, from the
// steps' tool results by `toolCallId`. `letter` conforms to the stricter
// reading of ¶3 as well (`diff --prose letter`: a failed call's `error` may not
// reach its prose); the variant that must fail is marked VARIANT.
import { createInterface } from "node:readline";
import { createRequire } from "node:module";
import { generateText, stepCountIs, tool, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { z } from "zod";

const VARIANTS = ["conforming", "letter", "no-to-model-output"];
const argv = process.argv.slice(2);
const variant = argv[0] === "--variant" ? argv[1] : argv.length ? argv[0] : "conforming";
if (!VARIANTS.includes(variant)) {
  console.error(`usage: node adapter.mjs [--variant ${VARIANTS.join("|")}]`);
  process.exit(2);
}
const require = createRequire(import.meta.url);
const aiVersion = require("ai/package.json").version;

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

// RT-TOOL-6: an artifact whose payload does not encode is dropped whole, with
// a warning, never altered. JSON.parse reads a number no IEEE double holds
// (`1e400`) as ±Infinity, which JSON.stringify would write as `null`.
function encodes(v) {
  if (typeof v === "number") return Number.isFinite(v);
  if (Array.isArray(v)) return v.every(encodes);
  return isObject(v) ? Object.values(v).every(encodes) : true;
}

// RT-TOOL-2's filter: only `success: true` with an array `artifacts`, only
// objects with a non-empty string `type` and an object `payload`; then
// RT-TOOL-6's drop of a payload that does not encode.
function kept(result, toolCallId) {
  if (!isObject(result) || result.success !== true || !Array.isArray(result.artifacts)) return [];
  return result.artifacts
    .filter((a) => isObject(a) && typeof a.type === "string" && a.type !== "" && isObject(a.payload))
    .filter((a) => {
      if (encodes(a.payload)) return true;
      console.error(`warning: call ${toolCallId}: an artifact of type ${JSON.stringify(a.type)} dropped: its payload holds a number no IEEE double can hold (RT-TOOL-6)`);
      return false;
    });
}

// What the model reads of a tool result part, as text.
function text(output) {
  switch (output.type) {
    case "text":
    case "error-text":
      return output.value;
    case "content":
      return output.value.map((p) => (p.type === "text" ? p.text : JSON.stringify(p))).join("");
    default: // json, error-json, execution-denied
      return JSON.stringify(output.value ?? output.reason ?? null);
  }
}

class ToolFailure extends Error {}

// WORKAROUND for an SDK bug (ai 6.0.325; FINDINGS.md, repro-proto-id.mjs):
// generateText skips, without a word, every tool call whose toolCallId names an
// Object.prototype member ("__proto__", "constructor", "toString", ...), since
// it looks the id up in a plain object of pending approvals. This middleware
// escapes such ids as the model's answer enters the SDK and restores them in
// every prompt going back to the model; the adapter restores them when it
// reads the steps. The escape prefix starts with U+0000, which no
// Object.prototype member does, and ids that start with it are escaped too,
// so the mapping is one to one.
const ESCAPE = "\u0000rt-tool-3:";
const escapeId = (id) => (id in Object.prototype || id.startsWith(ESCAPE) ? ESCAPE + id : id);
const restoreId = (id) => (id.startsWith(ESCAPE) ? id.slice(ESCAPE.length) : id);
const safeToolCallIds = {
  specificationVersion: "v3",
  wrapGenerate: async ({ doGenerate }) => {
    const answer = await doGenerate();
    const content = answer.content.map((p) => (p.type === "tool-call" ? { ...p, toolCallId: escapeId(p.toolCallId) } : p));
    return { ...answer, content };
  },
  transformParams: async ({ params }) => {
    const restore = (p) => (typeof p.toolCallId === "string" ? { ...p, toolCallId: restoreId(p.toolCallId) } : p);
    const prompt = params.prompt.map((m) => (Array.isArray(m.content) ? { ...m, content: m.content.map(restore) } : m));
    return { ...params, prompt };
  },
};

async function run(testCase) {
  const calls = testCase.calls;
  const lookup = tool({
    description: "Return the result of call i of the case.",
    inputSchema: z.object({ i: z.number().int() }),
    execute: async ({ i }) => {
      const result = calls[i].result;
      // A failed call throws: the SDK records a tool-error, which carries no
      // output, so a failed call delivers nothing; the model reads the error's
      // message (`error-text`): the tool's `error`, which the default reading
      // of ¶3 allows, or under `letter` the prose of `data`.
      if (isObject(result) && result.success === false) {
        const error = variant === "letter" ? prose(result.data) : result.error;
        throw new ToolFailure(typeof error === "string" ? error : JSON.stringify(error ?? null));
      }
      return result; // the whole result travels on the step's tool result
    },
    // The model reads prose from `data` alone (¶3).
    // VARIANT no-to-model-output: without it the SDK sends the whole output,
    // artifacts included, to the model as JSON.
    ...(variant === "no-to-model-output"
      ? {}
      : { toModelOutput: ({ output }) => ({ type: "text", value: prose(isObject(output) ? output.data : undefined) }) }),
  });

  let toolMessages = [];
  const mock = new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const usage = { inputTokens: {}, outputTokens: {} };
      if (!prompt.some((m) => m.role === "tool") && calls.length > 0) {
        return {
          content: calls.map((c, i) => ({ type: "tool-call", toolCallId: c.tool_call_id, toolName: "lookup", input: JSON.stringify({ i }) })),
          finishReason: { unified: "tool-calls", raw: undefined },
          usage,
          warnings: [],
        };
      }
      toolMessages = prompt.filter((m) => m.role === "tool"); // what the model reads
      return { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] };
    },
  });
  const model = wrapLanguageModel({ model: mock, middleware: safeToolCallIds });
  const answer = await generateText({ model, prompt: "run the case", tools: { lookup }, stopWhen: stepCountIs(2) });

  const messages = toolMessages
    .flatMap((m) => m.content)
    .filter((p) => p.type === "tool-result")
    .map((p) => ({ tool_call_id: p.toolCallId, content: text(p.output) }));
  const toolArtifacts = answer.steps
    .flatMap((s) => s.toolResults)
    .flatMap((r) => kept(r.output, restoreId(r.toolCallId)).map((a) => ({ type: a.type, payload: a.payload, tool_call_id: restoreId(r.toolCallId) }))); // key by key (¶1)
  // Hidden unless the author exposed it (¶2); delivery never looked at it (¶4).
  return { messages, tool_artifacts: toolArtifacts, exposed: testCase.exposed === true };
}

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
    say({ ready: true, version: 1, implementation: { name: `ai ${aiVersion} generateText + MockLanguageModelV3, variant ${variant}`, language: "javascript" } });
  } else if (req.cmd === "run") {
    try {
      say({ seq: req.seq, outcome: await run(req.case) });
    } catch (e) {
      say({ seq: req.seq, errored: true, message: String(e?.stack ?? e).slice(0, 2000) });
    }
  } else {
    say({ seq: req.seq, errored: true, message: `unknown cmd ${JSON.stringify(req.cmd)}` });
  }
}
process.exit(0);
