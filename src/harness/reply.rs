//! A reply line read: as an outcome, an error or a skip, or as the fault it
//! shows; and a line told to carry the outcome expected of it without
//! parsing it.

use serde_json::Value;

use super::excerpt::excerpt;
use super::fault::Fault;
use crate::wire;

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
/// [`Limits::max_line`]: super::Limits::max_line
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

/// Whether `line` is the reply to request `seq` that carries `outcome`,
/// byte for byte as the harness's own writer would put it:
/// `{"seq":N,"outcome":…}`, and a line [`wire::parse`] reads (no deeper
/// than [`wire::MAX_DEPTH`]). Every byte of the line is compared, so a
/// line that is not the expected one is told apart at its first
/// difference, and read as any other.
pub(super) fn carries(line: &[u8], seq: u64, outcome: &[u8]) -> bool {
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
pub(super) fn parse_line(line: &[u8]) -> Result<Value, String> {
    wire::parse_reply::<Value>(line)
        .map_err(|e| format!("{e}: {}", excerpt(&String::from_utf8_lossy(line))))
}

/// When `reply`, read where the reply to request `seq` was owed, answers
/// a request already answered, which nobody asked to answer again: a
/// second `ready` (to `start`), or a reply carrying the `seq` of an
/// earlier request (requests are answered in order, so it has had its
/// reply). What it says of the line; `None` for any other line.
fn answered_again(reply: &serde_json::Map<String, Value>, seq: u64) -> Option<String> {
    let line = || excerpt(&Value::Object(reply.clone()).to_string());
    match reply.get("seq") {
        Some(Value::Number(n)) => match n.as_u64() {
            Some(earlier) if earlier < seq && earlier > 0 => Some(format!(
                "a second reply to request seq {earlier}: {}",
                line()
            )),
            _ => None,
        },
        None if reply.get("ready") == Some(&Value::Bool(true)) => {
            Some(format!("a second reply to start: {}", line()))
        }
        _ => None,
    }
}

/// The second half of [`read_reply`]: a parsed line as the reply to
/// request `seq`.
fn reply_to(reply: Value, seq: u64) -> Result<Reply, Fault> {
    let Value::Object(mut reply) = reply else {
        return Err(Fault::Garbage(format!(
            "the reply to request seq {seq} is not an object"
        )));
    };
    if let Some(again) = answered_again(&reply, seq) {
        return Err(Fault::ExtraLines(again));
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
                br#"{"ready":false}"#,
                1,
                wrong_seq(1, r#"a line without seq: {"ready":false}"#),
            ),
            (b"{}", 7, wrong_seq(7, "a line without seq: {}")),
            (br#"{"seq":0,"outcome":{}}"#, 3, wrong_seq(3, "seq 0")),
        ];
        for (line, seq, expected) in cases {
            reads(line, *seq, expected.clone());
        }
    }

    /// A line that answers again a request already answered is a line
    /// nobody asked for, not a reply to another request.
    #[test]
    fn a_second_reply_is_a_line_nobody_asked_for() {
        let extra = |said: &str| Err(Fault::ExtraLines(said.into()));
        let cases: &[(&[u8], u64, Result<Reply, Fault>)] = &[
            (
                br#"{"ready":true}"#,
                1,
                extra(r#"a second reply to start: {"ready":true}"#),
            ),
            (
                br#"{"seq":2,"outcome":{}}"#,
                3,
                extra(r#"a second reply to request seq 2: {"seq":2,"outcome":{}}"#),
            ),
        ];
        for (line, seq, expected) in cases {
            reads(line, *seq, expected.clone());
        }
    }
}
