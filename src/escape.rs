//! Untrusted text kept text wherever it lands.
//!
//! RT-TOOL-6: "A payload is untrusted tool and model output: a consumer
//! must treat every value in it as plain text and escape it on output."
//! The reports are such a consumer (and so are the browsers and CI panels
//! that show them): every id, type, payload, prose, message and
//! implementation name goes through [`markup`] or [`markup_attr`] into XML
//! and HTML, and through [`markdown`] (or inside a [`fence`]) into
//! Markdown. No value can open a tag, end a cell, or become a link or a
//! script. The characters XML 1.0 cannot hold at all are shown by
//! [`visible`] stand-ins, never dropped. On a terminal ([`terminal`]) no
//! value can move the cursor, set the title, clear the screen or start a
//! line.

/// The stand-in shown for a character XML 1.0 cannot hold, or HTML reads
/// as an error: a C0 control other than tab, line feed and carriage return
/// as its Control Picture (U+0001 as `␁`), DEL as `␡`, and the
/// noncharacters U+FFFE and U+FFFF as U+FFFD. `None` for any other
/// character, which is shown as it is.
pub fn visible(c: char) -> Option<char> {
    match c {
        '\t' | '\n' | '\r' => None,
        '\0'..='\x1f' => char::from_u32(0x2400 + c as u32),
        '\x7f' => Some('\u{2421}'),
        '\u{fffe}' | '\u{ffff}' => Some('\u{fffd}'),
        _ => None,
    }
}

/// `s` as the text of an XML or HTML element: `&`, `<`, `>`, both quotes
/// and carriage returns as references, the characters XML cannot hold as
/// their [`visible`] stand-ins, those a terminal acts on (the C1 controls,
/// U+2028 to U+202E, the bidirectional isolates) as numeric references.
/// Line feeds and tabs stay.
pub fn markup(s: &str) -> String {
    escape(s, false)
}

/// `s` as an XML or HTML attribute value in double quotes: [`markup`], and
/// line feeds and tabs as references too, so that a parser keeps them.
pub fn markup_attr(s: &str) -> String {
    escape(s, true)
}

/// Whether a terminal acts on `c` where a page or a document shows it: the
/// C1 controls (U+009B starts an escape sequence on some terminals), the
/// line and paragraph separators and the bidirectional controls. Markup
/// and Markdown write such a character as a numeric reference (`&#x9b;`):
/// a reader sees the same text, and a file printed on a terminal holds
/// nothing it acts on.
fn referenced(c: char) -> bool {
    acted_on(c) && c != '\x7f'
}

/// The characters beyond the C0 controls that a terminal acts on rather
/// than shows: DEL, the C1 controls, the line and paragraph separators and
/// the bidirectional controls (U+202A to U+202E, U+2066 to U+2069).
fn acted_on(c: char) -> bool {
    matches!(c, '\x7f'..='\u{9f}' | '\u{2028}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// JSON text `s` (as serde_json writes it, every C0 control already an
/// escape) with each character a terminal acts on that JSON leaves as it
/// is written as its escape (U+009B as `\u009b`): the same JSON value,
/// safe inside a Markdown code block printed on a terminal.
pub fn json_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            c if acted_on(c) => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// `c` as a numeric character reference, which XML, HTML and Markdown read.
fn reference(out: &mut String, c: char) {
    out.push_str(&format!("&#x{:x};", c as u32));
}

fn escape(s: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\r' => out.push_str("&#13;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\t' if attribute => out.push_str("&#9;"),
            c if referenced(c) => reference(&mut out, c),
            c => out.push(visible(c).unwrap_or(c)),
        }
    }
    out
}

/// `s` as inline Markdown text (CommonMark, GitHub's tables too) that reads
/// as written: every ASCII punctuation character behind a backslash, so
/// nothing opens a tag, a link, an emphasis or ends a table cell; tab,
/// line feed and carriage return as their Control Pictures, so a value
/// stays on its line and in its cell; spaces at either end as references,
/// which Markdown keeps (four at the start of a list item would make it
/// code, and a line's ends are trimmed); the C1 controls, the line and
/// paragraph separators and the bidirectional controls as numeric
/// references; the rest as [`visible`] shows it.
pub fn markdown(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 4);
    let inner = s.trim_matches(' ');
    let (lead, trail) = match s.find(|c| c != ' ') {
        Some(at) => (at, s.len() - at - inner.len()),
        None => (s.len(), 0),
    };
    out.push_str(&"&#32;".repeat(lead));
    for c in inner.chars() {
        match c {
            '\t' | '\n' | '\r' => out.extend(char::from_u32(0x2400 + c as u32)),
            c if c.is_ascii_punctuation() => {
                out.push('\\');
                out.push(c);
            }
            c if referenced(c) => reference(&mut out, c),
            c => out.push(visible(c).unwrap_or(c)),
        }
    }
    out.push_str(&"&#32;".repeat(trail));
    out
}

/// `s` as text for a terminal or a log: every character that a terminal
/// acts on rather than shows as its JSON escape: the C0 controls (ESC as
/// `\u001b`, line feed as `\n`, carriage return as `\r`, tab as `\t`),
/// DEL, the C1 controls (U+0085 as `\u0085`), the line and paragraph
/// separators and the bidirectional controls (U+202E as `\u202e`), and a
/// lone surrogate a reply held as its escape (`\ud800`); the rest as it is.
/// `"\u{1b}]0;owned\u{7}"` shows as `\u001b]0;owned\u0007`.
pub fn terminal(s: &str) -> String {
    let s = crate::wire::shown_lone(s);
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c < ' ' || acted_on(c) => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// A fence of backticks longer than any run of backticks in `text`, so
/// that nothing inside a fenced block can close it.
pub fn fence(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_total_and_visible() {
        assert_eq!(
            markup("<a href='x'>&\"</a>"),
            "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;"
        );
        assert_eq!(
            markup("a\nb\tc\rd\u{1}\u{ffff}"),
            "a\nb\tc&#13;d\u{2401}\u{fffd}"
        );
        assert_eq!(markup_attr("a\nb\tc"), "a&#10;b&#9;c");
        assert_eq!(markdown("a|b\n<x>"), "a\\|b\u{240a}\\<x\\>");
        assert_eq!(markdown("  a b "), "&#32;&#32;a b&#32;");
        assert_eq!(markdown("   "), "&#32;&#32;&#32;");
        assert_eq!(fence("no ticks"), "```");
        assert_eq!(fence("a ```` b"), "`````");
        assert_eq!(
            terminal("a\u{1b}]0;t\u{7}\r\n\t\u{85}\u{202e}\u{2028}\u{7f}é"),
            "a\\u001b]0;t\\u0007\\r\\n\\t\\u0085\\u202e\\u2028\\u007fé"
        );
        let lone = format!("x{}y", crate::wire::lone_mark(0xd800));
        assert_eq!(terminal(&lone), "x\\ud800y");
    }
}
