//! The two threads of a process: the writer, which writes request lines to
//! its stdin, and the drain of its stderr, which keeps the last few KB of
//! it for a fault report.

use std::collections::VecDeque;
use std::io::{BufWriter, Read, Write};
use std::process::ChildStdin;
use std::sync::mpsc::{Receiver, Sender};
use std::sync::Mutex;

/// How much of the process's stderr is kept for a fault report.
pub(super) const STDERR_TAIL: usize = 2048;

/// The writer thread: writes request lines to the process's stdin as they
/// come, flushing once whatever is queued has been written, and hands each
/// buffer back emptied (unless it grew past [`SPARE_MAX`]). On a write error
/// it notes the error and ends, closing stdin; so does the end of requests.
pub(super) fn write_requests(
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

/// Reads a pipe to its end, keeping only its last [`STDERR_TAIL`] bytes.
pub(super) fn drain(mut pipe: impl Read, tail: &Mutex<VecDeque<u8>>) {
    let mut buf = [0u8; 8192];
    while let Ok(n @ 1..) = pipe.read(&mut buf) {
        if let Ok(mut tail) = tail.lock() {
            tail.extend(&buf[..n]);
            let excess = tail.len().saturating_sub(STDERR_TAIL);
            tail.drain(..excess);
        }
    }
}
