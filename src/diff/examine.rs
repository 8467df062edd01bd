//! One case examined with its siblings: the replies judged together, what
//! a sibling showed reported on the case sent, and the siblings that
//! change the exposure alone sent when delivery differs.

use std::collections::BTreeSet;
use std::ops::ControlFlow;

use serde_json::{json, Value};

use super::by_siblings::{delivery_differs, prose_siblings};
use super::marked::flip;
use super::report::{SiblingRun, Vector};
use super::sent::{Read, Sent};
use crate::harness::{Fault, Process, Reply};
use crate::judge::{self, Clause, Options, Violation};
use crate::model::{self, Zone};
use crate::wire::Case;

/// What three requests showed about one case.
pub struct Examined {
    /// The divergences, one vector per request that shows some.
    pub vectors: Vec<Vector>,
    /// Whether the implementation skipped the case.
    pub skipped: bool,
    /// The warnings of the case and its marked sibling, each once.
    pub warnings: Vec<judge::Warning>,
    /// Whether the case is over RT-TOOL-6's floors, as its zone found.
    pub over_floors: bool,
}

/// Runs one case and its two siblings, and judges them together (with
/// the two more of `Sent::exposure_alone` when its first two runs
/// deliver differently, and the one of `Sent::call_alone` when a call's
/// prose is not the reference's).
pub fn examine(process: &mut Process, case: &Case, options: Options) -> Result<Examined, Fault> {
    let mut sent = Sent::new(case.clone(), options.prose);
    sent.send(process);
    let replies = sent.read(process)?;
    sent.judge(replies, options, &mut |cases| process.run_all(cases))
}

/// Sends cases a judgement needs beyond a case's three requests, and reads
/// their replies: `Ok` with fewer replies than cases when they cannot be
/// had (the process broke on an earlier case still in flight, which is
/// told in that case's turn).
pub(super) type More<'a> = dyn FnMut(&[&Case]) -> Result<Vec<Reply>, Fault> + 'a;

/// The siblings of a case by request index (0 is the case itself): the
/// name and what each changes.
const SIBLINGS: [(&str, &str); 6] = [
    ("case", "the case itself"),
    (
        "marked",
        "the case with its exposure flipped and a marker in each call's data",
    ),
    (
        "canary",
        "the marked sibling with fresh call ids, its calls in other places beside one call more, and its artifacts, other keys and error swapped for canaries",
    ),
    ("exposure-alone", "the case with its exposure flipped and nothing else"),
    ("repeat", "the case sent again, as it is"),
    ("alone", "one call of the case sent alone, as it is"),
];

/// The names of the siblings a report gives them (`marked`, `canary`,
/// `exposure-alone`, `repeat`, `alone`), in the order they are sent.
pub fn sibling_names() -> impl Iterator<Item = &'static str> {
    SIBLINGS[1..].iter().map(|(name, _)| *name)
}

/// The findings of each request of a case, by its index in [`SIBLINGS`].
type PerRun = [Vec<Violation>; 6];

/// The request of [`Sent::call_alone`], by its index in [`SIBLINGS`].
const ALONE: usize = 5;

impl Sent {
    /// Judges the three replies together.
    ///
    /// Replies that carried, byte for byte, the reference outcome of each
    /// request conform, and show nothing: they are not parsed, nor judged.
    /// Parsing and judging was two fifths of the oracle's work on a case
    /// (writing the expected bytes costs about half of that back), and is
    /// skipped so on every case that does not diverge against an
    /// implementation that prints compact JSON in the contract's key order
    /// (`serve`, the reference adapter). A reply written in other bytes
    /// (spaces, other escapes, another key order) is parsed and judged,
    /// and so are the others of its case. That the judge finds nothing in
    /// the reference outcomes is held by `tests/catalogue/catalogue.rs`: `serve
    /// --variant key-order` prints each in other bytes, so each is parsed
    /// and judged, and must show no divergence and no warning.
    pub(super) fn judge(
        &mut self,
        replies: Read,
        options: Options,
        more: &mut More<'_>,
    ) -> Result<Examined, Fault> {
        // The floors are read once, for the zone and for the tally. No
        // payload of a case written in a sixth of the payload floor can be
        // over a byte floor, and such a case's payloads are not measured.
        let small = self.written.is_some_and(|n| {
            n.saturating_mul(model::ENCODED_PER_BYTE) <= model::floors::PAYLOAD_BYTES
        });
        let size: &dyn Fn(&Value) -> usize = if small {
            &|_| 0
        } else {
            &|p| model::encoded_len(p)
        };
        let floors = model::floor_reasons(&self.case, size);
        let replies = match replies {
            Read::Replies(replies) => replies,
            Read::AsExpected => {
                let over_floors = !floors.is_empty();
                return Ok(Examined {
                    vectors: Vec::new(),
                    skipped: false,
                    warnings: Vec::new(),
                    over_floors,
                });
            }
        };
        self.judge_outcomes(replies, floors, options, more)
    }

    /// Judges the three replies together, parsed.
    fn judge_outcomes(
        &mut self,
        replies: Vec<Reply>,
        floors: Vec<String>,
        options: Options,
        more: &mut More<'_>,
    ) -> Result<Examined, Fault> {
        let over_floors = !floors.is_empty();
        let zone = model::zone_of(model::shape_reasons(&self.case), floors);
        // A call whose result is of RT-TOOL-1's shape has its prose from
        // its `data` alone whatever its siblings returned, and over the
        // floors too, which bound artifacts only.
        let owes: Vec<bool> = (self.case.calls.iter())
            .map(|call| model::of_rt_tool_1_shape(&call.result))
            .collect();
        let mut runs = match self.outcomes(replies, over_floors) {
            ControlFlow::Continue(runs) => runs,
            ControlFlow::Break(examined) => return Ok(examined),
        };
        if runs.len() < 3 {
            return Err(Fault::Garbage("fewer replies than requests".into()));
        }
        let not_an_outcome =
            |e: judge::NotAnOutcome| Fault::Garbage(format!("the outcome is not an object: {e}"));
        let mut reference = model::outcome(&self.case);
        let first = judge::judge_against(&self.case, zone.clone(), &reference, &runs[0], options)
            .map_err(not_an_outcome)?;
        self.mark_reference(&mut reference);
        let second = self
            .with_marked(|marked| {
                judge::judge_against(marked, zone.clone(), &reference, &runs[1], options)
            })
            .map_err(not_an_outcome)?;
        let judgements = [first, second];
        // The marked sibling mostly warns of what the case does: each once.
        let mut seen = std::collections::HashSet::new();
        let warnings: Vec<judge::Warning> = judgements
            .iter()
            .flat_map(|j| &j.warnings)
            .filter(|w| seen.insert(w.message.as_str()))
            .cloned()
            .collect();
        // Which of the first two runs had the port exposed.
        let (shown, hidden) = if self.case.exposed == Some(true) {
            (0, 1)
        } else {
            (1, 0)
        };
        // The port is judged on one run: on the case itself when both runs
        // deliver the same, or when the difference is not the exposure's;
        // else on the run with the port exposed, and the difference is
        // charged to ¶4 on the exposure-alone sibling that has it hidden.
        let differs = delivery_differs(
            &runs,
            shown,
            hidden,
            [self.case.exposed, flip(self.case.exposed)],
        )
        .and_then(|_| self.exposure_alone(more, &mut runs));
        let port_run = if differs.is_some() { shown } else { 0 };
        let mut per_run = each_said_once(&judgements, port_run);
        if let Some((run, violation)) = differs {
            per_run[run].push(violation);
        }
        // Its prose may not change with what it may not draw on: judged
        // within the floors, where nothing of the run may be dropped.
        let unchanged: Vec<bool> = owes.iter().map(|&o| o && !over_floors).collect();
        self.prose_findings(&unchanged, &runs, &mut per_run);
        if let Some((violation, observed)) = self.call_alone(&runs[0], &owes, more) {
            runs.resize(ALONE, Value::Null);
            runs.push(observed);
            per_run[ALONE].push(violation);
        }
        let mut vectors = Vec::new();
        for (i, violations) in per_run.into_iter().enumerate() {
            if !violations.is_empty() {
                let found = vector(self.sibling(i), violations, runs[i].clone());
                vectors.push(self.as_sent(i, found, &runs[0]));
            }
        }
        Ok(Examined {
            vectors,
            skipped: false,
            warnings,
            over_floors,
        })
    }

    /// The outcomes of the three replies, in order; or, at the first that
    /// is not one, what the case shows (`Break`): nothing when it was
    /// skipped, the vector of an `errored` reply when that counts
    /// ([`Sent::errored`]).
    fn outcomes(
        &mut self,
        replies: Vec<Reply>,
        over_floors: bool,
    ) -> ControlFlow<Examined, Vec<Value>> {
        let mut runs = Vec::with_capacity(3);
        for (i, reply) in replies.into_iter().enumerate() {
            match reply {
                Reply::Outcome(o) => runs.push(o),
                Reply::Skipped(_) => {
                    return ControlFlow::Break(Examined {
                        vectors: Vec::new(),
                        skipped: true,
                        warnings: Vec::new(),
                        over_floors,
                    })
                }
                Reply::Errored(message) => {
                    let errored = self.errored(i, &message);
                    let first = runs.first().cloned().unwrap_or_default();
                    return ControlFlow::Break(Examined {
                        vectors: errored
                            .map(|v| self.as_sent(i, v, &first))
                            .into_iter()
                            .collect(),
                        skipped: false,
                        warnings: Vec::new(),
                        over_floors,
                    });
                }
            }
        }
        ControlFlow::Continue(runs)
    }

    /// ¶3 on the prose of the marked and the canary siblings, added to
    /// their runs' findings in `per_run`: no call's prose carries another
    /// call's marker, and the canary sibling's prose against the marked
    /// sibling's ([`prose_siblings`]), unchanged where `unchanged` says so
    /// of its call.
    fn prose_findings(&self, unchanged: &[bool], runs: &[Value], per_run: &mut PerRun) {
        // The marked sibling's calls are the case's, by id.
        let calls = &self.case.calls;
        let prose = [
            judge::contents(&runs[1], calls),
            self.canary
                .in_case_order(&judge::contents(&runs[2], &self.canary.case.calls)),
        ];
        for (run, contents) in [1, 2].into_iter().zip(&prose) {
            per_run[run].extend(self.marked.foreign_markers(calls, contents));
        }
        per_run[2].extend(prose_siblings(
            unchanged,
            calls,
            &prose[0],
            &prose[1],
            &self.canary,
        ));
    }

    /// ¶3 on one call sent alone, as it is: its prose may not change with
    /// the calls beside it. Sent only when some call's prose in the case's
    /// run is not the reference rendering (an implementation that renders
    /// `data` as the reference does has nothing here to show), for the
    /// first such call of a case of two calls or more whose result is of
    /// RT-TOOL-1's shape (`owes`, whatever its siblings returned); `self.alone`
    /// keeps which, for [`Sent::sibling`]. The finding and the reply, or `None`
    /// when the prose is the same, or the reply cannot be had or is no
    /// outcome. A runtime that tells a repeated result "(same as call
    /// c1)", numbers its messages, or shares a budget out between them
    /// shows it here, where the marked and canary siblings, whose `data`
    /// all carry markers, may not.
    fn call_alone(
        &mut self,
        run: &Value,
        owes: &[bool],
        more: &mut More<'_>,
    ) -> Option<(Violation, Value)> {
        let calls = &self.case.calls;
        if calls.len() < 2 {
            return None;
        }
        let contents = judge::contents(run, calls);
        let (i, beside) = calls
            .iter()
            .zip(&contents)
            .enumerate()
            .filter(|&(i, _)| owes[i])
            .find_map(|(i, (call, c))| {
                let c = (*c)?;
                (c != model::clause_3_prose(call).content).then_some((i, c))
            })?;
        self.alone = Some(i);
        let alone = self.sibling(ALONE);
        let Reply::Outcome(observed) = more(&[&alone]).ok()?.pop()? else {
            return None;
        };
        let by_itself = judge::contents(&observed, &alone.calls)[0]?;
        if by_itself == beside {
            return None;
        }
        let violation = Violation::new(
            judge::Code::ProseAlone,
            judge::Place::call(i),
            format!(
                "the prose of call {} is {beside:?} beside the other calls and {by_itself:?} sent alone: prose comes from the call's own data alone (numbered by place, shared out, or drawn from another call)",
                alone.calls[0].tool_call_id
            ),
        );
        Some((violation, observed))
    }

    /// ¶4 on the siblings that change the exposure and nothing else, sent
    /// when the case and its marked sibling deliver differently: the case
    /// with its exposure flipped (3, the *exposure-alone* sibling), then
    /// the case again (4, a repeat of the identical request). The two
    /// differ in the exposure alone, and were sent one after the other, so
    /// a difference between them is the exposure's: the ¶4 violation, and
    /// the run it is charged to (whichever of 3 and 4 has the port
    /// hidden). When they deliver the same, the first two runs differed by
    /// something else (the markers, a cache, an artifact delivered once
    /// and not again, which the repeat shows too) and `None`: each run is
    /// judged on its own. So is it when their replies cannot be had, or one
    /// is not an outcome: nothing is charged to ¶4 that two outcomes do not
    /// show.
    fn exposure_alone(
        &self,
        more: &mut More<'_>,
        runs: &mut Vec<Value>,
    ) -> Option<(usize, Violation)> {
        let alone = Case {
            exposed: flip(self.case.exposed),
            calls: self.case.calls.clone(),
        };
        let replies = more(&[&alone, &self.case]).ok()?;
        for reply in replies {
            match reply {
                Reply::Outcome(o) => runs.push(o),
                _ => return None,
            }
        }
        if runs.len() < 5 {
            return None;
        }
        // Of runs 3 and 4, by their place among the two.
        let (shown, hidden) = if self.case.exposed == Some(true) {
            (1, 0)
        } else {
            (0, 1)
        };
        let exposures = [flip(self.case.exposed), self.case.exposed];
        let differs = delivery_differs(&runs[3..5], shown, hidden, exposures)?;
        Some((3 + hidden, differs))
    }

    /// `found`, a vector of request `i`, as the case sent: a sibling's run
    /// moved into [`Vector::sibling`], and the case itself, its reference
    /// outcome and `observed`, what came back to it, in its place. Each
    /// sibling is rebuilt from the case, so the vector replays as it is.
    fn as_sent(&mut self, i: usize, mut found: Vector, observed: &Value) -> Vector {
        if i == 0 {
            return found;
        }
        let (name, what) = SIBLINGS[i.min(SIBLINGS.len() - 1)];
        let case = std::mem::replace(&mut found.case, self.case.clone());
        let expected = std::mem::replace(&mut found.expected, model::outcome(&self.case));
        found.sibling = Some(SiblingRun {
            name: name.into(),
            what: what.into(),
            case,
            expected,
            observed: std::mem::replace(&mut found.observed, observed.clone()),
        });
        found
    }

    /// The vector of an `errored` reply to sibling `i`, if it counts: on a
    /// strict-zone case the implementation owes an outcome; on a case over
    /// RT-TOOL-6's floors alone "the run is not failed". A case with a
    /// call whose result is not of RT-TOOL-1's shape may be errored: a tool
    /// broke its contract, no rule asks a node to carry on past a result not
    /// of the contract's shape, and a run that errs delivers nothing and
    /// claims no outcome (an outcome it gives is held to every owed
    /// artifact, whatever its siblings returned).
    fn errored(&mut self, i: usize, message: &str) -> Option<Vector> {
        let case = self.sibling(i);
        let observed = json!({"errored": true, "message": message});
        // The message whole is in `observed`; the description says it on
        // one line.
        let message = crate::harness::gist(message);
        match model::zone(&case) {
            Zone::Strict => Some(Vector {
                description: format!("the implementation errored on a strict-zone case: {message}"),
                clauses: Vec::new(),
                cites: Vec::new(),
                violations: Vec::new(),
                expected: model::outcome(&case),
                case,
                observed,
                sibling: None,
            }),
            Zone::Lenient(why) if model::shape_reasons(&case).is_empty() => {
                let violation = Violation::new(
                    judge::Code::ErroredOverFloors,
                    judge::Place::default(),
                    format!(
                        "the implementation errored on a run over RT-TOOL-6's floors ({}): over a bound an artifact is dropped with a warning, and the run is not failed; it said: {message}",
                        why.join("; ")
                    ),
                );
                Some(vector(case, vec![violation], observed))
            }
            Zone::Lenient(_) => None,
        }
    }
}

/// The violations of the case's run and its marked sibling's, by request
/// (the case, the marked sibling, then room for the canary sibling, the
/// exposure-alone sibling and the repeat), each said once: the findings
/// about the port on `port_run` alone, and a finding both runs show (the
/// same clause and sentence) on `port_run`.
fn each_said_once(judgements: &[judge::Judgement; 2], port_run: usize) -> PerRun {
    let mut per_run: PerRun = Default::default();
    for run in [port_run, 1 - port_run] {
        for (i, v) in judgements[run].violations.iter().enumerate() {
            let about_port = judgements[run].port.contains(&i);
            // Said already: the same clause and sentence (the place,
            // an entry's index, may differ between the runs).
            let said = per_run[1 - run]
                .iter()
                .any(|w| w.clause == v.clause && w.message == v.message);
            if (run == port_run || !about_port) && !said {
                per_run[run].push(v.clone());
            }
        }
    }
    per_run
}

/// A vector of `case` showing `violations`.
pub(super) fn vector(case: Case, violations: Vec<Violation>, observed: Value) -> Vector {
    let clauses: BTreeSet<Clause> = violations.iter().map(|v| v.clause).collect();
    Vector {
        description: violations
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; "),
        cites: clauses.iter().map(|c| c.cite()).collect(),
        clauses: clauses.into_iter().collect(),
        violations,
        expected: model::outcome(&case),
        case,
        observed,
        sibling: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen;
    use crate::judge::ProseMode;

    /// A case is over RT-TOOL-6's floors for [`Sent::judge`] exactly when
    /// its payloads, measured, are: also when its compact JSON is short
    /// enough for them not to be measured. The payloads of `<` (six bytes
    /// encoded for each one written) sit on both sides of the floor, and of
    /// the length under which they are not measured.
    #[test]
    fn payloads_left_unmeasured_are_within_the_floors() {
        let of = |text: String| {
            let case = json!({"calls": [{"tool_call_id": "c1", "result": {"success": true,
                "artifacts": [{"type": "t", "payload": {"s": text}}]}}]});
            Case::from_json(case.to_string().as_bytes()).unwrap()
        };
        let sixth = model::floors::PAYLOAD_BYTES / model::ENCODED_PER_BYTE;
        let crafted = [sixth - 200, sixth - 20, sixth + 100, 2 * sixth]
            .map(|n| of("<".repeat(n)))
            .into_iter()
            .chain([of("x".repeat(model::floors::PAYLOAD_BYTES))]);
        let (mut over, mut under) = (0, 0);
        for case in crafted.chain(gen::cases(9).take(2000)) {
            let measured = !model::floor_reasons(&case, &|p| model::encoded_len(p)).is_empty();
            let mut sent = Sent::new(case, ProseMode::DataOnly);
            sent.written = Some(serde_json::to_vec(&sent.case).unwrap().len());
            let judged = sent
                .judge(
                    Read::AsExpected,
                    Options::default(),
                    &mut |_| Ok(Vec::new()),
                )
                .unwrap();
            assert_eq!(
                judged.over_floors,
                measured,
                "{:.200}",
                serde_json::to_string(&sent.case).unwrap()
            );
            over += usize::from(measured);
            under += usize::from(!measured && sent.written > Some(sixth));
        }
        assert!(
            over >= 3 && under >= 1,
            "{over} over the floors, {under} within them unskipped"
        );
    }
}
