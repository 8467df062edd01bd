//! The reports a team publishes, or its CI reads, from a run: JUnit XML for
//! test panels ([`junit`]), the standing as one self-contained web page and
//! one page comparing implementations ([`html`]), and the endpoint JSON of a
//! badge ([`badge`]).
//!
//! Nothing here judges. Every report is built from a [`Run`]: the
//! [`Standing`] of the run as its JSON reads back (what `diff --json` and
//! `merge --json` print under `standing`), with the pinned vectors' results
//! and the fault that broke the process, if one did. So `diff --html` and
//! `rt-tool-3 report` over that run's `--json` say the same, and `merge` of
//! shards gives what one unsharded run gives, as the standing does.
//!
//! RT-TOOL-6: "A payload is untrusted tool and model output: a consumer
//! must treat every value in it as plain text and escape it on output."
//! Every id, type, payload, prose, message and implementation name reaches
//! a report through [`crate::escape`] and nothing else.

pub mod badge;
pub mod html;
pub mod junit;

use serde::Deserialize;
use serde_json::Value;

use crate::diff::{Campaign, Phase, Report, ShrinkEnd, VectorsRun};
pub use crate::escape::{markup, markup_attr};
use crate::judge::Clause;
use crate::standing::{Standing, Status};

/// A standing as its JSON reads back: what every report is built from.
#[derive(Clone, Debug, Deserialize)]
pub struct Said {
    /// The rule: `RT-TOOL-3`.
    pub rule: String,
    /// The specification version.
    pub spec_version: String,
    /// The specification's hash of the rule's text.
    pub rule_hash: String,
    /// The oracle and its version.
    pub oracle: String,
    /// What the implementation announced (its `start` reply).
    #[serde(deserialize_with = "crate::wire::value")]
    pub implementation: Value,
    /// The reading of ¶3.
    pub reading: String,
    /// Whether the reference order of `tool_artifacts` was demanded.
    pub strict_order: bool,
    /// The seed of the generated cases.
    pub seed: u64,
    /// The campaign judged.
    pub campaign: Campaign,
    /// Cases judged.
    pub cases: u64,
    /// Requests sent.
    pub requests: u64,
    /// Pinned vectors run.
    pub vectors_run: u64,
    /// Of those, the ones that passed.
    pub vectors_passed: u64,
    /// The ones the implementation skipped.
    #[serde(default)]
    pub vectors_skipped: Vec<String>,
    /// Whether the whole run was judged.
    pub complete: bool,
    /// The fault that ended the run, if one did.
    #[serde(default)]
    pub fault: Option<String>,
    /// Its code.
    #[serde(default)]
    pub fault_code: Option<String>,
    /// When it broke: at `start`, during the run or at `stop`.
    #[serde(default)]
    pub fault_phase: Option<Phase>,
    /// Clause by clause.
    pub clauses: Vec<ClauseSaid>,
    /// The first case the implementation errored on though it owed an
    /// outcome.
    #[serde(default)]
    pub errored: Option<Example>,
    /// The command that runs the campaign again.
    pub reproduce: String,
}

/// One clause's line of a standing, read back.
#[derive(Clone, Debug, Deserialize)]
pub struct ClauseSaid {
    /// The clause.
    pub clause: Clause,
    /// What it asks.
    pub title: String,
    /// Met, not met, not exercised or not shown.
    pub status: Status,
    /// Judged cases that bore on it.
    pub cases: u64,
    /// Skipped cases that bore on it.
    #[serde(default)]
    pub skipped: u64,
    /// The minimal counterexample, when not met.
    #[serde(default)]
    pub counterexample: Option<Example>,
}

/// A counterexample, read back.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Example {
    /// The judge's sentences.
    pub reason: Vec<String>,
    /// Their codes, in the same order (empty where a sentence is no
    /// violation, and in a report of an oracle before codes).
    #[serde(default)]
    pub codes: Vec<String>,
    /// The minimal case.
    #[serde(deserialize_with = "crate::wire::value")]
    pub case: Value,
    /// The reference outcome.
    #[serde(deserialize_with = "crate::wire::value")]
    pub expected: Value,
    /// What the implementation answered.
    #[serde(deserialize_with = "crate::wire::value")]
    pub observed: Value,
    /// When a sibling of the case showed it: which, as sent, and its run.
    #[serde(default)]
    pub sibling: Option<SiblingExample>,
    /// How shrinking the case ended (`minimal` in a report of an oracle
    /// that had no time budget).
    #[serde(default)]
    pub shrink_end: ShrinkEnd,
}

/// A sibling's run, read back.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct SiblingExample {
    /// Which sibling.
    pub name: String,
    /// What it changes from the case.
    pub what: String,
    /// The sibling as sent.
    #[serde(deserialize_with = "crate::wire::value")]
    pub case: Value,
    /// Its reference outcome.
    #[serde(deserialize_with = "crate::wire::value")]
    pub expected: Value,
    /// What came back to it.
    #[serde(deserialize_with = "crate::wire::value")]
    pub observed: Value,
}

impl Example {
    /// The distinct codes of its findings, in their order:
    /// `unknown-call-id, missing-artifact`.
    pub fn codes_text(&self) -> String {
        crate::standing::distinct_codes(&self.codes).join(", ")
    }
}

/// One pinned conformance vector in a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Pinned {
    /// `vector 3 (name)`, as `diff` names it.
    pub name: String,
    /// What became of it.
    pub result: PinnedResult,
    /// When it diverged and showed a clause no earlier case had: its
    /// sentences, case, expected and observed outcome.
    pub example: Option<Example>,
    /// When it diverged: the distinct codes of its findings (`errored` for
    /// an error owed an outcome; none in a report of an oracle before them).
    pub codes: Vec<String>,
}

/// What became of a pinned vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PinnedResult {
    /// Run, and the implementation agreed.
    Passed,
    /// Run, and it diverged.
    Failed,
    /// Run, and the implementation skipped it: not passed.
    Skipped,
    /// Not judged: the run ended on a fault first (or, with several copies
    /// at once, which ran is not known).
    NotJudged,
}

/// A run as the reports show it.
#[derive(Clone, Debug)]
pub struct Run {
    /// Its standing.
    pub said: Said,
    /// Each pinned vector of the run's share of the campaign.
    pub vectors: Vec<Pinned>,
    /// When the implementation's process broke (exit 2): how, in one line.
    pub broken: Option<String>,
    /// And its code, one of [`crate::code::PROCESS_FAULTS`] (none in a
    /// report of an oracle before codes).
    pub broken_code: Option<String>,
    /// The case it broke on, when it broke on one.
    pub broken_case: Option<Value>,
}

impl Run {
    /// The run of `report`, whose standing is `standing`.
    pub fn of(report: &Report, standing: &Standing) -> Result<Run, String> {
        // Read back from its text, as a report file is: a tree read back
        // as a deserializer would lose what `wire::value` keeps.
        // Within the oracle's nesting bound, as every document is read:
        // serde_json's own stops at 128, and a counterexample nests deeper.
        let text =
            serde_json::to_vec(standing).map_err(|e| format!("cannot encode the standing: {e}"))?;
        let said: Said =
            crate::wire::parse(&text).map_err(|e| format!("cannot encode the standing: {e}"))?;
        let case = report
            .fault
            .as_ref()
            .and_then(|f| f.case.as_ref())
            .and_then(|c| serde_json::to_value(c).ok());
        let mut run = Run::read_back(said, &report.vectors, case);
        for v in &mut run.vectors {
            let found = report
                .divergences
                .iter()
                .find(|d| d.origin == v.name)
                .and_then(|d| d.found.first());
            v.example = found.map(|x| Example {
                reason: x
                    .violations
                    .iter()
                    .map(|v| crate::wire::shown_lone(&v.message).into_owned())
                    .collect(),
                codes: x
                    .violations
                    .iter()
                    .map(|v| v.code.name().to_owned())
                    .collect(),
                case: serde_json::to_value(&x.case).unwrap_or_default(),
                expected: serde_json::to_value(&x.expected).unwrap_or_default(),
                observed: x.observed.clone(),
                sibling: x.sibling.as_ref().map(|s| SiblingExample {
                    name: s.name.clone(),
                    what: s.what.clone(),
                    case: serde_json::to_value(&s.case).unwrap_or_default(),
                    expected: serde_json::to_value(&s.expected).unwrap_or_default(),
                    observed: s.observed.clone(),
                }),
                // A pinned vector's own case, shown as it is (`case`): no
                // note of how far shrinking went.
                shrink_end: ShrinkEnd::Minimal,
            });
        }
        Ok(run)
    }

    /// Reads one `--json` report of `diff` or `merge` named `name`, as
    /// `rt-tool-3 report` takes them; or says in one line why it cannot.
    pub fn read(name: &str, bytes: &[u8]) -> Result<Run, String> {
        #[derive(Deserialize)]
        struct Fault {
            #[serde(default, deserialize_with = "crate::wire::value")]
            case: Value,
        }
        #[derive(Deserialize)]
        struct Json {
            standing: Said,
            vectors: VectorsRun,
            fault: Option<Fault>,
        }
        // A lone surrogate a reply held, as this process marks one; within
        // the oracle's nesting bound, as every document is read.
        let marked = crate::wire::with_lone_surrogates_marked(bytes);
        let bytes = marked.as_deref().unwrap_or(bytes);
        let json: Json = crate::wire::parse(bytes).map_err(|e| {
            format!("{name} is not the --json report of a diff or merge run of this oracle: {e}")
        })?;
        let case = json.fault.map(|f| f.case).filter(|c| !c.is_null());
        Ok(Run::read_back(json.standing, &json.vectors, case))
    }

    fn read_back(said: Said, vectors: &VectorsRun, broken_case: Option<Value>) -> Run {
        let (broken, broken_code) = (said.fault.clone(), said.fault_code.clone());
        let vectors = pinned(&said, vectors, broken.is_some());
        Run {
            said,
            vectors,
            broken,
            broken_code,
            broken_case,
        }
    }

    /// What the implementation announced under `key` (`name`, `version`,
    /// `language`), as text: a string as it is, another value as its JSON.
    pub fn announced(&self, key: &str) -> Option<String> {
        match self.said.implementation.get(key) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(crate::wire::shown_lone(s).into_owned()),
            Some(other) => Some(other.to_string()),
        }
    }

    /// What a run that broke says instead of a standing, in one sentence
    /// (see [`Phase::no_standing`]), its parts made safe by `escape`;
    /// `None` for a run that did not break.
    pub fn no_standing(&self, escape: impl Fn(&str) -> String) -> Option<String> {
        let why = self.broken.as_deref()?;
        let code = self.broken_code.as_deref().unwrap_or("process-fault");
        let phase = self.said.fault_phase.unwrap_or_default();
        Some(phase.no_standing(why, code, escape))
    }

    /// The implementation's name, version and language as one line.
    pub fn implementation(&self) -> String {
        let mut line = self
            .announced("name")
            .unwrap_or_else(|| "an unnamed implementation".into());
        if let Some(v) = self.announced("version") {
            line = format!("{line} {v}");
        }
        if let Some(l) = self.announced("language") {
            line = format!("{line} ({l})");
        }
        line
    }
}

/// The pinned vectors of a run's share of the campaign, each with what
/// became of it: the vectors are the first stream positions, so shard
/// `K/N` ran those at positions `K-1`, `K-1+N`, … A run that left them out
/// (`--no-vectors`) has none.
fn pinned(said: &Said, run: &VectorsRun, broken: bool) -> Vec<Pinned> {
    let all = crate::replay::pinned().unwrap_or_default();
    let shard = said.campaign.shard;
    let ours: Vec<_> = (0..)
        .map(|j| shard.position(j))
        .take_while(|&p| p < all.len() as u64)
        .collect();
    if run.run == 0 && run.failed_positions.is_empty() {
        return Vec::new();
    }
    let complete = run.run == ours.len() as u64 && !broken;
    ours.into_iter()
        .map(|p| {
            let name = all[p as usize].origin.clone();
            let failed = run.failed_positions.iter().position(|&f| f == p);
            let codes = failed
                .and_then(|i| run.failed_codes.get(i))
                .cloned()
                .unwrap_or_default();
            let result = if failed.is_some() {
                PinnedResult::Failed
            } else if run.skipped_positions.contains(&p) {
                PinnedResult::Skipped
            } else if complete {
                PinnedResult::Passed
            } else {
                PinnedResult::NotJudged
            };
            Pinned {
                name,
                result,
                example: None,
                codes,
            }
        })
        .collect()
}

/// A value as compact JSON for a reader, a lone surrogate the reply held
/// shown as its escape.
pub fn json(v: &Value) -> String {
    crate::wire::shown_lone(&v.to_string()).into_owned()
}

/// A value as indented JSON for a reader, a lone surrogate shown as its
/// escape.
pub fn json_pretty(v: &Value) -> String {
    let text = serde_json::to_string_pretty(v).unwrap_or_default();
    crate::wire::shown_lone(&text).into_owned()
}

/// The clause's short name for a column or a badge: `¶1` for a paragraph
/// of RT-TOOL-3, else its id.
pub fn short(clause: Clause) -> &'static str {
    match clause {
        Clause::KeyByKey => "¶1",
        Clause::NotExposedByDefault => "¶2",
        Clause::ProseFromData => "¶3",
        Clause::DeliveryRegardless => "¶4",
        other => other.id(),
    }
}

/// A fragment id for clause `clause` of run `row` of a page: made of
/// numbers, never of a name an implementation chose.
pub fn anchor(row: usize, clause: Option<Clause>) -> String {
    match clause {
        Some(c) => format!(
            "run{row}-c{}",
            Clause::ALL.iter().position(|x| *x == c).unwrap_or(0) + 1
        ),
        None => format!("run{row}-errored"),
    }
}
