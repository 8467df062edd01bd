//! Every committed fuzz corpus file, replayed through the checks its fuzz
//! target runs (`tests/fuzz/checks.rs`), so the corpus guards the code under
//! `cargo test` on stable, without a fuzzer.

#[path = "fuzz/checks.rs"]
mod checks;

use std::path::Path;

/// Runs `check` on every file of corpus `target`; at least `min` of them.
fn replay(target: &str, min: usize, check: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz/corpus")
        .join(target);
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("the corpus is committed") {
        let path = entry.expect("a corpus entry").path();
        let bytes = std::fs::read(&path).expect("a corpus file reads");
        let caught = std::panic::catch_unwind(|| check(&bytes));
        assert!(
            caught.is_ok(),
            "{target}: {} fails its check",
            path.display()
        );
        n += 1;
    }
    assert!(
        n >= min,
        "{target}: {n} corpus files, expected at least {min}"
    );
}

#[test]
fn the_verdict_corpus_passes() {
    replay("verdict", 300, checks::verdict);
}

#[test]
fn the_check_corpus_passes() {
    replay("check", 300, checks::check);
}

#[test]
fn the_reply_corpus_passes() {
    replay("reply", 300, checks::reply);
}
