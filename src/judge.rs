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
//! cases: whether the prose changes with the artifacts alone (¶3) and
//! whether delivery changes with the exposure alone (¶4). From one outcome
//! the judge still catches a leak of a long string found anywhere but the
//! call's own `data`, and cites an artifact missing while the port is hidden
//! as what one outcome proves, ¶1, with a word on ¶4.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::{self, Zone};
use crate::wire::{kind, Call, Case, Message, Outcome, ToolArtifact};

/// What a finding cites: a paragraph of RT-TOOL-3, a neighbouring rule the
/// clauses rely on, or the wire contract itself.
///
/// The specification cites a clause by paragraph, `RT-TOOL-3 ¶1` … `¶4`
/// (the rule's id with a dotted item number would read as the id of
/// another rule), and a neighbouring rule by its id. Every clause is named
/// once, here.
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
    /// ¶1: key by key, real call ids, every kept artifact once.
    #[serde(rename = "RT-TOOL-3 ¶1")]
    KeyByKey,
    /// ¶2: not exposed by default.
    #[serde(rename = "RT-TOOL-3 ¶2")]
    NotExposedByDefault,
    /// ¶3: prose from `data` alone.
    #[serde(rename = "RT-TOOL-3 ¶3")]
    ProseFromData,
    /// ¶4: delivery regardless of exposure.
    #[serde(rename = "RT-TOOL-3 ¶4")]
    DeliveryRegardless,
    /// RT-TOOL-2: malformed entries and calls that did not succeed surface
    /// nothing.
    #[serde(rename = "RT-TOOL-2")]
    Filter,
    /// RT-TOOL-6: what an implementation must still deliver above its
    /// bounds, and that a run over them is not failed.
    #[serde(rename = "RT-TOOL-6")]
    Bounds,
    /// Not a rule: the outcome is not of the contract's shape (a missing
    /// key, a wrong type, a message for no call or two for one).
    #[serde(rename = "protocol")]
    Protocol,
}

/// A [`Clause`] as structured JSON: `{"rule": "RT-TOOL-3", "paragraph": 1}`,
/// `{"rule": "RT-TOOL-2", "paragraph": null}`, or both null for the
/// contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Cite {
    /// The rule's id, when a rule is broken.
    pub rule: Option<&'static str>,
    /// The paragraph of that rule, when the citation names one.
    pub paragraph: Option<u8>,
}

impl Clause {
    /// Every clause, in citation order.
    pub const ALL: [Clause; 7] = [
        Clause::KeyByKey,
        Clause::NotExposedByDefault,
        Clause::ProseFromData,
        Clause::DeliveryRegardless,
        Clause::Filter,
        Clause::Bounds,
        Clause::Protocol,
    ];

    /// The citation as the specification writes it: `RT-TOOL-3 ¶1`,
    /// `RT-TOOL-2`; `protocol` for the contract.
    pub fn id(self) -> &'static str {
        match self {
            Clause::KeyByKey => "RT-TOOL-3 ¶1",
            Clause::NotExposedByDefault => "RT-TOOL-3 ¶2",
            Clause::ProseFromData => "RT-TOOL-3 ¶3",
            Clause::DeliveryRegardless => "RT-TOOL-3 ¶4",
            Clause::Filter => "RT-TOOL-2",
            Clause::Bounds => "RT-TOOL-6",
            Clause::Protocol => "protocol",
        }
    }

    /// What the clause asks, in a few words.
    pub fn title(self) -> &'static str {
        match self {
            Clause::KeyByKey => {
                "artifacts on their own port, built key by key with the call's real id"
            }
            Clause::NotExposedByDefault => "the port not exposed by default",
            Clause::ProseFromData => "each call's prose from its own result's data alone",
            Clause::DeliveryRegardless => "delivery regardless of exposure",
            Clause::Filter => "malformed entries and calls that did not succeed surface nothing",
            Clause::Bounds => {
                "above the floors, only what a bound may drop is missing, and the run is not failed"
            }
            Clause::Protocol => "the outcome has the contract's shape",
        }
    }

    /// The citation, structured.
    pub fn cite(self) -> Cite {
        let (rule, paragraph) = match self {
            Clause::KeyByKey => (Some(crate::RULE), Some(1)),
            Clause::NotExposedByDefault => (Some(crate::RULE), Some(2)),
            Clause::ProseFromData => (Some(crate::RULE), Some(3)),
            Clause::DeliveryRegardless => (Some(crate::RULE), Some(4)),
            Clause::Filter => (Some("RT-TOOL-2"), None),
            Clause::Bounds => (Some("RT-TOOL-6"), None),
            Clause::Protocol => (None, None),
        };
        Cite { rule, paragraph }
    }
}

impl fmt::Display for Clause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// One broken clause, said so a person can act on it.
///
/// As JSON: `{"clause": "RT-TOOL-3 ¶1", "cite": {"rule": "RT-TOOL-3",
/// "paragraph": 1}, "message": "…"}`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Violation {
    /// The clause broken.
    pub clause: Clause,
    /// What is wrong, naming the call and the artifact.
    pub message: String,
}

impl Serialize for Violation {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut v = s.serialize_struct("Violation", 3)?;
        v.serialize_field("clause", &self.clause)?;
        v.serialize_field("cite", &self.clause.cite())?;
        v.serialize_field("message", &self.message)?;
        v.end()
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.clause, self.message)
    }
}

/// How the prose is judged: which reading of ¶3.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum ProseMode {
    /// ¶3 as the oracle reads it by default: each call's prose comes from
    /// its own `data`, never from artifacts, decoys or a successful call's
    /// `error`; a failed call's `error` may shape it (no rule says where a
    /// failure's prose comes from: see [`crate::reading`]).
    #[default]
    DataOnly,
    /// The letter of ¶3, "from a result's `data` alone": a failed call's
    /// `error` may not reach its prose either.
    Letter,
    /// The letter, and the reference rendering of `data` as well.
    Exact,
}

impl ProseMode {
    /// The reading's name, as `--prose` spells it.
    pub fn name(self) -> &'static str {
        match self {
            ProseMode::DataOnly => "data-only",
            ProseMode::Letter => "letter",
            ProseMode::Exact => "exact",
        }
    }

    /// Whether a call that did not succeed may have its `error` in its prose.
    pub fn failed_error_allowed(self) -> bool {
        self == ProseMode::DataOnly
    }
}

/// How strictly to judge what is not normative.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Demand the reference order of `tool_artifacts` (call order, then each
    /// result's order) instead of comparing it as a multiset.
    pub strict_order: bool,
    /// How the prose is judged.
    pub prose: ProseMode,
    /// The caller judges ¶3 and ¶4 with sibling cases (as `diff` does), so
    /// the single-outcome leak check, which must guess what is a leak, is
    /// off, and so is the hint that an artifact missing while the port is
    /// hidden may be ¶4.
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
    /// language could not hold exactly, artifacts of one call in another
    /// order than the call returned them, messages out of call order.
    pub warnings: Vec<String>,
    /// Which of `violations` are about the `tool_artifacts` port (`diff`
    /// judges the port on the run with the port exposed).
    #[serde(skip)]
    pub port: std::ops::Range<usize>,
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
    let strict = zone == Zone::Strict;
    let mut j = Judge {
        case,
        strict,
        bounded: !strict && model::shape_reasons(case).is_empty(),
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
    let start = j.violations.len();
    j.artifacts(
        observed.get("tool_artifacts"),
        &reference.tool_artifacts,
        exposed,
    );
    let port = start..j.violations.len();
    j.prose(observed.get("messages"), &reference.messages);
    Ok(Judgement {
        zone,
        violations: j.violations,
        warnings: j.warnings,
        port,
    })
}

struct Judge<'a> {
    case: &'a Case,
    strict: bool,
    /// Lenient only because the run is over RT-TOOL-6's floors: what must
    /// still be delivered is known ([`model::may_drop`]).
    bounded: bool,
    options: Options,
    violations: Vec<Violation>,
    warnings: Vec<String>,
}

/// Where an observed artifact's `type` and `payload` came from.
enum Source<'v> {
    /// Kept artifact `index` of call `call` (the index among its kept ones),
    /// the entry the tool returned.
    Kept {
        call: usize,
        index: usize,
        entry: &'v Value,
    },
    /// An entry a call returned but RT-TOOL-2 drops: which, and why.
    Dropped { entry: String, why: String },
    /// Nowhere in any call's artifacts.
    Nowhere,
}

impl Judge<'_> {
    fn violation(&mut self, clause: Clause, message: String) {
        self.violations.push(Violation { clause, message });
    }

    /// Clause 2: the observed exposure. Returns it when it is a boolean.
    fn exposure(&mut self, observed: Option<&Value>, expected: bool) -> Option<bool> {
        let (clause, why) = match (self.case.exposed, observed) {
            (_, Some(Value::Bool(b))) if *b == expected => return Some(*b),
            (None, Some(Value::Bool(true))) => (
                Clause::NotExposedByDefault,
                "the author made no choice, yet the port is exposed".to_string(),
            ),
            (Some(choice), Some(Value::Bool(b))) => (
                Clause::NotExposedByDefault,
                format!("the author set exposed: {choice}, yet the outcome says exposed: {b}"),
            ),
            (_, Some(other)) => (
                Clause::Protocol,
                format!("the outcome's `exposed` is {}, not a boolean", kind(other)),
            ),
            (_, None) => (Clause::Protocol, "the outcome has no `exposed`".to_string()),
        };
        self.violation(clause, why);
        observed.and_then(Value::as_bool)
    }

    /// Clause 1 and RT-TOOL-2 (and clause 4 where one outcome shows it, and
    /// RT-TOOL-6 above the floors): the `tool_artifacts` port.
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
                return self.violation(Clause::Protocol, msg);
            }
            None if hidden => {
                let msg = "the outcome has no tool_artifacts while the port is hidden (a runtime that strips hidden outputs, EXPO-14, from the result breaks RT-TOOL-3 ¶4; `diff` tells the two apart by running the case exposed too)".to_string();
                return self.violation(Clause::Protocol, msg);
            }
            None => {
                return self.violation(
                    Clause::Protocol,
                    "the outcome has no tool_artifacts".to_string(),
                )
            }
        };
        // What may land: in the strict zone (and over the floors alone)
        // exactly the reference, in the lenient zone any of what each call
        // could be said to have produced.
        let determined = self.strict || self.bounded;
        let pool: Vec<ToolArtifact> = if determined {
            reference.to_vec()
        } else {
            lenient_pool(self.case)
        };
        let mut used = vec![false; pool.len()];
        let mut order = Vec::new();
        // Every entry that is an artifact as it should be is matched first,
        // so what explains the others does not depend on their place.
        let mut unmatched = Vec::new();
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
            unmatched.push((i, kind_, payload, id));
        }
        for (i, kind_, payload, id) in unmatched {
            self.diagnose(i, kind_, payload, id, &pool, &mut used);
        }
        self.order_within_calls(&pool, &order);
        if !determined {
            return;
        }
        let missing: Vec<usize> = (0..pool.len()).filter(|&p| !used[p]).collect();
        if self.bounded {
            return self.bounds(&pool, &used, &missing, reference);
        }
        // A payload no double can hold may not encode in the
        // implementation's language: RT-TOOL-6 drops it with a warning.
        let (unencodable, missing): (Vec<usize>, Vec<usize>) = missing
            .into_iter()
            .partition(|&p| !model::encodable(&pool[p].payload));
        for p in unencodable {
            self.warnings.push(format!(
                "{} of call {} is missing; its payload holds a number no IEEE double can hold, which may not encode in the implementation's language, and RT-TOOL-6 drops such an artifact with a warning",
                self.kept_name(p, reference),
                pool[p].tool_call_id
            ));
        }
        // Missing is what one outcome shows (¶1). Whether it is missing
        // because the port is hidden (¶4) takes a second run, which `diff`
        // makes; a person reading `check` is told where to look.
        let while_hidden = if hidden && !self.options.siblings {
            " (the port is hidden: a runtime that delivers it only while the port is shown breaks RT-TOOL-3 ¶4, which `diff` tells apart)"
        } else {
            ""
        };
        for p in missing {
            let want = &pool[p];
            let msg = format!(
                "{} of call {} ({} {}) is missing from tool_artifacts{while_hidden}",
                self.kept_name(p, reference),
                want.tool_call_id,
                want.kind,
                want.payload
            );
            self.violation(Clause::KeyByKey, msg);
        }
        if self.options.strict_order && !order.is_sorted() {
            let msg = "tool_artifacts is not in the reference order (call order, then each result's order)";
            self.violation(Clause::KeyByKey, msg.to_string());
        }
    }

    /// RT-TOOL-6 over the floors: every artifact missing from the port must
    /// be one a conforming bound may have dropped ([`model::may_drop`]).
    fn bounds(
        &mut self,
        pool: &[ToolArtifact],
        used: &[bool],
        missing: &[usize],
        reference: &[ToolArtifact],
    ) {
        let delivered = used.iter().filter(|&&u| u).count();
        let delivered_bytes: usize = (0..pool.len())
            .filter(|&p| used[p])
            .map(|p| model::encoded_len(&pool[p].payload))
            .sum();
        let owed: Vec<String> = missing
            .iter()
            .filter(|&&p| {
                let size = model::encoded_len(&pool[p].payload);
                !model::may_drop(&pool[p].payload, size, delivered, delivered_bytes)
            })
            .map(|&p| {
                format!(
                    "{} of call {}",
                    self.kept_name(p, reference),
                    pool[p].tool_call_id
                )
            })
            .collect();
        if owed.is_empty() {
            return;
        }
        let more = match owed.len() {
            0..=3 => String::new(),
            n => format!(" and {} more", n - 3),
        };
        let msg = format!(
            "tool_artifacts holds {delivered} of the run's {} kept artifacts ({delivered_bytes} bytes at most), yet {}{more} are missing: a bound may drop an artifact only once {} are kept or it no longer fits {} bytes, and the rest are still kept",
            pool.len(),
            owed[..owed.len().min(3)].join(", "),
            model::floors::ARTIFACTS,
            model::floors::RUN_BYTES,
        );
        self.violation(Clause::Bounds, msg);
    }

    /// A warning for each call whose artifacts arrived in another order
    /// than it returned them (the order across calls is free).
    fn order_within_calls(&mut self, pool: &[ToolArtifact], order: &[usize]) {
        let mut arrived: std::collections::HashMap<&str, Vec<usize>> =
            std::collections::HashMap::new();
        for &p in order {
            arrived.entry(&pool[p].tool_call_id).or_default().push(p);
        }
        for call in &self.case.calls {
            let id = call.tool_call_id.as_str();
            if !arrived.get(id).is_none_or(|a| a.is_sorted()) {
                self.warnings.push(format!(
                    "the artifacts of call {id} arrived in another order than the call returned them"
                ));
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
        let unused = |c: usize| {
            pool.iter()
                .enumerate()
                .any(|(p, a)| !used[p] && a.tool_call_id == calls[c].tool_call_id && same(a))
        };
        let msg = match self.source(kind_, payload, id, &unused) {
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
            Source::Kept { call, index, entry } if calls[call].tool_call_id != id => {
                let real = &calls[call].tool_call_id;
                if let Some(p) = pool
                    .iter()
                    .enumerate()
                    .position(|(p, a)| !used[p] && same(a) && &a.tool_call_id == real)
                {
                    used[p] = true;
                }
                let claim = entry.get("tool_call_id").and_then(Value::as_str);
                let how = if claim == Some(id) {
                    ", the id the artifact itself claims"
                } else {
                    ""
                };
                format!("artifact {index} of call {real} carries tool_call_id {id}{how}: the entry must carry its own call's id")
            }
            // The right call's artifact, but its place in the pool is taken.
            Source::Kept { call, index, .. } => {
                format!("tool_artifacts[{i}] repeats artifact {index} of call {}: every artifact lands once", calls[call].tool_call_id)
            }
            Source::Dropped { entry, why } => {
                let msg = format!("tool_artifacts[{i}] is {entry}, which RT-TOOL-2 drops: {why}");
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

    /// Finds where an artifact's `type` and `payload` came from: an entry
    /// of some call's `artifacts`, or of the reserved key in its `data`.
    ///
    /// Two calls may return the same artifact. A kept one whose call still
    /// misses it (`unused` says so) explains the entry best; then one of
    /// the call whose id the entry carries, a repeat or a dropped entry;
    /// then any dropped one; then any repeat. So when a failed call `c1` and
    /// a successful `c2` return the same link, the link under `c1`'s id is
    /// `c2`'s mislabelled while `c2`'s is missing from the port, and `c1`'s
    /// own dropped one while it is there.
    fn source(
        &self,
        kind_: &Value,
        payload: &Value,
        id: &str,
        unused: &dyn Fn(usize) -> bool,
    ) -> Source<'_> {
        // The best explanation so far, with its rank (lower is better).
        let mut best: Option<(u8, Source<'_>)> = None;
        fn consider<'s>(best: &mut Option<(u8, Source<'s>)>, rank: u8, found: Source<'s>) {
            if best.as_ref().is_none_or(|(r, _)| rank < *r) {
                *best = Some((rank, found));
            }
        }
        for (c, call) in self.case.calls.iter().enumerate() {
            let succeeded = may_deliver(&call.result);
            let mut kept = 0;
            for (place, e, entry) in candidate_entries(&call.result) {
                let matches = entry
                    .get("type")
                    .is_some_and(|t| json_eq(t, kind_) != Eq::Different)
                    && entry
                        .get("payload")
                        .is_some_and(|p| json_eq(p, payload) != Eq::Different);
                let name = || match place {
                    Place::Artifacts => {
                        format!("entry {e} of call {}'s artifacts", call.tool_call_id)
                    }
                    Place::Reserved => format!(
                        "entry {e} under the reserved `artifacts` key of call {}'s data",
                        call.tool_call_id
                    ),
                };
                let own = call.tool_call_id == id;
                let why = match model::well_formed(entry) {
                    Some(_) if succeeded => {
                        let index = kept;
                        kept += 1;
                        if !matches {
                            continue;
                        }
                        let found = Source::Kept {
                            call: c,
                            index,
                            entry,
                        };
                        if unused(c) {
                            return found;
                        }
                        consider(&mut best, if own { 1 } else { 3 }, found);
                        continue;
                    }
                    _ if !matches => continue,
                    Some(_) => match call.result.get("success") {
                        Some(Value::Bool(false)) => {
                            "the call failed, and a call that failed carries no artifacts"
                                .to_string()
                        }
                        other => format!(
                            "its `success` is {}, not true, and only a call that succeeded carries artifacts",
                            other.map_or("absent", kind)
                        ),
                    },
                    None => match (entry["type"].as_str(), &entry["payload"]) {
                        (Some(""), _) => "its type is empty (RT-TOOL-6 refuses it)".to_string(),
                        (Some(_), p) => format!("its payload is {}, not an object", kind(p)),
                        (None, _) => format!("its type is {}, not a string", kind(&entry["type"])),
                    },
                };
                let found = Source::Dropped { entry: name(), why };
                consider(&mut best, if own { 1 } else { 2 }, found);
            }
        }
        best.map_or(Source::Nowhere, |(_, found)| found)
    }

    /// Clause 3: one message per call, matched to its call by
    /// `tool_call_id`, and no leak into it.
    fn prose(&mut self, observed: Option<&Value>, reference: &[Message]) {
        let messages = match observed {
            Some(Value::Array(m)) => m,
            Some(other) => {
                let msg = format!("messages is {}, not a list", kind(other));
                return self.violation(Clause::Protocol, msg);
            }
            None => {
                return self.violation(Clause::Protocol, "the outcome has no messages".to_string())
            }
        };
        let calls = &self.case.calls;
        let mut contents: Vec<Option<&str>> = vec![None; calls.len()];
        let mut answered = vec![false; calls.len()];
        // The calls the messages answer, in the order they came.
        let mut answering = Vec::with_capacity(messages.len());
        for (i, message) in messages.iter().enumerate() {
            let Some(id) = message.get("tool_call_id").and_then(Value::as_str) else {
                let msg = format!("messages[{i}] has no string tool_call_id");
                self.violation(Clause::Protocol, msg);
                continue;
            };
            let Some(c) = calls.iter().position(|call| call.tool_call_id == id) else {
                let msg = format!(
                    "messages[{i}] answers tool_call_id {id:?}, which is no call of this invocation"
                );
                self.violation(Clause::Protocol, msg);
                continue;
            };
            if std::mem::replace(&mut answered[c], true) {
                let msg =
                    format!("messages[{i}] is a second message for call {id}: each call gets one");
                self.violation(Clause::Protocol, msg);
                continue;
            }
            answering.push(c);
            match message.get("content").and_then(Value::as_str) {
                Some(content) => contents[c] = Some(content),
                None => {
                    let msg = format!("messages[{i}] (call {id}) has no string content");
                    self.violation(Clause::Protocol, msg);
                }
            }
        }
        for (call, _) in calls.iter().zip(&answered).filter(|(_, a)| !**a) {
            let msg = format!(
                "call {} has no message: each call gets one",
                call.tool_call_id
            );
            self.violation(Clause::Protocol, msg);
        }
        if !answering.is_sorted() {
            self.warnings.push(
                "messages are not in call order; each was matched to its call by tool_call_id"
                    .to_string(),
            );
        }
        let secrets = if self.options.siblings {
            Vec::new()
        } else {
            leak_candidates(self.case, self.options.prose)
        };
        for (c, (call, content)) in calls.iter().zip(contents).enumerate() {
            let Some(content) = content else { continue };
            let leak = secrets
                .get(c)
                .and_then(|s| s.iter().find(|(s, _)| content.contains(s.as_str())));
            if let Some((secret, whose)) = leak {
                let msg = format!(
                    "the prose of call {} contains {secret:?}, found only in {whose}: a call's prose comes from its own data alone",
                    call.tool_call_id
                );
                self.violation(Clause::ProseFromData, msg);
            } else if self.strict
                && self.options.prose == ProseMode::Exact
                && content != reference[c].content
            {
                let msg = format!(
                    "the prose of call {} is {content:?}, not the reference rendering {:?}",
                    call.tool_call_id, reference[c].content
                );
                self.violation(Clause::ProseFromData, msg);
            }
        }
    }
}

/// Each call's prose in an outcome: the `content` of the first message
/// answering its `tool_call_id`, if that is a string.
pub fn contents<'o>(outcome: &'o Value, calls: &[Call]) -> Vec<Option<&'o str>> {
    let messages = outcome
        .get("messages")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    calls
        .iter()
        .map(|call| {
            messages
                .iter()
                .find(|m| m.get("tool_call_id").and_then(Value::as_str) == Some(&call.tool_call_id))
                .and_then(|m| m.get("content"))
                .and_then(Value::as_str)
        })
        .collect()
}

/// Whether a result may deliver artifacts: its `success` is `true`, or, in
/// the lenient zone, absent. RT-TOOL-2: "a call that failed or was declined
/// carries no artifacts"; a `success` of `"false"` (a string, which a loosely
/// typed runtime reads as truthy), `1` or `null` is no success.
pub fn may_deliver(result: &Value) -> bool {
    matches!(result.get("success"), Some(Value::Bool(true)) | None)
}

/// What one outcome's prose may not contain, call by call: string values of
/// [`LEAK_MIN_CHARS`] or more found anywhere in the case outside that call's
/// own `data` (less the reserved key), each with where it was found.
///
/// A call's prose comes from its own result's `data` alone: another call's
/// `data` or `error`, any artifact, a result-level decoy, the entries under
/// `data.artifacts` and the call's own `error` when it succeeded are all
/// candidates. A failed call's own `error` is allowed unless the prose is
/// read by the letter ([`ProseMode::failed_error_allowed`]). A string that
/// also occurs in what the call may draw on (its id, its `data` in any
/// rendering) is never a candidate, so a rendering of the implementation's
/// own cannot be mistaken for a leak.
pub fn leak_candidates(case: &Case, mode: ProseMode) -> Vec<Vec<(String, String)>> {
    case.calls
        .iter()
        .enumerate()
        .map(|(i, call)| {
            let own_error = call.result.get("success") == Some(&Value::Bool(true))
                || !mode.failed_error_allowed();
            let mut allowed = String::new();
            let mut allow = |v: &Value| {
                allowed.push_str(&model::sorted_compact_json(v));
                allowed.push('\u{0}');
                allowed.push_str(&v.to_string());
                allowed.push('\u{0}');
                strings(v, &mut |s| {
                    allowed.push_str(s);
                    allowed.push('\u{0}');
                });
            };
            allowed_of(call, own_error, &mut allow);
            allowed.push_str(&call.tool_call_id);
            let mut secrets = Vec::new();
            for (j, other) in case.calls.iter().enumerate() {
                let Value::Object(result) = &other.result else {
                    if i != j {
                        let whose = format!("the result of call {}", other.tool_call_id);
                        candidates(&other.result, &whose, &allowed, &mut secrets);
                    }
                    continue;
                };
                let id = &other.tool_call_id;
                for (key, v) in result {
                    let whose = match key.as_str() {
                        "success" => continue,
                        "data" => {
                            if let Some(reserved) = v.get(model::RESERVED_KEY) {
                                let whose =
                                    format!("the reserved `artifacts` key of call {id}'s data");
                                candidates(reserved, &whose, &allowed, &mut secrets);
                            }
                            if i == j {
                                continue;
                            }
                            format!("the data of call {id}")
                        }
                        "error" => format!("the error of call {id}"),
                        "artifacts" => format!("the artifacts of call {id}"),
                        _ => format!("the `{key}` of call {id}'s result, not its data"),
                    };
                    // Another call's data whole: the reserved key's
                    // strings were named as such above, and come first.
                    candidates(v, &whose, &allowed, &mut secrets);
                }
            }
            secrets
        })
        .collect()
}

/// Feeds `allow` what a call's prose may draw on: its `data` without the
/// reserved key, its `success`, a failed call's `error` unless `own_error`
/// says it is a candidate, and a result that is not an object at all.
fn allowed_of(call: &Call, own_error: bool, allow: &mut impl FnMut(&Value)) {
    let Value::Object(result) = &call.result else {
        return allow(&call.result);
    };
    if let Some(data) = result.get("data") {
        allow(&model::without_reserved_key(data));
    }
    if let Some(success) = result.get("success") {
        allow(success);
    }
    if let Some(error) = result.get("error").filter(|_| !own_error) {
        allow(error);
    }
}

/// Pushes each string value of `v` long enough to count, and not in
/// `allowed`, as a candidate found in `whose`.
fn candidates(v: &Value, whose: &str, allowed: &str, out: &mut Vec<(String, String)>) {
    string_values(v, &mut |s| {
        if s.chars().count() >= LEAK_MIN_CHARS && !allowed.contains(s) {
            out.push((s.to_owned(), whose.to_owned()));
        }
    });
}

/// Where a result holds artifact entries.
#[derive(Clone, Copy)]
pub(crate) enum Place {
    /// Its `artifacts`.
    Artifacts,
    /// RT-TOOL-2's reserved key in its `data`.
    Reserved,
}

/// Every entry a result's artifacts could be said to hold, with where it
/// is and its index there: the items of an `artifacts` array; of an object
/// (lenient zone), the object itself, read as a single entry, and its
/// values, read as a map of entries; and likewise under RT-TOOL-2's reserved
/// key in an object `data` (lenient zone), which a runtime may lift.
pub(crate) fn candidate_entries(result: &Value) -> Vec<(Place, usize, &Value)> {
    fn of<'v>(place: Place, v: Option<&'v Value>, out: &mut Vec<(Place, usize, &'v Value)>) {
        match v {
            Some(Value::Array(a)) => out.extend(a.iter().enumerate().map(|(i, e)| (place, i, e))),
            Some(v @ Value::Object(o)) => out.extend(
                std::iter::once(v)
                    .chain(o.values())
                    .enumerate()
                    .map(|(i, e)| (place, i, e)),
            ),
            _ => {}
        }
    }
    let mut out = Vec::new();
    of(Place::Artifacts, result.get("artifacts"), &mut out);
    let reserved = result
        .get("data")
        .filter(|d| d.is_object())
        .and_then(|d| d.get(model::RESERVED_KEY));
    of(Place::Reserved, reserved, &mut out);
    out
}

/// In the lenient zone, what each call could be said to have produced: the
/// well-formed entries of its `artifacts` (an array, or an object read as one
/// entry and as a map of entries) and of the reserved key in its `data`,
/// unless the call did not succeed ([`may_deliver`]).
pub fn lenient_pool(case: &Case) -> Vec<ToolArtifact> {
    let mut pool = Vec::new();
    for call in &case.calls {
        if !may_deliver(&call.result) {
            continue;
        }
        pool.extend(
            candidate_entries(&call.result)
                .into_iter()
                .filter_map(|(_, _, e)| model::well_formed(e))
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
