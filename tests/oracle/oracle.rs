//! The oracle end to end: `diff` against `serve`, conforming and with a
//! seeded fault, caught and attributed to its clause with its standing
//! (every clause fault on ten seeds is `tests/catalogue/`); process faults
//! end with exit 2, one line naming the case, within the timeout.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{self, BIN};

/// Runs `diff` against `serve` with `serve_args`, from a fresh directory,
/// under the watchdog ([`WATCHDOG`]).
fn diff(name: &str, diff_args: &[&str], serve_args: &[&str]) -> (Output, std::path::PathBuf) {
    let dir = support::tempdir(&format!("oracle-{name}"));
    let child = Command::new(BIN)
        .current_dir(&dir)
        .arg("diff")
        .args(diff_args)
        .arg("--")
        .arg(BIN)
        .arg("serve")
        .args(serve_args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("diff runs");
    let what = format!("{name}: diff {diff_args:?} against serve {serve_args:?}");
    let out = support::watch(child, WATCHDOG, &what);
    (out, dir)
}

/// How long any `diff` here may take.
const WATCHDOG: Duration = Duration::from_secs(120);

/// How many pinned conformance vectors every `diff` runs first.
fn pinned() -> usize {
    rt_tool_3::vectors::examples().expect("the examples").len()
}

#[test]
fn conforming_server_passes() {
    let (out, dir) = diff(
        "conform",
        &["--cases", "300", "--seed", "11", "--json"],
        &[],
    );
    let report: Value = rt_tool_3::wire::parse(&out.stdout).expect("a JSON report");
    assert_eq!(out.status.code(), Some(0), "{report}");
    assert_eq!(report["cases"], 300 + pinned());
    assert_eq!(report["replayed"], pinned());
    assert_eq!(report["vectors"]["run"], pinned());
    assert_eq!(report["vectors"]["failed"], serde_json::json!([]));
    assert_eq!(
        report["requests"],
        3 * (300 + pinned()),
        "three requests per case"
    );
    assert_eq!(report["divergences"], Value::Array(vec![]));
    assert_eq!(report["rule_hash"], rt_tool_3::RULE_HASH);
    assert_eq!(report["standing"]["complete"], true);
    for clause in report["standing"]["clauses"].as_array().expect("clauses") {
        assert_eq!(clause["status"], "met", "{clause}");
        assert!(clause["cases"].as_u64() > Some(0), "{clause}");
    }
    assert!(
        !dir.join("rt-tool-3-divergences.json").exists(),
        "nothing saved on a pass"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// A failed call's `error` in its prose passes the default reading of ¶3
/// and breaks its letter.
#[test]
fn a_failed_calls_error_in_its_prose_breaks_only_the_letter() {
    let (out, dir) = diff(
        "failed-error-default",
        &["--cases", "256", "--seed", "5", "--json"],
        &["--fault", "failed-error-prose"],
    );
    let report: Value = rt_tool_3::wire::parse(&out.stdout).expect("a JSON report");
    assert_eq!(out.status.code(), Some(0), "{report}");
    assert_eq!(report["reading"], "data-only");
    let _ = std::fs::remove_dir_all(dir);
    caught("failed-error-prose", "RT-TOOL-3 ¶3", &["--prose", "letter"]);
}

/// ¶4 is judged on siblings that change the exposure and nothing else.
/// A runtime that drops only the artifacts made to be seen while the port
/// is hidden delivers every canary of the canary sibling (another type),
/// so only a sibling with the case's own content and the exposure flipped
/// shows the exposure at work: named ¶4 by the generated cases alone, and
/// its message names the artifact and the call. A runtime whose delivery
/// depends on what it delivered before (an artifact de-duplicated across
/// runs) shows the same difference on a repeat of the identical request:
/// that is not the exposure's, and is named by what the outcomes show, ¶1
/// (or RT-TOOL-6 on a case over the floors alone), never ¶4.
#[test]
fn delivery_is_judged_on_a_sibling_that_changes_the_exposure_alone() {
    caught("hidden-drops-media", "RT-TOOL-3 ¶4", &["--no-vectors"]);
    let (out, dir) = diff(
        "hidden-drops-media-message",
        &["--cases", "256", "--seed", "8", "--json", "--no-vectors"],
        &["--fault", "hidden-drops-media"],
    );
    let report: Value = rt_tool_3::wire::parse_value(&out.stdout).expect("a JSON report");
    assert_eq!(out.status.code(), Some(1), "{report}");
    let minimal = &report["divergences"][0]["minimal"];
    let vectors = minimal.as_array().expect("minimal vectors");
    assert!(!vectors.is_empty(), "{report:#}");
    for vector in vectors {
        let case = &vector["case"];
        // Shown on the exposure-alone sibling or the repeat, whichever had
        // the port hidden.
        let sibling = &vector["sibling"];
        assert!(
            ["exposure-alone", "repeat"].contains(&sibling["name"].as_str().unwrap_or("")),
            "{vector:#}"
        );
        let hidden = sibling["case"]["exposed"] != true;
        assert!(
            hidden,
            "¶4 is charged to the run with the port hidden: {vector:#}"
        );
        let description = vector["description"].as_str().expect("a description");
        let calls = case["calls"].as_array().expect("calls");
        // Which artifact, of which call.
        let named = calls.iter().any(|call| {
            let id = serde_json::to_string(&call["tool_call_id"]).expect("an id");
            description.contains(&format!("artifact of call {id} is delivered with exposed"))
        });
        let media = ["image", "file", "chart"]
            .iter()
            .any(|t| description.contains(&format!("the \"{t}\" artifact")));
        assert!(named && media, "{description}");
        // The vector's case is sent as it is: no marker, no canary.
        assert!(!case.to_string().contains("MARKER"), "{case}");
        assert!(!case.to_string().contains("CANARY"), "{case}");
    }
    let _ = std::fs::remove_dir_all(dir);
    for seed in ["1", "2", "3"] {
        let (out, dir) = diff(
            &format!("dedupe-across-runs-{seed}"),
            &["--cases", "256", "--seed", seed, "--json", "--no-vectors"],
            &["--fault", "dedupe-across-runs"],
        );
        let report: Value = rt_tool_3::wire::parse_value(&out.stdout).expect("a JSON report");
        assert_eq!(out.status.code(), Some(1), "{report}");
        let signatures: Vec<&Value> = report["divergences"]
            .as_array()
            .expect("divergences")
            .iter()
            .map(|d| &d["signature"])
            .collect();
        // ¶1; a case over the floors alone may cite RT-TOOL-6 (only what
        // a bound may drop is missing); never ¶4.
        assert!(
            signatures.contains(&&serde_json::json!(["RT-TOOL-3 ¶1"])),
            "seed {seed}: {report:#}"
        );
        assert!(
            signatures
                .iter()
                .all(|s| *s == &serde_json::json!(["RT-TOOL-3 ¶1"])
                    || *s == &serde_json::json!(["RT-TOOL-6"])),
            "seed {seed}: {signatures:?}"
        );
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Ways to meet the rule other than the reference's pass: lifting the
/// reserved key's entries off `data` onto the port.
#[test]
fn conforming_variants_pass() {
    let (out, dir) = diff(
        "lift",
        &["--cases", "300", "--seed", "5"],
        &["--variant", "lift"],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("no divergence"), "{text}");
    let _ = std::fs::remove_dir_all(dir);
}

/// A reply line may be `REPLY_GROWTH` (8) times the longest request sent,
/// whatever `--max-line` says: with a bound of 4 KiB, `escape-all` (every
/// character a `\uXXXX` escape, about six times its case) still passes
/// on the pinned vectors, whose largest request is over 2 KiB, and a
/// 100 MB line is still too long.
#[test]
fn a_reply_may_grow_eight_times_its_request_past_max_line() {
    let args = ["--cases", "20", "--seed", "5", "--max-line", "4096"];
    let (out, dir) = diff("escape-all-4k", &args, &["--variant", "escape-all"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{text}{err}");
    assert!(text.contains("no divergence"), "{text}");
    let _ = std::fs::remove_dir_all(dir);
    let (out, dir) = diff("huge-line-4k", &args, &["--fault", "huge-line"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("replied with a line longer than"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

/// `--progress` tells a run nobody watches how far it is, on stderr, in a
/// pipe and with `--json`: a line every so often, and one as each
/// divergence is found and as it has shrunk; without it a pipe gets
/// nothing, and with it stdout is the same report.
#[test]
fn progress_lines_tell_a_run_in_a_pipe_how_far_it_is() {
    let total = 100 + pinned();
    let lines_of = |out: &Output| -> Vec<String> {
        let text = String::from_utf8(out.stderr.clone()).expect("utf-8 stderr");
        text.lines().map(str::to_owned).collect()
    };
    let args = ["--cases", "100", "--seed", "3", "--json"];
    let slow = ["--delay-ms", "1"];
    let (quiet, dir) = diff("progress-off", &args, &slow);
    let _ = std::fs::remove_dir_all(dir);
    assert_eq!(quiet.status.code(), Some(0));
    assert!(quiet.stderr.is_empty(), "{:?}", lines_of(&quiet));
    let (told, dir) = diff(
        "progress-on",
        &[&args[..], &["--progress", "0.05"]].concat(),
        &slow,
    );
    let _ = std::fs::remove_dir_all(dir);
    assert_eq!(told.status.code(), Some(0), "{:?}", lines_of(&told));
    let report: Value = rt_tool_3::wire::parse(&told.stdout).expect("a JSON report");
    let quiet: Value = rt_tool_3::wire::parse(&quiet.stdout).expect("a JSON report");
    assert_eq!(report["divergences"], quiet["divergences"]);
    assert_eq!(report["cases"], quiet["cases"]);
    let lines = lines_of(&told);
    // 372 requests, each answered after 1 ms: at least 0.37 s, 7 ticks.
    assert!(lines.len() >= 2, "{lines:?}");
    let mut last = 0;
    for line in &lines {
        let rest = line.strip_prefix("rt-tool-3 diff: ").expect(line);
        let (done, rest) = rest.split_once(" of ").expect(line);
        let done: usize = done.parse().expect(line);
        assert!(rest.starts_with(&format!("{total} cases (")), "{line}");
        assert!(line.ends_with(", 0 divergences"), "{line}");
        assert!(done >= last && done <= total, "{line} after {last}");
        last = done;
    }

    let (found, dir) = diff(
        "progress-fault",
        &["--seed", "6", "--json", "--progress", "0.05"],
        &["--fault", "spoof-id"],
    );
    let _ = std::fs::remove_dir_all(dir);
    assert_eq!(found.status.code(), Some(1), "{:?}", lines_of(&found));
    let report: Value = rt_tool_3::wire::parse(&found.stdout).expect("a JSON report");
    let divergence = &report["divergences"][0];
    let origin = divergence["origin"].as_str().expect("an origin");
    let lines = lines_of(&found);
    let at = |needle: &str| {
        let hits: Vec<usize> = (0..lines.len())
            .filter(|&k| lines[k].contains(needle))
            .collect();
        assert_eq!(hits.len(), 1, "{needle}: {lines:?}");
        hits[0]
    };
    let diverges = at(&format!("{origin} diverges (RT-TOOL-3 ¶1); shrinking it"));
    let shrunk = at(&format!(
        "{origin} shrunk to a minimal case in {} requests (RT-TOOL-3 ¶1)",
        divergence["shrink_requests"]
    ));
    assert!(diverges < shrunk, "{lines:?}");
}

/// `diff` against `serve --fault FAULT` finds one bug, attributed to `clause`
/// alone, saved to disk, and its minimal vectors name the clause; the
/// standing says the clause is not met, with the counterexample, and every
/// other exercised clause met.
fn caught(fault: &str, clause: &str, extra: &[&str]) {
    let standing_file = std::env::temp_dir().join(format!(
        "rt-tool-3-standing-{}-{fault}-{}.md",
        std::process::id(),
        extra.len()
    ));
    // At the default 256 generated cases, after the pinned vectors.
    let mut args = vec!["--seed", "6", "--json", "--standing"];
    let standing_path = standing_file.display().to_string();
    args.push(&standing_path);
    args.extend(extra);
    let (out, dir) = diff(fault, &args, &["--fault", fault]);
    let report: Value = rt_tool_3::wire::parse_value(&out.stdout).expect("a JSON report");
    assert_eq!(out.status.code(), Some(1), "{fault}: {report}");
    let divergences = report["divergences"].as_array().expect("divergences");
    assert_eq!(
        divergences.len(),
        1,
        "{fault}: one bug, one divergence: {report:#}"
    );
    assert_eq!(
        divergences[0]["signature"],
        serde_json::json!([clause]),
        "{fault}"
    );
    let saved: Value = rt_tool_3::wire::parse_value(
        &std::fs::read(dir.join("rt-tool-3-divergences.json")).expect("saved vectors"),
    )
    .expect("saved JSON");
    assert_eq!(saved["rule_hash"], rt_tool_3::RULE_HASH, "{fault}");
    assert_eq!(
        saved["divergences"][0]["signature"], divergences[0]["signature"],
        "{fault}"
    );
    for vector in divergences[0]["minimal"].as_array().expect("minimal") {
        assert!(
            vector["clauses"]
                .as_array()
                .is_some_and(|c| c.contains(&Value::from(clause))),
            "{fault}: {vector}"
        );
    }
    for clause_standing in report["standing"]["clauses"].as_array().expect("clauses") {
        let status = &clause_standing["status"];
        if clause_standing["clause"] == clause {
            assert_eq!(status, "not-met", "{fault}: {clause_standing}");
            assert!(
                clause_standing["counterexample"]["case"].is_object(),
                "{fault}: {clause_standing}"
            );
        } else {
            assert_ne!(status, "not-met", "{fault}: {clause_standing}");
        }
    }
    let markdown = std::fs::read_to_string(&standing_file).expect("a standing");
    assert!(
        markdown.contains(&format!("| {clause} |")) && markdown.contains("**not met**"),
        "{fault}: {markdown}"
    );
    assert!(
        markdown.contains(&format!("### {clause}: not met")),
        "{fault}: {markdown}"
    );
    let _ = std::fs::remove_file(standing_file);
    let _ = std::fs::remove_dir_all(dir);
}

/// A reply holding a lone surrogate escape (a prose cut between the
/// halves of a pair) is judged, not a broken process: `diff` exits 1 with a
/// divergence, shrunk to a minimal case, saved; and the run goes on to the
/// last case.
#[test]
fn a_reply_holding_a_lone_surrogate_is_a_divergence_and_the_run_goes_on() {
    let (out, dir) = diff(
        "split-surrogate",
        &["--cases", "60", "--seed", "3", "--json"],
        &["--fault", "split-surrogate"],
    );
    let report: Value = rt_tool_3::wire::parse_reply(&out.stdout).expect("a JSON report");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{report} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Every case was run and judged, not only those before the first cut.
    assert_eq!(report["cases"], 60 + pinned(), "{report}");
    let divergences = report["divergences"].as_array().expect("divergences");
    // Three requests for every case, and those of the shrinking; a case
    // whose prose the cut made other than the reference's sends one call
    // alone too (and one whose delivery differs, two more): never more
    // than six.
    let cases = 60 + pinned() as u64;
    let shrinking = divergences[0]["shrink_requests"].as_u64().expect("a count");
    let requests = report["requests"].as_u64().expect("a count") - shrinking;
    assert!(
        (3 * cases..=6 * cases).contains(&requests),
        "{requests} requests for {cases} cases: {report}"
    );
    assert_eq!(divergences.len(), 1, "{report:#}");
    assert_eq!(divergences[0]["signature"], serde_json::json!(["protocol"]));
    let minimal = &divergences[0]["minimal"][0];
    let message = minimal["violations"][0]["message"]
        .as_str()
        .expect("a message");
    assert!(
        message.starts_with("the prose of call ")
            && message.contains(" holds a lone surrogate \\ud"),
        "{message}"
    );
    // Shrunk: one call, whose data holds the character cut.
    let calls = minimal["case"]["calls"].as_array().expect("calls");
    assert_eq!(calls.len(), 1, "{minimal}");
    assert!(
        calls[0]["result"]
            .to_string()
            .chars()
            .any(|c| c.len_utf16() == 2),
        "{minimal}"
    );
    let saved: Value = rt_tool_3::wire::parse_reply(
        &std::fs::read(dir.join("rt-tool-3-divergences.json")).expect("saved vectors"),
    )
    .expect("saved JSON");
    assert_eq!(
        saved["divergences"][0]["signature"],
        divergences[0]["signature"]
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// `diff ARGS` against `serve --fault FAULT`, writing the standing, JUnit
/// and the page (`s.md`, `j.xml`, `p.html`): once as text, once with
/// `--json`, each in a directory of its own; both must find a divergence.
fn text_and_json(name: &str, args: &[&str], fault: &str) -> [(Output, std::path::PathBuf); 2] {
    let files = ["--standing", "s.md", "--junit", "j.xml", "--html", "p.html"];
    let args = [args, &files[..]].concat();
    let text = diff(&format!("{name}-text"), &args, &["--fault", fault]);
    let json = diff(
        &format!("{name}-json"),
        &[&args[..], &["--json"]].concat(),
        &["--fault", fault],
    );
    assert_eq!(
        (text.0.status.code(), json.0.status.code()),
        (Some(1), Some(1))
    );
    [text, json]
}

/// A lone surrogate a reply held shows as the escape it was (`\ud83d`) in
/// every output, never as the mark one process read it as (private-use
/// characters around U+FFFD): --json and --save hold it as that escape, so
/// another process reads the same reply; the text, the standing, JUnit and
/// the pages show it; and the --save file replays to the same finding.
#[test]
fn a_lone_surrogate_shows_as_its_escape_in_every_output() {
    let [(text, dir), (json, json_dir)] =
        text_and_json("lone", &["--cases", "60", "--seed", "3"], "split-surrogate");
    let marks = |what: &str, text: &str| {
        let private = text
            .chars()
            .find(|c| ('\u{f0000}'..='\u{fffff}').contains(c));
        assert_eq!(private, None, "{what} shows a mark: {text}");
    };
    // Each output holds the escape of a surrogate from U+D800 to U+DFFF.
    let escaped = |what: &str, text: &str| {
        let found = text.match_indices("\\ud").any(|(at, _)| {
            text.get(at + 3..at + 6)
                .and_then(|hex| u16::from_str_radix(hex, 16).ok())
                .is_some_and(|u| (0x800..=0xfff).contains(&u))
        });
        assert!(found, "{what}: no lone surrogate shown: {text}");
    };
    let stdout = String::from_utf8_lossy(&text.stdout);
    marks("text", &stdout);
    escaped("text", &stdout);
    let read = |name: &str| std::fs::read_to_string(json_dir.join(name)).expect(name);
    for name in ["s.md", "j.xml", "p.html", "rt-tool-3-divergences.json"] {
        marks(name, &read(name));
        escaped(name, &read(name));
    }
    let stdout = String::from_utf8_lossy(&json.stdout).into_owned();
    marks("--json", &stdout);
    // Read back by this process, each escape is one of its marks again.
    let report: Value = rt_tool_3::wire::parse_reply(stdout.as_bytes()).expect("the report");
    let observed = report["divergences"][0]["minimal"][0]["observed"].to_string();
    assert!(
        !rt_tool_3::wire::lone_surrogates(&observed).is_empty(),
        "{observed}"
    );
    // The page comparing implementations, from that --json.
    std::fs::write(json_dir.join("run.json"), &stdout).expect("written");
    let page = json_dir.join("compare.html");
    let out = Command::new(BIN)
        .args(["report", &json_dir.join("run.json").display().to_string()])
        .args(["--html", &page.display().to_string()])
        .output()
        .expect("report runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let compare = std::fs::read_to_string(&page).expect("the page");
    marks("compare", &compare);
    escaped("compare", &compare);
    // The --save file replays to the same finding.
    let saved = json_dir
        .join("rt-tool-3-divergences.json")
        .display()
        .to_string();
    let (replayed, replay_dir) = diff(
        "lone-replay",
        &["--replay", &saved, "--no-vectors", "--cases", "0", "--json"],
        &["--fault", "split-surrogate"],
    );
    let again: Value = rt_tool_3::wire::parse_reply(&replayed.stdout).expect("a report");
    assert_eq!(replayed.status.code(), Some(1), "{again}");
    assert_eq!(
        again["divergences"][0]["signature"],
        report["divergences"][0]["signature"]
    );
    for d in [dir, json_dir, replay_dir] {
        let _ = std::fs::remove_dir_all(d);
    }
}

#[test]
fn process_faults_exit_2_naming_the_case() {
    // The fault of `serve`, what the line says, and its code.
    let faults = [
        ("crash", "crashed", "crashed"),
        ("hang", "hung: no reply within 2s", "hung"),
        // The line as the process wrote it, its newline left out.
        (
            "garbage",
            "replied with garbage: expected value at line 1 column 1: \
             Traceback (most recent call last): not json; the case: ",
            "garbage",
        ),
        (
            "wrong-seq",
            "answered request seq 1 with seq 2",
            "wrong-seq",
        ),
        (
            "no-start",
            "did not answer start with ready: the implementation hung",
            "no-ready",
        ),
        ("partial-line", "stdout ended inside a line", "crashed"),
        (
            "huge-line",
            "a line longer than 16777216 bytes",
            "line-too-long",
        ),
        (
            "extra-lines",
            "printed a line nobody asked for: a second reply to start: {\"ready\":true",
            "extra-lines",
        ),
    ];
    // Two seeds each, side by side: where the fault strikes (a case's first
    // request, or one of its siblings) must not change what is reported.
    std::thread::scope(|scope| {
        for (fault, says, code) in faults {
            for seed in ["3", "5"] {
                scope.spawn(move || process_fault(fault, seed, says, code));
            }
        }
    });
}

/// A run that ends on a fault of the process claims nothing: its standing
/// says so, with the fault, and names no clause as met.
#[test]
fn a_process_fault_writes_a_standing_that_claims_nothing() {
    let standing = std::env::temp_dir().join(format!(
        "rt-tool-3-standing-crash-{}.md",
        std::process::id()
    ));
    let path = standing.display().to_string();
    let (out, dir) = diff(
        "standing-crash",
        &[
            "--cases",
            "50",
            "--seed",
            "3",
            "--json",
            "--standing",
            &path,
        ],
        &["--fault", "crash"],
    );
    assert_eq!(out.status.code(), Some(2));
    let report: Value = rt_tool_3::wire::parse(&out.stdout).expect("a JSON report");
    assert_eq!(report["standing"]["complete"], false, "{report}");
    assert_eq!(report["standing"]["clauses"], serde_json::json!([]));
    let markdown = std::fs::read_to_string(&standing).expect("a standing");
    assert!(markdown.contains("**No standing.**"), "{markdown}");
    assert!(markdown.contains("crashed"), "{markdown}");
    assert!(!markdown.contains("**met**"), "{markdown}");
    let _ = std::fs::remove_file(standing);
    let _ = std::fs::remove_dir_all(dir);
}

fn process_fault(fault: &str, seed: &str, says: &str, code: &str) {
    // Only a silent process needs the timeout to be short; the others are
    // told apart by what they do, and a loaded machine must not turn a
    // slow reply into a hang.
    let timeout = if says.contains("hung") { "2" } else { "30" };
    let (out, dir) = diff(
        &format!("{fault}-{seed}"),
        &[
            "--cases",
            "50",
            "--seed",
            seed,
            "--timeout",
            timeout,
            "--junit",
            "run.xml",
        ],
        &["--fault", fault],
    );
    // The JUnit error says which way it broke, by its stable code.
    let junit = std::fs::read_to_string(dir.join("run.xml")).expect("the JUnit is written");
    assert!(
        junit.contains("<error message=\"") && junit.contains(&format!(" type=\"{code}\"")),
        "{fault}/{seed}: no error of type {code}: {junit}"
    );
    assert!(
        rt_tool_3::code::PROCESS_FAULTS
            .iter()
            .any(|(c, _)| *c == code),
        "{code} is documented"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{fault}: {err}");
    assert_eq!(err.lines().count(), 1, "{fault}/{seed}: one line: {err}");
    assert!(
        err.contains(says),
        "{fault}/{seed}: {err:?} does not say {says:?}"
    );
    if fault != "no-start" {
        assert!(
            err.contains("; the case: {\"exposed\""),
            "{fault}: names no case: {err}"
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// A process that stops reading its stdin while a case larger than a pipe
/// holds is on its way must not block `diff`: requests are written by their
/// own thread, and the wait for the reply is bounded by `--timeout`. The
/// first seed whose second case is over 256 KB (the lenient cases hold a
/// payload of over 0.5 MB now and then) puts it second, and `hang` stops
/// reading at the second case's first request.
#[test]
fn a_hang_with_a_large_case_unread_still_ends_in_the_timeout() {
    let size = |seed: u64| {
        let second = rt_tool_3::gen::cases(seed).nth(1).expect("a second case");
        serde_json::to_vec(&second).expect("encodes").len()
    };
    let seed = (0..2000u64)
        .find(|&seed| size(seed) > 256 << 10)
        .expect("among 2,000 seeds, one whose second case is over 256 KB");
    // The process stops reading at the first request of the second
    // generated case, after the pinned vectors.
    let strike = (3 * pinned() + 4).to_string();
    let (out, dir) = diff(
        "hang-large",
        &[
            "--cases",
            "5",
            "--seed",
            &seed.to_string(),
            "--timeout",
            "2",
        ],
        &["--fault", "hang", "--strike", &strike],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("hung: no reply within 2s"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_flood_on_stderr_is_drained_not_a_fault() {
    let (out, dir) = diff(
        "flood",
        &["--cases", "20", "--seed", "5"],
        &["--fault", "stderr-flood"],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// An implementation that errors says why in its own words, which may run
/// to a stack trace of many lines: the divergence quotes it on one line,
/// its start and its end, and the vector's `observed` keeps it whole.
#[test]
fn an_errored_message_is_told_on_one_line_and_kept_whole() {
    let trace = format!(
        "Traceback (most recent call last):\n{}ValueError: the end says what",
        "  File \"adapter.py\", line 1, in run\n".repeat(60)
    );
    let adapter = format!(
        "import json, sys\n\
         for line in sys.stdin:\n\
         \x20   req = json.loads(line)\n\
         \x20   if req['cmd'] == 'start': print(json.dumps({{'ready': True, 'version': 1}}), flush=True)\n\
         \x20   elif req['cmd'] == 'run': print(json.dumps({{'seq': req['seq'], 'errored': True, 'message': {trace:?}}}), flush=True)\n\
         \x20   else: break\n"
    );
    let out = Command::new(BIN)
        .args([
            "diff",
            "--cases",
            "0",
            "--json",
            "--save",
            "/dev/null",
            "--",
            "python3",
            "-c",
            &adapter,
        ])
        .output()
        .expect("diff runs");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = rt_tool_3::wire::parse(&out.stdout).expect("a JSON report");
    let found = &report["divergences"][0]["found"][0];
    let description = found["description"].as_str().expect("a description");
    assert!(!description.contains('\n'), "{description}");
    assert!(
        description.contains("Traceback (most recent call last):"),
        "{description}"
    );
    assert!(
        description.ends_with("ValueError: the end says what"),
        "{description}"
    );
    assert!(description.chars().count() < 300, "{description}");
    assert_eq!(found["observed"]["message"], Value::from(trace));
}

/// `diff --seed S` sends the cases `cases --seed S` prints, in order, each
/// followed by its two siblings: a user can replay exactly what `diff` ran.
#[test]
fn diff_sends_the_cases_that_cases_prints_for_the_same_seed() {
    let dir = std::env::temp_dir().join(format!("rt-tool-3-seeded-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let log = dir.join("requests.jsonl");
    let out = Command::new(BIN)
        .args(["diff", "--cases", "6", "--seed", "11", "--", "sh", "-c"])
        .arg(format!("tee '{}' | '{BIN}' serve", log.display()))
        .output()
        .expect("diff runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sent: Vec<Value> = std::fs::read_to_string(&log)
        .expect("requests logged")
        .lines()
        .map(|l| rt_tool_3::wire::parse_value(l.as_bytes()).expect("a request"))
        .filter(|r| r["cmd"] == "run")
        .collect();
    let printed = Command::new(BIN)
        .args(["cases", "--count", "6", "--seed", "11"])
        .output()
        .expect("cases runs");
    let cases: Vec<Value> = String::from_utf8_lossy(&printed.stdout)
        .lines()
        .map(|l| rt_tool_3::wire::parse_value(l.as_bytes()).expect("a case"))
        .collect();
    // The pinned vectors come first, then the generated cases.
    let vectors: Vec<Value> = rt_tool_3::vectors::examples()
        .expect("examples")
        .into_iter()
        .map(|e| serde_json::to_value(e.case).expect("encodes"))
        .collect();
    assert_eq!(sent.len(), 3 * (vectors.len() + cases.len()));
    for (i, case) in vectors.iter().chain(&cases).enumerate() {
        assert_eq!(&sent[3 * i]["case"], case, "case {i}");
        assert_eq!(sent[3 * i]["seq"], Value::from(3 * i + 1));
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// A command that cannot start is a clear one-line error, exit 2; with
/// several copies, the first one that failed is named.
#[test]
fn a_missing_command_is_a_clear_error() {
    for (jobs, named) in [("1", ""), ("2", "copy 1 of 2: ")] {
        let out = Command::new(BIN)
            .args([
                "diff",
                "--cases",
                "1",
                "--jobs",
                jobs,
                "--save",
                "/dev/null",
            ])
            .args(["--", "/nonexistent/adapter"])
            .output()
            .expect("diff runs");
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        let wanted =
            format!("{named}the implementation could not be started: /nonexistent/adapter");
        assert!(err.contains(&wanted), "--jobs {jobs}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
}

/// `diff` gives up transparent huge pages for itself only once its copies
/// have started, so the implementation keeps the page policy it was started
/// with. Here each copy is `serve` started by a shell that will not start it
/// if huge pages are turned off for it.
#[cfg(target_os = "linux")]
#[test]
fn the_implementation_keeps_its_huge_pages() {
    let script = format!(
        "grep -q '^THP_enabled:[[:space:]]*0' /proc/self/status && exit 3; exec {BIN} serve"
    );
    let out = Command::new(BIN)
        .args(["diff", "--cases", "2", "--jobs", "2", "--save", "/dev/null"])
        .args(["--", "sh", "-c", &script])
        .output()
        .expect("diff runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
}

/// The cross-language proof: a Python adapter written from the README alone
/// passes `diff`, with the reference prose rendering demanded too.
#[test]
fn python_adapter_from_the_readme_passes() {
    let adapter = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/adapter/reference_adapter.py"
    );
    let out = Command::new(BIN)
        .current_dir(std::env::temp_dir())
        .args([
            "diff",
            "--cases",
            "300",
            "--seed",
            "17",
            "--prose",
            "exact",
            "--save",
            "/dev/null",
            "--",
            "python3",
            adapter,
        ])
        .output()
        .expect("diff runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cases = 300 + pinned();
    assert!(
        text.contains(&format!(
            "reference_adapter.py (python) against RT-TOOL-3 (FlowDrop 1.0-draft, rule_hash {}), rt-tool-3 {}, reading ¶3 as exact: {cases} cases ({} pinned vectors, 0 replayed), {} requests",
            rt_tool_3::RULE_HASH,
            rt_tool_3::ORACLE_VERSION,
            pinned(),
            3 * cases
        )) && text.contains("no divergence"),
        "{text}"
    );
}

/// `--save` onto something that is not a regular file (here a null device
/// of our own) writes into it; renaming over it would replace the device.
#[test]
fn saving_onto_a_device_keeps_the_device() {
    use std::os::unix::fs::FileTypeExt;
    let dir = std::env::temp_dir().join(format!("rt-tool-3-device-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let null = dir.join("null");
    let made = Command::new("mknod")
        .args(["-m", "666"])
        .arg(&null)
        .args(["c", "1", "3"])
        .status();
    let device = if made.is_ok_and(|s| s.success()) {
        null
    } else {
        std::path::PathBuf::from("/dev/null")
    };
    let out = Command::new(BIN)
        .current_dir(&dir)
        .args(["diff", "--cases", "20", "--seed", "5", "--save"])
        .arg(&device)
        .args(["--", BIN, "serve", "--fault", "spoof-id"])
        .output()
        .expect("diff runs");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let kind = std::fs::metadata(&device).expect("still there").file_type();
    assert!(
        kind.is_char_device(),
        "{} was replaced by a {kind:?}",
        device.display()
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// Killed while shrinking, `diff` has already saved the failing case it
/// found, whole (the file is replaced atomically), and `check` replays it.
#[test]
fn a_kill_during_shrinking_loses_nothing() {
    let dir = std::env::temp_dir().join(format!("rt-tool-3-kill-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let save = dir.join("found.json");
    let mut child = Command::new(BIN)
        .current_dir(&dir)
        .args(["diff", "--cases", "300", "--seed", "5", "--save"])
        .arg(&save)
        .args([
            "--",
            BIN,
            "serve",
            "--fault",
            "drop-last",
            "--delay-ms",
            "20",
        ])
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("diff starts");
    let started = Instant::now();
    while !save.exists() && started.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().expect("killed");
    let status = child.wait().expect("reaped");
    assert!(
        !status.success(),
        "diff ended before it was killed: it never shrank"
    );
    let saved: Value =
        rt_tool_3::wire::parse(&std::fs::read(&save).expect("saved before shrinking"))
            .expect("whole JSON");
    let found = &saved["divergences"][0]["found"][0];
    assert_eq!(
        saved["divergences"][0]["signature"],
        serde_json::json!(["RT-TOOL-3 ¶1"])
    );
    assert_eq!(
        saved["divergences"][0]["minimal"],
        serde_json::json!([]),
        "killed before shrinking ended"
    );
    let case = dir.join("case.json");
    let observed = dir.join("observed.json");
    std::fs::write(&case, found["case"].to_string()).expect("write");
    std::fs::write(&observed, found["observed"].to_string()).expect("write");
    let replay = Command::new(BIN)
        .arg("check")
        .args([&case, &observed])
        .output()
        .expect("check runs");
    assert_eq!(
        replay.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&replay.stdout)
    );
    assert!(String::from_utf8_lossy(&replay.stdout).contains("RT-TOOL-3 ¶1"));
    let _ = std::fs::remove_dir_all(dir);
}

/// A divergence saved once stays checked: `--replay` of the `--save` file
/// runs its cases (after the pinned vectors, before any generated one), so
/// with `--cases 0` the same faulty implementation fails at once and a
/// conforming one passes. A replayed case shrinks like a generated one.
#[test]
fn a_saved_divergence_replays_first() {
    let dir = std::env::temp_dir().join(format!("rt-tool-3-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let root = env!("CARGO_MANIFEST_DIR");
    // The reference adapter, broken for one call id no generator makes: it
    // drops that call's artifacts.
    let faulty = dir.join("faulty.py");
    std::fs::write(
        &faulty,
        format!(
            r#"import sys
sys.path.insert(0, "{root}/tests/adapter")
import reference_adapter as ref
run = ref.run
def broken(case):
    out = run(case)
    out["tool_artifacts"] = [a for a in out["tool_artifacts"] if a["tool_call_id"] != "replay-me"]
    return out
ref.run = broken
ref.main()
"#
        ),
    )
    .expect("write");
    let case = dir.join("case.json");
    std::fs::write(
        &case,
        r#"{"calls": [{"tool_call_id": "replay-me", "result": {"success": true, "data": "two links",
            "artifacts": [{"type": "link", "payload": {"url": "https://example.com/1", "rel": "self"}},
                          {"type": "file", "payload": {"name": "report.pdf"}}]}}]}"#,
    )
    .expect("write");
    let save = dir.join("found.json");
    let run = |replay: &std::path::Path, adapter: &str, save: &str| {
        let out = Command::new(BIN)
            .current_dir(&dir)
            .args(["diff", "--cases", "0", "--json", "--save", save, "--replay"])
            .arg(replay)
            .args(["--", "python3", adapter])
            .output()
            .expect("diff runs");
        let report: Value = rt_tool_3::wire::parse(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
        (out.status.code(), report)
    };
    let faulty = faulty.display().to_string();
    let reference = format!("{root}/tests/adapter/reference_adapter.py");
    // Found once, from a hand-written case, and saved.
    let (code, report) = run(&case, &faulty, &save.display().to_string());
    assert_eq!(code, Some(1), "{report}");
    assert_eq!(report["replayed"], pinned() + 1);
    let divergence = &report["divergences"][0];
    assert_eq!(divergence["signature"], serde_json::json!(["RT-TOOL-3 ¶1"]));
    assert!(
        divergence["origin"]
            .as_str()
            .is_some_and(|o| o.ends_with("case.json case 0")),
        "{divergence}"
    );
    // The replayed case shrank: one artifact is enough to show the fault.
    let size = |v: &Value| v.to_string().len();
    let found = &divergence["found"][0]["case"];
    let minimal = &divergence["minimal"][0]["case"];
    assert!(size(minimal) < size(found), "{minimal} vs {found}");
    // The saved file replays: the same fault fails at once, with no
    // generated case; the reference passes.
    let (code, report) = run(&save, &faulty, "/dev/null");
    assert_eq!(code, Some(1), "{report}");
    assert_eq!(report["cases"], report["replayed"], "no generated case");
    let (code, report) = run(&save, &reference, "/dev/null");
    assert_eq!(code, Some(0), "{report}");
    assert!(report["replayed"].as_u64() > Some(pinned() as u64));
    // What is not a case is refused, in one line, before anything runs.
    let junk = dir.join("junk.json");
    std::fs::write(&junk, "{\"nothing\": 1}").expect("write");
    let out = Command::new(BIN)
        .args(["diff", "--cases", "0", "--replay"])
        .arg(&junk)
        .args(["--", "python3", &reference])
        .output()
        .expect("diff runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("junk.json holds no case"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

/// What `check` finds of ¶3 in one outcome, `diff` finds on the same case:
/// over the first 200 generated cases of seed 1, and 300 cases whose every
/// place of a result takes every JSON type (`gen::typed_case`), and every
/// stateless ¶3 fault of `serve`, whenever `check` cites ¶3 on the outcome
/// the faulty server returns for a case, `diff` examining that case
/// against that server reports a divergence citing ¶3.
///
/// It cannot pass for want of such outcomes: each place of a result is
/// drawn in each type (`gen::TYPED_PLACES`), and for each type of the
/// reserved key of `data` that can hold a string (a
/// string, an array, an object) `check` finds a string of the reserved
/// key in the prose of `reserved-in-prose` (which renders the key
/// whatever it holds), and for a string and an object in that of
/// `reserved-list-only` (which lifts a list only), and `diff`
/// agrees. A null, a boolean or a number under the key holds nothing a
/// leak scan looks for (it looks for strings), and is held to agreement
/// like the rest.
#[test]
fn diff_finds_every_prose_leak_check_finds_in_one_outcome() {
    use std::collections::{BTreeMap, BTreeSet};

    use clap::ValueEnum;
    use rt_tool_3::gen::{self, JsonType};
    use rt_tool_3::harness::{Limits, Process};
    use rt_tool_3::judge::{self, Clause, Options};
    use rt_tool_3::serve::{self, Fault};
    let bin = env!("CARGO_BIN_EXE_rt-tool-3");
    let typed = gen::typed_case();
    let cases: Vec<rt_tool_3::wire::Case> = gen::cases(1)
        .take(200)
        .chain((0..300).map(|i| gen::case_at(&typed, 1, i).expect("a typed case")))
        .collect();
    // Every place of a result in every type, the reserved key's too.
    let drawn: BTreeSet<(&str, JsonType)> = cases
        .iter()
        .flat_map(|case| &case.calls)
        .flat_map(|call| gen::typed_places(&call.result))
        .collect();
    for place in gen::TYPED_PLACES {
        for t in JsonType::ALL {
            assert!(drawn.contains(&(place, t)), "{place} never {t:?}");
        }
    }
    let faults = Fault::value_variants()
        .iter()
        .copied()
        .filter(|f| f.clause() == Some(Clause::ProseFromData) && *f != Fault::ProseCacheById);
    let mut agreed = 0;
    // For each fault, the types of the reserved key whose strings `check`
    // found in a prose, `diff` agreeing.
    let mut leaked: BTreeMap<String, BTreeSet<JsonType>> = BTreeMap::new();
    for fault in faults {
        let name = fault
            .to_possible_value()
            .expect("named")
            .get_name()
            .to_owned();
        let command = [bin, "serve", "--fault", &name].map(str::to_owned);
        let mut process = Process::start(&command, Limits::default()).expect("serve starts");
        for case in &cases {
            let observed = serve::outcome(case, Some(fault));
            let one = judge::judge(case, &observed, Options::default()).expect("an outcome");
            let prose: Vec<&judge::Violation> = one
                .violations
                .iter()
                .filter(|v| v.clause == Clause::ProseFromData)
                .collect();
            if prose.is_empty() {
                continue;
            }
            let options = Options {
                siblings: true,
                ..Options::default()
            };
            let examined =
                rt_tool_3::diff::examine(&mut process, case, options).expect("serve answers");
            let cited = examined
                .vectors
                .iter()
                .flat_map(|v| &v.violations)
                .any(|v| v.clause == Clause::ProseFromData);
            assert!(
                cited,
                "{name}: check cites ¶3 ({:?}) and diff does not, on {}",
                one.violations,
                serde_json::to_string(case).unwrap_or_default()
            );
            agreed += 1;
            // Each call whose reserved key a string of that prose came from.
            for call in &case.calls {
                let whose = format!(
                    "the reserved `artifacts` key of call {}'s data",
                    call.tool_call_id
                );
                if prose.iter().any(|v| v.place.from.as_ref() == Some(&whose)) {
                    let key = &call.result["data"][rt_tool_3::model::RESERVED_KEY];
                    leaked
                        .entry(name.clone())
                        .or_default()
                        .insert(JsonType::of(key));
                }
            }
        }
    }
    assert!(agreed >= 200, "only {agreed} outcomes with a ¶3 finding");
    use JsonType::{Array, Object, String as Text};
    let want = [
        ("reserved-in-prose", vec![Text, Array, Object]),
        ("reserved-list-only", vec![Text, Object]),
    ];
    for (fault, types) in want {
        let seen = leaked.get(fault).cloned().unwrap_or_default();
        for t in types {
            assert!(
                seen.contains(&t),
                "{fault}: no reserved {t:?} leaked: {leaked:?}"
            );
        }
    }
}

/// Every warning names the case that gave it, in the text and in `--json`,
/// and the call where it is about one: `serve --variant reversed` returns
/// each call's artifacts in reverse, which conforms, with a warning for
/// each call of more than one artifact.
#[test]
fn each_warning_names_its_case_and_call() {
    let serve = ["--variant", "reversed"];
    let (out, _) = diff(
        "warned-json",
        &[
            "--cases",
            "40",
            "--seed",
            "1",
            "--json",
            "--save",
            "/dev/null",
        ],
        &serve,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = rt_tool_3::wire::parse(&out.stdout).expect("a JSON report");
    let warned = report["warned"].as_array().expect("warned");
    assert!(!warned.is_empty(), "no warning listed");
    assert_eq!(report["warnings"].as_u64(), Some(warned.len() as u64));
    let mut last = 0;
    for w in warned {
        let origin = w["origin"].as_str().expect("origin");
        let message = w["message"].as_str().expect("message");
        let position = w["position"].as_u64().expect("position");
        assert!(
            origin.starts_with("vector ") || origin.starts_with("generated case "),
            "{w}"
        );
        assert!(message.contains("of call "), "{w}");
        // Its kind, a warning's, and its place: the call it is about.
        let code = w["code"].as_str().and_then(rt_tool_3::code::Code::of_name);
        assert!(code.is_some_and(|c| c.warning() && c.fits(message)), "{w}");
        assert!(w["place"]["call"].is_u64(), "{w}");
        assert!(position >= last, "out of stream order: {warned:?}");
        last = position;
    }
    // The text names them too, the first ten with their cases.
    let (out, _) = diff(
        "warned-text",
        &["--cases", "40", "--seed", "1", "--save", "/dev/null"],
        &serve,
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("warning: "))
        .collect();
    for w in warned.iter().take(10) {
        let line = format!(
            "warning: {} [{}]: {}",
            w["origin"].as_str().unwrap_or_default(),
            w["code"].as_str().unwrap_or_default(),
            w["message"].as_str().unwrap_or_default()
        );
        assert!(lines.contains(&line.as_str()), "{line} not in {lines:#?}");
    }
}

/// Runs `diff` (`--json`, with `args`) against the README's Python adapter
/// wrapped to answer `skipped` to each request for which the Python
/// expression `skip` (of `case` and `seq`) holds; gives the exit code and
/// the report.
fn skipping(skip: &str, args: &[&str]) -> (Option<i32>, Value) {
    let adapter = format!(
        "import json, sys\n\
         sys.path.insert(0, {dir:?})\n\
         import reference_adapter as r\n\
         sys.stdin.reconfigure(encoding='utf-8'); sys.stdout.reconfigure(encoding='utf-8')\n\
         sys.setrecursionlimit(10_000)\n\
         skip = lambda case, seq: {skip}\n\
         for line in filter(str.strip, sys.stdin):\n\
         \x20   req = json.loads(line, parse_int=r.Num, parse_float=r.Num)\n\
         \x20   if req['cmd'] == 'stop': break\n\
         \x20   if req['cmd'] == 'start': reply = {{'ready': True, 'version': 1}}\n\
         \x20   elif skip(req['case'], int(str(req['seq']))): reply = {{'seq': req['seq'], 'skipped': True, 'message': 'declined'}}\n\
         \x20   else: reply = {{'seq': req['seq'], 'outcome': r.run(req['case'])}}\n\
         \x20   print(r.enc(reply), flush=True)\n",
        dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/adapter"),
    );
    let out = Command::new(BIN)
        .current_dir(std::env::temp_dir())
        .args(["diff", "--seed", "5", "--json", "--save", "/dev/null"])
        .args(args)
        .args(["--", "python3", "-c", &adapter])
        .output()
        .expect("diff runs");
    let report = rt_tool_3::wire::parse(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON report ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code(), report)
}

/// The clauses of a report's standing whose status is `status`.
fn with_status(report: &Value, status: &str) -> Vec<String> {
    let clauses = report["standing"]["clauses"].as_array().expect("clauses");
    clauses
        .iter()
        .filter(|c| c["status"] == status)
        .map(|c| c["clause"].as_str().expect("a clause").to_owned())
        .collect()
}

/// A skip is counted, not judged; but what a run bore on only through
/// skipped cases it does not show, and the run does not conform (exit 1):
/// an implementation that skips every case must not pass. A pinned vector
/// skipped is not passed, and fails the run too; a few generated cases
/// skipped, the clauses still shown by others, do not.
#[test]
fn a_run_shows_only_what_its_implementation_did_not_skip() {
    let all = pinned();
    // Every case skipped: nothing shown, every vector skipped.
    let (code, report) = skipping("True", &["--cases", "40"]);
    assert_eq!(code, Some(1), "{report}");
    assert_eq!(report["skipped"], 40 + all);
    assert_eq!(with_status(&report, "not-shown").len(), 7, "{report}");
    assert_eq!(
        report["vectors"]["skipped"].as_array().map(Vec::len),
        Some(all)
    );
    assert_eq!(report["standing"]["vectors_passed"], 0);
    assert_eq!(report["divergences"], serde_json::json!([]));
    // The first pinned vector alone: every clause met, the run still fails.
    let (code, report) = skipping("seq == 1", &["--cases", "0"]);
    assert_eq!(code, Some(1), "{report}");
    assert_eq!(
        report["vectors"]["skipped"],
        serde_json::json!(["vector 0 (rule_example)"])
    );
    assert_eq!(
        report["vectors"]["skipped_positions"],
        serde_json::json!([0])
    );
    assert_eq!(report["standing"]["vectors_passed"], all - 1);
    assert_eq!(with_status(&report, "not-shown"), Vec::<String>::new());
    // Every case that leaves the port at its default: ¶2 is not shown.
    let (code, report) = skipping(
        "case.get('exposed') is None",
        &["--cases", "60", "--no-vectors"],
    );
    assert_eq!(code, Some(1), "{report}");
    assert_eq!(
        with_status(&report, "not-shown"),
        ["RT-TOOL-3 ¶2"],
        "{report}"
    );
    // A few generated cases (each tenth request's): counted, and the run
    // conforms, each clause shown by the cases judged.
    let (code, report) = skipping("seq % 10 == 0", &["--cases", "60", "--no-vectors"]);
    assert_eq!(code, Some(0), "{report}");
    assert!(report["skipped"].as_u64() > Some(0), "{report}");
    assert_eq!(with_status(&report, "not-shown"), Vec::<String>::new());
    assert_eq!(with_status(&report, "met").len(), 7, "{report}");
}

/// A ¶3 divergence that a sibling showed names the case the implementation
/// was sent as its minimal case, and the sibling apart: `count-in-prose`
/// says in a call's prose how many artifacts it returned, which only the
/// canary sibling (one artifact more a call) shows changing. The case
/// carries no canary and no marker; the sibling does; the saved case,
/// replayed alone, shows the same divergence.
#[test]
fn a_divergence_a_sibling_showed_is_the_case_sent_and_names_the_sibling() {
    let (out, dir) = diff(
        "sibling-vector",
        &["--cases", "64", "--seed", "2", "--json", "--no-vectors"],
        &["--fault", "count-in-prose"],
    );
    let report: Value = rt_tool_3::wire::parse_value(&out.stdout).expect("a JSON report");
    assert_eq!(out.status.code(), Some(1), "{report}");
    let divergence = &report["divergences"][0];
    assert_eq!(divergence["signature"], serde_json::json!(["RT-TOOL-3 ¶3"]));
    let vector = &divergence["minimal"][0];
    assert!(!vector["case"].to_string().contains("CANARY"), "{vector:#}");
    assert!(!vector["case"].to_string().contains("MARK"), "{vector:#}");
    let sibling = &vector["sibling"];
    assert_eq!(sibling["name"], "canary", "{vector:#}");
    assert!(sibling["case"].to_string().contains("CANARY"), "{vector:#}");
    let codes: Vec<&Value> = vector["violations"]
        .as_array()
        .expect("violations")
        .iter()
        .map(|v| &v["code"])
        .collect();
    assert_eq!(codes, [&Value::from("prose-changed")], "{vector:#}");
    // The standing's counterexample is the same case, the sibling beside it.
    let clauses = report["standing"]["clauses"].as_array().expect("clauses");
    let standing = clauses
        .iter()
        .find(|c| c["clause"] == "RT-TOOL-3 ¶3")
        .expect("¶3");
    assert_eq!(standing["counterexample"]["case"], vector["case"]);
    assert_eq!(standing["counterexample"]["sibling"]["name"], "canary");
    // Replayed alone, the saved case shows ¶3 again.
    let saved = dir.join("rt-tool-3-divergences.json");
    let out = Command::new(BIN)
        .args([
            "diff",
            "--cases",
            "0",
            "--no-vectors",
            "--json",
            "--save",
            "/dev/null",
            "--replay",
        ])
        .arg(&saved)
        .args(["--", BIN, "serve", "--fault", "count-in-prose"])
        .output()
        .expect("diff runs");
    let replayed: Value = rt_tool_3::wire::parse_value(&out.stdout).expect("a JSON report");
    assert_eq!(out.status.code(), Some(1), "{replayed}");
    assert_eq!(
        replayed["divergences"][0]["signature"],
        serde_json::json!(["RT-TOOL-3 ¶3"])
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// A runtime that tells a call whose `data` repeats an earlier call's
/// "(same result as call c1)" is caught by the *alone* sibling: the call
/// sent alone, as it is, gets its own prose. The marked and canary siblings
/// cannot show it, since their markers make the two `data` differ. The
/// reference, given the same twins, sends the call alone never: its prose
/// is the reference rendering.
#[test]
fn a_call_told_same_as_its_twin_is_sent_alone_and_shows_its_own_prose() {
    let cases = support::tempdir("oracle-alone-case");
    let case = cases.join("twins.json");
    std::fs::write(
        &case,
        r#"{"calls": [{"tool_call_id": "c1", "result": {"success": true, "data": {"result": "listed 2 files"}}},
                      {"tool_call_id": "c2", "result": {"success": true, "data": {"result": "listed 2 files"}}}]}"#,
    )
    .expect("write");
    let replay = case.display().to_string();
    let args = [
        "--cases",
        "0",
        "--no-vectors",
        "--json",
        "--replay",
        &replay,
    ];
    let (out, dir) = diff("alone", &args, &["--fault", "dedupe-prose"]);
    let report: Value = rt_tool_3::wire::parse_value(&out.stdout).expect("a JSON report");
    assert_eq!(out.status.code(), Some(1), "{report}");
    let vector = &report["divergences"][0]["minimal"][0];
    let sibling = &vector["sibling"];
    assert_eq!(sibling["name"], "alone", "{vector:#}");
    // The second twin alone (shrinking may have made `success` simpler).
    let alone = &sibling["case"]["calls"];
    assert_eq!(alone.as_array().map(Vec::len), Some(1), "{vector:#}");
    assert_eq!(alone[0]["tool_call_id"], "c2", "{vector:#}");
    assert_eq!(alone[0]["result"]["data"]["result"], "listed 2 files");
    assert_eq!(vector["case"]["calls"].as_array().map(Vec::len), Some(2));
    assert_eq!(vector["violations"][0]["code"], "prose-alone", "{vector:#}");
    let message = vector["violations"][0]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(
        message.contains("\"(same result as call c1)\" beside the other calls"),
        "{message}"
    );
    let (out, reference) = diff("alone-reference", &args, &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    for d in [dir, reference, cases] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// `diff` judges each call on its own, as `check` does: beside a call
/// whose result is a bare string, a well-formed call's artifact is owed
/// (a runtime that drops every artifact of such a run is ¶1), its prose may
/// not change with its artifacts (one counting them is ¶3), and a twin
/// told "(same result as call c1)" is sent alone (¶3); the reference
/// passes each.
#[test]
fn a_malformed_calls_sibling_is_judged_in_full() {
    let cases = support::tempdir("oracle-per-call-case");
    let write = |name: &str, text: &str| {
        let path = cases.join(name);
        std::fs::write(&path, text).expect("write");
        path.display().to_string()
    };
    let mixed = write(
        "mixed.json",
        r#"{"calls": [{"tool_call_id": "c1", "result": "Searched the archive."},
                      {"tool_call_id": "c2", "result": {"success": true, "data": "fetched",
                        "artifacts": [{"type": "link", "payload": {"url": "https://example.com/kept"}}]}}]}"#,
    );
    let twins = write(
        "twins.json",
        r#"{"calls": [{"tool_call_id": "c0", "result": "Searched the archive."},
                      {"tool_call_id": "c1", "result": {"success": true, "data": {"result": "listed 2 files"}}},
                      {"tool_call_id": "c2", "result": {"success": true, "data": {"result": "listed 2 files"}}}]}"#,
    );
    let mut dirs = Vec::new();
    for (case, fault, clause, code, call) in [
        (
            &mixed,
            "drop-all-when-any-malformed",
            "RT-TOOL-3 ¶1",
            "missing-artifact",
            1,
        ),
        (&mixed, "count-in-prose", "RT-TOOL-3 ¶3", "prose-changed", 1),
        (&twins, "dedupe-prose", "RT-TOOL-3 ¶3", "prose-alone", 2),
    ] {
        let args = ["--cases", "0", "--no-vectors", "--json", "--replay", case];
        let (out, dir) = diff(fault, &args, &["--fault", fault]);
        let report: Value = rt_tool_3::wire::parse_value(&out.stdout).expect("a JSON report");
        assert_eq!(out.status.code(), Some(1), "{fault}: {report}");
        let divergence = &report["divergences"][0];
        assert_eq!(
            divergence["signature"],
            serde_json::json!([clause]),
            "{fault}: {report}"
        );
        // As the case was sent, before shrinking: about the well-formed call.
        let found = &divergence["found"][0]["violations"][0];
        assert_eq!(found["code"], code, "{fault}: {found}");
        assert_eq!(found["place"]["call"], call, "{fault}: {found}");
        let (out, reference) = diff("per-call-reference", &args, &[]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{text}");
        dirs.extend([dir, reference]);
    }
    dirs.push(cases);
    for d in dirs {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// A ¶3 leak that only a sibling showed (an artifact's URL put in the
/// prose, against a minimal case with no artifact at all): every report
/// shows that sibling first, as sent, with its expected and observed
/// outcomes, and the case it was built from after it; and `check` on the
/// sibling and its observed outcome finds the leak.
#[test]
fn a_leak_a_sibling_showed_is_shown_on_that_sibling_first() {
    let [(text, text_dir), (json, dir)] = text_and_json(
        "sibling",
        &["--cases", "30", "--seed", "1", "--no-vectors"],
        "leak-payload",
    );
    let report: Value = rt_tool_3::wire::parse_reply(&json.stdout).expect("a report");
    let vector = report["divergences"]
        .as_array()
        .expect("divergences")
        .iter()
        .flat_map(|d| d["minimal"].as_array().expect("minimal").iter())
        .find(|v| !v["sibling"].is_null())
        .expect("a minimal case a sibling showed");
    let sibling = &vector["sibling"];
    // `check` on the sibling as sent and what came back: the same clause.
    let (case, outcome) = (
        dir.join("sibling-case.json"),
        dir.join("sibling-observed.json"),
    );
    std::fs::write(&case, sibling["case"].to_string()).expect("written");
    std::fs::write(&outcome, sibling["observed"].to_string()).expect("written");
    let out = Command::new(BIN)
        .args(["check", "--json"])
        .args([&case, &outcome])
        .output()
        .expect("check runs");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let judged: Value = serde_json::from_slice(&out.stdout).expect("a judgement");
    let clauses: Vec<&Value> = judged["violations"]
        .as_array()
        .expect("violations")
        .iter()
        .map(|v| &v["clause"])
        .collect();
    assert!(
        clauses.iter().all(|c| **c == vector["clauses"][0]),
        "{judged}"
    );
    // In the text, the sibling first, labelled the minimal case.
    let stdout = String::from_utf8_lossy(&text.stdout);
    let first = |needle: &str| {
        stdout
            .find(needle)
            .unwrap_or_else(|| panic!("{needle}: {stdout}"))
    };
    let shown = first("  shown on its canary sibling");
    let minimal = first("  minimal case: ");
    let built = first("  the case it was built from");
    assert!(shown < minimal && minimal < built, "{stdout}");
    assert!(stdout[minimal..built].contains("call_FRESH"), "{stdout}");
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).expect(name);
    // The standing, JUnit and the page: the sibling before the case.
    for (name, sibling_first, case_after) in [
        (
            "s.md",
            "Shown on its canary sibling",
            "The case it was built from",
        ),
        (
            "j.xml",
            "shown on its canary sibling",
            "the case it was built from",
        ),
        (
            "p.html",
            "the sibling, as sent",
            "The case it was built from",
        ),
    ] {
        let text = read(name);
        let at = text
            .find(sibling_first)
            .unwrap_or_else(|| panic!("{name}: {text}"));
        let after = text
            .find(case_after)
            .unwrap_or_else(|| panic!("{name}: {text}"));
        assert!(at < after, "{name}");
    }
    // The page says the case's own outcomes are the same, not where they
    // differ.
    assert!(read("p.html").contains("The expected and the observed outcome are the same."));
    for d in [dir, text_dir] {
        let _ = std::fs::remove_dir_all(d);
    }
}
