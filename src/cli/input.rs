//! How a command reads an input (a case, an outcome, a report, a file to
//! replay): whole, from a file or stdin, within the input bound.

use std::io::{self, Read};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use super::fail::Fail;

/// The default bound on one input, 1 GiB: a runtime's log of a few hundred
/// megabytes is read whole, and `check`, whose peak memory is about three
/// times its inputs, stays within a few GiB.
pub(crate) const MAX_INPUT: u64 = 1 << 30;

/// The most bytes [`read_input`] reads from one input (`--max-input-bytes`).
static INPUT_BOUND: AtomicU64 = AtomicU64::new(MAX_INPUT);

/// Sets the input bound to `bytes` (`--max-input-bytes`).
pub(crate) fn bound(bytes: u64) {
    INPUT_BOUND.store(bytes, Ordering::Relaxed);
}

/// Reads a whole input: a file, or stdin for `None` and `-`, at most
/// [`INPUT_BOUND`] bytes of it. A longer input (`/dev/zero`, a log gone
/// wrong) is refused after reading one byte past the bound, never held
/// whole; a regular file is refused by its size before it is read.
pub(crate) fn read_input(file: Option<PathBuf>) -> Result<(String, Vec<u8>), Fail> {
    let bound = INPUT_BOUND.load(Ordering::Relaxed);
    let (name, source): (String, Box<dyn Read>) = match file {
        Some(path) if path.as_os_str() != "-" => {
            let name = path.display().to_string();
            let file = std::fs::File::open(&path)
                .map_err(|e| Fail::from(format!("cannot read {name}: {e}")))?;
            let size = file
                .metadata()
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.len());
            if size.is_some_and(|size| size > bound) {
                return Err(over_bound(&name, bound));
            }
            if let Some(size) = size {
                // A regular file within the bound: read into room of its
                // size (and refused if it grew past the bound meanwhile).
                let mut bytes = Vec::with_capacity(size as usize);
                (&file)
                    .take(bound.saturating_add(1))
                    .read_to_end(&mut bytes)
                    .map_err(|e| Fail::from(format!("cannot read {name}: {e}")))?;
                if bytes.len() as u64 > bound {
                    return Err(over_bound(&name, bound));
                }
                return Ok((name, bytes));
            }
            (name, Box::new(file))
        }
        _ => ("stdin".into(), Box::new(io::stdin().lock())),
    };
    // Read into pieces of 1 MiB, joined once the end is reached: what is
    // held never passes the bound (a `Vec` filled whole would hold its old
    // room and its doubled one at once), and an input over it is refused
    // after reading one byte past it.
    const PIECE: usize = 1 << 20;
    let (mut pieces, mut total) = (Vec::<Vec<u8>>::new(), 0u64);
    let mut source = source;
    loop {
        if pieces.last().is_none_or(|p| p.len() == PIECE) {
            pieces.push(Vec::with_capacity(PIECE));
        }
        let piece = pieces.last_mut().expect("a piece");
        let room = PIECE - piece.len();
        let n = match (&mut source).take(room as u64).read_to_end(piece) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Fail::from(format!("cannot read {name}: {e}"))),
        };
        total += n as u64;
        if total > bound {
            return Err(over_bound(&name, bound));
        }
    }
    Ok((name, pieces.concat()))
}

/// The one line for an input over the bound.
fn over_bound(name: &str, bound: u64) -> Fail {
    Fail::from(format!(
        "{name} is over the input bound of {bound} bytes; --max-input-bytes raises it"
    ))
}
