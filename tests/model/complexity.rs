//! The judge's work grows with its input, not with its square: counted, not
//! timed.
//!
//! Each test judges one shape of outcome at size `n` and `10n` and counts the
//! judge's steps with [`Work::of`] (JSON values compared and hashed, bytes
//! the leak scan read). Work that grows as `n log n` may grow by
//! `10·log(10n)/log(n)` (15.0 at the `n` used here); the quadratic scans an
//! index replaced grow by 100. So a hash that stops telling payloads apart
//! (a constant one) fails these tests, and so does any scan of every
//! artifact for every artifact. Each test also checks the judgement, so the
//! shape is the one it claims.

use rt_tool_3::judge::{self, same_multiset, Clause, Judgement, Options, Work};
use rt_tool_3::{model, wire::Case};
use serde_json::{json, Value};

/// Small enough for a debug build, large enough that a quadratic scan
/// shows: the bound is 15.0×, a quadratic scan gives about 100×.
const N: usize = 100;

/// The work of `run` at `n` and `10n` grows by at most `10·log(10n)/log(n)`.
fn grows_as_n_log_n(what: &str, run: impl Fn(usize) -> Work) {
    let (small, large) = (run(N), run(10 * N));
    // The judge looks at every artifact at least once: no shape is free.
    assert!(
        small.total() >= N as u64,
        "{what}: {small:?} at n = {N} is less than one step an artifact"
    );
    let n = N as f64;
    let bound = 10.0 * (10.0 * n).ln() / n.ln();
    let ratio = large.total() as f64 / small.total() as f64;
    assert!(
        ratio <= bound,
        "{what}: the work grew {ratio:.1}× from n = {N} to {} ({small:?} to {large:?}), over {bound:.1}×",
        10 * N
    );
}

fn judged(case: &Value, observed: &Value) -> (Judgement, Work) {
    let case = Case::from_json(case.to_string().as_bytes()).expect("a valid case");
    let (judgement, work) = Work::of(|| judge::judge(&case, observed, Options::default()));
    (judgement.expect("an object"), work)
}

/// One successful call returning `artifacts`, as a case.
fn one_call(artifacts: Vec<Value>) -> Value {
    json!({"exposed": true, "calls": [{"tool_call_id": "c0", "result": {
        "success": true, "data": "ok", "artifacts": artifacts}}]})
}

fn outcome(artifacts: Vec<Value>) -> Value {
    json!({"exposed": true, "messages": [{"tool_call_id": "c0", "content": "ok"}],
        "tool_artifacts": artifacts})
}

fn note(i: usize) -> Value {
    json!({"type": "note", "payload": {"seq": i}})
}

fn landed(entry: &Value, id: &str) -> Value {
    json!({"type": entry["type"], "payload": entry["payload"], "tool_call_id": id})
}

#[test]
fn artifacts_in_reverse_order_are_matched_in_n_log_n() {
    grows_as_n_log_n("reverse order", |n| {
        let artifacts: Vec<Value> = (0..n).map(note).collect();
        let observed = artifacts.iter().rev().map(|a| landed(a, "c0")).collect();
        let (j, work) = judged(&one_call(artifacts), &outcome(observed));
        assert!(j.conforms(), "{:?}", j.violations);
        assert!(j
            .warnings
            .iter()
            .any(|w| w.code == rt_tool_3::judge::Code::CallOrder));
        work
    });
}

#[test]
fn numbers_written_otherwise_are_matched_in_n_log_n() {
    // `1` lands as `1.0` and `1e0`: the index hashes numbers by value, and
    // object keys in any order.
    grows_as_n_log_n("numbers by value", |n| {
        let artifacts: Vec<Value> = (0..n)
            .map(|i| json!({"type": "point", "payload": {"x": i, "y": [i, 0.5]}}))
            .collect();
        let observed = (0..n)
            .rev()
            .map(|i| {
                let payload: Value =
                    serde_json::from_str(&format!(r#"{{"y": [{i}e0, 5e-1], "x": {i}.0}}"#))
                        .expect("json");
                json!({"type": "point", "payload": payload, "tool_call_id": "c0"})
            })
            .collect();
        let (j, work) = judged(&one_call(artifacts), &outcome(observed));
        assert!(j.conforms(), "{:?}", j.violations);
        work
    });
}

#[test]
fn near_identical_payloads_are_matched_in_n_log_n() {
    // Payloads that differ in one number deep inside.
    grows_as_n_log_n("near-identical payloads", |n| {
        let artifacts: Vec<Value> = (0..n)
            .map(|i| json!({"type": "t", "payload": {"a": {"b": {"c": [1, 2, {"d": i}]}}, "e": "same"}}))
            .collect();
        let observed = artifacts.iter().rev().map(|a| landed(a, "c0")).collect();
        let (j, work) = judged(&one_call(artifacts), &outcome(observed));
        assert!(j.conforms(), "{:?}", j.violations);
        work
    });
}

#[test]
fn artifacts_no_call_produced_are_diagnosed_in_n_log_n() {
    grows_as_n_log_n("produced by no call", |n| {
        let artifacts: Vec<Value> = (0..n).map(note).collect();
        // Half of one type the call returned, half of another.
        let observed = (n..2 * n)
            .map(|i| {
                let kind = if i % 2 == 0 { "note" } else { "alien" };
                json!({"type": kind, "payload": {"seq": i}, "tool_call_id": "c0"})
            })
            .collect();
        let (j, work) = judged(&one_call(artifacts), &outcome(observed));
        let count = |what: &str| {
            j.violations
                .iter()
                .filter(|v| v.message.contains(what))
                .count()
        };
        // A note is told apart from the unused note it differs from.
        assert_eq!(count("has a payload that differs"), n / 2);
        assert_eq!(count("was produced by no call"), n / 2);
        work
    });
}

#[test]
fn artifacts_under_another_calls_id_are_diagnosed_in_n_log_n() {
    // Two calls; every artifact of c0 lands under c1's id, in reverse.
    grows_as_n_log_n("mislabelled", |n| {
        let artifacts: Vec<Value> = (0..n).map(note).collect();
        let case = json!({"calls": [
            {"tool_call_id": "c0", "result": {"success": true, "data": "ok", "artifacts": artifacts}},
            {"tool_call_id": "c1", "result": {"success": true, "data": "ok"}}]});
        let observed = json!({"exposed": false, "messages": [
            {"tool_call_id": "c0", "content": "ok"}, {"tool_call_id": "c1", "content": "ok"}],
            "tool_artifacts": artifacts.iter().rev().map(|a| landed(a, "c1")).collect::<Vec<_>>()});
        let (j, work) = judged(&case, &observed);
        let mislabelled = j
            .violations
            .iter()
            .filter(|v| v.message.contains("of call c0 carries tool_call_id c1"))
            .count();
        assert_eq!(mislabelled, n);
        work
    });
}

#[test]
fn repeats_of_one_artifact_are_diagnosed_in_n_log_n() {
    // One artifact, landed n times.
    grows_as_n_log_n("repeats", |n| {
        let observed = vec![landed(&note(0), "c0"); n];
        let (j, work) = judged(&one_call(vec![note(0)]), &outcome(observed));
        let repeats = j
            .violations
            .iter()
            .filter(|v| v.message.contains("repeats artifact 0 of call c0"))
            .count();
        assert_eq!(repeats, n - 1);
        work
    });
}

/// The total is every step of every kind: each kind here a different power
/// of two, so a total that drops or takes away any kind is another number.
#[test]
fn the_total_is_every_step_of_every_kind() {
    let work = Work {
        compared: 1,
        hashed: 2,
        scanned: 4,
        visited: 8,
        built: 16,
    };
    assert_eq!(work.total(), 31);
}

/// What the tests above count is counted: every kind of step, for each
/// judgement afresh (the same judgement twice, the same work).
#[test]
fn every_kind_of_step_is_counted_for_each_judgement() {
    let artifacts: Vec<Value> = (0..10).map(note).collect();
    let observed: Vec<Value> = artifacts.iter().rev().map(|a| landed(a, "c0")).collect();
    let (case, mut observed) = (one_call(artifacts), outcome(observed));
    // A prose in words of its own, which the leak scan reads (the
    // reference rendering it only compares).
    observed["messages"][0]["content"] = json!("the tool said: ok");
    let (_, first) = judged(&case, &observed);
    let (_, again) = judged(&case, &observed);
    assert_eq!(
        first, again,
        "the second judgement counted the first's work too"
    );
    for (kind, steps) in [
        ("compared", first.compared),
        ("hashed", first.hashed),
        ("scanned", first.scanned),
        ("visited", first.visited),
    ] {
        assert!(steps > 0, "no step {kind}: {first:?}");
    }
}

#[test]
fn alike_artifacts_are_matched_in_n_log_n() {
    // n artifacts alike, landed in order: each is found past the ones
    // already matched, which are skipped for good, not looked at again.
    // So each is looked at twice, once found and once skipped by the
    // next search, but the last, which no search comes after: 2n - 1.
    grows_as_n_log_n("alike", |n| {
        let artifacts = vec![note(0); n];
        let observed = artifacts.iter().map(|a| landed(a, "c0")).collect();
        let (j, work) = judged(&one_call(artifacts), &outcome(observed));
        assert!(j.conforms(), "{:?}", j.violations);
        assert_eq!(work.visited, 2 * n as u64 - 1, "{work:?}");
        work
    });
}

/// `n` calls, each with its own data and an artifact with a secret.
fn calls_with_secrets(n: usize) -> Value {
    let calls: Vec<Value> = (0..n)
        .map(|i| {
            json!({"tool_call_id": format!("call-{i}"), "result": {"success": true,
                "data": format!("the data of call {i:06}"),
                "artifacts": [{"type": "note", "payload": {"text": format!("secret of call {i:06}")}}]}})
        })
        .collect();
    json!({ "calls": calls })
}

#[test]
fn the_leak_scan_reads_each_text_once() {
    // n calls, each with its own data and an artifact: every call's
    // candidates are every other call's strings, yet each text is read
    // once. Call 0's prose leaks the last call's artifact.
    grows_as_n_log_n("leak scan", |n| {
        let case = calls_with_secrets(n);
        let parsed = Case::from_json(case.to_string().as_bytes()).expect("valid");
        let mut observed = serde_json::to_value(model::outcome(&parsed)).expect("encodes");
        let content = format!("the data of call 000000 and secret of call {:06}", n - 1);
        observed["messages"][0]["content"] = json!(content);
        let (j, work) = judged(&case, &observed);
        let leaks: Vec<_> = j
            .violations
            .iter()
            .filter(|v| v.clause == Clause::ProseFromData)
            .collect();
        assert_eq!(leaks.len(), 1, "{leaks:?}");
        assert!(leaks[0]
            .message
            .contains(&format!("the artifacts of call call-{}", n - 1)));
        assert!(work.scanned > 0);
        work
    });
}

/// A prose drawn from its own `data` alone is the only text the leak scan
/// reads, however large that `data`: what a call may draw on is read only
/// to excuse a string the prose shares with something else in the case.
/// A prose that is the reference rendering of that `data` is not read at
/// all, and no scan is built for it.
#[test]
fn a_prose_from_its_own_data_is_the_only_text_read() {
    let data = |call: usize| -> Vec<String> {
        (0..N)
            .map(|i| format!("string {i:04} of call {call}"))
            .collect()
    };
    let case = json!({"calls": [
        {"tool_call_id": "c0", "result": {"success": true, "data": data(0),
            "artifacts": [{"type": "note", "payload": {"s": "the artifact of call c0"}}]}},
        {"tool_call_id": "c1", "result": {"success": true, "data": data(1)}}]});
    let parsed = Case::from_json(case.to_string().as_bytes()).expect("valid");
    let mut observed = serde_json::to_value(model::outcome(&parsed)).expect("encodes");
    let prose = |o: &Value| -> u64 {
        (0..2)
            .map(|c| o["messages"][c]["content"].as_str().map_or(0, str::len) as u64)
            .sum()
    };
    let (j, work) = judged(&case, &observed);
    assert!(j.conforms(), "{:?}", j.violations);
    assert_eq!((work.scanned, work.built), (0, 0), "{work:?}");
    // The same data in another rendering, indented: read once, and only it.
    for c in 0..2 {
        observed["messages"][c]["content"] =
            json!(serde_json::to_string_pretty(&data(c)).expect("encodes"));
    }
    let (j, work) = judged(&case, &observed);
    assert!(j.conforms(), "{:?}", j.violations);
    assert_eq!(work.scanned, prose(&observed), "{work:?}");
    // Call c1 quotes call c0's data: now its own data is read to excuse
    // what it can (nothing), and the leak is named.
    let quoted = format!("string 0007 of call 0 and {}", data(1).join(" "));
    observed["messages"][1]["content"] = json!(quoted);
    let (j, work) = judged(&case, &observed);
    assert!(
        j.violations
            .iter()
            .any(|v| v.clause == Clause::ProseFromData && v.message.contains("the data of call c0")),
        "{:?}",
        j.violations
    );
    assert!(work.scanned > prose(&observed), "{work:?}");
}

#[test]
fn same_multiset_is_n_log_n() {
    grows_as_n_log_n("same_multiset", |n| {
        let a: Vec<Value> = (0..n).map(|i| json!({"i": i, "s": [i]})).collect();
        let b: Vec<Value> = (0..n)
            .rev()
            .map(|i| json!({"s": [i as f64], "i": i}))
            .collect();
        let (same, work) = Work::of(|| same_multiset(&a, &b));
        assert!(same);
        work
    });
}

/// Telling a number no double holds replaced (RT-TOOL-6) from a changed
/// payload walks both payloads once: each level of the walk is counted, so
/// a payload nested `n` deep costs at least `n` steps, and at `10n` at most
/// the bound above more.
#[test]
fn an_unencodable_number_replaced_is_found_in_one_walk() {
    grows_as_n_log_n("unencodable replaced", |n| {
        let nested = |leaf: Value| (0..n).fold(leaf, |v, _| json!([v]));
        let huge: Value = serde_json::from_str("1e400").expect("json");
        let (expected, observed) = (nested(huge), nested(Value::Null));
        let (at, work) = Work::of(|| judge::unencodable_replaced(&expected, &observed));
        assert_eq!(at, Some("/0".repeat(n)));
        assert!(work.compared >= n as u64, "{work:?} for {n} levels");
        work
    });
}

// The hostile family of the bench (`cargo bench --bench oracle -- hostile`),
// scaled down: each shape at size `n` and `2n`, where doubling the input
// may at most double the judge's counted work (2.2× allowed). A scan that
// compares every candidate afresh wherever its window is met grows with
// the square of the shared-prefix shape; one whose automaton holds
// candidates whole grows with a long string (`built`).

/// The work of `run` at `n` and `2n` grows by at most 2.2×.
fn doubles(what: &str, n: usize, run: impl Fn(usize) -> Work) -> (Work, Work) {
    let (small, large) = (run(n), run(2 * n));
    assert!(small.total() > 0, "{what}: {small:?} counted nothing");
    let ratio = large.total() as f64 / small.total() as f64;
    assert!(
        ratio <= 2.2,
        "{what}: the work grew {ratio:.2}× from n = {n} to {} ({small:?} to {large:?}), over 2.2×",
        2 * n
    );
    (small, large)
}

/// `n` bytes of a phrase repeated: the leak scan meets a window of it at
/// every repeat.
fn long_text(n: usize) -> String {
    "lorem ipsum dolor ".repeat(n / 18 + 1)[..n].to_string()
}

/// `case`, and its reference outcome with `content` as call c0's prose.
fn with_prose(case: &Value, content: &str) -> Value {
    let parsed = Case::from_json(case.to_string().as_bytes()).expect("valid");
    let mut observed = serde_json::to_value(model::outcome(&parsed)).expect("encodes");
    observed["messages"][0]["content"] = json!(content);
    observed
}

/// The judge's work on `case` with `content` as call c0's prose, which
/// leaks one string, found in `place`.
fn one_leak_from(case: &Value, content: &str, place: &str) -> Work {
    let (j, work) = judged(case, &with_prose(case, content));
    let leaks: Vec<&str> = j
        .violations
        .iter()
        .filter(|v| v.clause == Clause::ProseFromData)
        .map(|v| v.message.as_str())
        .collect();
    assert_eq!(leaks.len(), 1, "{leaks:?}");
    assert!(leaks[0].contains(place), "{leaks:?}");
    work
}

#[test]
fn a_long_string_in_data_and_prose_is_linear_and_its_window_bounded() {
    let (small, large) = doubles("long string in data and prose", 100_000, |n| {
        let s = long_text(n);
        let case = json!({"exposed": true, "calls": [{"tool_call_id": "c0",
            "result": {"success": true, "data": s}}]});
        // In words of the runtime's own, so that the prose is read, not
        // only compared with the reference rendering.
        let (j, work) = judged(&case, &with_prose(&case, &format!("the tool said: {s}")));
        assert!(j.conforms(), "{:?}", j.violations);
        work
    });
    // The automaton holds a window of the string, not the string: the
    // same at either length.
    assert_eq!(small.built, large.built, "{small:?} vs {large:?}");
    assert!(small.built > 0);
}

#[test]
fn a_long_string_in_a_payload_is_linear() {
    doubles("long string in a payload", 100_000, |n| {
        let case = json!({"exposed": true, "calls": [{"tool_call_id": "c0",
            "result": {"success": true, "data": "ok",
                "artifacts": [{"type": "text", "payload": {"text": long_text(n)}}]}}]});
        let (j, work) = judged(&case, &with_prose(&case, "ok"));
        assert!(j.conforms(), "{:?}", j.violations);
        work
    });
}

#[test]
fn a_long_string_in_another_calls_data_is_found_in_linear_work() {
    doubles("long string in another call's data", 100_000, |n| {
        let s = long_text(n);
        let case = json!({"calls": [
            {"tool_call_id": "c0", "result": {"success": true, "data": "ok"}},
            {"tool_call_id": "c1", "result": {"success": true, "data": s}}]});
        one_leak_from(&case, &format!("said: {s}"), "the data of call c1")
    });
}

#[test]
fn candidates_sharing_a_long_prefix_with_a_repeating_text_are_linear() {
    // n/1000 artifact strings, each 1,000 bytes of the phrase and a number
    // of its own; the prose n bytes of the phrase. Every candidate's window
    // is met at every repeat, and each agrees with the text for 1,000
    // bytes; one more candidate is the phrase at 2,000 bytes, a leak.
    doubles("shared prefixes", 100_000, |n| {
        let mut artifacts: Vec<Value> = (0..n / 1000)
            .map(|i| json!({"type": "note", "payload": {"s": format!("{}#{i}", long_text(1000))}}))
            .collect();
        artifacts.push(json!({"type": "note", "payload": {"s": long_text(2000)}}));
        let case = json!({"exposed": true, "calls": [{"tool_call_id": "c0",
            "result": {"success": true, "data": "ok", "artifacts": artifacts}}]});
        one_leak_from(&case, &long_text(n), "the artifacts of call c0")
    });
}

#[test]
fn many_calls_are_linear() {
    doubles("many calls", 2_000, |n| {
        let case = calls_with_secrets(n);
        let content = format!("the data of call 000000 and secret of call {:06}", n - 1);
        one_leak_from(
            &case,
            &content,
            &format!("the artifacts of call call-{}", n - 1),
        )
    });
}

/// The judge's work on the model's own outcome for one call with `data`
/// and an artifact with `payload` (which conforms).
fn the_models_outcome(data: Value, payload: Value) -> Work {
    let case = json!({"exposed": true, "calls": [{"tool_call_id": "c0",
        "result": {"success": true, "data": data,
            "artifacts": [{"type": "note", "payload": payload}]}}]});
    let parsed = Case::from_json(case.to_string().as_bytes()).expect("valid");
    let observed = serde_json::to_value(model::outcome(&parsed)).expect("encodes");
    let (j, work) = judged(&case, &observed);
    assert!(j.conforms(), "{:?}", j.violations);
    work
}

#[test]
fn many_keys_in_one_object_are_linear() {
    doubles("many keys", 5_000, |n| {
        let data: serde_json::Map<String, Value> = (0..n)
            .map(|i| {
                (
                    format!("key {i}"),
                    json!(format!("the value of key {i:07}")),
                )
            })
            .collect();
        the_models_outcome(Value::Object(data.clone()), Value::Object(data))
    });
}

#[test]
fn nesting_towards_the_bound_is_linear() {
    doubles("nesting", 200, |depth| {
        let mut data = json!("the string at the bottom");
        for _ in 0..depth {
            data = json!([data, "a string beside it"]);
        }
        the_models_outcome(data.clone(), json!({ "tree": data }))
    });
}

// What the leak scan reads is counted, so that the doubling tests above see
// it: a scan whose reading went uncounted could grow with the square of its
// input unseen. Each test below reads a prose the scan must compare in place
// (a string longer than the automaton's window of 64 bytes) and bounds the
// bytes counted from below and from above.

/// Call c0's prose `prose`, where call c1's data is the strings `others`:
/// the judge's work, and whether it found a leak.
fn c0_quoting(others: &[String], prose: &str) -> (bool, Work) {
    let case = json!({"calls": [
        {"tool_call_id": "c0", "result": {"success": true, "data": "ok"}},
        {"tool_call_id": "c1", "result": {"success": true, "data": others}}]});
    let observed = json!({"exposed": false, "tool_artifacts": [], "messages": [
        {"tool_call_id": "c0", "content": prose}, {"tool_call_id": "c1", "content": ""}]});
    let (j, work) = judged(&case, &observed);
    (
        j.violations
            .iter()
            .any(|v| v.clause == Clause::ProseFromData),
        work,
    )
}

/// A string of another call's data quoted whole: the string past its
/// window (64 bytes) is compared with the prose once where the window is
/// first met, and the prose is read once more, most of it to confirm that
/// it repeats (where the automaton jumps) and the rest by the automaton,
/// so the bytes counted are twice the string's, give or take a window;
/// and for the rest only what call c0 may draw on, a few dozen bytes (its
/// data `"ok"`, its `success`, its id, each rendered).
#[test]
fn a_long_leak_is_read_once_and_compared_once() {
    let s = long_text(100_000);
    let (leak, work) = c0_quoting(std::slice::from_ref(&s), &s);
    assert!(leak);
    let n = s.len() as u64;
    assert!(
        (2 * n - 64..=2 * n + 64).contains(&work.scanned),
        "{work:?}"
    );
}

/// Two strings that agree with a repeating prose for 1,000 bytes and then
/// do not: their window is met at every repeat (every 18 bytes), and the
/// scan confirms the repeat once over the prose rather than comparing
/// them again at each, and its automaton jumps over the repeat but for
/// the last 1,000 bytes, where the strings could go past the prose's end.
/// So it reads the prose once (to confirm it repeats), and then: the
/// automaton its first two repeats and its last 1,000 bytes; each
/// string's 1,000 bytes either side of the jump (the walks start afresh
/// after it); the repeat again over the last 1,000 bytes; and at the
/// last meetings, where the prose stops before the strings could, both
/// strings at each (55 or so): a few thousand bytes past the prose's
/// length, where reading it through the automaton too would take twice
/// that length. At least the repeat less a period, the automaton's last
/// 1,000 bytes, the strings' 936 shared bytes past the window twice and
/// the repeat again less a period and a window: 3,772 bytes past it, of
/// which the second walk and check are what starting afresh costs.
#[test]
fn a_repeating_prose_is_confirmed_once_not_compared_at_each_repeat() {
    let p = 100_000;
    let others = [
        format!("{}#", long_text(1_000)),
        format!("{}%", long_text(1_000)),
    ];
    let (leak, work) = c0_quoting(&others, &long_text(p));
    assert!(!leak);
    let p = p as u64;
    assert!(
        work.scanned >= p + 3_772 && work.scanned <= p + 5 * 1_000 + 200,
        "{work:?}"
    );
}

/// A prose that meets a window `m` times and breaks its repeat at each
/// (a digit after each window, never the same twice running), against
/// `n` strings that are that window, a letter and a number of their own:
/// at each meeting the walk of the window's trie stops at the letter, so
/// doubling both `n` and `m` doubles the work. Before the trie (issue 42),
/// the scan looked at each of the `n` strings at each meeting: `n·m`,
/// fourfold.
#[test]
fn a_repeat_broken_at_each_meeting_costs_the_path_not_every_string() {
    doubles("repeat broken at each meeting", 200, |n| {
        let window = "0123456789abcdef".repeat(4);
        let others: Vec<String> = (0..n).map(|k| format!("{window}z{k:05}")).collect();
        let prose: String = (0..10 * n).map(|i| format!("{window}{}", i % 10)).collect();
        let (leak, work) = c0_quoting(&others, &prose);
        assert!(!leak);
        work
    });
}

/// The same, where the strings agree with the text past the window for as
/// many bytes as their numbers share with the meeting's: the window and
/// `~k$` against meetings `~i `. The walk goes down the digits the two
/// share, a few nodes a meeting.
#[test]
fn strings_agreeing_past_the_window_cost_the_digits_they_share() {
    doubles("agreeing past the window", 200, |n| {
        let window = "0123456789abcdef".repeat(4);
        let others: Vec<String> = (0..n).map(|k| format!("{window}~{k}$")).collect();
        let prose: String = (0..10 * n).map(|i| format!("{window}~{i} ")).collect();
        let (leak, work) = c0_quoting(&others, &prose);
        assert!(!leak);
        work
    });
}

/// Where a payload holds a number no double holds and its artifact lands
/// with `null` in its place, the judge walks the two payloads once to tell
/// that nothing else differs: each value it compares is counted (so that
/// the doubling tests see it), and the work doubles with the payload.
#[test]
fn a_number_replaced_in_a_long_payload_is_found_in_linear_work() {
    let huge: Value = serde_json::from_str("1e400").expect("a number");
    doubles("a number replaced", 1_000, |n| {
        let rows: Vec<Value> = (0..n).map(|i| json!([i, "row"])).collect();
        let expected = json!({"rows": rows, "big": huge});
        let mut observed = expected.clone();
        observed["big"] = Value::Null;
        let (at, work) = Work::of(|| judge::unencodable_replaced(&expected, &observed));
        assert_eq!(at.as_deref(), Some("/big"));
        // Each row, and each of its two values, compared once at least.
        assert!(work.compared >= 3 * n as u64, "{work:?}");
        work
    });
}
