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
        eprintln!("rt-tool-3: {line}");
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
