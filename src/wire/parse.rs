//! One JSON document the oracle reads, parsed: nested no deeper than
//! [`MAX_DEPTH`], the bound checked before parsing, or a [`Refusal`] said
//! in one line.

use std::fmt;

use serde::de::DeserializeSeed;
use serde_json::Value;

use super::untrusted::Json;

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
///
/// A bare [`serde_json::Value`] is read as [`crate::wire::parse_value`]
/// reads it, every object of the text an object: `Value`'s own reading
/// takes one whose first key is one of serde_json's private keys for a
/// number or for the JSON it holds ([`crate::wire::Json`]). A `Value`
/// inside another type is read so only where its field says
/// (`#[serde(deserialize_with = "wire::value")]`).
pub fn parse<T: serde::de::DeserializeOwned + 'static>(bytes: &[u8]) -> Result<T, Refusal> {
    check_depth(bytes)?;
    let mut slot: Option<T> = None;
    if let Some(value) = (&mut slot as &mut dyn std::any::Any).downcast_mut::<Option<Value>>() {
        *value = Some(read::<Json>(bytes)?.0);
    }
    match slot {
        Some(value) => Ok(value),
        None => read(bytes),
    }
}

/// [`parse`], its nesting bound checked already.
fn read<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, Refusal> {
    read_seed(bytes, std::marker::PhantomData::<T>)
}

/// One document read by `seed` as [`parse`] reads a type: within the
/// nesting bound, with nothing after it (`judge_text` reads an outcome so,
/// judging it as it goes).
pub(crate) fn parse_seed<'de, S: DeserializeSeed<'de>>(
    bytes: &'de [u8],
    seed: S,
) -> Result<S::Value, Refusal> {
    check_depth(bytes)?;
    read_seed(bytes, seed)
}

/// [`parse_seed`], its nesting bound checked already.
fn read_seed<'de, S: DeserializeSeed<'de>>(bytes: &'de [u8], seed: S) -> Result<S::Value, Refusal> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    de.disable_recursion_limit();
    let value = seed.deserialize(&mut de).map_err(refusal)?;
    de.end().map_err(refusal)?;
    Ok(value)
}

/// serde_json's error as a refusal, with a word on `\u` escapes, whose
/// messages ("unexpected end of hex escape", "lone leading surrogate") say
/// little by themselves.
pub(super) fn refusal(e: serde_json::Error) -> Refusal {
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
pub(super) fn check_depth(bytes: &[u8]) -> Result<(), Refusal> {
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
