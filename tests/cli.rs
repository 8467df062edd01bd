//! The `rt-tool-3 cases` command, run as a user runs it.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use rt_tool_3::wire::Case;

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
