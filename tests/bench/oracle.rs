//! `cargo bench`: the oracle's speed and memory, each figure a ratio to a
//! baseline measured in the same run on the same machine.
//!
//! - model on a large case: `verdict` bytes in to bytes out, against a bare
//!   serde_json parse and print of the same bytes (the floor; target ≤ 1.5×),
//!   and the `verdict` command against CPython's `json.load` + `json.dump`;
//! - model on small generated cases: cases per second, against a serde_json
//!   round trip of the same cases;
//! - harness overhead: `diff --cases 1000` against `serve` and against the
//!   Python adapter, against the very same requests piped to the
//!   implementation alone, its replies read from a pipe and not judged
//!   (target ≤ 1.3× for an implementation as slow as CPython), and requests
//!   per case;
//! - peak memory of `verdict` on the large case, against the input's size
//!   (target ≤ 4×);
//! - hostile outcomes: `check`'s work in process (the case parsed, the
//!   outcome judged as it is read) on outcomes built to stall a quadratic judge or
//!   swell its memory, against a bare serde_json parse of the same two
//!   files (target ≤ 3×), and the `check` command's peak memory against
//!   the two files' bytes (target ≤ 3× + 50 MB);
//! - the oracle's own CPU per case (`cpu`): `diff` run in this process
//!   against `serve`, this process's CPU time (all its threads, not its
//!   children) against `serve`'s, the child's, for the very same requests
//!   (target ≤ 0.8×), with where the oracle's time goes;
//! - `--jobs` (`jobs`): the throughput of `diff --jobs 4` against that of
//!   `--jobs 1` on `serve --delay-ms 2`, an implementation bound by waiting
//!   (target ≥ 3.5×), and of `--jobs 2` against `--jobs 1` on the Python
//!   adapter, bound by CPU, on a two-core machine (target ≥ 1.6×); a ratio
//!   over N× for N copies is printed as a disturbed run, not as met, and
//!   beside it the adapter's own two-core ceiling, with no oracle;
//! - a long run's memory (`memory`): the peak resident set of `diff
//!   --jobs 2` against `serve` on 100,000 cases, against the same run on
//!   10,000 (1× when a run's memory does not grow with its length);
//! - against an older build (`compare`, with `RT_TOOL_3_BASELINE` set to
//!   its `rt-tool-3`): this build's oracle CPU per case against that
//!   build's, both driving the older build's `serve`, so that a change to
//!   code the two sides share is seen on the oracle's side alone; a turn
//!   on each of seeds 3 to 10, so that two builds whose streams differ
//!   are held to as many seeds' worth of cases;
//! - shrinking (`shrink-large`, `shrink-faults`, in `shrink.rs`): a
//!   divergence in one number of 200,000 timed whole, and against an older
//!   build every clause fault's shrinking, its requests and minimal cases.
//!
//! `cargo bench -- NAME` runs only the benchmarks named `large`, `small`,
//! `harness`, `cpu`, `jobs`, `memory`, `compare`, `shrink-large`, `shrink-faults`, `hostile-reversed`, `hostile-repeated`,
//! `hostile-reversed-10x`, `hostile-repeated-10x`, `hostile-foreign`,
//! `hostile-near`, and `hostile-long-data`, `hostile-long-payload`,
//! `hostile-long-other`, `hostile-shared`, `hostile-calls`, `hostile-keys`,
//! `hostile-nesting`, each also at half size (`-half`), that contain NAME
//! (`hostile` runs every hostile one).
//!
//! Ratios, not absolute times, are the result: they hold across machines.
//! Each side of a ratio is the median of several runs, the two sides taken
//! in turns so that a change in the machine's load falls on both alike.
//! Nothing here asserts on time.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rt_tool_3::judge::ProseMode;
use rt_tool_3::{gen, model, wire::Case};
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_rt-tool-3");

mod shrink;

/// The allocator of the command line, so that `diff` run in this process
/// costs what the command costs.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The median time of each of two measurements, taken in turns so that a
/// change in the machine's load falls on both alike.
fn interleaved(
    runs: usize,
    mut ours: impl FnMut() -> Duration,
    mut base: impl FnMut() -> Duration,
) -> (Duration, Duration) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        a.push(ours());
        b.push(base());
    }
    (median_of(a), median_of(b))
}

/// The median of figures that are not times (ratios, ms a case).
fn median_f64(figures: &[f64]) -> f64 {
    let mut sorted = figures.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

fn median_of(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn timed(f: impl FnOnce()) -> Duration {
    let mut total = Duration::ZERO;
    add_time(&mut total, f);
    total
}

/// Runs `f`, adds the time it took to `total`, and gives back its value.
fn add_time<T>(total: &mut Duration, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let value = f();
    *total += t.elapsed();
    value
}

/// About 30 MB: 40 calls, 50 artifacts with large payloads, large data.
fn large_case() -> Vec<u8> {
    let blob = |seed: usize, n: usize| -> Value {
        let items: Vec<Value> = (0..n)
            .map(|i| json!({"id": i, "name": format!("item-{seed}-{i} ünïcode ✓"), "score": (i as f64) * 1.25,
                "tags": ["a", "b", format!("t{}", i % 7)], "nested": {"tool_call_id": "c0", "ok": i % 2 == 0}}))
            .collect();
        json!({"items": items, "url": format!("https://example.com/{seed}")})
    };
    let calls: Vec<Value> = (0..40)
        .map(|c| {
            let artifacts: Vec<Value> = (0..if c < 10 { 5 } else { 0 })
                .map(|a| json!({"type": "record", "payload": blob(c * 10 + a, 4_000), "tool_call_id": "spoof"}))
                .collect();
            json!({"tool_call_id": format!("call_{c}"), "result": {"success": true, "data": blob(c, 1_000), "artifacts": artifacts}})
        })
        .collect();
    serde_json::to_vec(&json!({"exposed": null, "calls": calls})).expect("encodes")
}

fn ratio(label: &str, ours: Duration, base: Duration, target: Option<f64>) {
    let r = ours.as_secs_f64() / base.as_secs_f64();
    let verdict = match target {
        Some(t) if r <= t => format!("(target ≤ {t}×: met)"),
        Some(t) => format!("(target ≤ {t}×: NOT MET)"),
        None => String::new(),
    };
    println!(
        "{label}: {:.1} ms vs {:.1} ms = {r:.2}× {verdict}",
        ours.as_secs_f64() * 1e3,
        base.as_secs_f64() * 1e3
    );
}

fn main() {
    let dir = std::env::temp_dir().join(format!("rt-tool-3-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    // `cargo bench -- harness` runs the benchmarks whose name contains
    // `harness`; cargo's own flags (`--bench`) are not filters.
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let wanted =
        |name: &str| filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str()));
    if wanted("large") {
        large(&dir);
    }
    if wanted("small") {
        small();
    }
    if wanted("harness") {
        harness(&dir);
    }
    if wanted("cpu") {
        cpu();
    }
    if wanted("jobs") {
        jobs(&dir);
    }
    if wanted("memory") {
        memory();
    }
    if wanted("compare") {
        compare(&dir);
    }
    if wanted("main-job") {
        main_job();
    }
    if wanted("shrink-large") {
        shrink::large(&dir);
    }
    if wanted("shrink-faults") {
        shrink::faults();
    }
    hostile(&dir, &wanted);
    let _ = std::fs::remove_dir_all(&dir);
}

fn large(dir: &Path) {
    let bytes = large_case();
    let file = dir.join("large.json");
    std::fs::write(&file, &bytes).expect("write");
    println!("large case: {:.1} MB", bytes.len() as f64 / 1e6);
    let (ours, floor) = interleaved(
        7,
        || {
            timed(|| {
                let mut out = Vec::with_capacity(bytes.len());
                rt_tool_3::verdict(&bytes, &mut out).expect("valid");
                assert!(!out.is_empty());
            })
        },
        || {
            timed(|| {
                let v: Value = serde_json::from_slice(&bytes).expect("parses");
                let out = serde_json::to_vec(&v).expect("prints");
                assert!(!out.is_empty());
            })
        },
    );
    ratio(
        "model, bytes in to bytes out, vs serde_json parse+print",
        ours,
        floor,
        Some(1.5),
    );

    let run = |program: &str, args: &[&str]| {
        timed(|| {
            // stderr too: `verdict` notes there that the case is lenient.
            let status = Command::new(program)
                .args(args)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .expect("runs");
            assert!(status.success());
        })
    };
    let f = file.to_str().expect("utf-8 path");
    let python = python();
    let (cmd, py) = interleaved(
        5,
        || run(BIN, &["verdict", f]),
        || {
            run(
                &python,
                &[
                    "-c",
                    "import json,sys; json.dump(json.load(open(sys.argv[1])), sys.stdout)",
                    f,
                ],
            )
        },
    );
    ratio(
        "`verdict` command vs CPython json.load+json.dump",
        cmd,
        py,
        Some(1.0),
    );

    let (peak, _) = peak_rss_kb(BIN, &["verdict", f]);
    let r = peak as f64 * 1024.0 / bytes.len() as f64;
    println!(
        "peak memory of `verdict`: {:.1} MB for {:.1} MB in = {r:.2}× (target ≤ 4×: {})",
        peak as f64 / 1024.0,
        bytes.len() as f64 / 1e6,
        if r <= 4.0 { "met" } else { "NOT MET" }
    );
}

/// The peak resident set of a child process, in KiB, as GNU time reports it
/// (0 if it reports none), and how the child exited.
fn peak_rss_kb(program: &str, args: &[&str]) -> (u64, std::process::ExitStatus) {
    let out = Command::new("/usr/bin/time")
        .args(["-f", "%M"])
        .arg(program)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .expect("/usr/bin/time runs");
    let peak = String::from_utf8_lossy(&out.stderr)
        .trim()
        .lines()
        .last()
        .and_then(|l| l.parse().ok())
        .unwrap_or(0);
    (peak, out.status)
}

/// A long run's memory against a short one's: the peak resident set of
/// `diff --jobs 2 --json` against `serve` (the copies' own are smaller, and
/// GNU time reports the largest) on 100,000 cases and on 10,000, seed 3,
/// three runs a side in turns, the median of each. A run keeps up to 16
/// cases in flight a copy, the tally's counts and a divergence only when it
/// shows a clause not seen before, so the ratio is about 1× however long
/// the run; one that grows with the cases judged shows here well above it.
fn memory() {
    let peak = |cases: u32| -> u64 {
        let cases = cases.to_string();
        let args = [
            "diff",
            "--cases",
            &cases,
            "--seed",
            "3",
            "--jobs",
            "2",
            "--json",
            "--save",
            "/dev/null",
        ];
        let (peak, status) = peak_rss_kb(BIN, &args);
        assert!(
            status.success() && peak > 0,
            "diff --cases {cases} against serve"
        );
        peak
    };
    let (mut long, mut short) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        long.push(peak(100_000) as f64);
        short.push(peak(10_000) as f64);
    }
    let (long, short) = (median_f64(&long), median_f64(&short));
    println!(
        "peak memory of `diff --jobs 2` against serve, 100,000 cases vs 10,000: {:.1} MiB vs {:.1} MiB = {:.2}× (1× when a run's memory does not grow with its length)",
        long / 1024.0,
        short / 1024.0,
        long / short
    );
}

fn small() {
    let cases: Vec<Case> = gen::cases(7).take(5_000).collect();
    let texts: Vec<Vec<u8>> = cases
        .iter()
        .map(|c| serde_json::to_vec(c).expect("encodes"))
        .collect();
    let (ours, base) = interleaved(
        5,
        || {
            timed(|| {
                for t in &texts {
                    let case = Case::from_json(t).expect("valid");
                    let _ = model::zone(&case);
                    assert!(!serde_json::to_vec(&model::outcome(&case))
                        .expect("prints")
                        .is_empty());
                }
            })
        },
        || {
            timed(|| {
                for t in &texts {
                    let v = parse_deep(t);
                    assert!(!serde_json::to_vec(&v).expect("prints").is_empty());
                }
            })
        },
    );
    println!(
        "small cases: {:.0} cases/s through parse+zone+model+print ({} generated cases)",
        texts.len() as f64 / ours.as_secs_f64(),
        texts.len()
    );
    ratio("small cases vs serde_json round trip", ours, base, None);
}

/// serde_json's parse of a document as deep as the oracle reads
/// (`wire::MAX_DEPTH`), past serde_json's default limit of 128: the
/// generators draw such nesting.
fn parse_deep(bytes: &[u8]) -> Value {
    use serde::Deserialize;
    let mut de = serde_json::Deserializer::from_slice(bytes);
    de.disable_recursion_limit();
    Value::deserialize(&mut de).expect("parses")
}

/// The Python interpreter the benches run, by its own path: what `python3`
/// on `PATH` says `sys.executable` is. Where `python3` is a version
/// manager's shim (pyenv's is a bash script that starts 46 processes,
/// subshells and the tools they run, before it execs the interpreter),
/// every start of the adapter would cost about 0.07 s more of CPU than the
/// interpreter's own 0.04 s: the machine's setup, not the adapter, and
/// paid once a copy in every `diff` run the `jobs` and `harness` benches
/// time. A CI runner's `python3` is the interpreter itself.
fn python() -> String {
    let out = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "python3 says where it is");
    let path = String::from_utf8(out.stdout).expect("a UTF-8 path");
    let path = path.trim();
    assert!(!path.is_empty(), "python3 names its executable");
    path.to_owned()
}

/// The Python adapter written from the README alone.
fn reference_adapter() -> PathBuf {
    [
        env!("CARGO_MANIFEST_DIR"),
        "tests",
        "adapter",
        "reference_adapter.py",
    ]
    .iter()
    .collect()
}

/// The requests `diff --cases cases --seed 3` sends, as the lines it
/// writes: the pinned vectors first, then the generated cases, each with
/// its two siblings, between `start` and `stop`; and how many `run`s.
fn requests(cases: usize) -> (Vec<u8>, u64) {
    let mut lines = Vec::new();
    writeln!(lines, "{}", json!({"cmd": "start", "version": 1})).expect("write");
    let mut seq = 0;
    let pinned = rt_tool_3::replay::pinned().expect("the vectors");
    let cases_sent = pinned
        .into_iter()
        .map(|f| f.case)
        .chain(gen::cases(3).take(cases));
    for case in cases_sent {
        for variant in rt_tool_3::diff::siblings(&case, ProseMode::DataOnly) {
            seq += 1;
            writeln!(
                lines,
                "{}",
                json!({"cmd": "run", "seq": seq, "case": variant})
            )
            .expect("write");
        }
    }
    writeln!(lines, "{}", json!({"cmd": "stop"})).expect("write");
    (lines, seq)
}

/// Runs `command` alone on `requests`, over the same transport as under
/// `diff`: the requests written into a pipe to its stdin as fast as it
/// reads them, its stdout a pipe read to the end, and nothing judged. (A
/// file on stdin and /dev/null on stdout would be some 10 % faster, but no
/// harness speaking the protocol could feed it that way.)
fn alone(command: &[String], requests: &[u8]) {
    let mut child = Command::new(&command[0])
        .args(&command[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = child.stdout.take().expect("stdout");
    std::thread::scope(|scope| {
        scope.spawn(move || stdin.write_all(requests).expect("requests written"));
        std::io::copy(&mut stdout, &mut std::io::sink()).expect("replies read");
    });
    assert!(child.wait().expect("waits").success());
}

fn harness(dir: &Path) {
    let adapter = reference_adapter();
    const RUNS: usize = 7;
    let cases = 1000u32;
    // What `diff` sends, the same for either implementation.
    let (bytes, seq) = requests(cases as usize);
    for (label, command) in [
        ("serve", vec![BIN.to_owned(), "serve".to_owned()]),
        (
            "python adapter",
            vec![python(), adapter.display().to_string()],
        ),
    ] {
        // The implementation alone: the same requests, piped in at once.
        let run_alone = || timed(|| alone(&command, &bytes));
        let mut report = Value::Null;
        let mut run_diff = || {
            timed(|| {
                report = diff_report(
                    Command::new(BIN)
                        .current_dir(dir)
                        .args([
                            "diff",
                            "--cases",
                            &cases.to_string(),
                            "--seed",
                            "3",
                            "--json",
                            "--",
                        ])
                        .args(&command),
                );
            })
        };
        let (with_diff, by_itself) = interleaved(RUNS, &mut run_diff, run_alone);
        assert_eq!(
            report["requests"].as_u64(),
            Some(seq),
            "diff sent other requests than the ones piped alone"
        );
        let per_case =
            report["requests"].as_f64().unwrap_or(0.0) / report["cases"].as_f64().unwrap_or(1.0);
        println!("diff against {label}: {per_case:.1} requests per generated case");
        let target = (label != "serve").then_some(1.3);
        ratio(
            &format!("diff against {label} vs the same requests piped to it alone"),
            with_diff,
            by_itself,
            target,
        );
    }
}

/// `check` in process on outcomes built to stall a quadratic judge, each
/// against a serde_json parse of the same case and outcome bytes.
fn hostile(dir: &Path, wanted: &dyn Fn(&str) -> bool) {
    use rt_tool_3::judge::{self, Options};
    let landed = |a: &Value, id: &str| json!({"type": a["type"], "payload": a["payload"], "tool_call_id": id});
    let one_call = |artifacts: &[Value], data: Value| {
        json!({"exposed": true, "calls": [{"tool_call_id": "c0",
            "result": {"success": true, "data": data, "artifacts": artifacts}}]})
    };
    let outcome_of = |case: &Value| -> Value {
        let case = Case::from_json(case.to_string().as_bytes()).expect("valid");
        serde_json::to_value(model::outcome(&case)).expect("encodes")
    };
    // Over RT-TOOL-6's floors, so lenient: 50,000 small artifacts, landed
    // in reverse order.
    let reversed = |n: usize| {
        let artifacts: Vec<Value> = (0..n)
            .map(|i| json!({"type": "note", "payload": {"seq": i}}))
            .collect();
        let case = one_call(&artifacts, json!("ok"));
        let mut outcome = outcome_of(&case);
        outcome["tool_artifacts"] = artifacts.iter().rev().map(|a| landed(a, "c0")).collect();
        (case, outcome)
    };
    // A `data` of one short string 900,000 times, beside 60,000 artifact
    // strings the leak scan looks for in it; the outcome the model's.
    let repeated = |n: usize, strings: usize| {
        let artifacts: Vec<Value> = (0..strings)
            .map(|i| json!({"type": "note", "payload": {"s": format!("artifact-string-{i:07}")}}))
            .collect();
        let case = one_call(&artifacts, Value::Array(vec![json!("lorem"); n]));
        let outcome = outcome_of(&case);
        (case, outcome)
    };
    // 100,000 artifacts no call produced, half of a type the call returned.
    let foreign = |n: usize| {
        let artifacts: Vec<Value> = (0..10)
            .map(|i| json!({"type": "note", "payload": {"seq": i}}))
            .collect();
        let case = one_call(&artifacts, json!("ok"));
        let mut outcome = outcome_of(&case);
        outcome["tool_artifacts"] = (0..n)
            .map(|i| {
                let kind = if i % 2 == 0 { "note" } else { "alien" };
                json!({"type": kind, "payload": {"seq": 1_000 + i}, "tool_call_id": "c0"})
            })
            .collect();
        (case, outcome)
    };
    // 10,000 payloads alike but for one number deep inside, landed in
    // reverse, every other one with that number changed.
    let near = |n: usize| {
        let payload = |i: usize| {
            json!({"title": "a report that every artifact shares", "body": {"sections": [
                {"heading": "one", "text": "the same paragraph in every payload"},
                {"heading": "two", "rows": [[1, 2, 3], [4, 5, {"rev": i}]]}]}})
        };
        let artifacts: Vec<Value> = (0..n)
            .map(|i| json!({"type": "report", "payload": payload(i)}))
            .collect();
        let case = one_call(&artifacts, json!("ok"));
        let mut outcome = outcome_of(&case);
        outcome["tool_artifacts"] = (0..n)
            .rev()
            .map(|i| {
                let p = if i % 2 == 0 {
                    payload(i)
                } else {
                    payload(n + i)
                };
                json!({"type": "report", "payload": p, "tool_call_id": "c0"})
            })
            .collect();
        (case, outcome)
    };
    // `n` bytes of a phrase repeated: a long string as a tool returns one,
    // whose windows the leak scan meets at every repeat.
    let text = |n: usize| "lorem ipsum dolor ".repeat(n / 18 + 1)[..n].to_string();
    let with_prose = |case: Value, content: &str| {
        let mut outcome = outcome_of(&case);
        outcome["messages"][0]["content"] = json!(content);
        (case, outcome)
    };
    // (5) One string of n bytes as a call's data, and as its prose.
    let long_data = |n: usize| {
        let s = text(n);
        with_prose(one_call(&[], json!(s)), &s)
    };
    // (5b) The same in a prose of the runtime's own words: not the
    // reference rendering, so the leak scan reads it.
    let long_words = |n: usize| {
        let s = text(n);
        with_prose(one_call(&[], json!(s)), &format!("the tool said: {s}"))
    };
    // (6) One string of n bytes in an artifact's payload.
    let long_payload = |n: usize| {
        let artifact = json!({"type": "text", "payload": {"text": text(n)}});
        let case = one_call(&[artifact], json!("ok"));
        let outcome = outcome_of(&case);
        (case, outcome)
    };
    // (7) One string of n bytes in another call's data, quoted in the
    // first call's prose: a leak.
    let long_other = |n: usize| {
        let s = text(n);
        let case = json!({"calls": [
            {"tool_call_id": "c0", "result": {"success": true, "data": "ok"}},
            {"tool_call_id": "c1", "result": {"success": true, "data": s}}]});
        with_prose(case, &format!("said: {s}"))
    };
    // (8) n/1000 artifact strings of 1,000 bytes of the phrase and a number
    // of their own, and a prose of n bytes of the phrase: every window met
    // at every repeat, every candidate agreeing for 1,000 bytes.
    let shared = |n: usize| {
        let artifacts: Vec<Value> = (0..n / 1000)
            .map(|i| json!({"type": "note", "payload": {"s": format!("{}#{i}", text(1000))}}))
            .collect();
        with_prose(one_call(&artifacts, json!("ok")), &text(n))
    };
    // (9) n calls, each with its data and an artifact; the first call's
    // prose quotes the last call's artifact.
    let many_calls = |n: usize| {
        let calls: Vec<Value> = (0..n)
            .map(|i| {
                json!({"tool_call_id": format!("call-{i}"), "result": {"success": true,
                    "data": format!("the data of call {i:07}"),
                    "artifacts": [{"type": "note", "payload": {"text": format!("secret of call {i:07}")}}]}})
            })
            .collect();
        let content = format!("the data of call 0000000 and secret of call {:07}", n - 1);
        with_prose(json!({ "calls": calls }), &content)
    };
    // (10) One object of n keys as data and as a payload.
    let many_keys = |n: usize| {
        let data: serde_json::Map<String, Value> = (0..n)
            .map(|i| {
                (
                    format!("key {i}"),
                    json!(format!("the value of key {i:08}")),
                )
            })
            .collect();
        let artifact = json!({"type": "note", "payload": data});
        let case = one_call(&[artifact], Value::Object(data));
        let outcome = outcome_of(&case);
        (case, outcome)
    };
    // (11) data and a payload nested `depth` deep (the bound is 512 for a
    // whole document), a string of 10,000 bytes at each level.
    let nested = |depth: usize| {
        let mut data = json!("the string at the bottom");
        for i in 0..depth {
            data = json!([data, format!("{i:05}{}", text(10_000))]);
        }
        let artifact = json!({"type": "tree", "payload": {"tree": data}});
        let case = one_call(&[artifact], data);
        let outcome = outcome_of(&case);
        (case, outcome)
    };
    type Build<'b> = Box<dyn Fn() -> (Value, Value) + 'b>;
    let shapes: Vec<(&str, &str, Build<'_>, usize)> = vec![
        (
            "hostile-reversed",
            "(1) 50,000 artifacts in reverse order",
            Box::new(move || reversed(50_000)),
            5,
        ),
        (
            "hostile-repeated",
            "(2) data of 900,000 repeats beside 60,000 artifact strings",
            Box::new(move || repeated(900_000, 60_000)),
            5,
        ),
        (
            "hostile-reversed-10x",
            "(1) at 10×: 500,000 artifacts in reverse order",
            Box::new(move || reversed(500_000)),
            3,
        ),
        (
            "hostile-repeated-10x",
            "(2) at 10×: 9,000,000 repeats beside 600,000 artifact strings",
            Box::new(move || repeated(9_000_000, 600_000)),
            3,
        ),
        (
            "hostile-foreign",
            "(3) 100,000 artifacts no call produced",
            Box::new(move || foreign(100_000)),
            5,
        ),
        (
            "hostile-near",
            "(4) 10,000 near-identical payloads",
            Box::new(move || near(10_000)),
            5,
        ),
        (
            "hostile-long-data-half",
            "(5) at ½: one 16 MB string as data and as prose",
            Box::new(move || long_data(16_000_000)),
            3,
        ),
        (
            "hostile-long-data",
            "(5) one 32 MB string as data and as prose",
            Box::new(move || long_data(32_000_000)),
            3,
        ),
        (
            "hostile-long-words-half",
            "(5b) at ½: one 16 MB string as data, in a prose of other words",
            Box::new(move || long_words(16_000_000)),
            3,
        ),
        (
            "hostile-long-words",
            "(5b) one 32 MB string as data, in a prose of other words",
            Box::new(move || long_words(32_000_000)),
            3,
        ),
        (
            "hostile-long-payload-half",
            "(6) at ½: one 16 MB string in a payload",
            Box::new(move || long_payload(16_000_000)),
            3,
        ),
        (
            "hostile-long-payload",
            "(6) one 32 MB string in a payload",
            Box::new(move || long_payload(32_000_000)),
            3,
        ),
        (
            "hostile-long-other-half",
            "(7) at ½: one 16 MB string in another call's data, quoted in the prose",
            Box::new(move || long_other(16_000_000)),
            3,
        ),
        (
            "hostile-long-other",
            "(7) one 32 MB string in another call's data, quoted in the prose",
            Box::new(move || long_other(32_000_000)),
            3,
        ),
        (
            "hostile-shared-half",
            "(8) at ½: 8,000 candidates sharing 1,000 bytes with an 8 MB repeating prose",
            Box::new(move || shared(8_000_000)),
            3,
        ),
        (
            "hostile-shared",
            "(8) 16,000 candidates sharing 1,000 bytes with a 16 MB repeating prose",
            Box::new(move || shared(16_000_000)),
            3,
        ),
        (
            "hostile-calls-half",
            "(9) at ½: 100,000 calls",
            Box::new(move || many_calls(100_000)),
            3,
        ),
        (
            "hostile-calls",
            "(9) 200,000 calls",
            Box::new(move || many_calls(200_000)),
            3,
        ),
        (
            "hostile-keys-half",
            "(10) at ½: 500,000 keys in one object",
            Box::new(move || many_keys(500_000)),
            3,
        ),
        (
            "hostile-keys",
            "(10) 1,000,000 keys in one object",
            Box::new(move || many_keys(1_000_000)),
            3,
        ),
        (
            "hostile-nesting-half",
            "(11) at ½: nested 250 deep, 10 kB a level",
            Box::new(move || nested(250)),
            3,
        ),
        (
            "hostile-nesting",
            "(11) nested 500 deep, 10 kB a level",
            Box::new(move || nested(500)),
            3,
        ),
    ];
    for (name, label, build, runs) in shapes {
        if !wanted(name) {
            continue;
        }
        let (case, outcome) = build();
        let (case, outcome) = (
            serde_json::to_vec(&case).expect("encodes"),
            serde_json::to_vec(&outcome).expect("encodes"),
        );
        println!(
            "hostile {label}: case {:.1} MB, outcome {:.1} MB",
            case.len() as f64 / 1e6,
            outcome.len() as f64 / 1e6
        );
        let (ours, parse) = interleaved(
            runs,
            || {
                // As `check` judges: the case read compact, the outcome
                // read as it is judged (its copy made before the clock
                // starts).
                let text = outcome.clone();
                timed(|| {
                    let judged = rt_tool_3::wire::compact::with_case(&case, |case| {
                        judge::judge_text(case, text, Options::default())
                    });
                    assert!(judged.expect("valid").is_ok());
                })
            },
            || {
                timed(|| {
                    let (case, outcome) = (parse_deep(&case), parse_deep(&outcome));
                    assert!(case.is_object() && outcome.is_object());
                })
            },
        );
        ratio(
            &format!("hostile {label}: check in process vs serde_json parse of case+outcome"),
            ours,
            parse,
            Some(3.0),
        );
        // The `check` command's peak memory against its two inputs' bytes.
        let (case_file, outcome_file) = (
            dir.join("hostile-case.json"),
            dir.join("hostile-outcome.json"),
        );
        std::fs::write(&case_file, &case).expect("write");
        std::fs::write(&outcome_file, &outcome).expect("write");
        let inputs = (case.len() + outcome.len()) as f64;
        drop((case, outcome));
        let args = [
            "check",
            case_file.to_str().expect("utf-8"),
            outcome_file.to_str().expect("utf-8"),
        ];
        let (peak, status) = peak_rss_kb(BIN, &args);
        assert!(matches!(status.code(), Some(0 | 1)), "check ran: {status}");
        let peak = peak as f64 * 1024.0;
        let bound = 3.0 * inputs + 50e6;
        println!(
            "hostile {label}: peak memory of `check` {:.1} MB for {:.1} MB in = {:.2}× (target ≤ 3× + 50 MB = {:.1} MB: {})",
            peak / 1e6,
            inputs / 1e6,
            peak / inputs,
            bound / 1e6,
            if peak <= bound { "met" } else { "NOT MET" }
        );
    }
}

/// CPU time from `/proc/self/stat`, in seconds: this process's (all its
/// threads), and that of its children waited for. Clock ticks, so 10 ms
/// steps on most systems; the runs below take seconds.
fn cpu_times() -> (f64, f64) {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat");
    // The fields after the command's name, which is in parentheses.
    let rest = &stat[stat.rfind(')').expect("a command name") + 2..];
    let fields: Vec<f64> = rest.split(' ').map(|f| f.parse().unwrap_or(0.0)).collect();
    // utime, stime, cutime, cstime are fields 14 to 17 of the line, 12 to
    // 15 of the rest.
    let tick = 100.0; // sysconf(_SC_CLK_TCK) on Linux
    (
        (fields[11] + fields[12]) / tick,
        (fields[13] + fields[14]) / tick,
    )
}

/// The oracle's own CPU per case against `serve`'s for the same requests:
/// `diff` runs here, in this process, so its CPU is this process's and
/// `serve`'s is its child's. Then where the oracle's time goes, each part
/// timed alone on the same cases.
fn cpu() {
    use rt_tool_3::diff::{self, Config, Shard};
    use rt_tool_3::harness::{Limits, Process};
    use rt_tool_3::judge::Options;
    let cases = 3000u32;
    let config = Config {
        fixed: rt_tool_3::replay::pinned().expect("the vectors"),
        cases,
        seed: 3,
        options: Options {
            siblings: true,
            ..Options::default()
        },
        max_shrink_iters: 1024,
        shrink_time: None,
        shard: Shard::WHOLE,
    };
    // The oracle's CPU per case against `serve`'s, `runs` runs: the median
    // ratio, the run it comes from, and every ratio.
    let measure = |serve: &[String], runs| {
        let mut ratios = Vec::new();
        let mut per_case = Vec::new();
        for _ in 0..runs {
            let before = cpu_times();
            let mut processes =
                vec![Process::start(serve, Limits::default()).expect("serve starts")];
            let report = diff::run(&mut processes, gen::case, &config, &mut |_| {}, &|_| {});
            assert!(report.divergences.is_empty() && report.fault.is_none());
            for p in processes {
                p.stop().expect("serve stops");
            }
            let after = cpu_times();
            let (ours, theirs) = (after.0 - before.0, after.1 - before.1);
            ratios.push(ours / theirs);
            per_case.push((ours, theirs, report.cases));
        }
        let median = median_f64(&ratios);
        let at = ratios.iter().position(|r| *r == median).unwrap_or(0);
        let (ours, theirs, n) = per_case[at];
        let ms = |t: f64| t * 1e3 / n as f64;
        let runs = ratios.iter().map(|r| format!("{r:.2}")).collect::<Vec<_>>();
        let text = format!("{:.3} ms vs {:.3} ms = {median:.2}×", ms(ours), ms(theirs));
        (text, median, runs.join(", "))
    };
    let serve = [BIN.to_owned(), "serve".to_owned()];
    let (text, median, runs) = measure(&serve, 5);
    println!(
        "oracle CPU per case vs serve's for the same 3 requests: {text} (target ≤ 0.8×: {}) [runs: {runs}]",
        if median <= 0.8 { "met" } else { "NOT MET" },
    );
    // `serve` prints each reply in the reference's bytes, so `diff` parses
    // and judges none of them. Here it prints every object's keys in
    // another order: every reply is parsed and judged, as against an
    // implementation that writes its JSON its own way.
    let reordered = [
        &serve[..],
        &["--variant".to_owned(), "key-order".to_owned()],
    ]
    .concat();
    let (text, _, runs) = measure(&reordered, 3);
    println!(
        "  the same against serve --variant key-order, every reply parsed and judged: {text} [runs: {runs}]"
    );
    // Where the oracle's time goes: each case taken through every part in
    // turn, one case at a time as `diff` does (its working set stays small),
    // each part's time summed. One thread on an idle core, so wall time is
    // its CPU time; the replies are `serve`'s outcomes, printed beforehand.
    let strategy = gen::case();
    let mut parts = [Duration::ZERO; 6];
    // Generating, taken apart: building proptest's value tree, taking the
    // case out of it, and dropping the tree. A way of drawing the same
    // cases without trees would still pay for the second.
    let mut generating = [Duration::ZERO; 3];
    let mut lines = Vec::new();
    for i in 0..u64::from(cases) {
        let tree = add_time(&mut generating[0], || {
            gen::tree_at(&strategy, 3, i).expect("a tree")
        });
        let case = add_time(&mut generating[1], || tree.current());
        add_time(&mut generating[2], || drop(tree));
        let siblings = add_time(&mut parts[1], || {
            rt_tool_3::diff::siblings(&case, ProseMode::DataOnly)
        });
        lines.clear();
        add_time(&mut parts[2], || {
            for (seq, s) in siblings.iter().enumerate() {
                rt_tool_3::harness::run_request(&mut lines, seq as u64 + 1, s);
            }
        });
        // The outcome each request is expected to carry, written as `diff`
        // writes it to compare replies with (it makes the marked sibling's
        // from the case's; here each is made afresh, a little more).
        add_time(&mut parts[5], || {
            for s in &siblings {
                let mut bytes = Vec::new();
                model::outcome(s).write_json(&mut bytes);
                std::hint::black_box(bytes);
            }
        });
        let replies = siblings.each_ref().map(|s| {
            serde_json::to_vec(&json!({"seq": 1, "outcome": model::outcome(s)})).expect("prints")
        });
        let parsed = add_time(&mut parts[3], || {
            replies.map(|r| rt_tool_3::wire::parse::<Value>(&r).expect("parses"))
        });
        add_time(&mut parts[4], || {
            for (s, v) in siblings.iter().zip(&parsed) {
                let j =
                    rt_tool_3::judge::judge(s, &v["outcome"], config.options).expect("an outcome");
                assert!(j.conforms());
            }
        });
    }
    parts[0] = generating.iter().sum();
    let ms = |d: Duration| d.as_secs_f64() * 1e3 / f64::from(cases);
    println!(
        "  where it goes, per generated case, one case at a time: generating {:.3} ms (building the value tree {:.3} ms, taking the case out {:.3} ms, dropping the tree {:.3} ms), siblings {:.3} ms, printing 3 requests {:.3} ms, writing the 3 expected outcomes {:.3} ms (both made afresh for each sibling here; diff writes the marked sibling's from the case's bytes, for less); where a reply is not those bytes, parsing 3 replies {:.3} ms, judging 3 outcomes {:.3} ms",
        ms(parts[0]),
        ms(generating[0]),
        ms(generating[1]),
        ms(generating[2]),
        ms(parts[1]),
        ms(parts[2]),
        ms(parts[5]),
        ms(parts[3]),
        ms(parts[4])
    );
}

/// Runs `diff`, which must find nothing, and gives back its `--json` report.
fn diff_report(command: &mut Command) -> Value {
    let out = command.output().expect("diff runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("a JSON report")
}

/// This build's oracle against an older build's, each driving the older
/// build's `serve` on the same 3,000 cases, in turns: each oracle's CPU per
/// case (its run's CPU less `serve`'s) and their ratio.
///
/// The CPU ratio of `cpu` moves when `serve` does, and `serve` is built
/// from much of the oracle's code (the wire, the model): a change that
/// slows `serve` down lowers that ratio without making the oracle any
/// cheaper. Here `serve` is the same binary on both sides. Its CPU is read
/// by the shell that runs it (`times`), the run's from this process's
/// children's CPU (`diff`, and `serve` waited for under it).
fn compare(dir: &Path) {
    let Some(base) = std::env::var_os("RT_TOOL_3_BASELINE") else {
        println!("compare: skipped; set RT_TOOL_3_BASELINE to an older build's rt-tool-3");
        return;
    };
    let base = PathBuf::from(base);
    let serve_times = dir.join("serve-times");
    let cases = 3000u32;
    // One oracle's CPU per case on `seed`'s cases, in ms.
    let run = |oracle: &Path, seed: u32| -> f64 {
        let before = cpu_times().1;
        let report = diff_report(
            Command::new(oracle)
                .args(["diff", "--cases", &cases.to_string()])
                .args(["--seed", &seed.to_string()])
                .args(["--json", "--save", "/dev/null", "--", "sh", "-c"])
                .arg(r#""$0" serve && times > "$1""#)
                .arg(&base)
                .arg(&serve_times),
        );
        let run = cpu_times().1 - before;
        // `times`: the shell's own user and system time on one line, its
        // children's (`serve`'s) on the next, each as `0m1.230000s`.
        let times = std::fs::read_to_string(&serve_times).expect("serve's times");
        let serve: f64 = times
            .lines()
            .nth(1)
            .expect("children's times")
            .split_whitespace()
            .map(|t| {
                let (m, s) = t.trim_end_matches('s').split_once('m').expect("XmY.Zs");
                m.parse::<f64>().expect("minutes") * 60.0 + s.parse::<f64>().expect("seconds")
            })
            .sum();
        // The pinned vectors run before the generated cases.
        let judged = report["cases"].as_f64().expect("the cases judged");
        (run - serve) * 1e3 / judged
    };
    // Each turn on a seed of its own, the same for both builds. Two builds
    // whose streams differ (0.3.0 and 0.4.0) draw other cases from one
    // seed, and one seed's first 3,000 cases can differ by a third in
    // bytes between streams (seed 3: 36.1 MB on 0.3.0, 26.8 MB on 0.4.0),
    // so a single seed would measure the streams, not the oracles.
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for seed in 3..11 {
        ours.push(run(Path::new(BIN), seed));
        theirs.push(run(&base, seed));
    }
    let pairs: Vec<String> = ours
        .iter()
        .zip(&theirs)
        .map(|(o, t)| format!("{:.2}", o / t))
        .collect();
    // Every turn runs as many cases, so the means are the whole CPU over
    // the whole of the cases: the seeds with heavier cases weigh more.
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (o, t) = (mean(&ours), mean(&theirs));
    println!(
        "oracle CPU per case, this build vs {}, both against its serve, seeds 3 to 10: {o:.3} ms vs {t:.3} ms = {:.2}× [pairs, a seed each: {}]",
        base.display(),
        o / t,
        pairs.join(", ")
    );
}

/// `diff --jobs N` against `--jobs 1`: the same run, its wall time.
///
/// Throughput is what a campaign sees, so the runs are long enough for
/// what every run pays once to be small beside it: starting the copies and
/// replaying the 24 pinned vectors take about 0.2 s whatever N is, which on
/// 324 cases against `serve --delay-ms 2` was a third of the `--jobs 4`
/// run. The short run is printed too.
fn jobs(_dir: &Path) {
    let adapter = reference_adapter();
    let run = |jobs: u32, cases: u32, command: &[String]| {
        timed(|| {
            diff_report(
                Command::new(BIN)
                    .args(["diff", "--cases", &cases.to_string(), "--seed", "3"])
                    .args(["--json", "--jobs", &jobs.to_string(), "--save", "/dev/null"])
                    .arg("--")
                    .args(command),
            );
        })
    };
    let slow = [
        BIN.to_owned(),
        "serve".to_owned(),
        "--delay-ms".to_owned(),
        "2".to_owned(),
    ];
    let python = [python(), adapter.display().to_string()];
    // `--jobs many` against `--jobs 1` on `cases` cases, `turns` runs a side.
    let compare = |label: &str, turns, many, cases, command: &[String], target| {
        let (with_many, with_one) = interleaved(
            turns,
            || run(many, cases, command),
            || run(1, cases, command),
        );
        speedup(label, with_many, with_one, target, many);
    };
    compare(
        "diff --jobs 4 vs --jobs 1 against serve --delay-ms 2, a short run (324 cases)",
        3,
        4,
        300,
        &slow,
        3.5,
    );
    compare(
        "diff --jobs 4 vs --jobs 1 against serve --delay-ms 2 (1,024 cases)",
        5,
        4,
        1000,
        &slow,
        3.5,
    );
    compare(
        "diff --jobs 2 vs --jobs 1 against the Python adapter, a short run (1,024 cases)",
        3,
        2,
        1000,
        &python,
        1.6,
    );
    compare(
        "diff --jobs 2 vs --jobs 1 against the Python adapter (3,024 cases)",
        5,
        2,
        3000,
        &python,
        1.6,
    );
    // What the machine's two cores give the adapter with no oracle at all:
    // the same requests piped to two copies at once against one. On two
    // cores that do not slow each other this is 2×, and `--jobs 2` can
    // reach at most 2p/(p + o) of it (p the adapter's CPU a case, o the
    // oracle's); on cores shared with other machines' work it is less. On
    // this virtual machine it is often more: a copy fed alone through
    // pipes took 1.93 and 1.95 s for seed 3's 9,002 requests with the
    // other core idle, and 1.64 and 1.68 s with a busy loop on it (waking
    // a reader on an idle core is dear here), so one copy alone is slower
    // than each of two.
    let (bytes, _) = requests(3000);
    let (two, one) = interleaved(
        5,
        || {
            timed(|| {
                std::thread::scope(|scope| {
                    scope.spawn(|| alone(&python, &bytes));
                    alone(&python, &bytes);
                });
            })
        },
        || timed(|| alone(&python, &bytes)),
    );
    let ceiling = 2.0 * one.as_secs_f64() / two.as_secs_f64();
    println!(
        "  the same requests piped to the Python adapter alone, two copies at once vs one: \
         {:.1} ms vs {:.1} ms = {ceiling:.2}× the throughput (the two cores' own ceiling for it{})",
        two.as_secs_f64() * 1e3,
        one.as_secs_f64() * 1e3,
        if ceiling > 2.04 {
            "; over 2×: a copy fed alone ran slower than each of two at once, so this bounds \
             nothing (on this machine a copy alone, whose reader wakes on an idle core for \
             each reply, runs 15 to 18 % slower than beside a busy one)"
        } else {
            ""
        }
    );
}

/// Prints `many` copies' throughput against one's. `copies` copies cannot
/// give more than `copies` times one's: a run that seems to was disturbed
/// (the host slowed the runs of one copy, as this machine's host does for
/// minutes at a time), and says nothing of the target either way.
fn speedup(label: &str, many: Duration, one: Duration, target: f64, copies: u32) {
    let s = one.as_secs_f64() / many.as_secs_f64();
    let verdict = if s > f64::from(copies) * 1.02 {
        format!("over the {copies}× that {copies} copies can give: a disturbed run, no evidence")
    } else if s >= target {
        "met".to_owned()
    } else {
        "NOT MET".to_owned()
    };
    println!(
        "{label}: {:.1} ms vs {:.1} ms = {s:.2}× the throughput (target ≥ {target}×: {verdict})",
        many.as_secs_f64() * 1e3,
        one.as_secs_f64() * 1e3,
    );
}

/// The main job, as a user runs it: the default `diff` (the pinned vectors
/// and 256 generated cases) against the same build's `serve`, this build
/// against an older one (`RT_TOOL_3_BASELINE`), on seeds 1 to 10 in turns,
/// wall time summed. The streams differ between versions, so this is what
/// a change to the generators costs the user, not a like-for-like run.
fn main_job() {
    let Some(base) = std::env::var_os("RT_TOOL_3_BASELINE") else {
        println!("main-job: skipped; set RT_TOOL_3_BASELINE to an older build's rt-tool-3");
        return;
    };
    let ours = PathBuf::from(BIN);
    let base = PathBuf::from(base);
    let run = |oracle: &Path, seed: u32| -> Duration {
        timed(|| {
            diff_report(
                Command::new(oracle)
                    .args(["diff", "--seed", &seed.to_string()])
                    .args(["--json", "--save", "/dev/null", "--"])
                    .arg(oracle)
                    .arg("serve"),
            );
        })
    };
    let (mut a, mut b) = (Duration::ZERO, Duration::ZERO);
    for round in 0..3 {
        for seed in 1..=10 {
            // Which build goes first alternates, so neither always meets
            // a warm cache.
            if (seed + round) % 2 == 0 {
                a += run(&ours, seed);
                b += run(&base, seed);
            } else {
                b += run(&base, seed);
                a += run(&ours, seed);
            }
        }
    }
    ratio(
        "main job, default diff against serve, seeds 1-10 three times, this build vs the baseline",
        a,
        b,
        Some(2.0),
    );
}
