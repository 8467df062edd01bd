//! The census: every adversarial feature the generators aim at is produced
//! often enough to matter, and each feature's predicate recognises its shape
//! and nothing near it.

use rt_tool_3::gen::{features, Census, Seen, LOWER_FLOORS};
use rt_tool_3::wire::Case;
use serde_json::json;

/// 10,000 seeded cases: no feature falls under its floor.
#[test]
fn every_feature_clears_its_floor_on_10000_cases() {
    let census = Census::of(10_000, 2026);
    assert_eq!(census.features.len(), features().count());
    let under: Vec<String> = census
        .under_floor()
        .iter()
        .map(|s| format!("{} {:.2} % < {} %", s.feature, s.percent, s.floor))
        .collect();
    assert!(under.is_empty(), "under the floor: {under:#?}");
    for f in features() {
        let reason = LOWER_FLOORS.iter().find(|(name, _)| *name == f.name);
        assert_eq!(
            f.floor < 2.0,
            reason.is_some(),
            "{}: a floor under 2 % needs its reason in LOWER_FLOORS, and only such a floor",
            f.name
        );
        assert!(f.floor > 0.0, "{}: a floor of 0 guards nothing", f.name);
    }
}

/// Feature names are unique, and each says what mistake it exposes.
#[test]
fn features_are_named_once_with_their_mistake() {
    let mut names: Vec<&str> = features().map(|f| f.name).collect();
    let n = names.len();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), n, "a feature named twice");
    assert!(n >= 50, "{n} features");
    for f in features() {
        assert!(
            f.mistake.len() >= 20,
            "{}: say which mistake it exposes",
            f.name
        );
    }
}

/// The features `case` shows, by name.
fn shown(case: &serde_json::Value) -> Vec<&'static str> {
    let case = Case::from_json(case.to_string().as_bytes()).expect("a valid case");
    let seen = Seen::new(&case);
    features()
        .filter(|f| (f.shows)(&seen))
        .map(|f| f.name)
        .collect()
}

/// `case` shows every feature of `shows` and none of `not`.
fn check(case: serde_json::Value, shows: &[&str], not: &[&str]) {
    let got = shown(&case);
    for name in shows {
        assert!(features().any(|f| f.name == *name), "no feature {name}");
        assert!(
            got.contains(name),
            "{case} should show {name}; shows {got:?}"
        );
    }
    for name in not {
        assert!(features().any(|f| f.name == *name), "no feature {name}");
        assert!(
            !got.contains(name),
            "{case} should not show {name}; shows {got:?}"
        );
    }
}

#[test]
fn predicates_recognise_their_shape_and_nothing_near_it() {
    let two = |r1: serde_json::Value| {
        json!({"calls": [
            {"tool_call_id": "c1", "result": r1},
            {"tool_call_id": "c2", "result": {"success": true, "data": "ok"}},
        ]})
    };
    let link = |payload: serde_json::Value| json!({"type": "link", "payload": payload});
    // The gap this census was made for: an id at the payload's top level.
    check(
        two(
            json!({"success": true, "artifacts": [link(json!({"url": "u", "tool_call_id": "c2"}))]}),
        ),
        &["spoof.payload.sibling"],
        &[
            "spoof.entry.sibling",
            "spoof.nested.sibling",
            "spoof.payload.own",
        ],
    );
    check(
        two(
            json!({"success": true, "artifacts": [link(json!({"m": {"n": {"tool_call_id": "c1"}}}))]}),
        ),
        &["spoof.nested.own"],
        &["spoof.payload.own", "spoof.nested.sibling"],
    );
    check(
        two(
            json!({"success": true, "tool_call_id": "zz", "data": {"meta": {"tool_call_id": "c2"}}}),
        ),
        &["spoof.result.unknown", "spoof.data.sibling", "result.decoy"],
        &["spoof.result.sibling", "spoof.data.unknown"],
    );
    check(
        two(json!({"success": true, "artifacts": [
            {"type": " link", "payload": {}, "Type": "x", "p\u{430}yload": 1, "tool-call-id": "c2"},
            {"type": "   ", "payload": {"k": null, "e": {}}},
        ]})),
        &[
            "type.padded",
            "type.blank",
            "payload.empty",
            "payload.null_value",
            "payload.nested_empty",
            "entry.extra_key",
            "entry.near_miss.case",
            "entry.near_miss.confusable",
            "entry.near_miss.spelling",
        ],
        &[
            "type.cased",
            "type.empty",
            "entry.near_miss.space",
            "spoof.entry.sibling",
        ],
    );
    check(
        two(json!({"success": false, "error": null, "artifacts": [
            {"type": "", "payload": {}}, {"type": "link", "payload": [1]}]})),
        &["failed.error_null", "type.empty", "payload.array"],
        &[
            "failed.error_text",
            "payload.empty",
            "payload.null",
            "payload.string",
        ],
    );
    // Exposure and delivery come from the reference outcome: a failed
    // call's artifact is not delivered.
    check(
        json!({"exposed": false, "calls": [{"tool_call_id": "c1", "result":
            {"success": false, "error": "boom", "artifacts": [link(json!({}))]}}]}),
        &["exposure.false.none", "failed.error_text"],
        &["exposure.false.delivered", "exposure.absent.none"],
    );
    check(
        json!({"calls": [
            {"tool_call_id": "c1", "result": {"success": true, "data": {"result": "see https://x.example/a"},
                "artifacts": [link(json!({"url": "https://x.example/a"}))]}},
            {"tool_call_id": "c2", "result": {"success": true,
                "artifacts": [link(json!({"url": "https://x.example/a"}))]}},
        ]}),
        &[
            "data.repeats_artifact",
            "artifact.twice_across_calls",
            "data.absent_with_artifacts",
            "exposure.absent.delivered",
        ],
        &[
            "artifact.twice_in_call",
            "data.null_with_artifacts",
            "data.empty_with_artifacts",
        ],
    );
}
