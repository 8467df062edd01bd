//! The command line as users and scripts see it: exit codes, one-line errors,
//! nothing partial on stdout.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use rt_tool_3::wire::Case;

use crate::support::{self, run};

/// An invalid case: exit 2, nothing on stdout, one line on stderr that
/// contains `needle`.
fn refused(input: &[u8], needle: &str) {
    let out = run(&["verdict"], input);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert!(
        out.stdout.is_empty(),
        "partial stdout: {:?}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(err.lines().count(), 1, "not one line: {err}");
    assert!(err.contains(needle), "{err:?} does not say {needle:?}");
}

#[test]
fn verdict_refuses_invalid_cases() {
    let nested = format!(
        r#"{{"calls":[{{"tool_call_id":"c1","result":{}{}}}]}}"#,
        "[".repeat(200_000),
        "]".repeat(200_000)
    );
    let table: &[(&[u8], &str)] = &[
        (b"{\"calls\": [", "EOF while parsing"),
        (b"{\"calls\": []} trailing", "trailing characters at line 1 column 15"),
        (b"[]", "expected a case"),
        (b"{}", "missing field `calls`"),
        (b"{\"calls\": {}}", "`calls` to be an array"),
        (b"{\"calls\": [7]}", "calls[0] to be an object"),
        (b"{\"calls\": [], \"exposd\": true}", "unknown top-level field `exposd`"),
        (b"{\"calls\": [], \"exposed\": \"yes\"}", "`exposed` must be true, false or null, not a string"),
        (b"{\"calls\": [], \"exposed\": 1}", "not a number"),
        (b"{\"calls\": [], \"calls\": []}", "duplicate field `calls`"),
        (br#"{"calls": [{"tool_call_id": 1, "result": {}}]}"#, "calls[0].tool_call_id must be a string, not a number"),
        (br#"{"calls": [{"tool_call_id": null, "result": {}}]}"#, "must be a string, not null"),
        (br#"{"calls": [{"result": {}}]}"#, "calls[0] is missing field `tool_call_id`"),
        (br#"{"calls": [{"tool_call_id": "c1"}]}"#, r#"calls[0] (tool_call_id "c1") is missing field `result`"#),
        (br#"{"calls": [{"tool_call_id": "c1", "result": 1, "extra": 2}]}"#, "calls[0] has an unknown field `extra`"),
        (br#"{"calls": [{"tool_call_id": "c1", "tool_call_id": "c2", "result": 1}]}"#, "calls[0] has a duplicate field `tool_call_id`"),
        (
            br#"{"calls": [{"tool_call_id": "c1", "result": 1}, {"tool_call_id": "c1", "result": 2}]}"#,
            r#"calls[1] reuses tool_call_id "c1" of calls[0]"#,
        ),
        (b"{\"calls\": [{\"tool_call_id\": \"c\xff\", \"result\": 1}]}", "invalid unicode code point"),
        (nested.as_bytes(), "nesting deeper than 512 levels at line 1 column 550"),
        // A lone UTF-16 surrogate escape, wherever it is: where the whole
        // document has it, and what a `\u` escape must be.
        (
            b"{\"calls\":[{\"tool_call_id\":\"c1\",\"result\":{\"success\":true,\n\"data\":\"\\ud800x\"}}]}",
            "at line 2 column 15 (a \\u escape takes four hex digits",
        ),
        (
            br#"{"calls":[{"tool_call_id":"c1","result":{"success":true,"data":{"s":"\udc00"}}}]}"#,
            "must be half of a surrogate pair",
        ),
        (
            br#"{"calls":[{"tool_call_id":"c1","result":{"success":true,"data":"d","artifacts":[{"type":"t","payload":{"s":"\ud83d\ud83d"}}]}}]}"#,
            "must be half of a surrogate pair",
        ),
        (b"", "EOF while parsing"),
    ];
    for (input, needle) in table {
        refused(input, needle);
    }
}

#[test]
fn verdict_keeps_every_digit() {
    let case = br#"{"calls": [{"tool_call_id": "c1", "result": {"success": true, "data": null,
        "artifacts": [{"type": "n", "payload": {"big": 1234567890123456789012345678901234567890, "one": 1.0, "huge": 1e400}}]}}]}"#;
    let out = run(&["verdict"], case);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(
        text.contains(
            r#"{"big":1234567890123456789012345678901234567890,"one":1.0,"huge":1e+400}"#
        ),
        "{text}"
    );
}

#[test]
fn verdict_reads_nesting_up_to_the_limit() {
    // case, calls, call, result, artifacts, entry and payload hold 7 levels.
    let case = |depth: usize| {
        let deep = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let case = format!(
            r#"{{"calls":[{{"tool_call_id":"c1","result":{{"success":true,"data":null,"artifacts":[{{"type":"deep","payload":{{"x":{deep}}}}}]}}}}]}}"#
        );
        (deep, run(&["verdict"], case.as_bytes()))
    };
    let (deep, out) = case(rt_tool_3::wire::MAX_DEPTH - 7);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains(&deep));
    let (_, out) = case(rt_tool_3::wire::MAX_DEPTH - 6);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn verdict_reads_a_file_or_stdin() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cases/rule-example.json");
    let from_file = run(&["verdict", file], b"");
    let from_stdin = run(
        &["verdict", "-"],
        &std::fs::read(file).expect("example case"),
    );
    assert_eq!(from_file.status.code(), Some(0));
    assert_eq!(from_file.stdout, from_stdin.stdout);
    let outcome: serde_json::Value = rt_tool_3::wire::parse(&from_file.stdout).expect("json");
    assert_eq!(outcome["messages"][0]["content"], "Created node 5 (draft).");
    assert_eq!(outcome["tool_artifacts"][0]["tool_call_id"], "c1");

    let missing = run(&["verdict", "/nonexistent/case.json"], b"");
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot read /nonexistent/case.json"));
}

#[test]
fn verdict_says_why_a_case_is_lenient() {
    let out = run(
        &["verdict"],
        br#"{"calls": [{"tool_call_id": "c1", "result": "bare"}]}"#,
    );
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("lenient zone") && err.contains("call c1: result is a string"),
        "{err}"
    );
}

#[test]
fn check_exit_codes_and_clause_ids() {
    let scratch = Scratch::new("cli");
    let case = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cases/rule-example.json");
    let write = |name: &str, text: &str| scratch.write(name, text);
    let good = write(
        "good.json",
        r#"{"messages":[{"tool_call_id":"c1","content":"Node created."}],"exposed":false,
            "tool_artifacts":[{"tool_call_id":"c1","payload":{"url":"https://example.com/node/5"},"type":"link"}]}"#,
    );
    let spoof = write(
        "spoof.json",
        r#"{"messages":[{"tool_call_id":"c1","content":"Created node 5 (draft)."}],"exposed":false,
            "tool_artifacts":[{"tool_call_id":"c7","payload":{"url":"https://example.com/node/5"},"type":"link"}]}"#,
    );
    let broken = write("broken.json", r#"{"messages": ["#);
    // A string cut between the halves of a surrogate pair, in the prose and
    // in a payload: judged, not refused; in a case: refused.
    let lone_prose = write(
        "lone-prose.json",
        r#"{"messages":[{"tool_call_id":"c1","content":"Created node 5 \ud83d"}],"exposed":false,
            "tool_artifacts":[{"tool_call_id":"c1","payload":{"url":"https://example.com/node/5"},"type":"link"}]}"#,
    );
    let lone_payload = write(
        "lone-payload.json",
        r#"{"messages":[{"tool_call_id":"c1","content":"Created node 5 (draft)."}],"exposed":false,
            "tool_artifacts":[{"tool_call_id":"c1","payload":{"url":"https://example.com/node/5\udc00"},"type":"link"}]}"#,
    );
    let lone_broken = write("lone-broken.json", r#"{"messages": ["\ud83d"#);
    let lone_case = write(
        "lone-case.json",
        r#"{"calls":[{"tool_call_id":"c1","result":{"success":true,"data":"\ud83d"}}]}"#,
    );
    let table: &[(&[&str], i32, &str)] = &[
        (
            &["check", case, &good],
            0,
            "conforms to RT-TOOL-3 (strict zone, judged in full)",
        ),
        (
            &["check", "--prose", "exact", case, &good],
            1,
            "RT-TOOL-3 ¶3 [prose-not-reference]: the prose of call c1 is \"Node created.\"",
        ),
        (
            &["check", case, &spoof],
            1,
            "RT-TOOL-3 ¶1 [unknown-call-id]: tool_artifacts[0] carries tool_call_id \"c7\"",
        ),
        (&["check", case, &spoof], 1, "rule_hash f4664b813918"),
        (
            &["check", "--json", case, &spoof],
            1,
            r#""clause":"RT-TOOL-3 ¶1","cite":{"rule":"RT-TOOL-3","paragraph":1}"#,
        ),
        (
            &["check", "--json", case, &spoof],
            1,
            r#""rule":"RT-TOOL-3","spec_version":"1.0-draft","rule_hash":"f4664b813918","oracle":"rt-tool-3 "#,
        ),
        (
            &["check", case, &lone_prose],
            1,
            "protocol [lone-surrogate]: the prose of call c1 holds a lone surrogate \\ud83d: it is not a Unicode string",
        ),
        (
            &["check", "--json", case, &lone_prose],
            1,
            r#""clause":"protocol","cite":{"rule":null,"paragraph":null},"code":"lone-surrogate","place":{"call":0,"message":0,"path":"/messages/0/content"},"message":"the prose of call c1 holds a lone surrogate \\ud83d"#,
        ),
        (
            &["check", case, &lone_payload],
            1,
            "RT-TOOL-3 ¶1 [payload-altered]: tool_artifacts[0] (call c1, type link) has a payload that differs from the artifact's at /url (the string there holds a lone surrogate \\udc00: it is not a Unicode string)",
        ),
        (&["check", case, &lone_broken], 2, "invalid outcome in"),
        (&["check", &lone_case, &good], 2, "invalid case in"),
        (&["check", case, &broken], 2, "invalid outcome in"),
        (&["check", &broken, &good], 2, "invalid case in"),
        (
            &["check", "-", "-"],
            2,
            "only one of CASE and OUTCOME can be stdin",
        ),
    ];
    for (args, code, says) in table {
        let out = run(args, b"");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.status.code(), Some(*code), "{args:?}: {text}");
        assert!(
            text.contains(says),
            "{args:?}: {text:?} does not say {says:?}"
        );
        assert!(!cites_a_dotted_clause(&text), "{args:?}: {text}");
    }
}

/// Whether a text cites a clause as the rule's id, a dot and the item
/// number, which the specification would read as the id of another rule.
fn cites_a_dotted_clause(text: &str) -> bool {
    (1..=4).any(|n| text.contains(&format!("RT-TOOL-3.{n}")))
}

/// Outcomes that break the rule's text in ways one outcome shows: each is
/// `check`ed, exits 1 and names the clause.
#[test]
fn check_judges_by_the_text() {
    let scratch = Scratch::new("text");
    let write = |name: &str, text: &str| scratch.write(name, text);
    let reserved = write(
        "reserved.json",
        r#"{"calls":[{"tool_call_id":"c1","result":{"success":true,"data":{"result":"x","artifacts":[{"type":"link","payload":{"url":"https://example.com/only-here"}}]}}}]}"#,
    );
    let out = run(&["verdict", &reserved], b"");
    assert_eq!(out.status.code(), Some(0));
    let outcome: serde_json::Value = rt_tool_3::wire::parse(&out.stdout).expect("an outcome");
    assert_eq!(outcome["messages"][0]["content"], "x");
    assert!(String::from_utf8_lossy(&out.stderr).contains("lenient zone"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("reserved `artifacts` key"));
    let two = write(
        "two.json",
        r#"{"calls":[{"tool_call_id":"c1","result":{"success":true,"data":"Created node 5 (draft).","error":"warning: slow backend"}},
                     {"tool_call_id":"c2","result":{"success":true,"data":"Deleted node 7 (final)."}}]}"#,
    );
    let declined = write(
        "declined.json",
        r#"{"calls":[{"tool_call_id":"c1","result":{"success":"false","data":"no","artifacts":[{"type":"link","payload":{"url":"https://example.com/declined"}}]}}]}"#,
    );
    let links: Vec<String> = (0..51)
        .map(|i| format!(r#"{{"type":"link","payload":{{"n":{i}}}}}"#))
        .collect();
    let many = write(
        "many.json",
        &format!(
            r#"{{"calls":[{{"tool_call_id":"c1","result":{{"success":true,"data":"d","artifacts":[{}]}}}}]}}"#,
            links.join(",")
        ),
    );
    // One call's result a bare string, the other's well-formed: its
    // artifact is owed all the same.
    let mixed = write(
        "mixed.json",
        r#"{"calls":[{"tool_call_id":"c1","result":"Searched."},{"tool_call_id":"c2","result":{"success":true,"data":"d","artifacts":[{"type":"link","payload":{"url":"https://example.com/kept"}}]}}]}"#,
    );
    let outcome = |name: &str, messages: &str, artifacts: &str| {
        write(
            name,
            &format!(r#"{{"messages":{messages},"tool_artifacts":{artifacts},"exposed":false}}"#),
        )
    };
    let mixed_prose = r#"[{"tool_call_id":"c1","content":""},{"tool_call_id":"c2","content":"d"}]"#;
    let table: Vec<(&str, String, &str)> = vec![
        (
            &mixed,
            outcome("mixed-none.json", mixed_prose, "[]"),
            "RT-TOOL-3 ¶1 [missing-artifact-while-hidden]: artifact 0 of call c2 (link {\"url\":\"https://example.com/kept\"}) is missing from tool_artifacts",
        ),
        (
            &mixed,
            outcome("mixed-none.json", mixed_prose, "[]"),
            "violates RT-TOOL-3: 1 violation(s) (lenient zone, judged call by call: call c1: result is a string, not an object)",
        ),
        (
            &reserved,
            outcome("leak.json", r#"[{"tool_call_id":"c1","content":"x https://example.com/only-here"}]"#, "[]"),
            "RT-TOOL-3 ¶3 [prose-leak]: the prose of call c1 contains \"https://example.com/only-here\"",
        ),
        (
            &two,
            outcome(
                "swapped.json",
                r#"[{"tool_call_id":"c1","content":"Deleted node 7 (final)."},{"tool_call_id":"c2","content":"Created node 5 (draft)."}]"#,
                "[]",
            ),
            "RT-TOOL-3 ¶3 [prose-leak]: the prose of call c1 contains \"Deleted node 7 (final).\", found only in the data of call c2",
        ),
        (
            &two,
            outcome(
                "error.json",
                r#"[{"tool_call_id":"c1","content":"Created node 5 (draft). warning: slow backend"},{"tool_call_id":"c2","content":"Deleted node 7 (final)."}]"#,
                "[]",
            ),
            "RT-TOOL-3 ¶3 [prose-leak]: the prose of call c1 contains \"warning: slow backend\", found only in the error of call c1",
        ),
        (
            &declined,
            outcome(
                "declined-out.json",
                r#"[{"tool_call_id":"c1","content":"no"}]"#,
                r#"[{"type":"link","payload":{"url":"https://example.com/declined"},"tool_call_id":"c1"}]"#,
            ),
            "RT-TOOL-2 [dropped-entry-delivered]: tool_artifacts[0] is entry 0 of call c1's artifacts, which RT-TOOL-2 drops",
        ),
        (
            &many,
            outcome("none.json", r#"[{"tool_call_id":"c1","content":"d"}]"#, "[]"),
            "RT-TOOL-6 [dropped-within-bounds]: tool_artifacts holds 0 entries (0 bytes at most) for the run's 51 kept artifacts, yet",
        ),
    ];
    for (case, outcome, says) in &table {
        let out = run(&["check", case, outcome], b"");
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{outcome}: {text}");
        assert!(
            text.contains(says),
            "{outcome}: {text:?} does not say {says:?}"
        );
        assert!(!cites_a_dotted_clause(&text), "{text}");
    }
    // Every owed artifact delivered, the malformed call's nothing: conforms.
    let all = outcome(
        "mixed-all.json",
        mixed_prose,
        r#"[{"type":"link","payload":{"url":"https://example.com/kept"},"tool_call_id":"c2"}]"#,
    );
    let out = run(&["check", &mixed, &all], b"");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("conforms to RT-TOOL-3 (lenient zone"),
        "{text}"
    );
}

/// A directory of its own for one test, removed when the test ends.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("rt-tool-3-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        Scratch(dir)
    }

    /// Writes a file into it, and gives its path.
    fn write(&self, name: &str, text: &str) -> String {
        let path = self.0.join(name);
        std::fs::write(&path, text).expect("write");
        path.display().to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Hostile input to `verdict` and to both sides of `check`: refused in one
/// line with exit 2 where invalid, handled exactly where valid, never a panic.
#[test]
fn hostile_input() {
    let dir = std::env::temp_dir().join(format!("rt-tool-3-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = |name: &str, bytes: &[u8]| {
        let path = dir.join(name);
        std::fs::write(&path, bytes).expect("write");
        path.display().to_string()
    };
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cases/rule-example.json");
    let good_outcome = file(
        "good.json",
        br#"{"messages":[{"tool_call_id":"c1","content":"x"}],"exposed":false,
            "tool_artifacts":[{"type":"link","payload":{"url":"https://example.com/node/5"},"tool_call_id":"c1"}]}"#,
    );
    let deep = format!("{}{}", "[".repeat(200_000), "]".repeat(200_000));
    let refused: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "deep",
            format!(r#"{{"calls":[{{"tool_call_id":"c1","result":{deep}}}]}}"#).into_bytes(),
            "nesting deeper than 512",
        ),
        (
            "deep-bare",
            deep.clone().into_bytes(),
            "nesting deeper than 512",
        ),
        (
            "utf8",
            b"{\"calls\":[{\"tool_call_id\":\"c1\",\"result\":\"\xc3\x28\"}]}".to_vec(),
            "invalid unicode code point",
        ),
        (
            "truncated",
            br#"{"calls":[{"tool_call_id":"c1","result":{"success":tr"#.to_vec(),
            "line 1 column",
        ),
    ];
    for (name, bytes, says) in &refused {
        let path = file(&format!("{name}.json"), bytes);
        for args in [
            vec!["verdict", path.as_str()],
            vec!["check", path.as_str(), good_outcome.as_str()],
            vec!["check", example, path.as_str()],
        ] {
            let out = run(&args, b"");
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{name} {args:?}: {err}");
            assert_eq!(err.lines().count(), 1, "{name}: {err}");
            assert!(err.contains(says), "{name}: {err}");
            assert!(out.stdout.is_empty(), "{name}: partial stdout");
        }
    }
    // Valid however large or odd: a 30 MB string, exact numbers, a repeated key.
    let big = "x".repeat(30 << 20);
    let case = format!(
        r#"{{"calls":[{{"tool_call_id":"c1","result":{{"success":true,"data":"{big}","artifacts":[
            {{"type":"n","payload":{{"a":1e400,"b":1234567890123456789012345678901234567890,"k":1,"k":2}},"tool_call_id":"c9","tool_call_id":"c1"}}]}}}}]}}"#
    );
    let path = file("big.json", case.as_bytes());
    let out = run(&["verdict", &path], b"");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(text.contains(r#""payload":{"a":1e+400,"b":1234567890123456789012345678901234567890,"k":2},"tool_call_id":"c1""#));
    assert!(text.len() > 30 << 20);
    let outcome = file("big-outcome.json", text.as_bytes());
    let out = run(&["check", &path, &outcome], b"");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    std::fs::remove_dir_all(&dir).expect("clean up");
}

/// A `--timeout` or `--shrink-time` too long for a `Duration` is refused
/// in one line; one that a `Duration` holds but no deadline can reach is
/// no limit at all, and the run goes on as usual. `--shrink-time` may be
/// 0 (nothing is shrunk), not negative or not a number.
#[test]
fn diff_takes_any_timeout_without_a_panic() {
    let save = std::env::temp_dir().join(format!("rt-tool-3-timeout-{}.json", std::process::id()));
    let save = save.display().to_string();
    let diff = |flag: &str, seconds: &str| {
        let flag = format!("--{flag}={seconds}");
        let args = [
            "diff", "--cases", "2", "--seed", "1", "--save", &save, &flag,
        ];
        let out = run(&args, b"");
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        (out.status.code(), err)
    };
    for flag in ["timeout", "shrink-time"] {
        for too_long in ["1e300", "1.8446744073709552e19"] {
            let (code, err) = diff(flag, too_long);
            assert_eq!(code, Some(2), "{flag} {too_long}: {err}");
            assert_eq!(err.lines().count(), 1, "{flag} {too_long}: {err}");
            assert!(err.contains(flag) && err.contains("too long"), "{err}");
        }
        for not_seconds in ["-1", "NaN", "inf"] {
            let (code, err) = diff(flag, not_seconds);
            assert_eq!(code, Some(2), "{flag} {not_seconds}: {err}");
            assert_eq!(err.lines().count(), 1, "{flag} {not_seconds}: {err}");
            assert!(err.contains(flag) && err.contains("must be a"), "{err}");
        }
        for long in ["1e19", "1e12", "0.5"] {
            let (code, err) = diff(flag, long);
            assert_eq!(code, Some(0), "{flag} {long}: {err}");
            assert!(err.is_empty(), "{flag} {long}: {err}");
        }
    }
    let (code, err) = diff("shrink-time", "0");
    assert_eq!(code, Some(0), "--shrink-time 0: {err}");
    let (code, err) = diff("timeout", "0");
    assert_eq!(code, Some(2), "--timeout 0: {err}");
    let _ = std::fs::remove_file(&save);
}

/// A surrogate pair, an escaped backslash before `ud800` and a plain `\u`
/// escape are all valid, in `data` and in a payload kept raw.
#[test]
fn verdict_reads_valid_unicode_escapes() {
    let case = br#"{"calls":[{"tool_call_id":"c1","result":{"success":true,"data":{"d":"\\ud800 \ud83d\ude00"},"artifacts":[{"type":"t","payload":{"s":"\\ud800 \ud83d\ude00 \u00e9"}}]}}]}"#;
    let out = run(&["verdict"], case);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let outcome: serde_json::Value = rt_tool_3::wire::parse(&out.stdout).expect("json");
    assert_eq!(
        outcome["tool_artifacts"][0]["payload"]["s"],
        "\\ud800 \u{1f600} \u{e9}"
    );
}

/// A repeated key keeps its last value in a short object and in a long one
/// (the parser looks keys up in an index; 100,000 keys took 11 s looked
/// through one by one, 0.15 s with the index).
#[test]
fn a_repeated_key_keeps_its_last_value_however_many_keys() {
    for n in [2, 40, 100_000] {
        let filler: String = (0..n).map(|i| format!(r#""k{i}":{i},"#)).collect();
        let case = format!(
            r#"{{"calls":[{{"tool_call_id":"c1","result":{{"success":true,"data":"d","artifacts":[
                {{"type":"a","payload":{{"v":1}},{filler}"type":"b","payload":{{"v":2}}}}]}}}}]}}"#
        );
        let out = run(&["verdict"], case.as_bytes());
        assert_eq!(out.status.code(), Some(0), "{n} keys");
        let outcome: serde_json::Value = rt_tool_3::wire::parse(&out.stdout).expect("json");
        assert_eq!(
            outcome["tool_artifacts"],
            serde_json::json!([{"type": "b", "payload": {"v": 2}, "tool_call_id": "c1"}]),
            "{n} keys"
        );
    }
}

fn cases(count: &str, seed: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_rt-tool-3"))
        .args(["cases", "--count", count, "--seed", seed])
        .output()
        .expect("the binary runs")
}

#[test]
fn cases_prints_one_valid_compact_case_a_line_the_same_for_the_same_seed() {
    let first = cases("25", "7");
    let again = cases("25", "7");
    let other = cases("25", "8");
    assert!(first.status.success(), "{first:?}");
    assert!(
        first.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert_eq!(first.stdout, again.stdout, "the same seed gave other cases");
    assert_ne!(
        first.stdout, other.stdout,
        "another seed gave the same cases"
    );
    let text = String::from_utf8(first.stdout).expect("UTF-8");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 25);
    for line in lines {
        let case = Case::from_json(line.as_bytes()).expect("a valid case");
        assert_eq!(
            serde_json::to_string(&case).unwrap(),
            line,
            "not compact JSON"
        );
    }
}

#[test]
fn cases_prints_nothing_for_zero_and_defaults_the_seed_to_zero() {
    let none = cases("0", "0");
    assert!(none.status.success() && none.stdout.is_empty(), "{none:?}");
    let defaulted = Command::new(env!("CARGO_BIN_EXE_rt-tool-3"))
        .args(["cases", "--count", "3"])
        .output()
        .expect("the binary runs");
    assert_eq!(defaulted.stdout, cases("3", "0").stdout);
}

#[test]
fn cases_ends_quietly_when_the_reader_goes_away() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rt-tool-3"))
        .args(["cases", "--count", "1000000", "--seed", "3"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut reader = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    reader.read_line(&mut line).expect("a first line");
    assert!(
        Case::from_json(line.trim_end().as_bytes()).is_ok(),
        "{line}"
    );
    drop(reader);
    let out = child.wait_with_output().expect("it ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
}

/// `cases --census N` counts N cases: the table or JSON names every
/// feature, and the exit code says whether one is under its floor beyond
/// chance.
#[test]
fn cases_census_counts_every_feature_and_exits_by_the_floors() {
    let json = run(&["cases", "--census", "300", "--seed", "4", "--json"], b"");
    let census: serde_json::Value = rt_tool_3::wire::parse(&json.stdout).expect("JSON");
    assert_eq!(census["cases"], 300);
    assert_eq!(census["rule_hash"], rt_tool_3::RULE_HASH);
    let features = census["features"].as_array().expect("features");
    assert_eq!(features.len(), rt_tool_3::gen::features().count());
    let under = features.iter().any(|f| f["under"] == true);
    assert_eq!(json.status.code(), Some(i32::from(under)), "{census}");
    for f in features {
        let chance = f["chance"].as_f64().expect("a chance");
        assert!((0.0..=1.0).contains(&chance), "{f}");
    }
    let table = run(&["cases", "--census", "300", "--seed", "4"], b"");
    let text = String::from_utf8_lossy(&table.stdout);
    assert_eq!(table.status.code(), json.status.code());
    for f in rt_tool_3::gen::features() {
        assert!(text.contains(&format!("| `{}` |", f.name)), "{text}");
    }
    // A census of nothing would say nothing: it is refused.
    let none = run(&["cases", "--census", "0"], b"");
    assert_eq!(none.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&none.stderr).contains("--census"));
    let both = run(&["cases", "--census", "5", "--count", "3"], b"");
    assert_eq!(both.status.code(), Some(2));
}

/// No command's output cites a clause the dotted way: not the vectors, their
/// schema, the help, nor `diff`'s report, text or JSON, or its saved file.
#[test]
fn no_output_cites_a_dotted_clause() {
    let scratch = Scratch::new("dotted");
    let save = scratch.write("saved.json", "");
    let bin = env!("CARGO_BIN_EXE_rt-tool-3");
    let runs: Vec<Vec<&str>> = vec![
        vec!["vectors"],
        vec!["vectors", "--schema"],
        vec!["--help"],
        vec!["check", "--help"],
        vec!["diff", "--help"],
        vec!["serve", "--help"],
        vec![
            "diff", "--cases", "20", "--seed", "1", "--save", &save, "--", bin, "serve", "--fault",
            "spoof-id",
        ],
        vec![
            "diff",
            "--cases",
            "20",
            "--seed",
            "1",
            "--json",
            "--save",
            &save,
            "--",
            bin,
            "serve",
            "--fault",
            "hidden-drops",
        ],
    ];
    for args in &runs {
        let out = run(args, b"");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!text.is_empty(), "{args:?} printed nothing");
        assert!(!cites_a_dotted_clause(&text), "{args:?}: {text}");
    }
    let saved = std::fs::read_to_string(&save).expect("saved");
    assert!(saved.contains("RT-TOOL-3 ¶4"), "{saved}");
    assert!(!cites_a_dotted_clause(&saved), "{saved}");
}

/// Every command's help is written for the command line: the doc comments
/// it comes from carry no rustdoc link (`[`x`]`), which a reader of
/// `--help` cannot follow.
#[test]
fn help_texts_carry_no_rustdoc_links() {
    let commands = [
        "verdict", "check", "diff", "merge", "vectors", "cases", "serve",
    ];
    let mut runs: Vec<Vec<&str>> = vec![vec!["--help"]];
    runs.extend(commands.iter().map(|c| vec![*c, "--help"]));
    for args in &runs {
        let out = run(args, b"");
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("Usage:"), "{args:?}: {text}");
        assert!(
            !text.contains("[`"),
            "{args:?}: a rustdoc link in the help: {text}"
        );
    }
}

/// A copy that prints a line after `stop` is a process fault (exit 2),
/// found when the copies are stopped at the end of the run, all at once:
/// the first copy at fault is named, and a lone copy is not numbered.
#[test]
fn a_line_after_stop_is_a_fault_named_by_its_copy() {
    let bin = env!("CARGO_BIN_EXE_rt-tool-3");
    let chatty = format!("{bin} serve; echo extra");
    for (jobs, named) in [("1", ""), ("2", "copy 1 of 2: "), ("3", "copy 1 of 3: ")] {
        let out = run(
            &[
                "diff",
                "--cases",
                "5",
                "--seed",
                "1",
                "--jobs",
                jobs,
                "--save",
                "/dev/null",
                "--",
            ]
            .into_iter()
            .chain(["sh", "-c", &chatty])
            .collect::<Vec<_>>(),
            b"",
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "--jobs {jobs}: {stderr}");
        let wanted =
            format!("rt-tool-3: {named}the implementation printed a line nobody asked for: extra");
        assert!(
            stderr.lines().any(|l| l == wanted),
            "--jobs {jobs}: {stderr}"
        );
    }
}

/// A divergence on RT-TOOL-6's floors carries strings of hundreds of
/// kilobytes in its case, its expected and its observed outcome. The report
/// for a reader shows each cut, with its length, on lines that do not
/// parse (so none is copied for the case by mistake), and says so; the
/// saved vectors hold the string whole.
#[test]
fn a_report_for_a_reader_cuts_long_strings_and_the_saved_vectors_keep_them() {
    let scratch = Scratch::new("long");
    let save = scratch.write("saved.json", "");
    let bin = env!("CARGO_BIN_EXE_rt-tool-3");
    let serve = [bin, "serve", "--fault", "drop-last"];
    let args = [
        ["diff", "--cases", "50", "--seed", "1"].as_slice(),
        &["--save", &save, "--"],
        &serve,
    ];
    let out = run(&args.concat(), b"");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("DIVERGENCE RT-TOOL-6"), "{text}");
    assert!(text.len() < 8_000, "{} bytes printed", text.len());
    let cut: Vec<&str> = text.lines().filter(|l| l.contains("\"…[")).collect();
    // One line cut for each minimal case, expected and observed outcome
    // that holds a string over 512 bytes, as the saved vectors hold them.
    let saved = std::fs::read(&save).expect("saved");
    let saved = rt_tool_3::wire::parse_value(&saved).expect("the saved vectors");
    let long = |v: &serde_json::Value| {
        let mut lengths = Vec::new();
        strings(v, &mut lengths);
        lengths.iter().any(|&n| n > 512)
    };
    let holding: usize = (saved["divergences"].as_array().into_iter().flatten())
        .flat_map(|d| d["minimal"].as_array().into_iter().flatten())
        .map(|v| {
            ["case", "expected", "observed"]
                .iter()
                .filter(|k| long(&v[**k]))
                .count()
        })
        .sum();
    assert!(holding > 0, "{text}");
    assert_eq!(cut.len(), holding, "{text}");
    let mut lengths = Vec::new();
    for line in cut {
        let value = line.split_once(": ").map_or(line, |(_, v)| v).trim();
        assert!(serde_json::from_str::<serde_json::Value>(value).is_err());
        let length: usize = value
            .split_once("…[")
            .and_then(|(_, rest)| rest.split_once(" bytes]"))
            .and_then(|(n, _)| n.parse().ok())
            .expect("a length");
        // Only strings over 512 bytes are cut, as the README says; the
        // ones this run cuts are far over it.
        assert!(length > 100_000, "{line}");
        lengths.push(length);
    }
    assert!(
        text.contains("the saved vectors and --json hold it whole"),
        "{text}"
    );
    // Each string cut is whole in the saved vectors, at its length.
    let mut whole = Vec::new();
    strings(&saved, &mut whole);
    for length in lengths {
        assert!(
            whole.contains(&length),
            "the saved vectors lost the string of {length} bytes"
        );
    }
}

/// The byte length of every string in `v`, at any depth.
fn strings(v: &serde_json::Value, lengths: &mut Vec<usize>) {
    match v {
        serde_json::Value::String(s) => lengths.push(s.len()),
        serde_json::Value::Array(a) => a.iter().for_each(|x| strings(x, lengths)),
        serde_json::Value::Object(m) => m.values().for_each(|x| strings(x, lengths)),
        _ => {}
    }
}

// ---------------------------------------------------------------------------
// The reports: --junit, --html, --badge and `rt-tool-3 report`

/// A page parsed as the XML it also is (its one DTD, `<!DOCTYPE html>`,
/// declares nothing); and checked to hold no script, frame, object or
/// image, no `on…` attribute, and no link but to a fragment it has.
fn page(text: &str) -> roxmltree::Document<'_> {
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..roxmltree::ParsingOptions::default()
    };
    let doc = roxmltree::Document::parse_with_options(text, options)
        .unwrap_or_else(|e| panic!("the page does not parse: {e}"));
    let ids: Vec<&str> = doc
        .descendants()
        .filter_map(|n| n.attribute("id"))
        .collect();
    for node in doc.descendants().filter(|n| n.is_element()) {
        let name = node.tag_name().name();
        assert!(
            !["script", "iframe", "object", "embed", "img", "link", "base", "form"].contains(&name),
            "a <{name}> element"
        );
        for a in node.attributes() {
            assert!(!a.name().starts_with("on"), "an {} attribute", a.name());
            if a.name() == "href" {
                let target = a.value().strip_prefix('#');
                assert!(
                    target.is_some_and(|t| ids.contains(&t)),
                    "a link to {}",
                    a.value()
                );
            }
        }
    }
    doc
}

/// The text under a node.
fn text_of(node: roxmltree::Node) -> String {
    node.descendants()
        .filter(|n| n.is_text())
        .filter_map(|n| n.text())
        .collect()
}

/// The rows of a page's first table, each as its cells' texts.
fn rows(doc: &roxmltree::Document) -> Vec<Vec<String>> {
    doc.descendants()
        .filter(|n| n.has_tag_name("tr"))
        .map(|tr| {
            tr.children()
                .filter(|c| c.has_tag_name("th") || c.has_tag_name("td"))
                .map(text_of)
                .collect()
        })
        .collect()
}

/// JUnit XML as CI services read it, checked against the shape
/// `tests/reports/junit.xsd` describes: `testsuites` holding `testsuite`s holding
/// `properties` then `testcase`s, each case with at most one of
/// `failure`, `error` and `skipped`; every count attribute the count of
/// what it counts. Gives (tests, failures, errors, skipped).
fn junit(text: &str) -> (roxmltree::Document<'_>, [usize; 4]) {
    let doc = roxmltree::Document::parse(text).unwrap_or_else(|e| panic!("not XML: {e}\n{text}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let count = |n: roxmltree::Node, what: &str| -> usize {
        n.attribute(what)
            .unwrap_or_else(|| panic!("no {what} on {n:?}"))
            .parse()
            .expect("a count")
    };
    let mut total = [0; 4];
    for suite in root.children().filter(|n| n.is_element()) {
        assert_eq!(suite.tag_name().name(), "testsuite");
        assert!(suite.attribute("name").is_some());
        let mut counts = [0; 4];
        for case in suite.children().filter(|n| n.is_element()) {
            match case.tag_name().name() {
                "properties" => {
                    for p in case.children().filter(|n| n.is_element()) {
                        assert_eq!(p.tag_name().name(), "property");
                        assert!(p.attribute("name").is_some() && p.attribute("value").is_some());
                    }
                    continue;
                }
                "testcase" => {}
                other => panic!("a <{other}> in a testsuite"),
            }
            assert!(case.attribute("name").is_some() && case.attribute("classname").is_some());
            counts[0] += 1;
            let results: Vec<&str> = case
                .children()
                .filter(|n| n.is_element())
                .map(|n| n.tag_name().name())
                .filter(|n| !["system-out", "system-err"].contains(n))
                .collect();
            assert!(results.len() <= 1, "{results:?}");
            match results.first() {
                Some(&"failure") => counts[1] += 1,
                Some(&"error") => counts[2] += 1,
                Some(&"skipped") => counts[3] += 1,
                Some(other) => panic!("a <{other}> in a testcase"),
                None => {}
            }
        }
        for (k, what) in ["tests", "failures", "errors", "skipped"]
            .iter()
            .enumerate()
        {
            assert_eq!(
                count(suite, what),
                counts[k],
                "{what} of {:?}",
                suite.attribute("name")
            );
            total[k] += counts[k];
        }
    }
    // The Jenkins schema (junit-10.xsd) has no `skipped` on `testsuites`.
    for (k, what) in ["tests", "failures", "errors"].iter().enumerate() {
        assert_eq!(count(root, what), total[k], "{what} of testsuites");
    }
    assert_eq!(root.attribute("skipped"), None);
    // Every failure typed by its finding's code (or how the run fell short
    // of one: errored, a clause not shown, a vector skipped), its message
    // naming the clause that code cites.
    for failure in doc.descendants().filter(|n| n.has_tag_name("failure")) {
        let kind = failure.attribute("type").expect("a type");
        let message = failure.attribute("message").expect("a message");
        let cites = match rt_tool_3::judge::Code::of_name(kind) {
            Some(code) => format!("{}: ", code.clause()),
            None => {
                assert!(
                    ["errored", "not-shown", "vector-skipped"].contains(&kind),
                    "{kind}"
                );
                continue;
            }
        };
        assert!(message.starts_with(&cites), "{kind}: {message}");
    }
    (doc, total)
}

/// The badge's endpoint JSON: its four fields, and nothing else.
fn badge(text: &str) -> (String, String) {
    let v: serde_json::Value = serde_json::from_str(text).expect("the badge is JSON");
    let keys: Vec<&str> = v
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["schemaVersion", "label", "message", "color"]);
    assert_eq!(v["schemaVersion"], 1);
    assert_eq!(v["label"], "RT-TOOL-3");
    (
        v["message"].as_str().expect("a message").to_owned(),
        v["color"].as_str().expect("a color").to_owned(),
    )
}

/// `diff --cases 20 --seed 1` against `serve SERVE`, writing the three
/// reports and the --json report into `scratch` under `name`: the exit
/// code, then the JUnit, the page and the badge.
fn reports(scratch: &Scratch, name: &str, serve: &[&str]) -> (Option<i32>, [String; 3]) {
    let bin = env!("CARGO_BIN_EXE_rt-tool-3");
    let file = |ext: &str| {
        scratch
            .0
            .join(format!("{name}.{ext}"))
            .display()
            .to_string()
    };
    let (x, h, b, s) = (
        file("xml"),
        file("html"),
        file("badge.json"),
        file("save.json"),
    );
    let out = Command::new(bin)
        .args(["diff", "--cases", "20", "--seed", "1", "--json"])
        .args([
            "--junit", &x, "--html", &h, "--badge", &b, "--save", &s, "--",
        ])
        .args(serve)
        .output()
        .expect("diff runs");
    std::fs::write(file("json"), &out.stdout).expect("written");
    let read = |path: &str| std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    (out.status.code(), [read(&x), read(&h), read(&b)])
}

/// Against `serve`, against `serve --fault spoof-id` and against a
/// crashing one: JUnit with no failure, with a failure naming ¶1, and with
/// an error (never an empty pass); a page saying each clause's standing in
/// words, the counterexample's case beside it; a badge saying which
/// paragraphs are met.
#[test]
fn junit_page_and_badge_of_a_conforming_a_failing_and_a_crashing_run() {
    let scratch = Scratch::new("reports");
    let bin = env!("CARGO_BIN_EXE_rt-tool-3");

    let (code, [xml, html, badge_json]) = reports(&scratch, "ok", &[bin, "serve"]);
    assert_eq!(code, Some(0));
    let (_, [tests, failures, errors, skipped]) = junit(&xml);
    assert_eq!((failures, errors, skipped), (0, 0, 0));
    // Seven clauses, the owed outcomes, and every pinned vector.
    assert!(tests > 8 + 20, "{tests} test cases");
    let doc = page(&html);
    let table = rows(&doc);
    for p in 1..=4 {
        let row = table
            .iter()
            .find(|r| r[0] == format!("RT-TOOL-3 ¶{p}"))
            .expect("a row per paragraph");
        assert_eq!(row[2], "✓ met", "{row:?}");
    }
    assert!(!html.contains("Counterexamples"));
    assert_eq!(
        badge(&badge_json),
        ("¶1 ¶2 ¶3 ¶4 met".into(), "brightgreen".into())
    );

    let (code, [xml, html, badge_json]) =
        reports(&scratch, "spoof", &[bin, "serve", "--fault", "spoof-id"]);
    assert_eq!(code, Some(1));
    let (doc, [_, failures, errors, _]) = junit(&xml);
    assert_eq!(errors, 0);
    assert!(failures >= 1);
    // The failure of ¶1's test case, its type the code of the first
    // finding, a code of ¶1.
    let failure = doc
        .descendants()
        .find(|n| {
            n.has_tag_name("failure")
                && n.parent()
                    .and_then(|t| t.attribute("name"))
                    .is_some_and(|name| name.starts_with("RT-TOOL-3 ¶1: "))
        })
        .expect("a failure naming ¶1");
    let code = failure
        .attribute("type")
        .and_then(rt_tool_3::judge::Code::of_name)
        .expect("its type is a code");
    assert_eq!(
        code.clause(),
        rt_tool_3::judge::Clause::KeyByKey,
        "{code:?}"
    );
    let body = text_of(failure);
    for line in ["minimal case: {", "expected:     {", "observed:     {"] {
        assert!(body.contains(line), "{body}");
    }
    assert!(failure
        .parent()
        .and_then(|c| c.attribute("name"))
        .is_some_and(|n| n.starts_with("RT-TOOL-3 ¶1: ")));
    // The pinned vector that first showed ¶1 fails with its sentences and
    // its case, expected and observed.
    let vector = doc
        .descendants()
        .filter(|n| n.attribute("classname") == Some("rt-tool-3.vectors"))
        .find_map(|c| c.children().find(|n| n.has_tag_name("failure")))
        .expect("a pinned vector failed");
    let body = text_of(vector);
    assert!(body.contains("\ncase:         {\"exposed\""), "{body}");
    // Its message: the paragraph its code cites, then its first sentence.
    let message = vector.attribute("message").expect("a message");
    let first = body.lines().next().expect("a first line");
    assert_eq!(message, format!("RT-TOOL-3 ¶1: {first}"));
    let doc = page(&html);
    let row = rows(&doc)
        .into_iter()
        .find(|r| r[0] == "RT-TOOL-3 ¶1")
        .expect("¶1's row");
    assert_eq!(row[2], "✗ not met");
    // The cell links to the counterexample: its case, expected and observed
    // side by side.
    let link = doc
        .descendants()
        .find(|n| n.has_tag_name("a") && text_of(*n) == "✗ not met")
        .and_then(|a| a.attribute("href"))
        .expect("a link");
    let section = doc
        .descendants()
        .find(|n| n.attribute("id") == link.strip_prefix('#'))
        .and_then(|h| h.parent())
        .expect("the counterexample");
    let captions: Vec<String> = section
        .descendants()
        .filter(|n| n.has_tag_name("figcaption"))
        .map(text_of)
        .collect();
    assert_eq!(
        captions,
        [
            "Minimal case",
            "Expected outcome (the reference)",
            "Observed outcome"
        ]
    );
    let case: serde_json::Value = section
        .descendants()
        .find(|n| n.has_tag_name("pre"))
        .map(|pre| rt_tool_3::wire::parse_value(text_of(pre).as_bytes()).expect("the case as JSON"))
        .expect("the case");
    assert!(case["calls"].is_array(), "{case}");
    assert!(
        section.descendants().any(|n| n.has_tag_name("ins")),
        "no differing line marked"
    );
    let (message, color) = badge(&badge_json);
    assert!(message.contains("¶1 not met"), "{message}");
    assert_eq!(color, "red");

    let (code, [xml, html, badge_json]) =
        reports(&scratch, "crash", &[bin, "serve", "--fault", "crash"]);
    assert_eq!(code, Some(2));
    let (doc, [_, failures, errors, _]) = junit(&xml);
    assert_eq!((failures, errors), (0, 1));
    let error = doc
        .descendants()
        .find(|n| n.has_tag_name("error"))
        .expect("an error");
    assert!(error
        .attribute("message")
        .is_some_and(|m| m.contains("crashed")));
    let doc = page(&html);
    assert!(text_of(doc.root_element()).contains("No standing: the process broke"));
    assert!(rows(&doc).is_empty(), "a broken run claims no clause");
    assert_eq!(badge(&badge_json).1, "lightgrey");

    // One that never starts: an error too.
    let (code, [xml, _, _]) = reports(&scratch, "absent", &["/nonexistent/implementation"]);
    assert_eq!(code, Some(2));
    assert_eq!(junit(&xml).1[2], 1);
}

/// A report that cannot be written: exit 2, one line naming the file.
#[test]
fn a_report_that_cannot_be_written_is_exit_2_in_one_line() {
    for flag in ["--junit", "--html", "--badge"] {
        let out = run(
            &[
                "diff",
                "--cases",
                "0",
                "--save",
                "/dev/null",
                flag,
                "/nonexistent/dir/report",
            ],
            b"",
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag}: {err}");
        assert_eq!(err.lines().count(), 1, "{flag}: {err}");
        assert!(
            err.contains("cannot write /nonexistent/dir/report"),
            "{flag}: {err}"
        );
    }
}

/// `rt-tool-3 report`: one page over the --json reports of several
/// implementations, a row each by the name it announced, each cell not
/// met linked to its counterexample; a file that is no such report is
/// refused in one line.
#[test]
fn report_compares_implementations_and_refuses_what_is_not_a_report() {
    let scratch = Scratch::new("compare");
    let bin = env!("CARGO_BIN_EXE_rt-tool-3");
    reports(&scratch, "ok", &[bin, "serve"]);
    reports(&scratch, "spoof", &[bin, "serve", "--fault", "spoof-id"]);
    reports(&scratch, "crash", &[bin, "serve", "--fault", "crash"]);
    reports(&scratch, "absent", &["/nonexistent/implementation"]);
    let json = |name: &str| scratch.0.join(format!("{name}.json")).display().to_string();
    let out_page = scratch.0.join("compare.html").display().to_string();
    let out = run(
        &[
            "report",
            &json("ok"),
            &json("spoof"),
            &json("crash"),
            &json("absent"),
            "--html",
            &out_page,
        ],
        b"",
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&out_page).expect("the page");
    let doc = page(&text);
    let table = rows(&doc);
    let names: Vec<&str> = table[1..].iter().map(|r| r[0].as_str()).collect();
    assert_eq!(
        names,
        [
            "rt-tool-3 serve",
            "rt-tool-3 serve --fault spoof-id",
            "rt-tool-3 serve --fault crash",
            "unnamed"
        ]
    );
    assert_eq!(&table[0][2..6], ["¶1", "¶2", "¶3", "¶4"]);
    assert_eq!(&table[1][2..6], ["✓ met", "✓ met", "✓ met", "✓ met"]);
    assert_eq!(table[2][2], "✗ not met");
    // A broken run is a row that says how it broke.
    assert_eq!(table[3][2], "no standing: broke during the run (crashed)");
    assert_eq!(table[4][2], "no standing: never started (cannot-start)");
    // What tells runs of one name apart: version, language, seed, reading,
    // cases, oracle.
    let oracle = format!("rt-tool-3 {}", env!("CARGO_PKG_VERSION"));
    assert!(
        table[1][1].starts_with(&format!(
            "{} (rust), seed 1, data-only, ",
            env!("CARGO_PKG_VERSION")
        )) && table[1][1].ends_with(&oracle),
        "{:?}",
        table[1]
    );
    assert!(!text.contains("Warning: rows"), "no two runs alike");
    // Every link leads somewhere on the page (checked by `page`); the
    // spoofer's ¶1 to its counterexample.
    let href = doc
        .descendants()
        .filter(|n| n.has_tag_name("a") && text_of(*n) == "✗ not met")
        .filter_map(|a| a.attribute("href"))
        .next()
        .expect("a link");
    let target = doc
        .descendants()
        .find(|n| n.attribute("id") == href.strip_prefix('#'))
        .expect("its target");
    assert_eq!(text_of(target), "RT-TOOL-3 ¶1: not met");
    // The same run twice: a warning that nothing tells the rows apart.
    let out = run(
        &[
            "report",
            &json("ok"),
            &json("spoof"),
            &json("ok"),
            "--html",
            &out_page,
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0));
    let text = std::fs::read_to_string(&out_page).expect("the page");
    assert!(
        text.contains("Warning: rows 1 and 3 share their name, version, seed, reading and oracle"),
        "{text}"
    );

    let junk = scratch.write("junk.json", "{\"not\": \"a report\"}");
    for (bad, says) in [
        (junk.as_str(), "is not the --json report"),
        ("/nonexistent/r.json", "cannot read"),
    ] {
        let out = run(&["report", &json("ok"), bad, "--html", &out_page], b"");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(says), "{err}");
    }
}

/// An implementation that announces a name full of markup, failing on a
/// case full of it: the page shows both as written and runs nothing, the
/// JUnit parses and says the name as written, and the Markdown standing
/// has no HTML, no link, and tables of their shape.
#[test]
fn markup_in_a_case_and_a_name_stays_text_in_every_report() {
    let scratch = Scratch::new("markup");
    let bin = env!("CARGO_BIN_EXE_rt-tool-3");
    // The name as JSON writes it (a newline as \n), and as it is.
    let name = r#"<script>alert(1)</script></td>]]>|\n[x](javascript:alert(1))<img src=x onerror=alert(2)>"#;
    let plain = name.replace("\\n", "\n");
    let wrapper = scratch.write(
        "hostile.sh",
        &format!(
            "#!/bin/sh\n{bin} serve --fault leak-payload | sed -u '1s%\"name\":\"[^\"]*\"%\"name\":\"{}\"%'\n",
            name.replace('\\', "\\\\")
        ),
    );
    let case = serde_json::json!({"calls": [{"tool_call_id": "</td><script>alert(3)</script>",
        "result": {"success": true, "data": "|a|b|\n<!--", "artifacts": [
            {"type": "]]><a href=\"javascript:alert(4)\">", "payload": {"`|x": "</pre>|\n<script>alert(5)</script>"}}]}}]});
    let replay = scratch.write("hostile-case.json", &case.to_string());
    let file = |ext: &str| scratch.0.join(format!("h.{ext}")).display().to_string();
    let out = Command::new(bin)
        .args([
            "diff",
            "--cases",
            "0",
            "--no-vectors",
            "--replay",
            &replay,
            "--json",
        ])
        .args([
            "--junit",
            &file("xml"),
            "--html",
            &file("html"),
            "--standing",
            &file("md"),
        ])
        .args(["--save", "/dev/null", "--", "sh", &wrapper])
        .output()
        .expect("diff runs");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let read = |ext: &str| std::fs::read_to_string(file(ext)).expect("a report");
    std::fs::write(file("json"), &out.stdout).expect("written");

    let html = read("html");
    let doc = page(&html);
    let h1 = doc
        .descendants()
        .find(|n| n.has_tag_name("h1"))
        .map(text_of);
    assert_eq!(
        h1,
        Some(format!(
            "RT-TOOL-3 standing: {plain} {} (rust)",
            rt_tool_3::ORACLE_VERSION
        ))
    );
    let pre: Vec<String> = doc
        .descendants()
        .filter(|n| n.has_tag_name("pre"))
        .map(text_of)
        .collect();
    // The minimal case and the judge's sentences, as the --json report
    // has them: the sentence names the call by its hostile id.
    let report: serde_json::Value = rt_tool_3::wire::parse(&out.stdout).expect("the report");
    let example = report["standing"]["clauses"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["status"] == "not-met"))
        .map(|c| &c["counterexample"])
        .expect("a clause not met");
    // First the request that showed it (a sibling, when one did), then
    // the case it was built from.
    let shown: Vec<serde_json::Value> = pre
        .iter()
        .filter_map(|p| rt_tool_3::wire::parse_value(p.as_bytes()).ok())
        .collect();
    let first = match example["sibling"].is_null() {
        true => &example["case"],
        false => &example["sibling"]["case"],
    };
    assert_eq!(&shown[0], first);
    assert!(shown.contains(&example["case"]), "{pre:?}");
    let reason = example["reason"][0].as_str().expect("a sentence");
    assert!(
        reason.contains("</td><script>alert(3)</script>"),
        "{reason}"
    );
    let items: Vec<String> = doc
        .descendants()
        .filter(|n| n.has_tag_name("li"))
        .map(text_of)
        .collect();
    assert!(items.iter().any(|i| i == reason), "{items:?}");

    let xml = read("xml");
    let (doc, _) = junit(&xml);
    let suites = doc.root_element().attribute("name").map(str::to_owned);
    assert_eq!(
        suites,
        Some(format!(
            "RT-TOOL-3 conformance: {plain} {} (rust)",
            rt_tool_3::ORACLE_VERSION
        ))
    );

    let md = read("md");
    use pulldown_cmark::{Event, Parser, Tag, TagEnd};
    let mut cells = 0;
    // The first heading's text, and whether it is still being read.
    let (mut heading, mut reading) = (None, false);
    for event in Parser::new_ext(&md, pulldown_cmark::Options::ENABLE_TABLES) {
        match event {
            Event::Html(h) | Event::InlineHtml(h) => panic!("HTML in the standing: {h}\n{md}"),
            Event::Start(Tag::Link { .. } | Tag::Image { .. }) => {
                panic!("a link in the standing\n{md}")
            }
            Event::Start(Tag::Heading { .. }) if heading.is_none() => {
                (heading, reading) = (Some(String::new()), true)
            }
            Event::End(TagEnd::Heading(_)) => reading = false,
            Event::Text(t) => {
                if let Some(h) = heading.as_mut().filter(|_| reading) {
                    h.push_str(&t);
                }
            }
            Event::Start(Tag::TableRow | Tag::TableHead) => cells = 0,
            Event::Start(Tag::TableCell) => cells += 1,
            Event::End(TagEnd::TableRow | TagEnd::TableHead) => assert_eq!(cells, 4, "{md}"),
            _ => {}
        }
    }
    assert_eq!(
        heading,
        Some(format!(
            "RT-TOOL-3 standing: {} {} (rust)",
            plain.replace('\n', "\u{240a}"),
            env!("CARGO_PKG_VERSION")
        ))
    );

    // And the page comparing it with the reference.
    let out_page = file("compare.html");
    let out = run(&["report", &file("json"), "--html", &out_page], b"");
    assert_eq!(out.status.code(), Some(0));
    let text = std::fs::read_to_string(&out_page).expect("the page");
    let doc = page(&text);
    assert_eq!(rows(&doc)[1][0], plain);
}

// ---------------------------------------------------------------------------
// Untrusted text stays text (RT-TOOL-6) in every report: hostile strings in
// every field a run can carry (ids, types, payloads, prose, the judge's
// sentences, the fault, the implementation's name, version and language)
// give JUnit and pages that still parse, in which no such string became
// markup and each reads back as written (its characters XML cannot hold
// shown by their stand-ins), and a Markdown standing with no HTML, no
// link, and tables of their shape.

mod hostile {
    use proptest::prelude::*;
    use serde_json::{json, Value};

    use super::{page, text_of};
    use rt_tool_3::diff::{Campaign, Report, Shard};
    use rt_tool_3::escape::visible;
    use rt_tool_3::judge::{Clause, Options};
    use rt_tool_3::report::{html, junit, Run};
    use rt_tool_3::standing::{ClauseStanding, Counterexample, Standing, Status};
    use rt_tool_3::wire::{Call, Case};

    /// Pieces that have broken reports elsewhere: tags, comments, CDATA ends,
    /// quotes, references, table pipes, line ends, controls, noncharacters,
    /// script links, Markdown's own marks.
    const HOSTILE: &[&str] = &[
        "<script>alert(1)</script>",
        "</script>",
        "</td>",
        "</pre>",
        "<!--",
        "-->",
        "]]>",
        "<![CDATA[",
        "\"",
        "'",
        "&",
        "&amp;",
        "&#0;",
        "|",
        "\n",
        "\r\n",
        "\t",
        "\u{0}",
        "\u{1}",
        "\u{1b}",
        "\u{7f}",
        "\u{fffe}",
        "\u{ffff}",
        "\u{85}",
        "[x](javascript:alert(1))",
        "javascript:alert(1)",
        "<a href=\"javascript:alert(1)\">x</a>",
        "<img src=x onerror=alert(1)>",
        "`",
        "```",
        "*_#",
        "\\",
        "    ",
        " ",
        "1. ",
        "- ",
    ];

    fn hostile() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            proptest::sample::select(HOSTILE).prop_map(str::to_owned),
            any::<String>(),
            "[a-z]{1,4}",
        ];
        proptest::collection::vec(piece, 0..6).prop_map(|pieces| pieces.concat())
    }

    /// Eleven hostile strings, one per field.
    fn fields() -> impl Strategy<Value = Vec<String>> {
        proptest::collection::vec(hostile(), 11)
    }

    /// `s` as a report shows it: each character XML cannot hold as its
    /// stand-in.
    fn shown(s: &str) -> String {
        s.chars().map(|c| visible(c).unwrap_or(c)).collect()
    }

    /// `s` as the Markdown standing shows it: line ends and tabs as their
    /// pictures too.
    fn shown_md(s: &str) -> String {
        s.chars()
            .map(|c| match c {
                '\t' | '\n' | '\r' => char::from_u32(0x2400 + c as u32).unwrap_or(c),
                c => visible(c).unwrap_or(c),
            })
            .collect()
    }

    /// A standing of an implementation that announced hostile names, not
    /// meeting ¶1 on a case full of hostile strings, with hostile sentences;
    /// and the process broken with a hostile message when `broken`.
    pub(super) fn standing(f: &[String], broken: bool) -> (Report, Standing) {
        let case = Case {
            exposed: None,
            calls: vec![Call {
                tool_call_id: f[0].clone(),
                result: json!({"success": true, "data": f[1], "artifacts": [
                {"type": f[2], "payload": {f[3].clone(): f[4]}}]}),
            }],
        };
        let expected = rt_tool_3::model::outcome(&case);
        let observed = json!({"messages": [{"tool_call_id": f[0], "content": f[1]}],
        "tool_artifacts": [{"type": f[2], "payload": {}, "tool_call_id": f[5]}], "exposed": false});
        let implementation = json!({"name": f[6], "version": f[7], "language": f[8]});
        let options = Options {
            strict_order: false,
            prose: rt_tool_3::judge::ProseMode::DataOnly,
            siblings: true,
        };
        let campaign = Campaign {
            fixed: 0,
            fixed_digest: String::new(),
            generated: 10,
            shard: Shard::WHOLE,
        };
        let report = Report::empty(options, implementation, 1, campaign);
        let mut standing = Standing::of(&report);
        let example = Counterexample {
            reason: vec![f[9].clone(), f[10].clone()],
            codes: vec!["unknown-call-id".into(), String::new()],
            case: case.clone(),
            expected: expected.clone(),
            observed,
            sibling: None,
            shrink_end: rt_tool_3::diff::ShrinkEnd::Minimal,
        };
        // The errored case: shown on its marked sibling, hostile as well.
        let errored = Counterexample {
            sibling: Some(rt_tool_3::diff::SiblingRun {
                name: "marked".into(),
                what: f[9].clone(),
                case,
                expected,
                observed: json!({"errored": true, "message": f[10]}),
            }),
            ..example.clone()
        };
        standing.clauses = Clause::ALL
            .into_iter()
            .map(|clause| ClauseStanding {
                clause,
                cite: clause.cite(),
                title: clause.title(),
                status: if clause == Clause::KeyByKey {
                    Status::NotMet
                } else {
                    Status::Met
                },
                cases: 3,
                skipped: 0,
                counterexample: (clause == Clause::KeyByKey).then(|| example.clone()),
            })
            .collect();
        standing.errored = Some(errored);
        if broken {
            standing.complete = false;
            standing.fault = Some(f[10].clone());
            standing.clauses.clear();
        }
        (report, standing)
    }

    /// The page passes [`page`] and shows each hostile string as written.
    fn check_page(text: &str, run: &Run, f: &[String]) -> Result<(), TestCaseError> {
        let doc = page(text);
        let h1 = doc
            .descendants()
            .find(|n| n.has_tag_name("h1"))
            .map(text_of)
            .unwrap_or_default();
        let heading = format!(
            "RT-TOOL-3 standing: {} {} ({})",
            shown(&f[6]),
            shown(&f[7]),
            shown(&f[8])
        );
        let texts: Vec<String> = doc
            .descendants()
            .filter(|n| n.is_element())
            .map(text_of)
            .collect();
        prop_assert_eq!(h1, heading);
        if run.said.fault.is_none() {
            for reason in &f[9..11] {
                prop_assert!(
                    texts.contains(&shown(reason)),
                    "the sentence {reason:?} is not shown as written"
                );
            }
            let observed = rt_tool_3::report::json_pretty(
                &run.said.clauses[0]
                    .counterexample
                    .as_ref()
                    .map(|x| x.observed.clone())
                    .unwrap_or(Value::Null),
            );
            prop_assert!(
                texts.contains(&shown(&observed)),
                "the observed outcome is not shown as written"
            );
        } else {
            let fault = shown(&f[10]);
            prop_assert!(
                texts.iter().any(|t| t.contains(&fault)),
                "the fault is not shown as written"
            );
        }
        Ok(())
    }

    fn check_junit(xml: &str, f: &[String], broken: bool) -> Result<(), TestCaseError> {
        let doc = roxmltree::Document::parse(xml)
            .map_err(|e| TestCaseError::fail(format!("the JUnit does not parse: {e}\n{xml}")))?;
        let root = doc.root_element();
        prop_assert_eq!(root.tag_name().name(), "testsuites");
        let who = format!("{} {} ({})", shown(&f[6]), shown(&f[7]), shown(&f[8]));
        prop_assert_eq!(
            root.attribute("name").map(str::to_owned),
            Some(format!("RT-TOOL-3 conformance: {who}"))
        );
        if broken {
            let error = doc.descendants().find(|n| n.has_tag_name("error"));
            prop_assert_eq!(
                error
                    .and_then(|e| e.attribute("message"))
                    .map(str::to_owned),
                Some(shown(&f[10]))
            );
        } else {
            let failure = doc
                .descendants()
                .find(|n| n.has_tag_name("failure"))
                .ok_or_else(|| TestCaseError::fail("no failure"))?;
            // Its message names its clause, then its first sentence.
            prop_assert_eq!(
                failure.attribute("message").map(str::to_owned),
                Some(format!("RT-TOOL-3 ¶1: {}", shown(&f[9])))
            );
            let sentences = format!("{}\n{}\n", shown(&f[9]), shown(&f[10]));
            prop_assert!(
                text_of(failure).starts_with(&sentences),
                "the sentences are not the failure's first lines"
            );
        }
        Ok(())
    }

    /// The Markdown standing: no HTML and no link anywhere, the heading and
    /// each sentence read as written, every table row of four cells.
    fn check_markdown(md: &str, f: &[String], broken: bool) -> Result<(), TestCaseError> {
        use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
        let mut texts = Vec::new();
        let mut current: Option<String> = None;
        let mut cells = 0;
        for event in Parser::new_ext(md, Options::ENABLE_TABLES) {
            match event {
                Event::Html(h) | Event::InlineHtml(h) => {
                    return Err(TestCaseError::fail(format!(
                        "HTML in the standing: {h:?}\n{md}"
                    )))
                }
                Event::Start(Tag::Link { .. } | Tag::Image { .. }) => {
                    return Err(TestCaseError::fail(format!("a link in the standing\n{md}")))
                }
                Event::Start(Tag::Heading { .. } | Tag::Item) => current = Some(String::new()),
                Event::End(TagEnd::Heading(_) | TagEnd::Item) => texts.extend(current.take()),
                Event::Text(t) | Event::Code(t) => {
                    if let Some(c) = &mut current {
                        c.push_str(&t);
                    }
                }
                Event::Start(Tag::TableRow | Tag::TableHead) => cells = 0,
                Event::Start(Tag::TableCell) => cells += 1,
                Event::End(TagEnd::TableRow | TagEnd::TableHead) => {
                    prop_assert_eq!(cells, 4, "a table row of {} cells\n{}", cells, md)
                }
                _ => {}
            }
        }
        // The name, the version and the language announced.
        let heading = format!(
            "RT-TOOL-3 standing: {} {} ({})",
            shown_md(&f[6]),
            shown_md(&f[7]),
            shown_md(&f[8])
        );
        prop_assert_eq!(texts.first(), Some(&heading));
        if !broken {
            for reason in &f[9..11] {
                prop_assert!(
                    texts.contains(&shown_md(reason)),
                    "{reason:?} not read as written\n{md}"
                );
            }
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 256,
            failure_persistence: Some(Box::new(rt_tool_3::gen::AtomicRegressions(
                "proptest-regressions/reports.txt",
            ))),
            ..ProptestConfig::default()
        })]

        #[test]
        fn hostile_text_stays_text_in_every_report(f in fields(), broken in any::<bool>()) {
            let (report, standing) = standing(&f, broken);
            let run = Run::of(&report, &standing)
                .map_err(TestCaseError::fail)?;
            check_junit(&junit::junit(&run), &f, broken)?;
            check_page(&html::standing(&run), &run, &f)?;
            check_markdown(&standing.markdown(), &f, broken)?;
            let compared = html::compare(&[run.clone(), run]);
            let doc = page(&compared);
            let names: Vec<String> = doc
                .descendants()
                .filter(|n| n.has_tag_name("th") && n.attribute("scope") == Some("row"))
                .map(text_of)
                .collect();
            prop_assert_eq!(names, vec![shown(&f[6]), shown(&f[6])]);
        }
    }
}

/// The reports' structure, pinned and read by hand: the JUnit, the page
/// and the badge of a run whose implementation breaks ¶1 on a one-call
/// case, every other clause met (three cases each).
#[test]
fn the_reports_structure() {
    let fields = [
        "c1",
        "found 2 files",
        "file",
        "name",
        "a.txt",
        "c2",
        "an adapter",
        "1.0.0",
        "python",
        "tool_artifacts[0] carries tool_call_id \"c2\", which is no call of this invocation",
        "a second sentence",
    ]
    .map(str::to_owned);
    let (report, mut standing) = hostile::standing(&fields, false);
    standing.errored = None;
    (standing.cases, standing.requests) = (3, 9);
    let run = rt_tool_3::report::Run::of(&report, &standing).expect("the run");
    let version = |text: String| text.replace(env!("CARGO_PKG_VERSION"), "[version]");
    // In a folder of their own: every snapshot directly in `snapshots/`
    // is an example verdict's (`tests/rule/verdicts.rs`).
    insta::with_settings!({
        snapshot_path => "../../snapshots/reports",
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_snapshot!("report_junit", version(rt_tool_3::report::junit::junit(&run)));
        insta::assert_snapshot!("report_html", version(rt_tool_3::report::html::standing(&run)));
        insta::assert_snapshot!("report_badge", rt_tool_3::report::badge::badge(&run));
    });
}

/// Exit 2 with one line on stderr that names the input bound, nothing on
/// stdout.
fn over_the_bound(args: &[&str], stdin: &[u8]) -> String {
    let out = run(args, stdin);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: stderr {err}");
    assert!(out.stdout.is_empty(), "{args:?}: partial stdout");
    assert_eq!(err.lines().count(), 1, "{args:?}: not one line: {err}");
    assert!(
        err.contains("over the input bound of") && err.contains("--max-input-bytes"),
        "{args:?}: {err:?} does not name the bound"
    );
    err.into_owned()
}

/// An endless input (`/dev/zero`) to `verdict`, `check` and `merge` is
/// refused at the default bound, 1 GiB, after reading one byte past it:
/// one line naming the bound, exit 2, no allocation failure.
#[test]
fn an_endless_input_is_refused_at_the_default_bound() {
    let dir = tempdir("bound");
    let case = dir.join("case.json");
    std::fs::write(&case, br#"{"calls": []}"#).expect("write");
    let case = case.to_str().expect("utf-8");
    for args in [
        &["verdict", "/dev/zero"][..],
        &["check", case, "/dev/zero"],
        &["check", "/dev/zero", case],
        &["merge", "/dev/zero"],
    ] {
        let err = over_the_bound(args, b"");
        assert!(
            err.contains(&format!("over the input bound of {} bytes", 1u64 << 30)),
            "{args:?}: {err}"
        );
    }
}

/// `--max-input-bytes` moves the bound, for every command that reads an
/// input: a file of exactly the bound is read, one byte more is refused by
/// its size, and so is stdin or a `--replay` file over it.
#[test]
fn max_input_bytes_moves_the_bound() {
    let dir = tempdir("bound-flag");
    let text = br#"{"calls": []}"#;
    let case = dir.join("case.json");
    std::fs::write(&case, text).expect("write");
    let case = case.to_str().expect("utf-8");
    let exact = text.len().to_string();
    let less = (text.len() - 1).to_string();
    let out = run(&["verdict", case, "--max-input-bytes", &exact], b"");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    over_the_bound(&["verdict", case, "--max-input-bytes", &less], b"");
    over_the_bound(&["--max-input-bytes", &less, "verdict"], text);
    let outcome = dir.join("outcome.json");
    std::fs::write(
        &outcome,
        br#"{"exposed": false, "messages": [], "tool_artifacts": []}"#,
    )
    .expect("write");
    let outcome = outcome.to_str().expect("utf-8");
    let out = run(&["check", case, outcome, "--max-input-bytes", "100"], b"");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    over_the_bound(&["check", case, outcome, "--max-input-bytes", "20"], b"");
    over_the_bound(&["merge", case, "--max-input-bytes", &less], b"");
    over_the_bound(
        &[
            "diff",
            "--cases",
            "0",
            "--replay",
            case,
            "--max-input-bytes",
            &less,
        ],
        b"",
    );
}

/// A fresh directory for one test of the command line.
fn tempdir(what: &str) -> std::path::PathBuf {
    support::tempdir(&format!("cli-{what}"))
}

/// With `--json`, an exit 2 before anything was written on stdout says its
/// code there too, in one JSON line (`src/codes.md`): an invalid case to
/// `check`. A run of `diff` that broke, at its start or later, prints its
/// report alone, the fault's code in it.
#[test]
fn an_exit_2_under_json_says_its_code_on_stdout() {
    let dir = support::tempdir("exit-2-json");
    let case = dir.join("case.json");
    let outcome = dir.join("outcome.json");
    std::fs::write(&case, "{\"calls\": [7]}").expect("write");
    std::fs::write(&outcome, "{}").expect("write");
    let documented = |code: &str| {
        rt_tool_3::code::EXIT_2
            .iter()
            .chain(rt_tool_3::code::PROCESS_FAULTS.iter())
            .any(|(c, _)| *c == code)
    };
    let error = |args: &[&str]| {
        let out = Command::new(support::BIN)
            .args(args)
            .output()
            .expect("it runs");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(stdout.lines().count(), 1, "{args:?}: {stdout}");
        let line: serde_json::Value = serde_json::from_str(&stdout).expect("one JSON line");
        let code = line["error"]["code"].as_str().expect("a code").to_owned();
        assert!(documented(&code), "{code}");
        let message = line["error"]["message"].as_str().expect("a message");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(message), "{err} vs {message}");
        code
    };
    let (case, outcome) = (case.display().to_string(), outcome.display().to_string());
    assert_eq!(
        error(&["check", "--json", &case, &outcome]),
        "invalid-input"
    );
    // An implementation that cannot start: the run's report, which says
    // so in its fault, as every other broken run's does.
    let out = Command::new(support::BIN)
        .args(["diff", "--json", "--save", "/dev/null", "--"])
        .arg("/nonexistent/adapter")
        .output()
        .expect("diff runs");
    assert_eq!(out.status.code(), Some(2));
    let report: serde_json::Value = rt_tool_3::wire::parse(&out.stdout).expect("the report alone");
    assert_eq!(report["fault"]["code"], "cannot-start", "{report}");
    assert_eq!(report["fault"]["phase"], "start", "{report}");
    assert!(report.get("error").is_none(), "{report}");
    let out = Command::new(support::BIN)
        .current_dir(&dir)
        .args([
            "diff",
            "--json",
            "--cases",
            "20",
            "--seed",
            "3",
            "--save",
            "/dev/null",
        ])
        .args(["--", support::BIN, "serve", "--fault", "crash"])
        .output()
        .expect("diff runs");
    assert_eq!(out.status.code(), Some(2));
    let report: serde_json::Value = rt_tool_3::wire::parse(&out.stdout).expect("the report alone");
    assert_eq!(report["fault"]["code"], "crashed", "{report}");
    assert!(report.get("error").is_none(), "{report}");
    let _ = std::fs::remove_dir_all(dir);
}

/// A report holding a case nested as deep as the generators nest one (a
/// payload 501 levels deep, the report 512) is read back by `merge`, by
/// `report` (its counterexample that deep too, as when an implementation
/// fails on the depth alone) and by `--replay`: every document the oracle
/// writes, it reads within its own nesting bound, not serde_json's 128.
#[test]
fn a_report_holding_a_case_at_the_nesting_bound_is_read_back() {
    let scratch = Scratch::new("deep-report");
    let bin = env!("CARGO_BIN_EXE_rt-tool-3");
    let chain = (0..rt_tool_3::gen::DEEPEST_PAYLOAD)
        .fold(serde_json::json!(0), |v, _| serde_json::json!({ "d": v }));
    let case = serde_json::json!({"exposed": null, "calls": [{"tool_call_id": "c1", "result": {"success": true,
        "artifacts": [{"type": "link", "payload": chain}]}}]});
    let case_file = scratch.write("case.json", &case.to_string());
    let save = scratch.0.join("save.json").display().to_string();
    let out = run(
        &[
            "diff",
            "--cases",
            "0",
            "--no-vectors",
            "--replay",
            &case_file,
            "--json",
        ]
        .into_iter()
        .chain(["--save", &save, "--", bin, "serve", "--fault", "drop-last"])
        .collect::<Vec<_>>(),
        b"",
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut report: serde_json::Value = rt_tool_3::wire::parse(&out.stdout).expect("the report");
    let found = report["divergences"][0]["found"][0]["case"].clone();
    assert!(found == case, "the case the report holds is the case sent");
    let json_file = scratch.write("report.json", &report.to_string());
    let merged = run(&["merge", &json_file], b"");
    assert_eq!(
        merged.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&merged.stderr)
    );
    let replayed = run(
        &[
            "diff",
            "--cases",
            "0",
            "--no-vectors",
            "--replay",
            &save,
            "--",
            bin,
            "serve",
        ],
        b"",
    );
    assert_eq!(
        replayed.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&replayed.stderr)
    );
    for clause in report["standing"]["clauses"]
        .as_array_mut()
        .expect("clauses")
    {
        if clause["counterexample"].is_object() {
            clause["counterexample"]["case"] = found.clone();
        }
    }
    let deep = scratch.write("deep.json", &report.to_string());
    let html = scratch.0.join("page.html").display().to_string();
    let out = run(&["report", &deep, "--html", &html], b"");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// An argument clap refuses ends as any invalid input does: one line on
/// stderr, exit 2, and with `--json` (before `--`; after it the arguments
/// are the implementation's) one coded `invalid-input` line on stdout.
#[test]
fn an_argument_error_is_one_line_and_coded_under_json() {
    let refused: [&[&str]; 5] = [
        &["diff", "--json", "--cases", "abc"],
        &["diff", "--seed", "1", "--shard", "3/2", "--json"],
        &["diff", "--json", "--no-such-flag"],
        &["check", "--json", "--prose", "loose", "a", "b"],
        &["cases", "--census", "lots", "--json"],
    ];
    for args in refused {
        for json in [true, false] {
            let args: Vec<&str> = args
                .iter()
                .copied()
                .filter(|a| json || *a != "--json")
                .chain(["--", "impl", "--json"])
                .collect();
            let out = Command::new(support::BIN)
                .args(&args)
                .output()
                .expect("it runs");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
            assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
            assert!(stderr.starts_with("rt-tool-3: "), "{args:?}: {stderr}");
            let stdout = String::from_utf8_lossy(&out.stdout);
            if !json {
                assert_eq!(stdout, "", "{args:?}");
                continue;
            }
            assert_eq!(stdout.lines().count(), 1, "{args:?}: {stdout}");
            let line: serde_json::Value = serde_json::from_str(&stdout).expect("one JSON line");
            assert_eq!(line["error"]["code"], "invalid-input", "{args:?}: {line}");
            let message = line["error"]["message"].as_str().expect("a message");
            assert!(stderr.contains(message), "{stderr} vs {message}");
        }
    }
}

/// The text report of `diff --cases 5 --seed 1` against `command`, which
/// must diverge; it holds no character a terminal acts on but the line
/// feeds ending its lines.
fn on_a_terminal(command: &[&str]) -> String {
    let out = Command::new(support::BIN)
        .args(["diff", "--cases", "5", "--seed", "1", "--save", "/dev/null"])
        .arg("--")
        .args(command)
        .output()
        .expect("diff runs");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let acted_on = text
        .chars()
        .find(|&c| (c.is_control() && c != '\n') || ('\u{2028}'..='\u{202e}').contains(&c));
    assert_eq!(acted_on, None, "{text:?}");
    text
}

/// An implementation announcing a name that would set the terminal's
/// title, clear the screen, overwrite its line and reverse the text after
/// it: the text report's bytes hold none of those characters, only their
/// escapes, and the name stays on the report's first line.
#[test]
fn a_hostile_name_reaches_the_terminal_as_escapes() {
    let ready = r#"{"ready":true,"version":1,"implementation":{"name":"x\u001b]0;owned\u0007\u001b[2J\r\nFAKE \u009b31m\u202eevil\u2028","version":"1\u0085","language":"\u001b[31mphp"}}"#;
    let script = format!(
        "read start; printf '%s\\n' '{ready}'; exec {} serve --fault spoof-id",
        support::BIN
    );
    let text = on_a_terminal(&["sh", "-c", &script]);
    let first = text.lines().next().expect("a first line");
    assert!(
        first.starts_with(
            r"rt-tool-3 diff: x\u001b]0;owned\u0007\u001b[2J\r\nFAKE \u009b31m\u202eevil\u2028 (\u001b[31mphp) against "
        ),
        "{first}"
    );
}

/// The same strings in every place of an outcome an implementation writes:
/// the prose, an artifact's type, payload key and value, and its call id.
/// The findings quote them and the report shows the outcome: on the
/// terminal, as escapes.
#[test]
fn hostile_strings_in_an_outcome_reach_the_terminal_as_escapes() {
    let wrapper = format!(
        r#"
import json, subprocess, sys
H = json.dumps("\x1b]0;owned\x07\x1b[2J\r\nFAKE \x9b31m\u202eevil\u2028\x85", ensure_ascii=False)
entry = '{{"type":%s,"payload":{{%s:%s}},"tool_call_id":%s}}' % (H, H, H, H)
serve = subprocess.Popen([{bin:?}, "serve"], stdout=subprocess.PIPE, text=True)
# Into serve's compact replies as text, so every number stays as written.
for line in serve.stdout:
    line = line.replace('"content":"', '"content":' + H[:-1])
    line = line.replace('"tool_artifacts":[]', '"tool_artifacts":[' + entry + ']')
    line = line.replace('"tool_artifacts":[{{', '"tool_artifacts":[' + entry + ',{{')
    sys.stdout.write(line)
    sys.stdout.flush()
"#,
        bin = support::BIN
    );
    let text = on_a_terminal(&["python3", "-c", &wrapper]);
    assert!(text.contains(r"\u001b]0;owned\u0007"), "{text}");
    assert!(text.contains(r"\u009b31m\u202eevil\u2028\u0085"), "{text}");
}

/// What the text shows of a string is what the README says: whole up to
/// 512 bytes, quoted by a finding as in a value; a longer one cut to its
/// first 64 characters and its length.
#[test]
fn a_message_quotes_a_string_of_up_to_512_bytes_whole() {
    let dir = tempdir("quoted");
    for (len, whole) in [(239, true), (512, true), (513, false)] {
        let secret = "s".repeat(len);
        let case = serde_json::json!({"calls": [{"tool_call_id": "c1", "result": {"success": true,
            "data": "d", "artifacts": [{"type": "link", "payload": {"url": secret}}]}}]});
        let outcome = serde_json::json!({"messages": [{"tool_call_id": "c1", "content": secret}],
            "tool_artifacts": [{"type": "link", "payload": {"url": secret}, "tool_call_id": "c1"}],
            "exposed": false});
        let (c, o) = (dir.join("case.json"), dir.join("outcome.json"));
        std::fs::write(&c, case.to_string()).expect("written");
        std::fs::write(&o, outcome.to_string()).expect("written");
        let out = Command::new(support::BIN)
            .args(["check", &c.display().to_string(), &o.display().to_string()])
            .output()
            .expect("check runs");
        assert_eq!(out.status.code(), Some(1), "{len}");
        let text = String::from_utf8_lossy(&out.stdout);
        let cut = format!("\"{}\"…[{len} bytes]", "s".repeat(64));
        assert_eq!(
            text.contains(&format!("\"{secret}\"")),
            whole,
            "{len}: {text}"
        );
        assert_eq!(text.contains(&cut), !whole, "{len}: {text}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// A hostile announced name and hostile strings in every place of an
/// outcome (the prose, an artifact's type, payload key and value, and its
/// call id), through every output a run writes: `--json` and `--save` hold
/// them exactly, as JSON escapes them; the JUnit and the page parse as XML;
/// they and the Markdown standing hold no character a terminal acts on
/// (`cat` on a CI log shows them safely), the C0 controls as their Control
/// Pictures (`␛`) and the rest as numeric references (`&#x9b;`); the
/// terminal's bytes hold none either, only JSON-style escapes (`\u001b`).
#[test]
fn a_hostile_name_and_outcome_reach_every_output_as_text() {
    let scratch = Scratch::new("hostile-all");
    let hostile = "\u{1b}]0;owned\u{7}\u{1b}[2J\r\nFAKE \u{9b}31m\u{202e}evil\u{2028}\u{85}";
    let wrapper = format!(
        r#"
import json, subprocess, sys
H = json.dumps("\x1b]0;owned\x07\x1b[2J\r\nFAKE \x9b31m\u202eevil\u2028\x85", ensure_ascii=False)
entry = '{{"type":%s,"payload":{{%s:%s}},"tool_call_id":%s}}' % (H, H, H, H)
serve = subprocess.Popen([{bin:?}, "serve"], stdout=subprocess.PIPE, text=True)
for line in serve.stdout:
    if line.startswith('{{"ready"'):
        ready = json.loads(line)
        ready["implementation"]["name"] = json.loads(H)
        line = json.dumps(ready, ensure_ascii=False) + "\n"
    line = line.replace('"content":"', '"content":' + H[:-1])
    line = line.replace('"tool_artifacts":[]', '"tool_artifacts":[' + entry + ']')
    line = line.replace('"tool_artifacts":[{{', '"tool_artifacts":[' + entry + ',{{')
    sys.stdout.write(line)
    sys.stdout.flush()
"#,
        bin = support::BIN
    );
    let file = |ext: &str| scratch.0.join(format!("h.{ext}")).display().to_string();
    let out = Command::new(support::BIN)
        .args(["diff", "--cases", "5", "--seed", "1", "--json"])
        .args(["--save", &file("save.json"), "--junit", &file("xml")])
        .args(["--html", &file("html"), "--standing", &file("md")])
        .args(["--badge", &file("badge.json"), "--", "python3", "-c"])
        .arg(&wrapper)
        .output()
        .expect("diff runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let read = |ext: &str| std::fs::read_to_string(file(ext)).expect("a report");
    // The JSON outputs: the strings exactly, in the name and the findings.
    for (what, text) in [
        (
            "--json",
            String::from_utf8(out.stdout.clone()).expect("UTF-8"),
        ),
        ("--save", read("save.json")),
    ] {
        let value = rt_tool_3::wire::parse_value(text.as_bytes()).expect("JSON");
        let mut found = Vec::new();
        strings_of(&value, &mut found);
        assert!(found.iter().any(|s| s == hostile), "{what}: the name");
        assert!(
            found.iter().any(|s| s != hostile && s.contains(hostile)),
            "{what}: a finding quoting the outcome's string"
        );
    }
    let acted_on = |c: char| {
        (c.is_control() && !matches!(c, '\n' | '\t')) || ('\u{2028}'..='\u{202e}').contains(&c)
    };
    for ext in ["xml", "html", "md"] {
        let text = read(ext);
        assert_eq!(text.chars().find(|&c| acted_on(c)), None, "{ext}: {text}");
        // Markdown writes punctuation behind a backslash.
        let pictured = match ext {
            "md" => r"␛\]0\;owned␇",
            _ => "␛]0;owned␇",
        };
        assert!(text.contains(pictured), "{ext}: {text}");
        assert!(
            text.contains("&#x9b;31m&#x202e;evil&#x2028;"),
            "{ext}: {text}"
        );
        if ext != "md" {
            roxmltree::Document::parse_with_options(
                &text,
                roxmltree::ParsingOptions {
                    allow_dtd: true,
                    ..roxmltree::ParsingOptions::default()
                },
            )
            .unwrap_or_else(|e| panic!("{ext} does not parse: {e}"));
        }
    }
    let badge = rt_tool_3::wire::parse_value(read("badge.json").as_bytes()).expect("JSON");
    assert!(badge.is_object(), "{badge}");
    let terminal = Command::new(support::BIN)
        .args(["diff", "--cases", "5", "--seed", "1", "--save", "/dev/null"])
        .args(["--", "python3", "-c", &wrapper])
        .output()
        .expect("diff runs");
    let bytes = String::from_utf8(terminal.stdout).expect("UTF-8");
    assert_eq!(bytes.chars().find(|&c| acted_on(c)), None, "{bytes:?}");
    assert!(bytes.contains(r"\u001b]0;owned\u0007"), "{bytes}");
}

/// Every string in `v`, at any depth, keys included.
fn strings_of(v: &serde_json::Value, found: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => found.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|x| strings_of(x, found)),
        serde_json::Value::Object(m) => m.iter().for_each(|(k, x)| {
            found.push(k.clone());
            strings_of(x, found)
        }),
        _ => {}
    }
}
