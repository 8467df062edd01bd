//! The conforming variants: each another way to meet the rule than the
//! reference's, and how it is applied to an outcome (or, for the escaping
//! variants, to the text of a reply).

use serde_json::{json, Value};

use crate::model;
use crate::wire::Case;

/// A conforming variant: another way to meet the rule than the reference's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Variant {
    /// Lifts the well-formed entries under RT-TOOL-2's reserved `artifacts`
    /// key of a successful call's `data` onto the port, key by key, with the
    /// call's id (the reference drops them; both are accepted).
    Lift,
    /// Delivers the artifacts in the reverse order: across calls the order
    /// is free, and within a call another order is only a warning.
    Reversed,
    /// Writes the keys of every object of the outcome in another order
    /// (`exposed` first, `tool_call_id` before `type`).
    KeyOrder,
    /// Sorts the keys of every payload object, at every depth.
    SortedPayloadKeys,
    /// Writes every non-ASCII character as a `\uXXXX` escape, as Python's
    /// `ensure_ascii` and PHP's `json_encode` do.
    EscapeNonAscii,
    /// Writes every character of every string as a `\uXXXX` escape.
    EscapeAll,
    /// Writes every integer with a fraction, `1` as `1.0`, as a language
    /// that holds every number as a double may.
    IntegersAsFloats,
    /// Logs a line on stderr for every request, and answers correctly.
    ChattyStderr,
    /// Drops, with a warning on stderr, each artifact over a bound set
    /// exactly at RT-TOOL-6's floors, measured in its own compact JSON: a
    /// payload over 512,000 bytes, any kept after the 50th, any that no
    /// longer fits 2,000,000 bytes beside those delivered (a later, smaller
    /// one still kept).
    DropAtFloors,
    /// Writes every payload number in another spelling of the same value,
    /// `125` as `0.125E3`, `-0.5` as `-0.5E0`, as a serialiser that
    /// normalises numbers to scientific notation may.
    RespellNumbers,
}

/// An outcome met another conforming way: `variant` applied to it (the
/// escaping variants apply to the text of the reply instead).
pub(super) fn vary(case: &Case, variant: Variant, outcome: &mut Value) {
    let artifacts = |o: &mut Value| -> Vec<Value> {
        o["tool_artifacts"].as_array().cloned().unwrap_or_default()
    };
    match variant {
        Variant::Lift => lift(case, outcome),
        Variant::Reversed => {
            let mut list = artifacts(outcome);
            list.reverse();
            outcome["tool_artifacts"] = Value::Array(list);
        }
        Variant::KeyOrder => {
            let reorder = |v: &Value, keys: &[&str]| -> Value {
                Value::Object(
                    keys.iter()
                        .map(|k| ((*k).to_owned(), v[*k].clone()))
                        .collect(),
                )
            };
            let list = artifacts(outcome)
                .iter()
                .map(|a| reorder(a, &["tool_call_id", "payload", "type"]))
                .collect();
            let messages = outcome["messages"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|m| reorder(m, &["content", "tool_call_id"]))
                .collect();
            *outcome = json!({"exposed": outcome["exposed"].clone()});
            outcome["tool_artifacts"] = Value::Array(list);
            outcome["messages"] = Value::Array(messages);
        }
        Variant::SortedPayloadKeys | Variant::IntegersAsFloats => {
            for a in outcome["tool_artifacts"]
                .as_array_mut()
                .into_iter()
                .flatten()
            {
                restyle(&mut a["payload"], variant);
            }
        }
        Variant::DropAtFloors => {
            let (mut count, mut bytes) = (0, 0);
            let mut list = artifacts(outcome);
            list.retain(|a| {
                let size = serde_json::to_string(&a["payload"]).map_or(0, |s| s.len());
                let keep = size <= model::floors::PAYLOAD_BYTES
                    && count < model::floors::ARTIFACTS
                    && bytes + size <= model::floors::RUN_BYTES;
                if keep {
                    count += 1;
                    bytes += size;
                } else {
                    eprintln!("rt-tool-3 serve: dropped an artifact of {size} bytes over a bound");
                }
                keep
            });
            outcome["tool_artifacts"] = Value::Array(list);
        }
        Variant::RespellNumbers => {
            for a in outcome["tool_artifacts"]
                .as_array_mut()
                .into_iter()
                .flatten()
            {
                respell(&mut a["payload"]);
            }
        }
        Variant::EscapeNonAscii | Variant::EscapeAll | Variant::ChattyStderr => {}
    }
}

/// Every number in `v` spelled `0.DIGITS` and an exponent, the same value:
/// `-12.5e3` as `-0.125E5`.
fn respell(v: &mut Value) {
    match v {
        Value::Object(m) => m.values_mut().for_each(respell),
        Value::Array(a) => a.iter_mut().for_each(respell),
        Value::Number(n) => {
            let text = n.to_string();
            let (sign, unsigned) = match text.strip_prefix('-') {
                Some(rest) => ("-", rest),
                None => ("", text.as_str()),
            };
            let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
                Some((m, e)) => (m, e.trim_start_matches('+').parse::<i64>().unwrap_or(0)),
                None => (unsigned, 0),
            };
            let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
            let digits = format!("{int}{frac}");
            let digits = digits.trim_start_matches('0');
            let spelled = match digits.is_empty() {
                true => format!("{sign}0.0E0"),
                false => {
                    let e = exponent - frac.len() as i64 + digits.len() as i64;
                    format!("{sign}0.{digits}E{e}")
                }
            };
            if let Ok(Value::Number(m)) = serde_json::from_str(&spelled) {
                *n = m;
            }
        }
        _ => {}
    }
}

/// A payload restyled by `variant`, at every depth: its object keys sorted,
/// or its integers written with a fraction.
fn restyle(v: &mut Value, variant: Variant) {
    match v {
        Value::Object(m) => {
            if variant == Variant::SortedPayloadKeys {
                m.sort_keys();
            }
            m.values_mut().for_each(|x| restyle(x, variant));
        }
        Value::Array(a) => a.iter_mut().for_each(|x| restyle(x, variant)),
        Value::Number(n) if variant == Variant::IntegersAsFloats => {
            let text = n.to_string();
            if text.bytes().all(|b| b.is_ascii_digit() || b == b'-') {
                if let Ok(Value::Number(float)) = serde_json::from_str(&format!("{text}.0")) {
                    *n = float;
                }
            }
        }
        _ => {}
    }
}

/// JSON text with every character inside a string for which `escape`
/// holds written as `\uXXXX` (two escapes outside the Basic Multilingual
/// Plane); escapes already there are kept.
pub(super) fn escaped(json: &str, escape: impl Fn(char) -> bool) -> String {
    let mut out = String::with_capacity(json.len());
    // `raw`: characters still to copy as they are, those of an escape.
    let (mut in_string, mut raw) = (false, 0);
    for c in json.chars() {
        if raw > 0 {
            raw -= 1;
            // `\uXXXX`: four hex digits follow the `u`.
            if c == 'u' && raw == 0 {
                raw = 4;
            }
            out.push(c);
        } else if in_string && c == '\\' {
            raw = 1;
            out.push(c);
        } else if c == '"' {
            in_string = !in_string;
            out.push(c);
        } else if in_string && escape(c) {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The [`Variant::Lift`] of an outcome: each successful call's well-formed
/// entries under the reserved key of its `data`, lifted onto the port.
fn lift(case: &Case, outcome: &mut Value) {
    let mut lifted = Vec::new();
    for call in &case.calls {
        if call.result.get("success") != Some(&Value::Bool(true)) {
            continue;
        }
        let reserved = call
            .result
            .get("data")
            .filter(|d| d.is_object())
            .and_then(|d| d.get(model::RESERVED_KEY));
        if let Some(Value::Array(entries)) = reserved {
            for (k, p) in entries.iter().filter_map(model::well_formed) {
                lifted.push(json!({"type": k, "payload": p, "tool_call_id": call.tool_call_id}));
            }
        }
    }
    if let Some(list) = outcome["tool_artifacts"].as_array_mut() {
        list.extend(lifted);
    }
}
