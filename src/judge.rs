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
//! rounds a number to the nearest IEEE double (a 40-digit integer,
//! `0.1000000000000000055511151231257827`), the difference is a
//! [`Judgement::warnings`] entry, not a violation (RFC 8259 §6 lets an
//! implementation limit precision). A number no double holds (`1e400`) is
//! another matter: RT-TOOL-6 drops an artifact whose payload does not encode,
//! with a warning, and never alters it, so its absence is a warning and the
//! artifact delivered with `null` (or anything else) in its place breaks
//! RT-TOOL-6.
//!
//! What one outcome cannot show is left to [`crate::diff`], which runs sibling
//! cases: whether the prose changes with the artifacts alone (¶3) and
//! whether delivery changes with the exposure alone (¶4). From one outcome
//! the judge still catches a leak of a long string found anywhere but the
//! call's own `data`, and cites an artifact missing while the port is hidden
//! as what one outcome proves, ¶1, with a word on ¶4.

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::borrow::Cow;
use std::cell::{Cell, OnceCell};
use std::fmt;
use std::hash::{BuildHasher, Hash, Hasher};

use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::nfa::contiguous::NFA;
use aho_corasick::{Anchored, Span};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::code;
pub use crate::code::{Cite, Clause, Code, Place};
use crate::model::{self, Zone};
use crate::wire::{self, kind, Call, Case, Message, Outcome, ToolArtifact};

/// One broken clause, said so a person can act on it.
///
/// As JSON: `{"clause": "RT-TOOL-3 ¶1", "cite": {"rule": "RT-TOOL-3",
/// "paragraph": 1}, "code": "extra-key", "place": {"entry": 0, "path":
/// "/tool_artifacts/0/extra"}, "message": "…"}`. The code says what kind of
/// finding it is ([`Code`], listed in `src/codes.md`), the place where.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Violation {
    /// The clause broken: the code's own.
    pub clause: Clause,
    /// What kind of finding it is.
    pub code: Code,
    /// Where it is.
    #[serde(default)]
    pub place: Place,
    /// What is wrong, naming the call and the artifact.
    pub message: String,
}

impl Violation {
    /// A finding of kind `code` (a violation's) at `place`, citing the
    /// code's clause.
    pub fn new(code: Code, place: Place, message: String) -> Violation {
        Violation {
            clause: code.clause(),
            code,
            place,
            message,
        }
    }
}

/// One broken clause, as `check --json` and `diff --json` write it: the
/// clause, what kind of finding it is (`code`, listed in `src/codes.md`),
/// where it is, and a sentence.
#[derive(Serialize, schemars::JsonSchema)]
#[schemars(rename = "Violation")]
struct ViolationJson<'a> {
    /// The clause broken, as the specification cites it.
    clause: Clause,
    /// The same citation, structured.
    cite: Cite,
    /// What kind of finding it is (`src/codes.md`).
    code: Code,
    /// Where it is.
    place: &'a Place,
    /// What is wrong, in a sentence that may be reworded at any time.
    message: Cow<'a, str>,
}

impl Serialize for Violation {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        ViolationJson {
            clause: self.clause,
            cite: self.clause.cite(),
            code: self.code,
            place: &self.place,
            // A lone surrogate read from a reply, shown as its escape.
            message: wire::shown_lone(&self.message),
        }
        .serialize(s)
    }
}

impl schemars::JsonSchema for Violation {
    fn schema_name() -> Cow<'static, str> {
        ViolationJson::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        ViolationJson::json_schema(generator)
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} [{}]: {}",
            self.clause,
            self.code,
            wire::shown_lone(&self.message)
        )
    }
}

/// A difference that is not a violation, said so a person can act on it:
/// its kind ([`Code`], a warning's), where it is, and a sentence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Warning {
    /// What kind of finding it is (`src/codes.md`).
    pub code: Code,
    /// Where it is.
    #[serde(default)]
    pub place: Place,
    /// What it is, in a sentence that may be reworded at any time.
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}", self.code, self.message)
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
    /// failure's prose comes from: see the reading, `src/reading.md`).
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
    pub warnings: Vec<Warning>,
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
        call_of: call_index(&case.calls),
        sources: OnceCell::new(),
    };
    for key in observed.keys() {
        if !["messages", "tool_artifacts", "exposed"].contains(&key.as_str()) {
            let msg = format!(
                "the outcome has a key `{key}` the contract does not define; it was ignored"
            );
            j.warning(Code::UnknownOutcomeKey, Place::key(key), msg);
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
    warnings: Vec<Warning>,
    /// Each call's index by its id.
    call_of: HashMap<&'a str, usize>,
    /// Where artifacts could have come from, indexed when first needed.
    sources: OnceCell<Sources<'a>>,
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

impl<'a> Judge<'a> {
    fn violation(&mut self, code: Code, place: Place, message: String) {
        self.violations.push(Violation::new(code, place, message));
    }

    fn warning(&mut self, code: Code, place: Place, message: String) {
        self.warnings.push(Warning {
            code,
            place,
            message,
        });
    }

    /// Clause 2: the observed exposure. Returns it when it is a boolean.
    fn exposure(&mut self, observed: Option<&Value>, expected: bool) -> Option<bool> {
        let (code, why) = match (self.case.exposed, observed) {
            (_, Some(Value::Bool(b))) if *b == expected => return Some(*b),
            (None, Some(Value::Bool(true))) => (
                Code::ExposedByDefault,
                "the author made no choice, yet the port is exposed".to_string(),
            ),
            (Some(choice), Some(Value::Bool(b))) => (
                Code::ExposureOverridden,
                format!("the author set exposed: {choice}, yet the outcome says exposed: {b}"),
            ),
            (_, Some(other)) => (
                Code::ExposedNotBoolean,
                format!("the outcome's `exposed` is {}, not a boolean", kind(other)),
            ),
            (_, None) => (
                Code::ExposedMissing,
                "the outcome has no `exposed`".to_string(),
            ),
        };
        self.violation(code, Place::key("exposed"), why);
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
                return self.violation(Code::PortNotList, Place::key("tool_artifacts"), msg);
            }
            None if hidden => {
                let msg = "the outcome has no tool_artifacts while the port is hidden (a runtime that strips hidden outputs, EXPO-14, from the result breaks RT-TOOL-3 ¶4; `diff` tells the two apart by running the case exposed too)".to_string();
                return self.violation(Code::PortMissingWhileHidden, Place::default(), msg);
            }
            None => {
                let msg = "the outcome has no tool_artifacts".to_string();
                return self.violation(Code::PortMissing, Place::default(), msg);
            }
        };
        // What may land: in the strict zone (and over the floors alone)
        // exactly the reference, in the lenient zone any of what each call
        // could be said to have produced.
        let determined = self.strict || self.bounded;
        let lenient;
        let mut pool = Pool::new(if determined {
            reference
        } else {
            lenient = lenient_pool(self.case);
            &lenient
        });
        let mut order = Vec::new();
        // Every entry that is an artifact as it should be is matched first,
        // so what explains the others does not depend on their place.
        let mut unmatched = Vec::new();
        for (i, entry) in entries.iter().enumerate() {
            let Some((kind_, payload, id)) = self.entry_shape(i, entry) else {
                continue;
            };
            // The first unused artifact of the claimed call with this type
            // and payload, found through the index.
            let hash = json_hash(payload);
            if let Some((p, eq)) = pool.unused(Some(id), kind_, payload, hash) {
                pool.used[p] = true;
                order.push(p);
                if eq == Eq::Lossy {
                    let msg = format!("tool_artifacts[{i}] (call {id}) matches its artifact only up to the precision of an IEEE double");
                    let place = pool.place(p, Place::entry(i, ""), &self.call_of);
                    self.warning(Code::DoublePrecision, place, msg);
                }
                continue;
            }
            unmatched.push((i, kind_, payload, hash, id));
        }
        for (i, kind_, payload, hash, id) in unmatched {
            self.diagnose(i, kind_, payload, hash, id, &mut pool);
        }
        self.order_within_calls(pool.artifacts, &order);
        if !determined {
            return;
        }
        let missing: Vec<usize> = (0..pool.artifacts.len())
            .filter(|&p| !pool.used[p])
            .collect();
        if self.bounded {
            return self.bounds(&pool, &missing);
        }
        // A payload no double can hold may not encode in the
        // implementation's language: RT-TOOL-6 drops it with a warning.
        let (unencodable, missing): (Vec<usize>, Vec<usize>) = missing
            .into_iter()
            .partition(|&p| !model::encodable(&pool.artifacts[p].payload));
        for p in unencodable {
            let msg = format!(
                "{} of call {} is missing; its payload holds a number no IEEE double can hold, which may not encode in the implementation's language, and RT-TOOL-6 drops such an artifact with a warning",
                pool.kept_name(p),
                pool.artifacts[p].tool_call_id
            );
            let place = pool.place(p, Place::default(), &self.call_of);
            self.warning(Code::UnencodableDropped, place, msg);
        }
        // Missing is what one outcome shows (¶1). Whether it is missing
        // because the port is hidden (¶4) takes a second run, which `diff`
        // makes; a person reading `check` is told where to look.
        let (code, while_hidden) = if hidden && !self.options.siblings {
            (Code::MissingArtifactWhileHidden, " (the port is hidden: a runtime that delivers it only while the port is shown breaks RT-TOOL-3 ¶4, which `diff` tells apart)")
        } else {
            (Code::MissingArtifact, "")
        };
        for p in missing {
            let want = &pool.artifacts[p];
            let msg = format!(
                "{} of call {} ({} {}) is missing from tool_artifacts{while_hidden}",
                pool.kept_name(p),
                want.tool_call_id,
                want.kind,
                want.payload
            );
            let place = pool.place(p, Place::default(), &self.call_of);
            self.violation(code, place, msg);
        }
        if self.options.strict_order && !order.is_sorted() {
            let msg = "tool_artifacts is not in the reference order (call order, then each result's order)";
            let place = Place::key("tool_artifacts");
            self.violation(Code::ArtifactsOutOfOrder, place, msg.to_string());
        }
    }

    /// RT-TOOL-6 over the floors: every artifact missing from the port must
    /// be one a conforming bound may have dropped ([`model::may_drop`]).
    fn bounds(&mut self, pool: &Pool<'_>, missing: &[usize]) {
        // Nothing missing, nothing owed: the sizes below read every
        // delivered payload whole.
        if missing.is_empty() {
            return;
        }
        let (used, artifacts) = (&pool.used, pool.artifacts);
        let delivered = used.iter().filter(|&&u| u).count();
        let delivered_bytes: usize = (0..artifacts.len())
            .filter(|&p| used[p])
            .map(|p| model::encoded_len(&artifacts[p].payload))
            .sum();
        let owed: Vec<String> = missing
            .iter()
            .filter(|&&p| {
                let size = model::encoded_len(&artifacts[p].payload);
                !model::may_drop(&artifacts[p].payload, size, delivered, delivered_bytes)
            })
            .map(|&p| {
                format!(
                    "{} of call {}",
                    pool.kept_name(p),
                    artifacts[p].tool_call_id
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
        let verb = if owed.len() == 1 { "is" } else { "are" };
        let msg = format!(
            "tool_artifacts holds {delivered} of the run's {} kept artifacts ({delivered_bytes} bytes at most), yet {}{more} {verb} missing: a bound may drop an artifact only once {} are kept or it no longer fits {} bytes, and the rest are still kept",
            artifacts.len(),
            owed[..owed.len().min(3)].join(", "),
            model::floors::ARTIFACTS,
            model::floors::RUN_BYTES,
        );
        self.violation(Code::DroppedWithinBounds, Place::key("tool_artifacts"), msg);
    }

    /// A warning for each call whose artifacts arrived in another order
    /// than it returned them (the order across calls is free).
    fn order_within_calls(&mut self, pool: &[ToolArtifact], order: &[usize]) {
        let mut arrived: HashMap<&str, Vec<usize>> = HashMap::new();
        for &p in order {
            arrived.entry(&pool[p].tool_call_id).or_default().push(p);
        }
        for (c, call) in self.case.calls.iter().enumerate() {
            let id = call.tool_call_id.as_str();
            if !arrived.get(id).is_none_or(|a| a.is_sorted()) {
                let msg = format!(
                    "the artifacts of call {id} arrived in another order than the call returned them"
                );
                self.warning(Code::CallOrder, Place::call(c), msg);
            }
        }
    }

    /// Checks one observed entry has exactly the three keys, and returns them.
    fn entry_shape<'v>(
        &mut self,
        i: usize,
        entry: &'v Value,
    ) -> Option<(&'v Value, &'v Value, &'v str)> {
        let Value::Object(fields) = entry else {
            let msg = format!("tool_artifacts[{i}] is {}, not an object", kind(entry));
            self.violation(Code::EntryNotObject, Place::entry(i, ""), msg);
            return None;
        };
        let extra: Vec<&String> = fields
            .keys()
            .filter(|k| !["type", "payload", "tool_call_id"].contains(&k.as_str()))
            .collect();
        if let Some(first) = extra.first() {
            let shown: Vec<String> = extra.iter().map(|k| format!("{k:?}")).collect();
            let msg = format!(
                "tool_artifacts[{i}] carries key(s) {} beyond type, payload and tool_call_id: a tool smuggled them through",
                shown.join(", ")
            );
            let place = Place::entry(i, &format!("/{}", code::pointer_segment(first)));
            self.violation(Code::ExtraKey, place, msg);
        }
        let keys = ["type", "payload", "tool_call_id"].map(|k| (k, fields.get(k)));
        let [(_, Some(kind_)), (_, Some(payload)), (_, Some(id))] = keys else {
            let missing: Vec<&str> = keys
                .into_iter()
                .filter_map(|(k, v)| v.is_none().then_some(k))
                .collect();
            let msg = format!("tool_artifacts[{i}] lacks {}", missing.join(" and "));
            self.violation(Code::MissingKey, Place::entry(i, ""), msg);
            return None;
        };
        let Value::String(id) = id else {
            let msg = format!(
                "tool_artifacts[{i}].tool_call_id is {}, not a string",
                kind(id)
            );
            self.violation(Code::CallIdNotString, Place::entry(i, "/tool_call_id"), msg);
            return None;
        };
        Some((kind_, payload, id))
    }

    /// Says what is wrong with an observed entry that matched nothing.
    fn diagnose(
        &mut self,
        i: usize,
        kind_: &Value,
        payload: &Value,
        hash: u64,
        id: &str,
        pool: &mut Pool<'_>,
    ) {
        let calls = &self.case.calls;
        let source = self.source(kind_, payload, hash, id, pool);
        // Something else in place of a number no double holds, and nothing
        // else changed: not dropped whole, as RT-TOOL-6 drops such an
        // artifact, but altered.
        if let Some((p, at)) = matches!(source, Source::Nowhere)
            .then(|| pool.altered(id, kind_, payload))
            .flatten()
        {
            pool.used[p] = true;
            let want = &pool.artifacts[p];
            // What stands there, cut at 100 characters: it may be anything.
            let shown = |v: &Value| {
                let text = v.pointer(&at).map_or_else(String::new, Value::to_string);
                match text.char_indices().nth(100) {
                    Some((cut, _)) => format!("{}…", &text[..cut]),
                    None => text,
                }
            };
            let msg = format!(
                "tool_artifacts[{i}] (call {id}, type {}) is {} of call {id} with {} at {}, a number no IEEE double can hold, delivered as {}: RT-TOOL-6 drops an artifact whose payload does not encode, with a warning, and does not alter it (a payload passes through unchanged, RT-TOOL-3 ¶1)",
                want.kind,
                pool.kept_name(p),
                shown(&want.payload),
                if at.is_empty() { "its root" } else { &at },
                shown(payload),
            );
            let place = pool.place(p, Place::entry(i, &format!("/payload{at}")), &self.call_of);
            return self.violation(Code::UnencodableAltered, place, msg);
        }
        let entry = Place::entry(i, "");
        let (code, place, msg) = match source {
            _ if !self.call_of.contains_key(id) => {
                if let Some((p, _)) = pool.unused(None, kind_, payload, hash) {
                    pool.used[p] = true;
                }
                let msg = format!("tool_artifacts[{i}] carries tool_call_id {id:?}, which is no call of this invocation");
                let place = Place::entry(i, "/tool_call_id");
                (Code::UnknownCallId, place, msg)
            }
            Source::Kept { call, index, entry } if calls[call].tool_call_id != id => {
                let real = &calls[call].tool_call_id;
                if let Some((p, _)) = pool.unused(Some(real), kind_, payload, hash) {
                    pool.used[p] = true;
                }
                let claim = entry.get("tool_call_id").and_then(Value::as_str);
                let how = if claim == Some(id) {
                    ", the id the artifact itself claims"
                } else {
                    ""
                };
                let msg = format!("artifact {index} of call {real} carries tool_call_id {id}{how}: the entry must carry its own call's id");
                let place = Place {
                    artifact: Some(index),
                    ..Place::entry(i, "/tool_call_id")
                };
                (Code::WrongCallId, place.of_call(Some(call)), msg)
            }
            // The right call's artifact, but its place in the pool is taken.
            Source::Kept { call, index, .. } => {
                let msg = format!("tool_artifacts[{i}] repeats artifact {index} of call {}: every artifact lands once", calls[call].tool_call_id);
                let place = Place {
                    artifact: Some(index),
                    ..entry.of_call(Some(call))
                };
                (Code::RepeatedArtifact, place, msg)
            }
            Source::Dropped {
                entry: dropped,
                why,
            } => {
                let msg = format!("tool_artifacts[{i}] is {dropped}, which RT-TOOL-2 drops: {why}");
                (Code::DroppedEntryDelivered, entry, msg)
            }
            Source::Nowhere => match pool.unused_of_kind(id, kind_) {
                Some(p) => {
                    pool.used[p] = true;
                    let want = &pool.artifacts[p];
                    let at = first_difference(&want.payload, payload).unwrap_or_default();
                    // A string there cut between the halves of a surrogate
                    // pair ([`wire::parse_reply`]) is said so.
                    let cut = payload
                        .pointer(&at)
                        .and_then(Value::as_str)
                        .and_then(|s| wire::lone_surrogates(s).first().map(|&(_, u)| u))
                        .map_or_else(String::new, |u| {
                            format!(" (the string there holds a lone surrogate \\u{u:04x}: it is not a Unicode string)")
                        });
                    let shown_at = if at.is_empty() { "its root" } else { &at };
                    let msg = format!(
                        "tool_artifacts[{i}] (call {id}, type {}) has a payload that differs from the artifact's at {shown_at}{cut}: payloads pass through unchanged",
                        want.kind
                    );
                    let place =
                        pool.place(p, Place::entry(i, &format!("/payload{at}")), &self.call_of);
                    (Code::PayloadAltered, place, msg)
                }
                None => {
                    let msg =
                        format!("tool_artifacts[{i}] ({kind_} {payload}) was produced by no call");
                    (Code::UnproducedArtifact, entry, msg)
                }
            },
        };
        self.violation(code, place, msg);
    }

    /// Finds where an artifact's `type` and `payload` came from: an entry
    /// of some call's `artifacts`, or of the reserved key in its `data`.
    ///
    /// Two calls may return the same artifact. A kept one whose call still
    /// misses it explains the entry best (the first such call); then one of
    /// the call whose id the entry carries, a repeat or a dropped entry;
    /// then any dropped one; then any repeat (the first of each, in call
    /// order). So when a failed call `c1` and a successful `c2` return the
    /// same link, the link under `c1`'s id is `c2`'s mislabelled while
    /// `c2`'s is missing from the port, and `c1`'s own dropped one while it
    /// is there.
    ///
    /// The kept entries are the pool's artifacts, in the same order, so the
    /// first unused artifact with this `type` and `payload` names the first
    /// call that still misses it. Everything is found through indexes.
    fn source(
        &self,
        kind_: &Value,
        payload: &Value,
        hash: u64,
        id: &str,
        pool: &mut Pool<'_>,
    ) -> Source<'a> {
        let sources = self.sources.get_or_init(|| Sources::new(self.case));
        let kind_hash = json_hash(kind_);
        // The first entry of a list that has this type and payload (the
        // list is found by their hashes; each is then compared as JSON).
        let first = |list: Option<&Vec<usize>>| {
            list.into_iter().flatten().copied().find(|&s| {
                let entry = sources.entries[s].entry;
                [("type", kind_), ("payload", payload)]
                    .into_iter()
                    .all(|(key, want)| {
                        entry
                            .get(key)
                            .is_some_and(|v| json_eq(v, want) != Eq::Different)
                    })
            })
        };
        let of_call = |call: usize| first(sources.of_call.get(&(call, kind_hash, hash)));
        let artifacts = pool.artifacts;
        let call_of = |p: usize| self.call_of.get(artifacts[p].tool_call_id.as_str());
        let found = match pool.unused(None, kind_, payload, hash) {
            // A kept entry whose call still misses it.
            Some((p, _)) => call_of(p).and_then(|&c| of_call(c)),
            // The call's own, then any dropped one, then any repeat.
            None => self
                .call_of
                .get(id)
                .and_then(|&c| of_call(c))
                .or_else(|| first(sources.dropped.get(&(kind_hash, hash))))
                .or_else(|| {
                    let p = pool.first(kind_, payload, hash)?;
                    call_of(p).and_then(|&c| of_call(c))
                }),
        };
        found.map_or(Source::Nowhere, |s| sources.source(self.case, s))
    }

    /// Clause 3: one message per call, matched to its call by
    /// `tool_call_id`, and no leak into it.
    fn prose(&mut self, observed: Option<&Value>, reference: &[Message]) {
        let messages = match observed {
            Some(Value::Array(m)) => m,
            Some(other) => {
                let msg = format!("messages is {}, not a list", kind(other));
                return self.violation(Code::MessagesNotList, Place::key("messages"), msg);
            }
            None => {
                let msg = "the outcome has no messages".to_string();
                return self.violation(Code::MessagesMissing, Place::default(), msg);
            }
        };
        let calls = &self.case.calls;
        let mut contents: Vec<Option<&str>> = vec![None; calls.len()];
        // Each answered call's message, by its index in `messages`.
        let mut message_at = vec![0; calls.len()];
        let mut answered = vec![false; calls.len()];
        // The calls the messages answer, in the order they came.
        let mut answering = Vec::with_capacity(messages.len());
        for (i, message) in messages.iter().enumerate() {
            let Some(id) = message.get("tool_call_id").and_then(Value::as_str) else {
                let msg = format!("messages[{i}] has no string tool_call_id");
                self.violation(
                    Code::MessageIdMissing,
                    Place::message(i, "/tool_call_id"),
                    msg,
                );
                continue;
            };
            let Some(&c) = self.call_of.get(id) else {
                let msg = format!(
                    "messages[{i}] answers tool_call_id {id:?}, which is no call of this invocation"
                );
                let place = Place::message(i, "/tool_call_id");
                self.violation(Code::MessageUnknownCall, place, msg);
                continue;
            };
            if std::mem::replace(&mut answered[c], true) {
                let msg =
                    format!("messages[{i}] is a second message for call {id}: each call gets one");
                let place = Place::message(i, "").of_call(Some(c));
                self.violation(Code::SecondMessage, place, msg);
                continue;
            }
            answering.push(c);
            match message.get("content").and_then(Value::as_str) {
                Some(content) => {
                    // A string cut between the halves of a surrogate pair
                    // ([`wire::parse_reply`]): no prose a model can read.
                    if let Some((_, unit)) = wire::lone_surrogates(content).first() {
                        let msg = format!(
                            "the prose of call {id} holds a lone surrogate \\u{unit:04x}: it is not a Unicode string (a string cut between the halves of a surrogate pair, as slicing it by UTF-16 length does)"
                        );
                        let place = Place::message(i, "/content").of_call(Some(c));
                        self.violation(Code::LoneSurrogate, place, msg);
                    }
                    contents[c] = Some(content);
                    message_at[c] = i;
                }
                None => {
                    let msg = format!("messages[{i}] (call {id}) has no string content");
                    let place = Place::message(i, "/content").of_call(Some(c));
                    self.violation(Code::ContentMissing, place, msg);
                }
            }
        }
        for (c, call) in calls.iter().enumerate().filter(|&(c, _)| !answered[c]) {
            let msg = format!(
                "call {} has no message: each call gets one",
                call.tool_call_id
            );
            self.violation(Code::MessageMissing, Place::call(c), msg);
        }
        if !answering.is_sorted() {
            let msg =
                "messages are not in call order; each was matched to its call by tool_call_id";
            self.warning(
                Code::MessagesOutOfOrder,
                Place::key("messages"),
                msg.to_string(),
            );
        }
        let scan = (!self.options.siblings).then(|| LeakScan::new(self.case, self.options.prose));
        let mut allowed = vec![0; scan.as_ref().map_or(0, |s| s.strings.len())];
        for (c, (call, content)) in calls.iter().zip(contents).enumerate() {
            let Some(content) = content else { continue };
            let at = Place::message(message_at[c], "/content").of_call(Some(c));
            let leaks = scan
                .as_ref()
                .map_or_else(Vec::new, |scan| scan.leaks(c, content, &mut allowed));
            for &(secret, whose) in &leaks {
                let msg = format!(
                    "the prose of call {} contains {secret:?}, found only in {whose}: a call's prose comes from its own data alone",
                    call.tool_call_id
                );
                let place = Place {
                    from: Some(whose.to_owned()),
                    ..at.clone()
                };
                self.violation(Code::ProseLeak, place, msg);
            }
            if leaks.is_empty()
                && self.strict
                && self.options.prose == ProseMode::Exact
                && content != reference[c].content
            {
                let msg = format!(
                    "the prose of call {} is {content:?}, not the reference rendering {:?}",
                    call.tool_call_id, reference[c].content
                );
                self.violation(Code::ProseNotReference, at, msg);
            }
        }
    }
}

/// Each call's index by its id (the first call of an id, were one repeated).
fn call_index(calls: &[Call]) -> HashMap<&str, usize> {
    let mut index = HashMap::with_capacity(calls.len());
    for (c, call) in calls.iter().enumerate() {
        index.entry(call.tool_call_id.as_str()).or_insert(c);
    }
    index
}

/// Positions in a list, in order, that share an index key, and how many of
/// the first are known to be used (they stay used).
#[derive(Default)]
struct Bucket {
    items: Vec<usize>,
    used_before: usize,
}

impl Bucket {
    /// The first item that passes `test`, skipping used ones if `used` is
    /// given. The used items at the front are skipped for good, so finding
    /// each of n alike artifacts in turn looks at each item about once.
    fn first(
        &mut self,
        used: Option<&[bool]>,
        mut test: impl FnMut(usize) -> bool,
    ) -> Option<usize> {
        let (from, skipped) = match used {
            Some(used) => {
                let skip = self.items[self.used_before..]
                    .iter()
                    .take_while(|&&p| used[p])
                    .count();
                self.used_before += skip;
                (self.used_before, skip)
            }
            None => (0, 0),
        };
        let mut visited = skipped as u64;
        let found = self.items[from..].iter().copied().find(|&p| {
            visited += 1;
            used.is_none_or(|used| !used[p]) && test(p)
        });
        tally(|w| w.visited += visited);
        found
    }
}

/// The artifacts that may land on the port, which of them have, and
/// indexes that find one by call id, `type` and payload in constant time:
/// the call id and `type` exactly (each numbered), the payload by
/// [`json_hash`], so `1` finds `1.0`, then checked with [`json_eq`].
struct Pool<'p> {
    artifacts: &'p [ToolArtifact],
    /// Which artifacts an observed entry has matched.
    used: Vec<bool>,
    /// Each artifact's index among its call's.
    kept: Vec<usize>,
    /// Each artifact's payload's [`json_hash`].
    hashes: Vec<u64>,
    /// Each call id and each type among the artifacts, numbered.
    ids: HashMap<&'p str, usize>,
    kinds: HashMap<&'p str, usize>,
    /// Each artifact's call id and type, by their numbers.
    numbers: Vec<(usize, usize)>,
    /// By call id, type and payload.
    by_call: HashMap<(usize, usize, u64), Bucket>,
    /// By type and payload, whatever the call; built when first needed.
    by_artifact: Option<HashMap<(usize, u64), Bucket>>,
    /// By call id and type; built when first needed.
    by_kind: Option<HashMap<(usize, usize), Bucket>>,
    /// Those whose payload does not encode ([`model::encodable`]), by call
    /// id and type; built when first needed.
    unencodable: Option<HashMap<(usize, usize), Bucket>>,
}

impl<'p> Pool<'p> {
    fn new(artifacts: &'p [ToolArtifact]) -> Pool<'p> {
        let hashes: Vec<u64> = artifacts.iter().map(|a| json_hash(&a.payload)).collect();
        let (mut ids, mut kinds) = (HashMap::new(), HashMap::new());
        let number = |map: &mut HashMap<&'p str, usize>, s: &'p str| {
            let next = map.len();
            *map.entry(s).or_insert(next)
        };
        let numbers: Vec<(usize, usize)> = artifacts
            .iter()
            .map(|a| {
                (
                    number(&mut ids, &a.tool_call_id),
                    number(&mut kinds, &a.kind),
                )
            })
            .collect();
        // Each artifact's index among its call's: how many of that call's
        // came before it.
        let mut seen = vec![0; ids.len()];
        let kept = numbers
            .iter()
            .map(|&(id, _)| {
                seen[id] += 1;
                seen[id] - 1
            })
            .collect();
        let mut by_call: HashMap<(usize, usize, u64), Bucket> = HashMap::new();
        for (p, &(id, kind)) in numbers.iter().enumerate() {
            by_call
                .entry((id, kind, hashes[p]))
                .or_default()
                .items
                .push(p);
        }
        Pool {
            artifacts,
            used: vec![false; artifacts.len()],
            kept,
            hashes,
            ids,
            kinds,
            numbers,
            by_call,
            by_artifact: None,
            by_kind: None,
            unencodable: None,
        }
    }

    /// The first unused artifact of call `id` (of any call when `None`)
    /// with this `type` and a payload equal to `payload` as JSON, and how
    /// equal. `hash` is the payload's [`json_hash`].
    fn unused(
        &mut self,
        id: Option<&str>,
        kind_: &Value,
        payload: &Value,
        hash: u64,
    ) -> Option<(usize, Eq)> {
        let kind = *self.kinds.get(kind_.as_str()?)?;
        let artifacts = self.artifacts;
        let bucket = match id {
            Some(id) => {
                let id = *self.ids.get(id)?;
                self.by_call.get_mut(&(id, kind, hash))?
            }
            None => by_artifact(&mut self.by_artifact, &self.numbers, &self.hashes)
                .get_mut(&(kind, hash))?,
        };
        let mut eq = Eq::Different;
        bucket
            .first(Some(&self.used), |p| {
                eq = json_eq(&artifacts[p].payload, payload);
                eq != Eq::Different
            })
            .map(|p| (p, eq))
    }

    /// The first artifact, used or not, with this `type` and payload.
    fn first(&mut self, kind_: &Value, payload: &Value, hash: u64) -> Option<usize> {
        let kind = *self.kinds.get(kind_.as_str()?)?;
        let artifacts = self.artifacts;
        by_artifact(&mut self.by_artifact, &self.numbers, &self.hashes)
            .get_mut(&(kind, hash))?
            .first(None, |p| {
                json_eq(&artifacts[p].payload, payload) != Eq::Different
            })
    }

    /// The first unused artifact of call `id` with this `type`.
    fn unused_of_kind(&mut self, id: &str, kind_: &Value) -> Option<usize> {
        let key = (*self.ids.get(id)?, *self.kinds.get(kind_.as_str()?)?);
        let numbers = &self.numbers;
        let by_kind = self.by_kind.get_or_insert_with(|| {
            let mut index: HashMap<(usize, usize), Bucket> = HashMap::new();
            for (p, &key) in numbers.iter().enumerate() {
                index.entry(key).or_default().items.push(p);
            }
            index
        });
        by_kind.get_mut(&key)?.first(Some(&self.used), |_| true)
    }

    /// The first unused artifact of call `id` with this `type` whose
    /// payload does not encode, if `payload` is that payload with something
    /// else in place of a number no double holds and no other change; and
    /// the pointer to the first such place ([`unencodable_replaced`]). One
    /// comparison at most, so an entry costs what its payload does.
    fn altered(&mut self, id: &str, kind_: &Value, payload: &Value) -> Option<(usize, String)> {
        let key = (*self.ids.get(id)?, *self.kinds.get(kind_.as_str()?)?);
        let (artifacts, numbers) = (self.artifacts, &self.numbers);
        let index = self.unencodable.get_or_insert_with(|| {
            let mut index: HashMap<(usize, usize), Bucket> = HashMap::new();
            for (p, &key) in numbers.iter().enumerate() {
                if !model::encodable(&artifacts[p].payload) {
                    index.entry(key).or_default().items.push(p);
                }
            }
            index
        });
        let p = index.get_mut(&key)?.first(Some(&self.used), |_| true)?;
        unencodable_replaced(&artifacts[p].payload, payload).map(|at| (p, at))
    }

    /// "artifact 2" of its call: the index among the call's kept artifacts.
    fn kept_name(&self, p: usize) -> String {
        format!("artifact {}", self.kept[p])
    }

    /// `place`, of artifact `p`: its call (by index) and its index among
    /// the call's kept artifacts.
    fn place(&self, p: usize, mut place: Place, call_of: &HashMap<&str, usize>) -> Place {
        place.call = call_of
            .get(self.artifacts[p].tool_call_id.as_str())
            .copied();
        place.artifact = Some(self.kept[p]);
        place
    }
}

/// The pool's index by type and payload, whatever the call, built in `slot`
/// when first needed.
fn by_artifact<'s>(
    slot: &'s mut Option<HashMap<(usize, u64), Bucket>>,
    numbers: &[(usize, usize)],
    hashes: &[u64],
) -> &'s mut HashMap<(usize, u64), Bucket> {
    slot.get_or_insert_with(|| {
        let mut index: HashMap<(usize, u64), Bucket> = HashMap::new();
        for (p, &(_, kind)) in numbers.iter().enumerate() {
            index.entry((kind, hashes[p])).or_default().items.push(p);
        }
        index
    })
}

/// One entry a call's result could be said to hold ([`candidate_entries`]).
struct SourceEntry<'a> {
    call: usize,
    place: Holder,
    at: usize,
    entry: &'a Value,
    /// Its index among the call's kept entries, if it is one.
    kept: Option<usize>,
}

/// Every entry the calls' results could be said to hold, in call order,
/// indexed by the [`json_hash`] of its `type` and of its `payload`.
struct Sources<'a> {
    entries: Vec<SourceEntry<'a>>,
    /// One call's entries by (call, type, payload).
    of_call: HashMap<(usize, u64, u64), Vec<usize>>,
    /// The entries RT-TOOL-2 drops, by (type, payload).
    dropped: HashMap<(u64, u64), Vec<usize>>,
}

impl<'a> Sources<'a> {
    fn new(case: &'a Case) -> Sources<'a> {
        let mut sources = Sources {
            entries: Vec::new(),
            of_call: HashMap::new(),
            dropped: HashMap::new(),
        };
        for (call, c) in case.calls.iter().enumerate() {
            let succeeded = may_deliver(&c.result);
            let mut kept = 0;
            for (place, at, entry) in candidate_entries(&c.result) {
                let (Some(t), Some(p)) = (entry.get("type"), entry.get("payload")) else {
                    continue;
                };
                let is_kept = succeeded && model::well_formed(entry).is_some();
                let s = sources.entries.len();
                sources.entries.push(SourceEntry {
                    call,
                    place,
                    at,
                    entry,
                    kept: is_kept.then_some(kept),
                });
                kept += usize::from(is_kept);
                let (t, p) = (json_hash(t), json_hash(p));
                sources.of_call.entry((call, t, p)).or_default().push(s);
                if !is_kept {
                    sources.dropped.entry((t, p)).or_default().push(s);
                }
            }
        }
        sources
    }

    /// Entry `s` as what explains an observed artifact.
    fn source(&self, case: &Case, s: usize) -> Source<'a> {
        let SourceEntry {
            call,
            place,
            at,
            entry,
            kept,
        } = self.entries[s];
        if let Some(index) = kept {
            return Source::Kept { call, index, entry };
        }
        let id = &case.calls[call].tool_call_id;
        let name = match place {
            Holder::Artifacts => format!("entry {at} of call {id}'s artifacts"),
            Holder::Reserved => {
                format!("entry {at} under the reserved `artifacts` key of call {id}'s data")
            }
        };
        let why = match model::well_formed(entry) {
            Some(_) => match case.calls[call].result.get("success") {
                Some(Value::Bool(false)) => {
                    "the call failed, and a call that failed carries no artifacts".to_string()
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
        Source::Dropped { entry: name, why }
    }
}

/// Each call's prose in an outcome: the `content` of the first message
/// answering its `tool_call_id`, if that is a string.
pub fn contents<'o>(outcome: &'o Value, calls: &[Call]) -> Vec<Option<&'o str>> {
    let messages = outcome
        .get("messages")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    // The first message answering each id.
    let mut first: HashMap<&str, &Value> = HashMap::new();
    for m in messages {
        if let Some(id) = m.get("tool_call_id").and_then(Value::as_str) {
            first.entry(id).or_insert(m);
        }
    }
    calls
        .iter()
        .map(|call| {
            first
                .get(call.tool_call_id.as_str())
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
///
/// Every candidate string is looked for in what each call may draw on in
/// one pass of an Aho–Corasick automaton over the first bytes of each
/// (a longer one is then compared in place); the lists themselves hold
/// each candidate once for every call it is one for.
pub fn leak_candidates(case: &Case, mode: ProseMode) -> Vec<Vec<(String, String)>> {
    let scan = LeakScan::new(case, mode);
    let mut allowed = vec![0; scan.strings.len()];
    (0..case.calls.len())
        .map(|i| {
            scan.mark_allowed(i, &mut allowed);
            scan.met
                .iter()
                .filter(|&&(s, _, skip)| skip != Some(i) && allowed[s] != i + 1)
                .map(|&(s, place, _)| (scan.strings[s].0.to_owned(), scan.places[place].clone()))
                .collect()
        })
        .collect()
}

/// The leak scan of one case: every string [`leak_candidates`] names, each
/// once, and an Aho–Corasick automaton that finds all of them that occur in
/// a text in one pass over it.
///
/// A call's candidates are the same for every call, in the same order, but
/// for those in what the call may draw on: a string of its own `data` is
/// always there, so the call's own `data` needs no skipping to find its
/// first leak. So a call's first leak is the first candidate string (in the
/// order met) that its prose holds and what it may draw on does not: two
/// passes of the automaton, over those two texts.
struct LeakScan<'c> {
    case: &'c Case,
    mode: ProseMode,
    /// Each candidate string once, in the order first met, with where.
    strings: Vec<(&'c str, usize)>,
    /// Where candidates are met: "the data of call c1", …
    places: Vec<String>,
    /// Each meeting of a candidate: the string, where, and the call whose
    /// own `data` (or bare result) it is in, which skips it.
    met: Vec<(usize, usize, Option<usize>)>,
    /// For each string, the call in whose own `data` (or bare result) it
    /// was first met, if it was: never a leak in that call's prose, which
    /// may always draw on it (a string under the reserved key is met as
    /// such first).
    own: Vec<Option<usize>>,
    /// Each window once ([`WINDOW`]): a candidate's first `WINDOW` bytes,
    /// or the whole of a shorter one.
    windows: Vec<&'c [u8]>,
    /// For each window, the candidate that is that window whole, if one is.
    whole_of: Vec<Option<usize>>,
    /// For each window, the candidates longer than it that start with it,
    /// as a trie: found where the window is, then walked there in place.
    longer: Vec<Trie>,
    /// The automaton over `windows`, so its size does not grow with a
    /// candidate's length; `None` only if it could not be built (then the
    /// texts are searched string by string).
    automaton: Option<NFA>,
    /// Whether some candidate is longer than its window.
    long: bool,
}

impl<'c> LeakScan<'c> {
    fn new(case: &'c Case, mode: ProseMode) -> LeakScan<'c> {
        let mut ids: HashMap<&str, usize> = HashMap::new();
        let mut scan = LeakScan::empty(case, mode);
        let mut meet = |scan: &mut LeakScan<'c>, v: &'c Value, whose: String, skip| {
            let place = scan.places.len();
            scan.places.push(whose);
            string_values(v, &mut |s| {
                // Fewer bytes than the least is fewer characters: the
                // string's text need not be read.
                if s.len() < LEAK_MIN_CHARS || s.chars().count() < LEAK_MIN_CHARS {
                    return;
                }
                let id = *ids.entry(s).or_insert_with(|| {
                    scan.strings.push((s, place));
                    scan.own.push(skip);
                    scan.strings.len() - 1
                });
                scan.met.push((id, place, skip));
            });
        };
        for (j, other) in case.calls.iter().enumerate() {
            let id = &other.tool_call_id;
            let Value::Object(result) = &other.result else {
                let whose = format!("the result of call {id}");
                meet(&mut scan, &other.result, whose, Some(j));
                continue;
            };
            for (key, v) in result {
                let (whose, skip) = match key.as_str() {
                    "success" => continue,
                    "data" => {
                        if let Some(reserved) = v.get(model::RESERVED_KEY) {
                            let whose = format!("the reserved `artifacts` key of call {id}'s data");
                            meet(&mut scan, reserved, whose, None);
                        }
                        // Another call's data whole: the reserved key's
                        // strings were named as such above, and come first.
                        (format!("the data of call {id}"), Some(j))
                    }
                    "error" => (format!("the error of call {id}"), None),
                    "artifacts" => (format!("the artifacts of call {id}"), None),
                    _ => (
                        format!("the `{key}` of call {id}'s result, not its data"),
                        None,
                    ),
                };
                meet(&mut scan, v, whose, skip);
            }
        }
        scan.index();
        scan
    }

    /// A scan with no candidate yet.
    fn empty(case: &'c Case, mode: ProseMode) -> LeakScan<'c> {
        LeakScan {
            case,
            mode,
            strings: Vec::new(),
            places: Vec::new(),
            met: Vec::new(),
            own: Vec::new(),
            windows: Vec::new(),
            whole_of: Vec::new(),
            longer: Vec::new(),
            automaton: None,
            long: false,
        }
    }

    /// Builds the windows and the automaton over `strings`.
    fn index(&mut self) {
        let scan = self;
        let mut window_ids: HashMap<&[u8], usize> = HashMap::new();
        for (id, &(string, _)) in scan.strings.iter().enumerate() {
            let window = &string.as_bytes()[..string.len().min(WINDOW)];
            let w = *window_ids.entry(window).or_insert_with(|| {
                scan.windows.push(window);
                scan.whole_of.push(None);
                scan.longer.push(Trie::default());
                scan.windows.len() - 1
            });
            if window.len() == string.len() {
                scan.whole_of[w] = Some(id);
            } else {
                scan.longer[w].insert(id, &scan.strings);
            }
        }
        scan.long = scan.longer.iter().any(|l| !l.nodes.is_empty());
        if !scan.windows.is_empty() {
            tally(|w| w.built += scan.windows.iter().map(|w| w.len() as u64).sum::<u64>());
            scan.automaton = NFA::new(&scan.windows).ok();
        }
    }

    /// Marks with `i + 1` each candidate string found in what call `i` may
    /// draw on: every rendering of its `data` (less the reserved key) and
    /// of what else it may draw on, each string in them, and its id, as
    /// one text.
    fn mark_allowed(&self, i: usize, marks: &mut [usize]) {
        let call = &self.case.calls[i];
        let own_error = call.result.get("success") == Some(&Value::Bool(true))
            || !self.mode.failed_error_allowed();
        let mut text = Text::new(self);
        allowed_of(call, own_error, &mut |v| {
            text.write(|out| {
                wire::write_sorted(out, v);
                out.push(Text::BETWEEN);
                wire::write_value(out, v);
                out.push(Text::BETWEEN);
            });
            strings(v, &mut |s| {
                text.write(|out| {
                    out.extend_from_slice(s.as_bytes());
                    out.push(Text::BETWEEN);
                });
            });
        });
        text.feed(&call.tool_call_id);
        for s in text.found() {
            marks[s] = i + 1;
        }
    }

    /// Call `i`'s leaks: each candidate string in `content` not marked
    /// with `i + 1` by [`LeakScan::mark_allowed`], once, in the order the
    /// candidates were first met, with where it was first met. What the
    /// call may draw on is read only when `content` holds a string met
    /// outside the call's own `data`: a prose drawn from that `data` alone,
    /// the usual one, has nothing to be excused, and is the only text read,
    /// however large the `data`.
    fn leaks(&self, i: usize, content: &str, allowed: &mut [usize]) -> Vec<(&'c str, &str)> {
        let mut text = Text::new(self);
        text.read(content.as_bytes());
        let mut found: Vec<usize> = text
            .found()
            .into_iter()
            .filter(|&s| self.own[s] != Some(i))
            .collect();
        if found.is_empty() {
            return Vec::new();
        }
        self.mark_allowed(i, allowed);
        found.retain(|&s| allowed[s] != i + 1);
        found.sort_unstable();
        found.dedup();
        found
            .into_iter()
            .map(|s| {
                let (string, place) = self.strings[s];
                (string, self.places[place].as_str())
            })
            .collect()
    }
}

/// How many bytes of each candidate the leak scan's automaton holds: a
/// longer candidate is found where its first `WINDOW` bytes are, then
/// compared there in place. An automaton costs some tens of bytes for each
/// byte it holds, so one over whole candidates took 2 GB for a single 32 MB
/// string; over windows it holds at most `WINDOW` bytes a candidate.
const WINDOW: usize = 64;

/// One text the leak scan reads, fed in pieces.
struct Text<'s, 'c> {
    scan: &'s LeakScan<'c>,
    /// Where the automaton is, and where it starts.
    state: Option<StateID>,
    start: Option<StateID>,
    /// Pieces not read yet: many small ones are read as one. Where some
    /// candidate is longer than its window, the whole text waits here, so
    /// that a candidate can be compared where its window is found.
    pending: Vec<u8>,
    /// The match states met, each read once, and the strings they found.
    seen: HashSet<StateID>,
    found: Vec<usize>,
    /// Each window met with candidates longer than it: those not found
    /// yet in this text (each is found once), and how far each agreed
    /// where the window was last met.
    groups: Vec<Group>,
    /// The group of the window of `WINDOW` bytes that ends in a match
    /// state, if one does and has longer candidates: found once a state,
    /// then looked up.
    long_at: HashMap<StateID, Option<usize>>,
    /// The last match state met and its entry in `long_at`: a text that
    /// repeats meets the same one again and again.
    last: Option<(StateID, Option<usize>)>,
    /// The whole text, kept only when there is no automaton.
    whole: Vec<u8>,
}

impl<'s, 'c> Text<'s, 'c> {
    /// How much of a text is read at once.
    const CHUNK: usize = 65_536;

    /// What parts two pieces of a text (two renderings, two strings): a
    /// byte no UTF-8 string holds, so no candidate is found across two
    /// pieces, each of which the call may draw on, but not the two as one.
    const BETWEEN: u8 = 0xFF;

    fn new(scan: &'s LeakScan<'c>) -> Text<'s, 'c> {
        let state = scan
            .automaton
            .as_ref()
            .and_then(|a| a.start_state(Anchored::No).ok());
        Text {
            scan,
            state,
            start: state,
            pending: Vec::new(),
            seen: HashSet::new(),
            found: Vec::new(),
            groups: Vec::new(),
            long_at: HashMap::new(),
            last: None,
            whole: Vec::new(),
        }
    }

    fn feed(&mut self, piece: &str) {
        self.write(|out| out.extend_from_slice(piece.as_bytes()));
    }

    /// Feeds what `write` appends, written straight where pieces wait.
    fn write(&mut self, write: impl FnOnce(&mut Vec<u8>)) {
        write(&mut self.pending);
        if self.pending.len() >= Self::CHUNK && !self.scan.long {
            self.read_pending();
        }
    }

    fn read_pending(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        self.read(&pending);
        self.pending = pending;
        self.pending.clear();
    }

    /// Reads the next bytes of the text, which end where a piece ends (and
    /// are the whole text, if a candidate is longer than its window).
    fn read(&mut self, bytes: &[u8]) {
        tally(|w| w.scanned += bytes.len() as u64);
        let (Some(automaton), Some(mut state)) = (&self.scan.automaton, self.state) else {
            return self.whole.extend_from_slice(bytes);
        };
        // Where no candidate can start, the automaton's prefilter skips
        // ahead (memchr and the like), to the end of what is read if none
        // can: no match runs from one piece into the next, which
        // [`Text::BETWEEN`] parts.
        let prefilter = automaton.prefilter();
        // Each turn reads one byte, so the loop ends; the prefilter only
        // moves the start of what is left forward.
        let mut rest = 0..bytes.len();
        loop {
            if let Some(prefilter) = prefilter.filter(|_| Some(state) == self.start) {
                match prefilter
                    .find_in(bytes, Span::from(rest.clone()))
                    .into_option()
                {
                    Some(next) => rest.start = next,
                    None => break,
                }
            }
            let Some(at) = rest.next() else { break };
            state = automaton.next_state(Anchored::No, state, bytes[at]);
            if !automaton.is_match(state) {
                continue;
            }
            // A state holds every window that ends where it is, overlaps
            // included, so reading each once finds every candidate that is
            // its window whole.
            if self.seen.insert(state) {
                let scan = self.scan;
                self.found.extend(
                    (0..automaton.match_len(state)).filter_map(|m| {
                        scan.whole_of[automaton.match_pattern(state, m).as_usize()]
                    }),
                );
            }
            if !self.scan.long {
                continue;
            }
            // A longer candidate is compared wherever its window is: at most
            // one window of `WINDOW` bytes ends here, and only such a window
            // has longer candidates (a shorter one is a candidate whole).
            let group = match self.last.filter(|&(last, _)| last == state) {
                Some((_, group)) => group,
                None => {
                    let (scan, groups) = (self.scan, &mut self.groups);
                    let group = *self.long_at.entry(state).or_insert_with(|| {
                        let w = (0..automaton.match_len(state))
                            .map(|m| automaton.match_pattern(state, m).as_usize())
                            .find(|&w| !scan.longer[w].nodes.is_empty())?;
                        groups.push(Group::new(w, &scan.longer[w]));
                        Some(groups.len() - 1)
                    });
                    self.last = Some((state, group));
                    group
                }
            };
            if let Some(group) = group {
                self.compare(group, bytes, at + 1 - WINDOW);
            }
        }
        self.state = Some(state);
    }

    /// Walks the trie of `group`'s window along `text` where the window
    /// starts, `at`, finding each candidate the text holds there.
    ///
    /// Walking from the window afresh at each place would read the text
    /// again and again where it repeats: `n` candidates that share a long
    /// prefix with a text that repeats it meet their window at every
    /// period. So each window remembers where it was last met and the path
    /// its walk took. Where the text from here on repeats what it held one
    /// step back (the step between the two places), over as far as the
    /// walk went, the walk would go the same way and find nothing new:
    /// nothing is read but that repeat, checked once for the whole text.
    /// Where the repeat breaks, `j` bytes on, the walk goes the same way
    /// for `j` bytes, and goes on from there, in the node that holds byte
    /// `j`. A trie, not a list: the candidates that agree with the text
    /// for `j` bytes are those below one node, so what is looked at is the
    /// path, not every candidate (`n` candidates of a window and a text
    /// that meets it `m` times, its repeat broken at each meeting, cost
    /// `n·m` with a list).
    ///
    /// Worked example: candidates `W+"ab"` and `W+"ac"` (W the window) are
    /// a root edge `"a"` with children `b` and `c`; a text `W+"ax"+W+"ac"`
    /// walks `a` then stops at `x`, then at the second meeting repeats `a`
    /// (one byte of repeat, checked), resumes in the root edge after it,
    /// takes child `c` and finds `W+"ac"`.
    fn compare(&mut self, group: usize, text: &[u8], at: usize) {
        let (strings, group) = (&self.scan.strings, &mut self.groups[group]);
        let trie = &self.scan.longer[group.window];
        if group.left == 0 {
            return;
        }
        let j = match group.at.replace(at) {
            None => 0,
            Some(before) => {
                // From where it was checked to, the text is checked on to
                // where it stops repeating what it held a step back, each
                // byte once: a repeat found for one step holds for the next
                // step too. Between two meetings at other steps it reaches
                // no further than the window met: were it to reach past it,
                // the window would also occur a step back, between two
                // meetings, a meeting of its own.
                let from = group.repeats_to.max(at);
                let step_back = from - (at - before);
                let to = from + common_prefix(&text[from..], &text[step_back..]);
                group.repeats_to = to;
                // The walk goes as before, where the repeat goes past the
                // byte it stopped at.
                if to > at + group.reach {
                    return;
                }
                to - at
            }
        };
        // The walk as far as the text repeats it: the root, and the nodes
        // it passed that start before byte `j` (one that starts at `j` was
        // taken for the byte there, which the text no longer holds).
        let mut depth = j.max(WINDOW);
        let kept = group
            .path
            .partition_point(|&node| trie.nodes[node].start < depth);
        group.path.truncate(kept.max(1));
        let text = &text[at..];
        // Each turn but the last goes down to a child, which holds a byte
        // of the text at least: at most one turn a byte.
        for _ in 0..=text.len() {
            let node = *group.path.last().expect("the root at least");
            let Node { end, string, .. } = trie.nodes[node];
            let edge = strings[string].0.as_bytes().get(depth..end).unwrap_or(&[]);
            depth += common_prefix(edge, text.get(depth..).unwrap_or(&[]));
            if depth < end {
                break;
            }
            if trie.nodes[node].whole && !std::mem::replace(&mut group.found[node], true) {
                self.found.push(string);
                group.left -= 1;
            }
            let Some(&byte) = text.get(depth) else { break };
            let Some(child) = trie.child(node, byte) else {
                break;
            };
            group.path.push(child);
        }
        group.reach = depth;
    }

    /// The candidate strings found in the text (in no order, maybe twice).
    fn found(mut self) -> Vec<usize> {
        self.read_pending();
        if self.state.is_some() {
            return self.found;
        }
        (0..self.scan.strings.len())
            .filter(|&s| {
                memchr::memmem::find(&self.whole, self.scan.strings[s].0.as_bytes()).is_some()
            })
            .collect()
    }
}

/// The candidates of one window longer than it, as a trie over their
/// bytes after the window: each node an edge of bytes, read from one of the
/// candidates it leads to (`string`, from `start` to `end`), and its
/// children by their first byte. Built one candidate at a time, each read
/// once: linear in their bytes, whatever they share.
#[derive(Default)]
struct Trie {
    /// The root (all of them, from the window's end) first.
    nodes: Vec<Node>,
}

/// One edge of a [`Trie`].
#[derive(Clone)]
struct Node {
    /// Where the edge starts and ends in `string`'s bytes.
    start: usize,
    end: usize,
    /// A candidate the edge is part of; the one it ends, when `whole`.
    string: usize,
    /// Whether a candidate ends where the edge does.
    whole: bool,
    /// The children, by the first byte of each, in order.
    children: Vec<(u8, usize)>,
}

impl Trie {
    /// Adds candidate `s` of `strings`, which starts with the window.
    fn insert(&mut self, s: usize, strings: &[(&str, usize)]) {
        let bytes = strings[s].0.as_bytes();
        let leaf = |start: usize| Node {
            start,
            end: bytes.len(),
            string: s,
            whole: true,
            children: Vec::new(),
        };
        if self.nodes.is_empty() {
            self.nodes.push(leaf(WINDOW));
            return;
        }
        let (mut node, mut depth) = (0, WINDOW);
        // Each turn but the last goes down to a child, which holds a byte
        // of the candidate at least: at most one turn a byte.
        for _ in 0..=bytes.len() {
            let Node { end, string, .. } = self.nodes[node];
            let edge = &strings[string].0.as_bytes()[depth..end];
            depth += common_prefix(edge, &bytes[depth..]);
            if depth < end {
                // The candidate leaves the edge (or ends) inside it: the
                // edge splits there, its rest a child of its own.
                let mut rest = self.nodes[node].clone();
                rest.start = depth;
                let rest_at = self.nodes.len();
                let first = strings[string].0.as_bytes()[depth];
                self.nodes.push(rest);
                let cut = &mut self.nodes[node];
                cut.end = depth;
                cut.whole = depth == bytes.len();
                cut.string = s;
                cut.children = vec![(first, rest_at)];
                if depth < bytes.len() {
                    self.add_child(node, bytes[depth], leaf(depth));
                }
                return;
            }
            if depth == bytes.len() {
                let ends = &mut self.nodes[node];
                ends.whole = true;
                ends.string = s;
                return;
            }
            match self.child(node, bytes[depth]) {
                Some(child) => node = child,
                None => return self.add_child(node, bytes[depth], leaf(depth)),
            }
        }
    }

    /// The child of `node` whose edge starts with `byte`.
    fn child(&self, node: usize, byte: u8) -> Option<usize> {
        let children = &self.nodes[node].children;
        let at = children.binary_search_by_key(&byte, |&(b, _)| b).ok()?;
        Some(children[at].1)
    }

    fn add_child(&mut self, node: usize, byte: u8, child: Node) {
        let at = self.nodes.len();
        self.nodes.push(child);
        let children = &mut self.nodes[node].children;
        let i = children.partition_point(|&(b, _)| b < byte);
        children.insert(i, (byte, at));
    }
}

/// A window met in a text: its trie's nodes found in this text (each
/// candidate is found once), and where the window was last met and the
/// path its walk took there ([`Text::compare`]).
struct Group {
    /// The window, in [`LeakScan::longer`].
    window: usize,
    /// For each node of the trie, whether its candidate was found.
    found: Vec<bool>,
    /// How many of the window's candidates are not found yet.
    left: usize,
    /// Where the window was last met, once it was.
    at: Option<usize>,
    /// From `at` up to here, each byte of the text is the one the step
    /// between the last two meetings before it.
    repeats_to: usize,
    /// The nodes the last walk passed, from the root.
    path: Vec<usize>,
    /// Where the last walk stopped, from `at`: no candidate agreed with
    /// the text further.
    reach: usize,
}

impl Group {
    /// The window `window`, with trie `trie`, not met yet.
    fn new(window: usize, trie: &Trie) -> Group {
        Group {
            window,
            found: vec![false; trie.nodes.len()],
            left: trie.nodes.iter().filter(|n| n.whole).count(),
            at: None,
            repeats_to: 0,
            path: vec![0],
            reach: 0,
        }
    }
}

/// How many bytes `a` and `b` share at their start, each counted as a
/// byte the leak scan read.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let same = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    tally(|work| work.scanned += same as u64);
    same
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

/// Where a result holds artifact entries.
#[derive(Clone, Copy)]
pub(crate) enum Holder {
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
pub(crate) fn candidate_entries(result: &Value) -> Vec<(Holder, usize, &Value)> {
    fn of<'v>(place: Holder, v: Option<&'v Value>, out: &mut Vec<(Holder, usize, &'v Value)>) {
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
    of(Holder::Artifacts, result.get("artifacts"), &mut out);
    let reserved = result
        .get("data")
        .filter(|d| d.is_object())
        .and_then(|d| d.get(model::RESERVED_KEY));
    of(Holder::Reserved, reserved, &mut out);
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
fn string_values<'v>(v: &'v Value, f: &mut impl FnMut(&'v str)) {
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
    /// double (`0.1` observed as `0.1000000000000000055511151231257827`, a
    /// 40-digit integer with its last digits lost). A number no finite
    /// double holds (`1e400`) rounds to none: observed as `null` (what
    /// JavaScript's `JSON.stringify` prints for infinity), or as anything
    /// but itself, it is [`Eq::Different`].
    Lossy,
    /// Different.
    Different,
}

/// Compares two JSON values as JSON (see [`enum@Eq`]).
pub fn json_eq(expected: &Value, observed: &Value) -> Eq {
    tally(|w| w.compared += 1);
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
        // The same digits need no working out of their value.
        (Value::Number(a), Value::Number(b))
            if a == b || decimal(&a.to_string()) == decimal(&b.to_string()) =>
        {
            Eq::Same
        }
        (Value::Number(a), Value::Number(b)) if double(a).is_some() && double(a) == double(b) => {
            Eq::Lossy
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .fold(Eq::Same, |acc, (x, y)| both(acc, json_eq(x, y))),
        // The same keys in the same order, as one writer writes both, are
        // paired in place, without looking each up.
        (Value::Object(a), Value::Object(b)) if a.keys().eq(b.keys()) => a
            .values()
            .zip(b.values())
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

/// Where `observed` is `expected` with something else in place of a number
/// no finite IEEE double holds (`null` for `1e400`, say), when that is all
/// that differs (numbers elsewhere compared as [`json_eq`] does): the JSON
/// pointer of the first such place. `None` when nothing was put in place of
/// such a number, or when anything else differs too.
pub fn unencodable_replaced(expected: &Value, observed: &Value) -> Option<String> {
    /// How two values compare, unencodable numbers aside.
    enum Alike {
        Same,
        /// Alike but for what stands in place of unencodable numbers, the
        /// first at this pointer.
        Replaced(String),
        Different,
    }
    fn walk(expected: &Value, observed: &Value) -> Alike {
        tally(|w| w.compared += 1);
        let at =
            |k: &str, rest: String| format!("/{}{rest}", k.replace('~', "~0").replace('/', "~1"));
        // The first replaced place of a run of member comparisons, or
        // `Different` as soon as one differs.
        let fold = |pairs: &mut dyn Iterator<Item = (String, Option<(&Value, &Value)>)>| {
            let mut first = None;
            for (k, pair) in pairs {
                match pair.map(|(x, y)| walk(x, y)) {
                    Some(Alike::Same) => {}
                    Some(Alike::Replaced(rest)) => {
                        first.get_or_insert_with(|| at(&k, rest));
                    }
                    Some(Alike::Different) | None => return Alike::Different,
                }
            }
            first.map_or(Alike::Same, Alike::Replaced)
        };
        match (expected, observed) {
            (Value::Number(n), _) if n.as_f64().is_none() => match json_eq(expected, observed) {
                Eq::Different => Alike::Replaced(String::new()),
                _ => Alike::Same,
            },
            (Value::Array(a), Value::Array(b)) if a.len() == b.len() => fold(
                &mut a
                    .iter()
                    .zip(b)
                    .enumerate()
                    .map(|(i, (x, y))| (i.to_string(), Some((x, y)))),
            ),
            (Value::Object(a), Value::Object(b)) if a.len() == b.len() => {
                fold(&mut a.iter().map(|(k, x)| (k.clone(), b.get(k).map(|y| (x, y)))))
            }
            _ => match json_eq(expected, observed) {
                Eq::Different => Alike::Different,
                _ => Alike::Same,
            },
        }
    }
    match walk(expected, observed) {
        Alike::Replaced(at) => Some(at),
        Alike::Same | Alike::Different => None,
    }
}

/// The JSON pointer of the first place two values differ (`""` for the
/// whole value), if they do.
pub fn first_difference(expected: &Value, observed: &Value) -> Option<String> {
    let at = |k: &str, rest: String| {
        format!(
            "/{}{rest}",
            k.replace('~', "~0").replace('/', "~1").escape_debug()
        )
    };
    // One walk down both values: each pair of values is compared once.
    match (expected, observed) {
        (Value::Object(a), Value::Object(b)) => {
            let keys = a.keys().chain(b.keys().filter(|k| !a.contains_key(*k)));
            for k in keys {
                match (a.get(k), b.get(k)) {
                    (Some(x), Some(y)) => {
                        if let Some(rest) = first_difference(x, y) {
                            return Some(at(k, rest));
                        }
                    }
                    _ => return Some(at(k, String::new())),
                }
            }
            None
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(i, (x, y))| Some(at(&i.to_string(), first_difference(x, y)?))),
        _ => (json_eq(expected, observed) == Eq::Different).then(String::new),
    }
}

/// Compares two lists of JSON values as multisets.
pub fn same_multiset(a: &[Value], b: &[Value]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut index: HashMap<u64, Bucket> = HashMap::new();
    for (i, y) in b.iter().enumerate() {
        index.entry(json_hash(y)).or_default().items.push(i);
    }
    let mut used = vec![false; b.len()];
    a.iter().all(|x| {
        let found = index
            .get_mut(&json_hash(x))
            .and_then(|bucket| bucket.first(Some(&used), |i| json_eq(x, &b[i]) != Eq::Different));
        found.map(|i| used[i] = true).is_some()
    })
}

/// A hash of a JSON value that agrees with [`json_eq`]: two values it does
/// not call [`Eq::Different`] hash alike. Numbers hash by the IEEE double
/// they round to (so `1`, `1.0` and `1e0`, and two numbers equal once
/// rounded, hash alike), every number no finite double holds hashes alike
/// (as a kind of its own, not as `null`, which [`json_eq`] never takes for
/// one), and an object's members hash in any order. Values that differ only
/// in such numbers share a hash; [`json_eq`] tells them apart.
///
/// The hasher is foldhash's, seeded at random once for the process (the
/// same seed for every map, so a payload hashes alike in each). No input
/// can be built beforehand to collide, since the seed is never known
/// outside; SipHash (std's default, with its fixed public keys) cost three
/// times as much, and payloads are hashed whole.
fn json_hash(v: &Value) -> u64 {
    type Seeded = foldhash::quality::FoldHasher<'static>;
    static SEED: std::sync::LazyLock<foldhash::quality::RandomState> =
        std::sync::LazyLock::new(foldhash::quality::RandomState::default);
    fn seeded() -> Seeded {
        SEED.build_hasher()
    }
    fn feed(v: &Value, h: &mut Seeded) {
        tally(|w| w.hashed += 1);
        match v {
            Value::Null => 0u8.hash(h),
            Value::Number(n) => match n.as_f64() {
                // -0.0 == 0.0: one hash for both.
                Some(f) => (1u8, if f == 0.0 { 0 } else { f.to_bits() }).hash(h),
                None => 6u8.hash(h),
            },
            Value::Bool(b) => (2u8, b).hash(h),
            Value::String(s) => (3u8, s).hash(h),
            Value::Array(a) => {
                (4u8, a.len()).hash(h);
                a.iter().for_each(|x| feed(x, h));
            }
            Value::Object(o) => {
                // Each member hashed alone, the hashes summed: key order
                // does not count.
                let members = o.iter().fold(0u64, |sum, (k, x)| {
                    let mut m = seeded();
                    k.hash(&mut m);
                    feed(x, &mut m);
                    sum.wrapping_add(m.finish())
                });
                (5u8, o.len(), members).hash(h);
            }
        }
    }
    let mut h = seeded();
    feed(v, &mut h);
    h.finish()
}

/// The work the judge did on this thread, counted in steps whose number
/// depends only on its input, never on the machine: JSON values compared by
/// [`json_eq`] and hashed for an index (nested ones included), bytes read
/// by the leak scan, and bytes its automaton was built over. A judge whose work grows with the square of its input
/// is one a hostile outcome can stall; `tests/model/complexity.rs` counts these to
/// show it grows with the input. Counting costs an add per step.
#[derive(Clone, Copy, Debug, Default, PartialEq, std::cmp::Eq)]
pub struct Work {
    /// Pairs of JSON values compared by [`json_eq`], nested pairs included.
    pub compared: u64,
    /// JSON values hashed to look one up in an index, nested ones included.
    pub hashed: u64,
    /// Bytes of prose, and of what the prose may draw on, the leak scan read.
    pub scanned: u64,
    /// Entries of an index looked at to find an artifact in it.
    pub visited: u64,
    /// Bytes of candidate strings the leak scan's automaton was built over.
    pub built: u64,
}

impl Work {
    /// Runs `f`, and returns what it returned and the judge's work during
    /// it on this thread.
    pub fn of<R>(f: impl FnOnce() -> R) -> (R, Work) {
        let before = WORK.with(Cell::get);
        let r = f();
        let after = WORK.with(Cell::get);
        (
            r,
            Work {
                compared: after.compared - before.compared,
                hashed: after.hashed - before.hashed,
                scanned: after.scanned - before.scanned,
                visited: after.visited - before.visited,
                built: after.built - before.built,
            },
        )
    }

    /// Every step, of every kind.
    pub fn total(self) -> u64 {
        self.compared + self.hashed + self.scanned + self.visited + self.built
    }
}

thread_local! {
    static WORK: Cell<Work> = const {
        Cell::new(Work {
            compared: 0,
            hashed: 0,
            scanned: 0,
            visited: 0,
            built: 0,
        })
    };
}

/// Counts a step of work on this thread.
fn tally(step: impl FnOnce(&mut Work)) {
    WORK.with(|w| {
        let mut work = w.get();
        step(&mut work);
        w.set(work);
    });
}
