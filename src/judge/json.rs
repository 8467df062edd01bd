//! JSON compared as JSON: equal by value, key order aside, up to the
//! precision of an IEEE double; where two values differ; a hash that agrees.

use std::hash::{BuildHasher, Hash, Hasher};

use foldhash::HashSet;

use serde_json::Value;

use super::index::Index;
use super::work::tally;
use crate::wire::{double, JsonRef, Node};

/// How two JSON values compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Eq {
    /// Equal as JSON: same structure, numbers equal by value, key order aside.
    Same,
    /// Equal but for numbers that agree only once rounded to a finite IEEE
    /// double (`0.1` observed as `0.1000000000000000055511151231257827`, a
    /// 40-digit integer with its last digits lost). A number no finite
    /// double holds (`1e400`) rounds to none: observed as `null` (what
    /// JavaScript's `JSON.stringify` prints for infinity), or as anything
    /// but itself, it is [`Eq::Different`].
    Lossy,
    /// Different.
    Different,
}

/// Compares two JSON values as JSON (see [`enum@Eq`]), each a `&Value` or
/// any other [`JsonRef`].
pub fn json_eq<'e, 'o>(expected: impl JsonRef<'e>, observed: impl JsonRef<'o>) -> Eq {
    tally(|w| w.compared += 1);
    fn both(a: Eq, b: Eq) -> Eq {
        match (a, b) {
            (Eq::Different, _) | (_, Eq::Different) => Eq::Different,
            (Eq::Lossy, _) | (_, Eq::Lossy) => Eq::Lossy,
            _ => Eq::Same,
        }
    }
    match (expected.node(), observed.node()) {
        // The same digits need no working out of their value.
        (Node::Number(a), Node::Number(b)) if a == b || decimal(a) == decimal(b) => Eq::Same,
        (Node::Number(a), Node::Number(b)) if double(a).is_some() && double(a) == double(b) => {
            Eq::Lossy
        }
        (Node::Array(a), Node::Array(b)) if a.len() == b.len() => a
            .zip(b)
            .fold(Eq::Same, |acc, (x, y)| both(acc, json_eq(x, y))),
        // The same keys in the same order, as one writer writes both, are
        // paired in place, without looking each up.
        (Node::Object(a), Node::Object(b))
            if a.clone().map(|(k, _)| k).eq(b.clone().map(|(k, _)| k)) =>
        {
            a.zip(b)
                .fold(Eq::Same, |acc, ((_, x), (_, y))| both(acc, json_eq(x, y)))
        }
        (Node::Object(a), Node::Object(b)) if a.len() == b.len() => {
            a.fold(Eq::Same, |acc, (k, x)| {
                both(
                    acc,
                    observed.get(k).map_or(Eq::Different, |y| json_eq(x, y)),
                )
            })
        }
        // Scalars of one type; numbers and containers were settled above.
        (Node::Null, Node::Null) => Eq::Same,
        (Node::Bool(a), Node::Bool(b)) if a == b => Eq::Same,
        (Node::String(a), Node::String(b)) if a == b => Eq::Same,
        _ => Eq::Different,
    }
}

/// A JSON number's exact value: sign, significant digits, and the power of
/// ten just above the first of them. `1.50`, `15e-1` and `1.5` all give
/// `(false, "15", 1)`; every zero gives `(false, "", 0)`.
fn decimal(text: &str) -> (bool, String, i64) {
    let (negative, text) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(at) => (&text[..at], &text[at + 1..]),
        None => (text, "0"),
    };
    let exponent = exponent.trim_start_matches('+');
    let mut exp: i64 = match exponent.strip_prefix('-') {
        Some(d) => d
            .bytes()
            .fold(0i64, |n, b| {
                n.saturating_mul(10).saturating_add(i64::from(b - b'0'))
            })
            .saturating_neg(),
        None => exponent.bytes().fold(0i64, |n, b| {
            n.saturating_mul(10).saturating_add(i64::from(b - b'0'))
        }),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    exp = exp.saturating_sub(frac.len() as i64);
    let digits = format!("{int}{frac}");
    let digits = digits.trim_start_matches('0');
    let significant = digits.trim_end_matches('0');
    if significant.is_empty() {
        return (false, String::new(), 0);
    }
    // The power of ten just above the first significant digit.
    (
        negative,
        significant.to_owned(),
        exp.saturating_add(digits.len() as i64),
    )
}

/// Where `observed` is `expected` with something else in place of a number
/// no finite IEEE double holds (`null` for `1e400`, say), when that is all
/// that differs (numbers elsewhere compared as [`json_eq`] does): the JSON
/// pointer of the first such place. `None` when nothing was put in place of
/// such a number, or when anything else differs too.
pub fn unencodable_replaced<'e, 'o>(
    expected: impl JsonRef<'e>,
    observed: impl JsonRef<'o>,
) -> Option<String> {
    /// How two values compare, unencodable numbers aside.
    enum Alike {
        Same,
        /// Alike but for what stands in place of unencodable numbers, the
        /// first at this pointer.
        Replaced(String),
        Different,
    }
    fn walk<'e, 'o, E: JsonRef<'e>, O: JsonRef<'o>>(expected: E, observed: O) -> Alike {
        tally(|w| w.compared += 1);
        let at =
            |k: &str, rest: String| format!("/{}{rest}", k.replace('~', "~0").replace('/', "~1"));
        // The first replaced place of a run of member comparisons, or
        // `Different` as soon as one differs.
        let fold = |pairs: &mut dyn Iterator<Item = (String, Option<(E, O)>)>| {
            let mut first = None;
            for (k, pair) in pairs {
                match pair.map(|(x, y)| walk(x, y)) {
                    Some(Alike::Same) => {}
                    Some(Alike::Replaced(rest)) => {
                        first.get_or_insert_with(|| at(&k, rest));
                    }
                    Some(Alike::Different) | None => return Alike::Different,
                }
            }
            first.map_or(Alike::Same, Alike::Replaced)
        };
        match (expected.node(), observed.node()) {
            (Node::Number(n), _) if double(n).is_none() => match json_eq(expected, observed) {
                Eq::Different => Alike::Replaced(String::new()),
                _ => Alike::Same,
            },
            (Node::Array(a), Node::Array(b)) if a.len() == b.len() => fold(
                &mut a
                    .zip(b)
                    .enumerate()
                    .map(|(i, (x, y))| (i.to_string(), Some((x, y)))),
            ),
            (Node::Object(a), Node::Object(b)) if a.len() == b.len() => {
                fold(&mut a.map(|(k, x)| (k.to_owned(), observed.get(k).map(|y| (x, y)))))
            }
            _ => match json_eq(expected, observed) {
                Eq::Different => Alike::Different,
                _ => Alike::Same,
            },
        }
    }
    match walk(expected, observed) {
        Alike::Replaced(at) => Some(at),
        Alike::Same | Alike::Different => None,
    }
}

/// The JSON pointer of the first place two values differ (`""` for the
/// whole value), if they do.
pub fn first_difference<'e, 'o>(
    expected: impl JsonRef<'e>,
    observed: impl JsonRef<'o>,
) -> Option<String> {
    let at = |k: &str, rest: String| {
        format!(
            "/{}{rest}",
            k.replace('~', "~0").replace('/', "~1").escape_debug()
        )
    };
    // One walk down both values: each pair of values is compared once.
    match (expected.node(), observed.node()) {
        // Each expected member looked up in the observed object, which the
        // judge holds as a `Value` (found in constant time), never the other
        // way round: a member of a case's compact tree is found by a walk,
        // so looking up each observed key there would be quadratic.
        (Node::Object(a), Node::Object(b)) => {
            let len = a.len();
            for (k, x) in a.clone() {
                let rest = match observed.get(k) {
                    Some(y) => first_difference(x, y),
                    None => Some(String::new()),
                };
                if let Some(rest) = rest {
                    return Some(at(k, rest));
                }
            }
            // Every expected key is observed: any other observed key is one
            // too many.
            if b.len() == len {
                return None;
            }
            let expected: HashSet<&str> = a.map(|(k, _)| k).collect();
            let extra = b.map(|(k, _)| k).find(|k| !expected.contains(k))?;
            Some(at(extra, String::new()))
        }
        (Node::Array(a), Node::Array(b)) if a.len() == b.len() => a
            .zip(b)
            .enumerate()
            .find_map(|(i, (x, y))| Some(at(&i.to_string(), first_difference(x, y)?))),
        _ => (json_eq(expected, observed) == Eq::Different).then(String::new),
    }
}

/// Compares two lists of JSON values as multisets.
pub fn same_multiset(a: &[Value], b: &[Value]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut index = Index::new(b.iter().map(json_hash).enumerate());
    let mut used = vec![false; b.len()];
    a.iter().all(|x| {
        let found = index.first(&json_hash(x), Some(&used), |i| {
            json_eq(x, &b[i]) != Eq::Different
        });
        found.map(|i| used[i] = true).is_some()
    })
}

/// A hash of a JSON value that agrees with [`json_eq`]: two values it does
/// not call [`Eq::Different`] hash alike. Numbers hash by the IEEE double
/// they round to (so `1`, `1.0` and `1e0`, and two numbers equal once
/// rounded, hash alike), every number no finite double holds hashes alike
/// (as a kind of its own, not as `null`, which [`json_eq`] never takes for
/// one), and an object's members hash in any order. Values that differ only
/// in such numbers share a hash; [`json_eq`] tells them apart.
///
/// The hasher is foldhash's, seeded at random once for the process (the
/// same seed for every map, so a payload hashes alike in each). No input
/// can be built beforehand to collide, since the seed is never known
/// outside; SipHash (std's default, with its fixed public keys) cost three
/// times as much, and payloads are hashed whole.
pub(super) fn json_hash<'a>(v: impl JsonRef<'a>) -> u64 {
    let mut h = seeded();
    feed(v, &mut h);
    h.finish()
}

/// The hasher [`json_hash`] feeds.
pub(super) type Seeded = foldhash::quality::FoldHasher<'static>;

/// A hasher with the process's seed.
pub(super) fn seeded() -> Seeded {
    static SEED: std::sync::LazyLock<foldhash::quality::RandomState> =
        std::sync::LazyLock::new(foldhash::quality::RandomState::default);
    SEED.build_hasher()
}

/// Feeds `v` to `h` as [`json_hash`] does: through the functions below,
/// one per part of a value in the order a reader of its text meets them,
/// so that a payload hashed as it is read (`written.rs`) hashes as its
/// tree does.
pub(super) fn feed<'a>(v: impl JsonRef<'a>, h: &mut Seeded) {
    match v.node() {
        Node::Null => feed_null(h),
        Node::Number(n) => feed_number(n, h),
        Node::Bool(b) => feed_bool(b, h),
        Node::String(s) => feed_str(s, h),
        Node::Array(items) => {
            let len = items.len();
            feed_array_open(h);
            items.for_each(|x| feed(x, h));
            feed_array_close(len, h);
        }
        Node::Object(members) => {
            // Each member hashed alone, the hashes summed: key order
            // does not count.
            let len = members.len();
            let members = members.fold(0u64, |sum, (k, x)| {
                let mut m = member(k);
                feed(x, &mut m);
                sum.wrapping_add(m.finish())
            });
            feed_object(len, members, h);
        }
    }
}

pub(super) fn feed_null(h: &mut Seeded) {
    tally(|w| w.hashed += 1);
    0u8.hash(h);
}

pub(super) fn feed_number(n: &str, h: &mut Seeded) {
    tally(|w| w.hashed += 1);
    match double(n) {
        // -0.0 == 0.0: one hash for both.
        Some(f) => (1u8, if f == 0.0 { 0 } else { f.to_bits() }).hash(h),
        None => 6u8.hash(h),
    }
}

pub(super) fn feed_bool(b: bool, h: &mut Seeded) {
    tally(|w| w.hashed += 1);
    (2u8, b).hash(h);
}

pub(super) fn feed_str(s: &str, h: &mut Seeded) {
    tally(|w| w.hashed += 1);
    (3u8, s).hash(h);
}

/// An array's start; its items follow, then [`feed_array_close`] with
/// their count.
pub(super) fn feed_array_open(h: &mut Seeded) {
    tally(|w| w.hashed += 1);
    4u8.hash(h);
}

pub(super) fn feed_array_close(len: usize, h: &mut Seeded) {
    len.hash(h);
}

/// The hasher of one object member, its key fed; its value follows.
pub(super) fn member(key: &str) -> Seeded {
    let mut m = seeded();
    key.hash(&mut m);
    m
}

/// An object of `len` members, the wrapping sum of their [`member`]
/// hashes.
pub(super) fn feed_object(len: usize, members: u64, h: &mut Seeded) {
    tally(|w| w.hashed += 1);
    (5u8, len, members).hash(h);
}
