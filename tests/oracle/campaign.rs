//! Campaigns: `diff --jobs N` gives the report `--jobs 1` gives, and the
//! shards of a campaign (`--shard K/N`), merged with `rt-tool-3 merge`, give
//! the report, the standing, the JUnit, the page and the badge of one
//! unsharded run; what cannot be merged is refused in one line; and a
//! version draws the stream it pinned.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::support::{self, BIN};

/// A fresh directory for one test.
fn dir(name: &str) -> PathBuf {
    support::tempdir(&format!("campaign-{name}"))
}

/// `diff ARGS -- rt-tool-3 serve SERVE`, run in `dir`.
fn diff(dir: &Path, args: &[&str], serve: &[&str]) -> Output {
    Command::new(BIN)
        .current_dir(dir)
        .arg("diff")
        .args(args)
        .args(["--", BIN, "serve"])
        .args(serve)
        .output()
        .expect("diff runs")
}

fn json(out: &Output) -> Value {
    rt_tool_3::wire::parse(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not a JSON report ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// A runtime that attributes every artifact to the first call: ¶1, first
/// found by a pinned vector, then by generated cases.
const FAULT: [&str; 2] = ["--fault", "first-call"];

/// A runtime that leaks payloads into the prose: ¶3, found by every shard
/// on its first pinned vector, each shrinking its own (cheaply: a pinned
/// case shrinks in a few dozen requests).
const LEAK: [&str; 2] = ["--fault", "leak-payload"];

#[test]
fn the_report_does_not_depend_on_jobs() {
    let dir = dir("jobs");
    let one = diff(&dir, &["--cases", "40", "--seed", "7", "--json"], &FAULT);
    let four = diff(
        &dir,
        &["--cases", "40", "--seed", "7", "--json", "--jobs", "4"],
        &FAULT,
    );
    assert_eq!(one.status.code(), Some(1));
    assert_eq!(four.status.code(), Some(1));
    let (one, four) = (json(&one), json(&four));
    assert!(!one["divergences"].as_array().expect("a list").is_empty());
    // Everything: divergences, minimal cases, numbering, requests, tally,
    // standing.
    assert_eq!(one, four);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn eight_shards_merged_are_the_unsharded_run() {
    let dir = dir("shards");
    let common = ["--cases", "40", "--seed", "7", "--json"];
    let reports = |name: &str| {
        ["standing", "junit", "html", "badge"]
            .into_iter()
            .flat_map(|flag| [format!("--{flag}"), format!("{name}.{flag}")])
            .collect::<Vec<_>>()
    };
    let whole_reports = reports("whole");
    let whole_reports: Vec<&str> = whole_reports.iter().map(String::as_str).collect();
    let whole = diff(&dir, &[&common[..], &whole_reports].concat(), &LEAK);
    assert_eq!(whole.status.code(), Some(1));
    let mut files = Vec::new();
    let mut finders = 0;
    for k in 1..=8 {
        let shard = format!("{k}/8");
        let out = diff(&dir, &[&common[..], &["--shard", &shard]].concat(), &LEAK);
        let report = json(&out);
        assert_eq!(report["campaign"]["shard"]["index"], k);
        finders += usize::from(!report["divergences"].as_array().expect("a list").is_empty());
        let file = dir.join(format!("shard-{k}.json"));
        std::fs::write(&file, &out.stdout).expect("written");
        files.push(file);
    }
    // Several shards found ¶3 on their own: merging must keep the first,
    // and take off the requests the others spent shrinking.
    assert!(finders >= 2, "only {finders} shard(s) diverged");
    let merged = Command::new(BIN)
        .current_dir(&dir)
        .args(["merge", "--json"])
        .args(reports("merged"))
        .args(files.iter().rev())
        .output()
        .expect("merge runs");
    assert_eq!(
        merged.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&merged.stderr)
    );
    let (merged, whole) = (json(&merged), json(&whole));
    for (key, value) in whole.as_object().expect("an object") {
        assert_eq!(&merged[key], value, "{key}");
    }
    assert_eq!(merged, whole);
    // The standing, the JUnit, the page and the badge too.
    for report in ["standing", "junit", "html", "badge"] {
        let read = |run: &str| {
            std::fs::read_to_string(dir.join(format!("{run}.{report}"))).expect("a report")
        };
        assert_eq!(read("merged"), read("whole"), "{report}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// CAMPAIGNS.md's GitHub Actions matrix, its `run:` steps taken from
/// CAMPAIGNS.md as written and run in bash as Actions runs them (`-eo
/// pipefail`): eight shards against `serve` with a seeded leak, each step
/// passing although its shard diverged, then the merge, which ends on the
/// divergence with a standing and the saved vectors.
#[test]
fn the_campaign_matrix_runs_as_written() {
    let doc = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/CAMPAIGNS.md"));
    let block = doc
        .split("```yaml\n")
        .find(|b| b.starts_with("name: RT-TOOL-3 campaign"))
        .and_then(|b| b.split("```").next())
        .expect("CAMPAIGNS.md's campaign matrix");
    // A step's `run:`, inline or as the `|` block under it.
    let run_of = |after: &str| -> String {
        let lines: Vec<&str> = block.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.contains(after))
            .unwrap_or_else(|| panic!("no step {after:?} in the matrix"));
        let step = &lines[at..];
        let (k, run) = step
            .iter()
            .enumerate()
            .find_map(|(k, l)| {
                let l = l.trim_start();
                let l = l.strip_prefix("- ").unwrap_or(l);
                l.strip_prefix("run: ").map(|r| (k, r))
            })
            .expect("a run: line");
        if run != "|" {
            return run.to_owned();
        }
        let indent = step[k].len() - step[k].trim_start().len();
        step[k + 1..]
            .iter()
            .take_while(|l| l.len() - l.trim_start().len() > indent)
            .map(|l| format!("{}\n", l.trim_start()))
            .collect()
    };
    let diff_step = run_of("name: diff, shard");
    let merge_step = run_of("rt-tool-3 merge");
    assert!(
        diff_step.contains("--shard ${{ matrix.shard }}/8"),
        "{diff_step}"
    );
    assert!(diff_step.contains("./my-adapter"), "{diff_step}");
    let bin_dir = Path::new(BIN).parent().expect("the binary's directory");
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let dir = dir("readme-matrix");
    let bash = |script: &str| {
        Command::new("bash")
            .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
            .current_dir(&dir)
            .env("PATH", &path)
            .env("SEED", "7")
            .env("CASES", "40")
            .output()
            .expect("bash runs")
    };
    let adapter = format!("{BIN} serve {}", LEAK.join(" "));
    for k in 1..=8 {
        let script = diff_step
            .replace("${{ matrix.shard }}", &k.to_string())
            .replace("./my-adapter", &adapter);
        let out = bash(&script);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "shard {k}: {script}\n{err}");
        let report: Value = rt_tool_3::wire::parse(
            &std::fs::read(dir.join(format!("shard-{k}.json"))).expect("the shard's report"),
        )
        .expect("a JSON report");
        assert_eq!(report["campaign"]["shard"]["index"], k);
    }
    let out = bash(&merge_step);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{merge_step}\n{text}");
    assert!(text.contains("RT-TOOL-3 ¶3"), "{text}");
    let standing = std::fs::read_to_string(dir.join("standing.md")).expect("standing.md");
    assert!(standing.contains("### RT-TOOL-3 ¶3: not met"), "{standing}");
    // The reports the job publishes: the JUnit fails on ¶3, the page and
    // the badge say it is not met.
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).expect(name);
    assert!(read("junit.xml").contains("<failure message=\""));
    assert!(read("junit.xml").contains(" name=\"RT-TOOL-3 ¶3: "));
    // Its type, the first finding's code: a code of ¶3.
    let junit = read("junit.xml");
    let kind = junit
        .split("<failure message=\"")
        .nth(1)
        .and_then(|f| f.split(" type=\"").nth(1))
        .and_then(|t| t.split('"').next())
        .expect("a failure with a type");
    let code = rt_tool_3::judge::Code::of_name(kind).expect("the type is a code");
    assert_eq!(
        code.clause(),
        rt_tool_3::judge::Clause::ProseFromData,
        "{kind}"
    );
    assert!(read("standing.html").contains("RT-TOOL-3 ¶3: not met"));
    let badge: Value = serde_json::from_str(&read("badge.json")).expect("the badge's JSON");
    assert_eq!(badge["message"], "¶1 ¶2 ¶4 met, ¶3 not met");
    let saved: Value = rt_tool_3::wire::parse(
        &std::fs::read(dir.join("divergences.json")).expect("divergences.json"),
    )
    .expect("saved JSON");
    assert_eq!(
        saved["divergences"][0]["signature"],
        serde_json::json!(["RT-TOOL-3 ¶3"])
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn merge_refuses_what_is_not_one_campaign() {
    let dir = dir("refuse");
    let shard = |k: u32, seed: &str| {
        let shard = format!("{k}/2");
        let out = diff(
            &dir,
            &["--cases", "4", "--seed", seed, "--json", "--shard", &shard],
            &[],
        );
        assert_eq!(out.status.code(), Some(0));
        json(&out)
    };
    let write = |name: &str, v: &Value| {
        std::fs::write(dir.join(name), v.to_string()).expect("written");
        name.to_owned()
    };
    let a = write("a.json", &shard(1, "3"));
    let b = write("b.json", &shard(2, "3"));
    let other_seed = write("c.json", &shard(2, "4"));
    let mut mid_run = shard(2, "3");
    mid_run["complete"] = Value::Bool(false);
    let mid_run = write("d.json", &mid_run);
    let mut old = shard(2, "3");
    old["oracle"] = Value::from("rt-tool-3 0.1.0");
    let old = write("e.json", &old);
    let merge = |files: &[&str]| {
        Command::new(BIN)
            .current_dir(&dir)
            .arg("merge")
            .args(files)
            .output()
            .expect("merge runs")
    };
    assert_eq!(merge(&[&a, &b]).status.code(), Some(0));
    for (files, says) in [
        (vec![&a, &other_seed], "seed 3 and 4"),
        (vec![&a, &a, &b], "both shard 1/2"),
        (vec![&a], "shard 2/2 is missing"),
        (vec![&a, &mid_run], "while its run went on"),
        (vec![&a, &old], "rt-tool-3 0.1.0"),
    ] {
        let files: Vec<&str> = files.iter().map(|f| f.as_str()).collect();
        let out = merge(&files);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{files:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(says), "{files:?}: {err}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_fault_in_one_copy_ends_the_run_naming_the_copy_and_the_case() {
    let dir = dir("copy-fault");
    let out = diff(
        &dir,
        &["--cases", "20", "--seed", "1", "--jobs", "2"],
        &["--fault", "crash", "--strike", "40"],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(" of 2: the implementation crashed"), "{err}");
    assert!(err.contains("the case: {"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_shard_needs_a_seed() {
    let out = Command::new(BIN)
        .args(["diff", "--shard", "2/8", "--", BIN, "serve"])
        .output()
        .expect("diff runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--shard needs --seed"));
}

/// The tally counts every judged case, pinned and generated, once for each
/// clause it bears on ([`tally::bearing`], which reads the case afresh;
/// `diff` counts as it judges, from what it found for the zone).
#[test]
fn the_tally_counts_each_judged_case_for_what_it_bears_on() {
    use rt_tool_3::{gen, judge::Clause, replay, tally};
    let dir = dir("tally");
    let out = diff(&dir, &["--cases", "60", "--seed", "5", "--json"], &[]);
    assert_eq!(out.status.code(), Some(0));
    let report = json(&out);
    let pinned = replay::pinned().expect("the pinned vectors load");
    let generated: Vec<_> = gen::cases(5).take(60).collect();
    let mut expected = tally::Tally::default();
    for case in pinned.iter().map(|f| &f.case).chain(&generated) {
        expected.count(case);
    }
    let over_floors = Clause::Bounds;
    assert!(
        generated
            .iter()
            .any(|c| tally::bearing(c).contains(&over_floors)),
        "some generated case should be over the floors"
    );
    assert_eq!(report["tally"], serde_json::to_value(&expected).unwrap());
    let _ = std::fs::remove_dir_all(dir);
}

/// A seed's stream is part of the oracle's version. `merge` joins shards by
/// rule, reading and version (among others), so two builds that name one
/// version must draw the same cases from a seed: shards of one campaign
/// run on two such builds would otherwise merge into a campaign nobody
/// ran, and a divergence found by one would not replay on the other. Each
/// version pins here the SHA-256 of `rt-tool-3 cases --seed 0 --count
/// 1000` (about 1 % of cases take the rarest branches, so 1,000 cases
/// reach every one); a version whose stream did not change pins the same
/// hash as the one before it.
const STREAMS: &[(&str, &str)] = &[
    (
        "0.4.0",
        "450064d007e1a503b6d53894bd3e38d88abab7339ea5b57bcede41ffc51cc063",
    ),
    (
        "0.5.0",
        "450064d007e1a503b6d53894bd3e38d88abab7339ea5b57bcede41ffc51cc063",
    ),
    (
        "0.7.0",
        "4478a78083831d88a00cd6c52e5c3c645f7ba0bf385cbc4c8c36a961d56bdf73",
    ),
    (
        "0.8.0",
        "4478a78083831d88a00cd6c52e5c3c645f7ba0bf385cbc4c8c36a961d56bdf73",
    ),
    (
        "0.9.0",
        "4478a78083831d88a00cd6c52e5c3c645f7ba0bf385cbc4c8c36a961d56bdf73",
    ),
    (
        "0.10.0",
        "f7dabf19a77e7091500d25f62bacc50f763d77a9be1ab765887ac0933a78d9f7",
    ),
];

#[test]
fn a_version_draws_the_stream_it_pinned() {
    use sha2::{Digest, Sha256};
    let out = Command::new(BIN)
        .args(["cases", "--seed", "0", "--count", "1000"])
        .output()
        .expect("cases runs");
    assert!(out.status.success(), "cases failed");
    let hash: String = Sha256::digest(&out.stdout)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let version = rt_tool_3::ORACLE_VERSION;
    match STREAMS.iter().find(|(v, _)| *v == version) {
        Some((_, pinned)) => assert_eq!(
            &hash, pinned,
            "seed 0's stream changed, and the version is still {version}: a new stream needs \
             a new version (Cargo.toml), pinned in STREAMS with this hash"
        ),
        None => panic!(
            "version {version} pins no stream: add (\"{version}\", \"{hash}\") to STREAMS \
             (the same hash as the version before it if the stream did not change)"
        ),
    }
}

/// The warnings listed with their cases are the same merged from shards as
/// in the whole run, in stream order: `serve --variant reversed` warns of
/// every call whose artifacts it reverses.
#[test]
fn shards_merged_list_the_warnings_of_the_unsharded_run() {
    let dir = dir("warned");
    let serve = ["--variant", "reversed"];
    let common = [
        "--cases",
        "40",
        "--seed",
        "3",
        "--json",
        "--save",
        "/dev/null",
    ];
    let whole = json(&diff(&dir, &common, &serve));
    assert!(!whole["warned"].as_array().expect("a list").is_empty());
    let mut files = Vec::new();
    for k in 1..=4 {
        let shard = format!("{k}/4");
        let out = diff(&dir, &[&common[..], &["--shard", &shard]].concat(), &serve);
        let file = dir.join(format!("shard-{k}.json"));
        std::fs::write(&file, &out.stdout).expect("written");
        files.push(file);
    }
    let merged = Command::new(BIN)
        .current_dir(&dir)
        .args(["merge", "--json"])
        .args(files.iter().rev())
        .output()
        .expect("merge runs");
    let merged = json(&merged);
    assert_eq!(merged["warned"], whole["warned"]);
    assert_eq!(merged["warnings"], whole["warnings"]);
    let _ = std::fs::remove_dir_all(dir);
}
