//! The requests written to a process: each one line of JSON, and the `run`
//! requests of a batch numbered in turn.

use crate::wire::Case;

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
///
/// [`Process::send_each`]: super::Process::send_each
pub struct Requests<'a> {
    pub(super) lines: &'a mut Vec<u8>,
    pub(super) seq: &'a mut u64,
    pub(super) sent: &'a mut u64,
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

/// Appends `request` to `lines` as one line of JSON.
pub(super) fn line(lines: &mut Vec<u8>, request: &impl serde::Serialize) {
    // Serializing a `Case` or a `Value` to memory cannot fail: every map
    // key is a string.
    let _ = serde_json::to_writer(&mut *lines, request);
    lines.push(b'\n');
}
