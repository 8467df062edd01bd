//! What a process under test can do wrong by itself: each way is a
//! [`Fault`], with its stable code and how a run reports it.

use std::fmt;
use std::time::Duration;

/// What the process can do wrong by itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The command could not be started.
    Spawn(String),
    /// The process ended, or closed stdout, when a reply was due.
    Crashed(String),
    /// No reply within the timeout.
    Hung(Duration),
    /// A reply that is not one line of JSON of the protocol's shape.
    Garbage(String),
    /// A reply line longer than the harness reads.
    LineTooLong(usize),
    /// A reply to another request than the one sent.
    WrongSeq {
        /// The `seq` of the request.
        sent: u64,
        /// What came back instead: `seq N`, or the line without a `seq`.
        got: String,
    },
    /// No `{"ready": true}` reply to `start`.
    NoStart(String),
    /// Lines after the last reply.
    ExtraLines(String),
}

impl Fault {
    /// Its stable code, one of [`crate::code::PROCESS_FAULTS`].
    pub fn code(&self) -> &'static str {
        match self {
            Fault::Spawn(_) => "cannot-start",
            Fault::NoStart(_) => "no-ready",
            Fault::Crashed(_) => "crashed",
            Fault::Hung(_) => "hung",
            Fault::Garbage(_) => "garbage",
            Fault::LineTooLong(_) => "line-too-long",
            Fault::WrongSeq { .. } => "wrong-seq",
            Fault::ExtraLines(_) => "extra-lines",
        }
    }

    /// The fault as a run reports it for copy `copy` (from 0) of `copies`:
    /// `copy K of N: …` when there are several, as it is when alone.
    pub fn of_copy(&self, copy: usize, copies: usize) -> String {
        match copies {
            0 | 1 => self.to_string(),
            _ => format!("copy {} of {copies}: {self}", copy + 1),
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::Spawn(e) => write!(f, "the implementation could not be started: {e}"),
            Fault::Crashed(e) => write!(f, "the implementation crashed: {e}"),
            Fault::Hung(t) => write!(
                f,
                "the implementation hung: no reply within {}s",
                t.as_secs_f64()
            ),
            Fault::Garbage(e) => write!(f, "the implementation replied with garbage: {e}"),
            Fault::LineTooLong(n) => write!(
                f,
                "the implementation replied with a line longer than {n} bytes"
            ),
            Fault::WrongSeq { sent, got } => write!(
                f,
                "the implementation answered request seq {sent} with {got}"
            ),
            Fault::NoStart(e) => {
                write!(f, "the implementation did not answer start with ready: {e}")
            }
            Fault::ExtraLines(e) => {
                write!(f, "the implementation printed a line nobody asked for: {e}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_way_a_process_breaks_has_its_own_documented_code() {
        let faults = [
            Fault::Spawn("e".into()),
            Fault::NoStart("e".into()),
            Fault::Crashed("e".into()),
            Fault::Hung(Duration::from_secs(1)),
            Fault::Garbage("e".into()),
            Fault::LineTooLong(1),
            Fault::WrongSeq {
                sent: 1,
                got: "seq 2".into(),
            },
            Fault::ExtraLines("e".into()),
        ];
        let codes: Vec<&str> = faults.iter().map(Fault::code).collect();
        let documented: Vec<&str> = crate::code::PROCESS_FAULTS
            .iter()
            .map(|(c, _)| *c)
            .collect();
        assert_eq!(codes, documented);
    }
}
