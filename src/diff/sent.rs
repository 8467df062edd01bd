//! A case and the siblings sent with it: how they are built and written,
//! the outcome each request is expected to carry, and their replies read.

use std::cell::Cell;

use super::canary::{canary_sibling, hidden_of, Canaried};
use super::marked::{flip, marked_sibling, Marked};
use crate::harness::{Fault, Process, Reply, Requests, SPARE_MAX};
use crate::judge::ProseMode;
use crate::model;
use crate::wire::{self, Case, Outcome};

/// A reply that carried the outcome expected of it, `expected`: that
/// outcome, parsed.
fn parse_expected(expected: &[u8]) -> Result<Reply, Fault> {
    wire::parse_value(expected)
        .map(Reply::Outcome)
        .map_err(|r| Fault::Garbage(r.to_string()))
}

/// The three requests of a case: the case, its marked sibling and its
/// canary sibling (see the module's documentation), as `diff` sends them.
pub fn siblings(case: &Case, prose: ProseMode) -> [Case; 3] {
    let mut sent = Sent::new(case.clone(), prose);
    let marked = sent.with_marked(Case::clone);
    [sent.case, marked, sent.canary.case]
}

/// The replies to a case's three requests, or the fault that cut them
/// short.
pub(super) type Replies = Result<Read, Fault>;

/// The replies to a case's three requests, as read.
pub(super) enum Read {
    /// Each carried, byte for byte, the reference outcome of its request
    /// ([`Process::replies_expecting`]): not parsed.
    AsExpected,
    /// The replies, parsed.
    Replies(Vec<Reply>),
}

thread_local! {
    /// The buffers [`Sent::read`] writes the expected outcomes in, kept on
    /// each thread from one case to the next (a buffer grown past
    /// [`SPARE_MAX`] is let go). Made afresh for every case, each grew from
    /// nothing, and an outcome carrying a half-megabyte payload moved a
    /// dozen times into memory the kernel had to fault in. Keeping them
    /// took 2 to 3 % off the oracle's CPU a case against the Python adapter
    /// (medians of 10 runs, `--jobs 2`: 0.162 to 0.157 ms).
    static EXPECTED: Cell<[Vec<u8>; 3]> = Default::default();
}

/// A case and the two siblings sent with it. The marked sibling is the
/// case with its markers put in, and is made in place, for as long as it is
/// needed, and undone ([`Sent::with_marked`]): a copy would copy every
/// artifact of the case, half a megabyte in a case over the floors.
pub(super) struct Sent {
    pub(super) case: Case,
    pub(super) marked: Marked,
    pub(super) canary: Canaried,
    /// How long the case's compact JSON is, once it has been written.
    pub(super) written: Option<usize>,
    /// Which call was sent alone, if one was ([`Sent::call_alone`]).
    pub(super) alone: Option<usize>,
}

impl Sent {
    pub(super) fn new(mut case: Case, prose: ProseMode) -> Sent {
        let marked = marked_sibling(&case);
        let mut canary = marked.within(&mut case, |m| canary_sibling(m, prose));
        canary.case.exposed = hidden_of(case.exposed);
        Sent {
            case,
            marked,
            canary,
            written: None,
            alone: None,
        }
    }

    /// `f` of the marked sibling.
    pub(super) fn with_marked<R>(&mut self, f: impl FnOnce(&Case) -> R) -> R {
        self.marked.within(&mut self.case, f)
    }

    /// The case, the marked sibling, the canary sibling, the
    /// exposure-alone sibling or the repeat of the case
    /// ([`Sent::exposure_alone`]), copied.
    pub(super) fn sibling(&mut self, i: usize) -> Case {
        match i {
            1 => self.with_marked(Case::clone),
            2 => self.canary.case.clone(),
            3 => Case {
                exposed: flip(self.case.exposed),
                calls: self.case.calls.clone(),
            },
            5 => Case {
                exposed: self.case.exposed,
                calls: self
                    .alone
                    .map(|i| self.case.calls[i].clone())
                    .into_iter()
                    .collect(),
            },
            _ => self.case.clone(),
        }
    }

    pub(super) fn send(&mut self, process: &mut Process) {
        process.send_each(|requests| self.send_to(requests));
    }

    /// The marked sibling's reference outcome, made from the case's: it
    /// differs in `exposed` and, through the markers, in its prose alone
    /// (its artifacts are not copied).
    pub(super) fn mark_reference(&mut self, reference: &mut Outcome) {
        self.with_marked(|marked| {
            reference.messages = marked.calls.iter().map(model::clause_3_prose).collect();
            reference.exposed = model::clause_2_not_exposed_by_default(marked.exposed);
        });
    }

    /// The outcome each of the three requests is expected to carry, as
    /// JSON: its reference outcome, in the bytes `serve` prints it in.
    fn expected(&mut self, mut expected: [Vec<u8>; 3]) -> [Vec<u8>; 3] {
        expected.iter_mut().for_each(Vec::clear);
        let mut reference = model::outcome(&self.case);
        let [case, marked, canary] = &mut expected;
        let artifacts = reference.write_json_spanned(case);
        // The marked sibling's outcome differs in its prose and exposure
        // alone: its artifacts' bytes are the case's.
        self.mark_reference(&mut reference);
        reference.write_json_copying(marked, &case[artifacts]);
        model::outcome(&self.canary.case).write_json(canary);
        expected
    }

    /// Reads the replies to the three requests: against the outcomes
    /// expected of them while the process's replies have been carrying
    /// them byte for byte ([`Process::worth_expecting`]), else as they are.
    pub(super) fn read(&mut self, process: &mut Process) -> Replies {
        if !process.worth_expecting() {
            return process.replies(3).map(Read::Replies);
        }
        let expected = self.expected(EXPECTED.take());
        let read = process.replies_expecting(&expected).and_then(|replies| {
            if replies.len() == 3 && replies.iter().all(Option::is_none) {
                return Ok(Read::AsExpected);
            }
            let parsed = replies
                .into_iter()
                .zip(&expected)
                .map(|(reply, e)| reply.map_or_else(|| parse_expected(e), Ok));
            parsed.collect::<Result<_, _>>().map(Read::Replies)
        });
        EXPECTED.set(expected.map(|b| {
            if b.capacity() <= SPARE_MAX {
                b
            } else {
                Vec::new()
            }
        }));
        read
    }

    /// Adds the three requests to `requests`, in the order they are sent.
    /// The marked sibling is written from the case's bytes
    /// ([`Marked::write_json`]).
    pub(super) fn send_to(&mut self, requests: &mut Requests<'_>) {
        let spans = requests.written(|out| self.case.write_json_spanned(out));
        self.written = Some(spans.whole.len());
        let exposed = flip(self.case.exposed);
        requests.written(|out| self.marked.write_json(out, &spans, exposed));
        requests.case(&self.canary.case);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen;

    /// The outcomes [`Sent::read`] expects are the lines `serve` prints,
    /// byte for byte, also when written into the buffers of the cases
    /// before: a buffer left holding an earlier outcome would make every
    /// reply look unlike what was expected, and each be parsed.
    #[test]
    fn expected_outcomes_are_what_serve_prints_in_buffers_used_before() {
        let mut buffers: [Vec<u8>; 3] = Default::default();
        let mut large = 0;
        for (n, case) in gen::cases(3).take(300).enumerate() {
            let mut sent = Sent::new(case, ProseMode::DataOnly);
            let mut requests = Vec::new();
            for (seq, i) in (1..).zip(0..3) {
                crate::harness::run_request(&mut requests, seq, &sent.sibling(i));
            }
            let mut printed = Vec::new();
            crate::serve::serve(&requests[..], &mut printed, Default::default()).unwrap();
            buffers = sent.expected(buffers);
            large += usize::from(buffers[0].len() > 1 << 16);
            let lines: Vec<&[u8]> = printed.split(|&b| b == b'\n').take(3).collect();
            assert_eq!(lines.len(), 3);
            for (i, (line, outcome)) in lines.into_iter().zip(&buffers).enumerate() {
                let head = format!("{{\"seq\":{},\"outcome\":", i + 1);
                let want = [head.as_bytes(), outcome, b"}"].concat();
                assert!(line == want, "case {n}, request {i}");
            }
        }
        assert!(large > 0, "no outcome over 64 KiB among the cases");
    }
}
