//! Strings matching a regular expression, drawn as proptest's
//! `string_regex` draws them but without building its value tree first.
//!
//! proptest makes a string of a pattern such as `[a-z]{1,8}` out of a
//! strategy for each character, boxed, and each character's value tree
//! holds its bytes in a vector of their own; the value is then put together
//! from those pieces. For the short words and ids the generators draw by the
//! dozen in every case, that was about a third of the time it takes to
//! generate one. [`Pattern`] makes the same random draws in the same order
//! and writes the characters straight into one string; it keeps a copy of
//! the random generator as it was, and builds proptest's own value tree from
//! that copy only if the string is ever shrunk. So each seeded stream, and
//! each shrink, is what `string_regex` gives (the test below checks it on
//! every pattern the generators use).
//!
//! Only what the generators' patterns use is drawn this way: literals,
//! Unicode classes, bounded repetitions, groups and concatenations. Any other
//! pattern is left to `string_regex` whole.

use std::ops::RangeInclusive;

use proptest::char::{select_char, DEFAULT_PREFERRED_RANGES, DEFAULT_SPECIAL_CHARS};
use proptest::num::sample_uniform_incl;
use proptest::strategy::NewTree;
use regex_syntax::hir::{Class, Hir, HirKind};

use super::*;

/// How a part of a pattern draws its text: the strategy `string_regex`
/// builds for it, with what it takes from the random generator.
#[derive(Debug)]
enum Draw {
    /// Fixed text: no draw.
    Literal(String),
    /// One character of the ranges, as `proptest::char::ranges` draws it.
    Class(Vec<RangeInclusive<char>>),
    /// A length, as `proptest::collection::vec` draws it, then that many
    /// of the part, in order.
    Repeat(usize, usize, Box<Draw>),
    /// Each part in turn.
    Concat(Vec<Draw>),
}

impl Draw {
    /// The draw for `hir`, if this module draws it as `string_regex` does.
    fn of(hir: &Hir) -> Option<Draw> {
        Some(match hir.kind() {
            HirKind::Empty => Draw::Concat(Vec::new()),
            HirKind::Literal(literal) => Draw::Literal(String::from_utf8(literal.0.to_vec()).ok()?),
            // `string_regex` draws `.` from ranges of its own: left to it.
            HirKind::Class(Class::Unicode(class))
                if !class.iter().any(|r| r.end() == char::MAX) =>
            {
                Draw::Class(class.iter().map(|r| r.start()..=r.end()).collect())
            }
            // A repetition `{m,n}`; an unbounded one is drawn to a length
            // of `string_regex`'s own choosing, left to it.
            HirKind::Repetition(rep) => {
                let max = rep.max.filter(|&max| max < u32::MAX)?;
                let (min, max) = (usize::try_from(rep.min).ok()?, usize::try_from(max).ok()?);
                Draw::Repeat(min, max, Box::new(Draw::of(&rep.sub)?))
            }
            HirKind::Capture(capture) => Draw::of(&capture.sub)?,
            HirKind::Concat(parts) => {
                Draw::Concat(parts.iter().map(Draw::of).collect::<Option<_>>()?)
            }
            _ => return None,
        })
    }

    /// Appends the text this part draws from `runner` to `text`.
    fn draw(&self, runner: &mut TestRunner, text: &mut String) {
        match self {
            Draw::Literal(literal) => text.push_str(literal),
            Draw::Class(ranges) => text.push(select_char(
                runner.rng(),
                DEFAULT_SPECIAL_CHARS,
                DEFAULT_PREFERRED_RANGES,
                ranges,
            )),
            Draw::Repeat(min, max, part) => {
                for _ in 0..sample_uniform_incl(runner, *min, *max) {
                    part.draw(runner, text);
                }
            }
            Draw::Concat(parts) => {
                for part in parts {
                    part.draw(runner, text);
                }
            }
        }
    }
}

/// A strategy for the strings matching a pattern, the same strings in the
/// same order as `proptest::string::string_regex` of it ([`matching`]).
#[derive(Debug)]
pub(super) struct Pattern {
    draw: Draw,
    /// `string_regex` of the same pattern: the value tree a shrink walks.
    shrinks: BoxedStrategy<String>,
}

impl Pattern {
    /// The strategy for the pattern `hir`, whose `string_regex` strategy
    /// is `shrinks`; `None` if it is not one of the patterns drawn here.
    pub(super) fn new(hir: &Hir, shrinks: BoxedStrategy<String>) -> Option<Pattern> {
        Some(Pattern {
            draw: Draw::of(hir)?,
            shrinks,
        })
    }
}

impl Strategy for Pattern {
    type Tree = PatternTree;
    type Value = String;

    fn new_tree(&self, runner: &mut TestRunner) -> NewTree<Self> {
        let rng = runner.rng().clone();
        let mut text = String::new();
        self.draw.draw(runner, &mut text);
        Ok(PatternTree {
            text,
            rng,
            shrinks: self.shrinks.clone(),
            tree: None,
        })
    }
}

/// A string drawn by [`Pattern`], and proptest's value tree for it once a
/// shrink asks for one.
pub(super) struct PatternTree {
    text: String,
    /// The random generator as it was before the string was drawn.
    rng: TestRng,
    shrinks: BoxedStrategy<String>,
    tree: Option<Box<dyn ValueTree<Value = String>>>,
}

impl std::fmt::Debug for PatternTree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PatternTree")
            .field("text", &self.current())
            .finish_non_exhaustive()
    }
}

impl PatternTree {
    /// `string_regex`'s value tree, drawn again from the same generator,
    /// so its value is the string already drawn; `None` if it cannot be
    /// made (never for a pattern that parsed: nothing in it rejects).
    fn tree(&mut self) -> Option<&mut Box<dyn ValueTree<Value = String>>> {
        if self.tree.is_none() {
            let mut runner = TestRunner::new_with_rng(Config::default(), self.rng.clone());
            self.tree = self.shrinks.new_tree(&mut runner).ok();
        }
        self.tree.as_mut()
    }
}

impl ValueTree for PatternTree {
    type Value = String;

    fn current(&self) -> String {
        match &self.tree {
            Some(tree) => tree.current(),
            None => self.text.clone(),
        }
    }

    fn simplify(&mut self) -> bool {
        self.tree().is_some_and(|tree| tree.simplify())
    }

    fn complicate(&mut self) -> bool {
        self.tree().is_some_and(|tree| tree.complicate())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The generators' patterns, then other shapes: an empty pattern, a
    /// literal alone, non-ASCII, an exact count, and two left to
    /// `string_regex` (an alternation, a class up to the last character).
    const DRAWN: &[&str] = &[
        "[a-z]{1,8}( [a-z]{1,8}){0,3}",
        "[a-z_]{1,8}",
        "[a-z0-9]{1,8}(/[a-z0-9]{1,8}){0,2}",
        "[A-Z][a-z]{2,8}",
        "call_[A-Za-z0-9]{8,24}",
        "toolu_[A-Za-z0-9]{12}",
        "",
        "abc",
        "é{0,2}[α-ωа-я]{3}((x){1,2}y){0,2}",
    ];
    const LEFT: &[&str] = &["(x|yz){1,3}", "[^a]{2}", "a+"];

    /// For each pattern, on 300 seeds: [`matching`] draws the string
    /// `string_regex` draws, leaves the generator where `string_regex`
    /// leaves it, and shrinks through the same strings.
    #[test]
    fn a_pattern_draws_and_shrinks_as_string_regex_does() {
        for regex in DRAWN.iter().chain(LEFT) {
            let hir = regex_syntax::Parser::new().parse(regex).expect("parses");
            let drawn = Pattern::new(&hir, matching(regex)).is_some();
            assert_eq!(drawn, DRAWN.contains(regex), "{regex:?}");
            let real = proptest::string::string_regex(regex).expect("parses");
            let ours = matching(regex);
            let next = any::<u64>();
            for seed in 0..300 {
                let (mut a, mut b) = (runner(seed, 1), runner(seed, 1));
                let mut theirs = real.new_tree(&mut a).expect("a tree");
                let mut mine = ours.new_tree(&mut b).expect("a tree");
                assert_eq!(mine.current(), theirs.current(), "{regex:?}, seed {seed}");
                let after = |r: &mut TestRunner| next.new_tree(r).map(|t| t.current()).ok();
                assert_eq!(after(&mut b), after(&mut a), "{regex:?}, seed {seed}");
                for step in 0..30 {
                    let moved = match step % 4 {
                        3 => (mine.complicate(), theirs.complicate()),
                        _ => (mine.simplify(), theirs.simplify()),
                    };
                    assert_eq!(moved.0, moved.1, "{regex:?}, seed {seed}, step {step}");
                    assert_eq!(
                        mine.current(),
                        theirs.current(),
                        "{regex:?}, seed {seed}, step {step}"
                    );
                }
            }
        }
    }
}
