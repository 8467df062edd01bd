//! `diff --progress`: a line on stderr every few seconds of how far a run
//! is, and one as each divergence is found and as it is shrunk.

use std::io::{self, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::RecvTimeoutError;

use rt_tool_3::diff;

use super::conclusion::{clause_ids, shrunk_to};

/// `diff --progress`: lines on stderr for a run nobody watches on a
/// terminal, such as a campaign's CI job, whose log must not fall silent
/// for long. Every `every`, how far the run is; at once, each divergence
/// found and each one shrunk.
pub(crate) struct Progress {
    every: std::time::Duration,
    total: u64,
    started: std::time::Instant,
    /// Cases examined so far.
    pub(crate) cases: AtomicU64,
    /// Divergences told as found, and as shrunk.
    told: std::sync::Mutex<(usize, usize)>,
}

impl Progress {
    pub(crate) fn new(every: std::time::Duration, total: u64) -> Progress {
        Progress {
            every,
            total,
            started: std::time::Instant::now(),
            cases: AtomicU64::new(0),
            told: std::sync::Mutex::new((0, 0)),
        }
    }

    /// A line every `every` until `stopped` is dropped.
    pub(crate) fn tick_until(&self, stopped: &std::sync::mpsc::Receiver<()>) {
        while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(self.every) {
            let (found, shrunk) = self.told.lock().map_or((0, 0), |t| *t);
            let seconds = self.started.elapsed().as_secs_f64();
            let cases = self.cases.load(Ordering::Relaxed);
            let mut line = format!(
                "{cases} of {} cases ({:.0} %) in {seconds:.1} s, {:.0} a second, {found} {}",
                self.total,
                100.0 * cases as f64 / self.total.max(1) as f64,
                cases as f64 / seconds.max(1e-9),
                if found == 1 {
                    "divergence"
                } else {
                    "divergences"
                },
            );
            if shrunk < found {
                line.push_str(", shrinking one");
            }
            tell(&line);
        }
    }

    /// Tells each divergence of `report` not told yet as found, and each
    /// not told yet as shrunk once it has its minimal case.
    pub(crate) fn saw(&self, report: &diff::Report) {
        let Ok(mut told) = self.told.lock() else {
            return;
        };
        let (found, shrunk) = &mut *told;
        for (k, d) in report.divergences.iter().enumerate() {
            if k >= *found {
                tell(&format!(
                    "{} diverges ({}); shrinking it",
                    d.origin,
                    clause_ids(d)
                ));
                *found = k + 1;
            }
            if k >= *shrunk && !d.minimal.is_empty() {
                tell(&format!(
                    "{} shrunk to {} ({})",
                    d.origin,
                    shrunk_to(d),
                    clause_ids(d)
                ));
                *shrunk = k + 1;
            }
        }
    }
}

/// One progress line on stderr; a stderr gone away is no reason to stop.
fn tell(line: &str) {
    let _ = writeln!(io::stderr().lock(), "rt-tool-3 diff: {line}");
}
