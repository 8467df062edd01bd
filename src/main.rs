//! The `rt-tool-3` command line: a thin layer over the library.
//!
//! Exit codes follow the contract (see the crate's `reading` module): 0 ok,
//! 1 a violation or divergence, 2 invalid input or a broken process. Every
//! error is one line on stderr.

use std::io::{self, IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::RecvTimeoutError;

use clap::{Parser, Subcommand};
use rt_tool_3::diff;
use rt_tool_3::harness::{Limits, Process};
use rt_tool_3::judge::{self, Options, ProseMode};
use rt_tool_3::model::Zone;
use rt_tool_3::report;
use rt_tool_3::serve;
use rt_tool_3::standing::Standing;
use rt_tool_3::wire::Case;

/// mimalloc keeps freed memory for reuse instead of handing each large
/// buffer back to the system and faulting it in again: `diff` and `serve`
/// churn through many short-lived buffers of up to a few MB.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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

#[derive(Parser)]
#[command(
    name = "rt-tool-3",
    version,
    about = "Reference model and conformance oracle for RT-TOOL-3 (FlowDrop Workflow Specification 1.0-draft)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// The most bytes read from one input (a case, an outcome, a report to
    /// merge, a --replay file); past it the command stops with exit 2
    /// before reading more.
    #[arg(long, global = true, value_name = "BYTES", default_value_t = MAX_INPUT)]
    max_input_bytes: u64,
}

/// The default bound on one input, 1 GiB: a runtime's log of a few hundred
/// megabytes is read whole, and `check`, whose peak memory is about three
/// times its inputs, stays within a few GiB.
const MAX_INPUT: u64 = 1 << 30;

#[derive(Subcommand)]
enum Command {
    /// Read a case and print the reference outcome as JSON.
    Verdict {
        /// The case file; stdin when absent or `-`.
        file: Option<PathBuf>,
    },
    /// Judge an observed outcome against the model, naming each violated clause.
    Check {
        /// The case file (`-` for stdin).
        case: PathBuf,
        /// The observed outcome file (`-` for stdin).
        outcome: PathBuf,
        /// Demand the reference order of tool_artifacts instead of a multiset.
        #[arg(long)]
        strict_order: bool,
        /// How ¶3 is read: `data-only` (a failed call's error may shape its
        /// prose), `letter` (from data alone, failed calls too), or `exact`
        /// (the letter, and the reference rendering).
        #[arg(long, value_enum, default_value = "data-only")]
        prose: ProseMode,
        /// Print the judgement as JSON.
        #[arg(long)]
        json: bool,
    },

    /// Differential run against a process speaking the protocol, shrinking
    /// every divergence to a minimal case. With no command, runs against
    /// `rt-tool-3 serve`.
    Diff {
        /// Generated cases to examine (each costs 3 requests); 0 runs only
        /// the pinned vectors and the replays.
        #[arg(long, default_value_t = 256)]
        cases: u32,
        /// The seed; the same seed gives the same cases. Random when absent.
        #[arg(long)]
        seed: Option<u64>,
        /// How ¶3 is read: `data-only` (a failed call's error may shape its
        /// prose), `letter` (from data alone, failed calls too), or `exact`
        /// (the letter, and the reference rendering).
        #[arg(long, value_enum, default_value = "data-only")]
        prose: ProseMode,
        /// Replay the cases of FILE (a --save file, a vectors file, or JSON
        /// lines of cases) after the pinned vectors, before generating.
        #[arg(long, value_name = "FILE")]
        replay: Vec<PathBuf>,
        /// Leave out the pinned vectors: the replays and the generated
        /// stream alone (what the generators catch on their own).
        #[arg(long)]
        no_vectors: bool,
        /// Write a standing to publish, as Markdown, to FILE.
        #[arg(long, value_name = "FILE")]
        standing: Option<PathBuf>,
        #[command(flatten)]
        reports: Reports,
        /// Demand the reference order of tool_artifacts instead of a multiset.
        #[arg(long)]
        strict_order: bool,
        /// Seconds the process may take for one reply.
        #[arg(long, default_value_t = 10.0)]
        timeout: f64,
        /// The longest reply line read, in bytes.
        #[arg(long, default_value_t = 16 << 20)]
        max_line: usize,
        /// Where every divergence is written, as JSON vectors.
        #[arg(long, default_value = "rt-tool-3-divergences.json")]
        save: PathBuf,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Copies of the implementation to run at once, each with its share
        /// of the cases (`auto`: one per available core). The report is the
        /// same for any number.
        #[arg(long, default_value = "1", value_parser = parse_jobs)]
        jobs: usize,
        /// Run shard K of N of the campaign: stream positions K-1, K-1+N, …
        /// (needs --seed); `rt-tool-3 merge` joins the shards' reports.
        #[arg(long, value_name = "K/N", value_parser = diff::Shard::parse)]
        shard: Option<diff::Shard>,
        /// Print a progress line on stderr every SECS seconds, and one when
        /// a divergence is found and when it has shrunk, in a pipe, in CI
        /// and with --json too (instead of the terminal's bar).
        #[arg(long, value_name = "SECS")]
        progress: Option<f64>,
        /// The implementation under test and its arguments.
        #[arg(last = true)]
        command: Vec<String>,
    },
    /// Merge the `--json` reports (or final `--save` files) of the shards of
    /// one campaign into one report and one standing.
    Merge {
        /// The shards' reports, one per shard.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Write the merged standing, as Markdown, to FILE.
        #[arg(long, value_name = "FILE")]
        standing: Option<PathBuf>,
        #[command(flatten)]
        reports: Reports,
        /// Write the merged divergences, as `diff --save` does, to FILE.
        #[arg(long, value_name = "FILE")]
        save: Option<PathBuf>,
        /// Print the merged report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// One web page comparing implementations: the `--json` reports of
    /// `diff` (or `merge`) runs against each, a row each, a column each
    /// clause.
    Report {
        /// The `--json` reports, one per implementation.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Where the page is written.
        #[arg(long, value_name = "OUT", required = true)]
        html: PathBuf,
    },
    /// Print the language-neutral conformance vectors (or their JSON Schema).
    Vectors {
        /// Print the JSON Schema of case, outcome and vector instead.
        #[arg(long)]
        schema: bool,
    },
    /// Print generated valid cases, one compact JSON case a line; the same
    /// seed gives the same cases on any machine.
    Cases {
        /// How many cases to print.
        #[arg(long, required_unless_present = "census", conflicts_with = "census")]
        count: Option<u64>,
        /// The seed of the generator.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Instead of printing cases, count N (at least 1) of them: each
        /// adversarial feature's share, against its floor (a table; JSON
        /// with --json). Exits 1 if a feature is under its floor beyond
        /// chance.
        #[arg(long, value_name = "N", value_parser = parse_census)]
        census: Option<u64>,
        /// With --census: print JSON.
        #[arg(long, requires = "census")]
        json: bool,
    },
    /// Serve the reference model over the protocol on stdin and stdout.
    Serve {
        /// Seed one known violation or process fault.
        #[arg(long, value_enum)]
        fault: Option<serve::Fault>,
        /// Meet the rule another way than the reference (still conforming).
        #[arg(long, value_enum)]
        variant: Option<serve::Variant>,
        /// At which request a process fault strikes (the first is 1).
        #[arg(long, default_value_t = serve::STRIKE)]
        strike: u64,
        /// Wait this many milliseconds before each reply (a slow implementation).
        #[arg(long, default_value_t = 0)]
        delay_ms: u64,
    },
}

/// A failure that ends the command with exit code 2 and one line on stderr.
struct Fail {
    /// Which way: one of `rt_tool_3::code::EXIT_2` or of
    /// `rt_tool_3::code::PROCESS_FAULTS`.
    code: String,
    /// What happened, in one line.
    line: String,
}

impl From<String> for Fail {
    /// An input that is not what it must be: a case, an outcome, a file to
    /// replay or merge, an argument.
    fn from(line: String) -> Fail {
        Fail {
            code: "invalid-input".into(),
            line,
        }
    }
}

impl Fail {
    /// Output that could not be written (stdout, `--save`, a report).
    fn write(line: String) -> Fail {
        Fail {
            code: "cannot-write".into(),
            line,
        }
    }

    /// The implementation's process broke, in the way `code` names.
    fn process(code: &str, line: String) -> Fail {
        Fail {
            code: code.to_owned(),
            line,
        }
    }
}

/// Whether the command asked for JSON on stdout (`--json`): then an exit 2
/// before anything was written there writes its code and line there too.
static JSON_OUT: AtomicBool = AtomicBool::new(false);

/// Whether anything was written on stdout.
static PRINTED: AtomicBool = AtomicBool::new(false);

fn main() -> ExitCode {
    let cli = Cli::parse();
    INPUT_BOUND.store(cli.max_input_bytes, Ordering::Relaxed);
    let json = match &cli.command {
        Command::Check { json, .. }
        | Command::Diff { json, .. }
        | Command::Merge { json, .. }
        | Command::Cases { json, .. } => *json,
        _ => false,
    };
    JSON_OUT.store(json, Ordering::Relaxed);
    let result = match cli.command {
        Command::Verdict { file } => verdict(file),
        Command::Check {
            case,
            outcome,
            strict_order,
            prose,
            json,
        } => check(
            case,
            outcome,
            Options {
                strict_order,
                prose,
                siblings: false,
            },
            json,
        ),
        Command::Diff {
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
            progress,
            command,
        } => fixed_cases(!no_vectors, &replay).and_then(|fixed| {
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
        }),
        Command::Merge {
            files,
            standing,
            reports,
            save,
            json,
        } => merge(
            &files,
            &Files {
                save,
                standing,
                reports,
                json,
            },
        ),
        Command::Report { files, html } => compare(&files, &html),
        Command::Vectors { schema } => vectors(schema),
        Command::Cases {
            count,
            seed,
            census,
            json,
        } => match census {
            Some(n) => census_of(n, seed, json),
            None => cases(count.unwrap_or(0), seed),
        },
        Command::Serve {
            fault,
            variant,
            strike,
            delay_ms,
        } => {
            let out = io::BufWriter::new(io::stdout().lock());
            let settings = serve::Settings {
                fault,
                variant,
                strike,
                delay: std::time::Duration::from_millis(delay_ms),
            };
            serve::serve(io::stdin().lock(), out, settings)
                .map(|()| ExitCode::SUCCESS)
                .map_err(|e| Fail::from(format!("serve: {e}")))
        }
    };
    match result {
        Ok(code) => code,
        Err(Fail { code, line }) => {
            if JSON_OUT.load(Ordering::Relaxed) && !PRINTED.load(Ordering::Relaxed) {
                let error = serde_json::json!({"error": {"code": code, "message": line}});
                println!("{error}");
            }
            eprintln!("rt-tool-3: {line}");
            ExitCode::from(2)
        }
    }
}

fn verdict(file: Option<PathBuf>) -> Result<ExitCode, Fail> {
    let (name, bytes) = read_input(file)?;
    // The outcome is computed whole before the first byte is written.
    let out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    match rt_tool_3::verdict(&bytes, out) {
        Ok(Zone::Strict) => Ok(ExitCode::SUCCESS),
        Ok(Zone::Lenient(reasons)) => {
            let more = match reasons.len() {
                0..=3 => String::new(),
                n => format!("; and {} more", n - 3),
            };
            eprintln!(
                "rt-tool-3: note: lenient zone, only the safety half is normative: {}{more}",
                reasons[..reasons.len().min(3)].join("; ")
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(rt_tool_3::VerdictError::Invalid(e)) => {
            Err(Fail::from(format!("invalid case in {name}: {e}")))
        }
        Err(rt_tool_3::VerdictError::Write(e)) => {
            Err(Fail::write(format!("cannot write stdout: {e}")))
        }
    }
}

fn check(case: PathBuf, outcome: PathBuf, options: Options, json: bool) -> Result<ExitCode, Fail> {
    if case.as_os_str() == "-" && outcome.as_os_str() == "-" {
        return Err(Fail::from(
            "only one of CASE and OUTCOME can be stdin".to_owned(),
        ));
    }
    let (case_name, bytes) = read_input(Some(case))?;
    let case = Case::from_json(&bytes)
        .map_err(|e| Fail::from(format!("invalid case in {case_name}: {e}")))?;
    // Each input's bytes are let go once parsed: only the parsed values
    // are held while the outcome is judged.
    drop(bytes);
    let (name, bytes) = read_input(Some(outcome))?;
    // An outcome holding a lone surrogate escape is judged, not refused.
    let observed: serde_json::Value = rt_tool_3::wire::parse_reply(&bytes)
        .map_err(|e| Fail::from(format!("invalid outcome in {name}: {e}")))?;
    drop(bytes);
    let judgement = judge::judge(&case, &observed, options)
        .map_err(|e| Fail::from(format!("invalid outcome in {name}: {e}")))?;
    if json {
        #[derive(serde::Serialize)]
        struct Report<'a> {
            #[serde(flatten)]
            provenance: rt_tool_3::Provenance,
            reading: ProseMode,
            strict_order: bool,
            conforms: bool,
            #[serde(flatten)]
            judgement: &'a judge::Judgement,
        }
        write_json_line(&Report {
            provenance: rt_tool_3::provenance(),
            reading: options.prose,
            strict_order: options.strict_order,
            conforms: judgement.conforms(),
            judgement: &judgement,
        })?;
    } else {
        let zone = match &judgement.zone {
            Zone::Strict => "strict zone, judged in full".to_string(),
            Zone::Lenient(why) => format!("lenient zone, safety half only: {}", why.join("; ")),
        };
        let mut text = String::new();
        for v in &judgement.violations {
            text.push_str(&format!("{v}\n"));
        }
        for w in &judgement.warnings {
            text.push_str(&format!("warning: {w}\n"));
        }
        let p = rt_tool_3::provenance();
        let by = format!(
            "FlowDrop {}, rule_hash {}, {}, reading ¶3 as {}",
            p.spec_version,
            p.rule_hash,
            p.oracle,
            options.prose.name()
        );
        text.push_str(&match judgement.violations.len() {
            0 => format!("conforms to {} ({zone}) — {by}\n", p.rule),
            n => format!("violates {}: {n} violation(s) ({zone}) — {by}\n", p.rule),
        });
        print(text.as_bytes())?;
    }
    Ok(if judgement.conforms() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Streams `count` generated cases to stdout, one line each. A reader that
/// goes away (`| head`) ends the command quietly, with exit code 0.
fn cases(count: u64, seed: u64) -> Result<ExitCode, Fail> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    let written = (0..count)
        .zip(rt_tool_3::gen::cases(seed))
        .try_for_each(|(_, case)| {
            serde_json::to_writer(&mut out, &case)?;
            out.write_all(b"\n")
        })
        .and_then(|()| out.flush());
    match written {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(Fail::write(format!("cannot write stdout: {e}"))),
    }
}

/// Prints the census of `n` seeded cases: each feature's share, as a table
/// or JSON. Exits 1 if a feature is under its floor beyond chance
/// ([`rt_tool_3::gen::Share::under`]).
fn census_of(n: u64, seed: u64, json: bool) -> Result<ExitCode, Fail> {
    let census = rt_tool_3::gen::Census::of(n, seed);
    let text = if json {
        let mut text =
            serde_json::to_string_pretty(&census).map_err(|e| Fail::from(e.to_string()))?;
        text.push('\n');
        text
    } else {
        census.markdown()
    };
    print(text.as_bytes())?;
    Ok(if census.under_floor().is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn vectors(schema: bool) -> Result<ExitCode, Fail> {
    let value = if schema {
        rt_tool_3::vectors::schema()
    } else {
        let vectors = rt_tool_3::vectors::file()
            .map_err(|e| Fail::from(format!("the built-in examples: {e}")))?;
        serde_json::to_value(vectors)
            .map_err(|e| Fail::from(format!("cannot encode the vectors: {e}")))?
    };
    let mut text = serde_json::to_string_pretty(&value)
        .map_err(|e| Fail::from(format!("cannot encode: {e}")))?;
    text.push('\n');
    print(text.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

fn random_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    (nanos as u64) ^ u64::from(std::process::id()).rotate_left(32)
}

/// The files and form of `diff`'s output.
struct Files {
    save: Option<PathBuf>,
    standing: Option<PathBuf>,
    reports: Reports,
    json: bool,
}

/// The reports `diff` and `merge` write besides the standing.
#[derive(clap::Args)]
struct Reports {
    /// Write the run as JUnit XML to FILE, for a CI service's test
    /// panel: a test case per clause and per pinned vector.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Write the standing as one self-contained web page to FILE.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Write a badge service's endpoint JSON to FILE, saying which
    /// paragraphs are met.
    #[arg(long, value_name = "FILE")]
    badge: Option<PathBuf>,
}

impl Reports {
    /// Writes each report asked for, of `run` (made only if one is).
    fn write(&self, run: impl FnOnce() -> Result<report::Run, String>) -> Result<(), Fail> {
        type Render = fn(&report::Run) -> String;
        let writers: [(&Option<PathBuf>, Render); 3] = [
            (&self.junit, report::junit::junit),
            (&self.html, report::html::standing),
            (&self.badge, report::badge::badge),
        ];
        if writers.iter().all(|(path, _)| path.is_none()) {
            return Ok(());
        }
        let run = run().map_err(Fail::from)?;
        for (path, render) in writers {
            if let Some(path) = path {
                write_file(path, render(&run).as_bytes())?;
            }
        }
        Ok(())
    }
}

/// Writes a whole file atomically, or fails with one line.
fn write_file(path: &std::path::Path, bytes: &[u8]) -> Result<(), Fail> {
    rt_tool_3::atomic::write(path, bytes)
        .map_err(|e| Fail::write(format!("cannot write {}: {e}", path.display())))
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
    std::time::Duration::try_from_secs_f64(seconds).map_err(|_| {
        Fail::from(format!(
            "{flag} {seconds:?} is too long to be a number of seconds"
        ))
    })
}

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
        Err(Broke { code, message: why }) => {
            // The reports say the process broke: a CI panel shows an
            // error, not an empty pass.
            let report = diff::Report::empty(
                config.options,
                serde_json::Value::Null,
                config.seed,
                config.campaign(),
            );
            return Err(
                match files
                    .reports
                    .write(|| report::Run::unstarted(&report, code, &why))
                {
                    Ok(()) => Fail::process(code, why),
                    Err(also) => Fail::process(code, format!("{why}; and {}", also.line)),
                },
            );
        }
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
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    // The --save file ends with the final report, tally included, so that
    // `merge` can take it.
    if !report.divergences.is_empty() {
        saved(&report);
    }
    // Stopped here, before the report, so a process fault is reported last;
    // one that is already at fault is killed instead.
    let stopped = match report.fault {
        None => stop_copies(processes),
        Some(_) => {
            drop(processes);
            None
        }
    };
    conclude(&report, files, save_error, stopped)
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

/// Writes a report to a `--save` file, atomically; the error, if any.
fn save(path: Option<&std::path::Path>, report: &diff::Report) -> Option<String> {
    let path = path?;
    let bytes = serde_json::to_vec_pretty(report).unwrap_or_default();
    rt_tool_3::atomic::write(path, &bytes)
        .err()
        .map(|e| format!("cannot write {}: {e}", path.display()))
}

/// `--census`: how many cases to count, from 1: a census of none would
/// find nothing under its floor, and say nothing.
fn parse_census(text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!(
            "--census takes a number of cases from 1, not {text:?}"
        )),
    }
}

/// `diff --progress`: lines on stderr for a run nobody watches on a
/// terminal, such as a campaign's CI job, whose log must not fall silent
/// for long. Every `every`, how far the run is; at once, each divergence
/// found and each one shrunk.
struct Progress {
    every: std::time::Duration,
    total: u64,
    started: std::time::Instant,
    /// Cases examined so far.
    cases: AtomicU64,
    /// Divergences told as found, and as shrunk.
    told: std::sync::Mutex<(usize, usize)>,
}

impl Progress {
    fn new(every: std::time::Duration, total: u64) -> Progress {
        Progress {
            every,
            total,
            started: std::time::Instant::now(),
            cases: AtomicU64::new(0),
            told: std::sync::Mutex::new((0, 0)),
        }
    }

    /// A line every `every` until `stopped` is dropped.
    fn tick_until(&self, stopped: &std::sync::mpsc::Receiver<()>) {
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
    fn saw(&self, report: &diff::Report) {
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
                    "{} shrunk to a minimal case in {} requests ({})",
                    d.origin,
                    d.shrink_requests,
                    clause_ids(d)
                ));
                *shrunk = k + 1;
            }
        }
    }
}

/// The clause ids (and `errored`) a divergence shows, as a list.
fn clause_ids(d: &diff::Divergence) -> String {
    let ids: Vec<&str> = d.signature.iter().map(String::as_str).collect();
    ids.join(", ")
}

/// One progress line on stderr; a stderr gone away is no reason to stop.
fn tell(line: &str) {
    let _ = writeln!(io::stderr().lock(), "rt-tool-3 diff: {line}");
}

/// `--jobs`: a number of copies from 1, or `auto` for one per core.
fn parse_jobs(text: &str) -> Result<usize, String> {
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
struct Broke {
    code: &'static str,
    message: String,
}

/// `report`: the page comparing the implementations of the `--json`
/// reports `paths`, written to `out`.
fn compare(paths: &[PathBuf], out: &std::path::Path) -> Result<ExitCode, Fail> {
    let mut runs: Vec<report::Run> = Vec::with_capacity(paths.len());
    for path in paths {
        let (name, bytes) = read_input(Some(path.clone()))?;
        let run = report::Run::read(&name, &bytes).map_err(Fail::from)?;
        if let Some(first) = runs.first() {
            let text = |r: &report::Run| {
                format!(
                    "{} (FlowDrop {}, rule_hash {})",
                    r.said.rule, r.said.spec_version, r.said.rule_hash
                )
            };
            if text(first) != text(&run) {
                return Err(Fail::from(format!(
                    "{name} judged {}, the first report {}: a page compares runs against one text",
                    text(&run),
                    text(first)
                )));
            }
        }
        runs.push(run);
    }
    write_file(out, report::html::compare(&runs).as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// `merge`: the shards' reports read, checked and joined.
fn merge(paths: &[PathBuf], files: &Files) -> Result<ExitCode, Fail> {
    let mut parts = Vec::with_capacity(paths.len());
    for path in paths {
        parts.push(read_input(Some(path.clone()))?);
    }
    let report = rt_tool_3::merge::merge(&parts).map_err(Fail::from)?;
    let save_error = save(files.save.as_deref(), &report);
    conclude(&report, files, save_error, None)
}

/// The end of `diff` and `merge`: the standing written, the report
/// printed, and the exit code.
fn conclude(
    report: &diff::Report,
    files: &Files,
    save_error: Option<String>,
    stopped: Option<Broke>,
) -> Result<ExitCode, Fail> {
    let standing = Standing::of(report);
    if let Some(path) = &files.standing {
        write_file(path, standing.markdown().as_bytes())?;
    }
    files.reports.write(|| {
        let stopped = stopped.as_ref().map(|b| (b.code, b.message.as_str()));
        report::Run::of(report, &standing, stopped)
    })?;
    if files.json {
        #[derive(serde::Serialize)]
        struct Json<'a> {
            #[serde(flatten)]
            report: &'a diff::Report,
            standing: &'a Standing,
        }
        write_json_line(&Json {
            report,
            standing: &standing,
        })?;
    } else {
        print_report(report, &standing, files.save.as_deref())?;
    }
    if let Some(e) = save_error {
        return Err(Fail::write(e));
    }
    if let Some(f) = &report.fault {
        let (case, cut) = shown(&serde_json::to_value(&f.case).unwrap_or_default());
        let note = if cut {
            format!(" {CUT_NOTE}")
        } else {
            String::new()
        };
        return Err(Fail::process(
            &f.code,
            format!("{}; the case: {case}{note}", f.message),
        ));
    }
    if let Some(f) = stopped {
        return Err(Fail::process(f.code, f.message));
    }
    Ok(if report.divergences.is_empty() && standing.shown() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn print_report(
    report: &diff::Report,
    standing: &Standing,
    save: Option<&std::path::Path>,
) -> Result<(), Fail> {
    let name = |k: &str| {
        report
            .implementation
            .get(k)
            .and_then(serde_json::Value::as_str)
            .unwrap_or("?")
            .to_owned()
    };
    let mut text = format!(
        "rt-tool-3 diff: {} ({}) against {}, reading ¶3 as {}: {} cases ({} pinned vectors, {} replayed), {} requests, seed {}{}{}\n",
        name("name"),
        name("language"),
        report.provenance,
        report.reading.name(),
        report.cases,
        report.vectors.run,
        report.replayed - report.vectors.run,
        report.requests,
        report.seed,
        if report.campaign.shard.count > 1 {
            format!(", shard {} of the campaign's {} cases", report.campaign.shard, report.campaign.fixed + report.campaign.generated)
        } else {
            String::new()
        },
        if report.skipped > 0 {
            format!(", {} skipped", report.skipped)
        } else {
            String::new()
        },
    );
    // Each warning with its case, the first few; `--json` lists the
    // first `WARNED_MAX`.
    const SHOWN: usize = 10;
    for w in report.warned.iter().take(SHOWN) {
        text.push_str(&format!(
            "warning: {} [{}]: {}\n",
            w.origin, w.code, w.message
        ));
    }
    if report.warnings > SHOWN.min(report.warned.len()) as u64 {
        text.push_str(&format!(
            "warning: {} warning(s) in all; --json lists the first {} with their cases\n",
            report.warnings,
            rt_tool_3::diff::WARNED_MAX
        ));
    }
    for d in &report.divergences {
        text.push_str(&format!(
            "\nDIVERGENCE {} (first seen in {})\n",
            clause_ids(d),
            d.origin
        ));
        for v in &d.minimal {
            for violation in &v.violations {
                text.push_str(&format!("  {violation}\n"));
            }
            if v.violations.is_empty() {
                text.push_str(&format!("  {}\n", v.description));
            }
            let mut cut = false;
            let mut line = |label: &str, value: Result<serde_json::Value, serde_json::Error>| {
                let (value, shortened) = shown(&value.unwrap_or_default());
                cut |= shortened;
                // A lone surrogate the reply held, as the reply wrote it.
                let value = rt_tool_3::wire::shown_lone(&value);
                format!("  {label} {value}\n")
            };
            let mut lines = vec![
                line("minimal case:", serde_json::to_value(&v.case)),
                line("expected:    ", serde_json::to_value(&v.expected)),
                line("observed:    ", Ok(v.observed.clone())),
            ];
            if let Some(s) = &v.sibling {
                lines.push(format!("  shown on its {} sibling ({}):\n", s.name, s.what));
                lines.push(line("sibling case:", serde_json::to_value(&s.case)));
                lines.push(line("expected:    ", serde_json::to_value(&s.expected)));
                lines.push(line("observed:    ", Ok(s.observed.clone())));
            }
            text.push_str(&lines.concat());
            if cut {
                text.push_str(&format!("  {CUT_NOTE}\n"));
            }
        }
    }
    if standing.complete {
        text.push('\n');
        for c in &standing.clauses {
            let status = match c.status {
                rt_tool_3::standing::Status::Met => "met",
                rt_tool_3::standing::Status::NotMet => "NOT MET",
                rt_tool_3::standing::Status::NotExercised => "not exercised",
                rt_tool_3::standing::Status::NotShown => "NOT SHOWN",
            };
            let skipped = if c.skipped > 0 {
                format!(", {} skipped", c.skipped)
            } else {
                String::new()
            };
            text.push_str(&format!(
                "{:<13} {status} ({} cases bore on it{skipped})\n",
                c.clause.id(),
                c.cases
            ));
        }
        let skipped = &standing.vectors_skipped;
        for v in skipped.iter().take(SHOWN) {
            text.push_str(&format!(
                "SKIPPED {v}: every implementation owes each pinned vector its outcome\n"
            ));
        }
        if skipped.len() > SHOWN {
            text.push_str(&format!(
                "SKIPPED {} pinned vectors in all; --json lists them\n",
                skipped.len()
            ));
        }
    }
    if let (false, Some(save)) = (report.divergences.is_empty(), save) {
        text.push_str(&format!(
            "\n{} divergence(s), saved as JSON vectors to {}\n",
            report.divergences.len(),
            save.display()
        ));
    } else if !report.divergences.is_empty() {
        text.push_str(&format!("\n{} divergence(s)\n", report.divergences.len()));
    } else if report.fault.is_none() && standing.complete && !standing.shown() {
        text.push_str(
            "no divergence, but not shown: the implementation skipped what the run bore on\n",
        );
    } else if report.fault.is_none() {
        text.push_str("no divergence\n");
    }
    print(text.as_bytes())
}

/// The most bytes [`read_input`] reads from one input (`--max-input-bytes`).
static INPUT_BOUND: AtomicU64 = AtomicU64::new(MAX_INPUT);

/// Reads a whole input: a file, or stdin for `None` and `-`, at most
/// [`INPUT_BOUND`] bytes of it. A longer input (`/dev/zero`, a log gone
/// wrong) is refused after reading one byte past the bound, never held
/// whole; a regular file is refused by its size before it is read.
fn read_input(file: Option<PathBuf>) -> Result<(String, Vec<u8>), Fail> {
    let bound = INPUT_BOUND.load(Ordering::Relaxed);
    let (name, source): (String, Box<dyn Read>) = match file {
        Some(path) if path.as_os_str() != "-" => {
            let name = path.display().to_string();
            let file = std::fs::File::open(&path)
                .map_err(|e| Fail::from(format!("cannot read {name}: {e}")))?;
            let size = file
                .metadata()
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.len());
            if size.is_some_and(|size| size > bound) {
                return Err(over_bound(&name, bound));
            }
            if let Some(size) = size {
                // A regular file within the bound: read into room of its
                // size (and refused if it grew past the bound meanwhile).
                let mut bytes = Vec::with_capacity(size as usize);
                (&file)
                    .take(bound.saturating_add(1))
                    .read_to_end(&mut bytes)
                    .map_err(|e| Fail::from(format!("cannot read {name}: {e}")))?;
                if bytes.len() as u64 > bound {
                    return Err(over_bound(&name, bound));
                }
                return Ok((name, bytes));
            }
            (name, Box::new(file))
        }
        _ => ("stdin".into(), Box::new(io::stdin().lock())),
    };
    // Read into pieces of 1 MiB, joined once the end is reached: what is
    // held never passes the bound (a `Vec` filled whole would hold its old
    // room and its doubled one at once), and an input over it is refused
    // after reading one byte past it.
    const PIECE: usize = 1 << 20;
    let (mut pieces, mut total) = (Vec::<Vec<u8>>::new(), 0u64);
    let mut source = source;
    loop {
        if pieces.last().is_none_or(|p| p.len() == PIECE) {
            pieces.push(Vec::with_capacity(PIECE));
        }
        let piece = pieces.last_mut().expect("a piece");
        let room = PIECE - piece.len();
        let n = match (&mut source).take(room as u64).read_to_end(piece) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Fail::from(format!("cannot read {name}: {e}"))),
        };
        total += n as u64;
        if total > bound {
            return Err(over_bound(&name, bound));
        }
    }
    Ok((name, pieces.concat()))
}

/// The one line for an input over the bound.
fn over_bound(name: &str, bound: u64) -> Fail {
    Fail::from(format!(
        "{name} is over the input bound of {bound} bytes; --max-input-bytes raises it"
    ))
}

/// Prints one value as one line of JSON, all at once: nothing partial.
fn write_json_line<T: serde::Serialize>(value: &T) -> Result<(), Fail> {
    let mut line =
        serde_json::to_vec(value).map_err(|e| Fail::from(format!("cannot encode output: {e}")))?;
    line.push(b'\n');
    print(&line)
}

/// The longest string a report for a reader shows whole: the ids, texts
/// and types of a case (RT-TOOL-6's floor for a type is 256 bytes) stay
/// whole, and a payload over its 512,000-byte floor does not flood a
/// terminal or a CI log three times a divergence.
const SHOWN_WHOLE: usize = 512;

/// What a reader is told under a value [`shown`] cut.
const CUT_NOTE: &str =
    "(a string over 512 bytes is shown cut, then its length; the saved vectors and --json hold it whole)";

/// `v` as one line of compact JSON for a reader, and whether a string was
/// cut: each string, key or value, longer than [`SHOWN_WHOLE`] bytes is
/// shown as its first 64 characters, then, outside its quotes, its length:
/// `"xxxx…x"…[516432 bytes]`. A line with a string cut does not parse, so
/// it cannot be copied for the value by mistake.
fn shown(v: &serde_json::Value) -> (String, bool) {
    fn string(s: &str, out: &mut String, cut: &mut bool) {
        let head = match s.char_indices().nth(64) {
            Some((at, _)) if s.len() > SHOWN_WHOLE => &s[..at],
            _ => s,
        };
        out.push_str(&serde_json::Value::from(head).to_string());
        if head.len() < s.len() {
            out.push_str(&format!("…[{} bytes]", s.len()));
            *cut = true;
        }
    }
    fn value(v: &serde_json::Value, out: &mut String, cut: &mut bool) {
        match v {
            serde_json::Value::String(s) => string(s, out, cut),
            serde_json::Value::Array(items) => {
                out.push('[');
                for (i, x) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    value(x, out, cut);
                }
                out.push(']');
            }
            serde_json::Value::Object(entries) => {
                out.push('{');
                for (i, (k, x)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    string(k, out, cut);
                    out.push(':');
                    value(x, out, cut);
                }
                out.push('}');
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let (mut out, mut cut) = (String::new(), false);
    value(v, &mut out, &mut cut);
    (out, cut)
}

/// Writes finished output to stdout in one go, and flushes it.
fn print(bytes: &[u8]) -> Result<(), Fail> {
    PRINTED.store(true, Ordering::Relaxed);
    let mut out = io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| Fail::write(format!("cannot write stdout: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A string of 512 bytes is shown whole, one of 513 cut to its first 64
    /// characters (whole characters, however many bytes each takes) and its
    /// length; keys too; whatever is not cut is the value's compact JSON.
    #[test]
    fn shown_cuts_strings_over_512_bytes_at_64_characters() {
        let whole = json!({"a": "x".repeat(512), "b": [1, null, "\"q\"\n"]});
        assert_eq!(shown(&whole), (whole.to_string(), false));
        let (line, cut) = shown(&json!(["x".repeat(513)]));
        assert!(cut);
        assert_eq!(line, format!("[\"{}\"…[513 bytes]]", "x".repeat(64)));
        let wide = "é".repeat(300);
        let (line, cut) = shown(&json!({ wide.clone(): 1 }));
        assert!(cut);
        assert_eq!(line, format!("{{\"{}\"…[600 bytes]:1}}", "é".repeat(64)));
    }
}
