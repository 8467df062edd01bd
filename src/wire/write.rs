//! A case, an outcome or any JSON value written as compact JSON, byte for
//! byte as serde_json writes it, without serde's machinery; and where in
//! those bytes the parts of a case are, for `diff` to copy them.

use std::ops::Range;

use serde_json::Value;

use super::shapes::{Case, Outcome};
use super::view::{JsonRef, Node};

impl Case {
    /// Appends the case to `out` as compact JSON: the very bytes
    /// `serde_json::to_vec` writes (keys in their order, numbers as their
    /// own digits, the same escapes), without serde's machinery, and with
    /// long runs of plain text copied eight bytes at a time. `diff` writes
    /// three requests a case, so this is most of what it prints.
    pub fn write_json(&self, out: &mut Vec<u8>) {
        self.write_json_noting(out, |_| {});
    }

    /// [`Case::write_json`], and where in `out` the case, its `exposed`
    /// and each call's `data` are. `diff` writes the marked sibling of a
    /// case from these bytes: it differs from the case in those places
    /// alone, and the rest (the artifacts, half a megabyte in a case over
    /// RT-TOOL-6's floors) is copied, not written again.
    pub fn write_json_spanned(&self, out: &mut Vec<u8>) -> CaseSpans {
        let start = out.len();
        let mut data = Vec::with_capacity(self.calls.len());
        let exposed = self.write_json_noting(out, |span| data.push(span));
        CaseSpans {
            whole: start..out.len(),
            exposed,
            data,
        }
    }

    /// The case as compact JSON, handing `data`, call by call, where the
    /// call's `data` is (`None` if it has none); where its `exposed` is.
    fn write_json_noting(
        &self,
        out: &mut Vec<u8>,
        mut data: impl FnMut(Option<Range<usize>>),
    ) -> Range<usize> {
        out.extend_from_slice(b"{\"exposed\":");
        let start = out.len();
        out.extend_from_slice(exposed_json(self.exposed));
        let exposed = start..out.len();
        out.extend_from_slice(b",\"calls\":[");
        write_each(out, &self.calls, |out, call| {
            out.extend_from_slice(b"{\"tool_call_id\":");
            write_str(out, &call.tool_call_id);
            out.extend_from_slice(b",\"result\":");
            data(match &call.result {
                Value::Object(o) => write_object(
                    out,
                    o.iter().map(|(k, v)| (k.as_str(), v)),
                    false,
                    Some("data"),
                ),
                other => {
                    write_value(out, other);
                    None
                }
            });
            out.push(b'}');
        });
        out.extend_from_slice(b"]}");
        exposed
    }
}

/// `exposed` as JSON: `null`, `true` or `false`.
pub fn exposed_json(exposed: Option<bool>) -> &'static [u8] {
    match exposed {
        None => b"null",
        Some(true) => b"true",
        Some(false) => b"false",
    }
}

/// Where parts of a case are in the bytes [`Case::write_json_spanned`]
/// wrote, each a range of their indices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseSpans {
    /// The whole case.
    pub whole: Range<usize>,
    /// The value of `exposed`.
    pub exposed: Range<usize>,
    /// For each call, by its index, the value of its result's `data`, if
    /// its result is an object that holds one.
    pub data: Vec<Option<Range<usize>>>,
}

impl Outcome {
    /// Appends the outcome to `out` as compact JSON: the very bytes
    /// `serde_json::to_vec` writes for it, as [`Case::write_json`] does for
    /// a case. `diff` writes the reference outcome of each request so, to
    /// know a reply that carries it byte for byte when it sees one.
    pub fn write_json(&self, out: &mut Vec<u8>) {
        self.write_json_spanned(out);
    }

    /// [`Outcome::write_json`], and where in `out` its `tool_artifacts`
    /// are (what goes between their brackets), for
    /// [`Outcome::write_json_copying`].
    pub fn write_json_spanned(&self, out: &mut Vec<u8>) -> Range<usize> {
        self.write_json_with(out, |out| self.write_artifacts(out))
    }

    /// [`Outcome::write_json`] of an outcome whose `tool_artifacts` were
    /// written before, as `artifacts` (the span
    /// [`Outcome::write_json_spanned`] gave): their bytes are copied, not
    /// written again. `diff` writes the reference outcome of a case's
    /// marked sibling so: it differs from the case's in its prose and
    /// exposure alone, and the artifacts are most of the bytes (half a
    /// megabyte in a case over RT-TOOL-6's floors).
    pub fn write_json_copying(&self, out: &mut Vec<u8>, artifacts: &[u8]) {
        self.write_json_with(out, |out| out.extend_from_slice(artifacts));
    }

    /// What goes between the brackets of `tool_artifacts`.
    fn write_artifacts(&self, out: &mut Vec<u8>) {
        write_each(out, &self.tool_artifacts, |out, a| {
            out.extend_from_slice(b"{\"type\":");
            write_str(out, &a.kind);
            out.extend_from_slice(b",\"payload\":");
            write_value(out, &a.payload);
            out.extend_from_slice(b",\"tool_call_id\":");
            write_str(out, &a.tool_call_id);
            out.push(b'}');
        });
    }

    /// The outcome as compact JSON, `write_artifacts` writing what goes
    /// between the brackets of `tool_artifacts`; where that is in `out`.
    fn write_json_with(
        &self,
        out: &mut Vec<u8>,
        write_artifacts: impl FnOnce(&mut Vec<u8>),
    ) -> Range<usize> {
        out.extend_from_slice(b"{\"messages\":[");
        write_each(out, &self.messages, |out, m| {
            out.extend_from_slice(b"{\"tool_call_id\":");
            write_str(out, &m.tool_call_id);
            out.extend_from_slice(b",\"content\":");
            write_str(out, &m.content);
            out.push(b'}');
        });
        out.extend_from_slice(b"],\"tool_artifacts\":[");
        let start = out.len();
        write_artifacts(out);
        let artifacts = start..out.len();
        out.extend_from_slice(b"],\"exposed\":");
        let exposed: &[u8] = if self.exposed { b"true" } else { b"false" };
        out.extend_from_slice(exposed);
        out.push(b'}');
        artifacts
    }
}

/// Where JSON is written: a `Vec<u8>`, or a sink that compares what is
/// written with a text as it goes (the judge's way to find a payload
/// written byte for byte as the artifact it matches, with no copy of it).
pub trait Sink {
    /// Appends one byte.
    fn push(&mut self, byte: u8);
    /// Appends bytes.
    fn extend_from_slice(&mut self, bytes: &[u8]);
    /// How many bytes it holds.
    fn written(&self) -> usize;
}

impl Sink for Vec<u8> {
    fn push(&mut self, byte: u8) {
        Vec::push(self, byte);
    }
    fn extend_from_slice(&mut self, bytes: &[u8]) {
        Vec::extend_from_slice(self, bytes);
    }
    fn written(&self) -> usize {
        self.len()
    }
}

/// Appends `v` to `out` as compact JSON, byte for byte as
/// `serde_json::to_vec` writes it (see [`Case::write_json`]).
pub fn write_value<'a>(out: &mut impl Sink, v: impl JsonRef<'a>) {
    write_any(out, v, false);
}

/// Appends `v` to `out` as [`write_value`] does, but with every object's
/// keys sorted (by their bytes): the rendering
/// [`model::sorted_compact_json`](crate::model::sorted_compact_json) gives.
pub fn write_sorted<'a>(out: &mut impl Sink, v: impl JsonRef<'a>) {
    write_any(out, v, true);
}

fn write_any<'a, J: JsonRef<'a>>(out: &mut impl Sink, v: J, sorted: bool) {
    match v.node() {
        Node::Null => out.extend_from_slice(b"null"),
        Node::Bool(true) => out.extend_from_slice(b"true"),
        Node::Bool(false) => out.extend_from_slice(b"false"),
        Node::Number(n) => out.extend_from_slice(n.as_bytes()),
        Node::String(s) => write_str(out, s),
        Node::Array(items) => {
            out.push(b'[');
            for (i, x) in items.enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_any(out, x, sorted);
            }
            out.push(b']');
        }
        Node::Object(members) if sorted => write_sorted_object(out, members),
        Node::Object(members) => {
            write_object(out, members, sorted, None);
        }
    }
}

/// Appends an object of `members` as [`write_sorted`] writes an object:
/// its keys sorted (by their bytes), each value written so too.
pub fn write_sorted_object<'a, J: JsonRef<'a>>(
    out: &mut impl Sink,
    members: impl Iterator<Item = (&'a str, J)>,
) {
    let mut members: Vec<(&str, J)> = members.collect();
    members.sort_unstable_by(|a, b| a.0.cmp(b.0));
    write_object(out, members.into_iter(), true, None);
}

/// Writes each of `items` with `write`, a comma between two.
fn write_each<T>(out: &mut Vec<u8>, items: &[T], mut write: impl FnMut(&mut Vec<u8>, &T)) {
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write(out, x);
    }
}

/// Writes an object's entries; where the value of key `noted` is, if it
/// holds one.
fn write_object<'v, J: JsonRef<'v>>(
    out: &mut impl Sink,
    entries: impl Iterator<Item = (&'v str, J)>,
    sorted: bool,
    noted: Option<&str>,
) -> Option<Range<usize>> {
    let mut span = None;
    out.push(b'{');
    for (i, (k, x)) in entries.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_str(out, k);
        out.push(b':');
        let start = out.written();
        write_any(out, x, sorted);
        if noted == Some(k) {
            span = Some(start..out.written());
        }
    }
    out.push(b'}');
    span
}

/// Appends `s` as a JSON string, escaped as serde_json escapes it: `"` and
/// `\` with a backslash, `\b \f \n \r \t` as such, any other control
/// character as `\u00xx`, everything else as it is.
pub(crate) fn write_str(out: &mut impl Sink, s: &str) {
    let bytes = s.as_bytes();
    out.push(b'"');
    let mut plain = 0;
    // One turn a byte that needs an escape, so never more turns than bytes
    // and one.
    for _ in 0..=bytes.len() {
        let at = plain + plain_len(&bytes[plain..]);
        let Some(&b) = bytes.get(at) else { break };
        out.extend_from_slice(&bytes[plain..at]);
        let short = match b {
            b'"' => b'"',
            b'\\' => b'\\',
            0x08 => b'b',
            0x0c => b'f',
            b'\n' => b'n',
            b'\r' => b'r',
            b'\t' => b't',
            _ => 0,
        };
        if short == 0 {
            let hex = b"0123456789abcdef";
            out.extend_from_slice(b"\\u00");
            out.push(hex[usize::from(b >> 4)]);
            out.push(hex[usize::from(b & 0xf)]);
        } else {
            out.extend_from_slice(&[b'\\', short]);
        }
        plain = at + 1;
    }
    out.extend_from_slice(&bytes[plain..]);
    out.push(b'"');
}

/// How many bytes `bytes` starts with that a JSON string holds as they are:
/// up to the first control character, `"` or `\`. Looked at 32 bytes at a
/// time, which the compiler turns into a few vector instructions.
fn plain_len(bytes: &[u8]) -> usize {
    let special = |b: u8| b < 0x20 || b == b'"' || b == b'\\';
    let mut n = 0;
    for chunk in bytes.chunks_exact(32) {
        let chunk: &[u8; 32] = chunk.try_into().unwrap_or(&[0; 32]);
        if chunk.iter().fold(false, |any, &b| any | special(b)) {
            break;
        }
        n += 32;
    }
    n + bytes[n..].iter().take_while(|&&b| !special(b)).count()
}
