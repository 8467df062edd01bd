//! The `rt-tool-3` command line: a thin layer over the library.
//!
//! Exit codes follow READING.md: 0 ok, 1 a violation or divergence, 2 invalid
//! input or a broken process. Every error is one line on stderr.

use std::io::{self, BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use rt_tool_3::gen;
use rt_tool_3::judge::{self, Options, ProseMode};
use rt_tool_3::model::{self, Zone};
use rt_tool_3::wire::Case;

#[derive(Parser)]
#[command(
    name = "rt-tool-3",
    version,
    about = "Reference model and conformance oracle for RT-TOOL-3 (FlowDrop Workflow Specification 1.0-draft)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Read a case and print the reference outcome as JSON.
    Verdict {
        /// The case file; stdin when absent or `-`.
        file: Option<PathBuf>,
    },
    /// Print generated valid cases, one compact JSON case a line; the same
    /// seed gives the same cases on any machine.
    Cases {
        /// How many cases to print.
        #[arg(long)]
        count: u64,
        /// The seed of the generator.
        #[arg(long, default_value_t = 0)]
        seed: u64,
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
        /// How the prose is judged: clause 3 alone, or the reference rendering too.
        #[arg(long, value_enum, default_value = "data-only")]
        prose: Prose,
        /// Print the judgement as JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Prose {
    DataOnly,
    Exact,
}

impl From<Prose> for ProseMode {
    fn from(p: Prose) -> ProseMode {
        match p {
            Prose::DataOnly => ProseMode::DataOnly,
            Prose::Exact => ProseMode::Exact,
        }
    }
}

/// A failure that ends the command with exit code 2 and one line on stderr.
struct Fail(String);

fn main() -> ExitCode {
    let cli = Cli::parse();
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
                prose: prose.into(),
            },
            json,
        ),
        Command::Cases { count, seed } => cases(count, seed),
    };
    match result {
        Ok(code) => code,
        Err(Fail(line)) => {
            eprintln!("rt-tool-3: {line}");
            ExitCode::from(2)
        }
    }
}

fn verdict(file: Option<PathBuf>) -> Result<ExitCode, Fail> {
    let (name, bytes) = read_input(file)?;
    let case = Case::from_json(&bytes).map_err(|e| Fail(format!("invalid case in {name}: {e}")))?;
    drop(bytes);
    if let Zone::Lenient(reasons) = model::zone(&case) {
        eprintln!(
            "rt-tool-3: note: lenient zone, only the safety half is normative: {}",
            reasons.join("; ")
        );
    }
    let outcome = model::outcome(&case);
    write_json_line(&outcome)?;
    Ok(ExitCode::SUCCESS)
}

fn check(case: PathBuf, outcome: PathBuf, options: Options, json: bool) -> Result<ExitCode, Fail> {
    if case.as_os_str() == "-" && outcome.as_os_str() == "-" {
        return Err(Fail("only one of CASE and OUTCOME can be stdin".into()));
    }
    let (case_name, bytes) = read_input(Some(case))?;
    let case =
        Case::from_json(&bytes).map_err(|e| Fail(format!("invalid case in {case_name}: {e}")))?;
    let (name, bytes) = read_input(Some(outcome))?;
    let observed: serde_json::Value = serde_json::from_slice(&bytes)
        .map_err(|e| Fail(format!("invalid outcome in {name}: {e}")))?;
    let judgement = judge::judge(&case, &observed, options)
        .map_err(|e| Fail(format!("invalid outcome in {name}: {e}")))?;
    if json {
        write_json_line(&judgement)?;
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
        text.push_str(&match judgement.violations.len() {
            0 => format!("conforms to RT-TOOL-3 ({zone})\n"),
            n => format!("violates RT-TOOL-3: {n} violation(s) ({zone})\n"),
        });
        let mut out = io::stdout().lock();
        out.write_all(text.as_bytes())
            .and_then(|()| out.flush())
            .map_err(|e| Fail(format!("cannot write stdout: {e}")))?;
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
    let mut out = BufWriter::new(io::stdout().lock());
    let written = (0..count)
        .zip(gen::cases(seed))
        .try_for_each(|(_, case)| {
            serde_json::to_writer(&mut out, &case)?;
            out.write_all(b"\n")
        })
        .and_then(|()| out.flush());
    match written {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(Fail(format!("cannot write stdout: {e}"))),
    }
}

/// Reads a whole input: a file, or stdin for `None` and `-`.
fn read_input(file: Option<PathBuf>) -> Result<(String, Vec<u8>), Fail> {
    let mut bytes = Vec::new();
    match file {
        Some(path) if path.as_os_str() != "-" => {
            let name = path.display().to_string();
            bytes = std::fs::read(&path).map_err(|e| Fail(format!("cannot read {name}: {e}")))?;
            Ok((name, bytes))
        }
        _ => {
            io::stdin()
                .lock()
                .read_to_end(&mut bytes)
                .map_err(|e| Fail(format!("cannot read stdin: {e}")))?;
            Ok(("stdin".into(), bytes))
        }
    }
}

/// Prints one value as one line of JSON, all at once: nothing partial.
fn write_json_line<T: serde::Serialize>(value: &T) -> Result<(), Fail> {
    let mut line =
        serde_json::to_vec(value).map_err(|e| Fail(format!("cannot encode output: {e}")))?;
    line.push(b'\n');
    let mut out = io::stdout().lock();
    out.write_all(&line)
        .and_then(|()| out.flush())
        .map_err(|e| Fail(format!("cannot write stdout: {e}")))
}
