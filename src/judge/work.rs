//! The judge's counted work, for the complexity tests.

use std::cell::Cell;

/// The work the judge did on this thread, counted in steps whose number
/// depends only on its input, never on the machine: JSON values compared by
/// [`json_eq`](super::json_eq) and hashed for an index (nested ones included), bytes read
/// by the leak scan, and bytes its automaton was built over. A judge whose work grows with the square of its input
/// is one a hostile outcome can stall; `tests/model/complexity.rs` counts these to
/// show it grows with the input. Counting costs an add per step.
#[derive(Clone, Copy, Debug, Default, PartialEq, std::cmp::Eq)]
pub struct Work {
    /// Pairs of JSON values compared by [`json_eq`](super::json_eq), nested pairs included.
    pub compared: u64,
    /// JSON values hashed to look one up in an index, nested ones included.
    pub hashed: u64,
    /// Bytes of prose, and of what the prose may draw on, the leak scan read.
    pub scanned: u64,
    /// Entries of an index looked at to find an artifact in it.
    pub visited: u64,
    /// Bytes of candidate strings the leak scan's automaton was built over.
    pub built: u64,
}

impl Work {
    /// Runs `f`, and returns what it returned and the judge's work during
    /// it on this thread.
    pub fn of<R>(f: impl FnOnce() -> R) -> (R, Work) {
        let before = WORK.with(Cell::get);
        let r = f();
        let after = WORK.with(Cell::get);
        (
            r,
            Work {
                compared: after.compared - before.compared,
                hashed: after.hashed - before.hashed,
                scanned: after.scanned - before.scanned,
                visited: after.visited - before.visited,
                built: after.built - before.built,
            },
        )
    }

    /// Every step, of every kind.
    pub fn total(self) -> u64 {
        self.compared + self.hashed + self.scanned + self.visited + self.built
    }
}

thread_local! {
    static WORK: Cell<Work> = const {
        Cell::new(Work {
            compared: 0,
            hashed: 0,
            scanned: 0,
            visited: 0,
            built: 0,
        })
    };
}

/// Counts a step of work on this thread.
pub(super) fn tally(step: impl FnOnce(&mut Work)) {
    WORK.with(|w| {
        let mut work = w.get();
        step(&mut work);
        w.set(work);
    });
}
