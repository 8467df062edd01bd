//! The fault catalogue: every clause fault of `serve --fault` run through
//! `diff --no-vectors` at the default 256 cases on ten seeds, each caught
//! and named by its own clause on at least nine by generated cases alone; and the conforming variants of `serve`,
//! ten seeds of 1,000 cases each, never flagged (nor warned, but for the
//! variant that reorders artifacts within a call).
//!
//! The table of faults is the enum itself ([`Fault`]), so a fault added
//! there is held to this test at once. [`AWAITING`] names the faults the
//! generators (or `diff`) cannot yet expose, each with what it waits for;
//! they are held to the opposite, so the day one is caught the test says so
//! and it moves to the catalogue. `RT_TOOL_3_FAULTS=a,b cargo test --test
//! catalogue -- --nocapture` runs only the faults named and prints their
//! rows. The kill table (fault, clause, seeds caught, first divergence) is
//! printed and written to `target/tmp/kill-table.md`.

use std::collections::BTreeSet;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::Duration;

use clap::ValueEnum;
use rt_tool_3::code::Code;
use rt_tool_3::model;
use rt_tool_3::serve::{Fault, Variant};
use rt_tool_3::wire::Case;
use serde_json::Value;

use crate::support::{self, BIN};

/// The seeds every fault and every variant is run on.
const SEEDS: std::ops::RangeInclusive<u64> = 1..=10;

/// Of the ten seeds, how many must catch a fault and name its clause.
const CAUGHT: usize = 9;

/// Faults the oracle cannot catch on nine seeds of ten yet, and the case
/// shape (or the change to `diff`) each waits for. Each is held to being
/// missed on more than one seed: once it is caught, move it out of here.
const AWAITING: &[(&str, &str)] = &[
    (
        "serde-number-key",
        "payloads holding an object led by serde_json's private keys (drawn in 84c13ac and 89d0f59, withdrawn until trim-type and dedupe-across-calls hold 9 of 10 on that stream)",
    ),
    (
        "php-assoc-arrays",
        "payloads holding an object keyed \"0\", \"1\", … in order (drawn in 89d0f59, withdrawn with the above)",
    ),
];

/// A `diff` run longer than this is killed and fails the test.
const WATCHDOG: Duration = Duration::from_secs(300);

/// The exit code and stdout of `rt-tool-3 diff ARGS -- rt-tool-3 serve SERVE`,
/// run in `dir`, killed after [`WATCHDOG`].
fn diff(dir: &std::path::Path, args: &[&str], serve: &[&str]) -> (Option<i32>, Vec<u8>) {
    std::fs::create_dir_all(dir).expect("a directory to run in");
    let child = Command::new(BIN)
        .current_dir(dir)
        .arg("diff")
        .args(args)
        .args(["--", BIN, "serve"])
        .args(serve)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("diff starts");
    let what = format!("diff {args:?} against serve {serve:?}");
    let out = support::watch(child, WATCHDOG, &what);
    (out.status.code(), out.stdout)
}

/// Runs `job` on every item, on as many threads as the machine has cores:
/// each job is a pair of processes, `diff` and `serve`, taking turns.
fn side_by_side<T: Sync, R: Send>(items: &[T], job: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = Mutex::new(0..items.len());
    let results = Mutex::new(Vec::with_capacity(items.len()));
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let Some(i) = next.lock().expect("queue").next() else {
                    break;
                };
                let r = job(&items[i]);
                results.lock().expect("results").push((i, r));
            });
        }
    });
    let mut results = results.into_inner().expect("results");
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

/// A fault's name on the command line.
fn name(fault: Fault) -> String {
    fault
        .to_possible_value()
        .expect("every fault is named")
        .get_name()
        .to_owned()
}

/// What one run of `diff` against one fault on one seed showed.
struct Run {
    seed: u64,
    /// Caught (exit 1), the first divergence naming the fault's clause
    /// alone, and every other divergence allowed ([`allowed`]).
    named: bool,
    /// Where the first divergence came from: `vector N (...)` or
    /// `generated case N`.
    first: Option<String>,
    /// Every signature seen, for the table.
    signatures: Vec<String>,
    /// The code of every finding of the fault's clause, in the vectors
    /// found and minimal.
    codes: BTreeSet<String>,
    /// What went wrong, when `named` is false.
    why: String,
}

/// Whether a divergence other than the first may show `signature`: it names
/// the fault's clause, or it is RT-TOOL-6 (with or without that clause) on
/// a case over the floors (what a lenient call may deliver counted at its
/// largest), where the judge cites an owed artifact missing for any reason
/// as RT-TOOL-6's ("only what a bound may drop is missing").
fn allowed(clause: &str, signature: &[String], divergence: &Value) -> bool {
    if signature.iter().any(|s| s == clause) {
        return true;
    }
    let case = divergence["found"][0]["case"].to_string();
    let over_floors = Case::from_json(case.as_bytes())
        .is_ok_and(|case| !model::floor_reasons(&case, &|p| model::encoded_len(p)).is_empty());
    over_floors && signature.iter().all(|s| s == "RT-TOOL-6")
}

/// Runs `fault` on `seed`, at the default 256 generated cases.
fn run(fault: Fault, seed: u64) -> Run {
    let clause = fault.clause().expect("a clause fault").id();
    let fault_name = name(fault);
    let dir = std::env::temp_dir().join(format!(
        "rt-tool-3-catalogue-{}-{fault_name}-{seed}",
        std::process::id()
    ));
    let seed_text = seed.to_string();
    // The generated stream alone: a fault only a pinned vector catches is
    // a blind spot of the generators, and needs a generator change.
    let mut args = vec!["--seed", &seed_text, "--json", "--no-vectors"];
    if fault == Fault::FailedErrorProse {
        args.extend(["--prose", "letter"]);
    }
    let (code, stdout) = diff(&dir, &args, &["--fault", &fault_name]);
    // As the oracle reads its own reports back: a lone surrogate a reply
    // held is written `\ud800` (`split-surrogate`'s), which `parse_value`
    // refuses.
    let report: Value = rt_tool_3::wire::parse_reply(&stdout).unwrap_or(Value::Null);
    let divergences = report["divergences"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let signature = |d: &Value| -> Vec<String> {
        d["signature"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s.as_str().map(str::to_owned))
            .collect()
    };
    let mut why = String::new();
    if code != Some(1) {
        why = format!("exit {code:?}");
    } else if divergences.is_empty() {
        let start = String::from_utf8_lossy(&stdout[..stdout.len().min(300)]).into_owned();
        why = format!("exit 1 and no divergence in the report: {start}");
    } else if signature(&divergences[0]) != [clause] {
        why = format!("first divergence {:?}", signature(&divergences[0]));
    } else if let Some(d) = divergences[1..]
        .iter()
        .find(|d| !allowed(clause, &signature(d), d))
    {
        why = format!("also {:?}: {}", signature(d), d["found"][0]["description"]);
    } else if let Some(v) = divergences
        .iter()
        .flat_map(|d| d["minimal"].as_array().into_iter().flatten())
        .find(|v| {
            !v["clauses"]
                .as_array()
                .is_some_and(|c| c.iter().any(|c| c == clause || c == "RT-TOOL-6"))
        })
    {
        why = format!("a minimal vector names neither {clause} nor RT-TOOL-6: {v}");
    } else {
        // The standing agrees: the clause not met, with its counterexample.
        for c in report["standing"]["clauses"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let not_met = c["status"] == "not-met";
            if c["clause"] == clause && !(not_met && c["counterexample"]["case"].is_object()) {
                why = format!("the standing says {c}");
            } else if c["clause"] != clause && c["clause"] != "RT-TOOL-6" && not_met {
                why = format!("the standing also says {c}");
            }
        }
        let saved = std::fs::read(dir.join("rt-tool-3-divergences.json")).unwrap_or_default();
        let saved: Value = rt_tool_3::wire::parse_reply(&saved).unwrap_or(Value::Null);
        if saved["divergences"][0]["signature"] != divergences[0]["signature"] {
            why = format!("the saved divergences are not the reported ones: {saved}");
        }
    }
    // Every finding carries a code of its clause, its sentence one of the
    // code's template, and a place; of the fault's clause, it is one of
    // the codes the catalogue states (checked over all seeds).
    let mut codes = BTreeSet::new();
    let vectors = divergences
        .iter()
        .flat_map(|d| ["found", "minimal"].map(|k| d[k].as_array().cloned().unwrap_or_default()))
        .flatten();
    for v in vectors {
        for f in v["violations"].as_array().into_iter().flatten() {
            let code = f["code"].as_str().and_then(Code::of_name);
            let fits = code.is_some_and(|c| {
                !c.warning()
                    && f["clause"] == c.clause().id()
                    && f["message"].as_str().is_some_and(|m| c.fits(m))
            });
            if !fits || !f["place"].is_object() {
                why = format!("a finding of another kind than its code's: {f}");
            }
            if f["clause"] == clause {
                codes.insert(f["code"].as_str().unwrap_or_default().to_owned());
            }
        }
    }
    let _ = std::fs::remove_dir_all(dir);
    Run {
        codes,
        seed,
        named: why.is_empty(),
        first: divergences
            .first()
            .and_then(|d| d["origin"].as_str())
            .map(str::to_owned),
        signatures: divergences
            .iter()
            .map(|d| signature(d).join(" + "))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect(),
        why,
    }
}

/// The first divergence, summed up over the seeds that found one: the
/// pinned vector when one caught it on every such seed, else the median of
/// the generated cases (the pinned vectors run first).
fn first_divergence(runs: &[Run]) -> String {
    let firsts: Vec<&str> = runs.iter().filter_map(|r| r.first.as_deref()).collect();
    let mut generated: Vec<u64> = firsts
        .iter()
        .filter_map(|o| o.strip_prefix("generated case "))
        .filter_map(|n| n.parse().ok())
        .collect();
    generated.sort_unstable();
    let vectors: BTreeSet<&str> = firsts
        .iter()
        .filter(|o| o.starts_with("vector "))
        .map(|o| o.split(" (").next().unwrap_or(o))
        .collect();
    match (generated.len(), vectors.len()) {
        (0, 0) => "none".to_owned(),
        (0, _) => format!(
            "pinned {}",
            vectors.into_iter().collect::<Vec<_>>().join(", ")
        ),
        (n, v) => {
            let median = generated[(n - 1) / 2];
            let others = if v > 0 {
                format!(
                    "; {} seed(s): a pinned vector",
                    firsts.len() - generated.len()
                )
            } else {
                String::new()
            };
            format!("generated case {median}{others}")
        }
    }
}

#[test]
fn every_clause_fault_is_caught_and_named_on_nine_seeds_of_ten() {
    let only: Option<Vec<String>> = std::env::var("RT_TOOL_3_FAULTS")
        .ok()
        .map(|s| s.split(',').map(str::to_owned).collect());
    let faults: Vec<Fault> = Fault::value_variants()
        .iter()
        .copied()
        .filter(|f| f.clause().is_some())
        .filter(|f| only.as_ref().is_none_or(|o| o.contains(&name(*f))))
        .collect();
    if only.is_none() {
        assert!(faults.len() >= 30, "the catalogue holds {}", faults.len());
    }
    for (awaiting, _) in AWAITING {
        assert!(
            Fault::value_variants()
                .iter()
                .any(|f| name(*f) == *awaiting),
            "{awaiting} is no fault"
        );
    }
    let jobs: Vec<(Fault, u64)> = faults
        .iter()
        .flat_map(|f| SEEDS.map(move |s| (*f, s)))
        .collect();
    let runs = side_by_side(&jobs, |(f, s)| run(*f, *s));
    let mut table = String::from(
        "| fault | breaks | seeds caught and named by generated cases alone (of 10) | first divergence (median) | clauses cited |\n|---|---|---|---|---|\n",
    );
    let mut failures = Vec::new();
    for (fault, runs) in faults.iter().zip(runs.chunks(SEEDS.count())) {
        let fault_name = name(*fault);
        let clause = fault.clause().expect("a clause fault").id();
        let caught = runs.iter().filter(|r| r.named).count();
        let cited: BTreeSet<&str> = runs
            .iter()
            .flat_map(|r| r.signatures.iter().map(String::as_str))
            .collect();
        let reading = if *fault == Fault::FailedErrorProse {
            " under `--prose letter`"
        } else {
            ""
        };
        let awaiting = AWAITING.iter().find(|(a, _)| *a == fault_name);
        table.push_str(&format!(
            "| `{fault_name}` | {clause}{reading} | {caught}{} | {} | {} |\n",
            if awaiting.is_some() {
                " (awaiting)"
            } else {
                ""
            },
            first_divergence(runs),
            cited.into_iter().collect::<Vec<_>>().join("; ")
        ));
        let seen: BTreeSet<&str> = runs
            .iter()
            .flat_map(|r| r.codes.iter().map(String::as_str))
            .collect();
        let stated: BTreeSet<&str> = fault.codes().iter().map(|c| c.name()).collect();
        // A fault that waits for its shape may show no finding at all.
        let unseen = awaiting.is_some() && seen.is_empty();
        if seen != stated && !unseen {
            failures.push(format!(
                "{fault_name}: its findings of {clause} carry the codes {seen:?}, the catalogue states {stated:?}"
            ));
        }
        let missed: Vec<String> = runs
            .iter()
            .filter(|r| !r.named)
            .map(|r| format!("seed {}: {}", r.seed, r.why))
            .collect();
        match awaiting {
            None if caught < CAUGHT => failures.push(format!(
                "{fault_name} ({clause}) caught and named on {caught} of 10 seeds: {missed:#?}"
            )),
            Some((_, shape)) if caught >= CAUGHT => failures.push(format!(
                "{fault_name} is now caught and named on {caught} of 10 seeds: it no longer waits for {shape}; move it out of AWAITING"
            )),
            _ => {}
        }
    }
    println!("{table}");
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("kill-table.md");
    std::fs::write(&path, &table).expect("the kill table is written");
    assert!(failures.is_empty(), "{failures:#?}\n{table}");
}

/// What a variant's name is on the command line.
fn variant_name(variant: Variant) -> String {
    variant
        .to_possible_value()
        .expect("every variant is named")
        .get_name()
        .to_owned()
}

/// The server's reply to `lines` (after `start`) with `serve_args`: its
/// stdout and stderr.
fn serve(serve_args: &[&str], lines: &str) -> (String, String) {
    let out = support::serve(serve_args, lines.as_bytes());
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every conforming variant, and a slow reply (`--delay-ms 1`), passes
/// `diff` on ten seeds of 1,000 cases each; and each variant does change
/// what the server writes, so none passes by doing nothing.
#[test]
fn conforming_variants_are_never_flagged() {
    let case = r#"{"cmd":"run","seq":1,"case":{"calls":[{"tool_call_id":"c1","result":{"success":true,"data":{"result":"café"},"artifacts":[{"type":"link","payload":{"url":"https://example.com/1","n":1}},{"type":"file","payload":{"z":2,"a":"é"}}]}}]}}"#;
    let (reference, _) = serve(&[], case);
    let mut variants: Vec<Vec<String>> = Vec::new();
    for variant in Variant::value_variants() {
        let args = ["--variant".to_owned(), variant_name(*variant)];
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let (out, err) = serve(&refs, case);
        if *variant == Variant::ChattyStderr {
            assert!(err.lines().count() >= 1, "chatty-stderr wrote nothing");
            assert_eq!(out, reference);
        } else if *variant != Variant::Lift && *variant != Variant::DropAtFloors {
            // Lift changes only a case with the reserved key in `data`,
            // DropAtFloors only a run over RT-TOOL-6's floors.
            assert_ne!(out, reference, "{args:?} changes nothing");
        }
        variants.push(args.to_vec());
    }
    variants.push(vec!["--delay-ms".to_owned(), "1".to_owned()]);
    let jobs: Vec<(&Vec<String>, u64)> = variants
        .iter()
        .flat_map(|v| SEEDS.map(move |s| (v, s)))
        .collect();
    let flagged: Vec<String> = side_by_side(&jobs, |(variant, seed)| {
        let dir = std::env::temp_dir().join(format!(
            "rt-tool-3-variant-{}-{}-{seed}",
            std::process::id(),
            variant.join("")
        ));
        let seed_text = seed.to_string();
        let serve_args: Vec<&str> = variant.iter().map(String::as_str).collect();
        let (code, stdout) = diff(
            &dir,
            &["--seed", &seed_text, "--cases", "1000", "--json"],
            &serve_args,
        );
        let report: Value = rt_tool_3::wire::parse_reply(&stdout).unwrap_or(Value::Null);
        let _ = std::fs::remove_dir_all(dir);
        // Another order within a call is a warning, and `reversed` makes
        // some; every other variant's replies are the reference outcomes
        // in other bytes (or the same), so this holds the judge to finding
        // nothing in them.
        let warns = variant
            .iter()
            .any(|a| a == &variant_name(Variant::Reversed));
        let clean = code == Some(0)
            && report["divergences"] == Value::Array(vec![])
            && report["cases"].as_u64() > Some(1000)
            && report["skipped"] == 0
            && (report["warnings"].as_u64() > Some(0)) == warns;
        let found: Vec<String> = report["divergences"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|d| format!("{} {}", d["signature"], d["minimal"][0]))
            .collect();
        (!clean).then(|| {
            let warnings = &report["warnings"];
            format!("{variant:?} on seed {seed}: exit {code:?}, {warnings} warnings: {found:#?}")
        })
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(flagged.is_empty(), "{flagged:#?}");
}
