//! What a process wrote, shown on one line: its [`gist`], or an
//! [`excerpt`] of its start.

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
