//! A standing to publish: what one `diff` run says of an implementation,
//! clause by clause.
//!
//! The specification "carries no implementation status: each implementation
//! publishes its own standing against these rules in its own
//! documentation". A [`Standing`] is that statement, worked out from a
//! [`Report`]: which rule, text and oracle; which implementation; how many
//! cases under which reading of ¶3; the pinned vectors passed; and for each
//! paragraph of RT-TOOL-3 and each neighbouring rule the oracle judges,
//! *met*, *not met* (with the minimal counterexample and its reason) or *not
//! exercised*, with how many judged cases bore on it. A run that ended on a
//! fault of the process claims nothing.

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

use crate::diff::{Phase, Report, ShrinkEnd, Vector};
use crate::escape::{fence, json_text, markdown};
use crate::judge::{self, Cite, Clause};
use crate::wire::Case;

pub use crate::tally::{bearing, Tally};

/// One clause's standing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Judged cases bore on it, and none broke it.
    Met,
    /// A case broke it.
    NotMet,
    /// No case bore on it.
    NotExercised,
    /// Only cases the implementation skipped bore on it: nothing shows it
    /// holds, and the run does not conform.
    NotShown,
}

impl Status {
    /// As a standing says it: `met`, `not met`, `not exercised`.
    pub fn text(self) -> &'static str {
        match self {
            Status::Met => "met",
            Status::NotMet => "not met",
            Status::NotExercised => "not exercised",
            Status::NotShown => "not shown",
        }
    }
}

/// The minimal case that broke a clause, and why.
#[derive(Clone, Debug, Serialize)]
pub struct Counterexample {
    /// What the judge said, one sentence per violation of the clause.
    pub reason: Vec<String>,
    /// The code of each of those (`src/codes.md`), in the same order; empty
    /// for a reason that is no violation (an `errored` reply).
    pub codes: Vec<String>,
    /// The minimal case, as sent.
    pub case: Case,
    /// The reference outcome of that case.
    pub expected: crate::wire::Outcome,
    /// What the implementation answered.
    pub observed: Value,
    /// When a sibling of the case showed it: which, as sent, and its run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sibling: Option<crate::diff::SiblingRun>,
    /// How shrinking the case ended: `minimal`, or the limit that stopped
    /// it first (the divergence's `shrink_end`).
    pub shrink_end: ShrinkEnd,
}

impl Counterexample {
    fn of(vector: &Vector, clause: Option<Clause>, shrink_end: ShrinkEnd) -> Counterexample {
        let (reason, codes): (Vec<String>, Vec<String>) = vector
            .violations
            .iter()
            .filter(|v| clause.is_none_or(|c| v.clause == c))
            .map(|v| (v.message.clone(), v.code.name().to_owned()))
            .unzip();
        let (reason, codes) = if reason.is_empty() {
            (vec![vector.description.clone()], vec![String::new()])
        } else {
            (reason, codes)
        };
        Counterexample {
            reason,
            codes,
            case: vector.case.clone(),
            expected: vector.expected.clone(),
            observed: vector.observed.clone(),
            sibling: vector.sibling.clone(),
            shrink_end,
        }
    }
}

/// One clause's line in a standing.
#[derive(Clone, Debug, Serialize)]
pub struct ClauseStanding {
    /// The clause, as the specification cites it.
    pub clause: Clause,
    /// The same, structured.
    pub cite: Cite,
    /// What it asks, in a few words.
    pub title: &'static str,
    /// Met, not met, not exercised, or not shown.
    pub status: Status,
    /// How many judged cases bore on it.
    pub cases: u64,
    /// How many cases the implementation skipped bore on it.
    pub skipped: u64,
    /// When not met: the minimal counterexample.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counterexample: Option<Counterexample>,
}

impl ClauseStanding {
    /// The judged cases that bore on it, and the skipped ones if any.
    pub fn cases_text(&self) -> String {
        cases_text(self.cases, self.skipped)
    }
}

/// `cases` judged and `skipped` skipped cases that bore on a clause, as a
/// standing's cell says it: `12`, `0 (74 skipped)`.
pub fn cases_text(cases: u64, skipped: u64) -> String {
    if skipped == 0 {
        cases.to_string()
    } else {
        format!("{cases} ({skipped} skipped)")
    }
}

/// What a run says of an implementation.
#[derive(Clone, Debug, Serialize)]
pub struct Standing {
    /// The rule, its text's hash and the oracle that judged.
    #[serde(flatten)]
    pub provenance: crate::Provenance,
    /// What the implementation says it is (its `start` reply).
    pub implementation: Value,
    /// The reading of ¶3 used: `data-only`, `letter` or `exact`.
    pub reading: judge::ProseMode,
    /// Whether the reference order of `tool_artifacts` was demanded.
    pub strict_order: bool,
    /// The seed of the generated cases.
    pub seed: u64,
    /// The campaign judged, or the shard of it.
    pub campaign: crate::diff::Campaign,
    /// Cases judged, the pinned vectors and replays included.
    pub cases: u64,
    /// Of those, the pinned vectors and replayed cases.
    pub replayed: u64,
    /// Requests sent, shrinking included.
    pub requests: u64,
    /// Pinned conformance vectors run.
    pub vectors_run: u64,
    /// Of those, the ones that passed: neither diverged nor skipped.
    pub vectors_passed: u64,
    /// The ones the implementation skipped.
    pub vectors_skipped: Vec<String>,
    /// Whether the whole run was judged. A run that ended on a fault of the
    /// process is not, and then nothing is claimed: `clauses` is empty.
    pub complete: bool,
    /// The fault that ended the run, if one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fault: Option<String>,
    /// Its code, one of [`crate::code::PROCESS_FAULTS`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fault_code: Option<String>,
    /// When it broke: at `start` (nothing was judged), during the `run`,
    /// or at `stop` (every case was answered).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fault_phase: Option<Phase>,
    /// Clause by clause: ¶1 to ¶4, RT-TOOL-2, RT-TOOL-6 and the outcome's
    /// shape.
    pub clauses: Vec<ClauseStanding>,
    /// When the implementation errored on a case it owed an outcome for:
    /// the first such case.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub errored: Option<Counterexample>,
    /// The command that runs this campaign again, the implementation's
    /// own command left to fill in.
    pub reproduce: String,
}

impl Standing {
    /// Works out the standing of a run.
    pub fn of(report: &Report) -> Standing {
        let complete = report.fault.is_none();
        let first = |id: &str| {
            report
                .divergences
                .iter()
                .find(|d| d.signature.contains(id))
                .and_then(|d| {
                    let pick = |vs: &[Vector]| {
                        vs.iter()
                            .find(|v| match Clause::ALL.iter().find(|c| c.id() == id) {
                                Some(c) => v.clauses.contains(c),
                                None => v.clauses.is_empty(),
                            })
                            .cloned()
                    };
                    pick(&d.minimal)
                        .map(|v| (v, d.shrink_end))
                        .or_else(|| pick(&d.found).map(|v| (v, ShrinkEnd::Pending)))
                })
        };
        let clauses = if complete {
            Clause::ALL
                .into_iter()
                .map(|clause| {
                    let counterexample = first(clause.id())
                        .map(|(v, end)| Counterexample::of(&v, Some(clause), end));
                    let cases = report.tally.get(clause);
                    let skipped = report.skipped_tally.get(clause);
                    let status = match (&counterexample, cases, skipped) {
                        (Some(_), _, _) => Status::NotMet,
                        (None, 0, 0) => Status::NotExercised,
                        (None, 0, _) => Status::NotShown,
                        (None, _, _) => Status::Met,
                    };
                    ClauseStanding {
                        clause,
                        cite: clause.cite(),
                        title: clause.title(),
                        status,
                        cases,
                        skipped,
                        counterexample,
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        Standing {
            provenance: report.provenance.clone(),
            implementation: report.implementation.clone(),
            reading: report.reading,
            strict_order: report.strict_order,
            seed: report.seed,
            campaign: report.campaign.clone(),
            cases: report.cases,
            replayed: report.replayed,
            requests: report.requests,
            vectors_run: report.vectors.run,
            vectors_passed: report.vectors.run
                - report.vectors.failed.len() as u64
                - report.vectors.skipped.len() as u64,
            vectors_skipped: report.vectors.skipped.clone(),
            complete,
            fault: report.fault.as_ref().map(|f| f.message.clone()),
            fault_code: report.fault.as_ref().map(|f| f.code.clone()),
            fault_phase: report.fault.as_ref().map(|f| f.phase),
            errored: if complete {
                first("errored").map(|(v, end)| Counterexample::of(&v, None, end))
            } else {
                None
            },
            clauses,
            reproduce: format!(
                "rt-tool-3 diff --seed {} --cases {} --prose {}{}{} -- <the implementation>",
                report.seed,
                report.campaign.generated,
                report.reading.name(),
                if report.strict_order {
                    " --strict-order"
                } else {
                    ""
                },
                if report.campaign.shard.count > 1 {
                    format!(" --shard {}", report.campaign.shard)
                } else {
                    String::new()
                },
            ),
        }
    }

    /// Whether every clause that was exercised is met, in a complete run.
    pub fn conforms(&self) -> bool {
        self.complete
            && self.errored.is_none()
            && self.clauses.iter().all(|c| c.status != Status::NotMet)
    }

    /// The standing as a Markdown page, for the implementation's own
    /// documentation.
    pub fn markdown(&self) -> String {
        // What the implementation announced is untrusted text, kept text.
        let name = |k: &str| {
            markdown(
                self.implementation
                    .get(k)
                    .and_then(Value::as_str)
                    .unwrap_or("an unnamed implementation"),
            )
        };
        let language = self
            .implementation
            .get("language")
            .and_then(Value::as_str)
            .map(|l| format!(" ({})", markdown(l)))
            .unwrap_or_default();
        let p = &self.provenance;
        // Its version as it announced it: a string as it is, another value
        // as its JSON.
        let version = match self.implementation.get("version") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(v)) => format!(" {}", markdown(v)),
            Some(other) => format!(" {}", markdown(&other.to_string())),
        };
        let mut md = format!(
            "# {} standing: {}{version}{language}\n\n",
            p.rule,
            name("name")
        );
        let _ = writeln!(
            md,
            "Judged against rule {} of the FlowDrop Workflow Specification {} (`rule_hash` `{}`) by {}, on {} cases ({} requests, seed {}{}), reading ¶3 as `{}`{}.\n",
            p.rule,
            p.spec_version,
            p.rule_hash,
            p.oracle,
            self.cases,
            self.requests,
            self.seed,
            self.shard_text(),
            self.reading.name(),
            if self.strict_order { ", with the reference artifact order demanded" } else { "" },
        );
        if !self.complete {
            let _ = writeln!(
                md,
                "**No standing.** {}",
                self.fault_phase.unwrap_or_default().no_standing(
                    self.fault.as_deref().unwrap_or("unknown"),
                    self.fault_code.as_deref().unwrap_or("unknown"),
                    markdown
                )
            );
            return md;
        }
        let _ = writeln!(
            md,
            "Pinned conformance vectors: {} of {} passed{}.\n",
            self.vectors_passed,
            self.vectors_run,
            self.skipped_text()
        );
        md.push_str("| clause | what it asks | standing | judged cases that bore on it |\n|---|---|---|---|\n");
        for c in &self.clauses {
            let _ = writeln!(
                md,
                "| {} | {} | **{}** | {} |",
                c.clause,
                c.title,
                c.status.text(),
                c.cases_text()
            );
        }
        let mut examples: Vec<(String, &Counterexample)> = self
            .clauses
            .iter()
            .filter_map(|c| {
                c.counterexample
                    .as_ref()
                    .map(|x| (format!("{}: not met", c.clause), x))
            })
            .collect();
        if let Some(x) = &self.errored {
            examples.push(("errored on a case it owed an outcome for".to_owned(), x));
        }
        if !examples.is_empty() {
            md.push_str("\n## Counterexamples\n");
        }
        for (title, x) in examples {
            counterexample_md(&mut md, &title, x);
        }
        let _ = write!(md, "\nReproduce with `{}`.\n", self.reproduce);
        md
    }

    /// Whether the run shows all it bore on: no pinned vector skipped, and
    /// no clause that only skipped cases bore on. A run that does not is
    /// not a conforming one (`diff` and `merge` exit 1), whatever else it
    /// found: an implementation that skips every case must not pass.
    pub fn shown(&self) -> bool {
        self.vectors_skipped.is_empty() && self.clauses.iter().all(|c| c.status != Status::NotShown)
    }

    /// `, K skipped (…)` when pinned vectors were skipped; nothing if none.
    fn skipped_text(&self) -> String {
        if self.vectors_skipped.is_empty() {
            String::new()
        } else {
            format!(
                ", {} skipped ({})",
                self.vectors_skipped.len(),
                markdown(&self.vectors_skipped.join("; "))
            )
        }
    }

    /// `, shard K/N` for a shard of a campaign; nothing for a whole one.
    fn shard_text(&self) -> String {
        let shard = self.campaign.shard;
        if shard.count > 1 {
            format!(", shard {shard}")
        } else {
            String::new()
        }
    }
}

/// A counterexample in the Markdown standing: its heading, its sentences,
/// its codes, and the case with its expected and observed outcomes (and the
/// sibling's, when a sibling showed it), each as a fenced JSON block.
fn counterexample_md(md: &mut String, title: &str, x: &Counterexample) {
    let _ = write!(md, "\n### {title}\n\n");
    if let Some(note) = x.shrink_end.note() {
        let _ = writeln!(md, "The case below is {note}.\n");
    }
    for r in &x.reason {
        let _ = writeln!(md, "- {}", markdown(r));
    }
    let codes = distinct_codes(&x.codes);
    if !codes.is_empty() {
        let _ = writeln!(md, "\nCodes: `{}`.", codes.join("`, `"));
    }
    // A sibling that showed it is the request that did: first, as sent;
    // the case it was built from after it, as context.
    match &x.sibling {
        Some(s) => {
            let _ = writeln!(
                md,
                "\nShown on its {} sibling ({}), as sent:",
                markdown(&s.name),
                markdown(&s.what)
            );
            run_md(md, &s.case, &s.expected, &s.observed);
            let _ = writeln!(
                md,
                "\nThe case it was built from (the one to --replay: diff builds its siblings again):"
            );
            run_md(md, &x.case, &x.expected, &x.observed);
        }
        None => run_md(md, &x.case, &x.expected, &x.observed),
    }
}

/// A case, its expected and its observed outcome, as one fenced JSON block.
fn run_md(md: &mut String, case: &Case, expected: &crate::wire::Outcome, observed: &Value) {
    let json = format!(
        "{{\"case\": {},\n \"expected\": {},\n \"observed\": {}}}",
        compact(case),
        compact(expected),
        compact(observed)
    );
    // Nothing in the block that a terminal acts on, as JSON escapes.
    let json = json_text(&json);
    let fence = fence(&json);
    let _ = write!(md, "\n{fence}json\n{json}\n{fence}\n");
}

/// The distinct codes among a counterexample's `codes`, in their order, the
/// empty ones (a reason that is no violation) left out.
pub fn distinct_codes(codes: &[String]) -> Vec<&str> {
    let mut seen: Vec<&str> = Vec::new();
    for c in codes {
        if !c.is_empty() && !seen.contains(&c.as_str()) {
            seen.push(c);
        }
    }
    seen
}

/// A value as compact JSON, a lone surrogate a reply held shown as its
/// escape.
fn compact<T: Serialize>(v: &T) -> String {
    crate::wire::shown_lone(&serde_json::to_string(v).unwrap_or_default()).into_owned()
}
