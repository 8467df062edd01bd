//! The reference outcome broken by a clause fault: most faults patch the
//! reference's own outcome in place, the way a runtime that gets one thing
//! wrong goes wrong; the others are rebuilt ([`super::rebuilt`]) or break
//! the rule's space ([`super::space`]).

use serde_json::{json, Value};

use super::rebuilt::rebuilt;
use super::space::{self, messages};
use super::Fault;
use crate::model;
use crate::wire::{self, Case};

/// The reference outcome, broken by a clause fault.
pub fn outcome(case: &Case, fault: Option<Fault>) -> Value {
    let mut outcome = model::outcome(case);
    let hidden = !outcome.exposed;
    if let Some(fault) = fault {
        broken_before_json(case, fault, hidden, &mut outcome);
    }
    let mut value = serde_json::to_value(&outcome).unwrap_or(Value::Null);
    match fault {
        Some(f @ (Fault::SpoofId | Fault::ExtraKeys)) => entry_keys_through(case, f, &mut value),
        Some(Fault::LeakPayload) => leak_payload(case, &mut value),
        Some(Fault::DecoyProse) => decoy_prose(case, &mut value),
        Some(Fault::CountInProse) => count_in_prose(case, &mut value),
        Some(Fault::PositionInProse) => position_in_prose(&mut value),
        Some(Fault::SharedBudget) => shared_budget(&mut value),
        Some(Fault::DedupeProse) => dedupe_prose(case, &mut value),
        Some(Fault::StripHidden) if hidden => {
            if let Value::Object(o) = &mut value {
                o.remove("tool_artifacts");
            }
        }
        Some(Fault::SwapProse) if case.calls.len() > 1 => swap_prose(case, &mut value),
        Some(f @ (Fault::ErrorInProse | Fault::FailedErrorProse | Fault::ReservedInProse)) => {
            more_prose(case, f, &mut value)
        }
        Some(Fault::TruthySuccess) => truthy_success(case, &mut value),
        Some(Fault::PayloadId) => payload_id(case, &mut value),
        Some(Fault::DropOverCount) => {
            if let Some(list) = value["tool_artifacts"].as_array_mut() {
                if list.len() > model::floors::ARTIFACTS {
                    list.clear();
                }
            }
        }
        Some(f @ (Fault::KeepMalformed | Fault::KeepFailed)) => keep_dropped(case, f, &mut value),
        Some(f) if space::covers(f) => {
            space::broken(case, f, &mut value, &mut space::Memory::default())
        }
        Some(f) => rebuilt(case, f, &mut value),
        None => {}
    }
    value
}

/// The faults written on the reference outcome before it is JSON: the
/// exposure, and artifacts dropped (some, or all when a result is not of
/// RT-TOOL-1's shape) or given to the first call. `hidden`:
/// whether the reference leaves the port unexposed.
fn broken_before_json(case: &Case, fault: Fault, hidden: bool, outcome: &mut wire::Outcome) {
    match fault {
        Fault::ExposedByDefault => outcome.exposed = case.exposed.unwrap_or(true),
        Fault::DropLast => {
            outcome.tool_artifacts.pop();
        }
        Fault::FirstCall => {
            if let Some(first) = case.calls.first() {
                for a in &mut outcome.tool_artifacts {
                    a.tool_call_id = first.tool_call_id.clone();
                }
            }
        }
        Fault::HiddenDrops if hidden => outcome.tool_artifacts.clear(),
        Fault::DropAllWhenAnyMalformed
            if !(case.calls.iter()).all(|call| model::of_rt_tool_1_shape(&call.result)) =>
        {
            outcome.tool_artifacts.clear()
        }
        Fault::HiddenDropsMedia if hidden => outcome
            .tool_artifacts
            .retain(|a| !matches!(a.kind.as_str(), "image" | "file" | "chart")),
        _ => {}
    }
}

/// [`Fault::SpoofId`] and [`Fault::ExtraKeys`]: the entry's own string
/// `tool_call_id`, or every key of it, passed through to what is delivered.
fn entry_keys_through(case: &Case, f: Fault, value: &mut Value) {
    for ((_, entry), out) in
        kept(case).zip(value["tool_artifacts"].as_array_mut().into_iter().flatten())
    {
        for (k, v) in entry.as_object().into_iter().flatten() {
            if f == Fault::ExtraKeys || (k == "tool_call_id" && v.is_string()) {
                out[k] = v.clone();
            }
        }
    }
}

/// [`Fault::LeakPayload`]: each call's prose followed by its artifacts'
/// payload strings.
fn leak_payload(case: &Case, value: &mut Value) {
    let mut leaks = vec![String::new(); case.calls.len()];
    for (call, entry) in kept(case) {
        let i = case
            .calls
            .iter()
            .position(|c| c.tool_call_id == call.tool_call_id)
            .unwrap_or(0);
        if let Some(Value::Object(p)) = entry.get("payload") {
            for v in p.values().filter_map(Value::as_str) {
                leaks[i].push(' ');
                leaks[i].push_str(v);
            }
        }
    }
    for (m, leak) in messages(value).zip(leaks) {
        let content = format!("{}{leak}", m["content"].as_str().unwrap_or_default());
        m["content"] = Value::String(content);
    }
}

/// [`Fault::DecoyProse`]: a result's string `content` for its call's prose.
fn decoy_prose(case: &Case, value: &mut Value) {
    for (m, call) in messages(value).zip(&case.calls) {
        if let Some(Value::String(decoy)) = call.result.get("content") {
            m["content"] = Value::String(decoy.clone());
        }
    }
}

/// [`Fault::CountInProse`]: how many artifacts a call returned, after its
/// prose.
fn count_in_prose(case: &Case, value: &mut Value) {
    for (m, call) in messages(value).zip(&case.calls) {
        if let Some(Value::Array(a)) = call
            .result
            .get("artifacts")
            .filter(|a| a.as_array().is_some_and(|a| !a.is_empty()))
        {
            let content = format!(
                "{} ({} artifacts)",
                m["content"].as_str().unwrap_or_default(),
                a.len()
            );
            m["content"] = Value::String(content);
        }
    }
}

/// [`Fault::PositionInProse`]: each prose after its place among the
/// calls, counted from 1.
fn position_in_prose(value: &mut Value) {
    for (i, m) in messages(value).enumerate() {
        let content = format!("[{}] {}", i + 1, m["content"].as_str().unwrap_or_default());
        m["content"] = Value::String(content);
    }
}

/// [`Fault::SharedBudget`]: each prose cut to its even share, in
/// characters, of [`SHARED_BUDGET`].
fn shared_budget(value: &mut Value) {
    let messages: Vec<&mut Value> = messages(value).collect();
    let share = SHARED_BUDGET / messages.len().max(1);
    for m in messages {
        if let Some(content) = m["content"].as_str() {
            let cut: String = content.chars().take(share).collect();
            m["content"] = Value::String(cut);
        }
    }
}

/// [`Fault::DedupeProse`]: a call whose `data` equals an earlier call's
/// told so, in place of its prose.
fn dedupe_prose(case: &Case, value: &mut Value) {
    for (i, (m, call)) in messages(value).zip(&case.calls).enumerate() {
        let data = call.result.get("data");
        let earlier = case.calls[..i]
            .iter()
            .find(|c| data.is_some() && c.result.get("data") == data);
        if let Some(earlier) = earlier {
            let said = format!("(same result as call {})", earlier.tool_call_id);
            m["content"] = Value::String(said);
        }
    }
}

/// The characters [`Fault::SharedBudget`] shares out between the calls.
const SHARED_BUDGET: usize = 2_000;

/// [`Fault::SwapProse`]: each call the prose of the next call's `data`.
fn swap_prose(case: &Case, value: &mut Value) {
    let n = case.calls.len();
    for (i, m) in messages(value).enumerate() {
        m["content"] = model::clause_3_prose(&case.calls[(i + 1) % n])
            .content
            .into();
    }
}

/// [`Fault::ErrorInProse`], [`Fault::FailedErrorProse`] and
/// [`Fault::ReservedInProse`]: after a call's prose, its `error` (of a
/// successful call, or of a failed one), or the reserved key of its `data`.
fn more_prose(case: &Case, f: Fault, value: &mut Value) {
    for (m, call) in messages(value).zip(&case.calls) {
        let succeeded = call.result.get("success") == Some(&Value::Bool(true));
        let content = m["content"].as_str().unwrap_or_default().to_owned();
        let more = match (f, call.result.get("error"), call.result.get("data")) {
            (Fault::ErrorInProse, Some(Value::String(e)), _) if succeeded => e.clone(),
            (Fault::FailedErrorProse, Some(Value::String(e)), _) if !succeeded => e.clone(),
            (Fault::ReservedInProse, _, Some(data)) if data.get(model::RESERVED_KEY).is_some() => {
                model::sorted_compact_json(&data[model::RESERVED_KEY])
            }
            _ => continue,
        };
        m["content"] = format!("{content} {more}").into();
    }
}

/// [`Fault::TruthySuccess`]: the well-formed artifacts of a call whose
/// `success` is truthy as JavaScript reads it, though not `true`, delivered
/// too.
fn truthy_success(case: &Case, value: &mut Value) {
    let truthy = |v: Option<&Value>| match v {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0),
        Some(Value::Array(_) | Value::Object(_)) => true,
        Some(Value::Null) | None => false,
    };
    let mut extra = Vec::new();
    for call in &case.calls {
        if call.result.get("success") == Some(&Value::Bool(true))
            || !truthy(call.result.get("success"))
        {
            continue;
        }
        if let Some(Value::Array(entries)) = call.result.get("artifacts") {
            for (k, p) in entries.iter().filter_map(model::well_formed) {
                extra.push(json!({"type": k, "payload": p, "tool_call_id": call.tool_call_id}));
            }
        }
    }
    if let Some(list) = value["tool_artifacts"].as_array_mut() {
        list.extend(extra);
    }
}

/// [`Fault::PayloadId`]: an artifact's `tool_call_id` taken from its
/// payload's own, when that is a string.
fn payload_id(case: &Case, value: &mut Value) {
    for ((_, entry), out) in
        kept(case).zip(value["tool_artifacts"].as_array_mut().into_iter().flatten())
    {
        if let Some(Value::String(id)) = entry["payload"].get("tool_call_id") {
            out["tool_call_id"] = id.clone().into();
        }
    }
}

/// [`Fault::KeepMalformed`] and [`Fault::KeepFailed`]: the entries RT-TOOL-2
/// drops, malformed ones (with a string `type` and a `payload`) of a call
/// that did not fail, or well-formed ones of a failed call, delivered too.
fn keep_dropped(case: &Case, f: Fault, value: &mut Value) {
    let mut extra = Vec::new();
    for call in &case.calls {
        let failed = call.result.get("success") == Some(&Value::Bool(false));
        let Some(Value::Array(entries)) = call.result.get("artifacts") else {
            continue;
        };
        for e in entries {
            let kept = match f {
                Fault::KeepMalformed => {
                    !failed
                        && model::well_formed(e).is_none()
                        && e.get("type").is_some_and(Value::is_string)
                        && e.get("payload").is_some()
                }
                _ => failed && model::well_formed(e).is_some(),
            };
            if kept {
                extra.push(json!({"type": e["type"], "payload": e["payload"], "tool_call_id": call.tool_call_id}));
            }
        }
    }
    if let Some(list) = value["tool_artifacts"].as_array_mut() {
        list.extend(extra);
    }
}

/// Each call's entries that RT-TOOL-2 keeps, with their call, in the order
/// the reference delivers them.
pub(super) fn kept(case: &Case) -> impl Iterator<Item = (&wire::Call, &Value)> {
    case.calls.iter().flat_map(|call| {
        let ok = call.result.get("success") == Some(&Value::Bool(true));
        let entries = match call.result.get("artifacts") {
            Some(Value::Array(a)) if ok => a.as_slice(),
            _ => &[],
        };
        entries
            .iter()
            .filter(|e| model::well_formed(*e).is_some())
            .map(move |e| (call, e))
    })
}

/// A delivered entry, built key by key.
pub(super) fn entry(kind: &Value, payload: &Value, id: &str) -> Value {
    json!({"type": kind, "payload": payload, "tool_call_id": id})
}
