//! How a command writes its output: to stdout through one buffer under
//! its lock, a file whole or not at all, and a value for a reader on one
//! line with its longest strings cut.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use rt_tool_3::judge::{SHOWN_HEAD, SHOWN_WHOLE};

use super::fail::Fail;

/// Whether anything was written on stdout.
static PRINTED: AtomicBool = AtomicBool::new(false);

/// Whether [`print`] has written anything on stdout yet.
pub(crate) fn anything_printed() -> bool {
    PRINTED.load(Ordering::Relaxed)
}

/// Writes finished output to stdout in one go, and flushes it.
pub(crate) fn print(bytes: &[u8]) -> Result<(), Fail> {
    print_with(|out| out.write_all(bytes))
}

/// Writes output to stdout through `write`, buffered and under stdout's
/// lock (nothing else written meanwhile), and flushes it. What a command
/// prints need not be held whole first: a verdict of 100,000 findings is
/// 10 MB of text, 24 MB as JSON.
pub(crate) fn print_with(write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<(), Fail> {
    PRINTED.store(true, Ordering::Relaxed);
    let mut out = io::BufWriter::new(io::stdout().lock());
    write(&mut out)
        .and_then(|()| out.flush())
        .map_err(|e| Fail::write(format!("cannot write stdout: {e}")))
}

/// `value` as JSON text (indented when `pretty`), each lone surrogate a
/// reply held written back as the escape the reply wrote (`\ud800`), not
/// as the mark this process read it as: a file another process reads
/// (`merge`, `report`, `--replay`) reads the same reply.
pub(crate) fn json_text<T: serde::Serialize>(value: &T, pretty: bool) -> String {
    let text = match pretty {
        true => serde_json::to_string_pretty(value),
        false => serde_json::to_string(value),
    };
    rt_tool_3::wire::shown_lone(&text.unwrap_or_default()).into_owned()
}

/// Prints a run's report as one line of JSON ([`json_text`]).
pub(crate) fn write_report_line<T: serde::Serialize>(value: &T) -> Result<(), Fail> {
    let mut text = json_text(value, false);
    text.push('\n');
    print(text.as_bytes())
}

/// Prints one value as one line of JSON ([`print_with`]).
pub(crate) fn write_json_line<T: serde::Serialize>(value: &T) -> Result<(), Fail> {
    print_with(|out| {
        serde_json::to_writer(&mut *out, value)?;
        out.write_all(b"\n")
    })
}

/// What a reader is told under a value [`shown`] cut.
pub(crate) const CUT_NOTE: &str =
    "(a string over 512 bytes is shown cut, then its length; the saved vectors and --json hold it whole)";

/// `v` as one line of compact JSON for a reader, and whether a string was
/// cut: each string, key or value, longer than [`SHOWN_WHOLE`] bytes is
/// shown as its first 64 characters, then, outside its quotes, its length:
/// `"xxxx…x"…[516432 bytes]`. A line with a string cut does not parse, so
/// it cannot be copied for the value by mistake.
pub(crate) fn shown(v: &serde_json::Value) -> (String, bool) {
    fn string(s: &str, out: &mut String, cut: &mut bool) {
        let head = match s.char_indices().nth(SHOWN_HEAD) {
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

/// Writes a whole file atomically, or fails with one line.
pub(crate) fn write_file(path: &std::path::Path, bytes: &[u8]) -> Result<(), Fail> {
    rt_tool_3::atomic::write(path, bytes)
        .map_err(|e| Fail::write(format!("cannot write {}: {e}", path.display())))
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
