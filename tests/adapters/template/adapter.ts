// RT-TOOL-3 adapter template, framework-free: put your runtime's tool node in `run`.
// Node 20 cannot run TypeScript itself: `npx tsx adapter.ts` (tsx pinned in package.json).
import { createInterface } from "node:readline";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = { [key: string]: Json };
type Case = { exposed: boolean | null; calls: { tool_call_id: string; result: Json }[] };
type Entry = { type: string; payload: Obj; tool_call_id: string };
const isObj = (v: Json | undefined): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

// RT-TOOL-6: an artifact whose payload does not encode is dropped whole, with a warning, never altered.
// JSON.parse reads a number no IEEE double holds (`1e400`) as ±Infinity, which JSON.stringify would
// write as `null`: a payload holding one is not delivered.
const encodes = (v: Json): boolean =>
  typeof v === "number" ? Number.isFinite(v) : Array.isArray(v) ? v.every(encodes) : isObj(v) ? Object.values(v).every(encodes) : true;

// The prose: `data` alone, its reserved `artifacts` key dropped (RT-TOOL-3 ¶3, RT-TOOL-2).
function prose(data: Json | undefined): string {
  if (isObj(data)) data = Object.fromEntries(Object.entries(data).filter(([key]) => key !== "artifacts"));
  return typeof data === "string" ? data : data == null ? "" : JSON.stringify(data);
}

function run(c: Case) {
  const messages = c.calls.map(({ tool_call_id, result }) => ({ tool_call_id, content: prose(isObj(result) ? result.data : undefined) }));
  const tool_artifacts: Entry[] = [];
  for (const { tool_call_id, result } of c.calls) {
    const list = isObj(result) && result.success === true ? result.artifacts : null; // RT-TOOL-2: success true only
    for (const a of Array.isArray(list) ? list : []) {
      if (!(isObj(a) && typeof a.type === "string" && a.type !== "" && isObj(a.payload))) continue;
      if (!encodes(a.payload)) {
        console.error(`warning: call ${tool_call_id}: an artifact of type ${JSON.stringify(a.type)} dropped: its payload holds a number no IEEE double can hold (RT-TOOL-6)`);
        continue;
      }
      tool_artifacts.push({ type: a.type, payload: a.payload, tool_call_id }); // key by key, the call's own id (¶1)
    }
  }
  return { messages, tool_artifacts, exposed: c.exposed === true }; // hidden by default (¶2); delivery never reads it (¶4)
}

const say = (reply: object) => process.stdout.write(JSON.stringify(reply) + "\n");
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const req = JSON.parse(line);
  if (req.cmd === "stop") break;
  if (req.cmd === "start") say({ ready: true, version: 1, implementation: { name: "template (framework-free)", language: "typescript" } });
  else try { say({ seq: req.seq, outcome: run(req.case) }); } catch (e) { say({ seq: req.seq, errored: true, message: String(e) }); }
}
