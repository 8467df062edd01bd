//! The committed conformance vectors and schema are exactly what
//! `rt-tool-3 vectors` prints, and every vector's expected outcome passes
//! the judge under the vector's own `judged` rules.

use std::process::Command;

use rt_tool_3::judge::{judge, Options, ProseMode};
use serde_json::Value;

fn command(args: &[&str]) -> String {
    let out = Command::new(crate::support::BIN)
        .args(args)
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

fn committed(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/vectors/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("committed file")
}

#[test]
fn committed_vectors_match_the_command() {
    assert!(
        command(&["vectors"]) == committed("rt-tool-3.json"),
        "tests/vectors/rt-tool-3.json is stale: regenerate it with `cargo run -- vectors > tests/vectors/rt-tool-3.json`"
    );
    assert!(
        command(&["vectors", "--schema"]) == committed("schema.json"),
        "tests/vectors/schema.json is stale: regenerate it with `cargo run -- vectors --schema > tests/vectors/schema.json`"
    );
}

#[test]
fn every_vector_is_consistent_with_the_judge() {
    let file: Value =
        rt_tool_3::wire::parse_value(committed("rt-tool-3.json").as_bytes()).expect("JSON");
    assert_eq!(file["rule"], rt_tool_3::RULE);
    assert_eq!(file["spec_version"], rt_tool_3::SPEC_VERSION);
    assert_eq!(file["rule_hash"], rt_tool_3::RULE_HASH);
    assert_eq!(
        file["oracle"],
        format!("rt-tool-3 {}", rt_tool_3::ORACLE_VERSION)
    );
    for v in file["vectors"].as_array().expect("vectors") {
        let case =
            rt_tool_3::wire::Case::from_json(v["case"].to_string().as_bytes()).expect("valid case");
        let options = Options {
            strict_order: true,
            prose: ProseMode::Exact,
            siblings: false,
        };
        let j = judge(&case, &v["expected"], options).expect("an outcome");
        assert!(j.conforms(), "{}: {:?}", v["description"], j.violations);
        let clause: rt_tool_3::judge::Clause =
            serde_json::from_value(v["clause"].clone()).expect("a clause");
        assert_eq!(
            v["cite"],
            serde_json::to_value(clause.cite()).expect("json")
        );
        let strict = v["judged"]["zone"] == "strict";
        let bounded = !strict && rt_tool_3::model::shape_reasons(&case).is_empty();
        assert_eq!(
            v["judged"]["tool_artifacts"],
            match (strict, bounded) {
                (true, _) => "multiset",
                (false, true) => "bounded",
                (false, false) => "subset",
            }
        );
        owed_as_the_judge_demands(v, &case, options);
        let leaks = v["judged"]["prose_must_not_contain"]
            .as_array()
            .expect("list");
        assert_eq!(leaks.len(), case.calls.len(), "one entry per call");
        for (leak, call) in leaks.iter().zip(&case.calls) {
            assert_eq!(leak["tool_call_id"], call.tool_call_id.as_str());
            let content = v["expected"]["messages"]
                .as_array()
                .expect("messages")
                .iter()
                .find(|m| m["tool_call_id"] == call.tool_call_id.as_str())
                .and_then(|m| m["content"].as_str())
                .expect("the call's message");
            let needles = leak["strings"].as_array().expect("strings").iter().chain(
                leak.get("by_the_letter")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten(),
            );
            for needle in needles {
                assert!(
                    !content.contains(needle.as_str().expect("string")),
                    "{}: {content:?} holds {needle}",
                    v["description"]
                );
            }
        }
    }
}

/// A lenient vector's `owed` is what the judge demands of the calls of
/// RT-TOOL-1's shape: present exactly when such a call keeps artifacts,
/// and, within the floors, the expected outcome less any one of them is a
/// ¶1 violation naming it.
fn owed_as_the_judge_demands(v: &Value, case: &rt_tool_3::wire::Case, options: Options) {
    let owed = &v["judged"]["owed"];
    let subset = v["judged"]["tool_artifacts"] == "subset";
    let keeps = case
        .calls
        .iter()
        .filter(|c| rt_tool_3::model::of_rt_tool_1_shape(&c.result))
        .any(|c| rt_tool_3::model::clause_1_key_by_key(c).next().is_some());
    assert_eq!(owed.is_object(), subset && keeps, "{}", v["description"]);
    if owed["tool_artifacts"] != "multiset" {
        return;
    }
    let artifacts = owed["artifacts"].as_array().expect("owed artifacts");
    for artifact in artifacts {
        let mut less = v["expected"].clone();
        let port = less["tool_artifacts"].as_array_mut().expect("a port");
        let at = port
            .iter()
            .position(|a| a == artifact)
            .expect("owed and expected");
        port.remove(at);
        let j = judge(case, &less, options).expect("an outcome");
        // Hidden when the case makes no choice, and `check` says so.
        let missing: Vec<_> = j.violations.iter().map(|v| v.code.name()).collect();
        assert_eq!(
            missing,
            [match less["exposed"] == true {
                true => "missing-artifact",
                false => "missing-artifact-while-hidden",
            }],
            "{}: without {artifact}",
            v["description"]
        );
    }
}
