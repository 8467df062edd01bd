//! The example verdicts, pinned: each case in `tests/cases/examples.json`
//! shows one point of the rule.
//!
//! Every snapshot in `snapshots/` holds the case, its zone and the reference
//! outcome, and was read by hand against RT-TOOL-3 before it was accepted.
//! The snapshots are pretty JSON printed by serde_json itself, not insta's
//! serializer, because insta would show an exact (`arbitrary_precision`)
//! number as an internal struct rather than as its digits.

use rt_tool_3::model;
use rt_tool_3::vectors::{examples, Example};
use serde_json::json;

/// Runs one example through the model and pins `{shows, case, zone, outcome}`.
fn check(example: &Example) {
    let verdict = json!({
        "shows": example.description,
        "case": example.case,
        "zone": model::zone(&example.case),
        "outcome": model::outcome(&example.case),
    });
    let text = serde_json::to_string_pretty(&verdict).expect("a verdict encodes");
    insta::with_settings!({
        snapshot_path => "../../snapshots",
        prepend_module_to_snapshot => false,
        description => example.description.as_str(),
        omit_expression => true,
    }, {
        insta::assert_snapshot!(example.name.as_str(), text);
    });
}

#[test]
fn example_verdicts() {
    let examples = examples().expect("the examples parse");
    assert!(
        examples.len() >= 13,
        "the rule's example and at least a dozen more"
    );
    for example in &examples {
        check(example);
    }
    // Every pinned snapshot belongs to an example: none is left stale.
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots");
    for entry in std::fs::read_dir(dir).expect("snapshots/") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        if let Some(stem) = name.strip_suffix(".snap") {
            assert!(
                examples.iter().any(|e| e.name == stem),
                "stale snapshot {name}"
            );
        }
    }
}

#[test]
fn the_rule_example_file_is_the_first_example() {
    let file = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/cases/rule-example.json"
    ))
    .expect("file");
    let case = rt_tool_3::wire::Case::from_json(&file).expect("valid");
    assert_eq!(examples().expect("examples")[0].case, case);
}
