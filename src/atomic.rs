//! Files written whole or not at all.
//!
//! A campaign may be killed at any moment (a CI timeout, a Ctrl-C), and the
//! files it writes (`--save`, `--standing`, the `proptest-regressions`
//! seeds) are read by the next run. Every one of them goes through [`write()`]:
//! the next run finds either the old file or the new one, never half of one.

use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` atomically: a temporary file beside it, then a
/// rename, so a kill leaves either the old file or the new one.
///
/// A path that exists and is not a regular file (`/dev/null`, a FIFO) is
/// written in place: renaming over it would replace it.
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return std::fs::write(path, bytes);
    }
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("rt-tool-3");
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let mut file = std::fs::File::create(&tmp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    std::fs::rename(&tmp, path)
}
