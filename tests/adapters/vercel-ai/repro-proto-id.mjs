// Finding (ai 6.0.325, Node 20): generateText never executes a tool call whose
// toolCallId is the name of an Object.prototype member ("__proto__",
// "constructor", "toString", ...). It checks each call against a plain object
// of pending approvals, `toolApprovalRequests[toolCall.toolCallId] == null`,
// finds the inherited member there, and skips the call as if it awaited
// approval: no tool result, no tool message, the loop ends after one step.
// Under RT-TOOL-3 the call's message and its artifacts (¶1) are lost.
//
// This script asserts the behaviour, without the oracle, and fails loudly when
// it changes, so that an upgrade that fixes it is noticed and the adapter's
// workaround (the `safeToolCallIds` middleware in adapter.mjs) can go.
//     node repro-proto-id.mjs     exit 0: the bug is there, as recorded; 1: it changed
import { createRequire } from "node:module";
import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { z } from "zod";

const version = createRequire(import.meta.url)("ai/package.json").version;

async function executed(toolCallId) {
  let ran = false;
  const usage = { inputTokens: {}, outputTokens: {} };
  const model = new MockLanguageModelV3({
    doGenerate: [
      { content: [{ type: "tool-call", toolCallId, toolName: "t", input: "{}" }], finishReason: { unified: "tool-calls", raw: undefined }, usage, warnings: [] },
      { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] },
    ],
  });
  const t = tool({ inputSchema: z.object({}), execute: async () => ((ran = true), "ok") });
  const result = await generateText({ model, prompt: "x", tools: { t }, stopWhen: stepCountIs(2) });
  const results = result.steps.flatMap((s) => s.toolResults).filter((r) => r.toolCallId === toolCallId);
  return ran && results.length === 1;
}

// [toolCallId, executed?] as recorded for this version.
const recorded = [["c1", true], ["__proto__", false], ["constructor", false], ["toString", false], ["hasOwnProperty", false]];
let changed = false;
for (const [id, want] of recorded) {
  const got = await executed(id);
  const line = `ai ${version}: tool call ${JSON.stringify(id)} ${got ? "executed" : "NOT executed"}`;
  if (got === want) {
    console.log(`${line} (as recorded)`);
  } else {
    changed = true;
    console.error(`${line}, but ${want ? "executed" : "NOT executed"} was recorded`);
  }
}
if (changed) {
  console.error(
    "FAIL: the AI SDK's handling of prototype-named toolCallIds changed: if it is fixed, " +
      "drop the safeToolCallIds workaround in adapter.mjs and this script, and update FINDINGS.md",
  );
  process.exit(1);
}
