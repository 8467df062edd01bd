//! The judge: holds one observed outcome to the rule, clause by clause.
//!
//! The judge is sans-IO like the model. It takes a valid [`Case`] and the JSON
//! an implementation produced for it, and returns the [`Violation`]s, each
//! with the clause it breaks and a sentence a person can act on. A strict-zone
//! case is judged in full; a lenient-zone case gets the safety half only:
//! exact keys, real call ids, nothing no call produced, no leak, delivery
//! independent of exposure (see [`crate::model::zone`]).
//!
//! JSON is compared as JSON: object key order does not matter and numbers
//! compare by value (`1.0` equals `1`). Where an implementation's language
//! rounds a number (a 40-digit integer, `1e400` read into an IEEE double), the
//! difference is a [`Judgement::warnings`] entry, not a violation.
//!
//! What one outcome cannot show is left to [`crate::diff`], which runs sibling
//! cases: whether the prose changes with the artifacts alone (clause 3) and
//! whether delivery changes with the exposure alone (clause 4). From one
//! outcome the judge still catches a leak of a long string found only outside
//! `data`, and a port left empty while hidden.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::{self, Zone};
use crate::wire::{kind, Case, Outcome, ToolArtifact};

/// A clause of RT-TOOL-3, or the RT-TOOL-2 filter it relies on.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
pub enum Clause {
    /// Clause 1: key by key, real call ids, every kept artifact once.
    #[serde(rename = "RT-TOOL-3.1")]
    KeyByKey,
    /// Clause 2: not exposed by default.
    #[serde(rename = "RT-TOOL-3.2")]
    NotExposedByDefault,
    /// Clause 3: prose from `data` alone.
    #[serde(rename = "RT-TOOL-3.3")]
    ProseFromData,
    /// Clause 4: delivery regardless of exposure.
    #[serde(rename = "RT-TOOL-3.4")]
    DeliveryRegardless,
    /// RT-TOOL-2: malformed entries and failed calls surface nothing.
    #[serde(rename = "RT-TOOL-2")]
    Filter,
}

impl Clause {
    /// The clause's id, as the contract spells it.
    pub fn id(self) -> &'static str {
        match self {
            Clause::KeyByKey => "RT-TOOL-3.1",
            Clause::NotExposedByDefault => "RT-TOOL-3.2",
            Clause::ProseFromData => "RT-TOOL-3.3",
            Clause::DeliveryRegardless => "RT-TOOL-3.4",
            Clause::Filter => "RT-TOOL-2",
        }
    }
}

impl fmt::Display for Clause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// One broken clause, said so a person can act on it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    /// The clause broken.
    pub clause: Clause,
    /// What is wrong, naming the call and the artifact.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.clause, self.message)
    }
}

/// How the prose is judged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProseMode {
    /// Only clause 3 itself: no leak (and, with siblings, no change).
    #[default]
    DataOnly,
    /// Also demand the reference rendering of `data`.
    Exact,
}

/// How strictly to judge what is not normative.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Demand the reference order of `tool_artifacts` (call order, then each
    /// result's order) instead of comparing it as a multiset.
    pub strict_order: bool,
    /// How the prose is judged.
    pub prose: ProseMode,
    /// The caller judges clause 3 with sibling cases (as `diff` does), so the
    /// single-outcome leak check, which must guess what is a leak, is off.
    pub siblings: bool,
}

/// The judge's findings on one outcome.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Judgement {
    /// How much of the reference outcome was normative.
    pub zone: Zone,
    /// Every broken clause; empty when the outcome conforms.
    pub violations: Vec<Violation>,
    /// Differences that are not violations: numbers the implementation's
    /// language could not hold exactly.
    pub warnings: Vec<String>,
}

impl Judgement {
    /// Whether the outcome conforms.
    pub fn conforms(&self) -> bool {
        self.violations.is_empty()
    }
}

/// An observed outcome that is not even an object: nothing can be judged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotAnOutcome(pub String);

impl fmt::Display for NotAnOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Judges an observed outcome against the rule.
pub fn judge(case: &Case, observed: &Value, options: Options) -> Result<Judgement, NotAnOutcome> {
    judge_against(
        case,
        model::zone(case),
        &model::outcome(case),
        observed,
        options,
    )
}

/// [`judge`], with the case's zone and its reference outcome
/// ([`model::outcome`]) already worked out: siblings that differ in the
/// exposure alone share the zone, and their reference outcomes differ only
/// in `exposed`.
pub fn judge_against(
    case: &Case,
    zone: Zone,
    reference: &Outcome,
    observed: &Value,
    options: Options,
) -> Result<Judgement, NotAnOutcome> {
    let Value::Object(observed) = observed else {
        return Err(NotAnOutcome(format!(
            "the outcome is {}, not an object",
            kind(observed)
        )));
    };
    let mut j = Judge {
        case,
        strict: zone == Zone::Strict,
        options,
        violations: Vec::new(),
        warnings: Vec::new(),
    };
    for key in observed.keys() {
        if !["messages", "tool_artifacts", "exposed"].contains(&key.as_str()) {
            j.warnings.push(format!(
                "the outcome has a key `{key}` the contract does not define; it was ignored"
            ));
        }
    }
    let exposed = j.exposure(observed.get("exposed"), reference.exposed);
    j.artifacts(
        observed.get("tool_artifacts"),
        &reference.tool_artifacts,
        exposed,
    );
    j.prose(observed.get("messages"), &reference.messages);
    Ok(Judgement {
        zone,
        violations: j.violations,
        warnings: j.warnings,
    })
}

struct Judge<'a> {
    case: &'a Case,
    strict: bool,
    options: Options,
    violations: Vec<Violation>,
    warnings: Vec<String>,
}

/// Where an observed artifact's `type` and `payload` came from.
enum Source {
    /// Kept artifact `index` of call `call` (the index among its kept ones).
    Kept { call: usize, index: usize },
    /// An entry the call returned but RT-TOOL-2 drops.
    Dropped {
        call: usize,
        entry: usize,
        why: String,
    },
    /// Nowhere in any call's artifacts.
    Nowhere,
}

impl Judge<'_> {
    fn violation(&mut self, clause: Clause, message: String) {
        self.violations.push(Violation { clause, message });
    }

    /// Clause 2: the observed exposure. Returns it when it is a boolean.
    fn exposure(&mut self, observed: Option<&Value>, expected: bool) -> Option<bool> {
        let why = match (self.case.exposed, observed) {
            (_, Some(Value::Bool(b))) if *b == expected => return Some(*b),
            (None, Some(Value::Bool(true))) => {
                "the author made no choice, yet the port is exposed".to_string()
            }
            (Some(choice), Some(Value::Bool(b))) => {
                format!("the author set exposed: {choice}, yet the outcome says exposed: {b}")
            }
            (_, Some(other)) => {
                format!("the outcome's `exposed` is {}, not a boolean", kind(other))
            }
            (_, None) => "the outcome has no `exposed`".to_string(),
        };
        self.violation(Clause::NotExposedByDefault, why);
        observed.and_then(Value::as_bool)
    }

    /// Clause 1 and RT-TOOL-2 (and clause 4 where one outcome shows it): the
    /// `tool_artifacts` port.
    fn artifacts(
        &mut self,
        observed: Option<&Value>,
        reference: &[ToolArtifact],
        exposed: Option<bool>,
    ) {
        let hidden = exposed == Some(false);
        let entries = match observed {
            Some(Value::Array(entries)) => entries.as_slice(),
            Some(other) => {
                let msg = format!("tool_artifacts is {}, not a list", kind(other));
                return self.violation(Clause::KeyByKey, msg);
            }
            None if hidden => {
                let msg = "the outcome has no tool_artifacts while the port is hidden: hiding it must not strip it (EXPO-14)".to_string();
                return self.violation(Clause::DeliveryRegardless, msg);
            }
            None => {
                return self.violation(
                    Clause::KeyByKey,
                    "the outcome has no tool_artifacts".to_string(),
                )
            }
        };
        // What may land: in the strict zone exactly the reference, in the
        // lenient zone any of what each call could be said to have produced.
        let pool: Vec<ToolArtifact> = if self.strict {
            reference.to_vec()
        } else {
            lenient_pool(self.case)
        };
        let mut used = vec![false; pool.len()];
        let mut order = Vec::new();
        for (i, entry) in entries.iter().enumerate() {
            let Some((kind_, payload, id)) = self.entry_shape(i, entry) else {
                continue;
            };
            // The cheap tests first: the JSON comparison only for an unused
            // artifact of the claimed call.
            let found = pool.iter().enumerate().find_map(|(p, want)| {
                if used[p] || want.tool_call_id != id {
                    return None;
                }
                let eq = entry_eq(want, kind_, payload);
                (eq != Eq::Different).then_some((p, eq))
            });
            if let Some((p, eq)) = found {
                used[p] = true;
                order.push(p);
                if eq == Eq::Lossy {
                    self.warnings.push(format!(
                        "tool_artifacts[{i}] (call {id}) matches its artifact only up to the precision of an IEEE double"
                    ));
                }
                continue;
            }
            self.diagnose(i, kind_, payload, id, &pool, &mut used);
        }
        if self.strict {
            let missing: Vec<usize> = (0..pool.len()).filter(|&p| !used[p]).collect();
            if hidden && !missing.is_empty() && entries.is_empty() {
                let msg = format!(
                    "no artifact was delivered while the port is hidden ({} expected): delivery must not depend on exposure",
                    pool.len()
                );
                self.violation(Clause::DeliveryRegardless, msg);
            } else {
                for p in missing {
                    let want = &pool[p];
                    let msg = format!(
                        "{} of call {} ({} {}) is missing from tool_artifacts",
                        self.kept_name(p, reference),
                        want.tool_call_id,
                        want.kind,
                        want.payload
                    );
                    self.violation(Clause::KeyByKey, msg);
                }
            }
            if self.options.strict_order && !order.is_sorted() {
                let msg = "tool_artifacts is not in the reference order (call order, then each result's order)";
                self.violation(Clause::KeyByKey, msg.to_string());
            }
        }
    }

    /// "artifact 2" of its call: the index among the call's kept artifacts.
    fn kept_name(&self, p: usize, reference: &[ToolArtifact]) -> String {
        let id = &reference[p].tool_call_id;
        let index = reference[..p]
            .iter()
            .filter(|a| &a.tool_call_id == id)
            .count();
        format!("artifact {index}")
    }

    /// Checks one observed entry has exactly the three keys, and returns them.
    fn entry_shape<'v>(
        &mut self,
        i: usize,
        entry: &'v Value,
    ) -> Option<(&'v Value, &'v Value, &'v str)> {
        let Value::Object(fields) = entry else {
            let msg = format!("tool_artifacts[{i}] is {}, not an object", kind(entry));
            self.violation(Clause::KeyByKey, msg);
            return None;
        };
        let extra: Vec<String> = fields
            .keys()
            .filter(|k| !["type", "payload", "tool_call_id"].contains(&k.as_str()))
            .map(|k| format!("{k:?}"))
            .collect();
        if !extra.is_empty() {
            let msg = format!(
                "tool_artifacts[{i}] carries key(s) {} beyond type, payload and tool_call_id: a tool smuggled them through",
                extra.join(", ")
            );
            self.violation(Clause::KeyByKey, msg);
        }
        let missing: Vec<&str> = ["type", "payload", "tool_call_id"]
            .into_iter()
            .filter(|k| !fields.contains_key(*k))
            .collect();
        if !missing.is_empty() {
            let msg = format!("tool_artifacts[{i}] lacks {}", missing.join(" and "));
            self.violation(Clause::KeyByKey, msg);
            return None;
        }
        let Value::String(id) = &fields["tool_call_id"] else {
            let msg = format!(
                "tool_artifacts[{i}].tool_call_id is {}, not a string",
                kind(&fields["tool_call_id"])
            );
            self.violation(Clause::KeyByKey, msg);
            return None;
        };
        Some((&fields["type"], &fields["payload"], id))
    }

    /// Says what is wrong with an observed entry that matched nothing.
    fn diagnose(
        &mut self,
        i: usize,
        kind_: &Value,
        payload: &Value,
        id: &str,
        pool: &[ToolArtifact],
        used: &mut [bool],
    ) {
        let same = |a: &ToolArtifact| entry_eq(a, kind_, payload) != Eq::Different;
        let calls = &self.case.calls;
        let msg = match self.source(kind_, payload) {
            _ if !calls.iter().any(|c| c.tool_call_id == id) => {
                if let Some(p) = pool
                    .iter()
                    .enumerate()
                    .position(|(p, a)| !used[p] && same(a))
                {
                    used[p] = true;
                }
                format!("tool_artifacts[{i}] carries tool_call_id {id:?}, which is no call of this invocation")
            }
            Source::Kept { call, index } if calls[call].tool_call_id != id => {
                let real = &calls[call].tool_call_id;
                if let Some(p) = pool
                    .iter()
                    .enumerate()
                    .position(|(p, a)| !used[p] && same(a) && &a.tool_call_id == real)
                {
                    used[p] = true;
                }
                let claim = calls[call].result["artifacts"]
                    .as_array()
                    .and_then(|a| {
                        a.iter()
                            .filter(|e| model::well_formed(e).is_some())
                            .nth(index)
                    })
                    .and_then(|e| e.get("tool_call_id"))
                    .and_then(Value::as_str);
                let how = if claim == Some(id) {
                    ", the id the artifact itself claims"
                } else {
                    ""
                };
                format!("artifact {index} of call {real} carries tool_call_id {id}{how}: the entry must carry its own call's id")
            }
            // The right call's artifact, but its place in the pool is taken.
            Source::Kept { call, index } => {
                format!("tool_artifacts[{i}] repeats artifact {index} of call {}: every artifact lands once", calls[call].tool_call_id)
            }
            Source::Dropped { call, entry, why } => {
                let msg = format!(
                    "tool_artifacts[{i}] is entry {entry} of call {}'s artifacts, which RT-TOOL-2 drops: {why}",
                    calls[call].tool_call_id
                );
                return self.violation(Clause::Filter, msg);
            }
            Source::Nowhere => match pool.iter().enumerate().find(|(p, a)| {
                !used[*p] && a.tool_call_id == id && kind_.as_str() == Some(a.kind.as_str())
            }) {
                Some((p, want)) => {
                    used[p] = true;
                    let at = first_difference(&want.payload, payload).unwrap_or_default();
                    let at = if at.is_empty() {
                        "its root".to_string()
                    } else {
                        at
                    };
                    format!(
                        "tool_artifacts[{i}] (call {id}, type {}) has a payload that differs from the artifact's at {at}: payloads pass through unchanged",
                        want.kind
                    )
                }
                None => format!("tool_artifacts[{i}] ({kind_} {payload}) was produced by no call"),
            },
        };
        self.violation(Clause::KeyByKey, msg);
    }

    /// Finds where an artifact's `type` and `payload` came from.
    fn source(&self, kind_: &Value, payload: &Value) -> Source {
        for (c, call) in self.case.calls.iter().enumerate() {
            let entries = candidate_entries(&call.result);
            let succeeded = call.result.get("success") != Some(&Value::Bool(false));
            let mut kept = 0;
            for (e, entry) in entries.into_iter().enumerate() {
                let matches = entry
                    .get("type")
                    .is_some_and(|t| json_eq(t, kind_) != Eq::Different)
                    && entry
                        .get("payload")
                        .is_some_and(|p| json_eq(p, payload) != Eq::Different);
                match model::well_formed(entry) {
                    Some(_) if matches && succeeded => {
                        return Source::Kept {
                            call: c,
                            index: kept,
                        }
                    }
                    Some(_) if matches => {
                        let why =
                            "the call failed, and a failed call carries no artifacts".to_string();
                        return Source::Dropped {
                            call: c,
                            entry: e,
                            why,
                        };
                    }
                    Some(_) => kept += 1,
                    None if matches => {
                        let why = match (entry["type"].as_str(), &entry["payload"]) {
                            (Some(""), _) => "its type is empty (RT-TOOL-6 refuses it)".to_string(),
                            (Some(_), p) => format!("its payload is {}, not an object", kind(p)),
                            (None, _) => {
                                format!("its type is {}, not a string", kind(&entry["type"]))
                            }
                        };
                        return Source::Dropped {
                            call: c,
                            entry: e,
                            why,
                        };
                    }
                    None => {}
                }
            }
        }
        Source::Nowhere
    }

    /// Clause 3: one message per call, in call order, and no leak.
    fn prose(&mut self, observed: Option<&Value>, reference: &[crate::wire::Message]) {
        let messages = match observed {
            Some(Value::Array(m)) => m,
            Some(other) => {
                let msg = format!("messages is {}, not a list", kind(other));
                return self.violation(Clause::ProseFromData, msg);
            }
            None => {
                return self.violation(
                    Clause::ProseFromData,
                    "the outcome has no messages".to_string(),
                )
            }
        };
        let calls = &self.case.calls;
        if messages.len() != calls.len() {
            let msg = format!(
                "messages has {} entries for {} calls: each call gets one message, in call order",
                messages.len(),
                calls.len()
            );
            self.violation(Clause::ProseFromData, msg);
        }
        let secrets = if self.options.siblings {
            Vec::new()
        } else {
            artifact_only_strings(self.case)
        };
        for (i, (message, call)) in messages.iter().zip(calls).enumerate() {
            let id = message.get("tool_call_id").and_then(Value::as_str);
            if id != Some(call.tool_call_id.as_str()) {
                let msg = format!(
                    "messages[{i}] answers {id:?}, but call {i} is {}",
                    call.tool_call_id
                );
                self.violation(Clause::ProseFromData, msg);
            }
            let Some(content) = message.get("content").and_then(Value::as_str) else {
                let msg = format!(
                    "messages[{i}] (call {}) has no string content",
                    call.tool_call_id
                );
                self.violation(Clause::ProseFromData, msg);
                continue;
            };
            if let Some((secret, whose)) =
                secrets.iter().find(|(s, _)| content.contains(s.as_str()))
            {
                let msg = format!(
                    "the prose of call {} contains {secret:?}, found only in {whose}: prose comes from data alone",
                    call.tool_call_id
                );
                self.violation(Clause::ProseFromData, msg);
            } else if self.strict
                && self.options.prose == ProseMode::Exact
                && content != reference[i].content
            {
                let msg = format!(
                    "the prose of call {} is {content:?}, not the reference rendering {:?}",
                    call.tool_call_id, reference[i].content
                );
                self.violation(Clause::ProseFromData, msg);
            }
        }
    }
}

/// String values found only outside every call's `success`, `data` and
/// `error`: in artifacts or result-level decoys. Only strings of
/// [`LEAK_MIN_CHARS`] or more count, and none that occurs anywhere in
/// any call's data, error or id, so a prose rendering of the
/// implementation's own cannot be mistaken for a leak.
pub fn artifact_only_strings(case: &Case) -> Vec<(String, String)> {
    let mut allowed = String::new();
    for call in &case.calls {
        allowed.push_str(&call.tool_call_id);
        allowed.push('\u{0}');
        if let Value::Object(result) = &call.result {
            for key in ["success", "data", "error"] {
                if let Some(v) = result.get(key) {
                    allowed.push_str(key);
                    allowed.push_str(&model::sorted_compact_json(v));
                    allowed.push('\u{0}');
                    allowed.push_str(&v.to_string());
                    allowed.push('\u{0}');
                    strings(v, &mut |s| {
                        allowed.push_str(s);
                        allowed.push('\u{0}');
                    });
                }
            }
        } else {
            allowed.push_str(&call.result.to_string());
            strings(&call.result, &mut |s| {
                allowed.push_str(s);
                allowed.push('\u{0}');
            });
        }
    }
    let mut secrets = Vec::new();
    for call in &case.calls {
        let Value::Object(result) = &call.result else {
            continue;
        };
        for (key, v) in result
            .iter()
            .filter(|(k, _)| !["success", "data", "error"].contains(&k.as_str()))
        {
            let whose = if key == "artifacts" {
                format!("the artifacts of call {}", call.tool_call_id)
            } else {
                format!(
                    "the `{key}` of call {}'s result, not its data",
                    call.tool_call_id
                )
            };
            string_values(v, &mut |s| {
                if s.chars().count() >= LEAK_MIN_CHARS && !allowed.contains(s) {
                    secrets.push((s.to_owned(), whose.clone()));
                }
            });
        }
    }
    secrets
}

/// Every entry a call's `artifacts` could be said to hold: the items of an
/// array; of an object (lenient zone), the object itself, read as a single
/// entry, and its values, read as a map of entries.
fn candidate_entries(result: &Value) -> Vec<&Value> {
    match result.get("artifacts") {
        Some(Value::Array(a)) => a.iter().collect(),
        Some(v @ Value::Object(o)) => std::iter::once(v).chain(o.values()).collect(),
        _ => Vec::new(),
    }
}

/// In the lenient zone, what each call could be said to have produced: the
/// well-formed entries of its `artifacts` (an array, or an object read as one
/// entry and as a map of entries), unless the call
/// plainly failed (`success` is `false`).
pub fn lenient_pool(case: &Case) -> Vec<ToolArtifact> {
    let mut pool = Vec::new();
    for call in &case.calls {
        if call.result.get("success") == Some(&Value::Bool(false)) {
            continue;
        }
        let entries = candidate_entries(&call.result);
        pool.extend(
            entries
                .into_iter()
                .filter_map(model::well_formed)
                .map(|(k, p)| ToolArtifact {
                    kind: k.to_owned(),
                    payload: p.clone(),
                    tool_call_id: call.tool_call_id.clone(),
                }),
        );
    }
    pool
}

/// The shortest string that counts as a leak when one outcome is judged.
pub const LEAK_MIN_CHARS: usize = 8;

/// Every string value (not key) in a value.
fn string_values(v: &Value, f: &mut impl FnMut(&str)) {
    match v {
        Value::String(s) => f(s),
        Value::Array(a) => a.iter().for_each(|x| string_values(x, f)),
        Value::Object(o) => o.values().for_each(|x| string_values(x, f)),
        _ => {}
    }
}

/// Every string in a value, keys included.
pub(crate) fn strings(v: &Value, f: &mut impl FnMut(&str)) {
    match v {
        Value::String(s) => f(s),
        Value::Array(a) => a.iter().for_each(|x| strings(x, f)),
        Value::Object(o) => o.iter().for_each(|(k, x)| {
            f(k);
            strings(x, f)
        }),
        _ => {}
    }
}

/// How two JSON values compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Eq {
    /// Equal as JSON: same structure, numbers equal by value, key order aside.
    Same,
    /// Equal but for numbers that agree only once rounded to a finite IEEE
    /// double, or a number too large for one observed as `null` (what
    /// JavaScript's `JSON.stringify` prints for infinity).
    Lossy,
    /// Different.
    Different,
}

/// Compares two JSON values as JSON (see [`enum@Eq`]).
pub fn json_eq(expected: &Value, observed: &Value) -> Eq {
    fn both(a: Eq, b: Eq) -> Eq {
        match (a, b) {
            (Eq::Different, _) | (_, Eq::Different) => Eq::Different,
            (Eq::Lossy, _) | (_, Eq::Lossy) => Eq::Lossy,
            _ => Eq::Same,
        }
    }
    // What an IEEE double makes of a number: only a finite one survives.
    let double =
        |n: &serde_json::Number| n.to_string().parse::<f64>().ok().filter(|f| f.is_finite());
    match (expected, observed) {
        (Value::Number(a), Value::Number(b))
            if decimal(&a.to_string()) == decimal(&b.to_string()) =>
        {
            Eq::Same
        }
        (Value::Number(a), Value::Number(b)) if double(a).is_some() && double(a) == double(b) => {
            Eq::Lossy
        }
        (Value::Number(a), Value::Null) if double(a).is_none() => Eq::Lossy,
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .fold(Eq::Same, |acc, (x, y)| both(acc, json_eq(x, y))),
        (Value::Object(a), Value::Object(b)) if a.len() == b.len() => {
            a.iter().fold(Eq::Same, |acc, (k, x)| {
                both(acc, b.get(k).map_or(Eq::Different, |y| json_eq(x, y)))
            })
        }
        // Scalars of one type; numbers and containers were settled above.
        (Value::Null, Value::Null) => Eq::Same,
        (Value::Bool(a), Value::Bool(b)) if a == b => Eq::Same,
        (Value::String(a), Value::String(b)) if a == b => Eq::Same,
        _ => Eq::Different,
    }
}

/// A JSON number's exact value: sign, significant digits, and the power of
/// ten just above the first of them. `1.50`, `15e-1` and `1.5` all give
/// `(false, "15", 1)`; every zero gives `(false, "", 0)`.
fn decimal(text: &str) -> (bool, String, i64) {
    let (negative, text) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(at) => (&text[..at], &text[at + 1..]),
        None => (text, "0"),
    };
    let exponent = exponent.trim_start_matches('+');
    let mut exp: i64 = match exponent.strip_prefix('-') {
        Some(d) => d
            .bytes()
            .fold(0i64, |n, b| {
                n.saturating_mul(10).saturating_add(i64::from(b - b'0'))
            })
            .saturating_neg(),
        None => exponent.bytes().fold(0i64, |n, b| {
            n.saturating_mul(10).saturating_add(i64::from(b - b'0'))
        }),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    exp = exp.saturating_sub(frac.len() as i64);
    let digits = format!("{int}{frac}");
    let digits = digits.trim_start_matches('0');
    let significant = digits.trim_end_matches('0');
    if significant.is_empty() {
        return (false, String::new(), 0);
    }
    // The power of ten just above the first significant digit.
    (
        negative,
        significant.to_owned(),
        exp.saturating_add(digits.len() as i64),
    )
}

/// Whether an artifact has this `type` and `payload`.
fn entry_eq(want: &ToolArtifact, kind_: &Value, payload: &Value) -> Eq {
    match (
        kind_.as_str() == Some(want.kind.as_str()),
        json_eq(&want.payload, payload),
    ) {
        (true, eq) => eq,
        (false, _) => Eq::Different,
    }
}

/// The JSON pointer of the first place two values differ (`""` for the
/// whole value), if they do.
pub fn first_difference(expected: &Value, observed: &Value) -> Option<String> {
    if json_eq(expected, observed) != Eq::Different {
        return None;
    }
    let at = |k: &str, rest: Option<String>| {
        format!(
            "/{}{}",
            k.replace('~', "~0").replace('/', "~1").escape_debug(),
            rest.unwrap_or_default()
        )
    };
    match (expected, observed) {
        (Value::Object(a), Value::Object(b)) => {
            let keys = a.keys().chain(b.keys().filter(|k| !a.contains_key(*k)));
            for k in keys {
                match (a.get(k), b.get(k)) {
                    (Some(x), Some(y)) if json_eq(x, y) == Eq::Different => {
                        return Some(at(k, first_difference(x, y)))
                    }
                    (Some(_), Some(_)) => {}
                    _ => return Some(at(k, None)),
                }
            }
            Some(String::new())
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            let i = (0..a.len()).find(|&i| json_eq(&a[i], &b[i]) == Eq::Different)?;
            Some(at(&i.to_string(), first_difference(&a[i], &b[i])))
        }
        _ => Some(String::new()),
    }
}

/// Compares two lists of JSON values as multisets.
pub fn same_multiset(a: &[Value], b: &[Value]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut used = vec![false; b.len()];
    a.iter().all(|x| {
        let found = (0..b.len()).find(|&i| !used[i] && json_eq(x, &b[i]) != Eq::Different);
        found.map(|i| used[i] = true).is_some()
    })
}
