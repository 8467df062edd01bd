//! The census: every adversarial feature the generators aim at is produced
//! often enough to matter, and each feature's predicate recognises its shape
//! and nothing near it.

use rt_tool_3::gen::{
    chance_each, chance_of_at_most, features, fewest_cases, lower_floor, Census, Seen, Share,
    CHANCE, LOWER_FLOORS,
};
use rt_tool_3::wire::Case;
use serde_json::json;

/// No feature of `census` falls below its floor, not even by chance (the
/// stream is pinned, so this is no gamble).
fn clears_every_floor(census: &Census) {
    assert_eq!(census.features.len(), features().count());
    let below: Vec<String> = census
        .below_floor()
        .iter()
        .map(|s| format!("{} {:.2} % < {} %", s.feature, s.percent, s.floor))
        .collect();
    assert!(below.is_empty(), "below the floor: {below:#?}");
    assert!(census.under_floor().is_empty());
}

/// 10,000 seeded cases: every feature at or over its floor; and a floor
/// under 2 % has its reason.
#[test]
fn every_feature_clears_its_floor_on_10000_cases() {
    clears_every_floor(&Census::of(10_000, 2026));
    for f in features() {
        assert_eq!(
            f.floor < 2.0,
            lower_floor(f.name).is_some(),
            "{}: a floor under 2 % needs its reason in LOWER_FLOORS, and only such a floor",
            f.name
        );
        assert!(f.floor > 0.0, "{}: a floor of 0 guards nothing", f.name);
    }
    // Every reason is some feature's, or some group's.
    for (name, reason) in LOWER_FLOORS {
        assert!(
            features().any(|f| lower_floor(f.name) == Some(*reason)),
            "{name}: a reason for no feature"
        );
    }
}

/// Issue 56's census, `rt-tool-3 cases --census 4000 --seed 1`: every
/// feature at or over its floor there too. Its floors are those of the
/// boundaries, of every JSON type in every place and of the characters:
/// for each measure a runtime may take of a payload, 0.5 % of cases keep
/// one within 2 % of 512,000 bytes, and 0.5 % of runs are within 2 % of
/// 2,000,000; kept counts of 49, 50 and 51 each 0.5 %; `error` of each
/// JSON type 0.5 % (2 % here); `data`'s reserved `artifacts` key of each
/// 0.3 %; kept payloads 64 levels deep or more 0.5 %; U+2028, U+2029 and
/// U+0085 each 1 % (2 % here).
#[test]
fn every_feature_clears_its_floor_on_4000_cases_of_seed_1() {
    let census = Census::of(4_000, 1);
    clears_every_floor(&census);
    let floor = |name: &str| features().find(|f| f.name == name).map(|f| f.floor);
    let measures = [
        "compact", "ascii", "encoded", "utf16", "pretty", "base64", "entry",
    ];
    for m in measures {
        assert!(floor(&format!("bounds.payload.{m}")) >= Some(0.5), "{m}");
        assert!(floor(&format!("bounds.run.{m}")) >= Some(0.5), "{m}");
    }
    for kind in ["null", "boolean", "number", "string", "array", "object"] {
        assert!(floor(&format!("types.error.{kind}")) >= Some(0.5), "{kind}");
        assert!(
            floor(&format!("types.reserved.{kind}")) >= Some(0.3),
            "{kind}"
        );
    }
    for name in ["bounds.count.49", "bounds.count.50", "bounds.count.51"] {
        assert!(floor(name) >= Some(0.5), "{name}");
    }
    assert!(floor("bounds.deep_payload") >= Some(0.5));
    for name in ["chars.u2028", "chars.u2029", "chars.u0085"] {
        assert!(floor(name) >= Some(1.0), "{name}");
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
        share("half", 9, 0.5),
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
    assert!(
        table.contains("| `half` | RT-TOOL-3 ¶1 | 0.9 % | 0.5 % |"),
        "{table}"
    );
    let fewest = fewest_cases(0.5);
    assert!(fewest > 1_000, "{fewest}");
    assert!(
        table.contains(&format!("1000 cases are too few to find a feature under a floor of 0.5 % beyond chance: that takes {fewest} or more.")),
        "{table}"
    );
    let names: Vec<&str> = census.under_floor().iter().map(|s| s.feature).collect();
    assert_eq!(names, ["short"]);
    let names: Vec<&str> = census.below_floor().iter().map(|s| s.feature).collect();
    assert_eq!(names, ["chance", "short"]);
    census.cases = fewest;
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

/// A case of one call keeping one payload per item of `payloads` (each
/// `{"p": …}`), its `success` as given.
fn keeping(success: bool, payloads: &[serde_json::Value]) -> serde_json::Value {
    let entries: Vec<serde_json::Value> = payloads
        .iter()
        .map(|p| json!({"type": "file", "payload": p}))
        .collect();
    json!({"calls": [{"tool_call_id": "c1", "result": {"success": success, "artifacts": entries}}]})
}

/// `{"p": "xx…"}`, `n` bytes of compact JSON: 8 of them braces, key and
/// quotes.
fn ascii_payload(n: usize) -> serde_json::Value {
    json!({"p": "x".repeat(n - 8)})
}

/// Within 2 % of 512,000 bytes is 501,760 to 522,240, under each measure
/// as the runtime takes it; and only of a payload RT-TOOL-2 keeps.
#[test]
fn a_payload_near_the_bound_is_counted_under_each_measure() {
    let payload = |m: &str| format!("bounds.payload.{m}");
    let all = [
        "compact", "ascii", "encoded", "utf16", "pretty", "base64", "entry",
    ]
    .map(payload);
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    // ASCII without escapes: compact, escaped and UTF-16 are one; pretty
    // is 4 bytes more (`{\n  "p": …\n}`), the entry 46 more, base64 a
    // third more.
    let (ascii, pretty_entry) = (&all[..4], &all[4..7]);
    check(
        keeping(true, &[ascii_payload(501_760)]),
        &all[..5],
        &all[5..6],
    );
    check(
        keeping(true, &[ascii_payload(501_759)]),
        &[all[4], all[6]],
        ascii,
    );
    check(
        keeping(true, &[ascii_payload(522_240)]),
        ascii,
        pretty_entry,
    );
    check(
        keeping(true, &[ascii_payload(522_194)]),
        &all[6..],
        &all[5..6],
    );
    check(keeping(true, &[ascii_payload(522_195)]), &[], &all[6..]);
    // Base64 of 384,000 bytes is 512,000.
    check(keeping(true, &[ascii_payload(384_000)]), &all[5..6], ascii);
    // `é` is 2 bytes, 1 UTF-16 unit, 6 escaped: 250,000 of them and the
    // 8 bytes around are 500,008 bytes (not near), 250,008 units, and
    // 1,500,008 escaped; 251,000, 502,008 bytes, near.
    let e = |n: usize| json!({"p": "é".repeat(n)});
    check(keeping(true, &[e(250_000)]), &[], &all[..4]);
    check(keeping(true, &[e(251_000)]), &all[..1], &all[1..4]);
    // 501,752 of them are 501,760 units.
    check(keeping(true, &[e(501_752)]), &all[3..4], &all[..3]);
    // `/` is escaped by the oracle's measure alone: 2 bytes.
    check(
        keeping(true, &[json!({"p": "/".repeat(250_900)})]),
        &all[2..3],
        &[all[0], all[1]],
    );
    // A failed call keeps nothing, and a payload that is not an object is
    // not kept.
    check(keeping(false, &[ascii_payload(512_000)]), &[], &all);
    check(
        json!({"calls": [{"tool_call_id": "c1", "result": {"success": true, "artifacts":
            [{"type": "file", "payload": ["x".repeat(512_000)]}]}}]}),
        &[],
        &all,
    );
}

/// A run within 2 % of 2,000,000 bytes: its kept payloads summed under
/// each measure, those of every successful call.
#[test]
fn a_run_near_the_bound_is_counted_under_each_measure() {
    let run = [
        "compact", "ascii", "encoded", "utf16", "pretty", "base64", "entry",
    ]
    .map(|m| format!("bounds.run.{m}"));
    let run: Vec<&str> = run.iter().map(String::as_str).collect();
    let four = vec![ascii_payload(490_000); 4];
    // 1,960,000 bytes, pretty 16 more, entries 184 more.
    check(
        keeping(true, &four),
        &[&run[..5], &run[6..]].concat(),
        &run[5..6],
    );
    let mut under = four.clone();
    under[3] = ascii_payload(489_999);
    check(keeping(true, &under), &[run[4], run[6]], &run[..4]);
    // Over the other side: 2,040,000 and one more.
    let mut over = vec![ascii_payload(510_000); 4];
    check(keeping(true, &over), &run[..4], &[run[4], run[5], run[6]]);
    over[0] = ascii_payload(510_001);
    check(keeping(true, &over), &[], &run[..4]);
    // Two calls sum; a failed one does not.
    let two = |second: bool| {
        json!({"calls": [
            {"tool_call_id": "c1", "result": {"success": true, "artifacts":
                [{"type": "file", "payload": ascii_payload(1_000_000)}]}},
            {"tool_call_id": "c2", "result": {"success": second, "artifacts":
                [{"type": "file", "payload": ascii_payload(990_000)}]}},
        ]})
    };
    check(two(true), &run[..4], &[]);
    check(two(false), &[], &run[..4]);
    // Base64 of 1,500,000 bytes is 2,000,000.
    check(
        keeping(true, &[ascii_payload(1_500_000)]),
        &run[5..6],
        &run[..4],
    );
}

/// Kept counts: only entries RT-TOOL-2 keeps count, across calls; and a
/// payload 64 levels deep or more.
#[test]
fn kept_counts_and_deep_payloads_are_counted_as_kept() {
    let counts = ["bounds.count.49", "bounds.count.50", "bounds.count.51"];
    let link = json!({"type": "link", "payload": {}});
    let run = |kept: usize, malformed: usize, failed: usize| {
        let mut first = vec![link.clone(); kept / 2];
        first.extend(vec![json!({"type": "", "payload": {}}); malformed]);
        json!({"calls": [
            {"tool_call_id": "c1", "result": {"success": true, "artifacts": first}},
            {"tool_call_id": "c2", "result": {"success": true, "artifacts": vec![link.clone(); kept - kept / 2]}},
            {"tool_call_id": "c3", "result": {"success": false, "artifacts": vec![link.clone(); failed]}},
        ]})
    };
    check(run(49, 3, 2), &counts[..1], &counts[1..]);
    check(run(50, 1, 0), &counts[1..2], &[counts[0], counts[2]]);
    check(run(51, 0, 9), &counts[2..], &counts[..2]);
    check(run(48, 1, 1), &[], &counts);
    let deep = |levels: usize, success: bool| {
        let chain = (0..levels).fold(json!(0), |inner, _| json!({"d": inner}));
        keeping(success, &[chain])
    };
    check(deep(64, true), &["bounds.deep_payload"], &[]);
    check(deep(63, true), &[], &["bounds.deep_payload"]);
    check(deep(501, false), &[], &["bounds.deep_payload"]);
}

/// Every JSON type in every place of a result, each found where it is and
/// nowhere else.
#[test]
fn every_type_is_counted_in_its_place() {
    check(
        json!({"calls": [{"tool_call_id": "c1", "result": {
            "success": true,
            "error": {"code": 3},
            "data": {"artifacts": "[]", "n": 1},
            "artifacts": [{"type": 1, "payload": [], "tool_call_id": true}, "x"],
            "extra": null,
        }}]}),
        &[
            "types.success.boolean",
            "types.error.object",
            "types.data.object",
            "types.reserved.string",
            "types.artifacts.array",
            "types.entry_type.number",
            "types.payload.array",
            "types.entry_id.boolean",
            "types.unknown_key.null",
        ],
        &[
            "types.success.string",
            "types.error.string",
            "types.error.number",
            "types.data.number",
            "types.reserved.array",
            "types.artifacts.string",
            "types.entry_type.string",
            "types.payload.object",
            "types.entry_id.string",
            "types.unknown_key.object",
        ],
    );
    // The reserved key only of an object `data`; entries only of a list.
    check(
        json!({"calls": [{"tool_call_id": "c1", "result": {
            "success": [true],
            "data": [{"artifacts": 1}],
            "artifacts": {"type": "link", "payload": {}},
            "error": false,
        }}]}),
        &[
            "types.success.array",
            "types.data.array",
            "types.artifacts.object",
            "types.error.boolean",
        ],
        &[
            "types.reserved.number",
            "types.entry_type.string",
            "types.payload.object",
            "types.unknown_key.object",
        ],
    );
}

/// Each class of characters, in a value, a key or a call id; and the text
/// of an escape only when it spells a surrogate.
#[test]
fn every_character_class_is_counted_where_it_is() {
    let with = |s: &str| {
        json!({"calls": [
            {"tool_call_id": "c1", "result": {"success": true, "data": s}},
            {"tool_call_id": "c2", "result": {"success": true, "data": {s: 1}}},
        ]})
    };
    for (text, class) in [
        ("a\u{0}b", "chars.nul"),
        ("a\rb", "chars.cr"),
        ("a\u{2028}", "chars.u2028"),
        ("\u{2029}", "chars.u2029"),
        ("x\u{85}", "chars.u0085"),
        ("\u{feff}x", "chars.bom"),
        ("\u{fffe}", "chars.noncharacter"),
        ("\u{10ffff}", "chars.noncharacter"),
        ("\u{fdd0}", "chars.noncharacter"),
        ("🦀", "chars.astral"),
        ("\\ud800", "chars.escape_text"),
        ("a\\uDFFFb", "chars.escape_text"),
    ] {
        let others: Vec<&str> = features()
            .map(|f| f.name)
            .filter(|n| n.starts_with("chars.") && *n != class)
            .filter(|n| !(class == "chars.noncharacter" && *n == "chars.astral"))
            .collect();
        check(with(text), &[class], &others);
    }
    let none: Vec<&str> = features()
        .map(|f| f.name)
        .filter(|n| n.starts_with("chars."))
        .collect();
    check(with("\\ud7ff \\u0041 \\ud8 \u{fffd} é\n\t"), &[], &none);
    check(
        json!({"calls": [{"tool_call_id": "c\u{2028}1", "result": null}]}),
        &["chars.u2028"],
        &[],
    );
}
