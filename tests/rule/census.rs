//! The census: every adversarial feature the generators aim at is produced
//! often enough to matter, and each feature's predicate recognises its shape
//! and nothing near it.

use rt_tool_3::gen::{
    chance_each, chance_of_at_most, features, fewest_cases, Census, Seen, Share, CHANCE,
    LOWER_FLOORS,
};
use rt_tool_3::wire::Case;
use serde_json::json;

/// 10,000 seeded cases: no feature's share falls below its floor, not even
/// by chance (the stream is pinned, so this is no gamble).
#[test]
fn every_feature_clears_its_floor_on_10000_cases() {
    let census = Census::of(10_000, 2026);
    assert_eq!(census.features.len(), features().count());
    let below: Vec<String> = census
        .below_floor()
        .iter()
        .map(|s| format!("{} {:.2} % < {} %", s.feature, s.percent, s.floor))
        .collect();
    assert!(below.is_empty(), "below the floor: {below:#?}");
    assert!(census.under_floor().is_empty());
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

/// Whether `cases` of `n` showing a feature of floor `floor` % find it
/// under its floor beyond chance.
fn check_under(cases: u64, n: u64, floor: f64, expected: bool) {
    let chance = chance_of_at_most(cases, n, floor);
    assert_eq!(
        chance < chance_each(),
        expected,
        "{cases} of {n} at a floor of {floor} %: chance {chance:e}"
    );
}

/// A share below its floor is under it only when so low a count is rarer
/// than chance allows, never on a small census by chance.
#[test]
fn a_feature_is_under_its_floor_only_beyond_chance() {
    // 0.4.0's `cases --census 1000 --seed 3` had `bounds.oversize_first`
    // at 9 of 1,000 against its 1 % and exited 1: chance, not a shortfall.
    check_under(9, 1_000, 1.0, false);
    check_under(0, 1_000, 2.0, true);
    check_under(130, 10_000, 2.0, true);
    check_under(170, 10_000, 2.0, false);
    check_under(199, 10_000, 2.0, false);
    check_under(10, 100_000, 1.0, true);
    check_under(0, 0, 2.0, false);
    // The shared budget: no more than CHANCE over all the features.
    assert!(chance_each() * features().count() as f64 <= CHANCE * (1.0 + 1e-12));
    // `fewest_cases`: 0 cases is under from there on, and not before.
    for floor in [1.0, 2.0, 5.0] {
        let n = fewest_cases(floor);
        check_under(0, n, floor, true);
        check_under(0, n - 1, floor, false);
    }
}

/// Small censuses of generators that meet their floors find nothing under
/// them, though shares dip below (0.4.0's seed 3 had one at 0.9 % of 1 %).
#[test]
fn small_censuses_raise_no_false_alarm() {
    let mut dipped = 0;
    for seed in 0..10 {
        let census = Census::of(1_000, seed);
        let under: Vec<&str> = census.under_floor().iter().map(|s| s.feature).collect();
        assert!(under.is_empty(), "seed {seed}: {under:?}");
        dipped += census.below_floor().len();
    }
    assert!(
        dipped > 0,
        "no share dipped below its floor: this checks nothing"
    );
}

/// The chance is the binomial distribution's lower tail: against sums of
/// its terms written out, and the closed form of no case at all.
#[test]
fn the_chance_is_the_binomial_lower_tail() {
    fn term(k: u64, n: u64, p: f64) -> f64 {
        let choose = (0..k).fold(1.0, |c, i| c * (n - i) as f64 / (i + 1) as f64);
        choose * p.powi(k as i32) * (1.0 - p).powi((n - k) as i32)
    }
    for (n, floor) in [(20u64, 2.0), (50, 10.0), (120, 1.0)] {
        let mut tail = 0.0;
        for k in 0..n {
            tail += term(k, n, floor / 100.0);
            let got = chance_of_at_most(k, n, floor);
            assert!(
                (got - tail).abs() < 1e-9,
                "{k} of {n} at {floor} %: {got} vs {tail}"
            );
        }
        assert_eq!(chance_of_at_most(n, n, floor), 1.0);
    }
    let none = chance_of_at_most(0, 1_000, 2.0);
    assert!((none / 0.98f64.powi(1_000) - 1.0).abs() < 1e-9, "{none:e}");
}

/// The census's table flags a share under its floor, says when one is
/// below it by chance, and says when it is too small to tell.
#[test]
fn the_table_tells_under_from_below_by_chance() {
    let mut census = Census::of(100, 1);
    let share = |feature: &'static str, cases: u64, floor: f64| {
        let chance = chance_of_at_most(cases, 1_000, floor);
        Share {
            feature,
            exposes: "RT-TOOL-3 ¶1",
            mistake: "a mistake",
            cases,
            percent: cases as f64 / 10.0,
            floor,
            chance,
            under: chance < chance_each(),
        }
    };
    census.cases = 1_000;
    census.features = vec![
        share("chance", 9, 1.0),
        share("short", 0, 2.0),
        share("fine", 50, 2.0),
    ];
    let table = census.markdown();
    assert!(
        table.contains("| `chance` | RT-TOOL-3 ¶1 | 0.9 % (below by chance: 0.46) |"),
        "{table}"
    );
    assert!(
        table.contains("| `short` | RT-TOOL-3 ¶1 | 0.0 % **under** |"),
        "{table}"
    );
    assert!(
        table.contains("| `fine` | RT-TOOL-3 ¶1 | 5.0 % | 2 % |"),
        "{table}"
    );
    let fewest = fewest_cases(1.0);
    assert!(fewest > 1_000, "{fewest}");
    assert!(
        table.contains(&format!("1000 cases are too few to find a feature under a floor of 1 % beyond chance: that takes {fewest} or more.")),
        "{table}"
    );
    let names: Vec<&str> = census.under_floor().iter().map(|s| s.feature).collect();
    assert_eq!(names, ["short"]);
    let names: Vec<&str> = census.below_floor().iter().map(|s| s.feature).collect();
    assert_eq!(names, ["chance", "short"]);
    census.cases = 2_000;
    assert!(!census.markdown().contains("too few"));
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

/// The generated stream spreads over each dimension's whole range, not a
/// few points: at `cases --count 10000 --seed 1`, every power-of-two
/// payload size from 16 B to 1 MiB holds at least 0.3 % of the payloads;
/// numbers of 15 or more significant digits and exponent forms are each
/// at least 1 % of the numbers; results carry at least 100 distinct
/// top-level keys; and at least 3 % of the cases of two or more calls have
/// two calls with the same result.
#[test]
fn the_stream_covers_each_range_on_10000_cases() {
    let ranges = Census::of(10_000, 1).ranges;
    let thin: Vec<String> = (4..=20)
        .filter(|&k| ranges.payload_share(k) < 0.3)
        .map(|k| format!("2^{k} B: {:.2} %", ranges.payload_share(k)))
        .collect();
    assert!(thin.is_empty(), "payload sizes under 0.3 %: {thin:?}");
    assert!(ranges.digits_at_least(15) >= 1.0, "{}", ranges.markdown());
    assert!(ranges.exponent_share() >= 1.0, "{}", ranges.markdown());
    assert!(ranges.result_keys.len() >= 100, "{}", ranges.markdown());
    assert!(ranges.identical_share() >= 3.0, "{}", ranges.markdown());
}

/// Significant digits are counted as written: leading and trailing zeros
/// and the exponent do not count.
#[test]
fn significant_digits_are_counted_as_written() {
    use rt_tool_3::gen::significant_digits;
    for (text, digits) in [
        ("0", 1),
        ("-0.0", 1),
        ("1.5E-7", 2),
        ("-0.00120e5", 2),
        ("9007199254740991", 16),
        ("100", 1),
        ("1234567890123456789012345678901234567890", 39),
    ] {
        assert_eq!(significant_digits(text), digits, "{text}");
    }
}
