//! The census: every adversarial feature of a case, named once, as a
//! predicate, with the mistake it exposes.
//!
//! An oracle is only as strong as the mistakes its cases can expose, and a
//! shape the generators never produce is a blind spot nobody sees. So each
//! adversary the generators aim at is a [`Feature`] here: a name, a
//! predicate over a case, the paragraph a runtime breaks when it falls for
//! it, the mistake in a line, and a floor, the share of generated cases that
//! must show it. `rt-tool-3 cases --census N` prints each feature's share of
//! N seeded cases, and a test holds every feature to its floor on 10,000.
//!
//! A census is a sample, so a share a little under its floor may be chance.
//! A feature is [`Share::under`] its floor only when a count that low would
//! be rarer than [`CHANCE`] (spread over all the features) were its share
//! exactly the floor. Worked example: `bounds.oversize_first`, floor 1 %,
//! is in about 1.3 % of cases; on 1,000 cases of 0.4.0's seed 3 it came
//! out 9, 0.9 %. At a share of 1 %, 9 or fewer of 1,000 happens 46 % of
//! the time, so it is below its floor by chance, not under it. 0 of 1,000
//! at a floor of 2 % happens 2 times in 10⁹: that feature is under its
//! floor.
//!
//! Adding an adversary means adding a row to [`FEATURES`] and a generator
//! that produces it often enough; the census test says when it does not.
//!
//! Worked example: in `{"calls": [{"tool_call_id": "c1", "result":
//! {"success": true, "artifacts": [{"type": "link", "payload": {"url": "u",
//! "tool_call_id": "c2"}}]}}, {"tool_call_id": "c2", …}]}` the payload's
//! top-level `tool_call_id` names the sibling `c2`, so the case shows
//! `spoof.payload.sibling`: a runtime that spreads the payload into the
//! entry, or reads the id from it, attributes `c1`'s artifact to `c2`.

use std::collections::BTreeSet;

use super::*;
use crate::judge::Clause;
use crate::model;
use crate::wire::Outcome;

/// One adversarial feature of a case.
#[derive(Clone, Copy)]
pub struct Feature {
    /// Its name, dotted from the general to the particular:
    /// `spoof.payload.sibling`.
    pub name: &'static str,
    /// The paragraph (or neighbouring rule) a runtime breaks when it falls
    /// for the feature.
    pub exposes: Clause,
    /// The mistake it exposes, in a line.
    pub mistake: &'static str,
    /// The share of generated cases, in percent, that must show it.
    pub floor: f64,
    /// Whether `case` shows it.
    pub shows: fn(&Seen) -> bool,
}

impl std::fmt::Debug for Feature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// A case, with what the predicates ask of it worked out once: the
/// reference outcome and every spoofed id with its place and kind.
pub struct Seen<'c> {
    /// The case.
    pub case: &'c Case,
    /// The reference outcome of the case.
    pub outcome: Outcome,
    spoofs: BTreeSet<(Place, Kind)>,
}

/// Where a spoofed `tool_call_id` sits in a result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Place {
    /// On an artifact entry, beside `type` and `payload`.
    Entry,
    /// At the top level of an entry's `payload`.
    PayloadTop,
    /// Inside an entry's `payload`, one to four objects deep.
    PayloadNested,
    /// Anywhere inside the result's `data`.
    Data,
    /// At the result's top level, beside `success` and `data`.
    Result,
}

/// Whose id a spoofed `tool_call_id` holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// Another call's real id.
    Sibling,
    /// The call's own id.
    Own,
    /// A string that is no call's id.
    Unknown,
}

impl<'c> Seen<'c> {
    /// Works out what the predicates ask of `case`.
    pub fn new(case: &'c Case) -> Seen<'c> {
        let ids: BTreeSet<&str> = case.calls.iter().map(|c| c.tool_call_id.as_str()).collect();
        let mut spoofs = BTreeSet::new();
        for call in &case.calls {
            let own = call.tool_call_id.as_str();
            let mut note = |place, v: &Value| {
                if let Some(s) = v.as_str() {
                    let kind = if s == own {
                        Kind::Own
                    } else if ids.contains(s) {
                        Kind::Sibling
                    } else {
                        Kind::Unknown
                    };
                    spoofs.insert((place, kind));
                }
            };
            let Some(result) = call.result.as_object() else {
                continue;
            };
            if let Some(v) = result.get("tool_call_id") {
                note(Place::Result, v);
            }
            if let Some(data) = result.get("data") {
                ids_below(data, 0, &mut |_, v| note(Place::Data, v));
            }
            for entry in entries(&call.result).filter_map(Value::as_object) {
                if let Some(v) = entry.get("tool_call_id") {
                    note(Place::Entry, v);
                }
                if let Some(payload) = entry.get("payload") {
                    ids_below(payload, 0, &mut |depth, v| match depth {
                        0 => note(Place::PayloadTop, v),
                        1..=4 => note(Place::PayloadNested, v),
                        _ => {}
                    });
                }
            }
        }
        Seen {
            case,
            outcome: model::outcome(case),
            spoofs,
        }
    }

    /// Whether a `tool_call_id` of `kind` sits at `place`.
    pub fn spoofs(&self, place: Place, kind: Kind) -> bool {
        self.spoofs.contains(&(place, kind))
    }

    fn results(&self) -> impl Iterator<Item = &Map<String, Value>> {
        self.case.calls.iter().filter_map(|c| c.result.as_object())
    }

    fn entries(&self) -> impl Iterator<Item = &Value> {
        self.case.calls.iter().flat_map(|c| entries(&c.result))
    }

    /// The entries RT-TOOL-2 keeps, kept or not by RT-TOOL-6 or a failure.
    fn well_formed(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.entries().filter_map(well_formed)
    }

    fn any_key(&self, f: impl Fn(&str) -> bool) -> bool {
        self.entries()
            .filter_map(Value::as_object)
            .any(|e| e.keys().any(|k| f(k)))
    }

    fn any_type(&self, f: impl Fn(&str) -> bool) -> bool {
        self.well_formed().any(|(t, _)| f(t))
    }

    /// Whether some call with a non-empty `artifacts` array has a result
    /// that `f` holds of.
    fn with_artifacts(&self, f: impl Fn(&Map<String, Value>) -> bool) -> bool {
        self.results().any(|r| {
            r.get("artifacts")
                .and_then(Value::as_array)
                .is_some_and(|a| !a.is_empty())
                && f(r)
        })
    }

    fn exposure(&self, exposed: Option<bool>, delivered: bool) -> bool {
        self.case.exposed == exposed && self.outcome.tool_artifacts.is_empty() != delivered
    }
}

/// A result's `artifacts` entries, if it has an array of them.
fn entries(result: &Value) -> impl Iterator<Item = &Value> {
    result
        .get("artifacts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

/// An entry's `type` and `payload`, if RT-TOOL-2 keeps it.
fn well_formed(entry: &Value) -> Option<(&str, &Value)> {
    let t = entry.get("type")?.as_str().filter(|t| !t.is_empty())?;
    let p = entry.get("payload").filter(|p| p.is_object())?;
    Some((t, p))
}

/// Calls `f(depth, value)` for every `tool_call_id` key in `v`, `depth`
/// objects below `v`'s top level.
fn ids_below(v: &Value, depth: usize, f: &mut dyn FnMut(usize, &Value)) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                if k == "tool_call_id" {
                    f(depth, x);
                }
                ids_below(x, depth + 1, f);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| ids_below(x, depth, f)),
        _ => {}
    }
}

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
const SPOOFS: [Feature; 15] = spoofs![
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
const OTHERS: &[Feature] = &[
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
                    .position(|p| model::encoded_len(p) > model::floors::PAYLOAD_BYTES)
                    .is_some_and(|i| i + 1 < kept.len())
            })
        },
    },
    Feature {
        name: "bounds.over_floors",
        exposes: Clause::Bounds,
        mistake: "delivers nothing, or errors, once a run is over RT-TOOL-6's floors (50 artifacts, 512,000 bytes)",
        floor: 2.0,
        shows: |s| !model::floor_reasons(s.case, &model::encoded_len).is_empty(),
    },
];

fn depth(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
        Value::Object(m) => 1 + m.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// Why a feature's floor is under 2 %, feature by feature. Every floor
/// under 2 % has its reason here (a test says so).
pub const LOWER_FLOORS: &[(&str, &str)] = &[(
    "bounds.oversize_first",
    "a case over RT-TOOL-6's per-artifact floor carries half a megabyte, so more of them would slow every run and every shrink; at about 1 % the fault this shape exposes (stop-at-oversize) is still caught on 10 seeds of 10 of 1,000 cases (0.4.0)",
)];

/// Every feature, in the census's order.
pub fn features() -> impl Iterator<Item = &'static Feature> {
    SPOOFS.iter().chain(OTHERS)
}

/// One feature's count in a census.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Share {
    /// The feature's name.
    pub feature: &'static str,
    /// The paragraph it exposes, cited.
    pub exposes: &'static str,
    /// The mistake it exposes.
    pub mistake: &'static str,
    /// Cases that show it.
    pub cases: u64,
    /// Its share of the census, in percent.
    pub percent: f64,
    /// Its floor, in percent.
    pub floor: f64,
    /// The chance of a count this low or lower in a census of this size,
    /// were the feature's share exactly its floor.
    pub chance: f64,
    /// Whether the feature is under its floor beyond chance: its
    /// [`Share::chance`] is under [`CHANCE`] shared among the features.
    pub under: bool,
}

/// How rare a census's count must be, at the floors, for the census to
/// find a feature under its floor: of generators whose every share is at
/// least its floor, fewer than one census in a thousand finds any feature
/// under, whatever its size and seed. Each feature is allowed its part of
/// it ([`chance_each`]).
pub const CHANCE: f64 = 0.001;

/// [`CHANCE`] shared equally among the features (Bonferroni), so that the
/// chance of finding any of them under is at most [`CHANCE`].
pub fn chance_each() -> f64 {
    CHANCE / features().count() as f64
}

/// The chance of `cases` or fewer of `n` cases showing a feature whose
/// share is `floor` percent: the binomial distribution's lower tail.
pub fn chance_of_at_most(cases: u64, n: u64, floor: f64) -> f64 {
    use statrs::distribution::{Binomial, DiscreteCDF};
    match Binomial::new(floor / 100.0, n) {
        Ok(shares) if cases < n => shares.cdf(cases),
        _ => 1.0,
    }
}

/// The fewest cases in which a feature of floor `floor` percent, shown by
/// none of them, is found under its floor: fewer cases cannot tell any
/// share from the floor.
pub fn fewest_cases(floor: f64) -> u64 {
    // 0 of n has chance (1 - floor)^n, under `chance_each` from this n on.
    let n = chance_each().ln() / (1.0 - floor / 100.0).ln();
    n.floor() as u64 + 1
}

/// A census of `n` cases of the seeded stream: each feature's share.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Census {
    /// The oracle whose generators were counted (the streams change with
    /// its version).
    #[serde(flatten)]
    pub provenance: crate::Provenance,
    /// The seed of the stream.
    pub seed: u64,
    /// How many cases were counted.
    pub cases: u64,
    /// Each feature's share, in [`features`]' order.
    pub features: Vec<Share>,
    /// How the cases spread over each dimension ([`Ranges`]).
    pub ranges: Ranges,
}

impl Census {
    /// Counts `n` cases of [`cases`]`(seed)`.
    pub fn of(n: u64, seed: u64) -> Census {
        let all: Vec<&Feature> = features().collect();
        let mut counts = vec![0u64; all.len()];
        let mut ranges = Ranges::default();
        for case in cases(seed).take(usize::try_from(n).unwrap_or(usize::MAX)) {
            ranges.count(&case);
            let seen = Seen::new(&case);
            for (count, feature) in counts.iter_mut().zip(&all) {
                *count += u64::from((feature.shows)(&seen));
            }
        }
        let percent = |c: u64| {
            if n == 0 {
                0.0
            } else {
                100.0 * c as f64 / n as f64
            }
        };
        let each = chance_each();
        Census {
            provenance: crate::provenance(),
            seed,
            cases: n,
            features: all
                .iter()
                .zip(counts)
                .map(|(f, c)| {
                    let chance = chance_of_at_most(c, n, f.floor);
                    Share {
                        feature: f.name,
                        exposes: f.exposes.id(),
                        mistake: f.mistake,
                        cases: c,
                        percent: percent(c),
                        floor: f.floor,
                        chance,
                        under: chance < each,
                    }
                })
                .collect(),
            ranges,
        }
    }

    /// The features under their floor beyond chance ([`Share::under`]).
    pub fn under_floor(&self) -> Vec<&Share> {
        self.features.iter().filter(|s| s.under).collect()
    }

    /// The features whose share in this census is below their floor, by
    /// chance or not.
    pub fn below_floor(&self) -> Vec<&Share> {
        self.features
            .iter()
            .filter(|s| s.percent < s.floor)
            .collect()
    }

    /// The census as a Markdown table.
    pub fn markdown(&self) -> String {
        let mut out = format!(
            "{}: {} cases, seed {}\n\n| feature | exposes | share | floor | the mistake it exposes |\n|---|---|---:|---:|---|\n",
            self.provenance.oracle, self.cases, self.seed
        );
        for s in &self.features {
            let flag = if s.under {
                " **under**".to_owned()
            } else if s.percent < s.floor {
                format!(" (below by chance: {:.2})", s.chance)
            } else {
                String::new()
            };
            out.push_str(&format!(
                "| `{}` | {} | {:.1} %{flag} | {:.0} % | {} |\n",
                s.feature, s.exposes, s.percent, s.floor, s.mistake
            ));
        }
        let lowest = self
            .features
            .iter()
            .map(|s| s.floor)
            .fold(f64::INFINITY, f64::min);
        let fewest = fewest_cases(lowest);
        if lowest.is_finite() && self.cases < fewest {
            out.push_str(&format!(
                "\n{} cases are too few to find a feature under a floor of {lowest} % beyond chance: that takes {fewest} or more.\n",
                self.cases
            ));
        }
        out.push_str(&self.ranges.markdown());
        out
    }
}
