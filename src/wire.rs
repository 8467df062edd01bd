//! The wire contract: a case and an outcome, exactly the JSON shapes of
//! the reading ([`crate::reading`], "The wire contract").
//!
//! A [`Case`] is one node invocation: the author's `exposed` choice for the
//! `tool_artifacts` port and the calls the model issued, each with whatever
//! JSON its tool returned. An [`Outcome`] is what a node produced for it.
//!
//! Parsing a case is where the *invalid* part of the domain is refused, so
//! that no implementation ever sees such a case. The refusals are: not the
//! shape below, an unknown field, `exposed` neither a boolean nor null, a call
//! id that is not a string, and two calls with one id (RT-TOOL-9). Each
//! refusal names the field and the call, and serde_json adds the line and
//! column. Everything inside a `result` is untrusted and accepted as it is:
//! key order and every digit of every number are kept (serde_json's
//! `preserve_order` and `arbitrary_precision`). Within one JSON object inside a
//! `result`, a duplicated key keeps its *last* value; the case's own fields
//! (`exposed`, `calls`, `tool_call_id`, `result`) may not be duplicated.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::ops::Range;

use schemars::JsonSchema;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

/// RT-TOOL-2's reserved key of a result's `data`: `artifacts`. A tool
/// node's output may carry it, and it is always removed from `data` before
/// the prose is rendered ([`crate::model::RESERVED_KEY`]).
pub const RESERVED_KEY: &str = "artifacts";

/// One node invocation: the input of the rule.
#[derive(Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Case {
    /// The author's instance choice for the `tool_artifacts` port: `true`
    /// exposes it, `false` hides it, `null` or absent leaves it at the node
    /// type's default.
    #[schemars(default)]
    pub exposed: Option<bool>,
    /// The calls of this invocation, in the order the model issued them.
    pub calls: Vec<Call>,
}

/// One tool call and the untrusted JSON its tool returned.
#[derive(Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Call {
    /// The call's real id, assigned by the node (never by the tool).
    pub tool_call_id: String,
    /// Whatever the tool returned: any JSON at all.
    pub result: Value,
}

/// What a node produced for a case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Outcome {
    /// One message per call, in call order: the prose the model reads back.
    pub messages: Vec<Message>,
    /// Every call's kept artifacts: the `tool_artifacts` port.
    pub tool_artifacts: Vec<ToolArtifact>,
    /// Whether the author sees the `tool_artifacts` port.
    pub exposed: bool,
}

/// The prose fed back to the model for one call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Message {
    /// The call this message answers.
    pub tool_call_id: String,
    /// The prose itself.
    pub content: String,
}

/// One entry on the `tool_artifacts` port: exactly `{type, payload, tool_call_id}`.
#[derive(Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolArtifact {
    /// The artifact's own `type`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The artifact's own `payload`, unchanged.
    pub payload: Value,
    /// The id of the call that produced the artifact.
    pub tool_call_id: String,
}

/// Debug output in the domain's notation: the call id, then the artifact.
impl fmt::Debug for ToolArtifact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}⟨{} {}⟩", self.tool_call_id, self.kind, self.payload)
    }
}

impl fmt::Debug for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} → {}", self.tool_call_id, self.result)
    }
}

impl fmt::Debug for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let exposed = match self.exposed {
            Some(b) => b.to_string(),
            None => "default".into(),
        };
        f.debug_struct("Case")
            .field("exposed", &format_args!("{exposed}"))
            .field("calls", &self.calls)
            .finish()
    }
}

impl Case {
    /// Parses a case from JSON bytes, refusing the invalid part of the domain.
    ///
    /// The refusal is one line: what is wrong, where (field and call), and
    /// the line and column.
    pub fn from_json(bytes: &[u8]) -> Result<Case, Refusal> {
        parse(bytes)
    }

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
                Value::Object(o) => write_object(out, o.iter(), false, Some("data")),
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

/// Appends `v` to `out` as compact JSON, byte for byte as
/// `serde_json::to_vec` writes it (see [`Case::write_json`]).
pub fn write_value(out: &mut Vec<u8>, v: &Value) {
    write_any(out, v, false);
}

/// Appends `v` to `out` as [`write_value`] does, but with every object's
/// keys sorted (by their bytes): the rendering
/// [`model::sorted_compact_json`](crate::model::sorted_compact_json) gives.
pub fn write_sorted(out: &mut Vec<u8>, v: &Value) {
    write_any(out, v, true);
}

fn write_any(out: &mut Vec<u8>, v: &Value, sorted: bool) {
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(n) => out.extend_from_slice(n.as_str().as_bytes()),
        Value::String(s) => write_str(out, s),
        Value::Array(a) => {
            out.push(b'[');
            write_each(out, a, |out, x| write_any(out, x, sorted));
            out.push(b']');
        }
        Value::Object(o) if sorted => {
            let mut entries: Vec<(&String, &Value)> = o.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            write_object(out, entries.into_iter(), sorted, None);
        }
        Value::Object(o) => {
            write_object(out, o.iter(), sorted, None);
        }
    }
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
fn write_object<'v>(
    out: &mut Vec<u8>,
    entries: impl Iterator<Item = (&'v String, &'v Value)>,
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
        let start = out.len();
        write_any(out, x, sorted);
        if noted == Some(k.as_str()) {
            span = Some(start..out.len());
        }
    }
    out.push(b'}');
    span
}

/// Appends `s` as a JSON string, escaped as serde_json escapes it: `"` and
/// `\` with a backslash, `\b \f \n \r \t` as such, any other control
/// character as `\u00xx`, everything else as it is.
fn write_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len());
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

/// The deepest nesting of arrays and objects the oracle reads in one
/// document, the default limit of PHP's `json_decode`. It is the oracle's
/// own bound, not a rule of RT-TOOL-3: it keeps every recursive walk, and
/// the freeing of a parsed value, far from the end of the stack.
pub const MAX_DEPTH: usize = 512;

/// A JSON input the oracle refuses, said in one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal(pub String);

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refusal {}

/// Parses one JSON document the oracle reads (a case, an outcome, a reply),
/// nested at most [`MAX_DEPTH`] deep, with nothing after it but whitespace.
pub fn parse<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, Refusal> {
    check_depth(bytes)?;
    let mut de = serde_json::Deserializer::from_slice(bytes);
    de.disable_recursion_limit();
    let value = T::deserialize(&mut de).map_err(refusal)?;
    de.end().map_err(refusal)?;
    Ok(value)
}

/// Whether a `\u` escape in a JSON text (one already checked as JSON) is a
/// UTF-16 surrogate without its other half ([`lone_escapes`]).
fn has_lone_surrogate(bytes: &[u8]) -> bool {
    let mut any = false;
    lone_escapes(bytes, |_, _| {
        any = true;
        false
    });
    any
}

/// Calls `found` with the place and the code unit of each `\u` escape in a
/// JSON text (one already checked as JSON, but for such escapes) that is a
/// UTF-16 surrogate without its other half: `\ud800` alone, or `\udc00`
/// not after one; until `found` returns false. Every backslash outside an
/// escape starts one, so one pass over the backslashes in order reads each
/// escape once: a backslash inside the escape before it (the second of
/// `\\`, the low half of a pair) is passed over. The pass is a `for` over
/// the bytes, so it ends whatever the bookkeeping says (a mutant of it is
/// caught by a test, never by a timeout).
fn lone_escapes(bytes: &[u8], mut found: impl FnMut(usize, u16) -> bool) {
    let unit = |at: usize| -> Option<u16> {
        let hex = bytes.get(at..at + 6)?.strip_prefix(b"\\u")?;
        u16::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()
    };
    // Where the next escape may start: past the last one read.
    let mut next = 0;
    for (at, _) in bytes.iter().enumerate().filter(|&(_, &b)| b == b'\\') {
        if at < next {
            continue;
        }
        next = match unit(at) {
            Some(0xd800..=0xdbff) if matches!(unit(at + 6), Some(0xdc00..=0xdfff)) => at + 12,
            Some(u @ 0xd800..=0xdfff) => {
                if !found(at, u) {
                    return;
                }
                at + 6
            }
            // Any other escape: `\uXXXX` holds no backslash after its first
            // two bytes, and `\\` holds one, the second.
            _ => at + 2,
        };
    }
}

/// Parses an implementation's reply, or an observed outcome, as [`parse`]
/// does, but reads a string holding a lone UTF-16 surrogate escape
/// (`"\ud83d"`: JavaScript slicing a string between the halves of a pair)
/// instead of refusing it. Such a string is a corrupted value, for the judge
/// to judge, not a reason to stop: each lone escape is read as its
/// [`lone_mark`], text that no string of any case can hold, so the string
/// equals none of the case's and [`lone_surrogates`] finds where the
/// escapes were. A document that is not JSON for any other reason is refused
/// as [`parse`] refuses it. A case is never read this way: a lone surrogate
/// in a case is refused (the oracle's own limit).
pub fn parse_reply<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, Refusal> {
    let refused = match parse(bytes) {
        Err(refused) if has_lone_surrogate(bytes) => refused,
        parsed => return parsed,
    };
    let mut marked = Vec::with_capacity(bytes.len() + 64);
    let mut from = 0;
    lone_escapes(bytes, |at, unit| {
        marked.extend_from_slice(&bytes[from..at]);
        marked.extend_from_slice(lone_mark(unit).as_bytes());
        from = at + 6;
        true
    });
    marked.extend_from_slice(&bytes[from..]);
    parse(&marked).map_err(|_| refused)
}

/// The characters, drawn at random once for the process, around every
/// [`lone_mark`]: four from the Supplementary Private Use Area-A (64 bits),
/// never printed, so no case can hold them.
fn lone_nonce() -> &'static str {
    static NONCE: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        use std::hash::BuildHasher;
        let bits = std::collections::hash_map::RandomState::new().hash_one(std::process::id());
        // Each two bytes of the 64 bits, a character of the area.
        bits.to_le_bytes()
            .chunks(2)
            .map(|pair| {
                let lane = u32::from(u16::from_le_bytes([pair[0], pair[1]]));
                char::from_u32(0xF0000 + lane).unwrap_or('\u{F0000}')
            })
            .collect()
    });
    &NONCE
}

/// What a lone surrogate escape `\uXXXX` in a reply is read as
/// ([`parse_reply`]): U+FFFD and the code unit's four hex digits, between
/// two copies of a random nonce. A string of a case that overlaps it would
/// have to hold the nonce, so no string of a case equals, contains or is
/// contained across one: the leak scan, the payload comparison and every
/// other comparison see a string no case holds.
pub fn lone_mark(unit: u16) -> String {
    let nonce = lone_nonce();
    format!("{nonce}\u{FFFD}{unit:04x}{nonce}")
}

/// The lone surrogates a string read by [`parse_reply`] held: each one's
/// place in the string (its [`lone_mark`]) and code unit, in order.
pub fn lone_surrogates(s: &str) -> Vec<(Range<usize>, u16)> {
    let nonce = lone_nonce();
    // U+FFFD is three bytes, the unit four hex digits.
    let len = 2 * nonce.len() + 3 + 4;
    // Every copy of the nonce is tried: a mark's closing copy is followed
    // by no U+FFFD, so only its opening one reads as a mark.
    s.match_indices(nonce)
        .filter_map(|(at, _)| {
            let hex = s
                .get(at..at + len)?
                .strip_prefix(nonce)?
                .strip_suffix(nonce)?
                .strip_prefix('\u{FFFD}')?;
            Some((at..at + len, u16::from_str_radix(hex, 16).ok()?))
        })
        .collect()
}

/// A string read by [`parse_reply`] as a person reads it: each lone
/// surrogate shown as its escape, `\ud83d`.
pub fn shown_lone(s: &str) -> std::borrow::Cow<'_, str> {
    let found = lone_surrogates(s);
    if found.is_empty() {
        return s.into();
    }
    let mut out = String::with_capacity(s.len());
    let mut from = 0;
    for (at, unit) in found {
        out.push_str(&s[from..at.start]);
        out.push_str(&format!("\\u{unit:04x}"));
        from = at.end;
    }
    out.push_str(&s[from..]);
    out.into()
}

/// serde_json's error as a refusal, with a word on `\u` escapes, whose
/// messages ("unexpected end of hex escape", "lone leading surrogate") say
/// little by themselves.
fn refusal(e: serde_json::Error) -> Refusal {
    let mut text = e.to_string();
    if text.contains("hex escape") {
        text.push_str(
            " (a \\u escape takes four hex digits, and one from \\uD800 to \\uDFFF must be half of a surrogate pair: alone it is no Unicode character)",
        );
    }
    Refusal(text)
}

/// Whether a document is nested no deeper than [`MAX_DEPTH`]: one that is
/// deeper, [`parse`] refuses before parsing it.
pub fn within_depth(bytes: &[u8]) -> bool {
    check_depth(bytes).is_ok()
}

/// Refuses a document nested deeper than [`MAX_DEPTH`], before it is parsed.
fn check_depth(bytes: &[u8]) -> Result<(), Refusal> {
    // No more openings than the limit: no need to follow them. memchr finds
    // them at vector speed, and stops at the one past the limit; following
    // them stops at every bracket.
    if memchr::memchr2_iter(b'[', b'{', bytes)
        .nth(MAX_DEPTH)
        .is_none()
    {
        return Ok(());
    }
    let (mut depth, mut at) = (0usize, 0);
    // Each turn moves on by one byte at least (a string's text is skipped
    // whole), so never more turns than bytes.
    for _ in 0..bytes.len() {
        let Some(&b) = bytes.get(at) else { break };
        match b {
            b'"' => at = string_end(bytes, at + 1),
            b'[' | b'{' if depth == MAX_DEPTH => {
                let before = &bytes[..at];
                let line = 1 + before.iter().filter(|&&c| c == b'\n').count();
                let column = 1 + before.iter().rev().take_while(|&&c| c != b'\n').count();
                return Err(Refusal(format!(
                    "nesting deeper than {MAX_DEPTH} levels at line {line} column {column} (the oracle's own limit)"
                )));
            }
            b'[' | b'{' => depth += 1,
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        at += 1;
    }
    Ok(())
}

/// Where the string whose text starts at `from` ends: its closing quote,
/// or the end of `bytes` if it has none. Found with memchr, so a long
/// string costs a scan at vector speed, not a byte-by-byte walk.
fn string_end(bytes: &[u8], from: usize) -> usize {
    let mut at = from;
    // Each turn passes a backslash and the byte it escapes.
    for _ in 0..bytes.len() {
        let rest = bytes.get(at..).unwrap_or_default();
        match memchr::memchr2(b'"', b'\\', rest) {
            Some(k) if rest[k] == b'\\' => at += k + 2,
            Some(k) => return at + k,
            None => break,
        }
    }
    bytes.len()
}

impl<'de> Deserialize<'de> for Case {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Case, D::Error> {
        d.deserialize_map(CaseVisitor { raw: None })
    }
}

/// Where artifact payloads go when they are left as raw text, if they are.
type RawTable<'t, 'de> = Option<&'t RefCell<Vec<&'de RawValue>>>;

/// A case whose bulk (artifact payloads, and every `data` that is an array
/// or an object) was left as the raw JSON text it came in, never parsed into
/// one tree: the way `verdict` keeps a large case's memory near its size,
/// and every payload byte for byte as written.
///
/// In `case`, each such value is replaced by the placeholder
/// `{"\u0000": i}` (an object, as an object payload is for RT-TOOL-2),
/// where `i` indexes `raw`.
pub struct RawCase<'de> {
    /// The case, with placeholders for the bulk.
    pub case: Case,
    /// The bulk, as written.
    pub raw: Vec<&'de RawValue>,
}

/// The key of a payload placeholder.
pub const PLACEHOLDER: &str = "\u{0}";

impl<'de> RawCase<'de> {
    /// Parses a case as [`Case::from_json`] does (the same refusals), but
    /// leaves the bulk as raw text.
    pub fn from_json(bytes: &'de [u8]) -> Result<RawCase<'de>, Refusal> {
        check_depth(bytes)?;
        let table = RefCell::new(Vec::new());
        let mut de = serde_json::Deserializer::from_slice(bytes);
        de.disable_recursion_limit();
        let parsed = de
            .deserialize_map(CaseVisitor { raw: Some(&table) })
            .and_then(|case| de.end().map(|()| case));
        // A part parsed on its own (a string inside a result, say) reports
        // where it failed within that part; the whole case parsed as one
        // tree reports the line and column in the document.
        let case = parsed.map_err(|e| match parse::<Case>(bytes) {
            Err(whole) => whole,
            Ok(_) => refusal(e),
        })?;
        // The bulk left raw was checked as JSON, but serde_json checks a
        // `\u` escape's surrogate pairing only when it decodes the string;
        // the whole case, parsed as a tree, says where the lone one is.
        if has_lone_surrogate(bytes) {
            return Err(parse::<Case>(bytes).err().unwrap_or_else(|| {
                Refusal("a \\u escape is half of a surrogate pair without the other half".into())
            }));
        }
        Ok(RawCase {
            case,
            raw: table.into_inner(),
        })
    }

    /// The raw text a placeholder stands for.
    pub fn raw(&self, placeholder: &Value) -> Option<&'de RawValue> {
        let i = placeholder
            .as_object()
            .filter(|o| o.len() == 1)?
            .get(PLACEHOLDER)?
            .as_u64()?;
        self.raw.get(usize::try_from(i).ok()?).copied()
    }
}

/// Parses one part of an already depth-checked document.
fn part<'de, T: Deserialize<'de>>(text: &'de str) -> serde_json::Result<T> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let value = T::deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// A result with each artifact entry's object payload, and a `data` that is
/// an array or an object, swapped for a placeholder into `table`; everything
/// else parsed as it is.
fn shallow_result<'de>(
    raw: &'de RawValue,
    table: &RefCell<Vec<&'de RawValue>>,
) -> serde_json::Result<Value> {
    let placeholder = |v: &'de RawValue| {
        let mut table = table.borrow_mut();
        table.push(v);
        serde_json::json!({ PLACEHOLDER: table.len() - 1 })
    };
    if !raw.get().starts_with('{') {
        return part(raw.get());
    }
    let mut result = serde_json::Map::new();
    for (key, field) in pairs(raw.get())? {
        let value = if key == "artifacts" && field.get().starts_with('[') {
            let mut entries = Vec::new();
            for entry in part::<Vec<&'de RawValue>>(field.get())? {
                if !entry.get().starts_with('{') {
                    entries.push(part(entry.get())?);
                    continue;
                }
                let mut fields = serde_json::Map::new();
                for (k, v) in pairs(entry.get())? {
                    let v = if k == "payload" && v.get().starts_with('{') {
                        placeholder(v)
                    } else {
                        part(v.get())?
                    };
                    fields.insert(k, v);
                }
                entries.push(Value::Object(fields));
            }
            Value::Array(entries)
        } else if key == "data" && field.get().starts_with('[') {
            placeholder(field)
        } else if key == "data" && field.get().starts_with('{') {
            // A `data` still carrying RT-TOOL-2's reserved key is rare and
            // changes the zone: it is read whole.
            if pairs(field.get())?.iter().any(|(k, _)| k == RESERVED_KEY) {
                part(field.get())?
            } else {
                placeholder(field)
            }
        } else {
            part(field.get())?
        };
        result.insert(key, value);
    }
    Ok(Value::Object(result))
}

/// The fields of a raw object, in order; a repeated key keeps its last value.
fn pairs(text: &str) -> serde_json::Result<Vec<(String, &RawValue)>> {
    struct Pairs;
    impl<'de> Visitor<'de> for Pairs {
        type Value = Vec<(String, &'de RawValue)>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut pairs: Vec<(String, &'de RawValue)> = Vec::new();
            // Where each key sits: a hostile object of 100,000 keys, looked
            // through one by one, took seconds.
            let mut index: HashMap<String, usize> = HashMap::new();
            while let Some((k, v)) = map.next_entry::<String, &'de RawValue>()? {
                match index.get(&k) {
                    Some(&at) => pairs[at].1 = v,
                    None => {
                        index.insert(k.clone(), pairs.len());
                        pairs.push((k, v));
                    }
                }
            }
            Ok(pairs)
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    de.deserialize_map(Pairs)
}

struct CaseVisitor<'t, 'de> {
    raw: RawTable<'t, 'de>,
}

impl<'de> Visitor<'de> for CaseVisitor<'_, 'de> {
    type Value = Case;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a case: an object with `calls` and an optional `exposed`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Case, A::Error> {
        let mut exposed: Option<Option<bool>> = None;
        let mut calls: Option<Vec<Call>> = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "exposed" if exposed.is_some() => {
                    return Err(de::Error::duplicate_field("exposed"))
                }
                "calls" if calls.is_some() => return Err(de::Error::duplicate_field("calls")),
                "exposed" => {
                    exposed = Some(match map.next_value::<Value>()? {
                        Value::Null => None,
                        Value::Bool(b) => Some(b),
                        other => {
                            return Err(de::Error::custom(format_args!(
                                "`exposed` must be true, false or null, not {}",
                                kind(&other)
                            )))
                        }
                    })
                }
                "calls" => calls = Some(map.next_value_seed(CallsSeed { raw: self.raw })?),
                _ => {
                    return Err(de::Error::custom(format_args!(
                        "unknown top-level field `{key}` (a case has only `exposed` and `calls`)"
                    )))
                }
            }
        }
        let calls = calls.ok_or_else(|| de::Error::missing_field("calls"))?;
        Ok(Case {
            exposed: exposed.flatten(),
            calls,
        })
    }
}

struct CallsSeed<'t, 'de> {
    raw: RawTable<'t, 'de>,
}

impl<'de> DeserializeSeed<'de> for CallsSeed<'_, 'de> {
    type Value = Vec<Call>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<Call>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for CallsSeed<'_, 'de> {
    type Value = Vec<Call>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`calls` to be an array of calls")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Call>, A::Error> {
        let mut calls = Vec::new();
        let mut seen: HashMap<String, usize> = HashMap::new();
        while let Some(call) = seq.next_element_seed(CallSeed {
            index: calls.len(),
            raw: self.raw,
        })? {
            if let Some(first) = seen.insert(call.tool_call_id.clone(), calls.len()) {
                return Err(de::Error::custom(format_args!(
                    "calls[{}] reuses tool_call_id {:?} of calls[{first}]; two calls with one id are not a case (RT-TOOL-9)",
                    calls.len(),
                    call.tool_call_id
                )));
            }
            calls.push(call);
        }
        Ok(calls)
    }
}

struct CallSeed<'t, 'de> {
    index: usize,
    raw: RawTable<'t, 'de>,
}

impl<'de> DeserializeSeed<'de> for CallSeed<'_, 'de> {
    type Value = Call;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Call, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for CallSeed<'_, 'de> {
    type Value = Call;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "calls[{}] to be an object with `tool_call_id` and `result`",
            self.index
        )
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Call, A::Error> {
        let i = self.index;
        let mut id: Option<String> = None;
        let mut result: Option<Value> = None;
        while let Some(key) = map.next_key::<String>()? {
            let duplicate = match key.as_str() {
                "tool_call_id" => id.is_some(),
                "result" => result.is_some(),
                _ => false,
            };
            if duplicate {
                return Err(de::Error::custom(format_args!(
                    "calls[{i}] has a duplicate field `{key}`"
                )));
            }
            match key.as_str() {
                "tool_call_id" => match map.next_value::<Value>()? {
                    Value::String(s) => id = Some(s),
                    other => {
                        return Err(de::Error::custom(format_args!(
                            "calls[{i}].tool_call_id must be a string, not {}",
                            kind(&other)
                        )))
                    }
                },
                "result" => {
                    result = Some(match self.raw {
                        None => map.next_value()?,
                        Some(table) => {
                            let raw: &'de RawValue = map.next_value()?;
                            shallow_result(raw, table).map_err(de::Error::custom)?
                        }
                    })
                }
                _ => return Err(de::Error::custom(format_args!(
                    "calls[{i}] has an unknown field `{key}` (a call has only `tool_call_id` and `result`)"
                ))),
            }
        }
        let Some(tool_call_id) = id else {
            return Err(de::Error::custom(format_args!(
                "calls[{i}] is missing field `tool_call_id`"
            )));
        };
        let Some(result) = result else {
            return Err(de::Error::custom(format_args!(
                "calls[{i}] (tool_call_id {tool_call_id:?}) is missing field `result`"
            )));
        };
        Ok(Call {
            tool_call_id,
            result,
        })
    }
}

/// The JSON type of a value, as a person names it ("a string", "an object").
pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
