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

mod edges;
mod floors;
mod rows;
mod types;
use self::edges::{COUNTS, NEAR_PAYLOAD, NEAR_RUN};
pub use self::floors::{lower_floor, LOWER_FLOORS};
use self::rows::{depth, OTHERS, SPOOFS};
use self::types::{Types, CHARS, TYPES};

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
/// reference outcome, every spoofed id with its place and kind, each kept
/// payload's sizes and depth, the JSON types in each place of a result,
/// and the classes of characters in its strings.
pub struct Seen<'c> {
    /// The case.
    pub case: &'c Case,
    /// The reference outcome of the case.
    pub outcome: Outcome,
    spoofs: BTreeSet<(Place, Kind)>,
    /// Each payload RT-TOOL-2 keeps, in the order collected: its sizes
    /// under every measure and its depth.
    kept: Vec<(Sizes, usize)>,
    types: Types,
    chars: u16,
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
        let kept = case
            .calls
            .iter()
            .flat_map(|c| {
                model::rt_tool_2_kept(&c.result)
                    .map(|(kind, p)| (Sizes::of(p, kind, &c.tool_call_id), depth(p)))
                    .collect::<Vec<_>>()
            })
            .collect();
        Seen {
            case,
            outcome: model::outcome(case),
            spoofs,
            kept,
            types: types::types_of(case),
            chars: types::case_chars(case),
        }
    }

    /// Whether a kept payload is within 2 % of 512,000 under `m`.
    fn near_payload(&self, m: Measure) -> bool {
        self.kept.iter().any(|(s, _)| Bound::Payload.near(s.get(m)))
    }

    /// Whether the run's kept payloads are within 2 % of 2,000,000 under `m`.
    fn near_run(&self, m: Measure) -> bool {
        Bound::Run.near(self.kept.iter().map(|(s, _)| s.get(m)).sum())
    }

    /// How many payloads RT-TOOL-2 keeps in the run.
    fn kept_count(&self) -> usize {
        self.kept.len()
    }

    /// The depth of the deepest kept payload (an empty object is 1).
    fn deepest_kept(&self) -> usize {
        self.kept.iter().map(|&(_, d)| d).max().unwrap_or(0)
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

/// Every feature, in the census's order.
pub fn features() -> impl Iterator<Item = &'static Feature> {
    SPOOFS
        .iter()
        .chain(OTHERS)
        .chain(&NEAR_PAYLOAD)
        .chain(&NEAR_RUN)
        .chain(&COUNTS)
        .chain(&TYPES)
        .chain(&CHARS)
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
            // A floor as it is: 2 %, 0.5 %.
            out.push_str(&format!(
                "| `{}` | {} | {:.1} %{flag} | {} % | {} |\n",
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
