//! The judge: holds one observed outcome to the rule, clause by clause.
//!
//! The judge is sans-IO like the model. It takes a valid [`Case`] and the JSON
//! an implementation produced for it, and returns the [`Violation`]s, each
//! with the clause it breaks and a sentence a person can act on. Each call is
//! judged on its own: the artifacts a call of RT-TOOL-1's shape keeps are
//! owed whatever its siblings returned (all of them within RT-TOOL-6's
//! floors, where each sibling's lenient pool counts at its largest, and all
//! a bound may not drop over them), while of a call of another shape only
//! the safety half is judged: exact keys, real call ids, nothing no call
//! produced, no leak, delivery independent of exposure (see
//! [`crate::model::of_rt_tool_1_shape`] and [`crate::model::zone`], which
//! says the same of the case as a whole). [`judge`] takes
//! the outcome parsed; [`judge_text`] takes its JSON text and judges it as
//! it reads it, holding no tree of it (what `check` runs, for outcomes of
//! any size), with the same findings.
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

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use crate::code::{Cite, Clause, Code, Place};
use crate::model::{self, Zone};
use crate::wire::{self, kind, Case, Held, Holds, Message, Outcome};

mod clauses;
mod findings;
mod index;
mod json;
mod leak;
mod observed;
mod pool;
mod port;
mod work;
mod written;

pub(crate) use crate::model::candidate_entries;
pub use crate::model::may_deliver;
pub use clauses::contents;
use clauses::Judge;
pub use findings::{Violation, Warning, SHOWN_HEAD, SHOWN_WHOLE};
pub use json::{first_difference, json_eq, same_multiset, unencodable_replaced, Eq};
pub(crate) use leak::strings;
pub use leak::{leak_candidates, LEAK_MIN_CHARS};
use observed::Reading;
pub use pool::lenient_pool;
use pool::Expected;
pub use work::Work;

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
    /// The case's zone, with its reasons, each naming its call (or saying
    /// what the run holds over RT-TOOL-6's floors). The outcome was judged
    /// call by call: a call the reasons do not name was judged in full.
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
pub fn judge<R: Holds>(
    case: &Case<R>,
    observed: &Value,
    options: Options,
) -> Result<Judgement, NotAnOutcome> {
    let case = &case.held();
    let messages: Vec<Message> = case.calls.iter().map(model::clause_3_prose).collect();
    let want = Wanted {
        messages: &messages,
        exposed: model::clause_2_not_exposed_by_default(case.exposed),
    };
    judge_wanted(case, model::zone(case), want, observed, options)
}

/// [`judge`], with the case's zone and its reference outcome
/// ([`model::outcome`]) already worked out: siblings that differ in the
/// exposure alone share the zone, and their reference outcomes differ only
/// in `exposed`. The reference gives the prose and the exposure; what may
/// land on the port is read from the case ([`model::may_land`]).
pub fn judge_against<R: Holds>(
    case: &Case<R>,
    zone: Zone,
    reference: &Outcome,
    observed: &Value,
    options: Options,
) -> Result<Judgement, NotAnOutcome> {
    let want = Wanted {
        messages: &reference.messages,
        exposed: reference.exposed,
    };
    judge_wanted(&case.held(), zone, want, observed, options)
}

/// What the judge holds an outcome's prose and exposure against, once the
/// port is read: the reference's messages and `exposed`. What the port is
/// matched against as it is read is what may land ([`model::may_land`]).
#[derive(Clone, Copy)]
struct Wanted<'r> {
    messages: &'r [Message],
    exposed: bool,
}

fn judge_wanted(
    case: &Case<Held<'_>>,
    zone: Zone,
    reference: Wanted<'_>,
    observed: &Value,
    options: Options,
) -> Result<Judgement, NotAnOutcome> {
    let Value::Object(observed) = observed else {
        return Err(NotAnOutcome(format!(
            "the outcome is {}, not an object",
            kind(observed)
        )));
    };
    let may_land: Vec<Expected<'_>> = model::may_land(case);
    let mut reading = Reading::new(Judge::new(case, options), &may_land);
    reading.members(observed);
    Ok(judgement(zone, reading.finish(reference)))
}

/// [`judge`], the outcome read from its JSON text rather than parsed
/// first: each entry of the port that lands as it should is let go as soon
/// as it is read, and so is the text once read, so an outcome costs about
/// what its prose and its wrong entries weigh, not a tree of all of it.
/// The same findings as [`judge`] on the outcome
/// [`wire::parse_reply`] reads (a lone surrogate
/// escape read, not refused); `Err` when the text is no JSON object, said
/// in one line.
pub fn judge_text<R: Holds>(
    case: &Case<R>,
    text: Vec<u8>,
    options: Options,
) -> Result<Judgement, NotAnOutcome> {
    let case = &case.held();
    // The reference outcome ([`model::reference`]) in two steps: what may
    // land, which the port is matched against as it is read, then, once
    // the text is let go, the prose, which is judged last (a prose as long
    // as its text would otherwise be held three times at once).
    let may_land: Vec<Expected<'_>> = model::may_land(case);
    let mut reading = Reading::new(Judge::new(case, options), &may_land);
    let read = match reading.text(&text) {
        Err(refused) => match wire::with_lone_surrogates_marked(&text) {
            Some(marked) => {
                reading = Reading::new(Judge::new(case, options), &may_land);
                reading.text(&marked).map_err(|_| refused)
            }
            None => Err(refused),
        },
        read => read,
    };
    drop(text);
    read.map_err(|refused| NotAnOutcome(refused.0))??;
    let messages: Vec<Message> = case.calls.iter().map(model::clause_3_prose).collect();
    let want = Wanted {
        messages: &messages,
        exposed: model::clause_2_not_exposed_by_default(case.exposed),
    };
    Ok(judgement(model::zone(case), reading.finish(want)))
}

fn judgement(zone: Zone, (judge, port): (Judge<'_>, std::ops::Range<usize>)) -> Judgement {
    Judgement {
        zone,
        violations: judge.violations,
        warnings: judge.warnings,
        port,
    }
}
