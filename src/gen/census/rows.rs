//! The census's rows: each adversarial feature as a predicate over a case
//! seen once ([`super::Seen`]), the spoofed ids place by place, then the
//! others by the part of a case they sit in.

use super::*;

/// Whether `v` holds, anywhere, a value that `f` holds of.
fn anywhere(v: &Value, f: &dyn Fn(&Value) -> bool) -> bool {
    f(v) || match v {
        Value::Array(a) => a.iter().any(|x| anywhere(x, f)),
        Value::Object(m) => m.values().any(|x| anywhere(x, f)),
        _ => false,
    }
}

/// Whether `v` holds, anywhere, a string (value or key) that `f` holds of.
fn any_string(v: &Value, f: &dyn Fn(&str) -> bool) -> bool {
    match v {
        Value::String(s) => f(s),
        Value::Array(a) => a.iter().any(|x| any_string(x, f)),
        Value::Object(m) => m.iter().any(|(k, x)| f(k) || any_string(x, f)),
        _ => false,
    }
}

/// The real keys of an entry.
const REAL_KEYS: [&str; 3] = ["type", "payload", "tool_call_id"];

/// `key` with its case folded.
fn folded(key: &str) -> String {
    key.to_lowercase()
}

/// `key` with Cyrillic look-alikes read as Latin letters and invisible
/// characters removed.
fn deconfused(key: &str) -> String {
    key.chars()
        .filter(|c| !matches!(c, '\u{200b}'..='\u{200d}' | '\u{feff}'))
        .map(|c| match c {
            'а' => 'a',
            'е' => 'e',
            'о' => 'o',
            'р' => 'p',
            'с' => 'c',
            'у' => 'y',
            'х' => 'x',
            'і' => 'i',
            'ԁ' => 'd',
            other => other,
        })
        .collect()
}

fn is_real(key: &str) -> bool {
    REAL_KEYS.contains(&key)
}

/// A key that only differs from a real one by `f`.
fn near(key: &str, f: fn(&str) -> String) -> bool {
    !is_real(key) && is_real(&f(key))
}

fn is_empty_data(v: &Value) -> bool {
    match v {
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(m) => m.is_empty(),
        _ => false,
    }
}

/// The strings of a value long enough to be recognised elsewhere.
fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) if s.chars().count() >= 8 => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(m) => m.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

/// The same well-formed entry (equal `type` and `payload`) twice in one
/// call (`across` false) or in two calls (`across` true).
fn repeated(seen: &Seen, across: bool) -> bool {
    let per_call: Vec<Vec<(&str, &Value)>> = seen
        .case
        .calls
        .iter()
        .map(|c| entries(&c.result).filter_map(well_formed).collect())
        .collect();
    if across {
        per_call.iter().enumerate().any(|(i, a)| {
            per_call[i + 1..]
                .iter()
                .any(|b| a.iter().any(|x| b.contains(x)))
        })
    } else {
        per_call
            .iter()
            .any(|a| a.iter().enumerate().any(|(i, x)| a[i + 1..].contains(x)))
    }
}

fn not_object_payload(seen: &Seen, f: fn(&Value) -> bool) -> bool {
    seen.entries()
        .filter(|e| {
            e.get("type")
                .and_then(Value::as_str)
                .is_some_and(|t| !t.is_empty())
        })
        .filter_map(|e| e.get("payload"))
        .any(f)
}

macro_rules! spoofs {
    ($($name:literal, $place:ident, $kind:ident, $mistake:literal;)*) => {
        [$(Feature {
            name: $name,
            exposes: Clause::KeyByKey,
            mistake: $mistake,
            floor: 2.0,
            shows: |s| s.spoofs(Place::$place, Kind::$kind),
        }),*]
    };
}

/// The spoofed ids, each place by each kind.
pub(super) const SPOOFS: [Feature; 15] = spoofs![
    "spoof.entry.sibling", Entry, Sibling, "copies the entry's own tool_call_id: the artifact goes to a sibling";
    "spoof.entry.own", Entry, Own, "trusts the entry's tool_call_id (right here by chance: it must not matter)";
    "spoof.entry.unknown", Entry, Unknown, "copies the entry's tool_call_id: the artifact goes to no call";
    "spoof.payload.sibling", PayloadTop, Sibling, "spreads the payload into the entry, or reads the id from it";
    "spoof.payload.own", PayloadTop, Own, "strips the payload's own tool_call_id as if it were the entry's";
    "spoof.payload.unknown", PayloadTop, Unknown, "lets the payload's tool_call_id override the call's";
    "spoof.nested.sibling", PayloadNested, Sibling, "deep-merges the payload, or finds the first tool_call_id anywhere";
    "spoof.nested.own", PayloadNested, Own, "cleans ids out of the payload (it must come out unchanged)";
    "spoof.nested.unknown", PayloadNested, Unknown, "searches the payload for an id";
    "spoof.data.sibling", Data, Sibling, "takes the artifacts' call id from data";
    "spoof.data.own", Data, Own, "strips tool_call_id out of data before the prose";
    "spoof.data.unknown", Data, Unknown, "takes the call id from data";
    "spoof.result.sibling", Result, Sibling, "takes the call id from the tool's result, not the call";
    "spoof.result.own", Result, Own, "takes the call id from the tool's result (right here by chance)";
    "spoof.result.unknown", Result, Unknown, "takes the call id from the tool's result: the artifacts go to no call";
];

/// The other features, grouped by the part of a case they sit in.
pub(super) const OTHERS: &[Feature] = &[
    // Entry keys.
    Feature {
        name: "entry.extra_key",
        exposes: Clause::KeyByKey,
        mistake: "copies the entry whole: keys other than type and payload leave the node",
        floor: 2.0,
        shows: |s| s.any_key(|k| !is_real(k)),
    },
    Feature {
        name: "entry.near_miss.case",
        exposes: Clause::KeyByKey,
        mistake: "reads keys case-insensitively: `Type` or `PAYLOAD` stands in for the real key",
        floor: 2.0,
        shows: |s| s.any_key(|k| near(k, folded)),
    },
    Feature {
        name: "entry.near_miss.space",
        exposes: Clause::KeyByKey,
        mistake: "trims keys: `type ` stands in for `type`",
        floor: 2.0,
        shows: |s| s.any_key(|k| near(k, |k| k.trim().to_owned())),
    },
    Feature {
        name: "entry.near_miss.confusable",
        exposes: Clause::KeyByKey,
        mistake: "normalises keys: a Cyrillic look-alike or a zero-width space stands in for the real key",
        floor: 2.0,
        shows: |s| s.any_key(|k| near(k, deconfused)),
    },
    Feature {
        name: "entry.near_miss.spelling",
        exposes: Clause::KeyByKey,
        mistake: "accepts `toolCallId` or `tool-call-id` for the call id",
        floor: 2.0,
        shows: |s| s.any_key(|k| k == "toolCallId" || k == "tool-call-id"),
    },
    Feature {
        name: "entry.prototype_key",
        exposes: Clause::KeyByKey,
        mistake: "copies `__proto__` or `constructor` with Object.assign or a spread",
        floor: 2.0,
        shows: |s| s.any_key(|k| k == "__proto__" || k == "constructor"),
    },
    // Types.
    Feature {
        name: "type.padded",
        exposes: Clause::KeyByKey,
        mistake: "trims the type (it must come out unchanged)",
        floor: 2.0,
        shows: |s| s.any_type(|t| !t.trim().is_empty() && t.trim() != t),
    },
    Feature {
        name: "type.blank",
        exposes: Clause::Filter,
        mistake: "trims the type, then drops it as empty (only an empty type is dropped)",
        floor: 2.0,
        shows: |s| s.any_type(|t| t.trim().is_empty()),
    },
    Feature {
        name: "type.cased",
        exposes: Clause::KeyByKey,
        mistake: "lower-cases the type",
        floor: 2.0,
        shows: |s| s.any_type(|t| t.to_lowercase() != t),
    },
    Feature {
        name: "type.confusable",
        exposes: Clause::KeyByKey,
        mistake: "normalises the type's characters (NFKC, look-alikes, invisible ones)",
        floor: 2.0,
        shows: |s| s.any_type(|t| deconfused(t) != t),
    },
    Feature {
        name: "type.long",
        exposes: Clause::KeyByKey,
        mistake: "truncates a long type",
        floor: 2.0,
        shows: |s| s.any_type(|t| t.len() > 256),
    },
    Feature {
        name: "type.empty",
        exposes: Clause::Filter,
        mistake: "keeps an entry whose type is the empty string",
        floor: 2.0,
        shows: |s| s.entries().any(|e| e.get("type") == Some(&json!(""))),
    },
    // Payloads.
    Feature {
        name: "payload.empty",
        exposes: Clause::KeyByKey,
        mistake: "drops an artifact whose payload is `{}`",
        floor: 2.0,
        shows: |s| s.well_formed().any(|(_, p)| p.as_object().is_some_and(Map::is_empty)),
    },
    Feature {
        name: "payload.nested_empty",
        exposes: Clause::KeyByKey,
        mistake: "prunes empty objects inside the payload",
        floor: 2.0,
        shows: |s| {
            s.well_formed().any(|(_, p)| {
                p.as_object().is_some_and(|m| {
                    m.values().any(|v| anywhere(v, &|x| x.as_object().is_some_and(Map::is_empty)))
                })
            })
        },
    },
    Feature {
        name: "payload.null_value",
        exposes: Clause::KeyByKey,
        mistake: "drops null-valued keys from the payload (serialising with skip-null)",
        floor: 2.0,
        shows: |s| {
            s.well_formed()
                .any(|(_, p)| anywhere(p, &|x| x.as_object().is_some_and(|m| m.values().any(Value::is_null))))
        },
    },
    Feature {
        name: "payload.string",
        exposes: Clause::Filter,
        mistake: "keeps an entry whose payload is a string (or parses it as JSON)",
        floor: 2.0,
        shows: |s| not_object_payload(s, Value::is_string),
    },
    Feature {
        name: "payload.number",
        exposes: Clause::Filter,
        mistake: "keeps an entry whose payload is a number",
        floor: 2.0,
        shows: |s| not_object_payload(s, Value::is_number),
    },
    Feature {
        name: "payload.boolean",
        exposes: Clause::Filter,
        mistake: "keeps an entry whose payload is a boolean",
        floor: 2.0,
        shows: |s| not_object_payload(s, Value::is_boolean),
    },
    Feature {
        name: "payload.null",
        exposes: Clause::Filter,
        mistake: "keeps an entry whose payload is null",
        floor: 2.0,
        shows: |s| not_object_payload(s, Value::is_null),
    },
    Feature {
        name: "payload.array",
        exposes: Clause::Filter,
        mistake: "keeps an entry whose payload is an array (`typeof [] === \"object\"`)",
        floor: 2.0,
        shows: |s| not_object_payload(s, Value::is_array),
    },
    Feature {
        name: "payload.escapes",
        exposes: Clause::KeyByKey,
        mistake: "re-encodes strings that need escapes (quotes, backslashes, control characters) and changes them",
        floor: 2.0,
        shows: |s| {
            s.well_formed().any(|(_, p)| {
                any_string(p, &|x| x.chars().any(|c| c == '"' || c == '\\' || c < ' '))
            })
        },
    },
    Feature {
        name: "payload.exact_edge",
        exposes: Clause::KeyByKey,
        mistake: "reads numbers as doubles and back, losing the edge of exactness (2^53 − 1)",
        floor: 2.0,
        shows: |s| {
            s.well_formed().any(|(_, p)| {
                anywhere(p, &|x| x.as_f64().is_some_and(|f| f.abs() >= 9_007_199_254_740_991.0))
            })
        },
    },
    Feature {
        name: "payload.own_type",
        exposes: Clause::KeyByKey,
        mistake: "spreads the payload over the entry: the payload's own `type` replaces the entry's",
        floor: 2.0,
        shows: |s| s.well_formed().any(|(_, p)| p.get("type").is_some()),
    },
    Feature {
        name: "payload.own_payload",
        exposes: Clause::KeyByKey,
        mistake: "unwraps a payload that holds a `payload` key of its own",
        floor: 2.0,
        shows: |s| s.well_formed().any(|(_, p)| p.get("payload").is_some()),
    },
    Feature {
        name: "payload.deep",
        exposes: Clause::KeyByKey,
        mistake: "copies the payload to a depth limit, or flattens it",
        floor: 2.0,
        shows: |s| s.well_formed().any(|(_, p)| depth(p) > 10),
    },
    // Failed calls.
    Feature {
        name: "failed.error_null",
        exposes: Clause::Filter,
        mistake: "keeps a failed call's artifacts when its error is null (reading failure from error)",
        floor: 2.0,
        shows: |s| {
            s.with_artifacts(|r| r.get("success") == Some(&json!(false)) && r.get("error") == Some(&Value::Null))
        },
    },
    Feature {
        name: "failed.error_text",
        exposes: Clause::Filter,
        mistake: "keeps a failed call's artifacts",
        floor: 2.0,
        shows: |s| {
            s.with_artifacts(|r| r.get("success") == Some(&json!(false)) && r.get("error").is_some_and(Value::is_string))
        },
    },
    Feature {
        name: "success.with_error",
        exposes: Clause::ProseFromData,
        mistake: "feeds the model a successful call's error text",
        floor: 2.0,
        shows: |s| {
            s.results()
                .any(|r| r.get("success") == Some(&json!(true)) && r.get("error").is_some_and(Value::is_string))
        },
    },
    Feature {
        name: "success.not_boolean",
        exposes: Clause::Filter,
        mistake: "reads success by truthiness (`\"false\"`, `1`, `\"yes\"`), or requires it",
        floor: 2.0,
        shows: |s| {
            s.case.calls.iter().any(|c| {
                c.result.is_object() && !c.result.get("success").is_some_and(Value::is_boolean)
            })
        },
    },
    // Exposure.
    Feature {
        name: "exposure.absent.delivered",
        exposes: Clause::NotExposedByDefault,
        mistake: "exposes the port because there are artifacts to show",
        floor: 2.0,
        shows: |s| s.exposure(None, true),
    },
    Feature {
        name: "exposure.absent.none",
        exposes: Clause::NotExposedByDefault,
        mistake: "exposes the port by default",
        floor: 2.0,
        shows: |s| s.exposure(None, false),
    },
    Feature {
        name: "exposure.false.delivered",
        exposes: Clause::DeliveryRegardless,
        mistake: "stops delivering artifacts when the author hides the port",
        floor: 2.0,
        shows: |s| s.exposure(Some(false), true),
    },
    Feature {
        name: "exposure.false.none",
        exposes: Clause::NotExposedByDefault,
        mistake: "exposes the port though the author hid it",
        floor: 2.0,
        shows: |s| s.exposure(Some(false), false),
    },
    Feature {
        name: "exposure.true.delivered",
        exposes: Clause::DeliveryRegardless,
        mistake: "delivers only through an exposed port, or twice",
        floor: 2.0,
        shows: |s| s.exposure(Some(true), true),
    },
    Feature {
        name: "exposure.true.none",
        exposes: Clause::NotExposedByDefault,
        mistake: "hides a port the author exposed when there is nothing on it",
        floor: 2.0,
        shows: |s| s.exposure(Some(true), false),
    },
    // Volume.
    Feature {
        name: "run.over_10",
        exposes: Clause::DeliveryRegardless,
        mistake: "caps the artifacts of a run below RT-TOOL-6's floor of 50",
        floor: 2.0,
        shows: |s| s.outcome.tool_artifacts.len() > 10,
    },
    Feature {
        name: "run.over_2_calls",
        exposes: Clause::KeyByKey,
        mistake: "pairs artifacts with calls by position, or keeps only the first or last call's",
        floor: 2.0,
        shows: |s| s.case.calls.len() > 2,
    },
    Feature {
        name: "artifact.twice_in_call",
        exposes: Clause::KeyByKey,
        mistake: "deduplicates identical artifacts of one call",
        floor: 2.0,
        shows: |s| repeated(s, false),
    },
    Feature {
        name: "artifact.twice_across_calls",
        exposes: Clause::KeyByKey,
        mistake: "deduplicates identical artifacts across calls, or keys them by content",
        floor: 2.0,
        shows: |s| repeated(s, true),
    },
    // Data and prose.
    Feature {
        name: "data.repeats_artifact",
        exposes: Clause::ProseFromData,
        mistake: "strips from the prose what an artifact also holds, or dedupes the artifact against data",
        floor: 2.0,
        shows: |s| {
            s.case.calls.iter().any(|c| {
                let mut found = Vec::new();
                entries(&c.result)
                    .filter_map(well_formed)
                    .for_each(|(_, p)| strings(p, &mut found));
                c.result
                    .get("data")
                    .is_some_and(|d| any_string(d, &|x| found.iter().any(|f| x.contains(f.as_str()))))
            })
        },
    },
    Feature {
        name: "data.null_with_artifacts",
        exposes: Clause::ProseFromData,
        mistake: "falls back on the artifacts for prose when data is null",
        floor: 2.0,
        shows: |s| s.with_artifacts(|r| r.get("data") == Some(&Value::Null)),
    },
    Feature {
        name: "data.absent_with_artifacts",
        exposes: Clause::ProseFromData,
        mistake: "falls back on the artifacts (or the whole result) for prose when there is no data",
        floor: 2.0,
        shows: |s| s.with_artifacts(|r| !r.contains_key("data")),
    },
    Feature {
        name: "data.empty_with_artifacts",
        exposes: Clause::ProseFromData,
        mistake: "falls back on the artifacts for prose when data is empty",
        floor: 2.0,
        shows: |s| s.with_artifacts(|r| r.get("data").is_some_and(is_empty_data)),
    },
    Feature {
        name: "data.reserved_artifacts",
        exposes: Clause::ProseFromData,
        mistake: "renders RT-TOOL-2's reserved `artifacts` key of data into the prose",
        floor: 2.0,
        shows: |s| s.results().any(|r| r.get("data").is_some_and(|d| d.get("artifacts").is_some())),
    },
    Feature {
        name: "data.delimiter",
        exposes: Clause::ProseFromData,
        mistake: "splits prose from artifacts by text, and is fooled by a delimiter in data",
        floor: 2.0,
        shows: |s| {
            s.results().any(|r| {
                r.get("data")
                    .is_some_and(|d| any_string(d, &|x| DELIMITERS.iter().any(|m| x.contains(m))))
            })
        },
    },
    Feature {
        name: "data.content_blocks",
        exposes: Clause::ProseFromData,
        mistake: "takes typed blocks in data (MCP's `text` and `resource_link`) for artifacts, or drops them from the prose",
        floor: 2.0,
        shows: |s| {
            s.results().any(|r| {
                r.get("data")
                    .and_then(Value::as_array)
                    .is_some_and(|a| a.iter().any(|b| b.get("type").is_some_and(Value::is_string)))
            })
        },
    },
    Feature {
        name: "result.decoy",
        exposes: Clause::ProseFromData,
        mistake: "reads the prose from a result-level `content`, `message` or `prose` key",
        floor: 2.0,
        shows: |s| s.results().any(|r| r.keys().any(|k| DECOY_KEYS.contains(&k.as_str()))),
    },
    Feature {
        name: "artifact.instructions",
        exposes: Clause::ProseFromData,
        mistake: "lets instruction-like text in an artifact reach the model",
        floor: 2.0,
        shows: |s| s.entries().any(|e| any_string(e, &|x| x.contains(INSTRUCTIONS))),
    },
    Feature {
        name: "canary.in_value",
        exposes: Clause::ProseFromData,
        mistake: "folds artifact strings into the prose",
        floor: 2.0,
        shows: |s| s.entries().any(|e| any_string(e, &|x| x.contains(CANARY_PREFIX))),
    },
    Feature {
        name: "canary.in_key",
        exposes: Clause::ProseFromData,
        mistake: "folds artifact keys into the prose (a record rendered as `key: value`)",
        floor: 2.0,
        shows: |s| {
            s.entries()
                .any(|e| anywhere(e, &|x| x.as_object().is_some_and(|m| m.keys().any(|k| k.contains(CANARY_PREFIX)))))
        },
    },
    Feature {
        name: "call.edge_id",
        exposes: Clause::KeyByKey,
        mistake: "trims, normalises or re-encodes call ids (empty, blank, non-ASCII, zero-width)",
        floor: 2.0,
        shows: |s| {
            s.case.calls.iter().any(|c| {
                let id = c.tool_call_id.as_str();
                id.trim() != id || id.is_empty() || !id.is_ascii()
            })
        },
    },
    // Zones.
    Feature {
        name: "zone.lenient_shape",
        exposes: Clause::Filter,
        mistake: "trips on a result that is not an object, or artifacts that are not an array",
        floor: 2.0,
        shows: |s| !model::shape_reasons(s.case).is_empty(),
    },
    Feature {
        name: "artifacts.json_string",
        exposes: Clause::Filter,
        mistake: "parses an `artifacts` string holding a JSON list, and delivers its entries",
        floor: 2.0,
        shows: |s| {
            s.results().any(|r| {
                r.get("artifacts")
                    .and_then(Value::as_str)
                    .is_some_and(|t| serde_json::from_str::<Vec<Value>>(t).is_ok())
            })
        },
    },
    Feature {
        name: "data.reserved_malformed",
        exposes: Clause::Filter,
        mistake: "lifts entries from data's reserved `artifacts` key without RT-TOOL-2's filter",
        floor: 2.0,
        shows: |s| {
            s.results().any(|r| {
                r.get("data")
                    .and_then(|d| d.get("artifacts"))
                    .and_then(Value::as_array)
                    .is_some_and(|a| {
                        a.iter().any(|e| {
                            e.get("type").is_some()
                                && e.get("payload").is_some()
                                && well_formed(e).is_none()
                        })
                    })
            })
        },
    },
    Feature {
        name: "bounds.oversize_first",
        exposes: Clause::Bounds,
        mistake: "stops collecting at an artifact over the floor, where a later, smaller one is still kept",
        floor: 1.0,
        shows: |s| {
            s.case.calls.iter().any(|c| {
                let kept: Vec<&Value> = entries(&c.result).filter_map(well_formed).map(|(_, p)| p).collect();
                kept.iter()
                    .position(|p| model::encoded_len(*p) > model::floors::PAYLOAD_BYTES)
                    .is_some_and(|i| i + 1 < kept.len())
            })
        },
    },
    Feature {
        name: "bounds.over_floors",
        exposes: Clause::Bounds,
        mistake: "delivers nothing, or errors, once a run is over RT-TOOL-6's floors (50 artifacts, 512,000 bytes)",
        floor: 2.0,
        shows: |s| !model::floor_reasons(s.case, &|p| model::encoded_len(p)).is_empty(),
    },
];

pub(super) fn depth(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
        Value::Object(m) => 1 + m.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}
