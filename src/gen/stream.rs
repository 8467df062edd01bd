//! The seeded stream of cases behind `rt-tool-3 cases` and `diff --seed`,
//! and the atomic persistence of proptest's regression seeds.
//!
//! The stream is position-addressable: case `i` of seed `S` is drawn by a
//! runner of its own, seeded from `(S, i)` alone ([`runner`]), so any case
//! can be made without the ones before it. That is what lets `diff --jobs N`
//! generate cases on N threads, `diff --shard K/N` run its share of a
//! campaign without drawing everyone else's cases, and a divergence found
//! in one shard replay alone.

use super::*;

/// An endless stream of [`case`]s, the same for the same `seed` on any
/// 64-bit machine: position `i` is [`case_at`]`(&case(), seed, i)`. Each
/// case is generated when asked for. The stream is tied to this generator
/// and to the proptest version in `Cargo.lock`; a 32-bit target may differ,
/// as proptest scales its sampling indices by the width of `usize`.
pub fn cases(seed: u64) -> impl Iterator<Item = Case> {
    let strategy = case();
    // No strategy here rejects a value, so `new_tree` cannot fail.
    (0u64..).map_while(move |i| tree_at(&strategy, seed, i).ok().map(|t| t.current()))
}

/// The case at position `index` of seed `seed`'s stream, as `strategy`
/// draws it: with [`case`], line `index + 1` of `rt-tool-3 cases --seed
/// seed`. `None` if the strategy rejected too many values.
pub fn case_at<S: Strategy<Value = Case>>(strategy: &S, seed: u64, index: u64) -> Option<Case> {
    tree_at(strategy, seed, index).ok().map(|t| t.current())
}

/// The value tree of position `index` of seed `seed`'s stream: the case
/// [`case_at`] gives, and the way proptest shrinks it.
pub fn tree_at<S: Strategy>(
    strategy: &S,
    seed: u64,
    index: u64,
) -> Result<S::Tree, proptest::test_runner::Reason> {
    strategy.new_tree(&mut runner(seed, drawn_at(seed, index)))
}

/// The position whose case position `index` repeats: itself for most, but
/// about one position in 32 repeats one of the eight before it, so the
/// same request comes again later in a run, after others with the same
/// call ids and other data (a runtime that keeps state between runs meets
/// its own earlier answer).
pub fn drawn_at(seed: u64, index: u64) -> u64 {
    let h = u64::from_le_bytes(
        seed_bytes(seed ^ 0x5245_5045_4154, index)[..8]
            .try_into()
            .unwrap_or_default(),
    );
    match (h % 32, index) {
        (0, 1..) => index - 1 - (h >> 8) % index.min(8),
        _ => index,
    }
}

/// The runner that draws position `index` of seed `seed`'s stream:
/// XorShift, seeded from `(seed, index)` alone, the same on every machine.
///
/// XorShift, not proptest's default ChaCha, since 0.4.0: ChaCha's words
/// were about a tenth of `diff`'s instructions, and with XorShift the
/// oracle's own CPU a case against `serve` fell by 2 to 6 % (`cargo bench
/// -- compare` against 0.3.0 over seeds 3 to 10: 0.98×, 0.95×, 0.96×). A
/// stream only has to be the same on every machine and to spread over
/// every shape the generators make, which the census holds
/// (`tests/rule/census.rs`); it is never a secret. Each version pins its
/// stream (`tests/oracle/campaign.rs`).
pub fn runner(seed: u64, index: u64) -> TestRunner {
    let config = Config {
        // Pinned, although no strategy here uses a default size.
        max_default_size_range: 100,
        failure_persistence: None,
        // What the runners made from this one (`new_rng`) use too.
        rng_algorithm: RngAlgorithm::XorShift,
        ..Config::default()
    };
    let rng = TestRng::from_seed(RngAlgorithm::XorShift, &seed_bytes(seed, index));
    TestRunner::new_with_rng(config, rng)
}

/// `(seed, index)` as XorShift's 16 bytes: each word through SplitMix64's
/// finaliser, a bijection, so distinct pairs give distinct keys.
fn seed_bytes(seed: u64, index: u64) -> [u8; 16] {
    let mut bytes = [0u8; 16];
    for (chunk, word) in bytes.chunks_exact_mut(8).zip([seed, index]) {
        let mut z = word.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        chunk.copy_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    bytes
}

/// proptest failure persistence that replaces the regression file
/// atomically (a temporary file, then a rename), so a test killed while it
/// records a failure leaves the file whole. It reads and writes the format
/// of proptest's own `FileFailurePersistence::Direct`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AtomicRegressions(pub &'static str);

impl FailurePersistence for AtomicRegressions {
    fn load_persisted_failures2(&self, source_file: Option<&'static str>) -> Vec<PersistedSeed> {
        FileFailurePersistence::Direct(self.0).load_persisted_failures2(source_file)
    }

    fn save_persisted_failure2(
        &mut self,
        _source_file: Option<&'static str>,
        seed: PersistedSeed,
        shrunken_value: &dyn std::fmt::Debug,
    ) {
        let path = std::path::Path::new(self.0);
        let mut text = std::fs::read_to_string(path).unwrap_or_else(|_| {
            "# Seeds for failure cases proptest has generated in the past. It is\n\
             # automatically read and these particular cases re-run before any\n\
             # novel cases are generated.\n\
             #\n\
             # It is recommended to check this file in to source control so that\n\
             # everyone who runs the test benefits from these saved cases.\n"
                .to_owned()
        });
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        let shrunk = format!("{shrunken_value:?}").replace(['\n', '\r'], " ");
        text.push_str(&format!("{seed} # shrinks to {shrunk}\n"));
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| crate::atomic::write(path, text.as_bytes()));
        if let Err(e) = written {
            eprintln!(
                "proptest: cannot record the failure in {}: {e}",
                path.display()
            );
        }
    }

    fn box_clone(&self) -> Box<dyn FailurePersistence> {
        Box::new(*self)
    }

    fn eq(&self, other: &dyn FailurePersistence) -> bool {
        other.as_any().downcast_ref::<AtomicRegressions>() == Some(self)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How many containers deep a value nests (a scalar: 0).
    fn depth(v: &Value) -> usize {
        match v {
            Value::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
            Value::Object(m) => 1 + m.values().map(depth).max().unwrap_or(0),
            _ => 0,
        }
    }

    /// Every number in a value, as written.
    fn numbers<'v>(v: &'v Value, out: &mut Vec<&'v Number>) {
        match v {
            Value::Number(n) => out.push(n),
            Value::Array(a) => a.iter().for_each(|x| numbers(x, out)),
            Value::Object(m) => m.values().for_each(|x| numbers(x, out)),
            _ => {}
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_cases() {
        let a: Vec<Case> = cases(7).take(40).collect();
        let b: Vec<Case> = cases(7).take(40).collect();
        let c: Vec<Case> = cases(8).take(40).collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a[0], a[1]);
    }

    #[test]
    fn any_position_is_made_alone_as_the_stream_makes_it() {
        let strategy = case();
        let stream: Vec<Case> = cases(5).take(30).collect();
        for i in [29u64, 0, 17, 3] {
            assert_eq!(case_at(&strategy, 5, i).as_ref(), stream.get(i as usize));
        }
        assert_ne!(case_at(&strategy, 6, 3).as_ref(), stream.get(3));
    }

    #[test]
    fn generated_cases_nest_within_every_parser_and_hold_finite_numbers() {
        let mut deepest = 0;
        for case in cases(1).take(300) {
            // The case object, `calls`, the call: three levels above a
            // result; a request wraps it in two more, and a `--save` file
            // or a `--json` report holding it in five (the report,
            // `divergences`, the divergence, `found`, the vector), which
            // `--replay` reads back within the oracle's bound, PHP's 512.
            let held = 8 + case
                .calls
                .iter()
                .map(|c| depth(&c.result))
                .max()
                .unwrap_or(0);
            assert!(held <= crate::wire::MAX_DEPTH, "too deep: {case:?}");
            deepest = deepest.max(held);
            let mut found = Vec::new();
            for call in &case.calls {
                numbers(&call.result, &mut found);
            }
            for n in found {
                // Every number is one a double holds, if rounded: none is
                // past the largest (`1e400` is RT-TOOL-6's, not drawn).
                let x: f64 = n.to_string().parse().expect("a number parses as a double");
                assert!(x.is_finite(), "{n}");
            }
        }
        // Some payload 64 levels deep or more: a report more than 70 deep.
        assert!(deepest > 70, "{deepest}");
    }
}
