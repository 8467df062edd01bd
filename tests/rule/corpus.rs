//! Every committed fuzz corpus file, replayed through the checks its fuzz
//! target runs (`tests/fuzz/checks.rs`), so the corpus guards the code under
//! `cargo test` on stable, without a fuzzer; and the corpus kept within its
//! budget (`tests/fuzz/README.md`).

#[path = "../fuzz/checks.rs"]
mod checks;

use std::path::{Path, PathBuf};

/// The committed corpus of `target` (`""`: the directory of them all).
fn corpus(target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz/corpus")
        .join(target)
}

/// Runs `check` on every file of corpus `target`; at least `min` of them.
fn replay(target: &str, min: usize, check: fn(&[u8])) {
    let dir = corpus(target);
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

// The floors are about four fifths of the minimised corpora of 2026-12-05
// (297 `verdict`, 398 `check` and 167 `reply` files): a later minimisation
// may keep a few fewer, while a corpus emptied, lost or half deleted fails.

#[test]
fn the_verdict_corpus_passes() {
    replay("verdict", 240, checks::verdict);
}

#[test]
fn the_check_corpus_passes() {
    replay("check", 320, checks::check);
}

#[test]
fn the_reply_corpus_passes() {
    replay("reply", 130, checks::reply);
}

/// The corpus stays small enough to clone and replay: at most 1,000 files
/// and 4 MB of content across the targets (issue 43). A campaign's new units
/// are merged in with the README's `cmin`, not copied.
#[test]
fn the_corpus_keeps_to_its_budget() {
    let (mut files, mut bytes) = (0_u64, 0_u64);
    let root = corpus("");
    for target in std::fs::read_dir(&root).expect("the corpus is committed") {
        let dir = target.expect("a target's corpus").path();
        for entry in std::fs::read_dir(&dir).expect("a target's corpus is a directory") {
            let meta = entry.expect("a corpus entry").metadata().expect("its size");
            files += 1;
            bytes += meta.len();
        }
    }
    assert!(files <= 1_000, "the corpus holds {files} files, over 1,000");
    assert!(
        bytes <= 4_000_000,
        "the corpus holds {bytes} bytes, over 4 MB"
    );
}
