//! The measures a runtime may take of a payload against RT-TOOL-6's bounds
//! of 512,000 bytes an artifact and 2,000,000 a run, and the bounds
//! themselves, as the generators meet them at their edges and the census
//! counts the cases near them.
//!
//! RT-TOOL-6 says "512 KB of encoded payload" and no more: which encoding,
//! and what is counted, is each runtime's own. The oracle charges the
//! longest plausible one ([`crate::model::encoded_len`]), so that no
//! runtime's own measure is ever larger; but a runtime that measures
//! another way (pretty-printed, base64 for storage, the whole entry with
//! its keys) may measure more and drop an artifact it owes. A bound
//! measured the wrong way shows only on a payload whose sizes straddle
//! it, so the generators solve payloads to a bound exactly, under each
//! measure, and the census counts them under each.
//!
//! Worked example: the payload `{"a":"é/"}` is 11 bytes of compact UTF-8,
//! 10 UTF-16 units (`é` is one), 15 bytes with `é` escaped as `\u00e9`
//! (Python's `json.dumps`), 16 by the oracle's measure (`/` as `\/` too,
//! as PHP writes it), 16 pretty-printed (`{\n  "a": "é/"\n}`), 16 in
//! base64 and, as the entry `{"type":"link","payload":…,"tool_call_id":
//! "c1"}` on the port, 57.

use super::*;

/// One way to measure a payload, in bytes (UTF-16 units for [`Measure::Utf16`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Measure {
    /// Compact JSON as UTF-8 bytes (serde_json, `JSON.stringify(x)` sent
    /// as UTF-8, `json_encode` with `JSON_UNESCAPED_UNICODE`).
    Compact,
    /// Compact JSON with every non-ASCII character written as `\uXXXX`
    /// (twice outside the Basic Multilingual Plane): Python's
    /// `json.dumps(x, separators=(",", ":"))`.
    Ascii,
    /// The oracle's own: the longest plausible compact encoding
    /// ([`crate::model::encoded_len`]), with `/` as `\/` as PHP writes it
    /// and `<`, `>`, `&`, `'`, `+` and the backtick escaped as Go and .NET
    /// escape them.
    Encoded,
    /// Compact JSON in UTF-16 code units: JavaScript's
    /// `JSON.stringify(x).length`.
    Utf16,
    /// Pretty-printed with a two-space indent, as UTF-8 bytes:
    /// `JSON.stringify(x, null, 2)`, `json.dumps(x, indent=2,
    /// ensure_ascii=False)`, serde_json's `to_string_pretty`.
    Pretty,
    /// Base64 (with padding) of the compact JSON: `4·⌈n/3⌉`, as a payload
    /// stored or sent as base64 is counted.
    Base64,
    /// The whole entry on the port with its keys, compact:
    /// `{"type":…,"payload":…,"tool_call_id":…}`.
    Entry,
}

impl Measure {
    /// Every measure, in the census's order.
    pub const ALL: [Measure; 7] = [
        Measure::Compact,
        Measure::Ascii,
        Measure::Encoded,
        Measure::Utf16,
        Measure::Pretty,
        Measure::Base64,
        Measure::Entry,
    ];

    /// Its name in the census: `compact`, `ascii`, `encoded`, `utf16`,
    /// `pretty`, `base64`, `entry`.
    pub fn name(self) -> &'static str {
        match self {
            Measure::Compact => "compact",
            Measure::Ascii => "ascii",
            Measure::Encoded => "encoded",
            Measure::Utf16 => "utf16",
            Measure::Pretty => "pretty",
            Measure::Base64 => "base64",
            Measure::Entry => "entry",
        }
    }
}

/// The bytes a writer was given, counted and let go.
#[derive(Default)]
struct Counted(usize);

impl std::io::Write for Counted {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The length of `v` as serde_json writes it, compact or pretty.
fn written_len(v: &Value, pretty: bool) -> usize {
    let mut counted = Counted::default();
    // Writing a `Value` to a writer that never fails cannot fail.
    let _ = match pretty {
        true => serde_json::to_writer_pretty(&mut counted, v),
        false => serde_json::to_writer(&mut counted, v),
    };
    counted.0
}

/// A payload's size under every [`Measure`], worked out once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sizes([usize; 7]);

impl Sizes {
    /// The sizes of `payload`, as the entry of type `kind` of the call
    /// `id` carries it.
    pub fn of(payload: &Value, kind: &str, id: &str) -> Sizes {
        let compact = serde_json::to_string(payload).unwrap_or_default();
        let (mut units, mut ascii) = (0usize, 0usize);
        // A character is charged at its first byte: `é` (two bytes) is one
        // unit and `\u00e9`, `😀` (four) two units and two escapes.
        for &b in compact.as_bytes() {
            let (u, a) = match b {
                0x00..=0x7f => (1, 1),
                0x80..=0xbf => (0, 0),
                0xc0..=0xef => (1, 6),
                0xf0..=0xff => (2, 12),
            };
            units += u;
            ascii += a;
        }
        let n = compact.len();
        let quoted = |s: &str| serde_json::to_string(s).map_or(0, |q| q.len());
        // `{"type":` `,"payload":` `,"tool_call_id":` `}`
        let keys = 8 + 11 + 16 + 1;
        Sizes([
            n,
            ascii,
            crate::model::encoded_len(payload),
            units,
            written_len(payload, true),
            base64_len(n),
            n + keys + quoted(kind) + quoted(id),
        ])
    }

    /// The size under `measure`.
    pub fn get(&self, measure: Measure) -> usize {
        self.0[measure as usize]
    }
}

/// The length of the padded base64 of `n` bytes: `4·⌈n/3⌉`.
pub fn base64_len(n: usize) -> usize {
    n.div_ceil(3) * 4
}

/// RT-TOOL-6's floors as bounds a case is near ([`crate::model::floors`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// 512,000 bytes of one artifact's payload.
    Payload,
    /// 2,000,000 bytes of a run's payloads.
    Run,
}

impl Bound {
    /// The bound in bytes.
    pub fn bytes(self) -> usize {
        match self {
            Bound::Payload => crate::model::floors::PAYLOAD_BYTES,
            Bound::Run => crate::model::floors::RUN_BYTES,
        }
    }

    /// Whether `size` is within 2 % of the bound, either side:
    /// `[0.98·b, 1.02·b]`, 501,760 to 522,240 bytes for a payload.
    pub fn near(self, size: usize) -> bool {
        let b = self.bytes();
        (b - b / 50..=b + b / 50).contains(&size)
    }
}

/// The depth a kept payload may reach: the deepest whose every document
/// stays within the oracle's nesting bound ([`crate::wire::MAX_DEPTH`],
/// 512, PHP's `json_decode` default). A payload of depth `d` (an empty
/// object is 1) nests `d + 7` deep in the request `diff` sends (the
/// request, the case, `calls`, the call, the result, `artifacts`, the
/// entry), `d + 6` in the case, and `d + 11` in a `--save` file or a
/// `--json` report that holds the case (the report, `divergences`, the
/// divergence, `found`, the vector), which `--replay` must read back. So
/// 501: a report at 512, a request at 508.
pub const DEEPEST_PAYLOAD: usize = crate::wire::MAX_DEPTH - 11;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_measure_of_the_worked_example() {
        let sizes = Sizes::of(&json!({"a": "é/"}), "link", "c1");
        let got: Vec<(&str, usize)> = Measure::ALL
            .iter()
            .map(|&m| (m.name(), sizes.get(m)))
            .collect();
        assert_eq!(
            got,
            [
                ("compact", 11),
                ("ascii", 15),
                ("encoded", 16),
                ("utf16", 10),
                ("pretty", 16),
                ("base64", 16),
                ("entry", 57),
            ]
        );
        let entry = json!({"type": "link", "payload": {"a": "é/"}, "tool_call_id": "c1"});
        assert_eq!(serde_json::to_string(&entry).unwrap().len(), 57);
        assert_eq!(
            serde_json::to_string_pretty(&json!({"a": "é/"})).unwrap(),
            "{\n  \"a\": \"é/\"\n}"
        );
    }

    #[test]
    fn astral_characters_are_two_units_and_two_escapes() {
        let sizes = Sizes::of(&json!(["🦀\u{2028}"]), "t", "");
        // ["🦀 "] with U+2028 raw: 2 + 4 + 3 + 2 bytes.
        assert_eq!(sizes.get(Measure::Compact), 11);
        assert_eq!(sizes.get(Measure::Utf16), 7);
        assert_eq!(sizes.get(Measure::Ascii), 4 + 12 + 6);
        assert_eq!(base64_len(0), 0);
        assert_eq!(base64_len(1), 4);
        assert_eq!(base64_len(3), 4);
        assert_eq!(base64_len(4), 8);
    }

    #[test]
    fn near_is_two_percent_either_side() {
        for (size, near) in [
            (501_759, false),
            (501_760, true),
            (522_240, true),
            (522_241, false),
        ] {
            assert_eq!(Bound::Payload.near(size), near, "{size}");
        }
        assert!(Bound::Run.near(1_960_000) && !Bound::Run.near(1_959_999));
        assert!(Bound::Run.near(2_040_000) && !Bound::Run.near(2_040_001));
    }
}
