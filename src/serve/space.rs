//! Faults across the rule's whole space rather than its named features:
//! keys of any name read the way other frameworks spell them, sizes and
//! digits cut somewhere in their range, and state carried from one call or
//! one run to the next. Each is a mistake a runtime makes without meaning
//! to; the generators reach each by drawing the space, not the fault.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::outcome::entry;
use super::Fault;
use crate::model;
use crate::wire::Case;

/// Other frameworks' keys for the text a tool returns beside its data.
pub const TEXT_KEYS: &[&str] = &[
    "text",
    "output",
    "summary",
    "observation",
    "llm_output",
    "result_text",
    "display",
];

/// Other frameworks' keys for a result's metadata (MCP's `_meta`).
pub const META_KEYS: &[&str] = &["_meta", "meta", "metadata"];

/// Other frameworks' keys for a result's files and attachments.
pub const ATTACHMENT_KEYS: &[&str] = &["attachments", "files", "toolArtifacts"];

/// Keys a result might carry that read as an exposure.
pub const EXPOSURE_KEYS: &[&str] = &["exposed", "visible", "show_artifacts"];

/// Keys that say a result is an error in other protocols (MCP's `isError`).
pub const ERROR_FLAG_KEYS: &[&str] = &["isError", "is_error"];

/// The longest payload a fault that caps payloads lets through: a 64 KiB
/// column, frame or message, in compact JSON bytes.
const CAP: usize = 65_535;

/// The most characters a fault that caps strings keeps: Excel's cell,
/// a `VARCHAR(32767)`.
const STRING_CAP: usize = 32_767;

/// What a fault that keeps state remembers from one run to the next.
#[derive(Default)]
pub(super) struct Memory {
    /// Each call id's first prose.
    prose: HashMap<String, Value>,
    /// Every artifact delivered, as compact JSON of its type and payload.
    delivered: HashSet<String>,
}

/// Whether `fault` is one of this file's.
pub(super) fn covers(fault: Fault) -> bool {
    use Fault::*;
    matches!(
        fault,
        MetaProse
            | FrameworkTextProse
            | CapPayload64k
            | SixDecimals
            | CapStrings
            | AttachmentsKey
            | ResultExposure
            | ErrorFlagDrops
            | ProseCacheById
            | DedupeAcrossRuns
            | MemoByResult
    )
}

/// Whether `fault` keeps state between runs, so a server must hold its
/// [`Memory`] across requests.
pub(super) fn stateful(fault: Fault) -> bool {
    matches!(fault, Fault::ProseCacheById | Fault::DedupeAcrossRuns)
}

/// Breaks `value`, the reference outcome of `case` as JSON, by `fault`.
pub(super) fn broken(case: &Case, fault: Fault, value: &mut Value, memory: &mut Memory) {
    match fault {
        Fault::MetaProse | Fault::FrameworkTextProse => other_text_in_prose(case, fault, value),
        Fault::CapPayload64k => artifacts(value)
            .retain(|a| serde_json::to_string(&a["payload"]).map_or(0, |s| s.len()) <= CAP),
        Fault::SixDecimals => artifacts(value)
            .iter_mut()
            .for_each(|a| each_leaf(&mut a["payload"], &mut six_decimals)),
        Fault::CapStrings => artifacts(value)
            .iter_mut()
            .for_each(|a| each_leaf(&mut a["payload"], &mut cap_string)),
        Fault::AttachmentsKey => attachments_delivered(case, value),
        Fault::ResultExposure if case.exposed.is_none() => {
            let said = case.calls.iter().find_map(|call| {
                EXPOSURE_KEYS
                    .iter()
                    .find_map(|k| call.result.get(k).and_then(Value::as_bool))
            });
            if let Some(shown) = said {
                value["exposed"] = shown.into();
            }
        }
        Fault::ErrorFlagDrops => error_flag_drops(case, value),
        Fault::ProseCacheById => {
            for m in messages(value) {
                let id = m["tool_call_id"].as_str().unwrap_or_default().to_owned();
                let first = memory
                    .prose
                    .entry(id)
                    .or_insert_with(|| m["content"].clone());
                m["content"] = first.clone();
            }
        }
        Fault::DedupeAcrossRuns => {
            let key = |a: &Value| {
                model::sorted_compact_json(&serde_json::json!([a["type"], a["payload"]]))
            };
            let seen = &memory.delivered;
            let now: Vec<String> = artifacts(value).iter().map(key).collect();
            let mut keys = now.iter();
            artifacts(value).retain(|_| keys.next().is_some_and(|k| !seen.contains(k)));
            memory.delivered.extend(now);
        }
        Fault::MemoByResult => memo_by_result(case, value),
        _ => {}
    }
}

/// [`Fault::MetaProse`] and [`Fault::FrameworkTextProse`]: after each
/// call's prose, its result's metadata object as JSON, or its text under
/// other frameworks' keys.
fn other_text_in_prose(case: &Case, fault: Fault, value: &mut Value) {
    for (m, call) in messages(value).zip(&case.calls) {
        let more = match fault {
            Fault::MetaProse => META_KEYS
                .iter()
                .find_map(|k| call.result.get(k).filter(|v| v.is_object()))
                .map(model::sorted_compact_json)
                .into_iter()
                .collect::<Vec<_>>(),
            _ => TEXT_KEYS
                .iter()
                .filter_map(|k| call.result.get(k).and_then(Value::as_str))
                .map(str::to_owned)
                .collect(),
        };
        if !more.is_empty() {
            let content = m["content"].as_str().unwrap_or_default();
            m["content"] = format!("{content} {}", more.join(" ")).into();
        }
    }
}

/// [`Fault::AttachmentsKey`]: the well-formed entries of a successful
/// result's lists under other frameworks' keys for attachments, delivered
/// too.
fn attachments_delivered(case: &Case, value: &mut Value) {
    let mut more = Vec::new();
    for call in &case.calls {
        if call.result.get("success") != Some(&Value::Bool(true)) {
            continue;
        }
        for key in ATTACHMENT_KEYS {
            let Some(Value::Array(list)) = call.result.get(key) else {
                continue;
            };
            more.extend(
                list.iter()
                    .filter_map(model::well_formed)
                    .map(|(k, p)| entry(&k.into(), p, &call.tool_call_id)),
            );
        }
    }
    artifacts(value).extend(more);
}

/// [`Fault::ErrorFlagDrops`]: the artifacts of a call whose result says it
/// is an error the way other protocols say it, dropped.
fn error_flag_drops(case: &Case, value: &mut Value) {
    let failed: HashSet<&str> = case
        .calls
        .iter()
        .filter(|c| {
            ERROR_FLAG_KEYS
                .iter()
                .any(|k| c.result.get(k) == Some(&Value::Bool(true)))
        })
        .map(|c| c.tool_call_id.as_str())
        .collect();
    artifacts(value).retain(|a| {
        !a["tool_call_id"]
            .as_str()
            .is_some_and(|id| failed.contains(id))
    });
}

/// [`Fault::MemoByResult`]: a call whose result equals an earlier call's
/// of the run gives its artifacts that call's id.
fn memo_by_result(case: &Case, value: &mut Value) {
    // The first call of the run with each result, by its JSON.
    let mut first: HashMap<String, &str> = HashMap::new();
    let mut same: HashMap<&str, &str> = HashMap::new();
    for call in &case.calls {
        let text = model::sorted_compact_json(&call.result);
        let earlier = *first.entry(text).or_insert(&call.tool_call_id);
        if earlier != call.tool_call_id {
            same.insert(&call.tool_call_id, earlier);
        }
    }
    for a in artifacts(value).iter_mut() {
        let id = a["tool_call_id"].as_str().unwrap_or_default();
        if let Some(earlier) = same.get(id) {
            a["tool_call_id"] = (*earlier).into();
        }
    }
}

/// The outcome's messages, each to change in place.
pub(super) fn messages(value: &mut Value) -> impl Iterator<Item = &mut Value> {
    value["messages"].as_array_mut().into_iter().flatten()
}

fn artifacts(value: &mut Value) -> &mut Vec<Value> {
    if !value["tool_artifacts"].is_array() {
        value["tool_artifacts"] = Value::Array(Vec::new());
    }
    value["tool_artifacts"]
        .as_array_mut()
        .expect("made a list above")
}

/// `f` of every number and string in `v`, at any depth.
fn each_leaf(v: &mut Value, f: &mut impl FnMut(&mut Value)) {
    match v {
        Value::Array(a) => a.iter_mut().for_each(|x| each_leaf(x, f)),
        Value::Object(o) => o.values_mut().for_each(|x| each_leaf(x, f)),
        leaf => f(leaf),
    }
}

/// A number with a fraction or an exponent written with six decimals, as
/// `toFixed(6)`, Go's `%f` or `round(x, 6)` write it.
fn six_decimals(v: &mut Value) {
    let Value::Number(n) = v else { return };
    let text = n.to_string();
    if !text.contains(['.', 'e', 'E']) {
        return;
    }
    match n.as_f64() {
        Some(x) if x.is_finite() && x.abs() < 1e21 => {
            if let Ok(fixed) = serde_json::from_str(&format!("{x:.6}")) {
                *v = fixed;
            }
        }
        _ => {}
    }
}

/// A string cut to [`STRING_CAP`] characters.
fn cap_string(v: &mut Value) {
    if let Value::String(s) = v {
        if let Some((cut, _)) = s.char_indices().nth(STRING_CAP) {
            s.truncate(cut);
        }
    }
}
