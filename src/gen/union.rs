//! [`OneOf`], the generators' `one_of!`: proptest's `prop_oneof!`, drawn
//! with the same draws and shrunk the same way, but with a value tree a few
//! words wide.
//!
//! `prop_oneof!` builds a `TupleUnion`. Its value tree keeps, for every
//! option before the one it picked, a lazily generated tree holding a whole
//! `TestRunner` (536 bytes) by value, so that a shrink can fall back to
//! that option; a ten-option union's tree is over 5 KB, and it is moved by
//! value up through every tuple and map around it. That moving was a
//! quarter of generating a case. [`OneOf`] keeps what that runner is made
//! of (its configuration and random generator) in one box and each
//! option's tree behind a pointer, and makes the same draws in the same
//! order:
//!
//! 1. a weighted pick: one uniform draw below the sum of the weights (none
//!    when there is one option, as `prop_oneof!` with one option is that
//!    option);
//! 2. for each option before the pick, in order, a random generator of its
//!    own from [`TestRunner::new_rng`], from which, with the parent's
//!    configuration (one copy for the tree), that option's runner is made
//!    if a shrink falls back to it (proptest's `partial_clone` makes the
//!    runner at once, and also shares the parent's count of `flat_map`
//!    regenerations; no generator here uses `flat_map`);
//! 3. the picked option's tree.
//!
//! Step 2 keeps only the generator's seed, under ChaCha (the algorithm of
//! the runners proptest makes) and under XorShift (the stream's,
//! [`super::runner`], since 0.4.0): the bytes `new_rng` draws (the low byte
//! of each of 32 words under ChaCha, 16 under XorShift, the latter then
//! perturbed as proptest perturbs them), read as the first byte of each
//! word of one read, which takes the same words from the parent. `new_rng`
//! draws the words one by one and builds the generator at once; a case
//! draws about 75 such generators, which a shrink seldom uses. Under
//! ChaCha they were 4 % of `diff`'s instructions; under XorShift, drawn
//! and built at once, still 3 %.
//!
//! Shrinking follows `prop_oneof!`'s: shrink the picked option; when it
//! cannot shrink further, fall back to the nearest earlier option that
//! generates; `complicate` after such a fall-back returns to the option it
//! left, and never falls below it again. The unit test below holds both to
//! the same values, the same draws and the same shrinking.

use std::fmt;
use std::sync::Arc;

use proptest::prelude::Rng;
use proptest::strategy::{BoxedStrategy, NewTree, Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// `one_of![w => strategy, …]` or `one_of![strategy, …]` (each weight 1):
/// `prop_oneof!` as a [`OneOf`].
macro_rules! one_of {
    ($($item:expr),+ $(,)?) => {
        $crate::gen::union::one_of![$(1 => $item),+]
    };
    ($($weight:expr => $item:expr),+ $(,)?) => {
        $crate::gen::union::OneOf::new(vec![$(($weight, $item.boxed())),+])
    };
}
pub(crate) use one_of;

/// A weighted choice among strategies of one value type.
pub struct OneOf<T> {
    options: Arc<[(u32, BoxedStrategy<T>)]>,
    /// The sum of the weights.
    total: u64,
}

impl<T> OneOf<T> {
    /// The options, each with its weight. Panics if there are none.
    pub fn new(options: Vec<(u32, BoxedStrategy<T>)>) -> OneOf<T> {
        assert!(!options.is_empty(), "one_of! needs an option");
        OneOf {
            total: options.iter().map(|&(w, _)| u64::from(w)).sum(),
            options: options.into(),
        }
    }

    /// The option a uniform draw picks, as `prop_oneof!` picks it: the
    /// number of options whose running sum of weights is at most the draw.
    fn pick(&self, runner: &mut TestRunner) -> usize {
        if self.options.len() == 1 {
            return 0;
        }
        // proptest draws from the half-open range 0..total; rand's uniform
        // integer sampler makes that the closed range 0..=total-1.
        let drawn = proptest::num::sample_uniform_incl(runner, 0, self.total - 1);
        self.options
            .iter()
            .scan(0u64, |running, &(w, _)| {
                *running += u64::from(w);
                Some(*running)
            })
            .filter(|&running| running <= drawn)
            .count()
    }
}

impl<T> Clone for OneOf<T> {
    fn clone(&self) -> OneOf<T> {
        OneOf {
            options: Arc::clone(&self.options),
            total: self.total,
        }
    }
}

impl<T> fmt::Debug for OneOf<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OneOf")
            .field(
                "weights",
                &self.options.iter().map(|o| o.0).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl<T: fmt::Debug> Strategy for OneOf<T> {
    type Tree = OneOfTree<T>;
    type Value = T;

    fn new_tree(&self, runner: &mut TestRunner) -> NewTree<Self> {
        let pick = self.pick(runner);
        let mut trees = Vec::with_capacity(pick + 1);
        let algorithm = runner.config().rng_algorithm;
        for _ in 0..pick {
            trees.push(match algorithm {
                RngAlgorithm::ChaCha => Lazy::ChaCha(seed_of(runner)),
                RngAlgorithm::XorShift => Lazy::XorShift(xorshift_seed(runner)),
                _ => Lazy::Waiting(Box::new(runner.new_rng())),
            });
        }
        trees.push(Lazy::Ready(self.options[pick].1.new_tree(runner)?));
        Ok(OneOfTree {
            options: Arc::clone(&self.options),
            config: (pick > 0).then(|| Box::new(runner.config().clone())),
            trees,
            pick,
            min_pick: 0,
            prev_pick: None,
        })
    }
}

/// `N` random bytes drawn as `runner.new_rng()` draws its seed
/// (`rng.random::<[u8; N]>()`: the low byte of each of `N` words), from
/// one read of the same `N` words. Both generators here fill bytes a word
/// at a time, in order, little end first.
fn seed_of<const N: usize>(runner: &mut TestRunner) -> [u8; N] {
    let mut words = [[0u8; 4]; N];
    runner.rng().fill_bytes(words.as_flattened_mut());
    words.map(|word| word[0])
}

/// The seed `runner.new_rng()` gives a XorShift generator: 16 bytes drawn
/// as [`seed_of`] draws them, each word of four then perturbed as proptest
/// perturbs it, so that the child does not repeat its parent.
fn xorshift_seed(runner: &mut TestRunner) -> [u8; 16] {
    let mut seed: [u8; 16] = seed_of(runner);
    for word in seed.chunks_exact_mut(4) {
        for (byte, mask) in word.iter_mut().zip([0xef, 0xbe, 0xad, 0xde]) {
            *byte ^= mask;
        }
    }
    seed
}

/// An option's tree: not generated yet (with the seed of its runner's
/// random generator, or the generator itself under an algorithm whose seed
/// is not drawn here), generated, or failed to generate.
enum Lazy<T> {
    XorShift([u8; 16]),
    ChaCha([u8; 32]),
    Waiting(Box<TestRng>),
    Ready(Box<dyn ValueTree<Value = T>>),
    Failed,
}

/// [`OneOf`]'s value tree. Between calls, `pick` and `prev_pick` always
/// name generated trees.
pub struct OneOfTree<T> {
    options: Arc<[(u32, BoxedStrategy<T>)]>,
    /// The parent runner's configuration, for the options before the pick.
    config: Option<Box<Config>>,
    trees: Vec<Lazy<T>>,
    pick: usize,
    min_pick: usize,
    prev_pick: Option<usize>,
}

impl<T: fmt::Debug> OneOfTree<T> {
    fn picked(&mut self) -> &mut dyn ValueTree<Value = T> {
        match &mut self.trees[self.pick] {
            Lazy::Ready(tree) => tree.as_mut(),
            _ => unreachable!("the picked option is always generated"),
        }
    }

    /// Generates option `i`'s tree if it waits; whether it is generated.
    fn generate(&mut self, i: usize) -> bool {
        let rng = match std::mem::replace(&mut self.trees[i], Lazy::Failed) {
            Lazy::XorShift(seed) => TestRng::from_seed(RngAlgorithm::XorShift, &seed),
            Lazy::ChaCha(seed) => TestRng::from_seed(RngAlgorithm::ChaCha, &seed),
            Lazy::Waiting(rng) => *rng,
            done => {
                self.trees[i] = done;
                return matches!(self.trees[i], Lazy::Ready(_));
            }
        };
        // Only the options before the pick wait, and the tree keeps the
        // configuration whenever there are any.
        let config = self.config.as_deref().cloned().unwrap_or_default();
        let mut runner = TestRunner::new_with_rng(config, rng);
        self.trees[i] = match self.options[i].1.new_tree(&mut runner) {
            Ok(tree) => Lazy::Ready(tree),
            Err(_) => Lazy::Failed,
        };
        matches!(self.trees[i], Lazy::Ready(_))
    }
}

impl<T> fmt::Debug for OneOfTree<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OneOfTree")
            .field("pick", &self.pick)
            .field("min_pick", &self.min_pick)
            .field("prev_pick", &self.prev_pick)
            .finish()
    }
}

impl<T: fmt::Debug> ValueTree for OneOfTree<T> {
    type Value = T;

    fn current(&self) -> T {
        match &self.trees[self.pick] {
            Lazy::Ready(tree) => tree.current(),
            _ => unreachable!("the picked option is always generated"),
        }
    }

    fn simplify(&mut self) -> bool {
        if self.picked().simplify() {
            self.prev_pick = None;
            return true;
        }
        if self.pick == self.min_pick {
            return false;
        }
        self.prev_pick = Some(self.pick);
        let mut next = self.pick;
        while next > self.min_pick {
            next -= 1;
            if self.generate(next) {
                self.pick = next;
                return true;
            }
        }
        false
    }

    fn complicate(&mut self) -> bool {
        match self.prev_pick.take() {
            Some(pick) => {
                self.pick = pick;
                self.min_pick = pick;
                true
            }
            None => self.picked().complicate(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::runner;
    use proptest::prelude::*;

    /// A runner drawing with `algorithm`, seeded from `seed`. Under
    /// ChaCha and XorShift [`OneOf`] keeps seeds, under the others (here
    /// `PassThrough`, which replays the seed's bytes) whole generators.
    fn seeded(algorithm: RngAlgorithm, seed: u64) -> TestRunner {
        let config = Config {
            rng_algorithm: algorithm,
            ..Config::default()
        };
        let len = match algorithm {
            RngAlgorithm::XorShift => 16,
            RngAlgorithm::ChaCha => 32,
            _ => 4096,
        };
        let bytes: Vec<u8> = (0..len)
            .map(|i: u64| (seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (i % 57)) as u8 ^ i as u8)
            .collect();
        TestRunner::new_with_rng(config, TestRng::from_seed(algorithm, &bytes))
    }

    /// Draws `ours` and `theirs` from runners of the same seed (the
    /// stream's runner, and runners under XorShift, ChaCha and
    /// PassThrough), and holds them to the same value, the same draws
    /// after, and the same values along a walk of shrinks that simplifies
    /// until it cannot and complicates every third step.
    fn same<A, B>(ours: &A, theirs: &B, seeds: std::ops::Range<u64>)
    where
        A: Strategy,
        B: Strategy<Value = A::Value>,
        A::Value: PartialEq,
    {
        let runners: [fn(u64) -> TestRunner; 4] = [
            |seed| runner(seed, 0),
            |seed| seeded(RngAlgorithm::XorShift, seed),
            |seed| seeded(RngAlgorithm::ChaCha, seed),
            |seed| seeded(RngAlgorithm::PassThrough, seed),
        ];
        for (seed, make) in seeds.flat_map(|seed| runners.map(|make| (seed, make))) {
            let (mut r1, mut r2) = (make(seed), make(seed));
            let (mut a, mut b) = (
                ours.new_tree(&mut r1).unwrap(),
                theirs.new_tree(&mut r2).unwrap(),
            );
            assert_eq!(a.current(), b.current(), "seed {seed}");
            assert_eq!(
                r1.rng().next_u64(),
                r2.rng().next_u64(),
                "seed {seed}: the draws after"
            );
            for step in 0..60 {
                let (x, y) = if step % 3 == 2 {
                    (a.complicate(), b.complicate())
                } else {
                    (a.simplify(), b.simplify())
                };
                assert_eq!(x, y, "seed {seed}, step {step}");
                assert_eq!(a.current(), b.current(), "seed {seed}, step {step}");
            }
        }
    }

    #[test]
    fn one_of_draws_and_shrinks_as_prop_oneof_does() {
        let word = || "[a-z]{0,6}";
        same(
            &one_of![word(), Just("x".to_owned()), "[0-9]{1,3}"],
            &prop_oneof![word(), Just("x".to_owned()), "[0-9]{1,3}"],
            0..300,
        );
        same(
            &one_of![1 => 0..10u32, 5 => 100..200u32, 2 => Just(7u32), 3 => (0..3u32).prop_filter("odd", |n| n % 2 == 1)],
            &prop_oneof![1 => 0..10u32, 5 => 100..200u32, 2 => Just(7u32), 3 => (0..3u32).prop_filter("odd", |n| n % 2 == 1)],
            0..300,
        );
        // Unions inside unions and collections, as the generators nest them.
        let nested = || {
            proptest::collection::vec(
                prop_oneof![3 => Just(0u8), 1 => prop_oneof![1 => 1..5u8, 9 => 50..60u8]],
                0..8,
            )
        };
        let ours = proptest::collection::vec(
            one_of![3 => Just(0u8), 1 => one_of![1 => 1..5u8, 9 => 50..60u8]],
            0..8,
        );
        same(&ours, &nested(), 0..300);
        // One option draws nothing, as `prop_oneof!` with one option is it.
        same(
            &one_of![7 => 0..1000u32],
            &prop_oneof![7 => 0..1000u32],
            0..50,
        );
    }
}
