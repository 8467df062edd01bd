//! The process's stdout as the caller reads it: split into whole lines of
//! at most [`Limits::max_line`](super::Limits::max_line) bytes, and how it
//! ended; and the [`Source`] it is read from.

use std::io;
use std::time::Instant;

use super::threads::SPARE_MAX;

/// How the process's output ended.
#[derive(Clone, Debug)]
pub(super) enum End {
    /// Inside a line: the bytes after the last newline.
    Partial(Vec<u8>),
    /// In a line longer than [`Limits::max_line`](super::Limits::max_line).
    TooLong,
    Eof,
    Failed(String),
}

/// The process's stdout as the caller reads it: what was read and not yet
/// handed out as lines, and how the output ended, once it has.
///
/// A read takes every byte that is there (up to the room in the buffer, at
/// least [`READ_ROOM`]), so the replies that came while the caller was busy
/// cost one read between them, and a line's end is looked for once in each
/// byte. `buf` is zeroed up to its length, and `filled` says how much of it
/// holds output: the room a read goes into is initialised once, when the
/// buffer grows, not before every read.
pub(super) struct Output<S> {
    pub(super) source: S,
    buf: Vec<u8>,
    /// Where the output read so far ends in `buf`.
    filled: usize,
    /// Where the first line not yet handed out starts.
    at: usize,
    /// How many bytes from `at` on are known to hold no newline.
    scanned: usize,
    /// The longest line read whole, which the process may raise between
    /// lines.
    pub(super) max_line: usize,
    /// How the output ended, once it has: after the lines in `buf`.
    end: Option<End>,
}

/// The least room a read of the process's stdout is given.
pub(super) const READ_ROOM: usize = 1 << 16;

impl<S: Source> Output<S> {
    pub(super) fn new(source: S, max_line: usize) -> Output<S> {
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
    pub(super) fn next_line(&mut self, deadline: Instant) -> Option<Result<&[u8], End>> {
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
pub(super) trait Source {
    /// Reads into `buf` (never empty) what is there, waiting for it until
    /// `deadline`: how many bytes were read (0 at the end of the output),
    /// or `None` if none came by then.
    fn read_by(&mut self, buf: &mut [u8], deadline: Instant) -> io::Result<Option<usize>>;

    /// What the caller reads for next: the reply to request `seq`, with
    /// `in_flight` requests unanswered, as `(seq, in_flight)`, or nothing
    /// in particular. A source may let replies gather before reading them
    /// ([`Pace`](super::pace::Pace)).
    fn awaiting(&mut self, _reply: Option<(u64, u64)>) {}
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::io::Read;
    use std::time::Duration;

    use super::super::pipe::Relay;
    use super::*;

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
}
