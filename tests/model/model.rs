//! The model's edges, exactly: RT-TOOL-6's floors at their boundaries, the
//! longest plausible encoding they are measured in, and the reference
//! rendering of each kind of `data`.

use rt_tool_3::model::{encoded_len, floors, zone, Zone, ENCODED_PER_BYTE};
use rt_tool_3::wire::Case;
use serde_json::{json, Value};

/// The longest plausible compact encoding (every non-ASCII character as
/// `\uXXXX`, `/` as `\/`), each row worked out by hand.
#[test]
fn encoded_len_is_the_longest_plausible_encoding() {
    let rows: &[(&str, usize)] = &[
        ("null", 4),
        ("true", 4),
        ("false", 5),
        ("12.50", 5),
        ("-1e+400", 7),
        (r#""""#, 2),
        (r#""a""#, 3),
        (r#""a/b""#, 6),
        (r#""a b~""#, 6),
        (r#""\"\\""#, 6),
        (r#""\n\t\r\b\f""#, 12),
        (r#""\u0001\u001f""#, 14),
        ("\"\u{7f}\"", 3),
        (r#""é""#, 8),
        (r#""€""#, 8),
        (r#""😀""#, 14),
        ("[]", 2),
        ("[1]", 3),
        ("[1,22,333]", 10),
        ("{}", 2),
        (r#"{"a":1}"#, 7),
        (r#"{"a":1,"bé":[true,null]}"#, 29),
    ];
    for (text, len) in rows {
        let value: Value = serde_json::from_str(text).expect("json");
        assert_eq!(encoded_len(&value), *len, "{text}");
    }
}

/// What the rule for one character says it costs: two bytes for the short
/// escapes (and `/`), six for another control character and for the
/// characters Go and .NET escape (`<`, `>`, `&`, `'`, `+`, the backtick),
/// one for the rest of ASCII, and six for each UTF-16 unit of anything else.
fn cost(c: char) -> usize {
    match c {
        '"' | '\\' | '/' | '\u{8}' | '\u{c}' | '\n' | '\r' | '\t' => 2,
        '<' | '>' | '&' | '\'' | '+' | '`' => 6,
        c if c < ' ' => 6,
        c if c.is_ascii() => 1,
        c => 6 * c.len_utf16(),
    }
}

/// Every Unicode scalar value, alone in a string, costs what [`cost`] says.
#[test]
fn encoded_len_of_every_character() {
    for c in (0..=0x10_ffff).filter_map(char::from_u32) {
        let value = Value::String(c.to_string());
        assert_eq!(encoded_len(&value), 2 + cost(c), "U+{:04X}", u32::from(c));
    }
}

/// Inside a run of plain ASCII, which `encoded_len` checks 32 bytes at a
/// time, every ASCII character and one of each UTF-8 length (at the edges
/// of each) costs what [`cost`] says at every place of the run: in each
/// 32-byte block, across two, and in what is left after the last.
#[test]
fn encoded_len_of_a_character_anywhere_in_a_long_string() {
    let others = [
        '\u{80}',
        'é',
        '\u{7ff}',
        '\u{800}',
        '€',
        '\u{ffff}',
        '\u{10000}',
        '😀',
        '\u{10ffff}',
    ];
    for c in (0..128u8).map(char::from).chain(others) {
        for before in 0..=100 {
            let run = format!("{}{c}{}", "x".repeat(before), "x".repeat(100 - before));
            let value = Value::String(run);
            let expected = 102 + cost(c);
            assert_eq!(
                encoded_len(&value),
                expected,
                "U+{:04X} after {before}",
                u32::from(c)
            );
        }
        let alone = Value::String(c.to_string().repeat(70));
        let expected = 2 + 70 * cost(c);
        assert_eq!(
            encoded_len(&alone),
            expected,
            "70 of U+{:04X}",
            u32::from(c)
        );
    }
}

/// `encoded_len` charges at most [`ENCODED_PER_BYTE`] for each byte of a
/// value's compact JSON (`diff` leaves a case that short unmeasured): for
/// every Unicode scalar value against the bytes it is written in; for runs
/// of the dearest ones, in a string and in a key; and for every result of
/// generated cases. `<` comes near the bound. (Cheap at opt-level 0: the
/// mutation runs build this test so, and run it for every mutant.)
#[test]
fn encoded_len_is_at_most_six_bytes_for_each_byte_written() {
    let written = |v: &Value| serde_json::to_vec(v).expect("json").len();
    let within = |v: &Value| {
        assert!(
            encoded_len(v) <= ENCODED_PER_BYTE * written(v),
            "{:.80}: {} > {ENCODED_PER_BYTE} × {}",
            v.to_string(),
            encoded_len(v),
            written(v)
        );
        encoded_len(v) as f64 / written(v) as f64
    };
    // Each character alone, its two quotes aside.
    for c in (0..=0x10_ffff).filter_map(char::from_u32) {
        let v = Value::String(c.to_string());
        let (cost, bytes) = (encoded_len(&v) - 2, written(&v) - 2);
        assert!(
            cost <= ENCODED_PER_BYTE * bytes,
            "U+{:04X}: {cost} for {bytes} bytes",
            u32::from(c)
        );
    }
    let dear = [
        '<', '>', '&', '\'', '+', '`', '/', '"', '\u{1}', 'é', '€', '😀',
    ];
    let mut dearest: f64 = 0.0;
    for c in dear {
        let run = c.to_string().repeat(64);
        dearest = dearest.max(within(&Value::String(run.clone())));
        within(&json!({ run: null }));
    }
    assert!(dearest > 5.5, "the dearest run costs {dearest} a byte");
    for case in rt_tool_3::gen::cases(4).take(150) {
        for call in &case.calls {
            within(&call.result);
        }
    }
}

fn case(payloads: &[Value]) -> Case {
    let artifacts: Vec<Value> = payloads
        .iter()
        .map(|p| json!({"type": "blob", "payload": p}))
        .collect();
    let case = json!({"calls": [{"tool_call_id": "c1", "result": {"success": true, "data": null, "artifacts": artifacts}}]});
    Case::from_json(case.to_string().as_bytes()).expect("valid")
}

/// A payload `{"s": "xx…"}` that encodes to exactly `bytes` bytes.
fn payload(bytes: usize) -> Value {
    let p = json!({"s": "x".repeat(bytes - 8)});
    assert_eq!(encoded_len(&p), bytes);
    p
}

fn lenient_because(case: &Case) -> Vec<String> {
    match zone(case) {
        Zone::Strict => Vec::new(),
        Zone::Lenient(why) => why,
    }
}

#[test]
fn rt_tool_6_floors_at_their_boundaries() {
    // Per artifact: at the floor strict, one byte over lenient.
    assert_eq!(zone(&case(&[payload(floors::PAYLOAD_BYTES)])), Zone::Strict);
    let over = lenient_because(&case(&[payload(floors::PAYLOAD_BYTES + 1)]));
    assert_eq!(over, ["call c1: kept artifact 0 encodes to up to 512001 bytes, over RT-TOOL-6's floor of 512000 per artifact"]);
    // Per run: four payloads of 500,000 bytes are at the floor; one more byte is over.
    let quarter = floors::RUN_BYTES / 4;
    assert_eq!(
        zone(&case(&[
            payload(quarter),
            payload(quarter),
            payload(quarter),
            payload(quarter)
        ])),
        Zone::Strict
    );
    let over = lenient_because(&case(&[
        payload(quarter),
        payload(quarter),
        payload(quarter),
        payload(quarter + 1),
    ]));
    assert_eq!(
        over,
        ["the run's payloads encode to up to 2000001 bytes, over RT-TOOL-6's floor of 2000000"]
    );
    // Count: 50 artifacts are at the floor; 51 are over.
    let small = vec![json!({}); floors::ARTIFACTS];
    assert_eq!(zone(&case(&small)), Zone::Strict);
    let over = lenient_because(&case(&[small, vec![json!({})]].concat()));
    assert_eq!(
        over,
        ["the run keeps 51 artifacts, over RT-TOOL-6's floor of 50"]
    );
}

#[test]
fn only_kept_artifacts_count_towards_the_floors() {
    // Dropped entries (a string payload) and a failed call's artifacts weigh nothing.
    let big = json!({"type": "blob", "payload": "x".repeat(floors::RUN_BYTES)});
    let case = json!({"calls": [
        {"tool_call_id": "c1", "result": {"success": true, "data": null, "artifacts": [big]}},
        {"tool_call_id": "c2", "result": {"success": false, "data": null,
            "artifacts": [{"type": "blob", "payload": payload(floors::PAYLOAD_BYTES + 1)}]}}]});
    let case = Case::from_json(case.to_string().as_bytes()).expect("valid");
    assert_eq!(zone(&case), Zone::Strict);
}

/// The reference rendering of each kind of `data` (`model::clause_3_prose`):
/// a string as it is, an object whose only key beside the reserved one is
/// `result` holding a string as that string, null as nothing, anything
/// else as compact JSON with every object's keys sorted and numbers in
/// their digits; the same whether the case is a `Value` tree or read
/// compact.
#[test]
fn the_reference_rendering_of_each_kind_of_data() {
    let rows = [
        ("null", ""),
        (r#""Created node 5.""#, "Created node 5."),
        (r#"{"result": "x"}"#, "x"),
        (
            r#"{"artifacts": [{"type": "t", "payload": {}}], "result": "x"}"#,
            "x",
        ),
        (r#"{"result": 5}"#, r#"{"result":5}"#),
        (
            r#"{"result": "x", "other": 1}"#,
            r#"{"other":1,"result":"x"}"#,
        ),
        (
            r#"{"b": 1, "a": [true, null, 1.50, {"d": "", "c": -0}]}"#,
            r#"{"a":[true,null,1.50,{"c":-0,"d":""}],"b":1}"#,
        ),
        (r#"[3, {"b": 2, "a": 1}]"#, r#"[3,{"a":1,"b":2}]"#),
        ("12.50", "12.50"),
        ("true", "true"),
        ("false", "false"),
        ("{}", "{}"),
    ];
    for (data, prose) in rows {
        let text = format!(
            r#"{{"calls": [{{"tool_call_id": "c1", "result": {{"success": true, "data": {data}}}}}]}}"#
        );
        let case = Case::from_json(text.as_bytes()).expect("a case");
        let tree = rt_tool_3::model::clause_3_prose(&case.calls[0]);
        assert_eq!(tree.content, prose, "{data}");
        let compact = rt_tool_3::wire::compact::with_case(text.as_bytes(), |case| {
            rt_tool_3::model::clause_3_prose(&case.calls[0])
        });
        assert_eq!(
            compact.expect("a case").content,
            prose,
            "{data} read compact"
        );
    }
}
