//! The census of boundaries: per bound of RT-TOOL-6 and per [`Measure`],
//! the cases within 2 % of it ([`Bound::near`]); kept counts at 50 and
//! either side; kept payloads nested deep.
//!
//! A kept payload is one RT-TOOL-2 keeps (a well-formed entry of a call
//! whose `success` is `true`), whether or not a bound of RT-TOOL-6 then
//! drops it; a run's size is the sum of its kept payloads under the
//! measure. Worked example: a case whose one call keeps payloads of
//! 512,000, 490,000, 490,000 and 508,500 bytes pretty-printed, and 1,500
//! after them, is `bounds.payload.pretty` (the first) and
//! `bounds.run.pretty` (2,002,000 in all).

use super::*;

/// A row per measure of one bound.
macro_rules! near {
    ($near:ident: $($name:literal, $measure:ident, $mistake:literal;)*) => {
        [$(Feature {
            name: $name,
            exposes: Clause::Bounds,
            mistake: $mistake,
            floor: 0.5,
            shows: |s| s.$near(Measure::$measure),
        }),*]
    };
}

/// A kept payload within 2 % of 512,000 bytes, under each measure.
pub(super) const NEAR_PAYLOAD: [Feature; 7] = near![near_payload:
    "bounds.payload.compact", Compact, "tests the 512,000-byte floor with `>=`, or measures compact UTF-8 where the escaped form is owed";
    "bounds.payload.ascii", Ascii, "measures the payload with non-ASCII escaped (`json.dumps`) and misplaces the floor by a few bytes";
    "bounds.payload.encoded", Encoded, "drops a payload of exactly 512,000 bytes by the longest plausible encoding (`>=` for `>`)";
    "bounds.payload.utf16", Utf16, "counts UTF-16 units (JavaScript's `.length`) against the floor, where bytes are meant";
    "bounds.payload.pretty", Pretty, "measures the payload pretty-printed, and drops one the floor still owes";
    "bounds.payload.base64", Base64, "measures the payload as base64 (a third more), and drops one the floor still owes";
    "bounds.payload.entry", Entry, "measures the whole entry with its keys, and drops a payload the floor still owes";
];

/// A run's kept payloads within 2 % of 2,000,000 bytes, under each measure.
pub(super) const NEAR_RUN: [Feature; 7] = near![near_run:
    "bounds.run.compact", Compact, "tests the run's 2,000,000 bytes with `>=`, or stops collecting at the first artifact that does not fit";
    "bounds.run.ascii", Ascii, "sums the run with non-ASCII escaped, and stops at the first artifact that does not fit";
    "bounds.run.encoded", Encoded, "drops the artifact that brings the run to exactly 2,000,000 bytes (`>=` for `>`)";
    "bounds.run.utf16", Utf16, "sums the run in UTF-16 units, or stops at an artifact that does not fit where a smaller one follows";
    "bounds.run.pretty", Pretty, "sums the run pretty-printed, and drops artifacts the run's floor still owes";
    "bounds.run.base64", Base64, "sums the run as base64, and drops artifacts the run's floor still owes";
    "bounds.run.entry", Entry, "sums the whole entries with their keys, and drops artifacts the run's floor still owes";
];

/// Kept counts at RT-TOOL-6's 50 and either side, and deep payloads.
pub(super) const COUNTS: [Feature; 4] = [
    Feature {
        name: "bounds.count.49",
        exposes: Clause::Bounds,
        mistake: "caps a run at 48, or counts malformed entries and failed calls toward its 50",
        floor: 0.5,
        shows: |s| s.kept_count() == 49,
    },
    Feature {
        name: "bounds.count.50",
        exposes: Clause::Bounds,
        mistake: "drops the 50th artifact (`>=` for `>`), or counts what RT-TOOL-2 drops toward the 50",
        floor: 0.5,
        shows: |s| s.kept_count() == 50,
    },
    Feature {
        name: "bounds.count.51",
        exposes: Clause::Bounds,
        mistake: "delivers nothing, or fails the run, at one over 50, where it drops one and keeps 50",
        floor: 0.5,
        shows: |s| s.kept_count() == 51,
    },
    Feature {
        name: "bounds.deep_payload",
        exposes: Clause::KeyByKey,
        mistake: "copies, validates or prints a payload by recursion to a depth of its own, and fails or cuts one 64 or more levels deep",
        floor: 0.5,
        shows: |s| s.deepest_kept() >= 64,
    },
];
