//! What the fuzz targets check, one function a target. The targets under
//! `fuzz_targets/` call these on every input libFuzzer makes, and
//! `tests/corpus.rs` calls them on every committed corpus file under
//! `cargo test`, so the corpus guards the code without a fuzzer.
//!
//! A check panics when the property fails; libFuzzer records the input.

use rt_tool_3::harness::{read_reply, Fault, Reply};
use rt_tool_3::judge::{self, Options, ProseMode};
use rt_tool_3::wire::{self, Case};
use rt_tool_3::{model, VerdictError};
use serde_json::Value;

/// `verdict` refuses exactly the bytes `Case::from_json` refuses, and
/// otherwise writes exactly serde_json's bytes of `model::outcome` of that
/// case (and a newline), with its zone: the compact tree it reads a case
/// into (`wire::compact`) agrees with the `Value` tree.
pub fn verdict(bytes: &[u8]) {
    let mut out = Vec::new();
    let raw = rt_tool_3::verdict(bytes, &mut out);
    match (raw, Case::from_json(bytes)) {
        (Err(VerdictError::Invalid(_)), Err(_)) => {
            assert!(out.is_empty(), "a refused case wrote {} bytes", out.len())
        }
        (Ok(zone), Ok(case)) => {
            let mut expected =
                serde_json::to_vec(&model::outcome(&case)).expect("an outcome encodes");
            expected.push(b'\n');
            assert!(
                out == expected,
                "verdict wrote\n{}\nwhere the model says\n{}",
                String::from_utf8_lossy(&out),
                String::from_utf8_lossy(&expected)
            );
            assert_eq!(zone, model::zone(&case), "the zones differ");
        }
        (Err(VerdictError::Invalid(e)), Ok(_)) => {
            panic!("verdict refused a case Case::from_json reads: {e}")
        }
        (Ok(_), Err(e)) => panic!("verdict accepted a case Case::from_json refuses: {e}"),
        (Err(VerdictError::Write(e)), _) => panic!("writing to memory failed: {e}"),
    }
}

/// The options an input's first byte picks: the reading of ¶3 and whether
/// the order of `tool_artifacts` is strict.
pub fn options(byte: u8) -> Options {
    Options {
        prose: [ProseMode::DataOnly, ProseMode::Letter, ProseMode::Exact][usize::from(byte % 3)],
        strict_order: byte & 4 != 0,
        siblings: false,
    }
}

/// `check` on any case and outcome: the input is a byte of options, the
/// case, a NUL, and the observed outcome. It never panics, and judges the
/// same way twice; the outcome judged as its text is read against the case
/// read compact (`judge::judge_text` inside `wire::compact::with_case`,
/// what the `check` command runs) gets the findings it gets parsed first
/// against the case as a `Value` tree, or the same refusal; a case refused
/// is refused by both readings in the same words; and whatever the observed
/// outcome, the reference outcome of a valid case conforms (no false alarm
/// against the model).
pub fn check(bytes: &[u8]) {
    let Some((&byte, rest)) = bytes.split_first() else {
        return;
    };
    let options = options(byte);
    let mut parts = rest.splitn(2, |b| *b == 0);
    let text = parts.next().unwrap_or_default();
    let observed = parts.next().unwrap_or_default();
    let case = match Case::from_json(text) {
        Ok(case) => case,
        Err(refused) => {
            let compact = wire::compact::with_case(text, |_| ());
            assert_eq!(compact, Err(refused), "the compact reading's refusal");
            return;
        }
    };
    let reference = serde_json::to_value(model::outcome(&case)).expect("an outcome encodes");
    let judged = judge::judge(&case, &reference, options).expect("the reference is an outcome");
    assert!(
        judged.conforms(),
        "the reference outcome violates: {:?}",
        judged.violations
    );
    let read = wire::compact::with_case(text, |compact| {
        judge::judge_text(compact, observed.to_vec(), options).map_err(|e| e.0)
    })
    .expect("the compact reading reads what Case::from_json reads");
    let Ok(observed) = wire::parse_reply::<Value>(observed).map_err(|refused| {
        assert_eq!(read, Err(refused.0), "the text read, not the parsed");
    }) else {
        return;
    };
    let first = judge::judge(&case, &observed, options);
    let again = judge::judge(&case, &observed, options);
    assert_eq!(first, again, "two judgements of one outcome differ");
    assert_eq!(
        read,
        first.map_err(|e| e.0),
        "the text read, not the parsed"
    );
}

/// `read_reply` on any line: the input is a byte, the `seq` of the request,
/// then the line. It never panics, answers the same twice, says each fault
/// in one line of bounded length, and answers what the line says, read here
/// with serde_json's own parser: garbage for what is not JSON, not an
/// object, or an object with none of `outcome`, `errored: true` and
/// `skipped: true`; a wrong seq for an object whose `seq` is not the
/// request's, or that has none; otherwise its `outcome`, or that it errored
/// or skipped, with its `message`.
pub fn reply(bytes: &[u8]) {
    let Some((&byte, line)) = bytes.split_first() else {
        return;
    };
    let seq = u64::from(byte);
    let answer = read_reply(line, seq);
    assert_eq!(
        answer,
        read_reply(line, seq),
        "two readings of one line differ"
    );
    if let Err(fault) = &answer {
        let said = fault.to_string();
        assert!(
            !said.contains(['\n', '\r']) && said.chars().count() <= 1000,
            "a fault said in more than one short line: {said:?}"
        );
    }
    // What the line is, read as the oracle reads any JSON: to 512 levels
    // (serde_json alone stops at 128), and an object whose first key is
    // serde_json's private number key an object (`wire::parse_value`).
    let value = wire::parse_value(line).ok();
    let garbage = |why: &str| {
        assert!(
            matches!(answer, Err(Fault::Garbage(_))),
            "{why}, yet the answer is {answer:?}"
        )
    };
    let Some(value) = value else {
        return garbage("the line is not JSON");
    };
    let Value::Object(reply) = &value else {
        return garbage("the line is not an object");
    };
    let wrong_seq = |why: &str, says: &str| match &answer {
        Err(Fault::WrongSeq { sent, got }) => {
            assert_eq!(*sent, seq, "the fault names another request");
            assert!(got.starts_with(says), "{got:?} does not say {says:?}");
        }
        other => panic!("{why}, yet the answer is {other:?}"),
    };
    match reply.get("seq") {
        None => return wrong_seq("the line has no seq", "a line without seq: "),
        Some(got) if got.as_u64() != Some(seq) => {
            return wrong_seq("the line's seq is another request's", "seq ")
        }
        Some(_) => {}
    }
    let message = || {
        let message = reply.get("message").and_then(Value::as_str);
        message.unwrap_or_default().to_owned()
    };
    let expected = if let Some(outcome) = reply.get("outcome") {
        Reply::Outcome(outcome.clone())
    } else if reply.get("errored") == Some(&Value::Bool(true)) {
        Reply::Errored(message())
    } else if reply.get("skipped") == Some(&Value::Bool(true)) {
        Reply::Skipped(message())
    } else {
        return garbage("the reply has no outcome, errored or skipped");
    };
    assert_eq!(answer, Ok(expected), "the answer is not what the line says");
}
