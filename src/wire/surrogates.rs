//! Lone UTF-16 surrogate escapes (`"\ud83d"`): found in a JSON text, read
//! in a reply as a mark no case can hold ([`parse_reply`]), found again in
//! a string and shown as their escapes.

use std::ops::Range;

use super::parse::{parse, Refusal};

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
pub fn parse_reply<T: serde::de::DeserializeOwned + 'static>(bytes: &[u8]) -> Result<T, Refusal> {
    match parse(bytes) {
        Err(refused) => match with_lone_surrogates_marked(bytes) {
            Some(marked) => parse(&marked).map_err(|_| refused),
            None => Err(refused),
        },
        parsed => parsed,
    }
}

/// A reply's text with each lone surrogate escape in place of its
/// [`lone_mark`], if it has one ([`parse_reply`]).
pub(crate) fn with_lone_surrogates_marked(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut marked = Vec::new();
    let mut from = 0;
    lone_escapes(bytes, |at, unit| {
        marked.extend_from_slice(&bytes[from..at]);
        marked.extend_from_slice(lone_mark(unit).as_bytes());
        from = at + 6;
        true
    });
    // None found, nothing marked: the text is refused for something else.
    if marked.is_empty() {
        return None;
    }
    marked.extend_from_slice(&bytes[from..]);
    Some(marked)
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
    // memchr's search, at vector speed: a prose can be megabytes long.
    memchr::memmem::find_iter(s.as_bytes(), nonce.as_bytes())
        .filter_map(|at| {
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
