//! The public report types: a divergence's vectors, the siblings beside
//! them, warnings, the report of a run, its campaign and shard, and the
//! settings of a run.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::judge::{self, Cite, Clause, Options, ProseMode, Violation};
use crate::replay::Fixed;
use crate::tally::Tally;
use crate::wire::{Case, Outcome};

/// A divergence as a reusable test: the case, what the reference expects,
/// what the implementation produced, and the clauses it breaks.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Vector {
    /// What the vector shows, in one sentence per violation.
    pub description: String,
    /// The clauses broken, as the specification cites them.
    pub clauses: Vec<Clause>,
    /// The same citations, structured (read back from the clauses).
    #[serde(skip_deserializing)]
    pub cites: Vec<Cite>,
    /// Each violation, said so a person can act on it.
    pub violations: Vec<Violation>,
    /// The case sent: as generated, replayed or shrunk, never a sibling
    /// (replaying it builds the same siblings again).
    pub case: Case,
    /// The reference outcome of that case.
    pub expected: Outcome,
    /// What the implementation answered to it.
    #[serde(deserialize_with = "crate::wire::value")]
    pub observed: Value,
    /// When one of the case's siblings showed the violations rather than
    /// the case itself: which, as it was sent, and what came back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sibling: Option<SiblingRun>,
}

/// A sibling of a case, as `diff` sent it, and what came back: the run
/// that showed a divergence the case alone did not.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SiblingRun {
    /// Which sibling: `marked`, `canary`, `exposure-alone` or `repeat`.
    pub name: String,
    /// What it changes from the case, in a few words.
    pub what: String,
    /// The sibling as sent.
    pub case: Case,
    /// Its reference outcome.
    pub expected: Outcome,
    /// What the implementation answered to it.
    #[serde(deserialize_with = "crate::wire::value")]
    pub observed: Value,
}

/// One bug found: the vectors of the case that first showed it, and of the
/// minimal case it shrank to.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Divergence {
    /// The clauses (and `errored`) the bug shows.
    pub signature: BTreeSet<String>,
    /// Where the case that first showed it came from: `vector N`, `FILE
    /// case N`, or `generated case N`.
    pub origin: String,
    /// Its position in the campaign's stream (the fixed cases first, then
    /// the generated ones), the same in every shard and with any `--jobs`.
    pub position: u64,
    /// Requests spent shrinking it.
    pub shrink_requests: u64,
    /// How shrinking ended: whether `minimal` is a minimal case, or the
    /// smallest found within a limit (absent in a report of an oracle that
    /// had no time budget, and read as `minimal`).
    #[serde(default)]
    pub shrink_end: ShrinkEnd,
    /// The seconds spent shrinking, given only when the time budget ran out
    /// (`shrink_end` is `time`): a wall-clock figure, which differs from one
    /// run to the next, where everything else the report says of a
    /// divergence shrunk within its budget does not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shrink_seconds: Option<f64>,
    /// The vectors of the case that first showed it.
    pub found: Vec<Vector>,
    /// The vectors of the minimal case, or of the smallest case found
    /// within the limits (`shrink_end`).
    pub minimal: Vec<Vector>,
}

/// How the shrinking of a divergence ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ShrinkEnd {
    /// A whole greedy pass found nothing smaller that still shows it: no
    /// key, item or call can go, nor any value be made simpler.
    #[default]
    Minimal,
    /// The limit of tries came first: the smallest case found within it,
    /// not a minimal one.
    Tries,
    /// The time budget (`diff --shrink-time`) ran out first: the smallest
    /// case found within it, not a minimal one.
    Time,
    /// A fault of the process cut shrinking short (the run ends on it): the
    /// smallest case found before it.
    Fault,
    /// Not shrunk yet: a `--save` file written as the divergence was found,
    /// before shrinking started (`minimal` is empty).
    Pending,
}

impl ShrinkEnd {
    /// Whether the case reported is a minimal one.
    pub fn minimal(self) -> bool {
        self == ShrinkEnd::Minimal
    }

    /// What the case reported is, when it is not a minimal one.
    pub fn note(self) -> Option<&'static str> {
        match self {
            ShrinkEnd::Minimal => None,
            ShrinkEnd::Tries => {
                Some("the smallest case found within the limit of tries, not a minimal one")
            }
            ShrinkEnd::Time => Some(
                "the smallest case found before the time budget (--shrink-time) ran out, not a minimal one",
            ),
            ShrinkEnd::Fault => {
                Some("the smallest case found before the process broke, not a minimal one")
            }
            ShrinkEnd::Pending => Some("the case as found, not shrunk yet"),
        }
    }
}

/// A warning, with the case that gave it: not a violation, but something
/// the implementation's authors may want to look at (a number matched only
/// up to an IEEE double's precision, an order that is not the reference's).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Warning {
    /// The case: `vector N (name)`, `FILE case N`, or `generated case N`.
    pub origin: String,
    /// Its position in the campaign's stream, as a divergence's.
    pub position: u64,
    /// What kind of warning it is (`src/codes.md`).
    pub code: judge::Code,
    /// Where it is in the case's outcome.
    #[serde(default)]
    pub place: judge::Place,
    /// The warning, which names its call where it is about one.
    pub message: String,
}

/// How many warnings a report lists with their cases: past it they are
/// only counted, so a long campaign's report stays small.
pub const WARNED_MAX: usize = 1000;

/// What a differential run found.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The rule, its text's hash and the oracle that judged.
    #[serde(flatten)]
    pub provenance: crate::Provenance,
    /// The reading of ¶3 used: `data-only`, `letter` or `exact`.
    pub reading: ProseMode,
    /// Whether the reference order of `tool_artifacts` was demanded.
    pub strict_order: bool,
    /// What the implementation says it is.
    pub implementation: Value,
    /// The seed the cases were generated from.
    pub seed: u64,
    /// The whole campaign this run is (a share of).
    pub campaign: Campaign,
    /// Whether this is the run's last word: false in a `--save` file
    /// written while the run went on.
    pub complete: bool,
    /// Cases examined, the replayed ones included, shrinking aside.
    pub cases: u64,
    /// Of those, the pinned vectors and replayed cases.
    pub replayed: u64,
    /// The pinned conformance vectors run, and which of them diverged.
    pub vectors: VectorsRun,
    /// Requests sent in all, shrinking included.
    pub requests: u64,
    /// Requests the implementation skipped.
    pub skipped: u64,
    /// Warnings (numbers an IEEE double cannot hold, orders) across all
    /// cases, each counted once for its case.
    pub warnings: u64,
    /// The first [`WARNED_MAX`] of those warnings, each with the case that
    /// gave it, in stream order.
    pub warned: Vec<Warning>,
    /// Every distinct bug found, shrunk, in stream order.
    pub divergences: Vec<Divergence>,
    /// The fault that stopped the run, with the case that caused it.
    pub fault: Option<FaultReport>,
    /// How many judged cases bore on each clause.
    pub tally: Tally,
    /// How many skipped cases bore on each clause. A clause that only
    /// skipped cases bore on is not shown, and the run does not conform: an
    /// implementation that skips every case must not pass.
    #[serde(default)]
    pub skipped_tally: Tally,
}

impl Report {
    /// The report of a run before any case: judged by this oracle under
    /// `options`, nothing counted yet, not complete.
    pub fn empty(options: Options, implementation: Value, seed: u64, campaign: Campaign) -> Report {
        Report {
            provenance: crate::provenance(),
            reading: options.prose,
            strict_order: options.strict_order,
            implementation,
            seed,
            campaign,
            complete: false,
            cases: 0,
            replayed: 0,
            vectors: VectorsRun::default(),
            requests: 0,
            skipped: 0,
            warnings: 0,
            warned: Vec::new(),
            divergences: Vec::new(),
            fault: None,
            tally: Tally::default(),
            skipped_tally: Tally::default(),
        }
    }
}

/// A campaign: its stream of cases, the fixed ones first, and which share
/// of it a run took.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Campaign {
    /// The fixed cases (pinned vectors, then replays), all shards together.
    pub fixed: u64,
    /// A digest of the fixed cases, so that shards of one campaign can be
    /// told from runs that replayed other files.
    pub fixed_digest: String,
    /// The generated cases (`--cases`), all shards together.
    pub generated: u64,
    /// The share of the stream this run took.
    pub shard: Shard,
}

/// Shard `index` of `count` (1-based): stream positions `index - 1`,
/// `index - 1 + count`, … of a campaign.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// Which shard, from 1.
    pub index: u32,
    /// How many shards the campaign is split into.
    pub count: u32,
}

impl Shard {
    /// The whole campaign: shard 1 of 1.
    pub const WHOLE: Shard = Shard { index: 1, count: 1 };

    /// Reads `K/N`, with 1 ≤ K ≤ N.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || format!("--shard takes K/N with 1 ≤ K ≤ N (as in --shard 3/8), not {text:?}");
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let index: u32 = k.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// The `j`-th stream position of this shard.
    pub fn position(self, j: u64) -> u64 {
        u64::from(self.index - 1) + j * u64::from(self.count)
    }

    /// How many of a stream of `total` positions are this shard's.
    pub fn len(self, total: u64) -> u64 {
        let first = u64::from(self.index - 1);
        if total > first {
            (total - first - 1) / u64::from(self.count) + 1
        } else {
            0
        }
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The pinned vectors in a run.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct VectorsRun {
    /// How many were run.
    pub run: u64,
    /// The descriptions of those that diverged.
    pub failed: Vec<String>,
    /// Their stream positions, in the same order.
    pub failed_positions: Vec<u64>,
    /// The codes of what each showed, in the same order: each finding's
    /// distinct code (`src/codes.md`), or `errored` for a case it errored
    /// on though it owed an outcome (empty in a report of an oracle before
    /// them).
    #[serde(default)]
    pub failed_codes: Vec<Vec<String>>,
    /// The descriptions of those the implementation skipped: not passed,
    /// and the run does not conform (every implementation owes each pinned
    /// vector its outcome).
    #[serde(default)]
    pub skipped: Vec<String>,
    /// Their stream positions, in the same order.
    #[serde(default)]
    pub skipped_positions: Vec<u64>,
}

/// A fault of the process under test: when it broke, how, and the case
/// that caused it, if a case did.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FaultReport {
    /// Which way the process broke: one of [`crate::code::PROCESS_FAULTS`]
    /// (empty in a report of an oracle before codes).
    #[serde(default)]
    pub code: String,
    /// What went wrong, in one line (naming the copy when there are several).
    pub message: String,
    /// The case being run when it happened; `null` when it broke before the
    /// first case (`phase` `start`) or after the last (`stop`).
    pub case: Option<Case>,
    /// The stream position of the case being judged when it happened (0
    /// before the first case; past the last one after it).
    pub position: u64,
    /// When it broke: at `start`, during the `run`, or at `stop` (`run` in
    /// a report of an oracle before phases).
    #[serde(default)]
    pub phase: Phase,
}

impl FaultReport {
    /// A fault on `case`, at stream position `position`, during the run.
    pub fn on_case(code: &str, message: String, case: Case, position: u64) -> FaultReport {
        FaultReport {
            code: code.to_owned(),
            message,
            case: Some(case),
            position,
            phase: Phase::Run,
        }
    }

    /// A fault before the first case or after the last, at `position`.
    pub fn outside(phase: Phase, code: &str, message: String, position: u64) -> FaultReport {
        FaultReport {
            code: code.to_owned(),
            message,
            case: None,
            position,
            phase,
        }
    }
}

/// When the process under test broke.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    /// It could not be started, or did not answer `start` with `ready`:
    /// no case was sent.
    Start,
    /// On a case, or while shrinking one.
    #[default]
    Run,
    /// Told to stop after every case was answered, it broke the protocol
    /// (a line nobody asked for, or it had stopped reading).
    Stop,
}

impl Phase {
    /// How a run that broke so ended, in a few words for a table's cell:
    /// `never started`, `broke during the run`, `broke when told to stop`.
    pub fn broke(self) -> &'static str {
        match self {
            Phase::Start => "never started",
            Phase::Run => "broke during the run",
            Phase::Stop => "broke when told to stop",
        }
    }

    /// What a run that broke so says instead of a standing, the one
    /// sentence every report of it shares: `why` is the fault's line and
    /// `code` its code, each made safe for where the sentence lands by
    /// `escape`: `The implementation never started, so no case was judged:
    /// it cannot be started: … (cannot-start). Nothing is claimed.`
    pub fn no_standing(self, why: &str, code: &str, escape: impl Fn(&str) -> String) -> String {
        let when = match self {
            Phase::Start => "The implementation never started, so no case was judged",
            Phase::Run => {
                "The run ended on a fault of the implementation's process before it was judged in full"
            }
            Phase::Stop => {
                "Every case was answered, then the implementation's process broke the protocol when told to stop"
            }
        };
        format!(
            "{when}: {} ({}). Nothing is claimed.",
            escape(why),
            escape(code)
        )
    }
}

/// What to run.
#[derive(Clone, Debug)]
pub struct Config {
    /// The first stream positions: the pinned vectors, then replays.
    pub fixed: Vec<Fixed>,
    /// Generated cases in the whole campaign, after the fixed ones.
    pub cases: u32,
    /// The seed: the same seed gives the same cases.
    pub seed: u64,
    /// How non-normative parts are judged.
    pub options: Options,
    /// Shrink steps at most per divergence: for a generated case, by its
    /// value tree, then as many by halves and as many greedily.
    pub max_shrink_iters: u32,
    /// The time each divergence may take to shrink (`None`: no limit);
    /// once spent, the smallest case found so far is reported as such.
    pub shrink_time: Option<std::time::Duration>,
    /// The share of the campaign to run.
    pub shard: Shard,
}

impl Config {
    /// The campaign these settings describe.
    pub fn campaign(&self) -> Campaign {
        // FNV-1a over the fixed cases as JSON: stable across machines.
        let mut hash = 0xcbf2_9ce4_8422_2325u64;
        for f in &self.fixed {
            let bytes = serde_json::to_vec(&f.case).unwrap_or_default();
            for b in bytes.iter().chain(b"\n") {
                hash = (hash ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3);
            }
        }
        Campaign {
            fixed: self.fixed.len() as u64,
            fixed_digest: format!("{hash:016x}"),
            generated: u64::from(self.cases),
            shard: self.shard,
        }
    }
}
