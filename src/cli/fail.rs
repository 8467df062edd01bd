//! How a command fails: a [`Fail`] ends it with exit code 2 and one line on
//! stderr, and, when it asked for JSON, the same as a coded line on stdout.

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

/// A failure that ends the command with exit code 2 and one line on stderr.
pub(crate) struct Fail {
    /// Which way: one of `rt_tool_3::code::EXIT_2` or of
    /// `rt_tool_3::code::PROCESS_FAULTS`.
    code: String,
    /// What happened, in one line.
    pub(crate) line: String,
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
    pub(crate) fn write(line: String) -> Fail {
        Fail {
            code: "cannot-write".into(),
            line,
        }
    }

    /// The implementation's process broke, in the way `code` names.
    pub(crate) fn process(code: &str, line: String) -> Fail {
        Fail {
            code: code.to_owned(),
            line,
        }
    }

    /// Ends the command: its line on stderr (and, with `--json`, its code
    /// and line on stdout, unless something was written there), exit 2.
    pub(crate) fn exit(self) -> ExitCode {
        let Fail { code, line } = self;
        if JSON_OUT.load(Ordering::Relaxed) && !super::output::anything_printed() {
            let error = serde_json::json!({"error": {"code": code, "message": line}});
            println!("{error}");
        }
        eprintln!("rt-tool-3: {}", rt_tool_3::escape::terminal(&line));
        ExitCode::from(2)
    }
}

/// Whether the command asked for JSON on stdout (`--json`): then an exit 2
/// before anything was written there writes its code and line there too.
static JSON_OUT: AtomicBool = AtomicBool::new(false);

/// Tells how the command's failures are written: `json`, whether it asked
/// for JSON on stdout.
pub(crate) fn json_out(json: bool) {
    JSON_OUT.store(json, Ordering::Relaxed);
}

/// Ends a command whose arguments clap refused (`--cases abc`, `--shard
/// 3/2`, an unknown flag) as any invalid input ends: one line on stderr,
/// and with `--json` the coded line on stdout, exit 2. Help and version,
/// which clap also reports as errors, are printed as clap prints them.
pub(crate) fn arguments(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit();
    }
    // `--json` before `--` (after it, the arguments are the
    // implementation's own).
    let json = std::env::args_os()
        .skip(1)
        .take_while(|a| a != "--")
        .any(|a| a == "--json");
    json_out(json);
    Fail::from(one_line(&e.to_string())).exit()
}

/// clap's message as one line: its first, without `error: `, and where
/// to read more.
fn one_line(rendered: &str) -> String {
    let first = rendered.lines().next().unwrap_or("invalid arguments");
    let first = first.strip_prefix("error: ").unwrap_or(first);
    format!("{first} (see --help)")
}
