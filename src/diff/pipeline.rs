//! The pipeline of cases in flight: the run, which takes what the workers
//! found in stream order, and one worker for each copy of the
//! implementation, which generates, sends and judges cases.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender, TryRecvError};

use proptest::strategy::Strategy;
use serde_json::Value;

use super::examine::Examined;
use super::report::{
    Config, Divergence, FaultReport, Report, ShrinkEnd, Vector, Warning, WARNED_MAX,
};
use super::sent::{Replies, Sent};
use super::shrink::{shrink_job, signature};
use crate::gen;
use crate::harness::{Fault, Process};
use crate::judge::Options;
use crate::tally::Tally;
use crate::wire::Case;

/// Cases in flight at once per process: sent, their replies not yet read.
/// While the process answers one case, the next ones wait in its stdin and
/// `diff` judges the case before and generates the one after, so neither
/// side waits on the other. The pipeline is refilled once half of it has
/// been judged, so cases go out in batches of half a pipeline: one hand-off
/// to the writer thread and one write for each, not one for every case.
const PIPELINE: usize = 16;

/// What a worker found at one stream position.
pub(super) enum Examination {
    /// Judged (or skipped): the vectors if it diverged, and what it bore on.
    Judged { examined: Examined, tally: Tally },
    /// The process faulted on it.
    Fault(FaultReport),
    /// The strategy rejected too many values: generation ends here.
    Rejected,
}

/// Position `j` of the shard, examined by `copy`.
pub(super) struct Found {
    j: u64,
    copy: usize,
    examination: Examination,
}

/// A worker's message to the run.
pub(super) enum Done {
    /// Positions examined, handed over a half pipeline at a time (one
    /// wake-up of the run for several cases), and at once when the worker
    /// is about to wait, has faulted, or is asked to shrink.
    Examined(Vec<Found>),
    /// A divergence shrunk.
    Shrunk(ShrunkJob),
}

/// A divergence shrunk, as the worker sends it back.
pub(super) struct ShrunkJob {
    /// The vectors of the smallest case found (`None` if none smaller).
    pub(super) minimal: Option<Vec<Vector>>,
    /// The fault that cut shrinking short, if one did.
    pub(super) fault: Option<FaultReport>,
    /// The requests it took.
    pub(super) requests: u64,
    /// How it ended.
    pub(super) end: ShrinkEnd,
    /// The seconds it took, when the time budget ran out.
    pub(super) seconds: Option<f64>,
}

/// The run's request to a worker: shrink the divergence at `position`.
pub(super) struct ShrinkJob {
    pub(super) position: u64,
    pub(super) target: BTreeSet<String>,
}

/// A case sent by a worker, with its siblings, and its replies once read.
pub(super) struct InFlight {
    j: u64,
    position: u64,
    pub(super) sent: Sent,
    pub(super) replies: Option<Replies>,
}

/// What every worker shares: the settings, the next position to take, and
/// whether to take more.
struct Shared<'c> {
    config: &'c Config,
    options: Options,
    /// Positions of the shard.
    positions: u64,
    next: AtomicU64,
    stop: AtomicBool,
    jobs: usize,
}

/// Runs the differential test on `processes`, copies of one implementation
/// (`diff --jobs N` starts N). `saved` is called with the report once when
/// a divergence is first seen (before shrinking starts) and once when it
/// has shrunk; `progress` with the number of cases examined.
///
/// The campaign's stream is the fixed cases, then `config.cases` cases
/// drawn from the strategy `make` builds, position `i` by
/// [`gen::tree_at`]`(seed, i)`, so with [`gen::case`] they are the cases
/// `rt-tool-3 cases --seed S` prints, in the same order. The run takes the
/// positions of `config.shard`. Each copy has a worker thread that takes the
/// next position, generates it, builds its siblings, sends them and judges
/// the replies, so the oracle's work runs on as many threads as there are
/// copies; what was found is then taken in stream order, whatever copy
/// judged it: a divergence with clause ids not seen before is shrunk
/// (proptest's value trees for a generated case: `simplify` while the
/// smaller case still shows those clauses, `complicate` when it does not;
/// then, and for a fixed one, by halves and [`crate::replay::smaller`]) by
/// the copy that found it, and the report, the numbering and the tally are
/// the same for any number of copies, but for a divergence whose time
/// budget ran out (`Config::shrink_time`: wall-clock time, which copies
/// sharing cores spend faster). A fault of any copy ends the run at the
/// first case, in stream order, that met one.
pub fn run<S, M>(
    processes: &mut [Process],
    make: M,
    config: &Config,
    saved: &mut dyn FnMut(&Report),
    progress: &dyn Fn(u64),
) -> Report
where
    S: Strategy<Value = Case>,
    M: Fn() -> S + Sync,
{
    let campaign = config.campaign();
    let implementation = processes
        .first()
        .map_or(Value::Null, |p| p.implementation.clone());
    let mut report = Report::empty(
        config.options,
        implementation,
        config.seed,
        campaign.clone(),
    );
    let shared = Shared {
        config,
        options: Options {
            siblings: true,
            ..config.options
        },
        positions: config.shard.len(campaign.fixed + campaign.generated),
        next: AtomicU64::new(0),
        stop: AtomicBool::new(false),
        jobs: processes.len(),
    };
    let (done, results) = channel();
    std::thread::scope(|scope| {
        let mut jobs = Vec::new();
        for (copy, process) in processes.iter_mut().enumerate() {
            let (tx, rx) = channel();
            jobs.push(tx);
            let (done, shared, make) = (done.clone(), &shared, &make);
            scope.spawn(move || worker(copy, process, make(), shared, &done, &rx));
        }
        drop(done);
        take_in_order(&mut report, &shared, &results, &jobs, saved, progress);
        shared.stop.store(true, Ordering::Relaxed);
        // Dropping the job channels tells idle workers the run is over.
    });
    report.requests = processes.iter().map(|p| p.requests).sum();
    report.complete = true;
    report
}

/// The run's side of the channel from the workers: what they found, kept
/// until its turn in stream order comes.
struct InOrder<'r, 'c> {
    shared: &'r Shared<'c>,
    results: &'r Receiver<Done>,
    /// What was found at positions whose turn has not come, with the copy
    /// that found it.
    pending: BTreeMap<u64, (usize, Examination)>,
}

impl InOrder<'_, '_> {
    /// Takes a worker's next message: positions examined go to `pending`
    /// (a fault stops every worker taking more), a divergence shrunk is
    /// returned. `Err` once every worker has gone.
    fn receive(&mut self) -> Result<Option<ShrunkJob>, ()> {
        match self.results.recv() {
            Ok(Done::Examined(found)) => {
                for Found {
                    j,
                    copy,
                    examination,
                } in found
                {
                    if matches!(examination, Examination::Fault(_)) {
                        self.shared.stop.store(true, Ordering::Relaxed);
                    }
                    self.pending.insert(j, (copy, examination));
                }
                Ok(None)
            }
            Ok(Done::Shrunk(shrunk)) => Ok(Some(shrunk)),
            Err(_) => Err(()),
        }
    }

    /// What was found at position `j` of the shard, with the copy that
    /// found it, once it has come; `None` once every worker has gone.
    fn found(&mut self, j: u64) -> Option<(usize, Examination)> {
        loop {
            if let Some(found) = self.pending.remove(&j) {
                break Some(found);
            }
            if self.receive().is_err() {
                return None;
            }
        }
    }

    /// The divergence shrunk, once it has come; `None` once every worker
    /// has gone.
    fn shrunk(&mut self) -> Option<ShrunkJob> {
        loop {
            match self.receive() {
                Ok(Some(shrunk)) => break Some(shrunk),
                Ok(None) => {}
                Err(()) => return None,
            }
        }
    }
}

/// The run's side: takes what the workers found in stream order, keeps
/// the tally, numbers the cases, and has each new divergence shrunk.
fn take_in_order(
    report: &mut Report,
    shared: &Shared,
    results: &Receiver<Done>,
    jobs: &[Sender<ShrinkJob>],
    saved: &mut dyn FnMut(&Report),
    progress: &dyn Fn(u64),
) {
    let config = shared.config;
    let mut in_order = InOrder {
        shared,
        results,
        pending: BTreeMap::new(),
    };
    for j in 0..shared.positions {
        let Some((copy, examination)) = in_order.found(j) else {
            return;
        };
        let position = config.shard.position(j);
        let (examined, tally) = match examination {
            Examination::Judged { examined, tally } => (examined, tally),
            Examination::Fault(fault) => {
                report.fault = Some(fault);
                return;
            }
            Examination::Rejected => return,
        };
        report.cases += 1;
        let origin = count_origin(report, config, position, &examined);
        report.skipped += u64::from(examined.skipped);
        report.warnings += examined.warnings.len() as u64;
        let room = WARNED_MAX.saturating_sub(report.warned.len());
        report
            .warned
            .extend(examined.warnings.into_iter().take(room).map(|w| Warning {
                origin: origin.clone(),
                position,
                code: w.code,
                place: w.place,
                message: w.message,
            }));
        if examined.skipped {
            report.skipped_tally.add(&tally);
        } else {
            report.tally.add(&tally);
        }
        progress(report.cases);
        let signature = signature(&examined.vectors);
        let known: BTreeSet<String> = report
            .divergences
            .iter()
            .flat_map(|d| d.signature.iter().cloned())
            .collect();
        if signature.is_empty() || signature.is_subset(&known) {
            continue;
        }
        // Saved before shrinking starts, so a kill loses nothing.
        report.divergences.push(Divergence {
            signature: signature.clone(),
            origin,
            position,
            shrink_requests: 0,
            shrink_end: ShrinkEnd::Pending,
            shrink_seconds: None,
            found: examined.vectors,
            minimal: Vec::new(),
        });
        saved(report);
        let job = ShrinkJob {
            position,
            target: signature,
        };
        if jobs[copy].send(job).is_err() {
            continue;
        }
        let Some(shrunk) = in_order.shrunk() else {
            return;
        };
        let fault = shrunk.fault;
        if let Some(last) = report.divergences.last_mut() {
            last.minimal = shrunk.minimal.unwrap_or_else(|| last.found.clone());
            last.shrink_requests = shrunk.requests;
            last.shrink_end = shrunk.end;
            last.shrink_seconds = shrunk.seconds;
        }
        saved(report);
        if fault.is_some() {
            shared.stop.store(true, Ordering::Relaxed);
            report.fault = fault;
            return;
        }
    }
}

/// Where the case at stream `position` came from, as a report names it:
/// a fixed case's origin, counted among the replayed cases (and a pinned
/// vector among the vectors run, failed or skipped as `examined` was), or
/// `generated case N`.
fn count_origin(
    report: &mut Report,
    config: &Config,
    position: u64,
    examined: &Examined,
) -> String {
    let fixed = usize::try_from(position)
        .ok()
        .and_then(|p| config.fixed.get(p));
    match fixed {
        Some(f) => {
            report.replayed += 1;
            if f.pinned {
                report.vectors.run += 1;
                if !examined.vectors.is_empty() {
                    report.vectors.failed.push(f.origin.clone());
                    report.vectors.failed_positions.push(position);
                    report
                        .vectors
                        .failed_codes
                        .push(codes_of(&examined.vectors));
                }
                if examined.skipped {
                    report.vectors.skipped.push(f.origin.clone());
                    report.vectors.skipped_positions.push(position);
                }
            }
            f.origin.clone()
        }
        None => format!(
            "generated case {}",
            position - config.fixed.len() as u64 + 1
        ),
    }
}

/// The distinct codes of what `vectors` show, in their order: each
/// finding's code, `errored` for an error owed an outcome.
fn codes_of(vectors: &[Vector]) -> Vec<String> {
    let mut codes: Vec<String> = Vec::new();
    for v in vectors {
        let names = v.violations.iter().map(|x| x.code.name());
        let names: Vec<&str> = match v.violations.is_empty() {
            true => vec!["errored"],
            false => names.collect(),
        };
        for name in names {
            if !codes.iter().any(|c| c == name) {
                codes.push(name.to_owned());
            }
        }
    }
    codes
}

/// One copy's worker: takes the next position of the shard, generates it,
/// sends it with its siblings, judges the replies, and shrinks what the run
/// asks it to. It ends when the run drops its job channel.
fn worker<S: Strategy<Value = Case>>(
    copy: usize,
    process: &mut Process,
    strategy: S,
    shared: &Shared,
    done: &Sender<Done>,
    jobs: &Receiver<ShrinkJob>,
) {
    let mut worker = Worker {
        copy,
        process,
        strategy,
        shared,
        done,
        in_flight: VecDeque::with_capacity(PIPELINE),
        broken: false,
        outbox: Vec::new(),
    };
    let mut waiting = None;
    loop {
        let job = match waiting.take().ok_or(()).or_else(|()| jobs.try_recv()) {
            Ok(job) => Some(job),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => return,
        };
        if let Some(job) = job {
            if !worker.shrink(&job) {
                return;
            }
            continue;
        }
        if !worker.fill() {
            return;
        }
        let Some(next) = worker.in_flight.pop_front() else {
            // Nothing left to judge: wait for a shrinking job or the end.
            if !worker.hand_over() {
                return;
            }
            match jobs.recv() {
                Ok(job) => waiting = Some(job),
                Err(_) => return,
            }
            continue;
        };
        worker.judge(next);
        if worker.broken && !worker.hand_over() {
            return;
        }
    }
}

/// One copy's worker as it runs: its process, the cases it has in flight,
/// and what it examined and has not yet handed to the run.
struct Worker<'w, 'c, S> {
    copy: usize,
    process: &'w mut Process,
    strategy: S,
    shared: &'w Shared<'c>,
    done: &'w Sender<Done>,
    in_flight: VecDeque<InFlight>,
    /// Whether the process has faulted: nothing more is sent to it.
    broken: bool,
    /// What was examined and not yet handed to the run.
    outbox: Vec<Found>,
}

impl<S: Strategy<Value = Case>> Worker<'_, '_, S> {
    /// Hands what was examined to the run, if anything; `false` once the
    /// run has gone.
    fn hand_over(&mut self) -> bool {
        let (outbox, done) = (&mut self.outbox, self.done);
        outbox.is_empty() || done.send(Done::Examined(std::mem::take(outbox))).is_ok()
    }

    /// Shrinks the divergence of `job`, once what was examined is handed
    /// over, and sends the run what came of it: nothing shrunk once the
    /// process has faulted. `false` once the run has gone.
    fn shrink(&mut self, job: &ShrinkJob) -> bool {
        if !self.hand_over() {
            return false;
        }
        let (copy, shared) = (self.copy, self.shared);
        let named = |fault: Fault| fault.of_copy(copy, shared.jobs);
        let shrunk = if self.broken {
            Done::Shrunk(ShrunkJob {
                minimal: None,
                fault: None,
                requests: 0,
                end: ShrinkEnd::Fault,
                seconds: None,
            })
        } else {
            shrink_job(
                self.process,
                &self.strategy,
                shared.config,
                shared.options,
                &mut self.in_flight,
                job,
                &named,
            )
        };
        if let Done::Shrunk(ShrunkJob { fault: Some(_), .. }) = &shrunk {
            self.broken = true;
        }
        self.done.send(shrunk).is_ok()
    }

    /// Fills the pipeline once it is half empty, sending the new cases in
    /// one batch. Near the end of the run a copy takes no more than its
    /// share of what is left, so no copy is left with a full pipeline
    /// while the others have nothing to do. `false` once the run has gone.
    fn fill(&mut self) -> bool {
        let shared = self.shared;
        let config = shared.config;
        let fixed = config.fixed.len() as u64;
        let mut batch: Vec<InFlight> = Vec::new();
        let left = shared
            .positions
            .saturating_sub(shared.next.load(Ordering::Relaxed));
        let depth = PIPELINE.min(1 + usize::try_from(left).unwrap_or(PIPELINE) / shared.jobs);
        let refill = self.in_flight.len() <= PIPELINE / 2;
        if refill && !self.hand_over() {
            return false;
        }
        while refill
            && !self.broken
            && self.in_flight.len() + batch.len() < depth
            && !shared.stop.load(Ordering::Relaxed)
        {
            let j = shared.next.fetch_add(1, Ordering::Relaxed);
            if j >= shared.positions {
                break;
            }
            let position = config.shard.position(j);
            let case = match usize::try_from(position)
                .ok()
                .and_then(|p| config.fixed.get(p))
            {
                Some(f) => Some(f.case.clone()),
                None => gen::case_at(&self.strategy, config.seed, position - fixed),
            };
            let Some(case) = case else {
                self.outbox.push(Found {
                    j,
                    copy: self.copy,
                    examination: Examination::Rejected,
                });
                self.hand_over();
                shared.stop.store(true, Ordering::Relaxed);
                break;
            };
            batch.push(InFlight {
                j,
                position,
                sent: Sent::new(case, shared.options.prose),
                replies: None,
            });
        }
        if !batch.is_empty() {
            self.process
                .send_each(|requests| batch.iter_mut().for_each(|f| f.sent.send_to(requests)));
            self.in_flight.extend(batch);
        }
        true
    }

    /// Judges `next`, the first case in flight, and puts what was found in
    /// the outbox. A fault breaks the copy: the cases still in flight are
    /// dropped, and nothing more is sent.
    fn judge(&mut self, mut next: InFlight) {
        let (copy, shared) = (self.copy, self.shared);
        let options = shared.options;
        let named = |fault: Fault| fault.of_copy(copy, shared.jobs);
        let (process, in_flight) = (&mut *self.process, &mut self.in_flight);
        let replies = next
            .replies
            .take()
            .unwrap_or_else(|| next.sent.read(process));
        // A judgement that needs more requests (`Sent::exposure_alone`)
        // has the replies of the cases still in flight read first, each
        // kept for its turn.
        let mut more = |cases: &[&Case]| {
            for waiting in in_flight.iter_mut() {
                if waiting.replies.is_none() {
                    let replies = waiting.sent.read(process);
                    let faulted = replies.is_err();
                    waiting.replies = Some(replies);
                    if faulted {
                        return Ok(Vec::new());
                    }
                }
            }
            process.run_all(cases)
        };
        let judged = replies.and_then(|r| next.sent.judge(r, options, &mut more));
        let examination = match judged {
            Ok(examined) => {
                let mut tally = Tally::default();
                tally.count_over(&next.sent.case, examined.over_floors);
                Examination::Judged { examined, tally }
            }
            Err(fault) => {
                self.broken = true;
                in_flight.clear();
                Examination::Fault(FaultReport::on_case(
                    fault.code(),
                    named(fault),
                    next.sent.case,
                    next.position,
                ))
            }
        };
        self.outbox.push(Found {
            j: next.j,
            copy,
            examination,
        });
    }
}
