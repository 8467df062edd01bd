//! The census of types and characters: every JSON type in every place of a
//! result, and every character a parser or a line splitter trips on.
//!
//! A runtime written against the shapes it expects (`error` a string,
//! `data.artifacts` a list) trips on every other: it fails the call, reads
//! a string's characters as entries, renders an object as `[object
//! Object]`, or lets it into the prose. Worked example: `{"success": true,
//! "error": {"code": 3}}` is `types.error.object`; its call succeeded, so
//! the object reaches neither the prose nor the decision to deliver.

use super::*;

/// A place in a result that may hold a value of any JSON type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Spot {
    Success,
    Data,
    Error,
    Artifacts,
    /// An entry's `type`, in an `artifacts` list.
    EntryType,
    /// An entry's `payload`.
    Payload,
    /// An entry's own `tool_call_id`.
    EntryId,
    /// RT-TOOL-2's reserved `artifacts` key of an object `data`.
    Reserved,
    /// A result-level key that is none of `success`, `data`, `error`,
    /// `artifacts`.
    Unknown,
}

/// The types found at each [`Spot`] of a case: bit `t` of `[spot]` for
/// the JSON type `t` ([`type_bit`]).
pub(super) type Types = [u8; 9];

/// The bit of a value's JSON type: null, boolean, number, string, array,
/// object.
pub(super) fn type_bit(v: &Value) -> u8 {
    1 << match v {
        Value::Null => 0,
        Value::Bool(_) => 1,
        Value::Number(_) => 2,
        Value::String(_) => 3,
        Value::Array(_) => 4,
        Value::Object(_) => 5,
    }
}

/// The types at every spot of `case`'s results.
pub(super) fn types_of(case: &Case) -> Types {
    let mut types = [0u8; 9];
    let mut put = |spot: Spot, v: &Value| types[spot as usize] |= type_bit(v);
    for result in case.calls.iter().filter_map(|c| c.result.as_object()) {
        for (key, v) in result {
            match key.as_str() {
                "success" => put(Spot::Success, v),
                "error" => put(Spot::Error, v),
                "artifacts" => put(Spot::Artifacts, v),
                "data" => {
                    put(Spot::Data, v);
                    if let Some(held) = v.as_object().and_then(|d| d.get("artifacts")) {
                        put(Spot::Reserved, held);
                    }
                }
                _ => put(Spot::Unknown, v),
            }
        }
        let entries = result.get("artifacts").and_then(Value::as_array);
        for entry in entries.into_iter().flatten().filter_map(Value::as_object) {
            for (key, spot) in [
                ("type", Spot::EntryType),
                ("payload", Spot::Payload),
                ("tool_call_id", Spot::EntryId),
            ] {
                if let Some(v) = entry.get(key) {
                    put(spot, v);
                }
            }
        }
    }
    types
}

/// A row for each JSON type of one spot.
macro_rules! types {
    ($($spot:ident, $place:literal, $clause:ident, $floor:expr, $mistake:literal;)*) => {
        [$(
            types!(@one $spot, $place, ".null", 0, $clause, $floor, $mistake),
            types!(@one $spot, $place, ".boolean", 1, $clause, $floor, $mistake),
            types!(@one $spot, $place, ".number", 2, $clause, $floor, $mistake),
            types!(@one $spot, $place, ".string", 3, $clause, $floor, $mistake),
            types!(@one $spot, $place, ".array", 4, $clause, $floor, $mistake),
            types!(@one $spot, $place, ".object", 5, $clause, $floor, $mistake),
        )*]
    };
    (@one $spot:ident, $place:literal, $type:literal, $bit:literal, $clause:ident, $floor:expr, $mistake:literal) => {
        Feature {
            name: concat!("types.", $place, $type),
            exposes: Clause::$clause,
            mistake: $mistake,
            floor: $floor,
            shows: |s| s.types[Spot::$spot as usize] & (1 << $bit) != 0,
        }
    };
}

/// Every JSON type in every place of a result.
pub(super) const TYPES: [Feature; 54] = types![
    Success, "success", Filter, 0.5, "reads `success` by truthiness or by its type's name, or trips on a `success` that is not a boolean";
    Data, "data", ProseFromData, 2.0, "renders only the types of `data` it expects, and trips on another or fills the prose from elsewhere";
    Error, "error", ProseFromData, 2.0, "takes a call with an `error` of any type for failed, or renders a successful call's `error`";
    Artifacts, "artifacts", Filter, 0.5, "iterates `artifacts` of any type as a list (a string's characters, an object's values)";
    EntryType, "entry_type", Filter, 2.0, "keeps an entry whose `type` is not a string, or writes it as one (`String(t)`, `str(t)`)";
    Payload, "payload", Filter, 2.0, "keeps an entry whose `payload` is not an object (`typeof [] === \"object\"`, a truthy test)";
    EntryId, "entry_id", KeyByKey, 0.5, "copies the entry's own `tool_call_id`, whatever its type, over the call's";
    Reserved, "reserved", ProseFromData, 0.3, "lifts or renders `data`'s reserved `artifacts` key when it is not a list";
    Unknown, "unknown_key", ProseFromData, 2.0, "renders or delivers a result's unknown keys, whatever they hold";
];

/// Characters a parser or a line splitter trips on, each a bit of
/// [`Seen::chars`] ([`chars_of`]).
pub(super) const CHAR_CLASSES: usize = 9;

/// The classes of characters in `s`: bit 0 NUL, 1 CR, 2 U+2028, 3 U+2029,
/// 4 U+0085, 5 the BOM, 6 a non-character, 7 a character outside the Basic
/// Multilingual Plane, 8 the text of a surrogate escape (`\ud800`, six
/// characters).
pub(super) fn chars_of(s: &str) -> u16 {
    let mut found = 0u16;
    let bytes = s.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let bit = match b {
            0 => 0,
            b'\r' => 1,
            b'\\' if surrogate_text(&bytes[i + 1..]) => 8,
            // A character's first byte (never inside one).
            0xc0.. => match s[i..].chars().next() {
                Some('\u{2028}') => 2,
                Some('\u{2029}') => 3,
                Some('\u{85}') => 4,
                Some('\u{feff}') => 5,
                Some(c) if noncharacter(c) => 6,
                Some(c) if u32::from(c) > 0xffff => 7,
                _ => continue,
            },
            _ => continue,
        };
        found |= 1 << bit;
    }
    found
}

/// Whether `rest`, after a backslash, spells `u` and a surrogate's four hex
/// digits (`ud800` to `udfff`, either case).
fn surrogate_text(rest: &[u8]) -> bool {
    match rest {
        [b'u', d, h, x, y, ..] => {
            d.eq_ignore_ascii_case(&b'd')
                && matches!(h, b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F')
                && x.is_ascii_hexdigit()
                && y.is_ascii_hexdigit()
        }
        _ => false,
    }
}

/// Whether `c` is one of Unicode's 66 non-characters: U+FDD0 to U+FDEF,
/// and the last two of every plane.
fn noncharacter(c: char) -> bool {
    let n = u32::from(c);
    (0xfdd0..=0xfdef).contains(&n) || n & 0xfffe == 0xfffe
}

/// The character classes of every string (and key) of `case`'s results
/// and of its call ids.
pub(super) fn case_chars(case: &Case) -> u16 {
    fn walk(v: &Value, found: &mut u16) {
        match v {
            Value::String(s) => *found |= chars_of(s),
            Value::Array(a) => a.iter().for_each(|x| walk(x, found)),
            Value::Object(m) => m.iter().for_each(|(k, x)| {
                *found |= chars_of(k);
                walk(x, found);
            }),
            _ => {}
        }
    }
    let mut found = 0;
    for call in &case.calls {
        found |= chars_of(&call.tool_call_id);
        walk(&call.result, &mut found);
    }
    found
}

/// A row for each character class.
macro_rules! chars {
    ($($name:literal, $bit:literal, $mistake:literal;)*) => {
        [$(Feature {
            name: $name,
            exposes: Clause::KeyByKey,
            mistake: $mistake,
            floor: 2.0,
            shows: |s| s.chars & (1 << $bit) != 0,
        }),*]
    };
}

/// Every character class a parser or a line splitter trips on.
pub(super) const CHARS: [Feature; CHAR_CLASSES] = chars![
    "chars.nul", 0, "cuts a string at NUL (a C string), or drops it";
    "chars.cr", 1, "reads CR as a line end, or normalises CRLF to LF inside strings";
    "chars.u2028", 2, "splits lines at U+2028 LINE SEPARATOR (`str.splitlines`, an old JavaScript parser)";
    "chars.u2029", 3, "splits lines at U+2029 PARAGRAPH SEPARATOR, or strips it as whitespace";
    "chars.u0085", 4, "splits lines at U+0085 NEXT LINE, or reads it as Latin-1 `…`";
    "chars.bom", 5, "strips a byte order mark inside a string, or takes it for the start of a document";
    "chars.noncharacter", 6, "replaces a non-character (U+FFFE, U+FFFF, U+1FFFE) with U+FFFD";
    "chars.astral", 7, "cuts or counts a character outside the Basic Multilingual Plane by UTF-16 units, splitting its pair";
    "chars.escape_text", 8, "unescapes the text `\\ud800` a second time into a lone surrogate";
];
