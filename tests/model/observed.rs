//! The judge reading an outcome's text as it goes (`judge_text`, what
//! `check` runs) finds exactly what it finds in the outcome parsed first
//! (`judge` on what `wire::parse_reply` reads): on every seeded fault's
//! outcome of generated cases, and on texts a parsed tree hides (a key
//! repeated, serde_json's private number key, a lone surrogate, a top
//! level or a list that is something else).

use proptest::prelude::*;
use rt_tool_3::gen;
use rt_tool_3::judge::{judge, judge_text, Code, Judgement, Options, ProseMode};
use rt_tool_3::serve::{self, Fault};
use rt_tool_3::wire::{self, Case};
use serde_json::Value;

/// Both readings of `text`: judged alike, or refused with one sentence.
fn alike(case: &Case, text: &[u8], options: Options) -> Result<Judgement, String> {
    let parsed: Result<Value, _> = wire::parse_reply(text);
    let whole = match parsed {
        Ok(observed) => judge(case, &observed, options).map_err(|e| e.0),
        Err(refused) => Err(refused.0),
    };
    let read = judge_text(case, text.to_vec(), options).map_err(|e| e.0);
    assert_eq!(read, whole, "{}", String::from_utf8_lossy(text));
    read
}

/// Each reading of ¶3, the order strict in one: what the readings change
/// is which findings there are, which both readings of the text share.
fn options() -> [Options; 3] {
    [ProseMode::DataOnly, ProseMode::Letter, ProseMode::Exact].map(|prose| Options {
        strict_order: prose == ProseMode::Letter,
        prose,
        siblings: false,
    })
}

proptest! {
    // Each case judged once for the reference and once for each fault of
    // `serve`, 3 ways, twice: 16 cases keep the module to seconds in the
    // unoptimised build each mutant of the judge runs.
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn every_faults_outcome_is_judged_alike_from_its_text(case in gen::case()) {
        use clap::ValueEnum;
        let reference = serve::outcome(&case, None).to_string();
        prop_assert!(alike(&case, reference.as_bytes(), Options::default()).is_ok());
        for fault in Fault::value_variants() {
            let text = serve::outcome(&case, Some(*fault)).to_string();
            for options in options() {
                alike(&case, text.as_bytes(), options).ok();
            }
        }
    }
}

/// A case of two calls, each with an artifact, and texts of outcomes for
/// it that a parsed tree reads in one way only.
#[test]
fn texts_a_tree_hides_are_judged_alike() {
    let case = Case::from_json(
        br#"{"exposed": true, "calls": [
        {"tool_call_id": "c1", "result": {"success": true, "data": "one", "artifacts": [
            {"type": "link", "payload": {"url": "https://a.example/1", "n": 1.50, "big": 1234567890123456789012345}}]}},
        {"tool_call_id": "c2", "result": {"success": true, "data": "two", "artifacts": [
            {"type": "note", "payload": {"s": "the second artifact's text"}}]}}]}"#,
    )
    .expect("a valid case");
    let messages =
        r#"[{"tool_call_id": "c1", "content": "one"}, {"tool_call_id": "c2", "content": "two"}]"#;
    let right = r#"[{"type": "link", "payload": {"url": "https://a.example/1", "n": 1.5, "big": 1234567890123456789012345}, "tool_call_id": "c1"},
        {"type": "note", "payload": {"s": "the second artifact's text"}, "tool_call_id": "c2"}]"#;
    let wrong = r#"[{"type": "link", "payload": {"url": "https://a.example/1", "n": 1.50, "big": 1234567890123456789012345}, "tool_call_id": "c2", "x": 1}]"#;
    // Its first entry's number rounded to a double: a warning of the port.
    let rounded = r#"[{"type": "link", "payload": {"url": "https://a.example/1", "n": 1.5, "big": 1.2345678901234568e24}, "tool_call_id": "c1"},
        {"type": "note", "payload": {"s": "the second artifact's text"}, "tool_call_id": "c2"}]"#;
    let key = wire::SERDE_NUMBER_KEY;
    let with = |port: &str| {
        format!(r#"{{"messages": {messages}, "tool_artifacts": {port}, "exposed": true}}"#)
    };
    let rows: Vec<(String, bool)> = vec![
        (with(right), true),
        (with(wrong), false),
        // A repeated key keeps its last value: what the first found goes.
        (
            format!(
                r#"{{"tool_artifacts": {wrong}, "messages": {messages}, "exposed": true, "tool_artifacts": {right}}}"#
            ),
            true,
        ),
        (
            format!(
                r#"{{"tool_artifacts": {right}, "messages": {messages}, "exposed": true, "tool_artifacts": {wrong}}}"#
            ),
            false,
        ),
        (
            format!(
                r#"{{"tool_artifacts": 7, "messages": {messages}, "exposed": true, "tool_artifacts": {right}}}"#
            ),
            true,
        ),
        (
            format!(
                r#"{{"tool_artifacts": {wrong}, "messages": {messages}, "exposed": true, "tool_artifacts": "x"}}"#
            ),
            false,
        ),
        (
            format!(
                r#"{{"messages": 1, "tool_artifacts": {right}, "exposed": false, "messages": {messages}, "exposed": true}}"#
            ),
            true,
        ),
        (
            format!(
                r#"{{"tool_artifacts": {right}, "messages": {messages}, "exposed": true, "messages": [1.5]}}"#
            ),
            false,
        ),
        // Keys no one defined, repeated, and one spelled with an escape.
        (
            format!(
                r#"{{"z": 1, "messages": {messages}, "a": [2], "z": {{"b": 3}}, "tool\u005fartifacts": {right}, "exposed": true, "a": null}}"#
            ),
            true,
        ),
        (
            format!(
                r#"{{"tool_artifacts": {rounded}, "z": 1, "messages": {messages}, "exposed": true}}"#
            ),
            true,
        ),
        // serde_json's private number key: an ordinary key in a text.
        (
            format!(
                r#"{{"{key}": "1.5", "messages": {messages}, "tool_artifacts": {right}, "exposed": true}}"#
            ),
            true,
        ),
        (
            format!(
                r#"{{"{key}": 2, "messages": {messages}, "tool_artifacts": {right}, "exposed": true}}"#
            ),
            true,
        ),
        (
            format!(
                r#"{{"messages": {{"{key}": "3"}}, "tool_artifacts": [{{"{key}": "4"}}], "exposed": {{"{key}": "true"}}}}"#
            ),
            false,
        ),
        // Parts that are not lists, of every kind; numbers of every width.
        (with("1.5"), false),
        (with("12345678901234567890123456789"), false),
        (with("-0"), false),
        (with(r#"{"type": "link"}"#), false),
        (with(r#""[]""#), false),
        (with("null"), false),
        (with("true"), false),
        (
            with(
                r#"[1.5, 7, -7, true, "x", null, [], {"type": "link", "payload": {}}, {"type": "link", "payload": 1e400, "tool_call_id": "c1"}]"#,
            ),
            false,
        ),
        (
            format!(r#"{{"messages": 2.5e10, "tool_artifacts": {right}, "exposed": 1.0}}"#),
            false,
        ),
        (
            format!(
                r#"{{"messages": [1.5, "x", {{"tool_call_id": 1.5, "content": "one"}}, {{"tool_call_id": "c1"}}], "tool_artifacts": {right}}}"#
            ),
            false,
        ),
        ("{}".into(), false),
        // A lone surrogate escape, read as its mark, not refused.
        (
            format!(
                r#"{{"messages": [{{"tool_call_id": "c1", "content": "one \ud83d"}}, {{"tool_call_id": "c2", "content": "two"}}], "tool_artifacts": {right}, "exposed": true}}"#
            ),
            false,
        ),
        (
            with(
                r#"[{"type": "note", "payload": {"s": "the second \udc00"}, "tool_call_id": "c2"}]"#,
            ),
            false,
        ),
    ];
    for (text, conforms) in &rows {
        let judged = alike(&case, text.as_bytes(), Options::default()).expect("an outcome");
        assert_eq!(judged.conforms(), *conforms, "{text}\n{judged:#?}");
    }
    // Findings in the order the clauses come, whatever the order of the
    // keys: the keys no one defined, then the port's.
    let text = format!(
        r#"{{"tool_artifacts": {rounded}, "z": 1, "messages": {messages}, "exposed": true}}"#
    );
    let judged = alike(&case, text.as_bytes(), Options::default()).expect("an outcome");
    let codes: Vec<Code> = judged.warnings.iter().map(|w| w.code).collect();
    assert_eq!(codes, [Code::UnknownOutcomeKey, Code::DoublePrecision]);
    // The exposure, then the port, then the prose, whatever the order of
    // the keys; the port's violations are said to be the port's.
    let text = format!(
        r#"{{"messages": [{{"tool_call_id": "c1", "content": "one and two"}}], "tool_artifacts": {wrong}, "exposed": false}}"#
    );
    let judged = alike(&case, text.as_bytes(), Options::default()).expect("an outcome");
    let codes: Vec<Code> = judged.violations.iter().map(|v| v.code).collect();
    let port: Vec<Code> = codes[judged.port.clone()].to_vec();
    assert_eq!(codes.first(), Some(&Code::ExposureOverridden), "{codes:?}");
    assert_eq!(codes.last(), Some(&Code::MessageMissing), "{codes:?}");
    assert_eq!(
        port,
        [
            Code::ExtraKey,
            Code::WrongCallId,
            Code::MissingArtifactWhileHidden
        ],
        "{codes:?}"
    );
    // No outcome: the same sentence either way.
    let deep = format!("{}{}", "[".repeat(600), "]".repeat(600));
    let refused = [
        "1.5",
        "123456789012345678901234567890",
        "-0",
        "\"x\"",
        "null",
        "false",
        "[1, {}]",
        "",
        "{",
        "{} x",
        r#"{"messages": [}"#,
        "\"\\ud83d",
        &deep,
    ];
    for text in refused {
        assert!(
            alike(&case, text.as_bytes(), Options::default()).is_err(),
            "{text}"
        );
    }
    // Bytes that are no UTF-8 in a string, wherever it is: refused too,
    // in a part no clause reads as much as in one it does.
    let bad: [&[u8]; 4] = [
        b"{\"z\": \"\xc3\x28\"}",
        b"[\"\xc3\x28\"]",
        b"{\"messages\": [{\"x\": \"\xff\"}]}",
        b"{\"tool_artifacts\": [{\"type\": \"\xc3\"}]}",
    ];
    for text in bad {
        let said = alike(&case, text, Options::default()).expect_err("no JSON");
        assert!(said.contains("invalid unicode code point"), "{said}");
    }
}

/// A payload the port reads from the text is written and hashed as it is
/// read, never made a tree; it is judged as its tree is: a key repeated
/// among the first few keys or past them keeps its last value, keys in
/// another order and numbers written otherwise still match, and a payload
/// that differs is explained as it is.
#[test]
fn payloads_read_from_the_text_are_judged_as_their_trees() {
    let keys: Vec<String> = (0..12).map(|i| format!(r#""k{i}": {i}"#)).collect();
    let payload = format!("{{{}}}", keys.join(", "));
    let case = Case::from_json(
        format!(
            r#"{{"exposed": true, "calls": [{{"tool_call_id": "c1", "result": {{"success": true, "data": "one", "artifacts": [
            {{"type": "wide", "payload": {payload}}},
            {{"type": "deep", "payload": {{"rows": [[1, {{"a": [true, null, "s"]}}], {{"{key}": "x"}}]}}}}]}}}}]}}"#,
            key = wire::SERDE_NUMBER_KEY
        )
        .as_bytes(),
    )
    .expect("a valid case");
    let deep = format!(
        r#"{{"type": "deep", "payload": {{"rows": [[1.0, {{"a": [true, null, "s"]}}], {{"{key}": "x"}}]}}, "tool_call_id": "c1"}}"#,
        key = wire::SERDE_NUMBER_KEY
    );
    let wide = |payload: &str| {
        format!(r#"{{"type": "wide", "payload": {payload}, "tool_call_id": "c1"}}"#)
    };
    let reversed: Vec<String> = keys.iter().rev().cloned().collect();
    let rows = [
        (payload.clone(), true),
        (format!("{{{}}}", reversed.join(", ")), true),
        // Repeated among the first eight keys, and past them.
        (format!(r#"{{"k0": "x", {}}}"#, keys.join(", ")), true),
        (
            format!(r#"{{{}, "k11": "x", "k11": 11}}"#, keys[..11].join(", ")),
            true,
        ),
        (format!(r#"{{{}, "k0": "x"}}"#, keys.join(", ")), false),
        (
            format!(r#"{{{}, "k11": 11, "k11": "x"}}"#, keys[..11].join(", ")),
            false,
        ),
        (format!(r#"{{{}}}"#, keys[..11].join(", ")), false),
        (format!(r#"{{{}, "k12": 12}}"#, keys.join(", ")), false),
    ];
    for (payload, conforms) in rows {
        let text = format!(
            r#"{{"messages": [{{"tool_call_id": "c1", "content": "one"}}], "tool_artifacts": [{}, {deep}], "exposed": true}}"#,
            wide(&payload)
        );
        let judged = alike(&case, text.as_bytes(), Options::default()).expect("an outcome");
        assert_eq!(judged.conforms(), conforms, "{text}\n{judged:#?}");
    }
}

/// An entry landed as it should is matched from its text in one pass: its
/// payload hashed once as it is read (beside the artifact's own hash),
/// found equal without a walk of its values, never read back as a tree:
/// a payload of `v` values of every kind costs exactly `2v` hashes and one
/// comparison. Two payloads that differ only in where an array ends hash
/// apart, so each entry is compared with its own artifact alone.
#[test]
fn a_payload_read_from_the_text_is_hashed_once_and_never_walked() {
    use rt_tool_3::judge::Work;
    let judged = |artifacts: &[&str], landed: &[&str]| {
        let artifacts: Vec<String> = artifacts
            .iter()
            .map(|p| format!(r#"{{"type": "t", "payload": {p}}}"#))
            .collect();
        let case = Case::from_json(
            format!(
                r#"{{"exposed": true, "calls": [{{"tool_call_id": "c1", "result": {{"success": true, "data": "one", "artifacts": [{}]}}}}]}}"#,
                artifacts.join(", ")
            )
            .as_bytes(),
        )
        .expect("a valid case");
        let landed: Vec<String> = landed
            .iter()
            .map(|p| format!(r#"{{"type": "t", "payload": {p}, "tool_call_id": "c1"}}"#))
            .collect();
        let text = format!(
            r#"{{"messages": [{{"tool_call_id": "c1", "content": "one"}}], "tool_artifacts": [{}], "exposed": true}}"#,
            landed.join(", ")
        );
        let (judged, work) = Work::of(|| judge_text(&case, text.into_bytes(), Options::default()));
        assert!(judged.expect("an outcome").conforms());
        work
    };
    let n = 200;
    let members: Vec<String> = (0..n)
        .map(|i| format!(r#""k{i}": [{i}, "v{i}", null, true, -{i}]"#))
        .collect();
    let payload = format!("{{{}}}", members.join(", "));
    let work = judged(&[&payload], &[&payload]);
    // The object, and each member's list and its five values.
    let values = 1 + 6 * n;
    assert_eq!((work.hashed, work.compared), (2 * values, 1), "{work:?}");
    let (ends, other) = (r#"{"a": [[1, 2]]}"#, r#"{"a": [[1], 2]}"#);
    let work = judged(&[ends, other], &[other, ends]);
    assert_eq!(work.compared, 2, "{work:?}");
}
