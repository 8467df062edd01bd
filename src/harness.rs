//! The process harness: drives an implementation under test over the
//! JSON-lines protocol of the reading ([`crate::reading`]), in the manner of Bowtie.
//!
//! ```text
//! -> {"cmd":"start","version":1}
//! <- {"ready":true,"version":1,"implementation":{"name":"...","language":"..."}}
//! -> {"cmd":"run","seq":1,"case":{...}}
//! <- {"seq":1,"outcome":{...}}  or  {"seq":1,"errored":true,"message":"..."}
//!                               or  {"seq":1,"skipped":true,"message":"..."}
//! -> {"cmd":"stop"}
//! ```
//!
//! This is the only module that does I/O with the process. Everything the
//! process can do wrong by itself (crash, hang, garbage, an overlong line, a
//! wrong `seq`, no `start` reply) is a [`Fault`], kept apart from verdicts:
//! a fault is never a divergence. One process serves every request. Two
//! threads per process, none per request, do its I/O: one writes requests to
//! its stdin (buffered, one flush per batch), one drains its stderr (keeping
//! the last few KB for the report). The caller reads the process's stdout
//! itself, when it needs a reply: every byte that is there in one read, and
//! if no whole line is, it waits for more until the timeout. So no pipe can
//! fill up and deadlock (a process blocked on writing replies goes on as soon
//! as the caller needs the oldest of them, which comes first in the pipe), a
//! process that stops reading or writing cannot block the caller past the
//! timeout, and requests can be pipelined: the caller sends the next cases
//! while the process still answers earlier ones.
//!
//! Until 2026-12-02 a third thread read stdout and handed the caller its
//! lines; that cost the oracle about a tenth of its CPU (a wake-up a reply,
//! and a second copy of every byte). The price of reading in the caller: a
//! process whose replies fill the pipe (1 MiB on Linux, which the harness
//! asks for) waits while the caller is busy, which costs time only when the
//! caller, not the process, is what the run waits for. A system without
//! `poll` still has the thread.
//!
//! Since 2026-12-04, with many requests in flight the caller does not wake on
//! every write of the process: it sleeps for a third of the time its queue
//! takes, and reads what came (`Pace`, in `pace.rs`).
//!
//! Each concern has a file of its own: the process, its start and its stop
//! (`process.rs`); the requests written to it (`requests.rs`); the writer
//! and stderr threads (`threads.rs`); its stdout split into lines
//! (`output.rs`), read from the pipe (`pipe.rs`) at the pace it answers
//! (`pace.rs`); a reply line read (`reply.rs`), and whether to read it
//! against the outcome expected of it (`likeness.rs`); the faults and their
//! codes (`fault.rs`); and what a process wrote, shown on one line
//! (`excerpt.rs`).

use std::time::Duration;

mod excerpt;
mod fault;
mod likeness;
mod output;
mod pace;
mod pipe;
mod process;
mod reply;
mod requests;
mod threads;

pub use excerpt::{excerpt, gist};
pub use fault::Fault;
pub use process::Process;
pub use reply::{read_reply, Reply};
pub use requests::{run_request, Requests};
pub(crate) use threads::SPARE_MAX;

/// The protocol version this harness speaks.
pub const PROTOCOL_VERSION: u64 = 1;

/// Settings for a process.
#[derive(Clone, Debug)]
pub struct Limits {
    /// How long one reply may take.
    pub timeout: Duration,
    /// The longest reply line read, in bytes, unless [`REPLY_GROWTH`] times
    /// the longest request line sent is longer; past it the process is at
    /// fault.
    pub max_line: usize,
}

/// How many times its request a reply line may be, whatever
/// [`Limits::max_line`] says: a conforming reply that writes every
/// character of its case as a `\uXXXX` escape is about six times it (the
/// prose a rendering of `data`, the artifacts their payloads), so a case
/// of a few megabytes never makes a conforming process's reply too long.
pub const REPLY_GROWTH: usize = 8;

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            timeout: Duration::from_secs(10),
            max_line: 16 << 20,
        }
    }
}
