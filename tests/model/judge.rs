//! The judge on hand-built outcomes: each row is a case, what a node
//! produced, and the clauses the judge must name (none when it conforms).

use rt_tool_3::judge::{judge, judge_text, Clause, Code, Options, Place, ProseMode};
use rt_tool_3::model;
use rt_tool_3::wire::Case;
use serde_json::{json, Value};

use Clause::{
    Bounds as RT6, DeliveryRegardless as C4, Filter as RT2, KeyByKey as C1,
    NotExposedByDefault as C2, ProseFromData as C3, Protocol as P,
};

/// Judges `observed` and checks the clauses named, in order, and that each
/// `says` fragment appears in some violation's sentence.
fn check(case: &Value, observed: Value, options: Options, expected: &[Clause], says: &[&str]) {
    let case = Case::from_json(case.to_string().as_bytes()).expect("valid case");
    let judgement = judge(&case, &observed, options).expect("an outcome object");
    // Read from its text, the outcome is judged alike.
    let text = observed.to_string().into_bytes();
    assert_eq!(judge_text(&case, text, options), Ok(judgement.clone()));
    let clauses: Vec<Clause> = judgement.violations.iter().map(|v| v.clause).collect();
    assert_eq!(
        clauses, expected,
        "{:#?}\nfor {observed}",
        judgement.violations
    );
    assert_eq!(judgement.conforms(), expected.is_empty());
    kinds_fit(&judgement);
    let text: Vec<String> = judgement
        .violations
        .iter()
        .map(ToString::to_string)
        .chain(judgement.warnings.iter().map(|w| w.message.clone()))
        .collect();
    for fragment in says {
        assert!(
            text.iter().any(|t| t.contains(fragment)),
            "no violation or warning says {fragment:?}: {text:#?} {:#?}",
            judgement.warnings
        );
    }
}

/// Every finding is of its code's kind: a violation's code is a
/// violation's and cites the violation's clause, a warning's is a
/// warning's, and each sentence is one of its code's template.
fn kinds_fit(judgement: &rt_tool_3::judge::Judgement) {
    for v in &judgement.violations {
        assert!(!v.code.warning() && v.code.clause() == v.clause, "{v:?}");
        assert!(
            v.code.fits(&v.message),
            "{v:?} is not `{}`",
            v.code.template()
        );
    }
    for w in &judgement.warnings {
        assert!(w.code.warning(), "{w:?}");
        assert!(
            w.code.fits(&w.message),
            "{w:?} is not `{}`",
            w.code.template()
        );
    }
}

fn example(exposed: Value) -> Value {
    json!({"exposed": exposed, "calls": [{"tool_call_id": "c1", "result": {"success": true,
        "data": {"result": "Created node 5 (draft)."},
        "artifacts": [{"type": "link", "payload": {"url": "https://example.com/node/5"}}]}}]})
}

fn two_calls() -> Value {
    serde_json::from_str(
        r#"{"calls": [
        {"tool_call_id": "c1", "result": {"success": true, "data": "searched", "artifacts": [
            {"type": "link", "payload": {"url": "https://a.example/1"}}]}},
        {"tool_call_id": "c2", "result": {"success": true, "data": "fetched", "artifacts": [
            {"type": "file", "payload": {"name": "report.pdf"}, "tool_call_id": "c1"},
            {"type": "note", "payload": {"n": 1.0, "big": 1234567890123456789012345678901234567890, "huge": 1}}]}}]}"#,
    )
    .expect("json")
}

fn msgs(pairs: &[(&str, &str)]) -> Value {
    pairs
        .iter()
        .map(|(id, c)| json!({"tool_call_id": id, "content": c}))
        .collect()
}

fn link(id: &str) -> Value {
    json!({"type": "link", "payload": {"url": "https://example.com/node/5"}, "tool_call_id": id})
}

/// A payload that encodes to exactly `bytes` bytes, longest plausible
/// encoding and all.
fn sized(bytes: usize) -> Value {
    let p = json!({"s": "x".repeat(bytes - 8)});
    assert_eq!(model::encoded_len(&p), bytes);
    p
}

const DEFAULT: Options = Options {
    strict_order: false,
    prose: ProseMode::DataOnly,
    siblings: false,
};
const STRICT_ORDER: Options = Options {
    strict_order: true,
    prose: ProseMode::DataOnly,
    siblings: false,
};
const EXACT: Options = Options {
    strict_order: false,
    prose: ProseMode::Exact,
    siblings: false,
};

#[test]
fn the_reference_outcome_conforms() {
    for example in rt_tool_3::vectors::examples().expect("examples") {
        let case = example.case;
        let reference = serde_json::to_value(model::outcome(&case)).expect("encodes");
        let strictest = Options {
            strict_order: true,
            prose: ProseMode::Exact,
            siblings: false,
        };
        let j = judge(&case, &reference, strictest).expect("object");
        assert!(
            j.conforms() && j.warnings.is_empty(),
            "{}: {j:#?}",
            example.name
        );
    }
}

#[test]
fn clause_1_key_by_key() {
    let ok = || msgs(&[("c1", "Created node 5 (draft).")]);
    let rows: Vec<(Value, Value, &[Clause], &[&str])> = vec![
        // Extra key smuggled through.
        (
            example(json!(null)),
            json!({"messages": ok(), "exposed": false, "tool_artifacts": [
            {"type": "link", "payload": {"url": "https://example.com/node/5"}, "tool_call_id": "c1", "Type": "x"}]}),
            &[C1],
            &["key(s) \"Type\" beyond type, payload and tool_call_id"],
        ),
        // A key missing.
        (
            example(json!(null)),
            json!({"messages": ok(), "exposed": false, "tool_artifacts": [
            {"type": "link", "payload": {"url": "https://example.com/node/5"}}]}),
            &[C1, C1],
            &[
                "tool_artifacts[0] lacks tool_call_id",
                "artifact 0 of call c1 (link",
            ],
        ),
        // An id no call has.
        (
            example(json!(null)),
            json!({"messages": ok(), "exposed": false, "tool_artifacts": [link("c9")]}),
            &[C1],
            &["carries tool_call_id \"c9\", which is no call"],
        ),
        // Missing while exposed: clause 1, not 4.
        (
            example(json!(true)),
            json!({"messages": ok(), "exposed": true, "tool_artifacts": []}),
            &[C1],
            &["artifact 0 of call c1 (link {\"url\":\"https://example.com/node/5\"}) is missing"],
        ),
        // Twice.
        (
            example(json!(null)),
            json!({"messages": ok(), "exposed": false, "tool_artifacts": [link("c1"), link("c1")]}),
            &[C1],
            &["tool_artifacts[1] repeats artifact 0 of call c1"],
        ),
        // Of a type the call never returned: named by its type and payload.
        (
            example(json!(null)),
            json!({"messages": ok(), "exposed": false, "tool_artifacts": [link("c1"),
            {"type": "file", "payload": {"path": "/tmp/x", "n": 1.5}, "tool_call_id": "c1"}]}),
            &[C1],
            &["tool_artifacts[1] (\"file\" {\"path\":\"/tmp/x\",\"n\":1.5}) was produced by no call"],
        ),
        // A payload changed on the way.
        (
            example(json!(null)),
            json!({"messages": ok(), "exposed": false, "tool_artifacts": [
            {"type": "link", "payload": {"url": "https://example.com/node/6"}, "tool_call_id": "c1"}]}),
            &[C1],
            &["payload that differs from the artifact's at /url"],
        ),
        // Not an object; not a list.
        (
            example(json!(null)),
            json!({"messages": ok(), "exposed": false, "tool_artifacts": ["x", link("c1")]}),
            &[C1],
            &["tool_artifacts[0] is a string, not an object"],
        ),
        (
            example(json!(null)),
            json!({"messages": ok(), "exposed": false, "tool_artifacts": {}}),
            &[P],
            &["tool_artifacts is an object, not a list"],
        ),
    ];
    for (case, observed, clauses, says) in rows {
        check(&case, observed, DEFAULT, clauses, says);
    }
}

#[test]
fn clause_1_spoofed_sibling_id_and_numbers() {
    let case = two_calls();
    let ok = msgs(&[("c1", "searched"), ("c2", "fetched")]);
    let note = |n: Value, big: Value| json!({"type": "note", "payload": {"huge": 1, "n": n, "big": big}, "tool_call_id": "c2"});
    let a =
        json!({"type": "link", "payload": {"url": "https://a.example/1"}, "tool_call_id": "c1"});
    let file =
        |id: &str| json!({"type": "file", "payload": {"name": "report.pdf"}, "tool_call_id": id});
    let exact_big: Value =
        serde_json::from_str("1234567890123456789012345678901234567890").expect("number");
    // Spoofed: the artifact's own claim was copied.
    check(
        &case,
        json!({"messages": ok, "exposed": false, "tool_artifacts": [a, file("c1"), note(json!(1), exact_big.clone())]}),
        DEFAULT,
        &[C1],
        &["artifact 0 of call c2 carries tool_call_id c1, the id the artifact itself claims"],
    );
    // Any order, key order and 1 for 1.0 conform; a rounded big number warns.
    let rounded: Value = serde_json::from_str("1.2345678901234568e39").expect("number");
    check(
        &case,
        json!({"exposed": false, "tool_artifacts": [note(json!(1), rounded), file("c2"), a], "messages": ok}),
        DEFAULT,
        &[],
        &["precision of an IEEE double"],
    );
    check(
        &case,
        json!({"exposed": false, "tool_artifacts": [note(json!(1), exact_big.clone()), file("c2"), a], "messages": ok}),
        STRICT_ORDER,
        &[C1],
        &["not in the reference order"],
    );
    // A number off by one digit is a changed payload.
    let off: Value =
        serde_json::from_str("1234567890123456789012345678901234567891").expect("number");
    check(
        &case,
        json!({"exposed": false, "tool_artifacts": [a, file("c2"), note(json!(1), off)], "messages": ok}),
        DEFAULT,
        &[],
        &["precision of an IEEE double"],
    );
    check(
        &case,
        json!({"exposed": false, "tool_artifacts": [a, file("c2"), note(json!(1.5), exact_big)], "messages": ok}),
        DEFAULT,
        &[C1],
        &["differs from the artifact's at /n"],
    );
}

#[test]
fn clause_2_not_exposed_by_default() {
    let ok = || msgs(&[("c1", "Created node 5 (draft).")]);
    check(
        &example(json!(null)),
        json!({"messages": ok(), "exposed": true, "tool_artifacts": [link("c1")]}),
        DEFAULT,
        &[C2],
        &["the author made no choice, yet the port is exposed"],
    );
    check(
        &example(json!(true)),
        json!({"messages": ok(), "exposed": false, "tool_artifacts": [link("c1")]}),
        DEFAULT,
        &[C2],
        &["the author set exposed: true, yet the outcome says exposed: false"],
    );
    check(
        &example(json!(false)),
        json!({"messages": ok(), "tool_artifacts": [link("c1")]}),
        DEFAULT,
        &[P],
        &["no `exposed`"],
    );
}

/// A case, its messages, the options, the clauses named, what they say.
type ProseRow = (
    Value,
    Value,
    Options,
    &'static [Clause],
    &'static [&'static str],
);

#[test]
fn clause_3_prose_from_data() {
    let arts = || json!([link("c1")]);
    let rows: Vec<ProseRow> = vec![
        // Another rendering of data conforms unless the exact one is asked for.
        (
            example(json!(null)),
            msgs(&[("c1", "Result: Created node 5 (draft).")]),
            DEFAULT,
            &[],
            &[],
        ),
        (
            example(json!(null)),
            msgs(&[("c1", "Result: Created node 5 (draft).")]),
            EXACT,
            &[C3],
            &["not the reference rendering"],
        ),
        // The artifact's URL leaks.
        (
            example(json!(null)),
            msgs(&[(
                "c1",
                "Created node 5 (draft). See https://example.com/node/5",
            )]),
            DEFAULT,
            &[C3],
            &["contains \"https://example.com/node/5\", found only in the artifacts of call c1"],
        ),
        // One message missing, or answering the wrong call: the outcome is
        // not of the contract's shape, which is no paragraph of the rule.
        (
            example(json!(null)),
            json!([]),
            DEFAULT,
            &[P],
            &["call c1 has no message"],
        ),
        (
            example(json!(null)),
            msgs(&[("c2", "Created node 5 (draft).")]),
            DEFAULT,
            &[P, P],
            &[
                "messages[0] answers tool_call_id \"c2\", which is no call",
                "call c1 has no message",
            ],
        ),
        (
            example(json!(null)),
            json!([{"tool_call_id": "c1"}]),
            DEFAULT,
            &[P],
            &["has no string content"],
        ),
        (
            example(json!(null)),
            msgs(&[("c1", "Created node 5 (draft)."), ("c1", "again")]),
            DEFAULT,
            &[P],
            &["messages[1] is a second message for call c1"],
        ),
        // A URL in data and artifact may appear: it came from data.
        (
            json!({"calls": [{"tool_call_id": "c1", "result": {"success": true, "data": "Published https://example.com/node/5",
            "artifacts": [{"type": "link", "payload": {"url": "https://example.com/node/5"}}]}}]}),
            msgs(&[("c1", "tool said: Published https://example.com/node/5")]),
            DEFAULT,
            &[],
            &[],
        ),
        // A result-level decoy leaks.
        (
            json!({"calls": [{"tool_call_id": "c1", "result": {"success": true, "data": "real", "content": "DECOY content here",
            "artifacts": [{"type": "link", "payload": {"url": "https://example.com/node/5"}}]}}]}),
            msgs(&[("c1", "DECOY content here")]),
            DEFAULT,
            &[C3],
            &["found only in the `content` of call c1's result"],
        ),
    ];
    for (case, messages, options, clauses, says) in rows {
        check(
            &case,
            json!({"messages": messages, "tool_artifacts": arts(), "exposed": case["exposed"] == true}),
            options,
            clauses,
            says,
        );
    }
}

/// One outcome cannot tell ¶4 from ¶1: an artifact missing while the port
/// is hidden is cited as what the outcome proves, ¶1, with a word on ¶4;
/// `diff`, which runs the case shown too, tells the two apart.
#[test]
fn clause_4_delivery_when_hidden() {
    let ok = || msgs(&[("c1", "Created node 5 (draft).")]);
    check(
        &example(json!(false)),
        json!({"messages": ok(), "exposed": false, "tool_artifacts": []}),
        DEFAULT,
        &[C1],
        &["artifact 0 of call c1 (link {\"url\":\"https://example.com/node/5\"}) is missing from tool_artifacts (the port is hidden: a runtime that delivers it only while the port is shown breaks RT-TOOL-3 ¶4"],
    );
    // Under siblings the word on ¶4 is left out: `diff` says which it is.
    let case = Case::from_json(example(json!(false)).to_string().as_bytes()).expect("valid");
    let siblings = Options {
        siblings: true,
        ..DEFAULT
    };
    let j = judge(
        &case,
        &json!({"messages": ok(), "exposed": false, "tool_artifacts": []}),
        siblings,
    )
    .expect("object");
    assert_eq!(
        j.violations,
        [rt_tool_3::judge::Violation {
            clause: C1,
            code: Code::MissingArtifact,
            place: Place {
                call: Some(0),
                artifact: Some(0),
                ..Place::default()
            },
            message: "artifact 0 of call c1 (link {\"url\":\"https://example.com/node/5\"}) is missing from tool_artifacts".into()
        }]
    );
    check(
        &example(json!(null)),
        json!({"messages": ok(), "exposed": false}),
        DEFAULT,
        &[P],
        &["no tool_artifacts while the port is hidden (a runtime that strips hidden outputs, EXPO-14"],
    );
    // Shown and absent, the port is missing, and nothing hints at hiding.
    let case = Case::from_json(example(json!(true)).to_string().as_bytes()).expect("valid");
    let shown = judge(&case, &json!({"messages": ok(), "exposed": true}), DEFAULT).expect("object");
    assert_eq!(
        shown.violations,
        [rt_tool_3::judge::Violation {
            clause: P,
            code: Code::PortMissing,
            place: Place::default(),
            message: "the outcome has no tool_artifacts".into()
        }]
    );
}

#[test]
fn rt_tool_2_malformed_and_failed_surface_nothing() {
    let case = json!({"calls": [
        {"tool_call_id": "c1", "result": {"success": false, "data": null, "error": "quota",
            "artifacts": [{"type": "link", "payload": {"url": "https://example.com/partial"}}]}},
        {"tool_call_id": "c2", "result": {"success": true, "data": "four", "artifacts": [
            "https://example.com/bare",
            {"type": "", "payload": {"url": "https://example.com/empty-type"}},
            {"type": "note", "payload": "just a string"},
            {"type": "link", "payload": {"url": "https://example.com/valid"}}]}}]});
    let ok = msgs(&[("c1", ""), ("c2", "four")]);
    let valid = json!({"type": "link", "payload": {"url": "https://example.com/valid"}, "tool_call_id": "c2"});
    let rows: Vec<(Value, &[&str])> = vec![
        (json!({"type": "link", "payload": {"url": "https://example.com/partial"}, "tool_call_id": "c1"}),
            &["entry 0 of call c1's artifacts, which RT-TOOL-2 drops: the call failed"]),
        (json!({"type": "", "payload": {"url": "https://example.com/empty-type"}, "tool_call_id": "c2"}),
            &["entry 1 of call c2's artifacts, which RT-TOOL-2 drops: its type is empty"]),
        (json!({"type": "note", "payload": "just a string", "tool_call_id": "c2"}),
            &["entry 2 of call c2's artifacts, which RT-TOOL-2 drops: its payload is a string, not an object"]),
    ];
    for (extra, says) in rows {
        check(
            &case,
            json!({"messages": ok, "exposed": false, "tool_artifacts": [valid, extra]}),
            DEFAULT,
            &[RT2],
            says,
        );
    }
    check(
        &case,
        json!({"messages": ok, "exposed": false, "tool_artifacts": [valid]}),
        DEFAULT,
        &[],
        &[],
    );
}

#[test]
fn the_reserved_key_in_data_may_be_lifted_or_dropped_never_read() {
    // RT-TOOL-2 lifts the reserved key's well-formed entries off a
    // successful call's output; a `data` still carrying it is lenient, and
    // lifting them (key by key, own id, once) or dropping them both conform.
    let case = |success: bool| {
        json!({"calls": [{"tool_call_id": "c1", "result": {"success": success,
        "data": {"result": "x", "artifacts": [{"type": "link", "payload": {"url": "https://example.com/smuggled"}}]}}},
        {"tool_call_id": "c2", "result": {"success": true, "data": "y"}}]})
    };
    let smuggled = |id: &str| json!({"type": "link", "payload": {"url": "https://example.com/smuggled"}, "tool_call_id": id});
    let observed = |arts: Value, prose: &str| json!({"messages": msgs(&[("c1", prose), ("c2", "y")]), "exposed": false, "tool_artifacts": arts});
    let rows: Vec<(Value, Value, &[Clause], &[&str])> = vec![
        (case(true), observed(json!([]), "x"), &[], &[]),
        (case(true), observed(json!([smuggled("c1")]), "x"), &[], &[]),
        (
            case(true),
            observed(json!([smuggled("c1"), smuggled("c1")]), "x"),
            &[C1],
            &["repeats artifact 0 of call c1"],
        ),
        (
            case(true),
            observed(json!([smuggled("c2")]), "x"),
            &[C1],
            &["carries tool_call_id c2"],
        ),
        (
            case(false),
            observed(json!([smuggled("c1")]), "x"),
            &[RT2],
            &["entry 0 under the reserved `artifacts` key of call c1's data, which RT-TOOL-2 drops: the call failed"],
        ),
        // Nothing under the reserved key reaches the prose, in either zone.
        (
            case(true),
            observed(json!([]), "x https://example.com/smuggled"),
            &[C3],
            &["found only in the reserved `artifacts` key of call c1's data"],
        ),
        // What beside it in `data` the prose may draw on, though another
        // call's artifact holds it first.
        (
            json!({"calls": [
                {"tool_call_id": "c0", "result": {"success": true, "data": "z",
                    "artifacts": [{"type": "note", "payload": {"text": "the shared note text"}}]}},
                {"tool_call_id": "c1", "result": {"success": true,
                    "data": {"result": "x", "note": "the shared note text", "artifacts": []}}}]}),
            json!({"messages": msgs(&[("c0", "z"), ("c1", "x, the shared note text")]),
                "exposed": false,
                "tool_artifacts": [{"type": "note", "payload": {"text": "the shared note text"}, "tool_call_id": "c0"}]}),
            &[],
            &[],
        ),
    ];
    for (case, observed, clauses, says) in rows {
        check(&case, observed, DEFAULT, clauses, says);
    }
}

#[test]
fn each_calls_prose_comes_from_its_own_data() {
    let case = json!({"calls": [
        {"tool_call_id": "c1", "result": {"success": true, "data": "Created node 5 (draft).", "error": "warning: slow backend"}},
        {"tool_call_id": "c2", "result": {"success": false, "data": null, "error": "quota exceeded for tool"}},
        {"tool_call_id": "c3", "result": {"success": true, "data": {"result": "Deleted node 7 (final)."}}}]});
    let observed = |pairs: &[(&str, &str)]| json!({"messages": msgs(pairs), "exposed": false, "tool_artifacts": []});
    let letter = Options {
        prose: ProseMode::Letter,
        ..DEFAULT
    };
    let rows: Vec<(Value, Options, &[Clause], &[&str])> = vec![
        // Each call's own data: conforms, in any order of the messages.
        (
            observed(&[("c1", "Created node 5 (draft)."), ("c2", ""), ("c3", "Deleted node 7 (final).")]),
            DEFAULT,
            &[],
            &[],
        ),
        (
            observed(&[("c3", "Deleted node 7 (final)."), ("c1", "Created node 5 (draft)."), ("c2", "")]),
            DEFAULT,
            &[],
            &["messages are not in call order"],
        ),
        // Two calls' prose swapped.
        (
            observed(&[("c1", "Deleted node 7 (final)."), ("c2", ""), ("c3", "Created node 5 (draft).")]),
            DEFAULT,
            &[C3, C3],
            &["the prose of call c1 contains \"Deleted node 7 (final).\", found only in the data of call c3"],
        ),
        // A successful call's error in its prose.
        (
            observed(&[("c1", "Created node 5 (draft). warning: slow backend"), ("c2", ""), ("c3", "Deleted node 7 (final).")]),
            DEFAULT,
            &[C3],
            &["found only in the error of call c1"],
        ),
        // A failed call's own error: allowed by default, not by the letter.
        (
            observed(&[("c1", "Created node 5 (draft)."), ("c2", "Error: quota exceeded for tool"), ("c3", "Deleted node 7 (final).")]),
            DEFAULT,
            &[],
            &[],
        ),
        (
            observed(&[("c1", "Created node 5 (draft)."), ("c2", "Error: quota exceeded for tool"), ("c3", "Deleted node 7 (final).")]),
            letter,
            &[C3],
            &["found only in the error of call c2"],
        ),
        // Another call's error is never allowed.
        (
            observed(&[("c1", "Created node 5 (draft). quota exceeded for tool"), ("c2", ""), ("c3", "Deleted node 7 (final).")]),
            DEFAULT,
            &[C3],
            &["found only in the error of call c2"],
        ),
    ];
    for (observed, options, clauses, says) in rows {
        check(&case, observed, options, clauses, says);
    }
}

/// A candidate is a string of `LEAK_MIN_CHARS` (eight) characters or more,
/// counted in characters, not bytes: a seven-letter string of two-byte
/// letters is too short to be told from chance.
#[test]
fn a_leak_is_eight_characters_or_more() {
    let strings = ["abcdefg", "hijklmno", "ééééééé", "üüüüüüüü"];
    let case = json!({"calls": [
        {"tool_call_id": "c1", "result": {"success": true, "data": "ok"}},
        {"tool_call_id": "c2", "result": {"success": true, "data": strings}}]});
    let own = serde_json::to_string(&strings).expect("encodes");
    for (quoted, clauses) in [
        ("abcdefg", &[][..]),
        ("hijklmno", &[C3][..]),
        ("ééééééé", &[][..]),
        ("üüüüüüüü", &[C3][..]),
    ] {
        let prose = format!("ok {quoted}");
        let observed = json!({"messages": msgs(&[("c1", &prose), ("c2", &own)]),
            "exposed": false, "tool_artifacts": []});
        let says = format!("contains {quoted:?}, found only in the data of call c2");
        let says: &[&str] = if clauses.is_empty() { &[] } else { &[&says] };
        check(&case, observed, DEFAULT, clauses, says);
    }
}

#[test]
fn only_a_call_that_succeeded_delivers() {
    // A `success` of "false" (a string) is no success, though a loosely
    // typed runtime reads it as truthy; an absent one is tolerated.
    let entry = json!({"type": "link", "payload": {"url": "https://example.com/declined"}});
    let delivered = json!([{"type": "link", "payload": {"url": "https://example.com/declined"}, "tool_call_id": "c1"}]);
    for (success, clauses) in [
        (json!("false"), &[RT2][..]),
        (json!("true"), &[RT2][..]),
        (json!(1), &[RT2][..]),
        (Value::Null, &[RT2][..]),
    ] {
        let case = json!({"calls": [{"tool_call_id": "c1", "result": {"success": success, "data": "d", "artifacts": [entry]}}]});
        let observed = json!({"messages": msgs(&[("c1", "d")]), "exposed": false, "tool_artifacts": delivered});
        check(
            &case,
            observed,
            DEFAULT,
            clauses,
            &["which RT-TOOL-2 drops: its `success` is"],
        );
    }
    let absent =
        json!({"calls": [{"tool_call_id": "c1", "result": {"data": "d", "artifacts": [entry]}}]});
    let observed =
        json!({"messages": msgs(&[("c1", "d")]), "exposed": false, "tool_artifacts": delivered});
    check(&absent, observed, DEFAULT, &[], &[]);
}

#[test]
fn rt_tool_6_keeps_what_fits_above_the_floors() {
    let link =
        |i: usize| json!({"type": "link", "payload": {"url": format!("https://example.com/{i}")}});
    let on_port = |i: usize| json!({"type": "link", "payload": {"url": format!("https://example.com/{i}")}, "tool_call_id": "c1"});
    let many = |n: usize| {
        json!({"calls": [{"tool_call_id": "c1", "result": {"success": true, "data": "d",
            "artifacts": (0..n).map(link).collect::<Vec<_>>()}}]})
    };
    let port = |range: std::ops::Range<usize>| json!({"messages": msgs(&[("c1", "d")]), "exposed": false, "tool_artifacts": range.map(on_port).collect::<Vec<_>>()});
    // Over the count: 50 kept conform, fewer do not.
    check(&many(51), port(0..50), DEFAULT, &[], &[]);
    check(&many(51), port(1..51), DEFAULT, &[], &[]);
    check(&many(51), port(0..51), DEFAULT, &[], &[]);
    check(
        &many(51),
        port(0..0),
        DEFAULT,
        &[RT6],
        &["tool_artifacts holds 0 entries (0 bytes at most) for the run's 51 kept artifacts, yet", "artifact 0 of call c1, artifact 1 of call c1, artifact 2 of call c1 and 48 more are missing"],
    );
    check(
        &many(51),
        port(0..49),
        DEFAULT,
        &[RT6],
        &["artifact 49 of call c1, artifact 50 of call c1 are missing"],
    );
    // Delivered with its type changed is not dropped: 51 entries held
    // leave nothing a bound may have dropped, and each changed one is ¶1's
    // (its artifact still missing, said once, by the entry).
    let mut changed = port(0..51);
    changed["tool_artifacts"][49]["type"] = json!("LINK");
    changed["tool_artifacts"][50]["type"] = json!("LINK");
    check(
        &many(51),
        changed.clone(),
        DEFAULT,
        &[C1, C1],
        &["tool_artifacts[49] (\"LINK\" {\"url\":\"https://example.com/49\"}) was produced by no call"],
    );
    // Two fewer, 49 entries, and the two dropped still fit.
    let list = changed["tool_artifacts"].as_array_mut().expect("a list");
    list.drain(47..49);
    check(
        &many(51),
        changed,
        DEFAULT,
        &[C1, C1, RT6],
        &[
            "tool_artifacts holds 49 entries (",
            "artifact 47 of call c1, artifact 48 of call c1, artifact 49 of call c1 and 1 more are missing",
        ],
    );
    // So with bytes: beside a changed entry's 510,000 bytes, the owed
    // artifact of 500,000 no longer fits the run's 2,000,000.
    let blob = |bytes: usize| json!({"type": "blob", "payload": sized(bytes)});
    let (a, b, d, e) = (blob(600_000), blob(500_000), blob(510_000), blob(500_000));
    let run = json!({"calls": [{"tool_call_id": "c1", "result": {"success": true, "data": "d",
        "artifacts": [a, b, b, d, e]}}]});
    let on = |mut a: Value| {
        a["tool_call_id"] = json!("c1");
        a
    };
    let mut changed = on(d.clone());
    changed["type"] = json!("BLOB");
    let held = |last: Value| {
        json!({"messages": msgs(&[("c1", "d")]), "exposed": false,
            "tool_artifacts": [on(b.clone()), on(b.clone()), last]})
    };
    check(
        &run,
        held(changed),
        DEFAULT,
        &[C1],
        &["was produced by no call"],
    );
    // Without it, 1,000,000 bytes held: both still fit.
    check(
        &run,
        held(on(blob(8))),
        DEFAULT,
        &[C1, RT6],
        &["artifact 3 of call c1, artifact 4 of call c1 are missing"],
    );
    // One payload over the per-artifact floor: it may go, the rest stay.
    let big = json!({"type": "file", "payload": {"content": "x".repeat(512_001)}});
    let case = json!({"calls": [{"tool_call_id": "c1", "result": {"success": true, "data": "d",
        "artifacts": [link(0), big, link(1)]}}]});
    check(&case, port(0..2), DEFAULT, &[], &[]);
    check(
        &case,
        port(0..1),
        DEFAULT,
        &[RT6],
        &["artifact 2 of call c1 is missing"],
    );
    // The bounds at their edges, with payloads of exact encoded sizes: one
    // of exactly 512,000 bytes is within the floor and owed; one that
    // fits the run's 2,000,000 bytes exactly is owed; one past them is not.
    let sized = |bytes: usize| json!({"type": "blob", "payload": sized(bytes)});
    let on = |a: &Value| {
        let mut a = a.clone();
        a["tool_call_id"] = json!("c1");
        a
    };
    let run = |artifacts: &[Value]| json!({"calls": [{"tool_call_id": "c1", "result": {"success": true, "data": "d", "artifacts": artifacts}}]});
    let port_of = |delivered: &[&Value]| {
        json!({"messages": msgs(&[("c1", "d")]), "exposed": false,
            "tool_artifacts": delivered.iter().map(|a| on(a)).collect::<Vec<_>>()})
    };
    let (at_floor, over_floor) = (sized(512_000), sized(512_001));
    let edge = run(&[at_floor.clone(), over_floor.clone()]);
    check(&edge, port_of(&[&at_floor]), DEFAULT, &[], &[]);
    check(
        &edge,
        port_of(&[]),
        DEFAULT,
        &[RT6],
        &["artifact 0 of call c1 is missing"],
    );
    let e = json!({"type": "blob", "payload": {}});
    let (a, d, f) = (sized(500_000), sized(499_998), sized(500_000));
    let budget = run(&[
        a.clone(),
        a.clone(),
        a.clone(),
        d.clone(),
        e.clone(),
        f.clone(),
    ]);
    check(
        &budget,
        port_of(&[&a, &a, &a, &d]),
        DEFAULT,
        &[RT6],
        &["artifact 4 of call c1 is missing"],
    );
    check(&budget, port_of(&[&a, &a, &a, &d, &e]), DEFAULT, &[], &[]);
    check(&budget, port_of(&[&a, &a, &a, &f]), DEFAULT, &[], &[]);
    // A payload no double can hold may not encode: its absence warns.
    // It may sit at any depth; a number a double holds is no excuse.
    let n = |text: &str| serde_json::from_str::<Value>(text).expect("number");
    for (payload, encodes) in [
        (json!({"n": n("1e400")}), false),
        (json!({"n": [1, {"m": [n("-1e400")]}]}), false),
        (json!({"n": [1, {"m": [n("1e300")]}]}), true),
    ] {
        let case = json!({"calls": [{"tool_call_id": "c1", "result": {"success": true, "data": "d",
            "artifacts": [{"type": "n", "payload": payload}]}}]});
        let empty =
            json!({"messages": msgs(&[("c1", "d")]), "exposed": false, "tool_artifacts": []});
        if encodes {
            check(&case, empty, DEFAULT, &[C1], &["artifact 0 of call c1"]);
        } else {
            check(&case, empty, DEFAULT, &[], &["no IEEE double can hold"]);
        }
    }
}

#[test]
fn one_calls_artifacts_out_of_order_warn() {
    let case = json!({"calls": [
        {"tool_call_id": "c1", "result": {"success": true, "data": "a", "artifacts": [
            {"type": "link", "payload": {"n": 1}}, {"type": "link", "payload": {"n": 2}}]}},
        {"tool_call_id": "c2", "result": {"success": true, "data": "b", "artifacts": [
            {"type": "link", "payload": {"n": 3}}]}}]});
    let a = |n: u32, id: &str| json!({"type": "link", "payload": {"n": n}, "tool_call_id": id});
    let observed = |arts: Value| json!({"messages": msgs(&[("c1", "a"), ("c2", "b")]), "exposed": false, "tool_artifacts": arts});
    let judged = |arts: Value| {
        let case = Case::from_json(case.to_string().as_bytes()).expect("valid");
        judge(&case, &observed(arts), DEFAULT).expect("object")
    };
    // Calls in another order: free. One call's own order changed: a warning.
    let across = judged(json!([a(3, "c2"), a(1, "c1"), a(2, "c1")]));
    assert!(
        across.conforms() && across.warnings.is_empty(),
        "{across:#?}"
    );
    let within = judged(json!([a(2, "c1"), a(3, "c2"), a(1, "c1")]));
    assert!(within.conforms(), "{within:#?}");
    assert_eq!(
        within.warnings,
        [rt_tool_3::judge::Warning {
            code: Code::CallOrder,
            place: Place::call(0),
            message:
                "the artifacts of call c1 arrived in another order than the call returned them"
                    .into()
        }]
    );
}

#[test]
fn lenient_zone_gets_the_safety_half() {
    let case = json!({"calls": [
        {"tool_call_id": "c1", "result": {"success": true, "data": "obj",
            "artifacts": {"0": {"type": "link", "payload": {"url": "https://example.com/obj"}}}}},
        {"tool_call_id": "c2", "result": "bare string"}]});
    let ok = msgs(&[("c1", "obj"), ("c2", "bare string")]);
    let obj = |id: &str| json!({"type": "link", "payload": {"url": "https://example.com/obj"}, "tool_call_id": id});
    // Dropping or surfacing the object's entries are both safe.
    check(
        &case,
        json!({"messages": ok, "exposed": false, "tool_artifacts": []}),
        DEFAULT,
        &[],
        &[],
    );
    check(
        &case,
        json!({"messages": ok, "exposed": false, "tool_artifacts": [obj("c1")]}),
        DEFAULT,
        &[],
        &[],
    );
    // Under the wrong call, or twice, it is not.
    check(
        &case,
        json!({"messages": ok, "exposed": false, "tool_artifacts": [obj("c2")]}),
        DEFAULT,
        &[C1],
        &["artifact 0 of call c1 carries tool_call_id c2"],
    );
    check(
        &case,
        json!({"messages": ok, "exposed": false, "tool_artifacts": [obj("c1"), obj("c1")]}),
        DEFAULT,
        &[C1],
        &["repeats artifact 0 of call c1"],
    );
    // An `artifacts` object that is itself one entry may be read as one.
    let single = json!({"calls": [{"tool_call_id": "c1", "result": {"success": true, "data": "one",
        "artifacts": {"type": "link", "payload": {"url": "https://example.com/a"}}}}]});
    let one =
        json!({"type": "link", "payload": {"url": "https://example.com/a"}, "tool_call_id": "c1"});
    check(
        &single,
        json!({"messages": msgs(&[("c1", "one")]), "exposed": false, "tool_artifacts": [one]}),
        DEFAULT,
        &[],
        &[],
    );
    // The exact rendering is not demanded of a lenient case.
    check(
        &case,
        json!({"messages": ok, "exposed": false, "tool_artifacts": []}),
        EXACT,
        &[],
        &[],
    );
}

/// Each call is judged on its own: a call whose result is a bare string
/// (no object, no `success`) excuses nothing of a well-formed sibling,
/// whose kept artifacts are owed. ¶1 says "every call's artifacts", and
/// RT-TOOL-2 drops per entry, never per run.
#[test]
fn a_malformed_call_leaves_its_siblings_artifacts_owed() {
    let case = json!({"calls": [
        {"tool_call_id": "c1", "result": "Searched the archive."},
        {"tool_call_id": "c2", "result": {"success": true, "data": "fetched", "artifacts": [
            {"type": "link", "payload": {"url": "https://example.com/kept"}},
            {"type": "file", "payload": {"name": "report.pdf"}}]}}]});
    let ok = msgs(&[("c1", ""), ("c2", "fetched")]);
    let link = json!({"type": "link", "payload": {"url": "https://example.com/kept"}, "tool_call_id": "c2"});
    let file = json!({"type": "file", "payload": {"name": "report.pdf"}, "tool_call_id": "c2"});
    let observed = |arts: Value| json!({"messages": ok, "exposed": false, "tool_artifacts": arts});
    let rows: Vec<(Value, &[Clause], &[&str])> = vec![
        // None of them: each is missing, named with its call.
        (
            json!([]),
            &[C1, C1],
            &[
                "artifact 0 of call c2 (link {\"url\":\"https://example.com/kept\"}) is missing",
                "artifact 1 of call c2 (file {\"name\":\"report.pdf\"}) is missing",
            ],
        ),
        (json!([file]), &[C1], &["artifact 0 of call c2 (link"]),
        // All of them, in any order: conforms.
        (json!([link, file]), &[], &[]),
        (json!([file, link]), &[], &[]),
    ];
    for (arts, clauses, says) in rows {
        check(&case, observed(arts), DEFAULT, clauses, says);
    }
    // The finding is about the well-formed call, and the case is still
    // lenient, saying which call made it so.
    let case = Case::from_json(case.to_string().as_bytes()).expect("valid");
    let judgement = judge(&case, &observed(json!([])), DEFAULT).expect("an outcome");
    assert_eq!(
        (judgement.violations.iter())
            .map(|v| (v.code, v.place.call, v.place.artifact))
            .collect::<Vec<_>>(),
        [
            (Code::MissingArtifactWhileHidden, Some(1), Some(0)),
            (Code::MissingArtifactWhileHidden, Some(1), Some(1))
        ]
    );
    assert_eq!(
        judgement.zone,
        model::Zone::Lenient(vec!["call c1: result is a string, not an object".into()])
    );
}

/// What a lenient call may deliver stays optional beside an owed sibling,
/// and the safety half still holds of it: an `artifacts` object's entry
/// may land under its own call's id or not at all, never under the
/// sibling's; and the sibling's artifacts are owed all the same.
#[test]
fn a_lenient_call_beside_a_well_formed_one_keeps_its_safety_half() {
    let case = json!({"calls": [
        {"tool_call_id": "c1", "result": {"success": true, "data": "obj",
            "artifacts": {"0": {"type": "link", "payload": {"url": "https://example.com/obj"}}}}},
        {"tool_call_id": "c2", "result": {"success": true, "data": "two", "artifacts": [
            {"type": "note", "payload": {"n": 2}}]}},
        {"tool_call_id": "c3", "result": {"success": false, "data": "three", "artifacts": [
            {"type": "note", "payload": {"n": 3}}]}}]});
    let ok = msgs(&[("c1", "obj"), ("c2", "two"), ("c3", "three")]);
    let obj = |id: &str| json!({"type": "link", "payload": {"url": "https://example.com/obj"}, "tool_call_id": id});
    let note = |n: u8, id: &str| json!({"type": "note", "payload": {"n": n}, "tool_call_id": id});
    let observed = |arts: Value| json!({"messages": ok, "exposed": false, "tool_artifacts": arts});
    let rows: Vec<(Value, &[Clause], &[&str])> = vec![
        (json!([note(2, "c2")]), &[], &[]),
        (json!([obj("c1"), note(2, "c2")]), &[], &[]),
        (json!([obj("c1")]), &[C1], &["artifact 0 of call c2 (note"]),
        (
            json!([obj("c2"), note(2, "c2")]),
            &[C1],
            &["artifact 0 of call c1 carries tool_call_id c2"],
        ),
        (
            json!([note(2, "c2"), note(3, "c3")]),
            &[RT2],
            &["entry 0 of call c3's artifacts, which RT-TOOL-2 drops: the call failed"],
        ),
    ];
    for (arts, clauses, says) in rows {
        check(&case, observed(arts), DEFAULT, clauses, says);
    }
    // The reference rendering, under `--prose exact`, is asked of the
    // well-formed calls alone, whatever their siblings.
    let exact = |c1: &str, c2: &str| {
        let mut o = observed(json!([note(2, "c2")]));
        o["messages"] = msgs(&[("c1", c1), ("c2", c2), ("c3", "three")]);
        o
    };
    check(&case, exact("the object", "two"), EXACT, &[], &[]);
    // So is the reference order, under `--strict-order`: of the owed
    // artifacts among themselves, a lenient call's may come anywhere.
    let ordered = json!({"calls": [
        {"tool_call_id": "c2", "result": {"success": true, "data": "two", "artifacts": [
            {"type": "note", "payload": {"n": 1}}, {"type": "note", "payload": {"n": 2}}]}},
        {"tool_call_id": "c1", "result": {"success": true, "data": "obj",
            "artifacts": {"0": {"type": "link", "payload": {"url": "https://example.com/obj"}}}}}]});
    let port = |arts: Value| json!({"messages": msgs(&[("c2", "two"), ("c1", "obj")]), "exposed": false, "tool_artifacts": arts});
    let (one, two) = (note(1, "c2"), note(2, "c2"));
    check(
        &ordered,
        port(json!([obj("c1"), one, two])),
        STRICT_ORDER,
        &[],
        &[],
    );
    check(
        &ordered,
        port(json!([two, obj("c1"), one])),
        STRICT_ORDER,
        &[C1],
        &["tool_artifacts is not in the reference order"],
    );
    check(
        &case,
        exact("obj", "Two."),
        EXACT,
        &[C3],
        &["the prose of call c2 is \"Two.\", not the reference rendering \"two\""],
    );
}

/// The outcome of calls `c1` (prose `a`) and `c2` (`b`) that delivers the
/// first `lenient_n` of `c2`'s artifacts, then the first `owed_n` of
/// `c1`'s (`owed` and `lenient` give the `i`th of each).
fn c1_after_c2(
    owed: &dyn Fn(usize) -> Value,
    owed_n: usize,
    lenient: &dyn Fn(usize) -> Value,
    lenient_n: usize,
) -> Value {
    let on = |mut a: Value, id: &str| {
        a["tool_call_id"] = json!(id);
        a
    };
    let arts: Vec<Value> = (0..lenient_n)
        .map(|i| on(lenient(i), "c2"))
        .chain((0..owed_n).map(|i| on(owed(i), "c1")))
        .collect();
    json!({"messages": msgs(&[("c1", "a"), ("c2", "b")]), "exposed": false, "tool_artifacts": arts})
}

/// RT-TOOL-6's floors count what a lenient call may deliver at its
/// largest. Here the well-formed call keeps 30 artifacts and the lenient
/// one may deliver 25 more: within the floors alone, over them together.
/// A runtime that delivers the 25 and drops the owed ones past the 50th
/// is a bound at the floors, and is not charged; one that drops an owed
/// artifact that still fits is. With 20 lenient ones, 50 in all, the run
/// is within the floors however many land, and every owed one is owed.
#[test]
fn a_lenient_sibling_counts_at_its_largest_toward_the_floors() {
    let owed = |i: usize| json!({"type": "link", "payload": {"n": i}});
    let lenient = |i: usize| json!({"type": "note", "payload": {"m": i}});
    let case = |lenient_n: usize| {
        let object: serde_json::Map<String, Value> = (0..lenient_n)
            .map(|i| (i.to_string(), lenient(i)))
            .collect();
        json!({"calls": [
            {"tool_call_id": "c1", "result": {"success": true, "data": "a",
                "artifacts": (0..30).map(owed).collect::<Vec<_>>()}},
            {"tool_call_id": "c2", "result": {"success": true, "data": "b", "artifacts": object}}]})
    };
    let port = |owed_n, lenient_n| c1_after_c2(&owed, owed_n, &lenient, lenient_n);
    /// Lenient entries in the case, owed and lenient ones delivered, the
    /// clauses named and what they say.
    type Row = (
        usize,
        usize,
        usize,
        &'static [Clause],
        &'static [&'static str],
    );
    let rows: Vec<Row> = vec![
        // Over the floors together: 50 delivered leave the rest droppable.
        (25, 25, 25, &[], &[]),
        (25, 30, 0, &[], &[]),
        (25, 30, 25, &[], &[]),
        // 49 delivered: the owed ones missing still fit, and are charged.
        (
            25,
            24,
            25,
            &[RT6],
            &[
                "tool_artifacts holds 49 entries (",
                "for the run's 30 kept artifacts and 25 entries calls not of RT-TOOL-1's shape may deliver, yet",
                "artifact 24 of call c1, artifact 25 of call c1, artifact 26 of call c1 and 3 more are missing",
            ],
        ),
        (25, 29, 0, &[RT6], &["artifact 29 of call c1 is missing"]),
        // Within the floors together: every owed one, whatever lands beside.
        (20, 30, 20, &[], &[]),
        (20, 30, 0, &[], &[]),
        (
            20,
            29,
            20,
            &[C1],
            &["artifact 29 of call c1 (link {\"n\":29}) is missing"],
        ),
    ];
    for (in_case, owed_n, lenient_n, clauses, says) in rows {
        check(
            &case(in_case),
            port(owed_n, lenient_n),
            DEFAULT,
            clauses,
            says,
        );
    }
    // The same with bytes: owed payloads of 1,500,000 bytes in all, within
    // the run's 2,000,000 alone; two lenient ones of 300,000 push it over.
    let big = |_: usize| json!({"type": "blob", "payload": sized(500_000)});
    let reserved = |_: usize| json!({"type": "note", "payload": sized(300_000)});
    let bytes_case = json!({"calls": [
        {"tool_call_id": "c1", "result": {"success": true, "data": "a",
            "artifacts": (0..3).map(big).collect::<Vec<_>>()}},
        {"tool_call_id": "c2", "result": {"success": true,
            "data": {"result": "b", "artifacts": (0..2).map(reserved).collect::<Vec<_>>()}}}]});
    let delivered = |owed_n, lenient_n| c1_after_c2(&big, owed_n, &reserved, lenient_n);
    check(&bytes_case, delivered(3, 0), DEFAULT, &[], &[]);
    check(&bytes_case, delivered(2, 2), DEFAULT, &[], &[]);
    check(
        &bytes_case,
        delivered(2, 0),
        DEFAULT,
        &[RT6],
        &["artifact 2 of call c1 is missing"],
    );
}

/// RT-TOOL-6 drops an artifact whose payload does not encode, with a
/// warning; it does not alter it. So a number no IEEE double holds (`1e400`)
/// is delivered as written (in any spelling of its value) or its artifact is
/// missing, with a warning; `null` (what JavaScript's `JSON.stringify`
/// prints for infinity) or anything else in its place breaks RT-TOOL-6. A
/// number a double holds only rounded is another thing: RFC 8259 §6 lets an
/// implementation limit precision, and that is a warning.
#[test]
fn a_number_no_double_holds_is_dropped_whole_never_altered() {
    let case: Value = serde_json::from_str(
        r#"{"calls": [{"tool_call_id": "c1", "result": {"success": true, "data": null,
        "artifacts": [{"type": "n", "payload": {"huge": 1e400, "tenth": 0.1, "k": [1, -1e400]}}]}}]}"#,
    )
    .expect("json");
    let observed = |payload: &str| {
        let payload: Value = serde_json::from_str(payload).expect("json");
        json!({"messages": msgs(&[("c1", "")]), "exposed": false,
            "tool_artifacts": [{"type": "n", "payload": payload, "tool_call_id": "c1"}]})
    };
    let rounded = "precision of an IEEE double";
    let altered = "a number no IEEE double can hold, delivered as";
    let rows: &[(&str, &[Clause], &[&str])] = &[
        // As written, or spelled otherwise with the same value: conforms.
        (r#"{"huge": 1e400, "tenth": 0.1, "k": [1, -1e400]}"#, &[], &[]),
        (r#"{"k": [1.0, -10E399], "huge": 1e+400, "tenth": 1e-1}"#, &[], &[]),
        // Rounded to the nearest double where one is near: a warning.
        (
            r#"{"huge": 1e400, "tenth": 0.1000000000000000055511151231257827, "k": [1, -1e400]}"#,
            &[],
            &[rounded],
        ),
        // Something else in place of the number no double holds: RT-TOOL-6,
        // at any depth, whatever stands there.
        (
            r#"{"huge": null, "tenth": 0.1, "k": [1, -1e400]}"#,
            &[RT6],
            &["artifact 0 of call c1 with 1e+400 at /huge, a number no IEEE double can hold, delivered as null"],
        ),
        (
            r#"{"huge": 1e400, "tenth": 0.1, "k": [1, null]}"#,
            &[RT6],
            &["with -1e+400 at /k/1"],
        ),
        (
            r#"{"huge": 1.7976931348623157e308, "tenth": 0.1, "k": [1, -1e400]}"#,
            &[RT6],
            &["delivered as 1.7976931348623157e+308"],
        ),
        (r#"{"huge": "Infinity", "tenth": 0.1, "k": [1, -1e400]}"#, &[RT6], &[altered]),
        (r#"{"huge": 1e401, "tenth": 0.1, "k": [1, -1e400]}"#, &[RT6], &[altered]),
        // Whatever stands there is shown cut short.
        (
            r#"{"huge": [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40], "tenth": 0.1, "k": [1, -1e400]}"#,
            &[RT6],
            &["delivered as [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,3…: RT-TOOL-6"],
        ),
        // Alongside a rounding elsewhere, still RT-TOOL-6.
        (
            r#"{"huge": null, "tenth": 0.1000000000000000055511151231257827, "k": [1, null]}"#,
            &[RT6],
            &["at /huge"],
        ),
        // With anything else changed too, it is a changed payload (¶1).
        (
            r#"{"huge": null, "tenth": 0.2, "k": [1, -1e400]}"#,
            &[C1],
            &["differs from the artifact's at /huge"],
        ),
        (r#"{"tenth": 0.1, "k": [1, -1e400]}"#, &[C1], &[]),
        // A list cut short is changed, whatever stands for the number.
        (r#"{"huge": null, "tenth": 0.1, "k": [1]}"#, &[C1], &[]),
        // So is an object with a key more.
        (r#"{"huge": null, "tenth": 0.1, "k": [1, -1e400], "more": 1}"#, &[C1], &[]),
    ];
    for (payload, clauses, says) in rows {
        check(&case, observed(payload), DEFAULT, clauses, says);
    }
    // Dropped whole: RT-TOOL-6's own drop, a warning.
    check(
        &case,
        json!({"messages": msgs(&[("c1", "")]), "exposed": false, "tool_artifacts": []}),
        DEFAULT,
        &[],
        &["its payload holds a number no IEEE double can hold"],
    );
    // The altered one is told apart from another of its call and type that
    // encodes, whichever comes first: the other missing is ¶1.
    let two: Value = serde_json::from_str(
        r#"{"calls": [{"tool_call_id": "c1", "result": {"success": true, "data": null,
        "artifacts": [{"type": "n", "payload": {"huge": 1}}, {"type": "n", "payload": {"huge": 1e400}}]}}]}"#,
    )
    .expect("json");
    check(
        &two,
        observed(r#"{"huge": null}"#),
        DEFAULT,
        &[RT6, C1],
        &[
            "artifact 1 of call c1 with 1e+400 at /huge",
            "artifact 0 of call c1 (n {\"huge\":1}) is missing",
        ],
    );
}

#[test]
fn not_an_outcome_is_refused() {
    let case = Case::from_json(example(json!(null)).to_string().as_bytes()).expect("valid");
    for observed in [json!([]), json!("x"), json!(null)] {
        assert!(judge(&case, &observed, DEFAULT).is_err(), "{observed}");
    }
}

/// JSON compared as JSON, each row `(expected, observed, how they compare)`.
#[test]
fn json_compares_by_value() {
    use rt_tool_3::judge::{json_eq, Eq};
    let rows = [
        ("1.5", "1.5", Eq::Same),
        ("1.50", "15e-1", Eq::Same),
        ("150E-2", "1.5", Eq::Same),
        ("1e2", "100", Eq::Same),
        ("1E+2", "100.0", Eq::Same),
        ("0.0", "-0", Eq::Same),
        ("120", "1.2e2", Eq::Same),
        ("0.012", "1.2e-2", Eq::Same),
        ("12", "21", Eq::Different),
        ("1e2", "1e3", Eq::Different),
        ("-1", "1", Eq::Different),
        ("0.1", "0.10000000000000001", Eq::Lossy),
        ("9007199254740993", "9007199254740992", Eq::Lossy),
        ("1e400", "null", Eq::Different),
        ("1e400", "1e+400", Eq::Same),
        ("-1e400", "-10e399", Eq::Same),
        ("1e400", "-1e400", Eq::Different),
        ("1e400", "1e401", Eq::Different),
        ("1e400", "1.7976931348623157e308", Eq::Different),
        ("5", "null", Eq::Different),
        ("null", "5", Eq::Different),
        ("null", "null", Eq::Same),
        ("true", "true", Eq::Same),
        ("true", "false", Eq::Different),
        (r#""1""#, "1", Eq::Different),
        (r#""a""#, r#""a""#, Eq::Same),
        (r#""a""#, r#""b""#, Eq::Different),
        ("[1, 2]", "[1, 2]", Eq::Same),
        ("[1, 2]", "[2, 1]", Eq::Different),
        ("[1, 2]", "[1]", Eq::Different),
        ("[1]", "[1, 2]", Eq::Different),
        ("[]", "{}", Eq::Different),
        (r#"{"a": 1, "b": 2}"#, r#"{"b": 2.0, "a": 1}"#, Eq::Same),
        (r#"{"a": 1, "b": 2}"#, r#"{"a": 1}"#, Eq::Different),
        (r#"{"a": 1}"#, r#"{"a": 1, "b": 2}"#, Eq::Different),
        (r#"{"a": 1}"#, r#"{"b": 1}"#, Eq::Different),
        (
            r#"{"a": [1, {"b": 0.1}]}"#,
            r#"{"a": [1, {"b": 0.10000000000000001}]}"#,
            Eq::Lossy,
        ),
        (r#"{"a": [1e400, 2]}"#, r#"{"a": [null, 3]}"#, Eq::Different),
    ];
    for (expected, observed, how) in rows {
        let (e, o): (Value, Value) = (
            serde_json::from_str(expected).expect("json"),
            serde_json::from_str(observed).expect("json"),
        );
        assert_eq!(json_eq(&e, &o), how, "{expected} vs {observed}");
    }
}

/// The JSON pointer to the first difference, as `check` reports it.
#[test]
fn first_difference_points_at_it() {
    use rt_tool_3::judge::first_difference;
    let rows = [
        (r#"{"a": 1}"#, r#"{"a": 1.0}"#, None),
        (
            r#"{"a": {"b": [1, 2]}}"#,
            r#"{"a": {"b": [1, 3]}}"#,
            Some("/a/b/1"),
        ),
        (
            r#"{"a": {"b": [1, 2]}}"#,
            r#"{"a": {"b": [1]}}"#,
            Some("/a/b"),
        ),
        (
            r#"{"a/b": 1, "c~": 2}"#,
            r#"{"a/b": 1, "c~": 3}"#,
            Some("/c~0"),
        ),
        (r#"{"a/b": 1}"#, r#"{"a/b": 2}"#, Some("/a~1b")),
        (r#"{"a": 1}"#, r#"{"a": 1, "z": 2}"#, Some("/z")),
        (r#"{"a": 1, "z": 2}"#, r#"{"a": 1}"#, Some("/z")),
        (r#"{"a": 1, "b": 2}"#, r#"{"a": 1, "c": 2}"#, Some("/b")),
        (r#"{"a": 1}"#, r#"{"z": 2, "a": 1, "y": 3}"#, Some("/z")),
        (
            r#"{"b": 1, "a": [{}]}"#,
            r#"{"a": [{"x": 0}], "b": 1}"#,
            Some("/a/0/x"),
        ),
        ("[1]", r#""x""#, Some("")),
    ];
    for (expected, observed, at) in rows {
        let (e, o): (Value, Value) = (
            serde_json::from_str(expected).expect("json"),
            serde_json::from_str(observed).expect("json"),
        );
        assert_eq!(
            first_difference(&e, &o).as_deref(),
            at,
            "{expected} vs {observed}"
        );
        // The expected side as a case's compact tree holds it, as `check`
        // reads a case.
        let case = format!(r#"{{"calls": [{{"tool_call_id": "c", "result": {expected}}}]}}"#);
        let compact = rt_tool_3::wire::compact::with_case(case.as_bytes(), |case| {
            first_difference(case.calls[0].result, &o)
        });
        assert_eq!(
            compact.expect("a case").as_deref(),
            at,
            "{expected} read compact"
        );
    }
}

/// Clause ids and one-line sentences, as `check` prints them: a paragraph
/// of RT-TOOL-3 cited as the specification cites it, `RT-TOOL-3 ¶N` (never
/// `RT-TOOL-3.N`, another rule's id), and in JSON structured as well.
#[test]
fn clauses_print_their_ids() {
    let ids = [
        (
            C1,
            "RT-TOOL-3 ¶1",
            json!({"rule": "RT-TOOL-3", "paragraph": 1}),
        ),
        (
            C2,
            "RT-TOOL-3 ¶2",
            json!({"rule": "RT-TOOL-3", "paragraph": 2}),
        ),
        (
            C3,
            "RT-TOOL-3 ¶3",
            json!({"rule": "RT-TOOL-3", "paragraph": 3}),
        ),
        (
            C4,
            "RT-TOOL-3 ¶4",
            json!({"rule": "RT-TOOL-3", "paragraph": 4}),
        ),
        (
            RT2,
            "RT-TOOL-2",
            json!({"rule": "RT-TOOL-2", "paragraph": null}),
        ),
        (
            RT6,
            "RT-TOOL-6",
            json!({"rule": "RT-TOOL-6", "paragraph": null}),
        ),
        (P, "protocol", json!({"rule": null, "paragraph": null})),
    ];
    assert_eq!(Clause::ALL.len(), ids.len(), "every clause is listed here");
    // Each clause says what it asks in words of its own.
    let titles: std::collections::BTreeSet<&str> = Clause::ALL.iter().map(|c| c.title()).collect();
    assert_eq!(titles.len(), Clause::ALL.len(), "{titles:?}");
    assert!(
        titles.iter().all(|t| t.split(' ').count() >= 4),
        "{titles:?}"
    );
    // A reading's name is how `--prose` and the JSON spell it.
    for mode in [ProseMode::DataOnly, ProseMode::Letter, ProseMode::Exact] {
        assert_eq!(serde_json::to_value(mode).expect("json"), mode.name());
    }
    for (clause, id, cite) in ids {
        assert_eq!(clause.id(), id);
        assert_eq!(clause.to_string(), id);
        assert_eq!(serde_json::to_value(clause).expect("json"), id);
        assert_eq!(
            serde_json::from_value::<Clause>(json!(id)).expect("reads back"),
            clause
        );
        let code = *Code::ALL
            .iter()
            .find(|c| c.clause() == clause && !c.warning())
            .expect("every clause has a code");
        let v = rt_tool_3::judge::Violation::new(code, Place::call(1), "what".into());
        assert_eq!(v.clause, clause);
        assert_eq!(v.to_string(), format!("{id} [{code}]: what"));
        assert_eq!(
            serde_json::to_value(&v).expect("json"),
            json!({"clause": id, "cite": cite, "code": code.name(), "place": {"call": 1}, "message": "what"})
        );
    }
    let case = Case::from_json(example(json!(null)).to_string().as_bytes()).expect("valid");
    let err = judge(&case, &json!([1]), DEFAULT).expect_err("not an outcome");
    assert_eq!(err.to_string(), "the outcome is an array, not an object");
}

/// Which pool entry a wrong entry uses up decides what is reported missing:
/// each row must name exactly one violation, however the entries are ordered.
#[test]
fn a_wrong_entry_uses_up_its_own_artifact() {
    let case = json!({"calls": [
        {"tool_call_id": "c1", "result": {"success": true, "data": "x", "artifacts": [
            {"type": "link", "payload": {"url": "https://a.example/A"}},
            {"type": "file", "payload": {"name": "b.txt"}}]}},
        {"tool_call_id": "c2", "result": {"success": true, "data": "y", "artifacts": [
            {"type": "note", "payload": {"n": 1}},
            {"type": "note", "payload": {"n": 2}}]}}]});
    let ok = msgs(&[("c1", "x"), ("c2", "y")]);
    let a = |id: &str| json!({"type": "link", "payload": {"url": "https://a.example/A"}, "tool_call_id": id});
    let b = |id: &str| json!({"type": "file", "payload": {"name": "b.txt"}, "tool_call_id": id});
    let n = |k: u8, id: &str| json!({"type": "note", "payload": {"n": k}, "tool_call_id": id});
    let changed_b = json!({"type": "file", "payload": {"name": "B.txt"}, "tool_call_id": "c1"});
    let rows: Vec<(Value, &str)> = vec![
        (
            json!([b("c9"), a("c1"), n(1, "c2"), n(2, "c2")]),
            "tool_artifacts[0] carries tool_call_id \"c9\"",
        ),
        (
            json!([n(2, "c1"), a("c1"), b("c1"), n(1, "c2")]),
            "artifact 1 of call c2 carries tool_call_id c1",
        ),
        (
            json!([changed_b, a("c1"), n(1, "c2"), n(2, "c2")]),
            "(call c1, type file) has a payload that differs",
        ),
        (
            json!([a("c1"), n(1, "c2"), n(2, "c2")]),
            "artifact 1 of call c1 (file",
        ),
        (
            json!([a("c1"), b("c1"), n(2, "c2")]),
            "artifact 0 of call c2 (note",
        ),
    ];
    for (artifacts, says) in rows {
        check(
            &case,
            json!({"messages": ok, "exposed": false, "tool_artifacts": artifacts}),
            DEFAULT,
            &[C1],
            &[says],
        );
    }
}

/// A string found in data and in an artifact may reach the prose, even one
/// that JSON escapes (quotes, a line break), which only the raw strings show.
#[test]
fn a_string_in_data_is_not_a_leak_however_it_is_escaped() {
    let said = "say \"hi there\"\nand go";
    let case = json!({"calls": [{"tool_call_id": "c1", "result": {"success": true, "data": {"notes": [said], "n": 1},
        "artifacts": [{"type": "text", "payload": {"text": said}}]}}]});
    let art = json!({"type": "text", "payload": {"text": said}, "tool_call_id": "c1"});
    let observed = json!({"messages": msgs(&[("c1", &format!("note: {said}"))]), "exposed": false, "tool_artifacts": [art]});
    check(&case, observed.clone(), DEFAULT, &[], &[]);
    // The artifact's key first: the string is met in the artifact before
    // the data, so the data's own strings (not its JSON, where the string
    // is escaped) are what excuse it, inside an object and an array.
    let case = json!({"calls": [{"tool_call_id": "c1", "result": {
        "artifacts": [{"type": "text", "payload": {"text": said}}],
        "success": true, "data": {"notes": [said], "n": 1}}}]});
    check(&case, observed, DEFAULT, &[], &[]);
}

/// Lists compared as multisets (clause 4 across exposures): same entries,
/// same counts, any order.
#[test]
fn multisets_compare_counts_not_order() {
    use rt_tool_3::judge::same_multiset;
    let v = |text: &str| -> Vec<Value> { serde_json::from_str(text).expect("json") };
    assert!(same_multiset(&v("[1, 2, 2]"), &v("[2, 1, 2.0]")));
    assert!(same_multiset(&v("[]"), &v("[]")));
    assert!(!same_multiset(&v("[1, 2, 2]"), &v("[1, 1, 2]")));
    assert!(!same_multiset(&v("[1, 2]"), &v("[1, 2, 2]")));
    assert!(!same_multiset(&v("[1, 2, 2]"), &v("[1, 2]")));
    assert!(!same_multiset(&v(r#"[{"a": 1}]"#), &v(r#"[{"a": 2}]"#)));
}

/// Two calls return the same artifact, one of them failed: the entry is
/// read as whichever explains it, so a mislabelled artifact of the call
/// that succeeded is ¶1, and the failed call's copy delivered beside it is
/// RT-TOOL-2.
#[test]
fn the_same_artifact_from_two_calls_is_read_as_what_explains_it() {
    let case = json!({"calls": [
        {"tool_call_id": "c1", "result": {"success": false, "data": "a", "artifacts": [{"type": "image", "payload": {}}]}},
        {"tool_call_id": "c2", "result": {"success": true, "data": "b", "artifacts": [{"type": "image", "payload": {}}]}}]});
    let image = |id: &str| json!({"type": "image", "payload": {}, "tool_call_id": id});
    let observed = |arts: Value| json!({"messages": msgs(&[("c1", "a"), ("c2", "b")]), "exposed": false, "tool_artifacts": arts});
    check(
        &case,
        observed(json!([image("c1")])),
        DEFAULT,
        &[C1],
        &["artifact 0 of call c2 carries tool_call_id c1"],
    );
    check(
        &case,
        observed(json!([image("c2"), image("c1")])),
        DEFAULT,
        &[RT2],
        &["tool_artifacts[1] is entry 0 of call c1's artifacts, which RT-TOOL-2 drops: the call failed"],
    );
    check(
        &case,
        observed(json!([image("c2"), image("c2")])),
        DEFAULT,
        &[C1],
        &["tool_artifacts[1] repeats artifact 0 of call c2"],
    );
    // Two failed calls return it, and it comes under a third call's id:
    // the first call that returned it is named.
    let three = json!({"calls": [
        {"tool_call_id": "c1", "result": {"success": false, "data": "a", "artifacts": [{"type": "image", "payload": {}}]}},
        {"tool_call_id": "c2", "result": {"success": false, "data": "b", "artifacts": [{"type": "image", "payload": {}}]}},
        {"tool_call_id": "c3", "result": {"success": true, "data": "c"}}]});
    check(
        &three,
        json!({"messages": msgs(&[("c1", "a"), ("c2", "b"), ("c3", "c")]), "exposed": false, "tool_artifacts": [image("c3")]}),
        DEFAULT,
        &[RT2],
        &["tool_artifacts[0] is entry 0 of call c1's artifacts, under call c3's id, which RT-TOOL-2 drops"],
    );
}

/// An entry is about the call whose id it carries. Under `c2`'s id, a
/// link whose payload is failed call `c1`'s is `c2`'s own link with its
/// payload changed (¶1, charged to `c2`, its link used up), not `c1`'s
/// artifact delivered (RT-TOOL-2), which the entry does not claim; so is a
/// link whose payload is successful `c1`'s, delivered already. Only when
/// `c2` misses nothing of the entry's type is it `c1`'s, said under whose
/// id it came.
#[test]
fn an_entry_is_charged_to_the_call_it_names() {
    let case = |c1_success: bool, c2_type: &str| {
        json!({"calls": [
            {"tool_call_id": "c1", "result": {"success": c1_success, "data": "a",
                "artifacts": [{"type": "link", "payload": {"url": "https://example.com/one"}}]}},
            {"tool_call_id": "c2", "result": {"success": true, "data": "b",
                "artifacts": [{"type": c2_type, "payload": {"url": "https://example.com/two"}}]}}]})
    };
    let one = |id: &str| json!({"type": "link", "payload": {"url": "https://example.com/one"}, "tool_call_id": id});
    let two = |t: &str| json!({"type": t, "payload": {"url": "https://example.com/two"}, "tool_call_id": "c2"});
    let observed = |arts: Value| json!({"messages": msgs(&[("c1", "a"), ("c2", "b")]), "exposed": false, "tool_artifacts": arts});
    const ALTERED: &[&str] =
        &["tool_artifacts[0] (call c2, type link) has a payload that differs from the artifact's at /url"];
    let rows: Vec<(Value, Value, &[Clause], &[&str])> = vec![
        (case(false, "link"), observed(json!([one("c2")])), &[C1], ALTERED),
        (
            case(true, "link"),
            observed(json!([one("c2"), one("c1")])),
            &[C1],
            ALTERED,
        ),
        // `c2` has no link left to explain it: `c1`'s, under `c2`'s id.
        (
            case(false, "file"),
            observed(json!([one("c2"), two("file")])),
            &[RT2],
            &["tool_artifacts[0] is entry 0 of call c1's artifacts, under call c2's id, which RT-TOOL-2 drops: the call failed"],
        ),
        (
            case(false, "link"),
            observed(json!([two("link"), one("c2")])),
            &[RT2],
            &["tool_artifacts[1] is entry 0 of call c1's artifacts, under call c2's id, which RT-TOOL-2 drops"],
        ),
        // A kept artifact of `c1`, missing, under `c2`'s id: `c1`'s.
        (
            case(true, "link"),
            observed(json!([one("c2"), two("link")])),
            &[C1],
            &["artifact 0 of call c1 carries tool_call_id c2"],
        ),
    ];
    for (case, observed, clauses, says) in rows {
        check(&case, observed, DEFAULT, clauses, says);
    }
    // Its place is `c2`'s link, the first entry's.
    let failed = Case::from_json(case(false, "link").to_string().as_bytes()).expect("valid");
    let judgement = judge(&failed, &observed(json!([one("c2")])), DEFAULT).expect("an outcome");
    let found: Vec<(Code, &Place)> = (judgement.violations.iter())
        .map(|v| (v.code, &v.place))
        .collect();
    let place = Place {
        call: Some(1),
        artifact: Some(0),
        ..Place::entry(0, "/payload/url")
    };
    assert_eq!(found, [(Code::PayloadAltered, &place)]);
}

/// What explains an entry does not depend on where it sits on the port: a
/// failed call's artifact delivered before a successful call's equal one,
/// itself delivered, is the failed call's own (RT-TOOL-2), not the
/// successful call's mislabelled and then repeated (¶1). Found by
/// `serve --fault error-means-failure` on seed 1, which was cited ¶1.
#[test]
fn an_entry_is_explained_whatever_its_place_on_the_port() {
    let case = json!({"calls": [
        {"tool_call_id": "c1", "result": {"success": false, "data": "a", "artifacts": [{"type": "image", "payload": {}}]}},
        {"tool_call_id": "c2", "result": {"success": true, "data": "b", "artifacts": [{"type": "image", "payload": {}}]}}]});
    let image = |id: &str| json!({"type": "image", "payload": {}, "tool_call_id": id});
    check(
        &case,
        json!({"messages": msgs(&[("c1", "a"), ("c2", "b")]), "exposed": false,
            "tool_artifacts": [image("c1"), image("c2")]}),
        DEFAULT,
        &[RT2],
        &["tool_artifacts[0] is entry 0 of call c1's artifacts, which RT-TOOL-2 drops: the call failed"],
    );
}

/// Each call's prose, as `diff` reads it from an outcome: matched by
/// `tool_call_id`, whatever the order; none for a call without a message
/// or with a content that is not a string.
#[test]
fn contents_are_matched_to_calls_by_id() {
    let case = Case::from_json(
        br#"{"calls": [{"tool_call_id": "a", "result": {}}, {"tool_call_id": "b", "result": {}},
                       {"tool_call_id": "c", "result": {}}, {"tool_call_id": "d", "result": {}}]}"#,
    )
    .expect("valid");
    let outcome = json!({"messages": [
        {"tool_call_id": "c", "content": "for c"},
        {"tool_call_id": "a", "content": "for a"},
        {"tool_call_id": "b", "content": 7}]});
    assert_eq!(
        rt_tool_3::judge::contents(&outcome, &case.calls),
        [Some("for a"), None, Some("for c"), None]
    );
    assert_eq!(
        rt_tool_3::judge::contents(&json!({}), &case.calls),
        [None, None, None, None]
    );
}

/// What one call's prose may not draw on includes another call's bare
/// result; another call's `success` flag is no leak source (a runtime's own
/// words such as "completed" may say the same).
#[test]
fn leak_sources_across_calls() {
    let case = json!({"calls": [
        {"tool_call_id": "c1", "result": {"success": true, "data": "ok"}},
        {"tool_call_id": "c2", "result": "Bare string result of c2"},
        {"tool_call_id": "c3", "result": {"success": "completed", "data": "fine"}}]});
    let observed = |c1: &str| json!({"messages": msgs(&[("c1", c1), ("c2", ""), ("c3", "fine")]), "exposed": false, "tool_artifacts": []});
    check(
        &case,
        observed("ok: Bare string result of c2"),
        DEFAULT,
        &[C3],
        &["found only in the result of call c2"],
    );
    check(&case, observed("ok (completed)"), DEFAULT, &[], &[]);
}

/// An entry no reference artifact explains claims the reference artifact it
/// most resembles, so the one reported missing is the right one: the ghost
/// id's entry is `c1`'s note, the link and the file are what is missing; a
/// sibling's id on `c1`'s file leaves `c1`'s link missing; a link of `c1`
/// with another payload is `c1`'s other link, changed, and nothing is
/// missing.
#[test]
fn what_explains_an_entry_is_not_reported_missing_too() {
    let art = |t: &str, p: Value| json!({"type": t, "payload": p});
    let case = |calls: Value| json!({"calls": calls});
    let on = |a: &Value, id: &str| {
        let mut a = a.clone();
        a["tool_call_id"] = json!(id);
        a
    };
    let (link, file, note) = (
        art("link", json!({"url": "u1"})),
        art("file", json!({"name": "f"})),
        art("note", json!({"n": 1})),
    );
    let one = case(
        json!([{"tool_call_id": "c1", "result": {"success": true, "data": "made",
        "artifacts": [link, file, note]}}]),
    );
    check(
        &one,
        json!({"messages": msgs(&[("c1", "made")]), "tool_artifacts": [on(&note, "ghost")], "exposed": false}),
        DEFAULT,
        &[C1, C1, C1],
        &[
            "which is no call",
            "artifact 0 of call c1 (link",
            "artifact 1 of call c1 (file",
        ],
    );
    let two = case(json!([
        {"tool_call_id": "c1", "result": {"success": true, "data": "a", "artifacts": [link, file]}},
        {"tool_call_id": "c2", "result": {"success": true, "data": "b", "artifacts": [note]}},
    ]));
    check(
        &two,
        json!({"messages": msgs(&[("c1", "a"), ("c2", "b")]),
            "tool_artifacts": [on(&note, "c2"), on(&file, "c2")], "exposed": false}),
        DEFAULT,
        &[C1, C1],
        &[
            "artifact 1 of call c1 carries tool_call_id c2",
            "artifact 0 of call c1 (link",
        ],
    );
    let other = art("link", json!({"url": "u2"}));
    let links = case(
        json!([{"tool_call_id": "c1", "result": {"success": true, "data": "made",
        "artifacts": [link, other]}}]),
    );
    check(
        &links,
        json!({"messages": msgs(&[("c1", "made")]),
            "tool_artifacts": [on(&link, "c1"), on(&art("link", json!({"url": "u3"})), "c1")], "exposed": false}),
        DEFAULT,
        &[C1],
        &["has a payload that differs"],
    );
}

/// An artifact that landed under its own call and lands again under a
/// sibling's id, where the sibling has nothing of its type, is that
/// artifact carrying the sibling's id: the repeat is traced to the call
/// whose artifact it is (here not the pool's first), not left unexplained.
#[test]
fn a_repeat_under_a_siblings_id_is_traced_to_its_call() {
    let art = |t: &str, p: Value| json!({"type": t, "payload": p});
    let on = |a: &Value, id: &str| {
        let mut a = a.clone();
        a["tool_call_id"] = json!(id);
        a
    };
    let (note, link, file) = (
        art("note", json!({"n": 0})),
        art("link", json!({"url": "u1"})),
        art("file", json!({"name": "f"})),
    );
    let case = json!({"calls": [
        {"tool_call_id": "c0", "result": {"success": true, "data": "z", "artifacts": [note]}},
        {"tool_call_id": "c1", "result": {"success": true, "data": "a", "artifacts": [link]}},
        {"tool_call_id": "c2", "result": {"success": true, "data": "b", "artifacts": [file]}},
    ]});
    check(
        &case,
        json!({"messages": msgs(&[("c0", "z"), ("c1", "a"), ("c2", "b")]),
            "tool_artifacts": [on(&note, "c0"), on(&link, "c1"), on(&link, "c2"), on(&file, "c2")],
            "exposed": false}),
        DEFAULT,
        &[C1],
        &["artifact 0 of call c1 carries tool_call_id c2"],
    );
}

// ---------------------------------------------------------------------------
// The leak scan, candidates longer than its window
//
// The scan's automaton holds the first 64 bytes of each candidate string (its
// window); a longer candidate is found where its window is met and compared
// there in place, remembering how far it agreed so that a text that repeats
// is not compared again at each repeat. Whatever the lengths, the scan must
// find exactly what a substring search finds: these tests state that with
// `str::contains`, on the two texts the scan reads, a call's prose (read in
// place) and what the call may draw on (fed in pieces).

/// A case of two calls: `c1` returns `own`, `c2` returns the strings
/// `others` as its data, each a leak if `c1`'s prose holds it.
fn two_calls_of(own: Value, others: &[String]) -> Case {
    let case = json!({"calls": [
        {"tool_call_id": "c1", "result": {"success": true, "data": own}},
        {"tool_call_id": "c2", "result": {"success": true, "data": others}}]});
    Case::from_json(case.to_string().as_bytes()).expect("valid case")
}

/// The ¶3 violations of `c1`'s prose `prose`, where `c2` returns `others`.
fn leaks_of_c1(others: &[String], prose: &str) -> Vec<String> {
    let case = two_calls_of(json!("ok"), others);
    let observed = json!({"messages": msgs(&[("c1", prose), ("c2", "")]),
        "exposed": false, "tool_artifacts": []});
    let judgement = judge(&case, &observed, DEFAULT).expect("an outcome object");
    judgement
        .violations
        .iter()
        .filter(|v| v.clause == C3)
        .map(|v| v.message.clone())
        .collect()
}

/// Whether a string is long enough to be a leak (¶3, 8 characters).
fn candidate(s: &str) -> bool {
    s.chars().count() >= rt_tool_3::judge::LEAK_MIN_CHARS
}

/// `c1`'s prose `prose` against `c2`'s strings `others`: the judge names
/// as leaks every string of `others` long enough to be one that the prose
/// contains, each once, in the order `c2` returns them (¶3: each is a
/// string found only outside `c1`'s data), and none if it contains none.
fn leaks_are_what_the_prose_contains(others: &[String], prose: &str) {
    let mut leaked: Vec<&String> = Vec::new();
    for s in others {
        if candidate(s) && prose.contains(s.as_str()) && !leaked.contains(&s) {
            leaked.push(s);
        }
    }
    let said: Vec<String> = leaked
        .into_iter()
        .map(|s| {
            format!(
                "the prose of call c1 contains {}, found only in the data of call c2: a call's prose comes from its own data alone",
                quoted(s)
            )
        })
        .collect();
    assert_eq!(leaks_of_c1(others, prose), said, "{others:?} in {prose:?}");
}

/// A leaked string as the message quotes it: whole up to 512 bytes, else
/// its first 64 characters and its length in bytes.
fn quoted(s: &str) -> String {
    match s.char_indices().nth(64) {
        Some((cut, _)) if s.len() > 512 => format!("{:?}…[{} bytes]", &s[..cut], s.len()),
        _ => format!("{s:?}"),
    }
}

/// `c1`'s data the strings `own` against `c2`'s strings `others`: what
/// `c1`'s prose may not contain is each of `others` that no string of
/// `own` contains (once for each time `c2` returns it).
fn candidates_are_what_the_data_lacks(others: &[String], own: &[String]) {
    let case = two_calls_of(json!(own), others);
    let found = rt_tool_3::judge::leak_candidates(&case, ProseMode::DataOnly);
    let expected: Vec<(String, String)> = others
        .iter()
        .filter(|s| candidate(s) && !own.iter().any(|o| o.contains(*s)))
        .map(|s| (s.clone(), "the data of call c2".to_string()))
        .collect();
    assert_eq!(found[0], expected, "{others:?} against {own:?}");
}

/// Short pieces of text: one or two letters, a letter of two bytes and one
/// of three (so windows and comparisons cut characters), a NUL (which the
/// scan joins the pieces it reads with).
fn token() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["a", "b", "ab", "é", "€", "\u{0}"])
}

/// What an automaton that lands off after a jump over a repeat of `unit`
/// would read, for each place in the unit the jump could start from: the
/// eight bytes up to that place, then, landed two bytes early or one late,
/// eight bytes from there on; those that are UTF-8. A repeat of a unit of
/// three bytes or more does not hold most of them, so a scan that lands
/// off names one the prose lacks.
fn off_by(unit: &[u8]) -> Vec<String> {
    let n = unit.len() as isize;
    let byte = |k: isize| unit[k.rem_euclid(n) as usize];
    (0..n)
        .flat_map(|i| [i - 1, i + 2].map(|land| (i, land)))
        .filter_map(|(i, land)| {
            let read = (i - 7..=i).chain(land..land + 8).map(byte).collect();
            String::from_utf8(read).ok()
        })
        .collect()
}

/// A string made of a unit repeated, often past the window (a repeated
/// pattern), then a tail.
fn periodic() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(token(), 1..6),
        1..60usize,
        prop::collection::vec(token(), 0..4),
    )
        .prop_map(|(unit, times, tail)| unit.concat().repeat(times) + &tail.concat())
}

/// Pieces of text made of `candidates` (whole, or cut short by one or two
/// characters, some twice running) between `noise`.
fn text_of(
    candidates: &[String],
    picks: Vec<(Index, usize, bool)>,
    noise: &[String],
) -> Vec<String> {
    let mut pieces = noise.to_vec();
    for (i, (pick, cut, twice)) in picks.into_iter().enumerate() {
        let c = pick.get(candidates);
        let end = c
            .char_indices()
            .rev()
            .nth(cut.saturating_sub(1))
            .map_or(0, |(at, _)| at);
        let piece = if cut == 0 {
            c.clone()
        } else {
            c[..end].to_string()
        };
        let piece = if twice { piece.repeat(2) } else { piece };
        pieces.insert(i.min(pieces.len()), piece);
    }
    pieces
}

/// Pieces of a text where one window of 64 bytes recurs: the window (no
/// shift of it is itself) and a short tail, again and again, so that it is
/// met at steps that change, the repeat between two meetings holding for a
/// while and then breaking.
fn window_then_tail() -> impl Strategy<Value = String> {
    let window: String = ('A'..='Z')
        .chain('a'..='z')
        .chain('0'..='9')
        .chain(['+', '/'])
        .collect();
    let tail = prop::collection::vec(prop::sample::select(vec!["x", "y", "xy"]), 0..4);
    prop::collection::vec(tail, 1..6).prop_map(move |tails| {
        tails
            .iter()
            .map(|t| format!("{window}{}", t.concat()))
            .collect()
    })
}

use proptest::prelude::*;
use proptest::sample::Index;

// No failure is saved to a file: `.ci/mutants` runs these in place, where
// each mutant they catch would add its seed. A failure prints its shrunk
// input; make it a test of its own (as `a_long_string_cut_short_by_two_characters_is_no_leak`
// and the NUL cases of `a_string_across_two_of_a_calls_strings_is_not_excused` are).
proptest! {
    #![proptest_config(ProptestConfig {
        cases: 150,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// The leaks named in a prose are exactly the strings it contains:
    /// strings shorter and longer than the window, sharing long prefixes,
    /// overlapping and repeated in the text, cut anywhere in a character,
    /// with and without a NUL.
    #[test]
    fn the_leak_scan_finds_in_a_prose_exactly_what_it_contains(
        others in prop::collection::vec(periodic(), 1..10),
        picks in prop::collection::vec((any::<Index>(), 0..3usize, any::<bool>()), 0..8),
        noise in prop::collection::vec(periodic(), 0..4),
    ) {
        let prose = text_of(&others, picks, &noise).concat();
        leaks_are_what_the_prose_contains(&others, &prose);
    }

    /// What a call may draw on excuses exactly the strings one of its own
    /// strings contains: its data is fed to the scan in pieces, each of
    /// its strings on its own, and a string found across two of them (a
    /// NUL between them included) is not in it.
    #[test]
    fn the_leak_scan_excuses_exactly_what_a_calls_data_contains(
        others in prop::collection::vec(periodic(), 1..10),
        picks in prop::collection::vec((any::<Index>(), 0..3usize, any::<bool>()), 0..8),
        noise in prop::collection::vec(periodic(), 0..4),
    ) {
        let own = text_of(&others, picks, &noise);
        candidates_are_what_the_data_lacks(&others, &own);
    }

    /// A prose that repeats one unit for thousands of bytes between a
    /// head and a tail, against strings of that unit repeated and a tail
    /// of their own: the scan's automaton jumps over most of the repeat
    /// (`Text::periods_to_skip`), and each string is still named exactly
    /// when the prose holds it, those that run into the prose's tail
    /// included. Among them, short strings that the automaton would meet
    /// if it landed a byte or two off after a jump ([`off_by`]).
    #[test]
    fn strings_of_a_long_repeat_are_found_where_the_automaton_jumps(
        unit in prop::collection::vec(token(), 1..5),
        times in 300..900usize,
        head in prop::collection::vec(token(), 0..3),
        tail in prop::collection::vec(token(), 0..4),
        others in prop::collection::vec(
            (20..120usize, prop::collection::vec(token(), 0..4)), 1..6),
    ) {
        let unit = unit.concat();
        let prose = format!("{}{}{}", head.concat(), unit.repeat(times), tail.concat());
        let mut others: Vec<String> = others
            .into_iter()
            .map(|(n, end)| unit.repeat(n) + &end.concat())
            .collect();
        others.extend(off_by(unit.as_bytes()));
        leaks_are_what_the_prose_contains(&others, &prose);
    }

    /// A prose that repeats a unit in which one window recurs at uneven
    /// steps (`ab` 32 times and more, `c`, `ab` again, `d`), so that
    /// meetings of it differ from one period to the next, against pieces
    /// of that repeat and pieces with their last byte changed: each is
    /// named exactly when the prose holds it, where the automaton jumps.
    #[test]
    fn strings_of_a_repeat_met_at_uneven_steps_are_found_where_the_automaton_jumps(
        (first, second) in (32..48usize, 32..48usize),
        times in 60..160usize,
        tail in prop::collection::vec(token(), 0..3),
        pieces in prop::collection::vec((0..400usize, 64..400usize, any::<bool>()), 1..6),
    ) {
        let unit = format!("{}c{}d", "ab".repeat(first), "ab".repeat(second));
        let repeat = unit.repeat(times);
        let prose = format!("{repeat}{}", tail.concat());
        let others: Vec<String> = pieces
            .into_iter()
            .map(|(start, len, changed)| {
                let piece = &repeat[start..start + len];
                if changed {
                    format!("{}e", &piece[..len - 1])
                } else {
                    piece.to_string()
                }
            })
            .collect();
        leaks_are_what_the_prose_contains(&others, &prose);
    }

    /// Strings that start with one window, in a prose that meets that
    /// window again and again at steps that change: each string is named
    /// exactly when the prose holds it.
    #[test]
    fn strings_of_one_window_are_found_wherever_it_recurs(
        others in prop::collection::vec(window_then_tail(), 1..8),
        prose in prop::collection::vec(window_then_tail(), 1..6),
    ) {
        leaks_are_what_the_prose_contains(&others, &prose.concat());
    }
}

/// Every shift of a long periodic string against a periodic prose, every
/// length around the window (64 bytes): found exactly when it occurs.
#[test]
fn periodic_strings_around_the_window_are_found_exactly() {
    let unit = "ab€";
    let prose = unit.repeat(60) + "b" + &unit.repeat(30);
    let long = unit.repeat(80);
    let mut others = Vec::new();
    for start in 0..unit.len() {
        for len in (60..72).chain([128, 150]) {
            let end = (start + len).min(long.len());
            if let Some(s) = long.get(start..end) {
                others.push(s.to_string());
                others.push(s.to_string() + "b");
                others.push(s.to_string() + "x");
            }
        }
    }
    assert!(others.iter().any(|s| s.len() > 64 && prose.contains(s)));
    assert!(others.iter().any(|s| s.len() > 64 && !prose.contains(s)));
    leaks_are_what_the_prose_contains(&others, &prose);
    candidates_are_what_the_data_lacks(&others, &[prose]);
}

/// A string of NULs and letters longer than the window, in a prose that
/// holds all of it but its last two characters (a case proptest found).
#[test]
fn a_long_string_cut_short_by_two_characters_is_no_leak() {
    let s = "abab\u{0}\u{0}".repeat(11);
    let prose = format!("\u{0}a{}", &s[..s.len() - 2]);
    leaks_are_what_the_prose_contains(std::slice::from_ref(&s), &prose);
    leaks_are_what_the_prose_contains(std::slice::from_ref(&s), &format!("{prose}\u{0}\u{0}"));
}

/// A prose that breaks the repeat of a long string's window just where
/// one string stops agreeing and another goes on: each string is found
/// exactly where it occurs whole, whichever place it first agreed at.
#[test]
fn strings_sharing_a_window_are_found_where_the_repeat_breaks() {
    let w = "0123456789abcdef".repeat(4); // one window, 64 bytes
    let others: Vec<String> = ["x", "xy", "xyz", "y", "yy", "z"]
        .iter()
        .map(|tail| format!("{w}{tail}"))
        .collect();
    for prose in [
        format!("{w}x{w}y{w}xy{w}z"),
        format!("{w}{w}xyz{w}yy"),
        format!("{w}xy {w}xy{w}yy{w}x"),
        format!("{w}{w}{w}y{w}y{w}yy"),
    ] {
        leaks_are_what_the_prose_contains(&others, &prose);
        candidates_are_what_the_data_lacks(&others, &[prose]);
    }
}

/// What a call may draw on is fed to the scan in pieces, each of its
/// data's renderings and strings, read 64 KiB at a time when no candidate
/// is longer than the window. A longer one is compared where its window
/// is met, in a text whose renderings of a 100,000-byte string each hold
/// it again: one string held whole is excused, one that stops agreeing
/// after 1,000 bytes is not.
#[test]
fn a_data_past_64_kib_excuses_the_long_strings_it_holds() {
    let own = "lorem ipsum dolor ".repeat(5_600);
    let held = own[50_000..51_000].to_string();
    let near = format!("{}#", &own[..1_000]);
    let short = own[70_000..70_030].to_string();
    let others = [held, near, short, "not in it at all".to_string()];
    candidates_are_what_the_data_lacks(&others, &[own]);
}

/// What a call may draw on is each of its strings, not two of them run
/// together: a string that spans the end of one and the start of the next,
/// with a NUL between them or not, is no string of its data, in a data
/// read in one piece or in several of 64 KiB.
#[test]
fn a_string_across_two_of_a_calls_strings_is_not_excused() {
    for filler in [10, 70_000] {
        let own = [
            format!("{}abcdefgh", "-".repeat(filler)),
            "ijklmnop".to_string(),
        ];
        let others = [
            "efgh\u{0}ijklmnop".to_string(),
            "efghijklmnop".to_string(),
            "fgh\u{0}ijkl".to_string(),
            "\u{0}ijklmnop".to_string(),
            "ijklmnop\u{0}".to_string(),
            "-abcdefgh".to_string(),
        ];
        candidates_are_what_the_data_lacks(&others, &own);
    }
}

/// A call's prose may name the call's own id: a string of another call's
/// data that the id holds is no leak in that prose, and is one in another
/// call's.
#[test]
fn a_prose_may_name_its_own_calls_id() {
    let case = json!({"calls": [
        {"tool_call_id": "search-2026-0001", "result": {"success": true, "data": "ok"}},
        {"tool_call_id": "c2", "result": {"success": true, "data": ["2026-0001", "search-2026-0001"]}},
        {"tool_call_id": "c3", "result": {"success": true, "data": "fine"}}]});
    let prose = "ok (search-2026-0001)";
    let observed = json!({"messages": msgs(&[("search-2026-0001", prose), ("c2", ""), ("c3", "")]),
        "exposed": false, "tool_artifacts": []});
    check(&case, observed, DEFAULT, &[], &[]);
    let observed = json!({"messages": msgs(&[("search-2026-0001", "ok"), ("c2", ""), ("c3", prose)]),
        "exposed": false, "tool_artifacts": []});
    check(
        &case,
        observed,
        DEFAULT,
        &[C3, C3],
        &[
            "the prose of call c3 contains \"2026-0001\", found only in the data of call c2",
            "the prose of call c3 contains \"search-2026-0001\", found only in the data of call c2",
        ],
    );
}

/// A number no double holds with something else in its place is RT-TOOL-6
/// only when nothing else differs: an array one element shorter or longer,
/// or an object with a key more, is another payload, not that one with a
/// number replaced.
#[test]
fn a_number_replaced_is_told_from_a_payload_of_another_shape() {
    use rt_tool_3::judge::unencodable_replaced;
    let huge: Value = serde_json::from_str("1e400").expect("a number");
    let replaced = |expected: Value, observed: Value| unencodable_replaced(&expected, &observed);
    assert_eq!(
        replaced(json!([huge, 1]), json!([null, 1])).as_deref(),
        Some("/0")
    );
    assert_eq!(replaced(json!([huge, 1]), json!([null])), None);
    assert_eq!(replaced(json!([huge]), json!([null, 1])), None);
    assert_eq!(
        replaced(json!({"n": huge, "m": 1}), json!({"n": null, "m": 1})).as_deref(),
        Some("/n")
    );
    assert_eq!(
        replaced(json!({"n": huge}), json!({"n": null, "m": 1})),
        None
    );
    assert_eq!(
        replaced(json!({"n": huge, "m": 1}), json!({"n": null})),
        None
    );
}

/// `check` names every ¶3 leak of a call, not only the first: a prose that
/// holds two artifact strings of its call gives two violations, each with
/// the string, where it came from, and the message it is in.
#[test]
fn every_leak_of_a_call_is_named() {
    let case = json!({"calls": [
        {"tool_call_id": "c0", "result": {"success": true, "data": "zero"}},
        {"tool_call_id": "c1", "result": {"success": true, "data": "done",
        "artifacts": [
            {"type": "link", "payload": {"url": "https://example.com/secret-1"}},
            {"type": "note", "payload": {"text": "a second secret string"}}]}}]});
    let prose = "done: https://example.com/secret-1 and a second secret string";
    let arts = json!([
        {"type": "link", "payload": {"url": "https://example.com/secret-1"}, "tool_call_id": "c1"},
        {"type": "note", "payload": {"text": "a second secret string"}, "tool_call_id": "c1"}]);
    let observed = json!({"messages": msgs(&[("c0", "zero"), ("c1", prose)]),
        "exposed": false, "tool_artifacts": arts});
    check(
        &case,
        observed.clone(),
        DEFAULT,
        &[C3, C3],
        &[
            "the prose of call c1 contains \"https://example.com/secret-1\", found only in the artifacts of call c1",
            "the prose of call c1 contains \"a second secret string\", found only in the artifacts of call c1",
        ],
    );
    let case = Case::from_json(case.to_string().as_bytes()).expect("valid");
    let judgement = judge(&case, &observed, DEFAULT).expect("an outcome object");
    let places: Vec<&Place> = judgement.violations.iter().map(|v| &v.place).collect();
    let place = Place {
        call: Some(1),
        message: Some(1),
        path: Some("/messages/1/content".into()),
        from: Some("the artifacts of call c1".into()),
        ..Place::default()
    };
    assert_eq!(places, [&place, &place]);
    assert!(judgement
        .violations
        .iter()
        .all(|v| v.code == Code::ProseLeak));
}

/// The codes are a closed list in which no two kinds of finding share one:
/// each code has its own name (kebab-case, as findings carry it), its own
/// sentence, and belongs to one clause; and each name reads back as its
/// code. `src/codes.md`, the documented list, is the list.
#[test]
fn each_kind_of_finding_has_a_code_of_its_own() {
    use std::collections::BTreeSet;
    let names: BTreeSet<&str> = Code::ALL.iter().map(|c| c.name()).collect();
    let templates: BTreeSet<&str> = Code::ALL.iter().map(|c| c.template()).collect();
    assert_eq!(names.len(), Code::ALL.len(), "two codes share a name");
    assert_eq!(
        templates.len(),
        Code::ALL.len(),
        "two codes share a sentence"
    );
    for &code in Code::ALL {
        let name = code.name();
        assert!(
            !name.is_empty()
                && name.split('-').all(|w| !w.is_empty()
                    && w.bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())),
            "{name} is not kebab-case"
        );
        assert_eq!(Code::of_name(name), Some(code));
        assert_eq!(serde_json::to_value(code).expect("json"), name);
        assert_eq!(
            serde_json::from_value::<Code>(json!(name)).expect("reads back"),
            code
        );
        // A sentence of the code's is none of another code's: the
        // template, each `…` filled with a word, fits its own code alone.
        let sentence = code.template().replace('…', "x");
        let fitting: Vec<Code> = Code::ALL
            .iter()
            .copied()
            .filter(|c| c.fits(&sentence))
            .collect();
        assert_eq!(fitting, [code], "{sentence:?}");
    }
    assert!(serde_json::from_value::<Code>(json!("no-such-code")).is_err());
    // Every clause has a kind of violation.
    for clause in Clause::ALL {
        assert!(
            Code::ALL
                .iter()
                .any(|c| c.clause() == clause && !c.warning()),
            "{clause} has no code"
        );
    }
    let committed = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/codes.md"))
        .expect("src/codes.md");
    let generated = rt_tool_3::code::markdown();
    if committed != generated {
        let fresh = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("codes.md");
        std::fs::write(&fresh, &generated).expect("the fresh list is written");
        panic!("src/codes.md is stale: cp {} src/codes.md", fresh.display());
    }
}

/// Every clause fault of `serve`, on the first cases of a generated stream,
/// judged from one outcome (as `check` does) and with siblings (as `diff`
/// does): each finding is of its code's kind ([`kinds_fit`]).
#[test]
fn the_findings_of_every_fault_fit_their_codes() {
    use clap::ValueEnum;
    use rt_tool_3::serve::{outcome, Fault};
    let mut seen = std::collections::BTreeSet::new();
    // The codes are a matter of which finding, not of size: the cases that
    // weigh more than 64 KB (a payload near RT-TOOL-6's floor) are left to
    // the tests of size, and would cost this sweep ten times its time where
    // the crate is built unoptimised (for each mutant of `.ci/mutants`).
    let light = |case: &Case| {
        let weight: usize = case
            .calls
            .iter()
            .map(|c| model::encoded_len(&c.result))
            .sum();
        weight <= 64_000
    };
    for case in rt_tool_3::gen::cases(3).filter(light).take(16) {
        for &fault in Fault::value_variants() {
            let observed = outcome(&case, Some(fault));
            for options in [
                DEFAULT,
                Options {
                    siblings: true,
                    ..DEFAULT
                },
            ] {
                let judgement = judge(&case, &observed, options).expect("an outcome object");
                kinds_fit(&judgement);
                seen.extend(judgement.violations.iter().map(|v| v.code));
            }
        }
    }
    // The sweep reaches findings of many kinds, not a few.
    assert!(seen.len() >= 12, "{seen:?}");
}

/// Each finding about an entry says where it is: the entry, the key or the
/// part of the payload at fault (a JSON Pointer into the outcome), and the
/// call and artifact it is of.
#[test]
fn each_finding_about_an_entry_names_its_place() {
    let case = json!({"calls": [
        {"tool_call_id": "c1", "result": {"success": true, "data": "one",
            "artifacts": [{"type": "link", "payload": {"url": "https://example.com/1"}}]}},
        {"tool_call_id": "c2", "result": {"success": true, "data": "two",
            "artifacts": [
                {"type": "link", "payload": {"url": "https://example.com/2"}},
                {"type": "file", "payload": {"a/b": {"n": 1}}}]}}]});
    let case = Case::from_json(case.to_string().as_bytes()).expect("valid");
    let observed = json!({"messages": msgs(&[("c1", "one"), ("c2", "two")]), "exposed": false,
        "tool_artifacts": [
            {"type": "link", "payload": {"url": "https://example.com/1"}, "tool_call_id": "c2"},
            {"type": "link", "payload": {"url": "https://example.com/2"}, "tool_call_id": "c2"},
            {"type": "link", "payload": {"url": "https://example.com/2"}, "tool_call_id": "c2"},
            {"type": "file", "payload": {"a/b": {"n": 2}}, "tool_call_id": "c2", "x~y": 1}]});
    let judgement = judge(&case, &observed, DEFAULT).expect("an outcome object");
    kinds_fit(&judgement);
    let found: Vec<(Code, &Place)> = judgement
        .violations
        .iter()
        .map(|v| (v.code, &v.place))
        .collect();
    let at = |call, artifact, entry, path: &str| Place {
        call,
        artifact,
        entry: Some(entry),
        path: Some(path.into()),
        ..Place::default()
    };
    assert_eq!(
        found,
        [
            (Code::ExtraKey, &at(None, None, 3, "/tool_artifacts/3/x~0y")),
            (
                Code::WrongCallId,
                &at(Some(0), Some(0), 0, "/tool_artifacts/0/tool_call_id")
            ),
            (
                Code::RepeatedArtifact,
                &at(Some(1), Some(0), 2, "/tool_artifacts/2")
            ),
            (
                Code::PayloadAltered,
                &at(Some(1), Some(1), 3, "/tool_artifacts/3/payload/a~1b/n")
            ),
        ],
        "{:#?}",
        judgement.violations
    );
    // A warning says its kind in brackets, a violation its clause and kind.
    let text = judgement.violations[0].to_string();
    assert!(
        text.starts_with("RT-TOOL-3 ¶1 [extra-key]: tool_artifacts[3] carries"),
        "{text}"
    );
    let case = Case::from_json(example(json!(null)).to_string().as_bytes()).expect("valid");
    let observed = json!({"messages": msgs(&[("c1", "Created node 5 (draft).")]), "exposed": false,
        "tool_artifacts": [link("c1")], "extra": 1});
    let judgement = judge(&case, &observed, DEFAULT).expect("an outcome object");
    assert!(judgement.conforms(), "{judgement:#?}");
    let warning = &judgement.warnings[0];
    assert_eq!(
        (warning.code, &warning.place),
        (
            Code::UnknownOutcomeKey,
            &Place {
                path: Some("/extra".into()),
                ..Place::default()
            }
        )
    );
    assert_eq!(
        warning.to_string(),
        "[unknown-outcome-key] the outcome has a key `extra` the contract does not define; it was ignored"
    );
}
