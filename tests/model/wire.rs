//! The wire contract's reading of a case (`src/wire.rs`, `src/wire/`), in
//! process: each row is a document and what it must come to, run through
//! one `check` helper that reads it both ways, as a tree (`Case::from_json`)
//! and the way `verdict` does (`compact::with_case`, the results in one
//! compact tree whose strings are read in place).
//!
//! A refused document must be refused by both readings in the same one-line
//! words, naming what matters (the field, the call, the reason). A read
//! document must be read by both as serde_json reads it (key order, every
//! digit, a repeated key's last value), and in a document without escapes
//! every string and key of the compact tree must lie in the document
//! itself, never copied.

use std::ops::Range;

use rt_tool_3::wire::{
    self, compact, kind, Call, Case, Held, Holds, JsonRef, Landed, Node, Refusal, ToolArtifact,
    MAX_DEPTH, RESERVED_KEY,
};
use serde_json::{json, Value};

/// What a document must come to.
#[derive(Clone, Copy)]
enum Expect<'a> {
    /// Read.
    Read,
    /// Refused in one line that says each of these fragments.
    Refused(&'a [&'a str]),
}
use Expect::{Read, Refused};

/// Reads `input` both ways and holds the readings to `expected`.
fn check(input: &str, expected: Expect) {
    let tree = Case::from_json(input.as_bytes());
    let compact = compact_reading(input);
    match expected {
        Refused(says) => {
            let refusal = tree.expect_err(&format!("refused: {input}"));
            assert_eq!(
                compact.err(),
                Some(refusal.clone()),
                "the compact reading refuses {input} in the tree's words"
            );
            let line = refusal.to_string();
            assert!(!line.contains('\n'), "one line: {line}");
            for fragment in says {
                assert!(line.contains(fragment), "{line:?} lacks {fragment:?}");
            }
        }
        Read => {
            let case = tree.unwrap_or_else(|e| panic!("{input} refused: {e}"));
            let (in_place, compact) =
                compact.unwrap_or_else(|e| panic!("the compact reading of {input} refused: {e}"));
            // The tree is serde_json's reading of the document.
            let json = serde_reading(input);
            assert_eq!(case.exposed, json["exposed"].as_bool(), "{input}");
            let calls = json["calls"].as_array().expect("calls");
            assert_eq!(case.calls.len(), calls.len(), "{input}");
            for (call, written) in case.calls.iter().zip(calls) {
                assert_eq!(call.tool_call_id, written["tool_call_id"], "{input}");
                assert_eq!(call.result, written["result"], "{input}");
            }
            // The compact reading is the tree, key order and digits too,
            // and without escapes it copies no string.
            assert_eq!(compact, case, "{input}");
            for call in &case.calls {
                found_alike(call.result.held(), &call.result);
            }
            assert_eq!(format!("{compact:?}"), format!("{case:?}"), "{input}");
            assert!(in_place || input.contains('\\'), "{input}: a string copied");
            // Written back (as `diff` writes its requests), it is the very
            // bytes serde_json writes.
            written_as_serde_writes(&case);
        }
    }
}

/// The compact reading of a case, each result written as compact JSON
/// from the compact tree itself (a key it holds twice written twice) and
/// read back; and whether every string and key of its results lies in
/// `input` itself.
fn compact_reading(input: &str) -> Result<(bool, Case), Refusal> {
    compact::with_case(input.as_bytes(), |case| {
        let within = input.as_bytes().as_ptr_range();
        let in_place = case.calls.iter().all(|c| in_place(c.result(), &within));
        let calls = case.calls.iter().map(|c| {
            let mut text = Vec::new();
            wire::write_value(&mut text, c.result());
            let result = wire::parse_value(&text).expect("JSON");
            assert_eq!(result.to_string().as_bytes(), text, "each key once");
            // Debug shows the compact JSON, as a `Value`'s Display does.
            assert_eq!(format!("{:?}", c.result()).as_bytes(), text);
            found_alike(c.result(), &result);
            Call {
                tool_call_id: c.tool_call_id.clone(),
                result,
            }
        });
        let case = Case {
            exposed: case.exposed,
            calls: calls.collect(),
        };
        (in_place, case)
    })
}

/// Every value in `v` found by its JSON pointer where `Value::pointer`
/// finds it in `tree`, the same value, and a pointer that finds nothing
/// there finding nothing in `v` either; each array and object of `v` says
/// how many items it has.
fn found_alike(v: Held<'_>, tree: &Value) {
    fn walk(v: Held<'_>, root: &Value, at: &str) {
        let here = root.pointer(at).expect("a place in the tree");
        let found = v.pointer(at).map(|x| (x.to_value(), x));
        assert_eq!(found.as_ref().map(|x| &x.0), Some(here), "{at} in {root}");
        let found = found.map(|x| x.1).expect("found");
        // What the model and the judge ask of a value, answered as a
        // `Value` answers it.
        assert_eq!(found.as_str(), here.as_str(), "{at}");
        assert_eq!(found.is_true(), here == &Value::Bool(true), "{at}");
        assert_eq!(found.is_object(), here.is_object(), "{at}");
        match found.node() {
            Node::Array(items) => assert_eq!(items.len(), items.count(), "{at}"),
            Node::Object(members) => assert_eq!(members.len(), members.count(), "{at}"),
            Node::Number(n) => assert_eq!(wire::double(n), here.as_f64(), "{at}"),
            _ => {}
        }
        match here {
            Value::Array(a) => (0..a.len()).for_each(|i| walk(v, root, &format!("{at}/{i}"))),
            Value::Object(o) => o.keys().for_each(|k| {
                let k = k.replace('~', "~0").replace('/', "~1");
                walk(v, root, &format!("{at}/{k}"));
            }),
            _ => {}
        }
    }
    walk(v, tree, "");
    for nowhere in ["x", "/", "/01", "/+1", "/-1", "/0/x/y", "/~", "/10"] {
        let found = v.pointer(nowhere).map(JsonRef::to_value);
        assert_eq!(found.as_ref(), tree.pointer(nowhere), "{nowhere} in {tree}");
    }
}

/// Whether every string and key of `v` lies within `text`; and each
/// array and object says how many items it has.
fn in_place<'a>(v: impl JsonRef<'a>, text: &Range<*const u8>) -> bool {
    match v.node() {
        Node::String(s) => text.contains(&s.as_ptr()),
        Node::Array(mut items) => {
            assert_eq!(items.len(), items.clone().count(), "an array's length");
            items.all(|v| in_place(v, text))
        }
        Node::Object(mut members) => {
            assert_eq!(members.len(), members.clone().count(), "an object's length");
            members.all(|(k, v)| text.contains(&k.as_ptr()) && in_place(v, text))
        }
        _ => true,
    }
}

/// serde_json's own reading of a JSON text, at any depth.
fn serde_reading(text: &str) -> Value {
    use serde::Deserialize;
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let value = Value::deserialize(&mut de).expect("JSON");
    de.end().expect("nothing after it");
    value
}

/// `Case::write_json` writes `case` as the very bytes serde_json writes,
/// and `Outcome::write_json` its reference outcome (which `diff` compares
/// replies with byte for byte).
fn written_as_serde_writes(case: &Case) {
    let mut ours = Vec::new();
    case.write_json(&mut ours);
    let theirs = serde_json::to_vec(case).expect("a case encodes");
    assert_eq!(
        String::from_utf8_lossy(&ours),
        String::from_utf8_lossy(&theirs)
    );
    // The same bytes with where the case, its exposure and each call's
    // `data` are in them.
    let mut spanned = b"before".to_vec();
    let spans = case.write_json_spanned(&mut spanned);
    assert_eq!(spans.whole, 6..spanned.len());
    assert_eq!(spanned[6..], theirs[..]);
    let at = |span: &std::ops::Range<usize>| {
        serde_reading(std::str::from_utf8(&spanned[span.clone()]).expect("UTF-8"))
    };
    assert_eq!(at(&spans.exposed), serde_json::json!(case.exposed));
    assert_eq!(spans.data.len(), case.calls.len());
    for (call, span) in case.calls.iter().zip(&spans.data) {
        let data = call.result.as_object().and_then(|r| r.get("data"));
        assert_eq!(span.as_ref().map(at).as_ref(), data, "{call:?}");
    }
    let mut outcome = rt_tool_3::model::outcome(case);
    let mut ours = Vec::new();
    outcome.write_json(&mut ours);
    let theirs = serde_json::to_vec(&outcome).expect("an outcome encodes");
    assert_eq!(
        String::from_utf8_lossy(&ours),
        String::from_utf8_lossy(&theirs)
    );
    // The same bytes with the span of its artifacts, which written again
    // under other messages and another exposure are that outcome's bytes.
    let mut spanned = b"before".to_vec();
    let artifacts = outcome.write_json_spanned(&mut spanned);
    assert_eq!(spanned[6..], theirs[..]);
    let array = serde_json::to_vec(&outcome.tool_artifacts).expect("encodes");
    assert_eq!(spanned[artifacts.clone()], array[1..array.len() - 1]);
    outcome.exposed = !outcome.exposed;
    outcome.messages.reverse();
    let mut copied = Vec::new();
    outcome.write_json_copying(&mut copied, &spanned[artifacts]);
    let theirs = serde_json::to_vec(&outcome).expect("an outcome encodes");
    assert_eq!(
        String::from_utf8_lossy(&copied),
        String::from_utf8_lossy(&theirs)
    );
}

/// A case of one call `c1` whose result is `result`, as written.
fn one(result: &str) -> String {
    format!(r#"{{"calls": [{{"tool_call_id": "c1", "result": {result}}}]}}"#)
}

/// A case of one successful call whose `data` is `data`, as written.
fn data(data: &str) -> String {
    one(&format!(r#"{{"success": true, "data": {data}}}"#))
}

#[test]
fn the_shape_and_its_refusals() {
    let rows: &[(&str, Expect)] = &[
        (r#"{"calls": []}"#, Read),
        (r#"{"exposed": true, "calls": []}"#, Read),
        (r#"{"exposed": false, "calls": []}"#, Read),
        (r#"{"calls": [], "exposed": null}"#, Read),
        // Not the shape.
        ("[]", Refused(&["expected a case: an object with `calls`"])),
        (
            r#"{"calls": {}}"#,
            Refused(&["expected `calls` to be an array of calls"]),
        ),
        (
            r#"{"calls": [{"tool_call_id": "a", "result": 1}, 5]}"#,
            Refused(&["expected calls[1] to be an object with `tool_call_id` and `result`"]),
        ),
        (r#"{"exposed": true}"#, Refused(&["missing field `calls`"])),
        (
            r#"{"calls": [{"result": 1}]}"#,
            Refused(&["calls[0] is missing field `tool_call_id`"]),
        ),
        (
            r#"{"calls": [{"tool_call_id": "a", "result": 1}, {"tool_call_id": "b"}]}"#,
            Refused(&["calls[1] (tool_call_id \"b\") is missing field `result`"]),
        ),
        (r#"{"calls": []} x"#, Refused(&["trailing characters"])),
        // Unknown fields, at the top and in a call.
        (
            r#"{"calls": [], "Exposed": true}"#,
            Refused(&[
                "unknown top-level field `Exposed`",
                "only `exposed` and `calls`",
            ]),
        ),
        (
            r#"{"calls": [{"tool_call_id": "a", "result": 1, "id": "b"}]}"#,
            Refused(&["calls[0] has an unknown field `id`"]),
        ),
        // A case's own fields, twice.
        (
            r#"{"exposed": true, "exposed": true, "calls": []}"#,
            Refused(&["duplicate field `exposed`"]),
        ),
        (
            r#"{"calls": [], "calls": []}"#,
            Refused(&["duplicate field `calls`"]),
        ),
        (
            r#"{"calls": [{"tool_call_id": "a", "tool_call_id": "a", "result": 1}]}"#,
            Refused(&["calls[0] has a duplicate field `tool_call_id`"]),
        ),
        (
            r#"{"calls": [{"tool_call_id": "a", "result": 1}, {"tool_call_id": "b", "result": 1, "result": 2}]}"#,
            Refused(&["calls[1] has a duplicate field `result`"]),
        ),
        // RT-TOOL-9: one id, two calls.
        (
            r#"{"calls": [{"tool_call_id": "a", "result": 1}, {"tool_call_id": "b", "result": 1}, {"tool_call_id": "a", "result": 2}]}"#,
            Refused(&[
                "calls[2] reuses tool_call_id \"a\" of calls[0]",
                "RT-TOOL-9",
            ]),
        ),
        // serde_json adds where.
        (
            "{\"calls\": [],\n \"exposed\": 1}",
            Refused(&["at line 2 column"]),
        ),
    ];
    for (input, expected) in rows {
        check(input, *expected);
    }
}

/// `exposed` and a call id name the JSON type they were given instead.
#[test]
fn a_wrong_type_is_named() {
    let values = [
        json!(null),
        json!(true),
        json!(1.5),
        json!("yes"),
        json!([]),
        json!({}),
    ];
    let names = [
        "null",
        "a boolean",
        "a number",
        "a string",
        "an array",
        "an object",
    ];
    for (value, name) in values.iter().zip(names) {
        assert_eq!(kind(value), name);
        // `exposed` may be a boolean or null, nothing else.
        let case = json!({"exposed": value, "calls": []}).to_string();
        if value.is_boolean() || value.is_null() {
            check(&case, Read);
        } else {
            let says = format!("`exposed` must be true, false or null, not {name}");
            check(&case, Refused(&[&says]));
        }
        // A call id is a string and nothing else; the second call's is named.
        let case = json!({"calls": [{"tool_call_id": "a", "result": 1},
            {"tool_call_id": value, "result": 1}]})
        .to_string();
        if value.is_string() {
            check(&case, Read);
        } else {
            let says = format!("calls[1].tool_call_id must be a string, not {name}");
            check(&case, Refused(&[&says]));
        }
    }
}

/// Results read compact as serde_json reads them: numbers with every
/// digit, whitespace, nesting, key order, a repeated key's last value where
/// its first stood (among a few keys and among many), escapes.
#[test]
fn results_read_compact_as_serde_json_reads_them() {
    let deep = format!("{}1{}", "[".repeat(40), "]".repeat(40));
    // 40 keys, each of 13 met three or four times.
    let many: Vec<String> = (0..40).map(|i| format!(r#""k{}": {i}"#, i % 13)).collect();
    let many = format!("{{{}}}", many.join(", "));
    let rows: Vec<String> = vec![
        one("12.50"),
        one(r#""text""#),
        one("null"),
        one(r#"[{"payload": {"a": 1}}]"#),
        data(r#"{ "b" : 1.0e3 , "a" : [ 1 , 2 ] }"#),
        data(r#"[ "x" , {"y": null} , "" , {} , [] ]"#),
        data(r#""prose""#),
        data("-0.0"),
        data("{}"),
        data(&deep),
        data(&many),
        data(&format!(r#"{{"x": 1, "{RESERVED_KEY}": [{{"type": "t", "payload": {{}}}}]}}"#)),
        one(r#"{"meta": {"a": 1}, "list": [1], "data": 1}"#),
        one(r#"{"data": {"first": 1}, "data": [2]}"#),
        one(r#"{"data": [1], "data": "last", "x": 0, "data": {"a": 1, "a": 2}}"#),
        one(r#"{"success": true, "data": null, "artifacts": [
                {"type": "t", "payload": {"n": 1e400, "m": 0.10, "big": 123456789012345678901234567890, "neg": -12, "max": 18446744073709551615, "min": -9223372036854775808}},
                "entry as text", 5, null, [{"payload": {"a": 1}}],
                {"type": {"k": 1}, "payload": "not an object", "extra": {"x": 1}},
                {"payload": [1, 2]},
                {"payload": {"s": "\ud83d\ude00 \"q\" \\ \/"}, "payload": {"last": true}}]}"#),
        one(r#"{"artifacts": "[{\"type\": \"t\", \"payload\": {}}]"}"#),
        one(r#"{"\u0061": "\u0062", "a": "c"}"#),
        data(r#"{"a/b": {"c~d": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, {"~1": null}]}, "": {"": 1}}"#),
        r#"{"exposed": true, "calls": [
                {"tool_call_id": "c1", "result": {"artifacts": [{"type": "a", "payload": {"i": 0}}], "data": {"i": 1}}},
                {"tool_call_id": "c2", "result": {"data": [2], "artifacts": [{"type": "b", "payload": {"i": 3}}]}}]}"#
            .to_string(),
    ];
    for input in &rows {
        check(input, Read);
    }
}

/// A lone surrogate escape in a result is refused by both readings in the
/// same words; a pair, or text that only looks like an escape, is read.
#[test]
fn a_lone_surrogate_in_a_result_is_refused() {
    let lone = &["hex escape", "must be half of a surrogate pair"];
    let rows: &[(&str, Expect)] = &[
        (r#""\ud800""#, Refused(lone)),
        (r#""\udfff""#, Refused(lone)),
        (r#""\udbff\u0041""#, Refused(lone)),
        (r#""\ud83d\ude00\udc00""#, Refused(lone)),
        (r#""\u0041\ud800""#, Refused(lone)),
        (r#""\n\ud800""#, Refused(lone)),
        (r#""\\\ud800""#, Refused(lone)),
        (r#""\ud83d\ude00""#, Read),
        (r#""\udbff\udfff \ud800\udc00""#, Read),
        (r#""\\ud800""#, Read),
        (r#""\u005cud800""#, Read),
        (r#""\"\ud83d\ude00""#, Read),
    ];
    for (string, expected) in rows {
        // In `data` and in a payload, as a value and as a key, alike.
        let places = [
            data(&format!(r#"{{"s": {string}}}"#)),
            data(&format!(r#"{{{string}: 1}}"#)),
            one(&format!(
                r#"{{"artifacts": [{{"type": "t", "payload": {{"p": [{string}]}}}}]}}"#
            )),
        ];
        for input in &places {
            check(input, *expected);
        }
    }
}

/// A `\u` escape cut short is refused with a word on what an escape takes.
#[test]
fn a_bad_escape_is_explained() {
    check(
        &one(r#""\ud800 alone""#),
        Refused(&["hex escape", "four hex digits", "\\uD800 to \\uDFFF"]),
    );
    check(&one(r#""\u12""#), Refused(&["invalid escape"]));
}

/// Nesting is bounded at `MAX_DEPTH` before anything is parsed, counting
/// only brackets outside strings, and the refusal says where.
#[test]
fn nesting_is_bounded() {
    let n = MAX_DEPTH;
    let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    // The result's own brackets under the case's three (`{`, `[`, `{`).
    check(&one(&nested(n - 3)), Read);
    check(&data(&nested(n - 4)), Read);
    let over = "nesting deeper than 512 levels";
    check(
        &one(&nested(n - 2)),
        Refused(&[over, "(the oracle's own limit)"]),
    );
    check(
        &data(&format!("{}{}", "{\"a\": ".repeat(n), "}".repeat(n))),
        Refused(&[over]),
    );
    // Where: the 513th opening, on line 3, after `"result": ` (10 bytes)
    // and 509 openings of the result's own: column 10 + 510.
    let lines = format!(
        "{{\"calls\": [\n{{\"tool_call_id\": \"a\",\n\"result\": {}}}]}}",
        nested(600)
    );
    check(&lines, Refused(&[&format!("{over} at line 3 column 520 ")]));
    // Measured before it is parsed: an unclosed run of either bracket.
    check(
        &"[".repeat(600),
        Refused(&[&format!("{over} at line 1 column 513 ")]),
    );
    check(
        &"{".repeat(600),
        Refused(&[&format!("{over} at line 1 column 513 ")]),
    );
    // Many brackets, but not deep: side by side, or inside strings
    // (after an escaped quote or another escape, or after an escaped
    // backslash).
    let side_by_side = format!("[{}]", vec!["[]"; 600].join(","));
    check(&one(&side_by_side), Read);
    check(&data(&side_by_side), Read);
    let brackets = "[{".repeat(600);
    check(&one(&format!(r#""{brackets}""#)), Read);
    check(&one(&format!(r#""\"{brackets}""#)), Read);
    check(&one(&format!(r#""\n{brackets}""#)), Read);
    let after_backslash = format!(r#"["\\", {}]"#, nested(n - 3));
    check(&one(&after_backslash), Refused(&[over]));
    // `within_depth` says so without parsing: as deep as the bound, not
    // deeper, brackets inside strings not counted.
    assert!(wire::within_depth(nested(n).as_bytes()));
    assert!(!wire::within_depth(nested(n + 1).as_bytes()));
    assert!(wire::within_depth(format!(r#"["{brackets}"]"#).as_bytes()));
}

/// Debug output speaks the domain: a call is its id and what its tool
/// returned, an artifact is its call's id and then the artifact, a case
/// says its exposure (`default` when the author left it) and its calls.
#[test]
fn debug_output_names_what_a_reader_needs() {
    let result = json!({"success": true, "data": "ok", "n": 1.50});
    let call = Call {
        tool_call_id: "call-7".into(),
        result: result.clone(),
    };
    let shown = format!("{call:?}");
    let (id, rest) = shown.split_once(" → ").expect("id → result");
    assert_eq!(id, "call-7");
    assert_eq!(serde_json::from_str::<Value>(rest).expect("JSON"), result);

    let payload = json!({"url": "https://example.com/node/5"});
    let artifact = ToolArtifact {
        kind: "link".into(),
        payload: payload.clone(),
        tool_call_id: "call-7".into(),
    };
    let shown = format!("{artifact:?}");
    let inner = shown
        .strip_prefix("call-7⟨")
        .and_then(|s| s.strip_suffix('⟩'))
        .unwrap_or_else(|| panic!("call id⟨artifact⟩: {shown}"));
    let (kind, payload_text) = inner.split_once(' ').expect("type payload");
    assert_eq!(kind, "link");
    assert_eq!(
        serde_json::from_str::<Value>(payload_text).expect("JSON"),
        payload
    );
    // The same entry borrowed from a case reads as its copy.
    let landed = Landed::from(&artifact);
    assert_eq!(format!("{landed:?}"), shown);
    assert_eq!(landed.to_artifact(), artifact);

    for (exposed, says) in [
        (Some(true), "exposed: true"),
        (Some(false), "exposed: false"),
        (None, "exposed: default"),
    ] {
        let case = Case {
            exposed,
            calls: vec![call.clone()],
        };
        let shown = format!("{case:?}");
        assert!(shown.starts_with("Case {"), "{shown}");
        assert!(shown.contains(says), "{shown} lacks {says}");
        assert!(
            shown.contains(&format!("{call:?}")),
            "{shown} lacks the call"
        );
    }

    // A reference outcome, its artifacts borrowed from the case, shows
    // its messages, its entries as the port carries them, its exposure.
    let case = Case {
        exposed: None,
        calls: vec![Call {
            tool_call_id: "call-7".into(),
            result: json!({"success": true, "data": "ok",
                "artifacts": [{"type": "link", "payload": payload}]}),
        }],
    };
    let shown = format!("{:?}", rt_tool_3::model::reference(&case));
    for part in [
        "Reference {",
        "content: \"ok\"",
        &format!("{artifact:?}"),
        "exposed: false",
    ] {
        assert!(shown.contains(part), "{shown} lacks {part}");
    }
}

/// Every character that needs an escape, and some that do not, at every
/// offset of a string up to twice the 32 bytes `write_json` looks at in one
/// go, before and after plain text: written as serde_json writes it.
#[test]
fn strings_are_written_as_serde_json_writes_them() {
    let mut specials: Vec<String> = (0u8..0x20).map(|b| char::from(b).to_string()).collect();
    specials.extend(["\"", "\\", "/", "\u{7f}", "é", "€", "😀", "a"].map(String::from));
    for special in &specials {
        for before in 0..70 {
            for after in [0, 1, 31, 33] {
                let text = format!("{}{special}{}", "p".repeat(before), "q".repeat(after));
                let twice = format!("{text}{special}");
                let values = json!([
                    twice,
                    1.5,
                    -0,
                    12345678901234567890u64,
                    null,
                    true,
                    false,
                    {},
                    []
                ]);
                written_as_serde_writes(&Case {
                    exposed: Some(before % 2 == 0),
                    calls: vec![Call {
                        tool_call_id: text.clone(),
                        result: json!({&text: values}),
                    }],
                });
                // The same strings in an artifact, and in the prose of a
                // successful call's `data`.
                written_as_serde_writes(&Case {
                    exposed: None,
                    calls: vec![Call {
                        tool_call_id: text.clone(),
                        result: json!({"success": true, "data": {&text: values},
                            "artifacts": [{"type": &text, "payload": {&text: values}}]}),
                    }],
                });
            }
        }
    }
    for calls in 0..3 {
        written_as_serde_writes(&Case {
            exposed: None,
            calls: (0..calls)
                .map(|i| Call {
                    tool_call_id: format!("c{i}"),
                    result: json!({"success": true, "data": "d"}),
                })
                .collect(),
        });
    }
}

/// `write_sorted` writes every object's keys in order, at any depth and
/// inside arrays, and everything else as serde_json writes it.
#[test]
fn sorted_rendering_sorts_every_objects_keys() {
    fn sort_all(v: &mut Value) {
        match v {
            Value::Array(a) => a.iter_mut().for_each(sort_all),
            Value::Object(o) => {
                o.sort_keys();
                o.values_mut().for_each(sort_all);
            }
            _ => {}
        }
    }
    let values = [
        json!({"b": 1, "a": [{"z": null, "y": "\n"}, {"é": 1.50, "e": -0}], "": {"k": {"2": 2, "10": 10}}}),
        json!([{"b": true, "a": false}, [], {}, "\"q\"", 12345678901234567890u64]),
        json!({"a": 1, "b": 2}),
        json!("plain"),
    ];
    for value in values {
        let mut sorted = value.clone();
        sort_all(&mut sorted);
        let (mut ours, mut as_is) = (Vec::new(), Vec::new());
        rt_tool_3::wire::write_sorted(&mut ours, &value);
        rt_tool_3::wire::write_value(&mut as_is, &value);
        assert_eq!(
            String::from_utf8_lossy(&ours),
            serde_json::to_string(&sorted).expect("encodes")
        );
        assert_eq!(
            String::from_utf8_lossy(&as_is),
            serde_json::to_string(&value).expect("encodes")
        );
    }
}

/// A reply (or an observed outcome) holding a lone surrogate escape is read,
/// not refused: each lone escape becomes a mark that no case's string holds,
/// found again, in order, with its code unit, and shown as the escape it
/// was; a pair, or text that only looks like an escape, is read as itself.
/// A document that is not JSON for another reason is still refused.
#[test]
fn a_reply_holding_a_lone_surrogate_is_read_with_the_surrogate_marked() {
    let rows: &[(&str, &[u16], &str)] = &[
        (r#""\ud800""#, &[0xd800], r"\ud800"),
        (r#""ab\ud83d""#, &[0xd83d], r"ab\ud83d"),
        (r#""\udc00x\udbff""#, &[0xdc00, 0xdbff], r"\udc00x\udbff"),
        (
            r#""\ud800\udbff\ud800""#,
            &[0xd800, 0xdbff, 0xd800],
            r"\ud800\udbff\ud800",
        ),
        (r#""\ud83d\ude00\udc00""#, &[0xdc00], "😀\\udc00"),
        (r#""ab\ud83d\ude00\udc00""#, &[0xdc00], "ab😀\\udc00"),
        (r#""\ud83d\ud83d\ude00""#, &[0xd83d], "\\ud83d😀"),
        (r#""\\\ud800""#, &[0xd800], r"\\ud800"),
        (r#""\ud83d\ude00""#, &[], "😀"),
        (r#""\\ud800""#, &[], r"\ud800"),
        (r#""\u005cud800""#, &[], r"\ud800"),
    ];
    for (text, units, shown) in rows {
        assert_eq!(
            wire::parse::<Value>(text.as_bytes()).is_err(),
            !units.is_empty(),
            "{text}: a case would be refused only for a lone surrogate"
        );
        let read: Value = wire::parse_reply(text.as_bytes()).expect("read");
        let s = read.as_str().expect("a string");
        let found: Vec<u16> = wire::lone_surrogates(s).iter().map(|(_, u)| *u).collect();
        assert_eq!(&found, units, "{text}");
        assert_eq!(wire::shown_lone(s), *shown, "{text}");
        for (at, _) in wire::lone_surrogates(s) {
            // The mark is none of what a case could have held in its place.
            let mark = &s[at];
            for other in ["\u{fffd}", r"\ud800", "\u{fffd}d800", "", "?"] {
                assert_ne!(mark, other);
                assert!(!mark.starts_with(other) || other.is_empty());
            }
        }
    }
    // Anywhere in a reply, keys included; what else it holds is kept.
    let reply: Value = wire::parse_reply(
        br#"{"seq":1,"outcome":{"messages":[{"tool_call_id":"c1","content":"x\ud83d"}],"k\udc00":1e400}}"#,
    )
    .expect("read");
    let content = reply["outcome"]["messages"][0]["content"]
        .as_str()
        .expect("a string");
    assert_eq!(wire::shown_lone(content), r"x\ud83d");
    let key = reply["outcome"]
        .as_object()
        .and_then(|o| o.keys().find(|k| k.starts_with('k')))
        .expect("the key");
    assert_eq!(wire::shown_lone(key), r"k\udc00");
    assert_eq!(reply["outcome"][key].to_string(), "1e+400");
    // Not JSON for another reason: refused, as `parse` refuses it.
    for broken in [r#"{"s": "\ud800"#, r#"{"s": "\ud800", }"#, r#""\ud80""#] {
        assert!(
            wire::parse_reply::<Value>(broken.as_bytes()).is_err(),
            "{broken}"
        );
    }
}

/// What a lone surrogate is read as: four characters of the Supplementary
/// Private Use Area-A (which no case holds) drawn from 64 random bits, then
/// U+FFFD and the unit's four hex digits, then the four characters again.
#[test]
fn a_lone_mark_is_the_unit_between_two_copies_of_a_random_nonce() {
    let mark = wire::lone_mark(0xd83d);
    let chars: Vec<char> = mark.chars().collect();
    assert_eq!(chars.len(), 4 + 5 + 4, "{mark:?}");
    let (nonce, rest) = chars.split_at(4);
    assert_eq!(rest[..5].iter().collect::<String>(), "\u{FFFD}d83d");
    assert_eq!(&rest[5..], nonce);
    assert!(
        nonce
            .iter()
            .all(|c| ('\u{F0000}'..='\u{FFFFF}').contains(c)),
        "{mark:?}"
    );
    // Four equal characters of 64 random bits: once in 2^48 processes.
    assert!(nonce.iter().any(|c| *c != nonce[0]), "{mark:?}");
}

/// serde_json's private keys, `"$serde_json::private::Number"` and
/// `"$serde_json::private::RawValue"`, which serde_json's own `Value` takes
/// for a number or for the JSON text held wherever one is an object's
/// first key: a tool that returns one is returning an object, and every reading of the oracle (a case read
/// whole or raw, a payload of an outcome, a reply, any JSON read whole)
/// keeps it one, with its keys in order; a `tool_call_id` so written is
/// refused as the object it is.
#[test]
fn serde_jsons_private_keys_are_ordinary_keys() {
    let key = "$serde_json::private::Number";
    let raw = "$serde_json::private::RawValue";
    let mut later = serde_json::Map::new();
    later.insert("a".into(), json!(1));
    later.insert(key.into(), json!("12"));
    let rows: Vec<(String, Value)> = vec![
        (format!(r#"{{"{key}": "12"}}"#), json!({ key: "12" })),
        (
            format!(r#"{{"{key}": "not a number"}}"#),
            json!({ key: "not a number" }),
        ),
        (format!(r#"{{"{key}": 1.5}}"#), json!({ key: 1.5 })),
        (
            format!(r#"{{"{key}": 7, "b": [true]}}"#),
            json!({ key: 7, "b": [true] }),
        ),
        (
            format!(r#"{{"{key}": {{"{key}": "1"}}}}"#),
            json!({ key: { key: "1" } }),
        ),
        (
            format!(r#"{{"{key}": "1", "{key}": "2"}}"#),
            json!({ key: "2" }),
        ),
        (
            format!(r#"{{"a": 1, "{key}": "12"}}"#),
            Value::Object(later),
        ),
        (
            r#"{"$serde_json::private::Numbe\u0072": "3"}"#.into(),
            json!({ key: "3" }),
        ),
        (format!(r#"[{{"{key}": "-0"}}]"#), json!([{ key: "-0" }])),
        // A repeated key keeps its last value where its first stood.
        (
            r#"{"a": 1, "b": 2, "a": 3}"#.into(),
            json!({"a": 3, "b": 2}),
        ),
        (format!(r#"{{"{key}": null}}"#), json!({ key: null })),
        (format!(r#"{{"{key}": false}}"#), json!({ key: false })),
        (format!(r#"{{"{key}": -3}}"#), json!({ key: -3 })),
        (format!(r#"{{"{key}": [1]}}"#), json!({ key: [1] })),
        (format!(r#"{{"{key}": {{}}}}"#), json!({ key: {} })),
        (format!(r#"{{"{key}": "\u0031"}}"#), json!({ key: "1" })),
        (
            format!(r#"{{"{key}": 1e400}}"#),
            json!({ key: wire::parse_value(b"1e400").expect("a number") }),
        ),
        // The key `Value` takes for raw JSON text (with `raw_value`).
        (format!(r#"{{"{raw}": "[1,2]"}}"#), json!({ raw: "[1,2]" })),
        (
            format!(r#"{{"{raw}": 5, "{key}": "6"}}"#),
            json!({ raw: 5, key: "6" }),
        ),
    ];
    for (text, object) in &rows {
        // Keys in their order, numbers in their digits: the text.
        let read = wire::parse_value(text.as_bytes()).expect("JSON");
        assert_eq!(read.to_string(), object.to_string(), "{text}");
        let reply: wire::Json = wire::parse_reply(text.as_bytes()).expect("JSON");
        assert_eq!(&reply.0, object, "{text}");
        // A bare `Value` asked of `parse` or `parse_reply` is read so too.
        let bare: Value = wire::parse(text.as_bytes()).expect("JSON");
        assert_eq!(bare.to_string(), object.to_string(), "{text}");
        let bare: Value = wire::parse_reply(text.as_bytes()).expect("JSON");
        assert_eq!(bare.to_string(), object.to_string(), "{text}");
        // As a call's `data` and beside it, read whole and compact; its prose
        // renders it.
        let input = one(&format!(
            r#"{{"success": true, "data": {text}, "x": {text}}}"#
        ));
        let case = Case::from_json(input.as_bytes()).expect("a valid case");
        assert_eq!(case.calls[0].result["data"], *object, "{text}");
        assert_eq!(case.calls[0].result["x"], *object, "{text}");
        let (_, compact) = compact_reading(&input).expect("a valid case");
        assert_eq!(format!("{compact:?}"), format!("{case:?}"), "{text}");
        let outcome = rt_tool_3::model::outcome(&case);
        // The prose: the data's rendering, which reads back as the object.
        let prose = wire::parse_value(outcome.messages[0].content.as_bytes());
        assert_eq!(prose.as_ref(), Ok(object), "{outcome:?}");
        let mut verdict = Vec::new();
        rt_tool_3::verdict(input.as_bytes(), &mut verdict).expect("a valid case");
        assert_eq!(
            String::from_utf8_lossy(&verdict),
            serde_json::to_string(&outcome).expect("encodes") + "\n",
            "{text}"
        );
        // As an artifact's payload, in a case and in an outcome.
        let input = one(&format!(
            r#"{{"success": true, "data": 1, "artifacts": [{{"type": "t", "payload": {{"p": {text}}}}}]}}"#
        ));
        let case = Case::from_json(input.as_bytes()).expect("a valid case");
        assert_eq!(
            case.calls[0].result["artifacts"][0]["payload"]["p"],
            *object
        );
        let observed = format!(
            r#"{{"messages": [], "exposed": false, "tool_artifacts": [{{"type": "t", "payload": {{"p": {text}}}, "tool_call_id": "c1"}}]}}"#
        );
        let observed: wire::Outcome = wire::parse(observed.as_bytes()).expect("an outcome");
        assert_eq!(observed.tool_artifacts[0].payload["p"], *object, "{text}");
    }
    let id = format!(r#"{{"calls": [{{"tool_call_id": {{"{key}": "1"}}, "result": {{}}}}]}}"#);
    check(
        &id,
        Refused(&["calls[0].tool_call_id must be a string, not an object"]),
    );
}

/// [`wire::value`] read from what is not JSON text: a float as a float,
/// an owned string as a string, serde_json's private number key with a
/// value that is no owned string (as JSON text never gives one) as the
/// key it is, and what JSON has no value for (bytes) refused as not any
/// JSON value, wherever it stands.
#[test]
fn untrusted_values_from_other_deserializers() {
    use serde::de::value::{
        BytesDeserializer, Error, F64Deserializer, MapDeserializer, StringDeserializer,
    };
    let float = wire::value(F64Deserializer::<Error>::new(1.5)).expect("a float");
    assert_eq!(float, json!(1.5));
    let string = wire::value(StringDeserializer::<Error>::new("s".to_owned()));
    assert_eq!(string.expect("a string"), json!("s"));
    let key = "$serde_json::private::Number";
    let map = MapDeserializer::<_, Error>::new(vec![(key, 1.5)].into_iter());
    assert_eq!(wire::value(map).expect("an object"), json!({ key: 1.5 }));
    let not = wire::value(F64Deserializer::<Error>::new(f64::NAN));
    assert!(not.is_err(), "{not:?}");
    let bytes = wire::value(BytesDeserializer::<Error>::new(b"x"));
    let after = MapDeserializer::<_, Error>::new(vec![(key, b"x".as_slice())].into_iter());
    for refused in [bytes, wire::value(after)] {
        let said = refused.expect_err("bytes are no JSON value").to_string();
        assert!(said.contains("expected any JSON value"), "{said}");
    }
}
