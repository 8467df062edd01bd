//! Plain JSON at the edges: strings, keys, exact numbers, nested and deep
//! values, URLs and file names. Nothing here is adversarial by itself; the
//! other files build the adversaries out of it.

use super::*;

/// Strings at the edges: empty, whitespace, non-ASCII, control characters,
/// escapes, look-alikes, and words a lax parser might take for something else;
/// and every character a parser or a line splitter trips on: NUL, CR, the
/// Unicode line ends JSON leaves unescaped (U+2028, U+2029, U+0085, which
/// Python's `str.splitlines` and some readers split at), the BOM,
/// non-characters (U+FFFE, U+FFFF, U+1FFFE, U+10FFFF), characters outside the
/// Basic Multilingual Plane, and the *text* of lone surrogate escapes
/// (`\ud800` as six characters, never a lone surrogate: a case holding one
/// is refused), which a runtime that unescapes strings twice makes into one.
pub(super) const ODD_STRINGS: &[&str] = &[
    "",
    " ",
    "café",
    "e\u{301}",
    "日本語",
    "🦀",
    "\u{0}",
    "line\nbreak",
    "tab\there",
    "quote\"d",
    "back\\slash",
    "</script>",
    "\u{202e}rtl",
    "\u{feff}bom",
    "a\u{200b}b",
    "null",
    "true",
    "0",
    "cr\rlf\r\n",
    "line\u{2028}separator",
    "\u{2029}",
    "next\u{85}line",
    "\u{fffe}\u{ffff}",
    "\u{1fffe}\u{10ffff}",
    "\\ud800",
    "\\udc00\\ud83d\\ude00",
];

/// A short string: words, the empty string, odd strings (non-ASCII,
/// control characters, escapes), or a few arbitrary characters. Never a
/// canary.
pub fn text() -> BoxedStrategy<String> {
    one_of![
        4 => matching("[a-z]{1,8}( [a-z]{1,8}){0,3}"),
        1 => Just(String::new()),
        2 => select(ODD_STRINGS).prop_map(str::to_owned),
        1 => vec(any::<char>(), 1..6).prop_map(|cs| cs.into_iter().collect()),
    ]
    .boxed()
}

/// An object key: an identifier-like word or any [`text`], the empty string
/// included.
pub fn key() -> BoxedStrategy<String> {
    one_of![4 => matching("[a-z_]{1,8}"), 1 => text()].boxed()
}

/// A number: mostly one exact as an IEEE-754 double (a small integer, a
/// quarter such as `-2.75`, an integer at the edge of exactness, ±2^53 − 1),
/// and in about a fifth of numbers one drawn across the whole range
/// ([`wide_number`]).
pub fn number() -> BoxedStrategy<Value> {
    one_of![
        4 => (-1000i64..=1000).prop_map(Value::from),
        2 => (-4000i64..=4000).prop_map(quarter),
        1 => select(vec![0i64, 1, -1, 9_007_199_254_740_991, -9_007_199_254_740_991])
            .prop_map(Value::from),
        2 => wide_number(),
    ]
    .boxed()
}

/// Numbers at the edges of what a double holds: the least subnormal, the
/// largest subnormal, the least normal, the largest double, negative zero.
pub const EDGE_NUMBERS: &[&str] = &[
    "-0",
    "-0.0",
    "5e-324",
    "4.9406564584124654e-324",
    "2.225073858507201e-308",
    "2.2250738585072014E-308",
    "1.7976931348623157e308",
    "-1.7976931348623157e+308",
    "0.30000000000000004",
    "9007199254740993",
];

/// A number drawn across the whole range, spelled as a tool might spell it:
/// 1 to 40 significant digits, the decimal point anywhere, in about half an
/// exponent of either sign and either case (`1.5E-7`, `2e+30`); a double's
/// shortest spelling, 15 to 17 significant digits for most; or an edge
/// ([`EDGE_NUMBERS`]). A number no double holds exactly is rounded by an
/// implementation that reads numbers as doubles, a warning; one that no
/// double holds at all (`1e400`) is never drawn here.
pub fn wide_number() -> BoxedStrategy<Value> {
    let digits = (
        any::<bool>(),
        1u32..=9,
        vec(0u32..=9, 0..40),
        any::<Index>(),
        proptest::option::of((-30i32..=30, any::<bool>(), any::<bool>())),
    )
        .prop_map(|(negative, first, rest, point, exponent)| {
            let mut text = String::new();
            if negative {
                text.push('-');
            }
            let mut all: Vec<char> = std::iter::once(first)
                .chain(rest)
                .map(|d| char::from(b'0' + d as u8))
                .collect();
            // A point after the first digit at most: no leading zeros.
            let at = 1 + point.index(all.len());
            if at < all.len() {
                all.insert(at, '.');
            }
            text.extend(all);
            if let Some((e, upper, plus)) = exponent {
                text.push(if upper { 'E' } else { 'e' });
                if plus && e >= 0 {
                    text.push('+');
                }
                text.push_str(&e.to_string());
            }
            spelled(&text)
        });
    let double = any::<u64>().prop_map(|bits| {
        let x = f64::from_bits(bits);
        let x = if x.is_finite() { x } else { 0.5 };
        // Rust writes a double's shortest round-trip spelling, without an
        // exponent: at most 17 significant digits, many zeros around them.
        let text = if x != 0.0 && (x.abs() >= 1e21 || x.abs() < 1e-7) {
            format!("{x:e}")
        } else {
            format!("{x}")
        };
        spelled(&text)
    });
    one_of![
        5 => digits,
        3 => double,
        1 => select(EDGE_NUMBERS).prop_map(spelled),
    ]
    .boxed()
}

/// The number `text` spells, every digit kept.
fn spelled(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or(Value::Null)
}

pub(super) fn quarter(q: i64) -> Value {
    // Exact: |q| ≤ 4000, so q / 4 is a dyadic rational well within f64.
    Number::from_f64(q as f64 / 4.0).map_or(Value::Null, Value::Number)
}

/// A JSON scalar: null, a boolean, a [`number`] or a [`text`].
pub fn scalar() -> BoxedStrategy<Value> {
    one_of![
        1 => Just(Value::Null),
        1 => any::<bool>().prop_map(Value::Bool),
        2 => number(),
        3 => text().prop_map(Value::String),
    ]
    .boxed()
}

/// Any JSON value nested at most `depth` containers deep, with at most three
/// elements a container. Never a canary.
pub fn json(depth: u32) -> BoxedStrategy<Value> {
    // Built once, outside the closure: proptest calls it again for every
    // value drawn.
    let key = key();
    scalar()
        .prop_recursive(depth, 16, 3, move |inner| {
            one_of![
                vec(inner.clone(), 0..=3).prop_map(Value::Array),
                vec((key.clone(), inner), 0..=3).prop_map(object),
            ]
        })
        .boxed()
}

/// A chain of 1 to `max` nested containers (objects of one key, arrays of
/// one element) ending in a scalar: a deep value that is still small.
pub fn deep(max: usize) -> BoxedStrategy<Value> {
    (
        vec(
            one_of![3 => key().prop_map(Some), 1 => Just(None)],
            1..=max.max(1),
        ),
        scalar(),
    )
        .prop_map(|(steps, leaf)| {
            steps
                .into_iter()
                .rev()
                .fold(leaf, |inner, step| match step {
                    Some(k) => object([(k, inner)]),
                    None => Value::Array(vec![inner]),
                })
        })
        .boxed()
}

/// A chain of exactly `n` nested containers ending in a scalar.
pub fn deep_exactly(n: usize) -> BoxedStrategy<Value> {
    (vec(any::<bool>(), n), scalar())
        .prop_map(|(steps, leaf)| {
            steps.into_iter().fold(leaf, |inner, keyed| match keyed {
                true => object([("d".to_owned(), inner)]),
                false => Value::Array(vec![inner]),
            })
        })
        .boxed()
}

pub(super) fn object(pairs: impl IntoIterator<Item = (String, Value)>) -> Value {
    Value::Object(pairs.into_iter().collect())
}

/// A string matching `regex`. The pattern is parsed once, here (as
/// `string_regex` parses it); a `&str` used as a strategy parses it again
/// for every value drawn. Drawn by [`Pattern`] where it can, which makes the
/// same strings without building a value tree for each; the values, and so
/// every seeded stream, are the same either way.
///
/// Each thread makes a pattern's strategy once and shares it (a strategy
/// holds no state): building [`case`] asks for the same few patterns again
/// and again ([`text`] at every level of a nested value), and parsing them
/// was about half of what `diff --cases 1` spent generating.
pub(super) fn matching(regex: &str) -> BoxedStrategy<String> {
    thread_local! {
        static MADE: std::cell::RefCell<std::collections::HashMap<String, BoxedStrategy<String>>> =
            Default::default();
    }
    if let Some(made) = MADE.with_borrow(|made| made.get(regex).cloned()) {
        return made;
    }
    let made = make_matching(regex);
    MADE.with_borrow_mut(|m| m.insert(regex.to_owned(), made.clone()));
    made
}

/// [`matching`], made afresh.
fn make_matching(regex: &str) -> BoxedStrategy<String> {
    let hir = regex_syntax::Parser::new()
        .parse(regex)
        .expect("the generators' own patterns parse");
    let shrinks = proptest::string::string_regex_parsed(&hir)
        .expect("the generators' own patterns are drawable")
        .boxed();
    match Pattern::new(&hir, shrinks.clone()) {
        Some(pattern) => pattern.boxed(),
        None => shrinks,
    }
}

/// Prose-sized text: 0 to 65,535 characters, log-uniform over its
/// lengths (each power of two as likely as the next), words repeated.
pub fn prose_text() -> BoxedStrategy<String> {
    (0u32..16, any::<Index>(), text())
        .prop_map(|(bits, within, word)| {
            let low = (1usize << bits) - 1;
            let len = low + within.index(low + 1);
            let word = if word.is_empty() { "word" } else { &word };
            let unit = format!("{word} ");
            let mut t = unit.repeat(len / unit.chars().count() + 1);
            if let Some((cut, _)) = t.char_indices().nth(len) {
                t.truncate(cut);
            }
            t
        })
        .boxed()
}

/// A URL, at least 20 characters long: `https://example.com/…`.
pub fn url() -> BoxedStrategy<String> {
    matching("[a-z0-9]{1,8}(/[a-z0-9]{1,8}){0,2}")
        .prop_map(|path| format!("https://example.com/{path}"))
        .boxed()
}

/// A file name, at least 9 characters long: `Report 12.pdf`.
pub fn file_name() -> BoxedStrategy<String> {
    (
        matching("[A-Z][a-z]{2,8}"),
        1u32..1000,
        select(vec!["pdf", "csv", "png"]),
    )
        .prop_map(|(word, n, ext)| format!("{word} {n}.{ext}"))
        .boxed()
}
