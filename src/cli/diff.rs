//! `diff`: the differential run against copies of an implementation, from
//! its options to its report: the cases fixed and generated, the copies
//! started and stopped, the `--save` file kept as the run goes, progress.

use std::io::{self, IsTerminal};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::Ordering;

use rt_tool_3::diff;
use rt_tool_3::harness::{Limits, Process};
use rt_tool_3::judge::Options;

use super::conclusion::{conclude, save, Files};
use super::fail::Fail;
use super::input::read_input;
use super::progress::Progress;
use crate::DiffArgs;

/// `diff`: its options read and checked, then the run.
pub(crate) fn diff(args: DiffArgs) -> Result<ExitCode, Fail> {
    let DiffArgs {
        cases,
        seed,
        prose,
        replay,
        no_vectors,
        standing,
        reports,
        strict_order,
        timeout,
        max_line,
        save,
        json,
        jobs,
        shard,
        shrink_time,
        progress,
        command,
    } = args;
    let fixed = fixed_cases(!no_vectors, &replay)?;
    let options = Options {
        strict_order,
        prose,
        siblings: true,
    };
    if shard.is_some() && seed.is_none() {
        return Err(Fail::from(
            "--shard needs --seed: every shard must draw from one stream".to_owned(),
        ));
    }
    let config = diff::Config {
        fixed,
        cases,
        seed: seed.unwrap_or_else(random_seed),
        options,
        max_shrink_iters: 1024,
        shrink_time: Some(budget_of("--shrink-time", shrink_time)?),
        shard: shard.unwrap_or(diff::Shard::WHOLE),
    };
    let files = Files {
        save: Some(save),
        standing,
        reports,
        json,
    };
    let every = progress.map(|p| seconds_of("--progress", p)).transpose()?;
    let limits = Limits {
        timeout: seconds_of("--timeout", timeout)?,
        max_line,
    };
    run_diff(config, &limits, jobs, every, &files, command)
}

/// The pinned vectors (unless left out), then each `--replay` file's
/// cases, in order.
fn fixed_cases(pinned: bool, replay: &[PathBuf]) -> Result<Vec<diff::Fixed>, Fail> {
    let mut fixed = match pinned {
        true => rt_tool_3::replay::pinned()
            .map_err(|e| Fail::from(format!("the built-in vectors: {e}")))?,
        false => Vec::new(),
    };
    for path in replay {
        let (name, bytes) = read_input(Some(path.clone()))?;
        fixed.extend(rt_tool_3::replay::load(&name, &bytes).map_err(Fail::from)?);
    }
    Ok(fixed)
}

/// `--timeout` and `--progress`: seconds, positive, within what a
/// `Duration` holds.
fn seconds_of(flag: &str, seconds: f64) -> Result<std::time::Duration, Fail> {
    if !(seconds.is_finite() && seconds > 0.0) {
        return Err(Fail::from(format!(
            "{flag} must be a positive number of seconds, not {seconds:?}"
        )));
    }
    duration(flag, seconds)
}

/// `--shrink-time`: seconds, 0 or more (0 shrinks nothing), within what a
/// `Duration` holds.
fn budget_of(flag: &str, seconds: f64) -> Result<std::time::Duration, Fail> {
    if !(seconds.is_finite() && seconds >= 0.0) {
        return Err(Fail::from(format!(
            "{flag} must be a number of seconds, 0 or more, not {seconds:?}"
        )));
    }
    duration(flag, seconds)
}

/// `seconds` as a `Duration`, or the line that says it is too long to be one.
fn duration(flag: &str, seconds: f64) -> Result<std::time::Duration, Fail> {
    std::time::Duration::try_from_secs_f64(seconds).map_err(|_| {
        Fail::from(format!(
            "{flag} {seconds:?} is too long to be a number of seconds"
        ))
    })
}

/// Runs `diff` against `jobs` copies of `command` (of `rt-tool-3 serve`
/// when it is empty), then concludes.
fn run_diff(
    config: diff::Config,
    limits: &Limits,
    jobs: usize,
    every: Option<std::time::Duration>,
    files: &Files,
    mut command: Vec<String>,
) -> Result<ExitCode, Fail> {
    if command.is_empty() {
        let me = std::env::current_exe()
            .map_err(|e| Fail::from(format!("cannot find this program: {e}")))?;
        command = vec![me.display().to_string(), "serve".into()];
    }
    let mut processes = match start_copies(&command, limits, jobs) {
        Ok(processes) => processes,
        Err(broke) => return unstarted(&config, files, broke),
    };
    small_pages();
    let campaign = config.campaign();
    let total = config.shard.len(campaign.fixed + campaign.generated);
    let lines = every.map(|every| Progress::new(every, total));
    let bar = (lines.is_none() && !files.json && io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(total);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} cases {elapsed} {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let mut save_error = None;
    let mut saved = |report: &diff::Report| {
        if let Some(lines) = &lines {
            lines.saw(report);
        }
        if let Some(e) = save(files.save.as_deref(), report) {
            save_error = Some(e);
        }
    };
    let progress = |n: u64| {
        if let Some(bar) = &bar {
            bar.set_position(n);
        }
        if let Some(lines) = &lines {
            lines.cases.store(n, Ordering::Relaxed);
        }
    };
    let report = std::thread::scope(|scope| {
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        if let Some(lines) = &lines {
            scope.spawn(move || lines.tick_until(&stopped));
        }
        let report = diff::run(
            &mut processes,
            rt_tool_3::gen::case,
            &config,
            &mut saved,
            &progress,
        );
        drop(stop);
        report
    });
    let mut report = report;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    // Stopped here, before the report, so a fault at `stop` is in it as
    // every other fault is; one that is already at fault is killed instead.
    match report.fault {
        None => {
            let past = campaign.fixed + campaign.generated;
            report.fault = stop_copies(processes)
                .map(|b| diff::FaultReport::outside(diff::Phase::Stop, b.code, b.message, past));
        }
        Some(_) => drop(processes),
    }
    // The --save file ends with the final report, tally included, so that
    // `merge` can take it; a run that broke says so there too. A run that
    // found nothing writes it only over a file already there, which an
    // earlier run left: never a stale divergence beside a passing run.
    let stale = files.save.as_deref().is_some_and(std::path::Path::exists);
    if !report.divergences.is_empty() || report.fault.is_some() || stale {
        saved(&report);
    }
    conclude(&report, files, save_error)
}

/// Stops every copy at once, each on a thread of its own: a copy takes a
/// while to exit (the CPython adapter, about 6 ms from `stop` to its exit),
/// and one at a time the copies' exits would add up. The first copy's
/// fault, if any, named by its copy when there are several.
fn stop_copies(processes: Vec<Process>) -> Option<Broke> {
    let copies = processes.len();
    let faults = each_on_a_thread(processes, Process::stop);
    faults.into_iter().enumerate().find_map(|(copy, stopped)| {
        stopped.err().map(|f| Broke {
            code: f.code(),
            message: f.of_copy(copy, copies),
        })
    })
}

/// The end of a run whose implementation could not be started (or gave no
/// `ready`): every output asked for is written and says it never started,
/// so a CI panel shows an error, not an empty pass, and no file of an
/// earlier run is left standing.
fn unstarted(config: &diff::Config, files: &Files, broke: Broke) -> Result<ExitCode, Fail> {
    let mut report = diff::Report::empty(
        config.options,
        serde_json::Value::Null,
        config.seed,
        config.campaign(),
    );
    report.fault = Some(diff::FaultReport::outside(
        diff::Phase::Start,
        broke.code,
        broke.message,
        0,
    ));
    let save_error = save(files.save.as_deref(), &report);
    conclude(&report, files, save_error)
}

/// `--jobs`: a number of copies from 1, or `auto` for one per core.
pub(crate) fn parse_jobs(text: &str) -> Result<usize, String> {
    if text == "auto" {
        return Ok(std::thread::available_parallelism().map_or(1, usize::from));
    }
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!(
            "--jobs takes a number from 1, or auto, not {text:?}"
        )),
    }
}

/// `f` of each item, all at once, each on a thread of its own, in the
/// items' order. Starting and stopping copies neither panics; if either
/// ever did, that is this program's bug, not the implementation's fault,
/// and shows as such.
fn each_on_a_thread<T: Send, R: Send>(items: Vec<T>, f: impl Fn(T) -> R + Sync) -> Vec<R> {
    std::thread::scope(|scope| {
        let f = &f;
        let running: Vec<_> = items
            .into_iter()
            .map(|item| scope.spawn(move || f(item)))
            .collect();
        running
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

/// Starts `jobs` copies of the implementation at once, each answering
/// `start` before the run begins.
fn start_copies(command: &[String], limits: &Limits, jobs: usize) -> Result<Vec<Process>, Broke> {
    let started = each_on_a_thread((0..jobs).collect(), |_| {
        Process::start(command, limits.clone())
    });
    let mut processes = Vec::with_capacity(jobs);
    for (copy, started) in started.into_iter().enumerate() {
        match started {
            Ok(p) => processes.push(p),
            Err(f) => {
                return Err(Broke {
                    code: f.code(),
                    message: f.of_copy(copy, jobs),
                })
            }
        }
    }
    Ok(processes)
}

/// How the implementation's process broke: its code and its line.
pub(crate) struct Broke {
    pub(crate) code: &'static str,
    pub(crate) message: String,
}

/// A seed for a run not given one: the time, and the process id.
fn random_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    (nanos as u64) ^ u64::from(std::process::id()).rotate_left(32)
}

/// From here on this process gets small (4 KiB) pages, not transparent huge
/// pages, which mimalloc asks for and the kernel zeroes whole (2 MiB) when
/// first touched. `diff` asks once it has started the implementation, which
/// would inherit the setting and is left as it is. Best effort: a system
/// that refuses keeps its huge pages, which is slower, not wrong.
#[cfg(target_os = "linux")]
fn small_pages() {
    let (on, unused): (libc::c_ulong, libc::c_ulong) = (1, 0);
    // SAFETY: PR_SET_THP_DISABLE takes a flag and changes only which pages
    // the kernel gives this process from now on.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, on, unused, unused, unused);
    }
}

#[cfg(not(target_os = "linux"))]
fn small_pages() {}
