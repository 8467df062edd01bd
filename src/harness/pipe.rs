//! Where the process's stdout is read from: the pipe itself, read without
//! blocking and with `poll`, or, where no `poll` is at hand, a thread of its
//! own; and the pipes widened, so a batch passes in one write.

use std::io::{self, Read};
#[cfg(any(not(unix), test))]
use std::sync::mpsc::{channel, Receiver};
use std::thread;
#[cfg(unix)]
use std::time::Duration;
use std::time::Instant;

use super::fault::Fault;
use super::output::Source;
#[cfg(any(not(unix), test))]
use super::output::READ_ROOM;
#[cfg(unix)]
use super::pace::Pace;

/// Asks for a pipe of [`PIPE_SIZE`] bytes instead of Linux's 64 KiB, so a
/// batch of requests, or of replies, passes in one write rather than a
/// write, a wait and a wake-up for every 64 KiB. Best effort: a system that
/// refuses keeps its pipe, which is slower, not wrong.
#[cfg(target_os = "linux")]
pub(super) fn widen(pipe: &impl std::os::fd::AsRawFd) {
    // SAFETY: F_SETPIPE_SZ takes an int and changes only the pipe's
    // capacity; the descriptor is open, as `pipe` owns it.
    unsafe {
        libc::fcntl(pipe.as_raw_fd(), libc::F_SETPIPE_SZ, PIPE_SIZE);
    }
}

#[cfg(not(target_os = "linux"))]
pub(super) fn widen<T>(_pipe: &T) {}

/// The pipe size [`widen`] asks for: Linux's default `pipe-max-size`, the
/// most an unprivileged process may ask for.
#[cfg(target_os = "linux")]
const PIPE_SIZE: libc::c_int = 1 << 20;

/// The process's stdout, read without blocking: a read takes what is
/// there, and `poll` waits for more until the deadline.
#[cfg(unix)]
pub(super) struct Pipe {
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
    pub(super) fn new(stdout: std::process::ChildStdout) -> Result<Pipe, Fault> {
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
pub(super) type Pipe = Relay;

/// The output read by a thread of its own, which blocks on each read, and
/// handed over in chunks through a channel; a read waits for the next
/// chunk until the deadline. (Built on every system for its test.)
#[cfg(any(not(unix), test))]
pub(super) struct Relay {
    chunks: Receiver<io::Result<Vec<u8>>>,
    /// The chunk being handed over, and how much of it was.
    chunk: Vec<u8>,
    at: usize,
}

#[cfg(any(not(unix), test))]
impl Relay {
    pub(super) fn new(mut stdout: impl Read + Send + 'static) -> Result<Relay, Fault> {
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
