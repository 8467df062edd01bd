//! The `rt-tool-3` command line: a thin layer over the library.
//!
//! Exit codes follow the contract (see the crate's `reading` module): 0 ok,
//! 1 a violation or divergence, 2 invalid input or a broken process. Every
//! error is one line on stderr.
//!
//! This file holds the command line's definitions and sends each command
//! to its module under `cli/`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use rt_tool_3::diff;
use rt_tool_3::judge::{Options, ProseMode};
use rt_tool_3::serve;

mod cli;

use cli::fail::Fail;

/// mimalloc keeps freed memory for reuse instead of handing each large
/// buffer back to the system and faulting it in again: `diff` and `serve`
/// churn through many short-lived buffers of up to a few MB.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    #[arg(long, global = true, value_name = "BYTES", default_value_t = cli::input::MAX_INPUT)]
    max_input_bytes: u64,
}

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
    Diff(DiffArgs),
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
        #[arg(long, value_name = "N", value_parser = cli::cases::parse_census)]
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

/// The options and the command of `diff`.
#[derive(clap::Args)]
struct DiffArgs {
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
    #[arg(long, default_value = "1", value_parser = cli::diff::parse_jobs)]
    jobs: usize,
    /// Run shard K of N of the campaign: stream positions K-1, K-1+N, …
    /// (needs --seed); `rt-tool-3 merge` joins the shards' reports.
    #[arg(long, value_name = "K/N", value_parser = diff::Shard::parse)]
    shard: Option<diff::Shard>,
    /// Seconds each divergence may take to shrink; once spent, the
    /// smallest case found so far is reported as such, not as a minimal
    /// case (0: report the case that first showed it).
    #[arg(long, value_name = "SECS", default_value_t = 60.0)]
    shrink_time: f64,
    /// Print a progress line on stderr every SECS seconds, and one when
    /// a divergence is found and when it has shrunk, in a pipe, in CI
    /// and with --json too (instead of the terminal's bar).
    #[arg(long, value_name = "SECS")]
    progress: Option<f64>,
    /// The implementation under test and its arguments.
    #[arg(last = true)]
    command: Vec<String>,
}

/// The reports `diff` and `merge` write besides the standing (each written
/// by `Reports::write`, in `cli/conclusion.rs`).
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

impl Command {
    /// Whether the command asked for JSON on stdout (`--json`).
    fn json(&self) -> bool {
        match self {
            Command::Check { json, .. }
            | Command::Diff(DiffArgs { json, .. })
            | Command::Merge { json, .. }
            | Command::Cases { json, .. } => *json,
            _ => false,
        }
    }
}

/// mimalloc's option for how long freed memory waits before it is handed
/// back to the system (`mi_option_purge_delay` in its `mimalloc.h`): by
/// default 10 ms in mimalloc 2, 1,000 ms in mimalloc 3.
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Freed memory handed back at once, for a command that reads one large
/// input and exits: the buffers a parse outgrows are otherwise still
/// resident when the judge allocates, which raised `check`'s peak by a
/// tenth to a fifth on the bench's hostile shapes. Left alone if the
/// option does not hold its documented default, as another mimalloc's
/// numbering would show.
fn purge_at_once() {
    // SAFETY: mimalloc's options are plain integers it reads whenever it
    // frees memory; setting one changes only when that memory is purged.
    unsafe {
        if matches!(libmimalloc_sys::mi_option_get(PURGE_DELAY), 10 | 1000) {
            libmimalloc_sys::mi_option_set(PURGE_DELAY, 0);
        }
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return cli::fail::arguments(e),
    };
    if matches!(cli.command, Command::Check { .. }) {
        purge_at_once();
    }
    cli::input::bound(cli.max_input_bytes);
    cli::fail::json_out(cli.command.json());
    match run(cli.command) {
        Ok(code) => code,
        Err(fail) => fail.exit(),
    }
}

/// Runs one command: its arguments handed to its module under `cli/`.
fn run(command: Command) -> Result<ExitCode, Fail> {
    match command {
        Command::Verdict { file } => cli::verdict::verdict(file),
        Command::Check {
            case,
            outcome,
            strict_order,
            prose,
            json,
        } => cli::verdict::check(
            case,
            outcome,
            Options {
                strict_order,
                prose,
                siblings: false,
            },
            json,
        ),
        Command::Diff(args) => cli::diff::diff(args),
        Command::Merge {
            files,
            standing,
            reports,
            save,
            json,
        } => cli::merge::merge(
            &files,
            &cli::conclusion::Files {
                save,
                standing,
                reports,
                json,
            },
        ),
        Command::Report { files, html } => cli::merge::compare(&files, &html),
        Command::Vectors { schema } => cli::cases::vectors(schema),
        Command::Cases {
            count,
            seed,
            census,
            json,
        } => match census {
            Some(n) => cli::cases::census_of(n, seed, json),
            None => cli::cases::cases(count.unwrap_or(0), seed),
        },
        Command::Serve {
            fault,
            variant,
            strike,
            delay_ms,
        } => cli::serve::serve(serve::Settings {
            fault,
            variant,
            strike,
            delay: std::time::Duration::from_millis(delay_ms),
        }),
    }
}
