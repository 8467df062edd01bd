//! The differential test: the pinned vectors, any replayed cases, then
//! generated cases, run through an implementation under test and judged,
//! each divergence shrunk to a minimal case (or, once its time budget
//! [`Config::shrink_time`] is spent, to the smallest case found, reported
//! as such: [`ShrinkEnd`]).
//!
//! Generation and shrinking are proptest's own: [`run`] draws value trees
//! from the strategy with [`gen::runner`], and shrinks a divergence with
//! the tree's `simplify` and `complicate`, the way proptest shrinks a failing
//! property, against the external process; then by halves (delta
//! debugging) and greedily, by [`crate::replay::smaller`], what the tree
//! cannot take out. A replayed case has no tree; it shrinks by halves and
//! greedily alone.
//! Cases are pipelined: a few are in flight while earlier ones are
//! judged, so on two cores the oracle's own work hides behind the
//! implementation's. A harness [`Fault`] is never a divergence: it stops
//! the run and is reported with its case. A reply that carries its
//! request's reference outcome byte for byte conforms,
//! and is neither parsed nor, with the other two of its case, judged
//! (`Sent::judge` says when, and why no verdict depends on it).
//!
//! Each case costs three requests ([`REQUESTS_PER_CASE`]), sent together:
//!
//! 0. the case as it is;
//! 1. the *marked* sibling: the exposure changed (`true` to `false`,
//!    anything else to `true`, so one of the two has the port exposed) and
//!    each call's `data` given a marker of its own where it can hold one;
//! 2. the *canary* sibling: the marked sibling with fresh call ids and every
//!    result's artifacts (and the entries under the reserved `artifacts` key
//!    of an object `data`) swapped for canaries, one more entry than before,
//!    each carrying a spoofed `tool_call_id`; every string under every other
//!    result key (whatever its name, at any depth) and result-level decoys
//!    set to canaries; the `error` of every call that succeeded set to a
//!    canary, and under the letter of ¶3 that of every call that did not;
//!    the port hidden as whichever of 0 and 1 had it hidden;
//!
//! and, only when 0 and 1 deliver differently (so never against a
//! conforming implementation), two more, sent after the replies of every
//! case still in flight have been read (`Sent::exposure_alone`):
//!
//! 3. the *exposure-alone* sibling: the case with the exposure of 1 and
//!    nothing else changed (no marker, the same ids, the same artifacts);
//! 4. the *repeat*: the case again, as it is.
//!
//! ¶4 is judged on 3 and 4, which differ in the exposure alone: when they
//! deliver differently, `RT-TOOL-3 ¶4` is charged to whichever has the port
//! hidden, its message naming the artifact and the call that differ, and
//! the port is judged for ¶1 on the exposed run of 0 and 1 alone. When they
//! deliver the same, 0 and 1 differed by something other than the exposure
//! (the markers, a cache, an artifact delivered once and not again, which
//! the repeat shows too), and each run is judged on its own. ¶3 is judged
//! by comparing 1 and 2, which differ in nothing the prose may draw on: in
//! a strict-zone case no call's prose may change (its own id read back as
//! the old one), in any case no canary may appear, and no call's prose may
//! carry another call's marker.
//! So a conforming implementation with its own prose rendering or artifact
//! order passes; `--prose exact` additionally demands the reference
//! rendering. What a sibling shows is reported on the case sent (the one
//! generated, replayed or shrunk), the sibling beside it as it was sent
//! ([`Vector::sibling`]): replaying the case builds the same siblings.
//!
//! Worked example: for `{"calls": [{"tool_call_id": "c1", "result":
//! {"success": true, "data": "made", "error": "x", "artifacts": [A]}}, …]}`
//! the canary sibling of `c1` is `{"success": true, "data": "made MARK…1",
//! "error": "CANARY…", "artifacts": [C1, C2], "content": "CANARY…", …}`; a
//! runtime that feeds the model `error` on success, or `c2`'s data as `c1`'s
//! prose, shows a canary or `c2`'s marker in `c1`'s prose.
//!
//! [`gen::runner`]: crate::gen::runner
//! [`Fault`]: crate::harness::Fault

mod by_siblings;
mod canary;
mod ddmin;
mod examine;
mod marked;
mod pipeline;
mod report;
mod sent;
mod shrink;
mod tokens;

pub use examine::{examine, sibling_names, Examined};
pub use marked::MARKER_KEY;
pub use pipeline::run;
pub use report::{
    Campaign, Config, Divergence, FaultReport, Phase, Report, Shard, ShrinkEnd, SiblingRun, Vector,
    VectorsRun, Warning, WARNED_MAX,
};
pub use sent::siblings;

pub use crate::replay::Fixed;

/// Requests sent for each case.
pub const REQUESTS_PER_CASE: u64 = 3;
