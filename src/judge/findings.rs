//! The judge's findings: a [`Violation`] (a broken clause) and a
//! [`Warning`] (a difference that is not one), as JSON and as text.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::code::{Cite, Clause, Code, Place};
use crate::wire;

/// One broken clause, said so a person can act on it.
///
/// As JSON: `{"clause": "RT-TOOL-3 ¶1", "cite": {"rule": "RT-TOOL-3",
/// "paragraph": 1}, "code": "extra-key", "place": {"entry": 0, "path":
/// "/tool_artifacts/0/extra"}, "message": "…"}`. The code says what kind of
/// finding it is ([`Code`], listed in `src/codes.md`), the place where.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Violation {
    /// The clause broken: the code's own.
    pub clause: Clause,
    /// What kind of finding it is.
    pub code: Code,
    /// Where it is.
    #[serde(default)]
    pub place: Place,
    /// What is wrong, naming the call and the artifact.
    pub message: String,
}

impl Violation {
    /// A finding of kind `code` (a violation's) at `place`, citing the
    /// code's clause.
    pub fn new(code: Code, place: Place, message: String) -> Violation {
        Violation {
            clause: code.clause(),
            code,
            place,
            message,
        }
    }
}

/// One broken clause, as `check --json` and `diff --json` write it: the
/// clause, what kind of finding it is (`code`, listed in `src/codes.md`),
/// where it is, and a sentence.
#[derive(Serialize, schemars::JsonSchema)]
#[schemars(rename = "Violation")]
struct ViolationJson<'a> {
    /// The clause broken, as the specification cites it.
    clause: Clause,
    /// The same citation, structured.
    cite: Cite,
    /// What kind of finding it is (`src/codes.md`).
    code: Code,
    /// Where it is.
    place: &'a Place,
    /// What is wrong, in a sentence that may be reworded at any time.
    message: Cow<'a, str>,
}

impl Serialize for Violation {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        ViolationJson {
            clause: self.clause,
            cite: self.clause.cite(),
            code: self.code,
            place: &self.place,
            // A lone surrogate read from a reply, shown as its escape.
            message: wire::shown_lone(&self.message),
        }
        .serialize(s)
    }
}

impl schemars::JsonSchema for Violation {
    fn schema_name() -> Cow<'static, str> {
        ViolationJson::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        ViolationJson::json_schema(generator)
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} [{}]: {}",
            self.clause,
            self.code,
            wire::shown_lone(&self.message)
        )
    }
}

/// A difference that is not a violation, said so a person can act on it:
/// its kind ([`Code`], a warning's), where it is, and a sentence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Warning {
    /// What kind of finding it is (`src/codes.md`).
    pub code: Code,
    /// Where it is.
    #[serde(default)]
    pub place: Place,
    /// What it is, in a sentence that may be reworded at any time.
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}", self.code, self.message)
    }
}

/// A string as a finding's message quotes it: whole (as Rust's `{:?}`
/// quotes it) when it is at most [`SHOWN_WHOLE`] bytes, else its first
/// [`SHOWN_HEAD`] characters and, outside the quotes, its length: the cut
/// the text report makes of every value it shows. A leaked secret or a
/// prose can be any size, and a 32 MB one made a 32 MB line:
/// `"lorem ipsum dolor …"…[32000000 bytes]` says as much.
pub(super) fn quoted(s: &str) -> String {
    if s.len() <= SHOWN_WHOLE {
        return format!("{s:?}");
    }
    let cut = s
        .char_indices()
        .nth(SHOWN_HEAD)
        .map_or(s.len(), |(at, _)| at);
    format!("{:?}…[{} bytes]", &s[..cut], s.len())
}

/// The longest string, in bytes, a finding's message quotes whole, and
/// the text report shows whole: the ids, texts and types of a case
/// (RT-TOOL-6's floor for a type is 256 bytes) stay whole, and a payload
/// over its 512,000-byte floor does not flood a terminal or a CI log.
pub const SHOWN_WHOLE: usize = 512;

/// How many characters of a longer string are shown, before its length.
pub const SHOWN_HEAD: usize = 64;

#[cfg(test)]
mod tests {
    use super::quoted;

    /// Strings of up to 512 bytes whole; a longer one cut at 64 characters
    /// (whole characters, however many bytes each takes), its length in
    /// bytes.
    #[test]
    fn quoted_cuts_strings_over_512_bytes_at_64_characters() {
        assert_eq!(quoted("a \"b\"\n"), "\"a \\\"b\\\"\\n\"");
        let at_most = "é".repeat(256);
        assert_eq!(quoted(&at_most), format!("{at_most:?}"));
        let longer = format!("{at_most}x");
        assert_eq!(
            quoted(&longer),
            format!("\"{}\"…[513 bytes]", "é".repeat(64))
        );
    }
}
