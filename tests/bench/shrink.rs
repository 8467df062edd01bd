//! `cargo bench -- shrink`: how long shrinking takes.
//!
//! - `shrink-large`: issue 56's case, a divergence in one number of a flat
//!   array of 200,000 (1.6 MB, `serve --fault six-decimals`, given with
//!   `--replay`), the whole `diff` timed (target: reported within 60 s);
//! - `shrink-faults`, with `RT_TOOL_3_BASELINE` set to an older build's
//!   `rt-tool-3`: every clause fault of `serve` on seeds 1 and 2 at the
//!   default 256 cases, run by this build and by that one in turns: the
//!   requests spent shrinking, the minimal cases' sizes and the runs' time,
//!   this build against that one.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use clap::ValueEnum;
use rt_tool_3::serve::Fault;
use serde_json::Value;

use super::{median_of, timed, BIN};

/// The case of `shrink-large`: one call, one artifact whose payload holds
/// 200,000 integers of seven digits, the one at 137,421 `0.1234567`, which
/// `six-decimals` changes.
fn flat_array_case() -> String {
    let values: Vec<String> = (0..200_000)
        .map(|i| match i {
            137_421 => "0.1234567".to_owned(),
            i => (1_000_000 + 3 * i).to_string(),
        })
        .collect();
    format!(
        r#"{{"calls":[{{"tool_call_id":"c1","result":{{"success":true,"data":"a table","artifacts":[{{"type":"table","payload":{{"values":[{}]}}}}]}}}}]}}"#,
        values.join(",")
    )
}

/// `diff ARGS -- ORACLE serve SERVE` run by `oracle`: its `--json` report,
/// whatever its exit code.
fn report(oracle: &Path, args: &[&str], serve: &[&str]) -> Value {
    let out = Command::new(oracle)
        .arg("diff")
        .args(args)
        .args(["--json", "--save", "/dev/null", "--"])
        .arg(oracle)
        .arg("serve")
        .args(serve)
        .output()
        .expect("diff runs");
    // Read as the oracle reads one: payloads nest deeper than serde_json's
    // default limit.
    rt_tool_3::wire::parse_value(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?} {serve:?}: no report ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// The divergences of a report.
fn divergences(report: &Value) -> &[Value] {
    report["divergences"].as_array().map_or(&[], Vec::as_slice)
}

/// `shrink-large`: the median of three runs, and what each shrank to.
pub(super) fn large(dir: &Path) {
    let case = dir.join("flat-array.json");
    std::fs::write(&case, flat_array_case()).expect("written");
    let case = case.display().to_string();
    let args = ["--cases", "0", "--no-vectors", "--replay", &case];
    let mut times = Vec::new();
    let mut last = Value::Null;
    for _ in 0..3 {
        times.push(timed(|| {
            last = report(Path::new(BIN), &args, &["--fault", "six-decimals"]);
        }));
    }
    let time = median_of(times);
    let d = &divergences(&last)[0];
    let values =
        &d["minimal"][0]["case"]["calls"][0]["result"]["artifacts"][0]["payload"]["values"];
    println!(
        "shrink-large: a divergence in one of 200,000 numbers (1.6 MB): {:.2} s, {} requests shrinking, ended {}, the array cut to {} (target ≤ 60 s: {})",
        time.as_secs_f64(),
        d["shrink_requests"],
        d["shrink_end"],
        values,
        if time <= Duration::from_secs(60) {
            "met"
        } else {
            "NOT MET"
        }
    );
}

/// `shrink-faults`: this build against the baseline, fault by fault.
pub(super) fn faults() {
    let Some(base) = std::env::var_os("RT_TOOL_3_BASELINE") else {
        println!("shrink-faults: skipped; set RT_TOOL_3_BASELINE to an older build's rt-tool-3");
        return;
    };
    let (ours, base) = (Path::new(BIN), Path::new(&base));
    // Requests spent shrinking, seconds, and minimal cases smaller, equal
    // and larger than the baseline's.
    let (mut requests, mut seconds) = ([0u64; 2], [0f64; 2]);
    let mut sizes = [0u32; 3];
    let faults = Fault::value_variants()
        .iter()
        .filter(|f| f.clause().is_some());
    for fault in faults {
        let name = fault.to_possible_value().expect("named");
        let serve = ["--fault", name.get_name()];
        let prose = (*fault == Fault::FailedErrorProse).then_some(["--prose", "letter"]);
        for seed in ["1", "2"] {
            let mut args = vec!["--seed", seed];
            args.extend(prose.iter().flatten());
            let mut shrunk = Vec::new();
            for (side, oracle) in [ours, base].into_iter().enumerate() {
                let mut r = Value::Null;
                seconds[side] += timed(|| r = report(oracle, &args, &serve)).as_secs_f64();
                requests[side] += divergences(&r)
                    .iter()
                    .filter_map(|d| d["shrink_requests"].as_u64())
                    .sum::<u64>();
                shrunk.push(
                    divergences(&r)
                        .iter()
                        .map(|d| d["minimal"][0]["case"].to_string().len())
                        .collect::<Vec<_>>(),
                );
            }
            for (a, b) in shrunk[0].iter().zip(&shrunk[1]) {
                sizes[usize::from(a >= b) + usize::from(a > b)] += 1;
            }
        }
    }
    println!(
        "shrink-faults: every clause fault on seeds 1 and 2, this build vs the baseline: {} vs {} requests shrinking = {:.3}×, {:.1} s vs {:.1} s = {:.2}×; minimal cases {} smaller, {} the same size, {} larger",
        requests[0],
        requests[1],
        requests[0] as f64 / requests[1] as f64,
        seconds[0],
        seconds[1],
        seconds[0] / seconds[1],
        sizes[0],
        sizes[1],
        sizes[2]
    );
}
