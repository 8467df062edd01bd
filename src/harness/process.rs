//! The process under test itself: its start (the pipes, the threads, the
//! `ready` reply), the cases sent and the replies read, its stop, and what
//! a crash says of it.

use std::collections::VecDeque;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::excerpt::excerpt;
use super::fault::Fault;
use super::likeness::Likeness;
use super::output::{End, Output, Source};
use super::pipe::{widen, Pipe};
use super::reply::{carries, parse_line, read_reply, Reply};
use super::requests::{line, Requests};
use super::threads::{drain, write_requests, STDERR_TAIL};
use super::{Limits, PROTOCOL_VERSION};
use crate::wire::Case;

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
    /// The longest request line sent, which bounds a reply line's length
    /// with [`Limits::max_line`] ([`super::REPLY_GROWTH`]).
    longest_request: usize,
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
            longest_request: 0,
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
    ///
    /// [`wire::MAX_DEPTH`]: crate::wire::MAX_DEPTH
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
        // Each line ends in a newline: the longest is the widest gap
        // between two (memchr finds them at vector speed).
        let mut from = 0;
        for end in memchr::memchr_iter(b'\n', &lines) {
            self.longest_request = self.longest_request.max(end - from);
            from = end + 1;
        }
        if let Some(stdin) = &self.stdin {
            if stdin.send(lines).is_err() {
                self.stdin = None;
            }
        }
    }

    /// The longest reply line read: [`Limits::max_line`], or
    /// [`super::REPLY_GROWTH`] times the longest request line sent.
    fn max_line(&self) -> usize {
        let grown = self.longest_request.saturating_mul(super::REPLY_GROWTH);
        self.limits.max_line.max(grown)
    }

    fn write_error(&self) -> Option<String> {
        self.write_error.lock().ok().and_then(|e| e.clone())
    }

    /// The next line the process printed, read by `read`, waiting for it up
    /// to the timeout ([`Output::next_line`]).
    fn receive<R>(&mut self, read: impl FnOnce(&[u8]) -> Result<R, Fault>) -> Result<R, Fault> {
        let deadline = deadline_after(self.limits.timeout);
        let max_line = self.max_line();
        self.output.max_line = max_line;
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
            Some(End::TooLong) => Err(Fault::LineTooLong(max_line)),
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
