//! Plain JSON at the edges: strings, keys, exact numbers, nested and deep
//! values, URLs and file names. Nothing here is adversarial by itself; the
//! other files build the adversaries out of it.

use super::*;

/// Strings at the edges: empty, whitespace, non-ASCII, control characters,
/// escapes, look-alikes, and words a lax parser might take for something else.
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

/// A number exact as an IEEE-754 double: a small integer, a quarter
/// (`-2.75`, `0.5`), or an integer at the edge of exactness (±2^53 − 1).
pub fn number() -> BoxedStrategy<Value> {
    one_of![
        4 => (-1000i64..=1000).prop_map(Value::from),
        2 => (-4000i64..=4000).prop_map(quarter),
        1 => select(vec![0i64, 1, -1, 9_007_199_254_740_991, -9_007_199_254_740_991])
            .prop_map(Value::from),
    ]
    .boxed()
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
