//! Whether to read a process's next replies against the outcomes expected
//! of them: worth it while some of its replies carry them.

/// How a process's replies have lately compared with the outcomes expected
/// of them: for how many reads in a row none carried one, and how many
/// reads were since made as they are.
#[derive(Debug, Default)]
pub(super) struct Likeness {
    unlike: u32,
    declined: u32,
}

impl Likeness {
    /// Reads in a row with no reply alike, after which replies are read
    /// against expected outcomes only now and then.
    const GIVE_UP: u32 = 16;
    /// One read in so many is then made against expected outcomes.
    const RETRY: u32 = 64;

    pub(super) fn worth(&mut self) -> bool {
        if self.unlike < Self::GIVE_UP {
            return true;
        }
        self.declined += 1;
        if self.declined < Self::RETRY {
            return false;
        }
        self.declined = 0;
        true
    }

    pub(super) fn saw(&mut self, alike: bool) {
        self.unlike = if alike {
            0
        } else {
            self.unlike.saturating_add(1)
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Replies are read against expected outcomes until [`Likeness::GIVE_UP`]
    /// reads in a row found none alike, then one read in
    /// [`Likeness::RETRY`]; one reply alike, and every read is again.
    #[test]
    fn replies_are_expected_while_some_come_alike_and_now_and_then_after() {
        let mut likeness = Likeness::default();
        let unlike_reads = |likeness: &mut Likeness, n| {
            for read in 0..n {
                assert!(likeness.worth(), "read {read} of a run of unlike ones");
                likeness.saw(false);
            }
        };
        unlike_reads(&mut likeness, Likeness::GIVE_UP - 1);
        // One alike: the count starts again.
        assert!(likeness.worth());
        likeness.saw(true);
        unlike_reads(&mut likeness, Likeness::GIVE_UP);
        for _ in 0..2 {
            for read in 1..Likeness::RETRY {
                assert!(!likeness.worth(), "read {read} after giving up");
            }
            assert!(likeness.worth(), "the retry");
            likeness.saw(false);
        }
        for _ in 1..Likeness::RETRY {
            likeness.worth();
        }
        assert!(likeness.worth());
        likeness.saw(true);
        unlike_reads(&mut likeness, Likeness::GIVE_UP);
        assert!(!likeness.worth());
    }
}
