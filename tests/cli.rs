//! The command line as users and scripts see it: exit codes, one-line errors,
//! nothing partial on stdout.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Output, Stdio};

use rt_tool_3::wire::Case;

fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rt-tool-3"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut pipe = child.stdin.take().expect("stdin is piped");
    let input = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        // The binary may refuse early and close its end; that is not our failure.
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().expect("the binary ends");
    writer.join().expect("the writer ends");
    out
}

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
    let outcome: serde_json::Value = serde_json::from_slice(&from_file.stdout).expect("json");
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
            "RT-TOOL-3 ¶3: the prose of call c1 is \"Node created.\"",
        ),
        (
            &["check", case, &spoof],
            1,
            "RT-TOOL-3 ¶1: tool_artifacts[0] carries tool_call_id \"c7\"",
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
            "protocol: the prose of call c1 holds a lone surrogate \\ud83d: it is not a Unicode string",
        ),
        (
            &["check", "--json", case, &lone_prose],
            1,
            r#""clause":"protocol","cite":{"rule":null,"paragraph":null},"message":"the prose of call c1 holds a lone surrogate \\ud83d"#,
        ),
        (
            &["check", case, &lone_payload],
            1,
            "RT-TOOL-3 ¶1: tool_artifacts[0] (call c1, type link) has a payload that differs from the artifact's at /url (the string there holds a lone surrogate \\udc00: it is not a Unicode string)",
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
    let outcome: serde_json::Value = serde_json::from_slice(&out.stdout).expect("an outcome");
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
    let outcome = |name: &str, messages: &str, artifacts: &str| {
        write(
            name,
            &format!(r#"{{"messages":{messages},"tool_artifacts":{artifacts},"exposed":false}}"#),
        )
    };
    let table: Vec<(&str, String, &str)> = vec![
        (
            &reserved,
            outcome("leak.json", r#"[{"tool_call_id":"c1","content":"x https://example.com/only-here"}]"#, "[]"),
            "RT-TOOL-3 ¶3: the prose of call c1 contains \"https://example.com/only-here\"",
        ),
        (
            &two,
            outcome(
                "swapped.json",
                r#"[{"tool_call_id":"c1","content":"Deleted node 7 (final)."},{"tool_call_id":"c2","content":"Created node 5 (draft)."}]"#,
                "[]",
            ),
            "RT-TOOL-3 ¶3: the prose of call c1 contains \"Deleted node 7 (final).\", found only in the data of call c2",
        ),
        (
            &two,
            outcome(
                "error.json",
                r#"[{"tool_call_id":"c1","content":"Created node 5 (draft). warning: slow backend"},{"tool_call_id":"c2","content":"Deleted node 7 (final)."}]"#,
                "[]",
            ),
            "RT-TOOL-3 ¶3: the prose of call c1 contains \"warning: slow backend\", found only in the error of call c1",
        ),
        (
            &declined,
            outcome(
                "declined-out.json",
                r#"[{"tool_call_id":"c1","content":"no"}]"#,
                r#"[{"type":"link","payload":{"url":"https://example.com/declined"},"tool_call_id":"c1"}]"#,
            ),
            "RT-TOOL-2: tool_artifacts[0] is entry 0 of call c1's artifacts, which RT-TOOL-2 drops",
        ),
        (
            &many,
            outcome("none.json", r#"[{"tool_call_id":"c1","content":"d"}]"#, "[]"),
            "RT-TOOL-6: tool_artifacts holds 0 of the run's 51 kept artifacts",
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

/// A `--timeout` too long for a `Duration` is refused in one line; one
/// that a `Duration` holds but no deadline can reach is no timeout at all,
/// and the run goes on as usual.
#[test]
fn diff_takes_any_timeout_without_a_panic() {
    let save = std::env::temp_dir().join(format!("rt-tool-3-timeout-{}.json", std::process::id()));
    let save = save.display().to_string();
    let diff = |timeout: &str| {
        let args = [
            "diff",
            "--cases",
            "2",
            "--seed",
            "1",
            "--save",
            &save,
            "--timeout",
            timeout,
        ];
        let out = run(&args, b"");
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        (out.status.code(), err)
    };
    for too_long in ["1e300", "1.8446744073709552e19"] {
        let (code, err) = diff(too_long);
        assert_eq!(code, Some(2), "{too_long}: {err}");
        assert_eq!(err.lines().count(), 1, "{too_long}: {err}");
        assert!(
            err.contains("--timeout") && err.contains("too long"),
            "{err}"
        );
    }
    for long in ["1e19", "1e12", "0.5"] {
        let (code, err) = diff(long);
        assert_eq!(code, Some(0), "{long}: {err}");
        assert!(err.is_empty(), "{long}: {err}");
    }
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
    let outcome: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
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
        let outcome: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
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
    let census: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
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

/// A divergence over RT-TOOL-6's payload floor carries a half-megabyte
/// string in its case, its expected and its observed outcome. The report
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
    assert_eq!(cut.len(), 3, "{text}");
    for line in cut {
        let value = line.split_once(": ").map_or(line, |(_, v)| v).trim();
        assert!(serde_json::from_str::<serde_json::Value>(value).is_err());
        let length: usize = value
            .split_once("…[")
            .and_then(|(_, rest)| rest.split_once(" bytes]"))
            .and_then(|(n, _)| n.parse().ok())
            .expect("a length");
        assert!(length > 512_000, "{line}");
    }
    assert!(
        text.contains("the saved vectors and --json hold it whole"),
        "{text}"
    );
    let saved = std::fs::read_to_string(&save).expect("saved");
    assert!(
        saved.contains(&"x".repeat(512_001)),
        "the saved vectors lost the payload"
    );
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

fn tempdir(what: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("rt-tool-3-cli-{what}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}
