//! How many judged cases bore on each clause: the counts a standing rests
//! on, kept by `diff` as it runs and summed by `merge`.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::judge::{self, Clause};
use crate::model;
use crate::wire::Case;

/// How many judged cases bore on each clause.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Tally(pub BTreeMap<Clause, u64>);

impl Tally {
    /// Counts one judged case.
    pub fn count(&mut self, case: &Case) {
        self.count_bearing(bearing(case));
    }

    /// Counts one judged case whose place against RT-TOOL-6's floors is
    /// already known (`diff` finds it for the zone): [`Tally::count`]
    /// without reading every payload again.
    pub fn count_over(&mut self, case: &Case, over_floors: bool) {
        self.count_bearing(bearing_over(case, over_floors));
    }

    fn count_bearing(&mut self, clauses: Vec<Clause>) {
        for clause in clauses {
            *self.0.entry(clause).or_default() += 1;
        }
    }

    /// Adds another tally's counts to this one.
    pub fn add(&mut self, other: &Tally) {
        for (clause, n) in &other.0 {
            *self.0.entry(*clause).or_default() += n;
        }
    }

    /// The cases that bore on `clause`.
    pub fn get(&self, clause: Clause) -> u64 {
        self.0.get(&clause).copied().unwrap_or(0)
    }
}

/// The clauses a case bears on: those an implementation could break on it.
///
/// ¶1 needs an artifact entry somewhere; ¶2 an exposure left at its
/// default; ¶3 a call; ¶4 an artifact a call may deliver; RT-TOOL-2 an entry
/// it drops (malformed, or of a call that did not succeed, or under the
/// reserved key of `data`); RT-TOOL-6 a run over its floors. Every case
/// bears on the outcome's shape.
pub fn bearing(case: &Case) -> Vec<Clause> {
    bearing_over(
        case,
        !model::floor_reasons(case, &|p| model::encoded_len(p)).is_empty(),
    )
}

/// [`bearing`], told whether the case is over RT-TOOL-6's floors.
pub fn bearing_over(case: &Case, over_floors: bool) -> Vec<Clause> {
    let mut any_entry = false;
    let mut deliverable = false;
    let mut dropped = false;
    for call in &case.calls {
        let may = judge::may_deliver(&call.result);
        let reserved = call
            .result
            .get("data")
            .and_then(|d| d.get(model::RESERVED_KEY))
            .is_some();
        dropped |= reserved;
        for (_, _, entry) in judge::candidate_entries(&call.result) {
            any_entry = true;
            let kept = model::well_formed(entry).is_some();
            deliverable |= kept && may;
            dropped |= !(kept && may);
        }
    }
    let mut clauses = Vec::new();
    let mut bears = |yes: bool, clause: Clause| {
        if yes {
            clauses.push(clause);
        }
    };
    bears(any_entry, Clause::KeyByKey);
    bears(case.exposed.is_none(), Clause::NotExposedByDefault);
    bears(!case.calls.is_empty(), Clause::ProseFromData);
    bears(deliverable, Clause::DeliveryRegardless);
    bears(dropped, Clause::Filter);
    bears(over_floors, Clause::Bounds);
    bears(true, Clause::Protocol);
    clauses
}
