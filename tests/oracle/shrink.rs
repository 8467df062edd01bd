//! Shrinking in bounded time: a divergence in one number of a flat array
//! of 200,000, in a case of over 1.5 MB, shrinks by halves to the item that
//! shows it; and a time budget spent before shrinking is done reports the
//! smallest case found so far as such, saved, with exit 1.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::support::{self, BIN};

/// Where the number `serve --fault six-decimals` changes sits in the array.
const CHANGED_AT: usize = 137_421;

/// The number it changes (to 0.123457): the only one with a fraction.
const CHANGED: &str = "0.1234567";

/// A case of one call whose one artifact's payload holds a flat array of
/// `items` integers of seven digits, the one at [`CHANGED_AT`] (or the
/// last, in a shorter array) [`CHANGED`] instead, written compact.
fn flat_array_case(items: usize) -> String {
    let at = CHANGED_AT.min(items - 1);
    let values: Vec<String> = (0..items)
        .map(|i| match i == at {
            true => CHANGED.to_owned(),
            false => (1_000_000 + 3 * i).to_string(),
        })
        .collect();
    format!(
        r#"{{"calls":[{{"tool_call_id":"c1","result":{{"success":true,"data":"a table of {items} numbers","artifacts":[{{"type":"table","payload":{{"values":[{}]}}}}]}}}}]}}"#,
        values.join(",")
    )
}

/// `diff --cases 0 --no-vectors --replay CASE ARGS` against `serve --fault
/// six-decimals`, in `dir`, under a watchdog that only keeps a stuck run
/// from stalling the suite: its exit code, stdout and stderr.
fn diff(dir: &Path, case: &Path, args: &[&str]) -> (Option<i32>, Vec<u8>, String) {
    let child = Command::new(BIN)
        .current_dir(dir)
        .args(["diff", "--cases", "0", "--no-vectors", "--replay"])
        .arg(case)
        .args(args)
        .args(["--", BIN, "serve", "--fault", "six-decimals"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("diff runs");
    let out = support::watch(child, Duration::from_secs(600), "diff of a large case");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code(), out.stdout, err)
}

/// A JSON document read as the oracle reads one, every digit kept.
fn read(bytes: &[u8]) -> Value {
    rt_tool_3::wire::parse(bytes).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}",
            String::from_utf8_lossy(&bytes[..bytes.len().min(300)])
        )
    })
}

/// The one array of the case's one artifact's payload.
fn values(case: &Value) -> &Vec<Value> {
    case["calls"][0]["result"]["artifacts"][0]["payload"]["values"]
        .as_array()
        .unwrap_or_else(|| panic!("no array of values in {case}"))
}

/// The case as written to `path`, in `dir`.
fn written(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("the case is written");
    path
}

/// One divergence of ¶1, first seen in the replayed case, whose vectors
/// name the payload changed, in a report that is complete.
fn one_divergence_of_the_case(report: &Value) -> &Value {
    assert_eq!(report["complete"], true, "{report:.300}");
    let divergences = report["divergences"].as_array().expect("divergences");
    assert_eq!(divergences.len(), 1, "one bug, one divergence");
    let d = &divergences[0];
    assert_eq!(d["signature"], serde_json::json!(["RT-TOOL-3 ¶1"]));
    assert!(
        d["origin"]
            .as_str()
            .is_some_and(|o| o.ends_with("case.json case 0")),
        "{}",
        d["origin"]
    );
    for v in [&d["found"][0], &d["minimal"][0]] {
        let codes: Vec<&Value> = v["violations"]
            .as_array()
            .expect("violations")
            .iter()
            .map(|f| &f["code"])
            .collect();
        assert!(codes.iter().any(|c| *c == "payload-altered"), "{codes:?}");
    }
    d
}

/// The divergence inside 200,000 numbers shrinks to a minimal case whose
/// array holds the changed number and at most two others; the case that
/// first showed it is reported whole, and the `--save` file holds both.
#[test]
fn a_divergence_in_one_of_200000_numbers_shrinks_to_that_number() {
    let dir = support::tempdir("shrink-large");
    let text = flat_array_case(200_000);
    assert!(text.len() > 1_500_000, "{} bytes", text.len());
    let case = written(&dir, "case.json", &text);
    let (code, stdout, err) = diff(&dir, &case, &["--json", "--save", "save.json"]);
    assert_eq!(code, Some(1), "{err}");
    let report = read(&stdout);
    let d = one_divergence_of_the_case(&report);
    assert_eq!(d["shrink_end"], "minimal", "{err}");
    assert!(d.get("shrink_seconds").is_none(), "{d:.300}");
    assert_eq!(values(&d["found"][0]["case"]).len(), 200_000);
    let minimal = &d["minimal"][0]["case"];
    let kept = values(minimal);
    assert!(
        (1..=3).contains(&kept.len()),
        "the array cut to {} items",
        kept.len()
    );
    assert!(kept.contains(&read(CHANGED.as_bytes())), "{minimal}");
    assert!(minimal.to_string().len() < 300, "{minimal}");
    assert!(d["shrink_requests"].as_u64() > Some(0));
    // The standing's counterexample is that case, said to be minimal.
    let one = report["standing"]["clauses"]
        .as_array()
        .expect("clauses")
        .iter()
        .find(|c| c["clause"] == "RT-TOOL-3 ¶1")
        .expect("¶1");
    assert_eq!(one["status"], "not-met");
    assert_eq!(&one["counterexample"]["case"], minimal);
    assert_eq!(one["counterexample"]["shrink_end"], "minimal");
    // Saved as reported, and the saved minimal case replays to the same
    // divergence.
    let saved = read(&std::fs::read(dir.join("save.json")).expect("saved"));
    assert_eq!(saved["divergences"][0]["minimal"], d["minimal"]);
    let again = written(
        &dir,
        "case.json",
        &serde_json::to_string(minimal).expect("json"),
    );
    let (code, stdout, err) = diff(&dir, &again, &["--json", "--save", "again.json"]);
    assert_eq!(code, Some(1), "{err}");
    let replayed = read(&stdout);
    assert_eq!(
        one_divergence_of_the_case(&replayed)["minimal"][0]["case"],
        *minimal
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// With no time to shrink (`--shrink-time 0`), the case that first showed
/// the divergence is reported and saved as the smallest found within the
/// budget, not as a minimal case, in the text, the JSON, the `--save` file,
/// the standing, the page and the JUnit; and the run fails.
#[test]
fn a_spent_budget_reports_the_smallest_case_so_far_as_such() {
    let dir = support::tempdir("shrink-budget");
    let case = written(&dir, "case.json", &flat_array_case(20_000));
    let (code, stdout, err) = diff(
        &dir,
        &case,
        &[
            "--shrink-time",
            "0",
            "--json",
            "--save",
            "save.json",
            "--standing",
            "standing.md",
            "--html",
            "page.html",
            "--junit",
            "junit.xml",
        ],
    );
    assert_eq!(code, Some(1), "{err}");
    let report = read(&stdout);
    let d = one_divergence_of_the_case(&report);
    assert_eq!(d["shrink_end"], "time");
    assert!(
        d["shrink_seconds"].as_f64().is_some_and(|s| s >= 0.0),
        "{d:.300}"
    );
    assert_eq!(d["shrink_requests"], 0);
    assert_eq!(d["minimal"], d["found"]);
    assert_eq!(values(&d["minimal"][0]["case"]).len(), 20_000);
    let saved = read(&std::fs::read(dir.join("save.json")).expect("saved"));
    assert_eq!(saved["complete"], true);
    assert_eq!(saved["divergences"][0]["shrink_end"], "time");
    assert_eq!(saved["divergences"][0]["minimal"], d["minimal"]);
    let note =
        "the smallest case found before the time budget (--shrink-time) ran out, not a minimal one";
    let file = |name: &str| std::fs::read_to_string(dir.join(name)).expect("a report");
    let standing = file("standing.md");
    assert!(
        standing.contains(&format!("The case below is {note}.")),
        "{standing:.2000}"
    );
    assert_eq!(
        report["standing"]["clauses"][0]["counterexample"]["shrink_end"],
        "time"
    );
    let page = file("page.html");
    assert!(page.contains(&format!("<figcaption>The case: {note}</figcaption>")));
    assert!(!page.contains("Minimal case"));
    let junit = file("junit.xml");
    assert!(
        junit.contains(&format!("the case: {note}")),
        "{junit:.3000}"
    );
    assert!(!junit.contains("minimal case:"), "{junit:.3000}");
    // The text says so, in place of a minimal case.
    let (code, stdout, err) = diff(&dir, &case, &["--shrink-time", "0", "--save", "text.json"]);
    assert_eq!(code, Some(1), "{err}");
    let text = String::from_utf8_lossy(&stdout);
    assert!(
        text.contains("  the case: the smallest case found before the time budget (--shrink-time) ran out, not a minimal one (0 requests in "),
        "{text:.2000}"
    );
    assert!(text.contains("  smallest yet: {"), "{text:.2000}");
    assert!(!text.contains("minimal case:"), "{text:.2000}");
    let _ = std::fs::remove_dir_all(dir);
}
