//! Shrinking a divergence: by a generated case's value tree, then by
//! halves, then greedily, on the copy that found it, within a time budget.

use std::collections::{BTreeSet, VecDeque};
use std::time::Instant;

use proptest::strategy::{Strategy, ValueTree};

use super::ddmin::{self, Halt};
use super::examine::examine;
use super::pipeline::{Done, InFlight, ShrinkJob, ShrunkJob};
use super::report::{Config, FaultReport, ShrinkEnd, Vector};
use crate::gen;
use crate::harness::{Fault, Process};
use crate::judge::Options;
use crate::wire::Case;

/// Shrinks the divergence of `job` on `process`, within the time budget
/// ([`Config::shrink_time`]). The replies to the cases still in flight
/// come before any shrinking step's: they are read first and judged in
/// their turn; if one is a fault, nothing is shrunk.
pub(super) fn shrink_job<S: Strategy<Value = Case>>(
    process: &mut Process,
    strategy: &S,
    config: &Config,
    options: Options,
    in_flight: &mut VecDeque<InFlight>,
    job: &ShrinkJob,
    named: &dyn Fn(Fault) -> String,
) -> Done {
    let mut faulted = false;
    for waiting in in_flight.iter_mut() {
        if waiting.replies.is_none() && !faulted {
            let replies = waiting.sent.read(process);
            faulted = replies.is_err();
            waiting.replies = Some(replies);
        }
    }
    if faulted {
        return Done::Shrunk(ShrunkJob {
            minimal: None,
            fault: None,
            requests: 0,
            end: ShrinkEnd::Fault,
            seconds: None,
        });
    }
    let before = process.requests;
    let started = Instant::now();
    // A budget no clock reaches is no budget.
    let deadline = config.shrink_time.and_then(|t| started.checked_add(t));
    let max = config.max_shrink_iters;
    let fixed = usize::try_from(job.position)
        .ok()
        .and_then(|p| config.fixed.get(p));
    let mut shows = |case: &Case| {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(Cut::Time);
        }
        still_shows(process, case, &job.target, options)
    };
    let (minimal, end) = match fixed {
        Some(f) => shrink_fixed(&f.case, max, &mut shows),
        None => match gen::tree_at(
            strategy,
            config.seed,
            job.position - config.fixed.len() as u64,
        ) {
            Ok(mut tree) => shrink(&mut tree, max, &mut shows),
            Err(_) => (None, End::Minimal),
        },
    };
    let (end, fault) = match end {
        End::Minimal => (ShrinkEnd::Minimal, None),
        End::Tries => (ShrinkEnd::Tries, None),
        End::Cut(Cut::Time) => (ShrinkEnd::Time, None),
        End::Cut(Cut::Fault(f, case)) => (ShrinkEnd::Fault, Some((f, case))),
    };
    Done::Shrunk(ShrunkJob {
        minimal,
        fault: fault.map(|(f, case)| FaultReport::on_case(f.code(), named(f), case, job.position)),
        requests: process.requests - before,
        seconds: (end == ShrinkEnd::Time).then(|| started.elapsed().as_secs_f64()),
        end,
    })
}

/// What cuts shrinking short: a fault of the process, with the case that
/// caused it, or the time budget spent.
pub(super) enum Cut {
    /// The process broke on this case.
    Fault(Fault, Case),
    /// The budget was spent before this try.
    Time,
}

/// How shrinking ended.
pub(super) enum End {
    /// A whole greedy pass found nothing smaller: the case is minimal.
    Minimal,
    /// The greedy pass reached its limit of tries first.
    Tries,
    /// A fault or the time budget cut it short.
    Cut(Cut),
}

/// Examines `case` for the shrinkers: its vectors if it still shows
/// `target`, or the fault that cut shrinking short.
fn still_shows(
    process: &mut Process,
    case: &Case,
    target: &BTreeSet<String>,
    options: Options,
) -> Result<Option<Vec<Vector>>, Cut> {
    match examine(process, case, options) {
        Ok(examined) => Ok(target
            .is_subset(&signature(&examined.vectors))
            .then_some(examined.vectors)),
        Err(f) => Err(Cut::Fault(f, case.clone())),
    }
}

/// The outcome of shrinking: the vectors of the smallest case found that
/// still shows the divergence (`None` if none smaller), and how it ended.
type Shrunk = (Option<Vec<Vector>>, End);

/// The outcome of shrinking by a value tree: the smallest case found that
/// still shows the divergence, with its vectors, and what cut shrinking
/// short, if anything did.
type ShrunkByTree = (Option<(Case, Vec<Vector>)>, Option<Cut>);

/// Shrinks a generated divergence: by its value tree
/// ([`shrink_tree`]), then as a fixed case ([`shrink_fixed`]), each up to
/// `max_iters` steps; a case over [`HEAVY`] bytes as a fixed case alone.
/// The vectors of the smallest case found that still shows it (`None` if
/// none smaller), and how shrinking ended.
///
/// The tree shrinks what the strategy drew: fewer calls and entries,
/// shorter strings, smaller numbers. It cannot take out what a mapping
/// added around what it drew: a near-miss key beside the entry's own, a
/// `data` made of MCP content blocks, a payload's URL. So in `diff --cases
/// 256 --seed 1` against `serve --fault trim-type` the tree stopped at
/// `{"type":" link","payload":{"url":"https://example.com/0"}}` in a call
/// whose `data` held two content blocks; in 16 more tries the greedy pass
/// took out the `data` and the URL, down to `{"type":" link",
/// "payload":{}}`: what the fault needs and nothing else.
fn shrink<T: ValueTree<Value = Case>>(
    tree: &mut T,
    max_iters: u32,
    mut still_shows: impl FnMut(&Case) -> Result<Option<Vec<Vector>>, Cut>,
) -> Shrunk {
    let first = tree.current();
    let mut bytes = Vec::new();
    first.write_json(&mut bytes);
    if bytes.len() > HEAVY {
        return shrink_fixed(&first, max_iters, still_shows);
    }
    let (shown, cut) = shrink_tree(tree, max_iters, &mut still_shows);
    if let Some(cut) = cut {
        return (shown.map(|(_, vectors)| vectors), End::Cut(cut));
    }
    let (smallest, vectors) = shown.map_or((first, None), |(c, v)| (c, Some(v)));
    let (smaller, end) = shrink_fixed(&smallest, max_iters, still_shows);
    (smaller.or(vectors), end)
}

/// The size, as compact JSON, over which a generated case shrinks as a
/// fixed case does (by halves, then greedily), without its value tree: a
/// case that carries a payload over RT-TOOL-6's floor of 512,000 bytes (no
/// other generated case comes near it: the largest in 20,000 positions of
/// each of seeds 1, 2 and 3 is 35,752 bytes). Two of each try's three requests carry that payload, and
/// the tree spends most of its tries shrinking the strings of the case's
/// other calls one character at a time: in `diff --cases 256 --seed 1`
/// against `serve --fault stop-at-oversize`, 2,094 requests, over 700 MB,
/// where the greedy pass leaves out the other calls at once and is done in
/// 102.
/// What it gives up: the tree shortens the payload to the floor and a
/// byte (512,001 characters), the greedy pass leaves it as drawn (518,835),
/// and keeps the call's id (`c2`, not `c1`).
const HEAVY: usize = 64 << 10;

/// Shrinks a divergence by its value tree, the way proptest shrinks a
/// failing property ([`ShrunkByTree`]; `None` if no smaller case shows it).
///
/// A step of proptest's shrinking often gives back the very case the step
/// before was found to show the divergence on: it simplified a part of the
/// tree the case does not depend on (a sampling index that picks the same
/// call, an option already at its simplest). That case is not sent again;
/// it counts as a step, so shrinking takes the same path to the same
/// minimal case, in fewer requests. In `diff --cases 256 --seed 1`
/// against `serve --fault drop-empty-payload`, 940 of 1,430 steps were
/// such repeats.
fn shrink_tree<T: ValueTree<Value = Case>>(
    tree: &mut T,
    max_iters: u32,
    mut still_shows: impl FnMut(&Case) -> Result<Option<Vec<Vector>>, Cut>,
) -> ShrunkByTree {
    // The case last found to show the divergence, and its vectors.
    let mut shown: Option<(Case, Vec<Vector>)> = None;
    if max_iters == 0 || !tree.simplify() {
        return (shown, None);
    }
    for _ in 0..max_iters {
        let case = tree.current();
        let shows = shown.as_ref().is_some_and(|(c, _)| *c == case)
            || match still_shows(&case) {
                Ok(Some(vectors)) => {
                    shown = Some((case, vectors));
                    true
                }
                Ok(None) => false,
                Err(cut) => return (shown, Some(cut)),
            };
        let moved = if shows {
            tree.simplify()
        } else {
            tree.complicate()
        };
        if !moved {
            break;
        }
    }
    (shown, None)
}

/// Shrinks a fixed case: cut by halves first ([`ddmin::cut`]), then
/// greedily ([`greedy`]), each up to `max_iters` tries. How it ended is
/// the greedy pass's: a case is minimal only once a whole pass of it finds
/// nothing smaller.
fn shrink_fixed(
    case: &Case,
    max_iters: u32,
    mut shows: impl FnMut(&Case) -> Result<Option<Vec<Vector>>, Cut>,
) -> Shrunk {
    let (cut, vectors, halt) = ddmin::cut(case, max_iters, &mut shows);
    match halt {
        Some(Halt::Cut(cut)) => (vectors, End::Cut(cut)),
        Some(Halt::Tries) | None => {
            let (smaller, end) = greedy(&cut, max_iters, shows);
            (smaller.or(vectors), end)
        }
    }
}

/// Shrinks a case greedily: the first of its one-step-smaller variants
/// ([`crate::replay::smaller`]) that still shows the divergence (`shows`)
/// becomes the case, until none does (the case is minimal) or `max_iters`
/// variants have been tried.
///
/// Each pass starts at the place in the list of variants where the last
/// step was found, and wraps around: the variants before it have just been
/// tried and failed, and most fail again. So a case stays minimal once one
/// whole pass finds nothing, as before, without trying every failing
/// variant again after each step. Starting over each time took the pinned
/// vector of 51 artifacts, on an implementation that errors on every run,
/// past the limit of 1,024 tries (3,072 requests) with 14 steps made and
/// the case not yet minimal; now 466 tries and 52 steps, to a minimal one.
fn greedy(
    case: &Case,
    max_iters: u32,
    mut shows: impl FnMut(&Case) -> Result<Option<Vec<Vector>>, Cut>,
) -> Shrunk {
    let mut last = None;
    let mut current = case.clone();
    let mut steps = 0;
    let mut from = 0;
    loop {
        let mut next = None;
        let variants = || crate::replay::smaller(&current).enumerate();
        let wrapped = variants().skip(from).chain(variants().take(from));
        for (i, candidate) in wrapped {
            if steps == max_iters {
                return (last, End::Tries);
            }
            steps += 1;
            match shows(&candidate) {
                Ok(Some(vectors)) => {
                    last = Some(vectors);
                    next = Some((i, candidate));
                    break;
                }
                Ok(None) => {}
                Err(cut) => return (last, End::Cut(cut)),
            }
        }
        match next {
            Some((i, smaller)) => {
                current = smaller;
                from = i;
            }
            None => return (last, End::Minimal),
        }
    }
}

/// The signature of a set of vectors: their clause ids, and `errored`.
pub(super) fn signature(vectors: &[Vector]) -> BTreeSet<String> {
    vectors
        .iter()
        .flat_map(|v| {
            v.clauses
                .iter()
                .map(|c| c.id().to_owned())
                .chain(v.clauses.is_empty().then(|| "errored".to_owned()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::super::examine::vector;
    use super::*;
    use crate::model::{self, Zone};

    /// Shrinks `case` with the property `shows` standing in for the
    /// implementation's divergence, and holds the result to what shrinking
    /// promises: it still shows the divergence, no variant one step smaller
    /// does, and it got there within the limit.
    fn shrinks_to_a_minimum(case: &Case, shows: &dyn Fn(&Case) -> bool, name: &str) {
        let (mut tries, mut smallest) = (0, None);
        let (found, end) = shrink_fixed(case, 1024, |case| {
            tries += 1;
            if !shows(case) {
                return Ok(None);
            }
            smallest = Some(case.clone());
            Ok(Some(Vec::new()))
        });
        assert!(matches!(end, End::Minimal), "{name}");
        assert!(tries < 1024, "{name}: {tries} tries, the limit");
        assert_eq!(found.is_some(), smallest.is_some(), "{name}");
        // Nothing smaller showing it, the case is its own minimum.
        let minimal = smallest.unwrap_or_else(|| case.clone());
        assert!(shows(&minimal), "{name}");
        assert!(
            crate::replay::smaller(&minimal).all(|c| !shows(&c)),
            "{name}: {} is not minimal",
            serde_json::to_string(&minimal).unwrap()
        );
    }

    /// Every pinned vector, against an implementation that errors on every
    /// run: it diverges on each strict case, and on each case over
    /// RT-TOOL-6's floors alone.
    #[test]
    fn a_pinned_vector_shrinks_to_a_minimum_within_the_limit() {
        let strict = |c: &Case| model::zone(c) == Zone::Strict;
        let over_floors = |c: &Case| {
            model::shape_reasons(c).is_empty()
                && !model::floor_reasons(c, &|p| model::encoded_len(p)).is_empty()
        };
        for (n, fixed) in crate::replay::pinned().unwrap().iter().enumerate() {
            if strict(&fixed.case) {
                shrinks_to_a_minimum(&fixed.case, &strict, &format!("vector {n}"));
            } else if over_floors(&fixed.case) {
                shrinks_to_a_minimum(&fixed.case, &over_floors, &format!("vector {n}"));
            }
        }
    }

    /// A value tree whose case leaves out part of what it drew: the number
    /// of calls makes the case, the sampling indices around it do not, so
    /// many of proptest's steps simplify an index and give back the case
    /// just found to show the divergence, before the number is shrunk and
    /// after.
    fn tree_with_idle_parts() -> impl ValueTree<Value = Case> {
        use proptest::arbitrary::any;
        use proptest::sample::Index;
        let strategy = (any::<Index>(), 3..40usize, any::<Index>());
        let strategy = strategy.prop_map(|(_, n, _)| Case {
            exposed: None,
            calls: (1..=n)
                .map(|i| crate::wire::Call {
                    tool_call_id: format!("c{i}"),
                    result: json!({}),
                })
                .collect(),
        });
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        loop {
            let tree = strategy.new_tree(&mut runner).unwrap();
            if tree.current().calls.len() > 10 {
                return tree;
            }
        }
    }

    /// `shrink_tree` takes the path proptest's own loop takes, trying each step's
    /// case, to the same minimal case within the same number of steps, at
    /// every limit; but it never sends again the case it has just found to
    /// show the divergence, so it makes fewer tries.
    #[test]
    fn shrinking_skips_the_case_it_just_found_and_ends_where_trying_every_step_would() {
        let shows = |case: &Case| case.calls.len() >= 3;
        // proptest's loop, every step's case tried: the minimal case and
        // how many tries.
        let every_step = |max: u32| {
            let mut tree = tree_with_idle_parts();
            let (mut minimal, mut tries) = (None, 0);
            if max > 0 && tree.simplify() {
                for _ in 0..max {
                    let case = tree.current();
                    tries += 1;
                    let moved = if shows(&case) {
                        minimal = Some(case);
                        tree.simplify()
                    } else {
                        tree.complicate()
                    };
                    if !moved {
                        break;
                    }
                }
            }
            (minimal, tries)
        };
        let mut skipped = 0;
        for max in 0..=256 {
            let mut tree = tree_with_idle_parts();
            let (mut tries, mut last_shown): (usize, Option<Case>) = (0, None);
            let (found, fault) = shrink_tree(&mut tree, max, |case| {
                tries += 1;
                assert_ne!(
                    last_shown.as_ref(),
                    Some(case),
                    "the case just shown, tried again"
                );
                if !shows(case) {
                    return Ok(None);
                }
                last_shown = Some(case.clone());
                Ok(Some(vec![vector(case.clone(), Vec::new(), Value::Null)]))
            });
            assert!(fault.is_none());
            let found = found.map(|(case, _)| case);
            let (minimal, all_tries) = every_step(max);
            assert_eq!(found, minimal, "limit {max}");
            assert!(tries <= all_tries, "limit {max}");
            skipped += all_tries - tries;
        }
        let (minimal, _) = every_step(1024);
        assert_eq!(minimal.map(|c| c.calls.len()), Some(3));
        assert!(skipped > 0, "no step gave back the case just shown");
    }

    /// The divergence of `serve --fault trim-type`: an artifact kept with a
    /// `type` that trimming would change.
    fn trims_type(c: &Case) -> bool {
        let outcome = model::outcome(c);
        outcome
            .tool_artifacts
            .iter()
            .any(|a| a.kind.trim() != a.kind)
    }

    /// A generated divergence shrinks by its tree, then greedily, to a case
    /// no step of [`crate::replay::smaller`] makes smaller and still showing
    /// it, where the tree alone stops short of one. The divergence stands
    /// in for `serve --fault trim-type`'s ([`trims_type`]).
    #[test]
    fn a_generated_divergence_shrinks_past_its_tree_to_a_minimum() {
        let shows = trims_type;
        let strategy = gen::case();
        let mut checked = 0;
        for position in 0..2000 {
            if checked == 3 {
                break;
            }
            let first = gen::case_at(&strategy, 1, position).unwrap();
            if !shows(&first) {
                continue;
            }
            checked += 1;
            let as_shown = |case: &Case| Ok(shows(case).then(Vec::new));
            let mut tree = gen::tree_at(&strategy, 1, position).unwrap();
            let (by_tree, _) = shrink_tree(&mut tree, 1024, as_shown);
            let by_tree = by_tree.map_or(first, |(case, _)| case);
            let mut tree = gen::tree_at(&strategy, 1, position).unwrap();
            let mut smallest = None;
            let (found, end) = shrink(&mut tree, 1024, |case| {
                if !shows(case) {
                    return Ok(None);
                }
                smallest = Some(case.clone());
                Ok(Some(vec![vector(case.clone(), Vec::new(), Value::Null)]))
            });
            assert!(matches!(end, End::Minimal));
            let found = found.map(|vectors| vectors[0].case.clone());
            assert_eq!(found, smallest, "position {position}");
            let minimal = found.expect("a smaller case");
            let json = |c: &Case| serde_json::to_string(c).unwrap();
            assert!(shows(&minimal), "position {position}");
            assert!(
                crate::replay::smaller(&minimal).all(|c| !shows(&c)),
                "position {position}: {} is not minimal",
                json(&minimal)
            );
            assert!(
                crate::replay::smaller(&by_tree).any(|c| shows(&c)),
                "position {position}: the tree alone reached a minimum, {}",
                json(&by_tree)
            );
        }
        assert_eq!(checked, 3, "too few cases show the divergence");
    }

    /// A case over [`HEAVY`] bytes shrinks as a fixed case does, by halves
    /// and greedily, without its tree: the same tries, in the same order, to the same
    /// case. The divergence stands in for `serve --fault
    /// stop-at-oversize`'s: a payload over RT-TOOL-6's floor.
    #[test]
    fn a_heavy_case_shrinks_greedily_alone() {
        let shows = |c: &Case| !model::floor_reasons(c, &|p| model::encoded_len(p)).is_empty();
        let size = |c: &Case| {
            let mut bytes = Vec::new();
            c.write_json(&mut bytes);
            bytes.len()
        };
        let strategy = gen::case();
        let heavy = |c: &Case| size(c) > HEAVY && c.calls.len() > 1 && shows(c);
        let position = (0..2000)
            .find(|&p| heavy(&gen::case_at(&strategy, 1, p).unwrap()))
            .expect("a heavy case of several calls over a floor in the stream");
        let first = gen::case_at(&strategy, 1, position).unwrap();
        assert!(shows(&first), "position {position}");
        let mut tried = [Vec::new(), Vec::new()];
        let mut found = Vec::new();
        for (way, tried) in tried.iter_mut().enumerate() {
            let as_shown = |case: &Case| {
                tried.push(case.clone());
                Ok(shows(case).then(|| vec![vector(case.clone(), Vec::new(), Value::Null)]))
            };
            let (minimal, end) = if way == 0 {
                let mut tree = gen::tree_at(&strategy, 1, position).unwrap();
                shrink(&mut tree, 1024, as_shown)
            } else {
                shrink_fixed(&first, 1024, as_shown)
            };
            assert!(matches!(end, End::Minimal));
            found.push(minimal.map(|vectors| vectors[0].case.clone()));
        }
        assert!(!tried[1].is_empty());
        assert!(tried[0] == tried[1], "the tries differ");
        assert_eq!(found[0], found[1]);
        let minimal = found[0].as_ref().expect("a smaller case");
        assert_eq!(minimal.calls.len(), 1);
    }

    /// A variant that fails early in a pass may show the divergence once a
    /// later step is made: here leaving out `x` shows it only once `y` is
    /// gone, and `y` goes after `x` was tried. A pass that did not wrap
    /// around would stop at `{"x": false}`.
    #[test]
    fn a_pass_wraps_around_to_the_variants_before_its_start() {
        let case: Case =
            crate::wire::parse(br#"{"calls":[{"tool_call_id":"c1","result":{"x":true,"y":"s"}}]}"#)
                .unwrap();
        let shows = |c: &Case| {
            let result = &c.calls[0].result;
            result.get("x").is_some() || result.get("y").is_none_or(|y| y == "")
        };
        shrinks_to_a_minimum(&case, &shows, "x and y");
    }

    /// A budget spent after any number of tries ends shrinking there, by
    /// its tree, by halves or greedily, with the vectors of the last case
    /// found to show the divergence (none before the first), and no try
    /// after it; a budget that outlasts shrinking changes nothing. The
    /// divergence stands in for `serve --fault trim-type`'s.
    #[test]
    fn a_spent_budget_ends_shrinking_with_the_smallest_case_so_far() {
        let shows = trims_type;
        let strategy = gen::case();
        let position = (0..2000)
            .find(|&p| shows(&gen::case_at(&strategy, 1, p).unwrap()))
            .expect("a case that shows it");
        // Shrinks with a budget of `budget` tries: how it ended, the case
        // of the vectors it gave, the last case shown, and the tries made.
        let with_budget = |budget: usize| {
            let (mut tries, mut last) = (0, None);
            let mut tree = gen::tree_at(&strategy, 1, position).unwrap();
            let (found, end) = shrink(&mut tree, 1024, |case| {
                if tries == budget {
                    return Err(Cut::Time);
                }
                tries += 1;
                if !shows(case) {
                    return Ok(None);
                }
                last = Some(case.clone());
                Ok(Some(vec![vector(case.clone(), Vec::new(), Value::Null)]))
            });
            let found = found.map(|vectors| vectors[0].case.clone());
            (end, found, last, tries)
        };
        let (end, unbounded, _, all) = with_budget(usize::MAX);
        assert!(matches!(end, End::Minimal));
        assert!(all > 20, "{all} tries");
        for budget in (0..all).step_by(7).chain([all - 1]) {
            let (end, found, last, tries) = with_budget(budget);
            assert!(matches!(end, End::Cut(Cut::Time)), "budget {budget}");
            assert_eq!(tries, budget);
            assert_eq!(found, last, "budget {budget}");
        }
        let (end, found, _, tries) = with_budget(all);
        assert!(matches!(end, End::Minimal));
        assert_eq!((found, tries), (unbounded, all));
    }
}
