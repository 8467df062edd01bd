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
//! takes, and reads what came (`Pace`, below).

use std::collections::VecDeque;
use std::fmt;
use std::io::{self, BufWriter, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::wire::{self, Case};

/// The protocol version this harness speaks.
pub const PROTOCOL_VERSION: u64 = 1;

/// How much of the process's stderr is kept for a fault report.
const STDERR_TAIL: usize = 2048;

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

/// What the process answered to one case.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// The outcome it produced, as JSON, to be judged.
    Outcome(Value),
    /// It could not produce an outcome.
    Errored(String),
    /// It declines the case.
    Skipped(String),
}

/// Settings for a process.
#[derive(Clone, Debug)]
pub struct Limits {
    /// How long one reply may take.
    pub timeout: Duration,
    /// The longest reply line read, in bytes; past it the process is at fault.
    pub max_line: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            timeout: Duration::from_secs(10),
            max_line: 16 << 20,
        }
    }
}

/// How the process's output ended.
#[derive(Clone, Debug)]
enum End {
    /// Inside a line: the bytes after the last newline.
    Partial(Vec<u8>),
    /// In a line longer than [`Limits::max_line`].
    TooLong,
    Eof,
    Failed(String),
}

/// An implementation under test, started and answering.
pub struct Process {
    child: Child,
    /// Request lines for the writer thread; `None` once stdin is closed.
    stdin: Option<Sender<Vec<u8>>>,
    /// Buffers the writer thread has written and handed back, emptied, so
    /// their memory is written into again rather than allocated afresh.
    spare: Receiver<Vec<u8>>,
    /// Why writing to the process's stdin failed, if it did.
    write_error: Arc<Mutex<Option<String>>>,
    writer: Option<thread::JoinHandle<()>>,
    /// Its stdout, read when a reply is needed.
    output: Output<Pipe>,
    stderr: Arc<Mutex<VecDeque<u8>>>,
    limits: Limits,
    seq: u64,
    answered: u64,
    /// How its replies have lately compared with the outcomes expected.
    likeness: Likeness,
    /// What the process says it is: its `implementation` from the `start` reply.
    pub implementation: Value,
    /// Requests sent so far, `start` and `stop` aside.
    pub requests: u64,
}

impl Process {
    /// Starts `command` and waits for its `ready` reply.
    pub fn start(command: &[String], limits: Limits) -> Result<Process, Fault> {
        let (program, args) = command
            .split_first()
            .ok_or_else(|| Fault::Spawn("no command given".into()))?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| Fault::Spawn(format!("{program}: {e}")))?;
        let stdin_pipe = child
            .stdin
            .take()
            .ok_or_else(|| Fault::Spawn("no stdin pipe".into()))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| Fault::Spawn("no stdout pipe".into()))?;
        widen(&stdin_pipe);
        widen(&stdout);
        let stderr_pipe = child
            .stderr
            .take()
            .ok_or_else(|| Fault::Spawn("no stderr pipe".into()))?;
        let output = Output::new(Pipe::new(stdout)?, limits.max_line);
        let stderr = Arc::new(Mutex::new(VecDeque::with_capacity(STDERR_TAIL)));
        let tail = Arc::clone(&stderr);
        thread::Builder::new()
            .name("rt-tool-3 stderr".into())
            .spawn(move || drain(stderr_pipe, &tail))
            .map_err(|e| Fault::Spawn(format!("cannot start a stderr thread: {e}")))?;
        let (stdin, requests) = channel();
        let (give_back, spare) = channel();
        let write_error = Arc::new(Mutex::new(None));
        let failed = Arc::clone(&write_error);
        let writer = thread::Builder::new()
            .name("rt-tool-3 stdin".into())
            .spawn(move || write_requests(stdin_pipe, &requests, &give_back, &failed))
            .map_err(|e| Fault::Spawn(format!("cannot start a writer thread: {e}")))?;
        let mut process = Process {
            child,
            stdin: Some(stdin),
            spare,
            writer: Some(writer),
            write_error,
            output,
            stderr,
            limits,
            seq: 0,
            answered: 0,
            likeness: Likeness::default(),
            implementation: Value::Null,
            requests: 0,
        };
        process.send(&json!({"cmd": "start", "version": PROTOCOL_VERSION}));
        let ready = process
            .receive(|line| parse_line(line).map_err(Fault::Garbage))
            .map_err(|fault| Fault::NoStart(fault.to_string()))?;
        if ready.get("ready") != Some(&Value::Bool(true)) {
            return Err(Fault::NoStart(format!(
                "it replied {}",
                excerpt(&ready.to_string())
            )));
        }
        process.implementation = ready.get("implementation").cloned().unwrap_or(Value::Null);
        Ok(process)
    }

    /// Sends one case and reads its reply.
    pub fn run(&mut self, case: &Case) -> Result<Reply, Fault> {
        let mut replies = self.run_all(&[case])?;
        replies
            .pop()
            .ok_or_else(|| Fault::Garbage("no reply".into()))
    }

    /// Sends several cases at once, with one flush, then reads their
    /// replies in order: one round trip instead of one per case.
    pub fn run_all(&mut self, cases: &[&Case]) -> Result<Vec<Reply>, Fault> {
        self.send_cases(cases);
        self.replies(cases.len())
    }

    /// Sends cases without waiting for their replies, so the caller can work
    /// while the process does; [`Process::replies`] reads them, oldest
    /// first. Sending never blocks and never fails by itself: a process that
    /// cannot take a request shows it in the replies (it crashed, or no reply
    /// comes within the timeout).
    pub fn send_cases(&mut self, cases: &[&Case]) {
        self.send_each(|requests| cases.iter().for_each(|case| requests.case(case)));
    }

    /// [`Process::send_cases`], the requests written one at a time by the
    /// function `cases`, in one batch: a caller that makes each case in
    /// turn need not keep them all at once.
    pub fn send_each(&mut self, cases: impl FnOnce(&mut Requests<'_>)) {
        let mut lines = self.spare.try_recv().unwrap_or_default();
        cases(&mut Requests {
            lines: &mut lines,
            seq: &mut self.seq,
            sent: &mut self.requests,
        });
        self.send_lines(lines);
    }

    /// Reads the replies to the `n` oldest requests not yet answered.
    pub fn replies(&mut self, n: usize) -> Result<Vec<Reply>, Fault> {
        self.read_oldest(n, |line, seq, _| read_reply(line, seq))
    }

    /// Reads the lines answering the `n` oldest requests not yet answered,
    /// each by `read` with its request's seq and its place among them.
    fn read_oldest<R>(
        &mut self,
        n: usize,
        mut read: impl FnMut(&[u8], u64, usize) -> Result<R, Fault>,
    ) -> Result<Vec<R>, Fault> {
        let first = self.answered + 1;
        let last = (self.answered + n as u64).min(self.seq);
        let replies = (first..=last)
            .zip(0..)
            .map(|(seq, i)| {
                self.output.source.awaiting(Some((seq, self.seq - seq + 1)));
                self.receive(|line| read(line, seq, i))
            })
            .collect();
        self.output.source.awaiting(None);
        self.answered = last;
        replies
    }

    /// [`Process::replies`] to the `expected.len()` oldest requests, each
    /// read against the outcome it is expected to carry: `expected[i]`, as
    /// JSON. A reply whose line is, byte for byte, the line
    /// `{"seq":N,"outcome":E}` that carries it is `None`: the caller knows
    /// what it holds, and it is not parsed. Any other line is read as
    /// [`read_reply`] reads it.
    ///
    /// `None` means exactly what [`read_reply`] would have said of the
    /// line: `Ok(Reply::Outcome(e))`, `e` being `expected[i]` parsed. So a
    /// line too deeply nested to be read ([`wire::MAX_DEPTH`]) is read, and
    /// refused, however it was expected.
    pub fn replies_expecting(&mut self, expected: &[Vec<u8>]) -> Result<Vec<Option<Reply>>, Fault> {
        let replies = self.read_oldest(expected.len(), |line, seq, i| {
            match carries(line, seq, &expected[i]) {
                true => Ok(None),
                false => read_reply(line, seq).map(Some),
            }
        });
        if let Ok(replies) = &replies {
            self.likeness.saw(replies.iter().any(Option::is_none));
        }
        replies
    }

    /// Whether to read the next replies against the outcomes expected of
    /// them ([`Process::replies_expecting`]): making those outcomes' bytes
    /// costs about what parsing the replies does, and is worth it only for
    /// a process whose replies carry them. So it is, until
    /// sixteen reads in a row found no reply that did; then
    /// only one read in 64, until one does again.
    /// Whichever way replies are read, they are judged alike.
    pub fn worth_expecting(&mut self) -> bool {
        self.likeness.worth()
    }

    /// Sends `stop`, and checks that nothing more was printed.
    pub fn stop(mut self) -> Result<(), Fault> {
        self.send(&json!({"cmd": "stop"}));
        self.stdin = None;
        // Every request before `stop` was answered, so the writer is done
        // within moments; bounded all the same.
        if let Some(writer) = self.writer.take() {
            let deadline = Instant::now() + Duration::from_millis(500);
            while !writer.is_finished() && Instant::now() < deadline {
                thread::sleep(Duration::from_millis(1));
            }
        }
        let extra = match self
            .output
            .next_line(Instant::now() + Duration::from_millis(500))
        {
            Some(Ok(line)) => Err(Fault::ExtraLines(excerpt(&String::from_utf8_lossy(line)))),
            Some(Err(End::Partial(line))) => {
                Err(Fault::ExtraLines(excerpt(&String::from_utf8_lossy(&line))))
            }
            _ => Ok(()),
        };
        // `stop` was the last request; if it could not be written the
        // process had stopped reading before it was told to.
        extra.and(match self.write_error() {
            Some(e) => Err(self.crashed(&format!("writing stop failed ({e})"))),
            None => Ok(()),
        })
    }

    fn send(&mut self, request: &Value) {
        let mut lines = Vec::new();
        line(&mut lines, request);
        self.send_lines(lines);
    }

    /// Hands request lines to the writer thread. If it has stopped, its
    /// error is kept and reported with the fault the replies show.
    fn send_lines(&mut self, lines: Vec<u8>) {
        if let Some(stdin) = &self.stdin {
            if stdin.send(lines).is_err() {
                self.stdin = None;
            }
        }
    }

    fn write_error(&self) -> Option<String> {
        self.write_error.lock().ok().and_then(|e| e.clone())
    }

    /// The next line the process printed, read by `read`, waiting for it up
    /// to the timeout ([`Output::next_line`]).
    fn receive<R>(&mut self, read: impl FnOnce(&[u8]) -> Result<R, Fault>) -> Result<R, Fault> {
        let deadline = deadline_after(self.limits.timeout);
        let end = match self.output.next_line(deadline) {
            Some(Ok(line)) => return read(line),
            Some(Err(end)) => Some(end),
            None => None,
        };
        match end {
            Some(End::Partial(line)) => Err(self.crashed(&format!(
                "stdout ended inside a line: {}",
                excerpt(&String::from_utf8_lossy(&line))
            ))),
            Some(End::TooLong) => Err(Fault::LineTooLong(self.limits.max_line)),
            Some(End::Failed(e)) => Err(self.crashed(&format!("reading stdout failed ({e})"))),
            Some(End::Eof) => Err(self.crashed("stdout closed")),
            None => match self.write_error() {
                Some(e) => Err(self.crashed(&format!(
                    "it stopped reading requests ({e}) and sent no reply"
                ))),
                None => Err(Fault::Hung(self.limits.timeout)),
            },
        }
    }

    fn crashed(&mut self, what: &str) -> Fault {
        let status = wait_briefly(&mut self.child);
        let tail = self
            .stderr
            .lock()
            .map(|t| String::from_utf8_lossy(&Vec::from(t.clone())).into_owned());
        let tail = tail.unwrap_or_default();
        let tail = tail.trim().lines().last().unwrap_or_default();
        let mut text = what.to_owned();
        if let Some(status) = status {
            text.push_str(&format!("; it exited with {status}"));
        }
        if !tail.is_empty() {
            text.push_str(&format!("; its stderr ends: {}", excerpt(tail)));
        }
        Fault::Crashed(text)
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.stdin = None;
        if wait_briefly(&mut self.child).is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Appends the request to run `case` as request `seq` to `lines`, as one
/// line: `{"cmd":"run","seq":N,"case":{…}}`, the bytes serde_json writes
/// for it, written by [`Case::write_json`].
pub fn run_request(lines: &mut Vec<u8>, seq: u64, case: &Case) {
    run_request_written(lines, seq, |lines| case.write_json(lines));
}

/// [`run_request`] of the case `write` appends to `lines` as compact JSON;
/// what `write` returns.
fn run_request_written<R>(
    lines: &mut Vec<u8>,
    seq: u64,
    write: impl FnOnce(&mut Vec<u8>) -> R,
) -> R {
    lines.extend_from_slice(b"{\"cmd\":\"run\",\"seq\":");
    lines.extend_from_slice(seq.to_string().as_bytes());
    lines.extend_from_slice(b",\"case\":");
    let written = write(lines);
    lines.extend_from_slice(b"}\n");
    written
}

/// The `run` requests of one batch ([`Process::send_each`]), written one
/// after another into the batch's bytes, each numbered in turn.
pub struct Requests<'a> {
    lines: &'a mut Vec<u8>,
    seq: &'a mut u64,
    sent: &'a mut u64,
}

impl Requests<'_> {
    /// Adds the request to run `case`.
    pub fn case(&mut self, case: &Case) {
        self.written(|lines| case.write_json(lines));
    }

    /// Adds a request to run the case `write` appends as compact JSON to
    /// the batch's bytes (which hold the batch's earlier requests, for it
    /// to copy from); what `write` returns. What it appends must be one
    /// case, as [`Case::write_json`] would write it.
    pub fn written<R>(&mut self, write: impl FnOnce(&mut Vec<u8>) -> R) -> R {
        *self.seq += 1;
        *self.sent += 1;
        run_request_written(self.lines, *self.seq, write)
    }
}

/// Reads one reply line as the harness does, without a process: `line` is
/// the line as the process wrote it, without its newline, and `seq` the
/// request it answers.
///
/// A line that is not JSON (or is nested deeper than [`wire::MAX_DEPTH`]),
/// or not an object, or an object with none of `outcome`, `errored: true`
/// and `skipped: true`, is [`Fault::Garbage`]; an object whose `seq` is not
/// `seq`, or that has none, is [`Fault::WrongSeq`]. Otherwise the reply is
/// its `outcome` if it has one, else [`Reply::Errored`], else
/// [`Reply::Skipped`], with its `message` if that is a string. Each fault
/// is said in one line, quoting at most an excerpt of the reply.
///
/// The harness does the same when the caller asks for a reply, once
/// it has split the output into lines and checked the line's
/// length ([`Limits::max_line`], [`Fault::LineTooLong`]), as it must stop
/// reading a line before it ends.
///
/// ```
/// use rt_tool_3::harness::{read_reply, Fault, Reply};
///
/// let reply = read_reply(br#"{"seq":7,"skipped":true,"message":"later"}"#, 7);
/// assert_eq!(reply, Ok(Reply::Skipped("later".into())));
/// assert!(matches!(read_reply(br#"{"seq":8,"outcome":{}}"#, 7), Err(Fault::WrongSeq { .. })));
/// ```
pub fn read_reply(line: &[u8], seq: u64) -> Result<Reply, Fault> {
    reply_to(parse_line(line).map_err(Fault::Garbage)?, seq)
}

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
struct Pace {
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
    fn waiting(&mut self, seq: u64, in_flight: u64, now: Instant) -> Duration {
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

/// How a process's replies have lately compared with the outcomes expected
/// of them: for how many reads in a row none carried one, and how many
/// reads were since made as they are.
#[derive(Debug, Default)]
struct Likeness {
    unlike: u32,
    declined: u32,
}

impl Likeness {
    /// Reads in a row with no reply alike, after which replies are read
    /// against expected outcomes only now and then.
    const GIVE_UP: u32 = 16;
    /// One read in so many is then made against expected outcomes.
    const RETRY: u32 = 64;

    fn worth(&mut self) -> bool {
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

    fn saw(&mut self, alike: bool) {
        self.unlike = if alike {
            0
        } else {
            self.unlike.saturating_add(1)
        };
    }
}

/// Whether `line` is the reply to request `seq` that carries `outcome`,
/// byte for byte as the harness's own writer would put it:
/// `{"seq":N,"outcome":…}`, and a line [`wire::parse`] reads (no deeper
/// than [`wire::MAX_DEPTH`]). Every byte of the line is compared, so a
/// line that is not the expected one is told apart at its first
/// difference, and read as any other.
fn carries(line: &[u8], seq: u64, outcome: &[u8]) -> bool {
    let seq = seq.to_string();
    let carried = line
        .strip_prefix(b"{\"seq\":".as_slice())
        .and_then(|rest| rest.strip_prefix(seq.as_bytes()))
        .and_then(|rest| rest.strip_prefix(b",\"outcome\":".as_slice()))
        .and_then(|rest| rest.strip_suffix(b"}".as_slice()));
    carried == Some(outcome) && wire::within_depth(line)
}

/// The first half of [`read_reply`]: one line (without its newline) as
/// JSON, or why it is not JSON, with an excerpt of the line. A string
/// holding a lone surrogate escape is read, marked ([`wire::parse_reply`]),
/// for the judge: the reply is judged, and the run goes on.
fn parse_line(line: &[u8]) -> Result<Value, String> {
    wire::parse_reply::<Value>(line)
        .map_err(|e| format!("{e}: {}", excerpt(&String::from_utf8_lossy(line))))
}

/// The second half of [`read_reply`]: a parsed line as the reply to
/// request `seq`.
fn reply_to(reply: Value, seq: u64) -> Result<Reply, Fault> {
    let Value::Object(mut reply) = reply else {
        return Err(Fault::Garbage(format!(
            "the reply to request seq {seq} is not an object"
        )));
    };
    match reply.get("seq") {
        Some(Value::Number(n)) if n.as_u64() == Some(seq) => {}
        Some(other) => {
            let got = format!("seq {}", excerpt(&other.to_string()));
            return Err(Fault::WrongSeq { sent: seq, got });
        }
        None => {
            let got = format!(
                "a line without seq: {}",
                excerpt(&Value::Object(reply).to_string())
            );
            return Err(Fault::WrongSeq { sent: seq, got });
        }
    }
    let message = |reply: &serde_json::Map<String, Value>| {
        reply
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    if let Some(outcome) = reply.remove("outcome") {
        Ok(Reply::Outcome(outcome))
    } else if reply.get("errored") == Some(&Value::Bool(true)) {
        Ok(Reply::Errored(message(&reply)))
    } else if reply.get("skipped") == Some(&Value::Bool(true)) {
        Ok(Reply::Skipped(message(&reply)))
    } else {
        Err(Fault::Garbage(format!(
            "reply {} has no outcome, errored or skipped",
            excerpt(&Value::Object(reply).to_string())
        )))
    }
}

/// Asks for a pipe of [`PIPE_SIZE`] bytes instead of Linux's 64 KiB, so a
/// batch of requests, or of replies, passes in one write rather than a
/// write, a wait and a wake-up for every 64 KiB. Best effort: a system that
/// refuses keeps its pipe, which is slower, not wrong.
#[cfg(target_os = "linux")]
fn widen(pipe: &impl std::os::fd::AsRawFd) {
    // SAFETY: F_SETPIPE_SZ takes an int and changes only the pipe's
    // capacity; the descriptor is open, as `pipe` owns it.
    unsafe {
        libc::fcntl(pipe.as_raw_fd(), libc::F_SETPIPE_SZ, PIPE_SIZE);
    }
}

#[cfg(not(target_os = "linux"))]
fn widen<T>(_pipe: &T) {}

/// The pipe size [`widen`] asks for: Linux's default `pipe-max-size`, the
/// most an unprivileged process may ask for.
#[cfg(target_os = "linux")]
const PIPE_SIZE: libc::c_int = 1 << 20;

/// The process's stdout as the caller reads it: what was read and not yet
/// handed out as lines, and how the output ended, once it has.
///
/// A read takes every byte that is there (up to the room in the buffer, at
/// least [`READ_ROOM`]), so the replies that came while the caller was busy
/// cost one read between them, and a line's end is looked for once in each
/// byte. `buf` is zeroed up to its length, and `filled` says how much of it
/// holds output: the room a read goes into is initialised once, when the
/// buffer grows, not before every read.
struct Output<S> {
    source: S,
    buf: Vec<u8>,
    /// Where the output read so far ends in `buf`.
    filled: usize,
    /// Where the first line not yet handed out starts.
    at: usize,
    /// How many bytes from `at` on are known to hold no newline.
    scanned: usize,
    max_line: usize,
    /// How the output ended, once it has: after the lines in `buf`.
    end: Option<End>,
}

/// The least room a read of the process's stdout is given.
const READ_ROOM: usize = 1 << 16;

impl<S: Source> Output<S> {
    fn new(source: S, max_line: usize) -> Output<S> {
        Output {
            source,
            buf: Vec::new(),
            filled: 0,
            at: 0,
            scanned: 0,
            max_line,
            end: None,
        }
    }

    /// The next line the process printed (without its newline), or how its
    /// output ended; `None` if no whole line came by `deadline`. Every line
    /// read before the end is handed out first. A line is whole when it
    /// has ended within `max_line` bytes; past that the output ends there,
    /// [`End::TooLong`], without reading the rest. Once ended, it stays so.
    fn next_line(&mut self, deadline: Instant) -> Option<Result<&[u8], End>> {
        // Each turn finds a line, finds an end, or reads: some bytes (and
        // looks at each once), the end, or nothing by the deadline.
        loop {
            let from = self.at + self.scanned;
            let newline = memchr::memchr(b'\n', &self.buf[from..self.filled]);
            let length = newline.map_or(self.filled, |k| from + k) - self.at;
            if length > self.max_line {
                self.buf = Vec::new();
                (self.filled, self.at, self.scanned) = (0, 0, 0);
                self.end = Some(End::TooLong);
            } else if newline.is_some() {
                let start = self.at;
                self.at += length + 1;
                self.scanned = 0;
                return Some(Ok(&self.buf[start..start + length]));
            } else {
                self.scanned = length;
            }
            if let Some(end) = &self.end {
                return Some(Err(end.clone()));
            }
            self.make_room();
            match self.source.read_by(&mut self.buf[self.filled..], deadline) {
                Ok(Some(0)) => {
                    let rest = &self.buf[self.at..self.filled];
                    self.end = Some(match rest {
                        [] => End::Eof,
                        _ => End::Partial(rest.to_vec()),
                    });
                    self.at = self.filled;
                    self.scanned = 0;
                }
                Ok(Some(n)) => self.filled += n,
                Ok(None) => return None,
                Err(e) => self.end = Some(End::Failed(e.to_string())),
            }
        }
    }

    /// Leaves at least [`READ_ROOM`] bytes after `filled`: the buffer starts
    /// over once every line in it was handed out (and is let go if it grew
    /// past [`SPARE_MAX`]), the line under way is moved to its start when
    /// the room runs short, and only then does it grow.
    fn make_room(&mut self) {
        if self.at == self.filled {
            (self.filled, self.at) = (0, 0);
            if self.buf.len() > SPARE_MAX {
                self.buf = Vec::new();
            }
        } else if self.buf.len() - self.filled < READ_ROOM {
            self.buf.copy_within(self.at..self.filled, 0);
            self.filled -= self.at;
            self.at = 0;
        }
        if self.buf.len() - self.filled < READ_ROOM {
            let len = (2 * self.buf.len()).max(self.filled + READ_ROOM);
            self.buf.resize(len, 0);
        }
    }
}

/// Where [`Output`] reads from.
trait Source {
    /// Reads into `buf` (never empty) what is there, waiting for it until
    /// `deadline`: how many bytes were read (0 at the end of the output),
    /// or `None` if none came by then.
    fn read_by(&mut self, buf: &mut [u8], deadline: Instant) -> io::Result<Option<usize>>;

    /// What the caller reads for next: the reply to request `seq`, with
    /// `in_flight` requests unanswered, as `(seq, in_flight)`, or nothing
    /// in particular. A source may let replies gather before reading them
    /// ([`Pace`]).
    fn awaiting(&mut self, _reply: Option<(u64, u64)>) {}
}

/// The process's stdout, read without blocking: a read takes what is
/// there, and `poll` waits for more until the deadline.
#[cfg(unix)]
struct Pipe {
    stdout: std::process::ChildStdout,
    /// The reply the caller reads for, and how many are in flight, until
    /// nothing is there to read and the pace is asked how long to sleep.
    awaited: Option<(u64, u64)>,
    /// How long to sleep, when nothing is there, before reading again:
    /// zero to wake as soon as anything comes.
    linger: Duration,
    pace: Pace,
}

#[cfg(unix)]
impl Pipe {
    fn new(stdout: std::process::ChildStdout) -> Result<Pipe, Fault> {
        use std::os::fd::AsRawFd;
        let fd = stdout.as_raw_fd();
        // SAFETY: F_GETFL and F_SETFL take and change only the flags of a
        // descriptor that is open, as `stdout` owns it.
        let set = unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            flags >= 0 && libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) >= 0
        };
        if !set {
            let e = io::Error::last_os_error();
            return Err(Fault::Spawn(format!(
                "cannot read its stdout without blocking: {e}"
            )));
        }
        Ok(Pipe {
            stdout,
            awaited: None,
            linger: Duration::ZERO,
            pace: Pace::default(),
        })
    }
}

#[cfg(unix)]
impl Source for Pipe {
    fn read_by(&mut self, buf: &mut [u8], deadline: Instant) -> io::Result<Option<usize>> {
        use std::os::fd::AsRawFd;
        loop {
            match self.stdout.read(buf) {
                Ok(n) => return Ok(Some(n)),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(None);
            }
            if let Some((seq, in_flight)) = self.awaited.take() {
                self.linger = self.pace.waiting(seq, in_flight, Instant::now());
            }
            if !self.linger.is_zero() {
                thread::sleep(self.linger.min(left));
                continue;
            }
            // Whole milliseconds, rounded up, so as not to wake before the
            // deadline and poll again.
            let ms = libc::c_int::try_from(left.as_millis() + 1).unwrap_or(libc::c_int::MAX);
            let mut fd = libc::pollfd {
                fd: self.stdout.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one pollfd, which lives through the call.
            if unsafe { libc::poll(&mut fd, 1, ms) } < 0 {
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
    }

    fn awaiting(&mut self, reply: Option<(u64, u64)>) {
        self.awaited = reply;
        self.linger = Duration::ZERO;
    }
}

/// Where no `poll` is at hand: a thread of its own reads the output, and
/// hands it over in chunks.
#[cfg(not(unix))]
type Pipe = Relay;

/// The output read by a thread of its own, which blocks on each read, and
/// handed over in chunks through a channel; a read waits for the next
/// chunk until the deadline. (Built on every system for its test.)
#[cfg(any(not(unix), test))]
struct Relay {
    chunks: Receiver<io::Result<Vec<u8>>>,
    /// The chunk being handed over, and how much of it was.
    chunk: Vec<u8>,
    at: usize,
}

#[cfg(any(not(unix), test))]
impl Relay {
    fn new(mut stdout: impl Read + Send + 'static) -> Result<Relay, Fault> {
        let (chunks, rx) = channel();
        let read = move || loop {
            let mut chunk = vec![0; READ_ROOM];
            let read = match stdout.read(&mut chunk) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Ok(n) => Ok(n),
                Err(e) => Err(e),
            };
            let more = matches!(read, Ok(1..));
            let sent = chunks.send(read.map(|n| {
                chunk.truncate(n);
                chunk
            }));
            if sent.is_err() || !more {
                return;
            }
        };
        thread::Builder::new()
            .name("rt-tool-3 stdout".into())
            .spawn(read)
            .map_err(|e| Fault::Spawn(format!("cannot start a reader thread: {e}")))?;
        Ok(Relay {
            chunks: rx,
            chunk: Vec::new(),
            at: 0,
        })
    }
}

#[cfg(any(not(unix), test))]
impl Source for Relay {
    fn read_by(&mut self, buf: &mut [u8], deadline: Instant) -> io::Result<Option<usize>> {
        use std::sync::mpsc::RecvTimeoutError;
        if self.at == self.chunk.len() {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.chunks.recv_timeout(left) {
                Ok(chunk) => (self.chunk, self.at) = (chunk?, 0),
                Err(RecvTimeoutError::Timeout) => return Ok(None),
                Err(RecvTimeoutError::Disconnected) => return Ok(Some(0)),
            }
        }
        let n = buf.len().min(self.chunk.len() - self.at);
        buf[..n].copy_from_slice(&self.chunk[self.at..self.at + n]);
        self.at += n;
        Ok(Some(n))
    }
}

/// Appends `request` to `lines` as one line of JSON.
fn line(lines: &mut Vec<u8>, request: &impl serde::Serialize) {
    // Serializing a `Case` or a `Value` to memory cannot fail: every map
    // key is a string.
    let _ = serde_json::to_writer(&mut *lines, request);
    lines.push(b'\n');
}

/// The writer thread: writes request lines to the process's stdin as they
/// come, flushing once whatever is queued has been written, and hands each
/// buffer back emptied (unless it grew past [`SPARE_MAX`]). On a write error
/// it notes the error and ends, closing stdin; so does the end of requests.
fn write_requests(
    stdin: ChildStdin,
    requests: &Receiver<Vec<u8>>,
    give_back: &Sender<Vec<u8>>,
    failed: &Mutex<Option<String>>,
) {
    let mut stdin = BufWriter::with_capacity(1 << 16, stdin);
    let write = |stdin: &mut BufWriter<ChildStdin>, mut lines: Vec<u8>| {
        let written = stdin.write_all(&lines);
        if lines.capacity() <= SPARE_MAX {
            lines.clear();
            let _ = give_back.send(lines);
        }
        written
    };
    while let Ok(lines) = requests.recv() {
        let mut written = write(&mut stdin, lines);
        while written.is_ok() {
            match requests.try_recv() {
                Ok(more) => written = write(&mut stdin, more),
                Err(_) => break,
            }
        }
        if let Err(e) = written.and_then(|()| stdin.flush()) {
            if let Ok(mut failed) = failed.lock() {
                *failed = Some(e.to_string());
            }
            return;
        }
    }
}

/// The largest buffer of request lines kept for reuse: a batch of
/// ordinary cases fits many times over, and one huge case's buffer is not
/// held for the rest of the run.
pub(crate) const SPARE_MAX: usize = 4 << 20;

/// `wait` from now; a wait longer than an `Instant` can reach (a timeout
/// of [`Duration::MAX`], say) is taken as a century, which is no timeout.
fn deadline_after(wait: Duration) -> Instant {
    const CENTURY: Duration = Duration::from_secs(100 * 365 * 24 * 3600);
    let now = Instant::now();
    now.checked_add(wait)
        .or_else(|| now.checked_add(CENTURY))
        .unwrap_or(now)
}

/// Waits up to half a second for the child to exit, looking every
/// millisecond: a child that was told to stop has usually closed its
/// output before it exits, and is gone a moment later.
fn wait_briefly(child: &mut Child) -> Option<ExitStatus> {
    let deadline = Instant::now() + Duration::from_millis(500);
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        if Instant::now() >= deadline {
            return None;
        }
        thread::sleep(Duration::from_millis(1));
    }
}

/// Reads a pipe to its end, keeping only its last [`STDERR_TAIL`] bytes.
fn drain(mut pipe: impl Read, tail: &Mutex<VecDeque<u8>>) {
    let mut buf = [0u8; 8192];
    while let Ok(n @ 1..) = pipe.read(&mut buf) {
        if let Ok(mut tail) = tail.lock() {
            tail.extend(&buf[..n]);
            let excess = tail.len().saturating_sub(STDERR_TAIL);
            tail.drain(..excess);
        }
    }
}

/// A message an implementation wrote, on one line: all of it when short;
/// else its first and last 100 characters, as the end of a stack trace
/// says what went wrong and its start where.
///
/// ```
/// use rt_tool_3::harness::gist;
///
/// let trace = format!("Traceback:\n{}ValueError: no", "  File \"x.py\"\n".repeat(50));
/// let gist = gist(&trace);
/// assert!(gist.starts_with("Traceback:   File \"x.py\"") && gist.ends_with("\"x.py\" ValueError: no"));
/// assert!(!gist.contains('\n') && gist.contains('…'));
/// assert_eq!(gist.chars().count(), 201);
/// ```
pub fn gist(text: &str) -> String {
    let one_line = one_line(text.trim());
    let count = one_line.chars().count();
    if count <= 200 {
        return one_line;
    }
    let head: String = one_line.chars().take(100).collect();
    let tail: String = one_line.chars().skip(count - 100).collect();
    format!("{head}…{tail}")
}

/// `text` with each control character (a newline among them) a space.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// The start of a long text, on one line.
pub fn excerpt(text: &str) -> String {
    let one_line = one_line(text);
    match one_line.char_indices().nth(200) {
        Some((at, _)) => format!("{}…", &one_line[..at]),
        None => one_line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads `line` as the reply to request `seq` and checks the answer.
    fn reads(line: &[u8], seq: u64, expected: Result<Reply, Fault>) {
        let shown = String::from_utf8_lossy(line);
        assert_eq!(
            read_reply(line, seq),
            expected,
            "{shown} as the reply to {seq}"
        );
    }

    fn garbage(why: &str) -> Result<Reply, Fault> {
        Err(Fault::Garbage(why.to_owned()))
    }

    fn wrong_seq(sent: u64, got: &str) -> Result<Reply, Fault> {
        Err(Fault::WrongSeq {
            sent,
            got: got.to_owned(),
        })
    }

    /// An output that comes in `reads`, in turn (`None`: nothing comes by
    /// the deadline), then fails if `error`, else ends.
    struct Script {
        reads: VecDeque<Option<Vec<u8>>>,
        error: bool,
    }

    impl Script {
        /// `bytes` in reads of `sizes` bytes, the sizes taken in turn.
        fn new(bytes: &[u8], sizes: &[usize], error: bool) -> Script {
            let mut reads = VecDeque::new();
            let (mut rest, mut sizes) = (bytes, sizes.iter().cycle());
            while let (false, Some(&n)) = (rest.is_empty(), sizes.next()) {
                let (read, after) = rest.split_at(n.clamp(1, rest.len()));
                reads.push_back(Some(read.to_vec()));
                rest = after;
            }
            Script { reads, error }
        }

        /// The next read into `buf`, as [`Source::read_by`] says it.
        fn next(&mut self, buf: &mut [u8]) -> io::Result<Option<usize>> {
            let Some(read) = self.reads.pop_front() else {
                return if self.error {
                    Err(io::Error::other("the pipe broke"))
                } else {
                    Ok(Some(0))
                };
            };
            let Some(mut read) = read else {
                return Ok(None);
            };
            let n = read.len().min(buf.len());
            buf[..n].copy_from_slice(&read[..n]);
            if n < read.len() {
                self.reads.push_front(Some(read.split_off(n)));
            }
            Ok(Some(n))
        }
    }

    impl Source for Script {
        fn read_by(&mut self, buf: &mut [u8], _: Instant) -> io::Result<Option<usize>> {
            self.next(buf)
        }
    }

    /// The script as a pipe read by a thread of its own ([`Relay`]), where
    /// nothing coming is no read at all.
    impl Read for Script {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            loop {
                if let Some(n) = self.next(buf)? {
                    return Ok(n);
                }
            }
        }
    }

    /// What [`Output`] hands out from `source` with lines of at most
    /// `max_line` bytes: the lines, each with a newline, until the output
    /// ends or nothing comes (`-` in the lines); and how it ended, asked
    /// twice, as it stays ended.
    fn read_in(source: impl Source, max_line: usize) -> (String, String) {
        let mut output = Output::new(source, max_line);
        let soon = || Instant::now() + Duration::from_secs(5);
        let mut lines = String::new();
        let mut turns = 0..10_000;
        let end = loop {
            assert!(turns.next().is_some(), "no end after {} bytes", lines.len());
            match output.next_line(soon()) {
                Some(Ok(line)) => {
                    lines.push_str(&String::from_utf8_lossy(line));
                    lines.push('\n');
                }
                Some(Err(end)) => break end,
                None => lines.push('-'),
            }
        };
        let said = |end: &End| match end {
            End::Eof => "eof".to_owned(),
            End::Partial(p) => format!("partial {}", String::from_utf8_lossy(p)),
            End::TooLong => "too long".to_owned(),
            End::Failed(e) => format!("failed: {e}"),
        };
        let again = match output.next_line(soon()) {
            Some(Err(e)) => said(&e),
            other => format!("{:?}", other.map(|l| l.map(<[u8]>::to_vec))),
        };
        assert_eq!(said(&end), again, "{lines:?}: the end stays");
        (lines, again)
    }

    #[test]
    fn the_output_hands_out_whole_lines_however_the_reads_fall() {
        let text = "{\"a\":1}\n\nxyz\n0123456789\n";
        // Every read size, and reads of mixed sizes.
        let sizes: Vec<Vec<usize>> = (1..=text.len() + 1)
            .map(|n| vec![n])
            .chain([vec![3, 7, 1], vec![9, 2]])
            .collect();
        for sizes in &sizes {
            for relayed in [false, true] {
                let read = |bytes: &str, max_line, error| {
                    let script = Script::new(bytes.as_bytes(), sizes, error);
                    if relayed {
                        read_in(Relay::new(script).expect("a thread"), max_line)
                    } else {
                        read_in(script, max_line)
                    }
                };
                let at = format!("{sizes:?}, relayed: {relayed}");
                let whole = (text.to_owned(), "eof".to_owned());
                assert_eq!(read(text, 100, false), whole, "{at}");
                // A line of `max_line` bytes is whole; one more byte is too
                // long, and only the lines before it are handed over.
                assert_eq!(read(text, 10, false), whole, "{at}");
                let cut = ("{\"a\":1}\n\nxyz\n".to_owned(), "too long".to_owned());
                assert_eq!(read(text, 9, false), cut, "{at}");
                let unended = format!("{text}tail");
                let partial = (text.to_owned(), "partial tail".to_owned());
                assert_eq!(read(&unended, 10, false), partial, "{at}");
                // Cut off at the limit, a line is still only unended.
                let unended = format!("{text}0123456789");
                let partial = (text.to_owned(), "partial 0123456789".to_owned());
                assert_eq!(read(&unended, 10, false), partial, "{at}");
                // A line under way may not outgrow the limit either.
                let long = format!("{text}01234567890");
                let cut = (text.to_owned(), "too long".to_owned());
                assert_eq!(read(&long, 10, false), cut, "{at}");
                let broke = (text.to_owned(), "failed: the pipe broke".to_owned());
                assert_eq!(read(text, 10, true), broke, "{at}");
            }
        }
    }

    #[test]
    fn a_line_waited_for_in_vain_is_still_read_whole_when_it_comes() {
        let read = |reads: &[Option<&str>]| {
            let reads = reads.iter().map(|r| r.map(|r| r.as_bytes().to_vec()));
            let script = Script {
                reads: reads.collect(),
                error: false,
            };
            read_in(script, 100)
        };
        let ended = |lines: &str| (lines.to_owned(), "eof".to_owned());
        assert_eq!(read(&[None, Some("a\n")]), ended("-a\n"));
        assert_eq!(read(&[Some("a\nb"), None, Some("c\n")]), ended("a\n-bc\n"));
        assert_eq!(
            read(&[Some("a\nb"), None, None, Some("c\nd\n")]),
            ended("a\n--bc\nd\n")
        );
        // The lines already read come before the wait.
        assert_eq!(read(&[Some("a\nb\n"), None]), ended("a\nb\n-"));
    }

    /// A buffer that starts over, is moved up or grows, as the lines read
    /// leave it room: a long run of lines of every length, read in pieces
    /// of every size, comes out as it went in.
    #[test]
    fn the_output_keeps_every_byte_as_its_buffer_moves_and_grows() {
        let lines: Vec<String> = (0..400)
            .map(|i| "x".repeat((i * 7919) % (3 * READ_ROOM)))
            .collect();
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        for sizes in [vec![1 << 20], vec![READ_ROOM - 1, 13, 2 * READ_ROOM + 5]] {
            let script = Script::new(text.as_bytes(), &sizes, false);
            let (read, end) = read_in(script, 3 * READ_ROOM);
            assert!(
                read == text,
                "{sizes:?}: {} bytes of {}",
                read.len(),
                text.len()
            );
            assert_eq!(end, "eof");
        }
    }

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

    /// A line carries the outcome expected of it only when it is, byte for
    /// byte, the reply that does; and then it reads as that outcome.
    #[test]
    fn a_line_carries_the_expected_outcome_only_when_it_is_its_very_reply() {
        let expected = r#"{"a":1}"#;
        let deep = format!(
            "{}1{}",
            "[".repeat(wire::MAX_DEPTH),
            "]".repeat(wire::MAX_DEPTH)
        );
        let deep_line = format!(r#"{{"seq":3,"outcome":{deep}}}"#);
        // A line, the request it answers, the outcome expected, and whether
        // the line carries it.
        let rows: &[(&str, u64, &str, bool)] = &[
            (r#"{"seq":3,"outcome":{"a":1}}"#, 3, expected, true),
            (r#"{"seq":12,"outcome":{"a":1}}"#, 12, expected, true),
            // Another request's reply, or another outcome.
            (r#"{"seq":3,"outcome":{"a":1}}"#, 4, expected, false),
            (r#"{"seq":13,"outcome":{"a":1}}"#, 1, expected, false),
            (r#"{"seq":3,"outcome":{"a":2}}"#, 3, expected, false),
            (r#"{"seq":3,"outcome":{"a":1}}"#, 3, "{}", false),
            // The same outcome written another way is read, not matched.
            (r#"{"seq":3, "outcome":{"a":1}}"#, 3, expected, false),
            (r#"{"outcome":{"a":1},"seq":3}"#, 3, expected, false),
            (r#"{"seq":3,"outcome":{"a":1}} "#, 3, expected, false),
            (r#"{"seq":3,"outcome":{"a":1}}}"#, 3, expected, false),
            (r#"{"seq":3,"outcome":{"a":1}"#, 3, expected, false),
            (r#"{"seq":03,"outcome":{"a":1}}"#, 3, expected, false),
            (r#"{"seq":3,"outcome":{"a":1.0}}"#, 3, expected, false),
            // Too deep to be read: never taken for the outcome.
            (&deep_line, 3, &deep, false),
        ];
        for &(line, seq, outcome, carried) in rows {
            let found = carries(line.as_bytes(), seq, outcome.as_bytes());
            assert_eq!(found, carried, "{line}");
            if carried {
                let value = wire::parse::<Value>(outcome.as_bytes()).expect("JSON");
                reads(line.as_bytes(), seq, Ok(Reply::Outcome(value)));
            }
        }
        assert!(read_reply(deep_line.as_bytes(), 3).is_err());
    }

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

    #[test]
    fn a_reply_is_its_outcome_or_that_it_errored_or_skipped() {
        let outcome = |v: Value| Ok(Reply::Outcome(v));
        let cases: &[(&[u8], u64, Result<Reply, Fault>)] = &[
            (
                br#"{"seq":3,"outcome":{"exposed":false}}"#,
                3,
                outcome(json!({"exposed": false})),
            ),
            // An outcome of any shape is the judge's to refuse, not a fault.
            (br#"{"seq":3,"outcome":null}"#, 3, outcome(Value::Null)),
            // An outcome wins over errored and skipped.
            (
                br#"{"errored":true,"outcome":[1],"seq":3}"#,
                3,
                outcome(json!([1])),
            ),
            (br#"  {"seq":0,"outcome":1}  "#, 0, outcome(json!(1))),
            (
                br#"{"seq":3,"errored":true,"message":"boom"}"#,
                3,
                Ok(Reply::Errored("boom".into())),
            ),
            // A message that is not a string is no message.
            (
                br#"{"seq":3,"errored":true,"message":7}"#,
                3,
                Ok(Reply::Errored(String::new())),
            ),
            (
                br#"{"seq":3,"errored":true,"skipped":true}"#,
                3,
                Ok(Reply::Errored(String::new())),
            ),
            (
                br#"{"seq":3,"errored":false,"skipped":true,"message":"later"}"#,
                3,
                Ok(Reply::Skipped("later".into())),
            ),
            (
                br#"{"seq":3,"skipped":true}"#,
                3,
                Ok(Reply::Skipped(String::new())),
            ),
            (
                br#"{"seq":18446744073709551615,"skipped":true}"#,
                u64::MAX,
                Ok(Reply::Skipped(String::new())),
            ),
        ];
        for (line, seq, expected) in cases {
            reads(line, *seq, expected.clone());
        }
    }

    #[test]
    fn a_line_not_of_the_protocols_shape_is_garbage() {
        let deep = format!("{}{}", "[".repeat(600), "]".repeat(600));
        let long = "x".repeat(300);
        let cases: &[(&[u8], u64, Result<Reply, Fault>)] = &[
            (b"Traceback (most recent call last): not json", 1,
                garbage("expected value at line 1 column 1: Traceback (most recent call last): not json")),
            // The line as written, one line: no "line 2" for the newline.
            (br#"{"seq":1,"outcome":{"messa"#, 1,
                garbage(r#"EOF while parsing a string at line 1 column 26: {"seq":1,"outcome":{"messa"#)),
            (b"", 1, garbage("EOF while parsing a value at line 1 column 0: ")),
            (br#"{"seq":1,"outcome":{}} {}"#, 1, garbage(r#"trailing characters at line 1 column 24: {"seq":1,"outcome":{}} {}"#)),
            // Control characters become spaces, and a long line an excerpt.
            (b"\x1b[31m\tred", 1, garbage("expected value at line 1 column 1:  [31m red")),
            (long.as_bytes(), 1, garbage(&format!("expected value at line 1 column 1: {}…", &long[..200]))),
            (deep.as_bytes(), 1, garbage(&format!(
                "nesting deeper than 512 levels at line 1 column 513 (the oracle's own limit): {}…",
                &deep[..200]
            ))),
            (b"[1]", 5, garbage("the reply to request seq 5 is not an object")),
            (b"null", 5, garbage("the reply to request seq 5 is not an object")),
            (br#"{"seq":2,"errored":"true","skipped":1}"#, 2,
                garbage(r#"reply {"seq":2,"errored":"true","skipped":1} has no outcome, errored or skipped"#)),
        ];
        for (line, seq, expected) in cases {
            reads(line, *seq, expected.clone());
        }
    }

    #[test]
    fn a_reply_to_another_request_is_a_wrong_seq() {
        let cases: &[(&[u8], u64, Result<Reply, Fault>)] = &[
            (br#"{"seq":2,"outcome":{}}"#, 1, wrong_seq(1, "seq 2")),
            (
                br#"{"seq":"1","outcome":{}}"#,
                1,
                wrong_seq(1, r#"seq "1""#),
            ),
            (br#"{"seq":1.0,"outcome":{}}"#, 1, wrong_seq(1, "seq 1.0")),
            (br#"{"seq":-1,"outcome":{}}"#, 1, wrong_seq(1, "seq -1")),
            (br#"{"seq":null,"outcome":{}}"#, 1, wrong_seq(1, "seq null")),
            // The seq is checked before the reply's shape.
            (br#"{"seq":4}"#, 1, wrong_seq(1, "seq 4")),
            (
                br#"{"ready":true}"#,
                1,
                wrong_seq(1, r#"a line without seq: {"ready":true}"#),
            ),
            (b"{}", 7, wrong_seq(7, "a line without seq: {}")),
        ];
        for (line, seq, expected) in cases {
            reads(line, *seq, expected.clone());
        }
    }

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
