//! How fast a process has lately answered, and so how long the caller lets
//! its replies gather before reading them.

use std::time::{Duration, Instant};

/// How fast a process has lately answered, and so how long to let its
/// replies gather before reading them, when the one needed has not come.
///
/// Waking as soon as a process writes anything costs a wake-up for most
/// writes: against the Python adapter, which answers a request in about
/// 0.2 ms and writes each reply and its newline apart, `diff --jobs 2`
/// polled its pipes about three times a case (8,921 polls in 3,024 cases),
/// which was about a tenth of its CPU, and on this virtual machine also
/// slowed the adapter, whose every write woke a sleeping reader. Yet while
/// many requests wait in the process's stdin, nothing is lost by reading
/// later: it goes on answering them. So with `n` requests in flight and a
/// reply taking `r`, the reader sleeps `r × n / 3` and then reads all that
/// came, sleeping again if the reply it needs has not: the process still
/// has two thirds of its queue ahead when the caller wakes and sends more.
/// With 36 requests in flight at 0.25 ms each, it sleeps 3 ms and finds
/// about 12 replies.
///
/// `r` is measured between the times the caller finds nothing to read:
/// when it found none while waiting for reply 100 and, 6 ms later, none
/// while waiting for reply 124, the process answered 24 requests in 6 ms.
/// The fastest of the last [`Pace::KEPT`] such measures is taken, so one
/// heavy case, which holds a reply up for long, does not make the reader
/// sleep past the end of the queue. With fewer than [`Pace::FEW`] requests
/// in flight (a shrinking step sends three, and waits for them), or before
/// two such waits, it wakes as soon as anything comes.
#[derive(Debug, Default)]
pub(super) struct Pace {
    /// When the caller last had to wait, and for which reply.
    last: Option<(Instant, u64)>,
    /// The time a reply took, on average, between each of the last waits
    /// and the one before, the latest at `next - 1` (wrapping around).
    recent: [Option<Duration>; Pace::KEPT],
    next: usize,
}

impl Pace {
    /// Fewer requests in flight than this are read as soon as they come.
    const FEW: u64 = 6;
    /// The longest sleep: a process that died is found this soon.
    const MOST: Duration = Duration::from_millis(20);
    /// How many of the latest measures are kept.
    const KEPT: usize = 8;

    /// The caller waits, at `now`, for the reply to request `seq`, with
    /// `in_flight` requests unanswered; how long to sleep before reading.
    pub(super) fn waiting(&mut self, seq: u64, in_flight: u64, now: Instant) -> Duration {
        if let Some((then, before)) = self.last {
            if let Some(answered) = seq.checked_sub(before).filter(|&n| n > 0) {
                let r = now.duration_since(then) / u32::try_from(answered).unwrap_or(u32::MAX);
                self.recent[self.next] = Some(r);
                self.next = (self.next + 1) % Pace::KEPT;
            }
        }
        self.last = Some((now, seq));
        match self.recent.iter().flatten().min() {
            Some(r) if in_flight >= Pace::FEW => r
                .saturating_mul(u32::try_from(in_flight / 3).unwrap_or(u32::MAX))
                .min(Pace::MOST),
            _ => Duration::ZERO,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sleep before reading: none before the pace is known, nor with
    /// fewer than [`Pace::FEW`] requests in flight; else a third of the
    /// time the requests in flight take at the fastest pace lately seen, at
    /// most [`Pace::MOST`]. A slow stretch (one heavy case) does not make it
    /// sleep longer, so the process is not left without requests.
    #[test]
    fn the_pace_sleeps_a_third_of_the_queue_at_the_fastest_pace_lately() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let mut pace = Pace::default();
        assert_eq!(pace.waiting(100, 36, at(0)), Duration::ZERO);
        // 24 replies in 6 ms: 250 µs each; 36 in flight sleep 12 of them.
        assert_eq!(pace.waiting(124, 36, at(6)), Duration::from_millis(3));
        assert_eq!(pace.waiting(130, 5, at(8)), Duration::ZERO);
        // One reply in 30 ms, and then 12 in 3: still 250 µs a reply.
        assert_eq!(pace.waiting(131, 30, at(38)), Duration::from_micros(2500));
        assert_eq!(pace.waiting(143, 48, at(41)), Duration::from_millis(4));
        // A slower process: once the fast measures are eight waits old.
        let mut ms = 41;
        let mut seq = 143;
        for _ in 0..Pace::KEPT {
            ms += 12;
            seq += 3;
            pace.waiting(seq, 48, at(ms));
        }
        assert_eq!(pace.waiting(seq + 3, 48, at(ms + 12)), Pace::MOST);
    }
}
