//! The rule's clauses as properties of the reference model, over generated
//! cases (`rt_tool_3::gen`).
//!
//! Each property states its clause directly, from the case's JSON: what to
//! expect is computed here, by a few lines restating RT-TOOL-2 (`kept`), or
//! by comparing the model with itself on sibling cases that differ only in
//! what the clause says cannot matter. No property asks the model's clause
//! functions what to expect.
//!
//! Failures are recorded in `proptest-regressions/properties.txt` and
//! replayed first on every run. `PROPTEST_CASES=10000` deepens a run.

use std::collections::BTreeSet;

use arbitrary::{Arbitrary, Unstructured};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use rt_tool_3::gen::{self, DECOY_KEYS};
use rt_tool_3::model;
use rt_tool_3::wire::{Call, Case, Outcome};
use serde_json::{json, Map, Value};

fn config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(gen::AtomicRegressions(
            "proptest-regressions/properties.txt",
        ))),
        ..ProptestConfig::default()
    }
}

// ---------------------------------------------------------------------------
// Independent restatements

/// RT-TOOL-2, restated: the `(type, payload)` of each entry a result keeps.
/// Only a result that is an object whose `success` is `true` and whose
/// `artifacts` is an array keeps anything; of its entries, those that are
/// objects with a non-empty string `type` (RT-TOOL-6) and an object `payload`.
fn kept(result: &Value) -> Vec<(String, Value)> {
    let Some(result) = result.as_object() else {
        return Vec::new();
    };
    if result.get("success") != Some(&Value::Bool(true)) {
        return Vec::new();
    }
    let Some(Value::Array(entries)) = result.get("artifacts") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in entries {
        let Some(entry) = entry.as_object() else {
            continue;
        };
        if let (Some(Value::String(t)), Some(p @ Value::Object(_))) =
            (entry.get("type"), entry.get("payload"))
        {
            if !t.is_empty() {
                out.push((t.clone(), p.clone()));
            }
        }
    }
    out
}

/// The strict zone's shape (src/reading.md): every result an object with a
/// boolean `success`, and `artifacts` absent, null or an array.
fn strict_shape(case: &Case) -> bool {
    case.calls.iter().all(|c| match c.result.as_object() {
        Some(r) => {
            r.get("success").is_some_and(Value::is_boolean)
                && matches!(
                    r.get("artifacts"),
                    None | Some(Value::Null | Value::Array(_))
                )
        }
        None => false,
    })
}

/// Under RT-TOOL-6's floors with a wide margin: at most 50 kept artifacts,
/// and payloads small enough that no encoding (at most 6 bytes for each byte
/// of compact UTF-8 JSON) reaches 512,000 bytes each or 2,000,000 in all.
fn well_within_floors(case: &Case) -> bool {
    let sizes: Vec<usize> = case
        .calls
        .iter()
        .flat_map(|c| kept(&c.result))
        .map(|(_, p)| 6 * p.to_string().len())
        .collect();
    sizes.len() <= 50
        && sizes.iter().all(|&s| s <= 512_000)
        && sizes.iter().sum::<usize>() <= 2_000_000
}

fn with_exposed(case: &Case, exposed: Option<bool>) -> Case {
    Case {
        exposed,
        calls: case.calls.clone(),
    }
}

/// The case with `f` applied to every result that is an object.
fn map_results(case: &Case, mut f: impl FnMut(&mut Map<String, Value>)) -> Case {
    let calls = case
        .calls
        .iter()
        .map(|c| {
            let mut result = c.result.clone();
            if let Value::Object(m) = &mut result {
                f(m);
            }
            Call {
                tool_call_id: c.tool_call_id.clone(),
                result,
            }
        })
        .collect();
    Case {
        exposed: case.exposed,
        calls,
    }
}

/// The case with `f` applied to every entry of every `artifacts` array.
fn map_entries(case: &Case, mut f: impl FnMut(&mut Value)) -> Case {
    map_results(case, |r| {
        if let Some(Value::Array(entries)) = r.get_mut("artifacts") {
            entries.iter_mut().for_each(&mut f);
        }
    })
}

/// A call's `data` as JSON text ("" when absent): where a string may come
/// from legitimately.
/// The text of what a call's prose may draw on: its `data`, less RT-TOOL-2's
/// reserved `artifacts` key when `data` is an object.
fn data_text(call: &Call) -> String {
    match call.result.get("data") {
        Some(Value::Object(data)) => {
            let mut data = data.clone();
            data.shift_remove("artifacts");
            Value::Object(data).to_string()
        }
        Some(data) => data.to_string(),
        None => String::new(),
    }
}

fn round_trip_case(case: &Case) -> Result<Case, TestCaseError> {
    let bytes = serde_json::to_vec(case).map_err(|e| TestCaseError::fail(e.to_string()))?;
    Case::from_json(&bytes).map_err(|e| TestCaseError::fail(format!("does not parse back: {e}")))
}

// ---------------------------------------------------------------------------
// The clauses, as checks on one case

/// ¶1: exactly `{type, payload, tool_call_id}`; the real id of a call whose
/// `artifacts` array holds that `type` and `payload`; every kept artifact
/// once, nothing else.
fn check_clause_1(case: &Case) -> Result<(), TestCaseError> {
    let outcome = model::outcome(case);
    let exact: BTreeSet<&str> = ["type", "payload", "tool_call_id"].into();
    for art in &outcome.tool_artifacts {
        let v = serde_json::to_value(art).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let keys: BTreeSet<&str> = v
            .as_object()
            .map(|m| m.keys().map(String::as_str).collect())
            .unwrap_or_default();
        prop_assert_eq!(&keys, &exact, "an entry with other keys: {}", v);
    }
    let mut expected: Vec<(&str, String, Value)> = case
        .calls
        .iter()
        .flat_map(|c| {
            kept(&c.result)
                .into_iter()
                .map(|(t, p)| (c.tool_call_id.as_str(), t, p))
        })
        .collect();
    for art in &outcome.tool_artifacts {
        let call = case
            .calls
            .iter()
            .find(|c| c.tool_call_id == art.tool_call_id);
        let Some(call) = call else {
            return Err(TestCaseError::fail(format!(
                "{art:?} names no call of the case"
            )));
        };
        let holds = call
            .result
            .get("artifacts")
            .and_then(Value::as_array)
            .is_some_and(|entries| {
                entries.iter().any(|e| {
                    e.get("type").and_then(Value::as_str) == Some(art.kind.as_str())
                        && e.get("payload") == Some(&art.payload)
                })
            });
        prop_assert!(
            holds,
            "{:?}: call {:?} returned no such entry",
            art,
            call.tool_call_id
        );
        let at = expected
            .iter()
            .position(|(id, t, p)| *id == art.tool_call_id && *t == art.kind && *p == art.payload);
        let Some(at) = at else {
            return Err(TestCaseError::fail(format!(
                "{art:?} is surfaced more often than its call kept it"
            )));
        };
        expected.swap_remove(at);
    }
    if strict_shape(case) && well_within_floors(case) {
        prop_assert!(
            expected.is_empty(),
            "kept artifacts missing from tool_artifacts: {:?}",
            expected
        );
    }
    Ok(())
}

/// ¶2: with no instance choice (null or absent) the port is not exposed;
/// an instance choice is kept (EXPO-2).
fn check_clause_2(case: &Case) -> Result<(), TestCaseError> {
    prop_assert!(!model::outcome(&with_exposed(case, None)).exposed);
    let mut v = serde_json::to_value(case).map_err(|e| TestCaseError::fail(e.to_string()))?;
    if let Value::Object(m) = &mut v {
        m.remove("exposed");
    }
    let absent = Case::from_json(v.to_string().as_bytes())
        .map_err(|e| TestCaseError::fail(format!("without `exposed`: {e}")))?;
    prop_assert!(!model::outcome(&absent).exposed);
    for choice in [false, true] {
        prop_assert_eq!(
            model::outcome(&with_exposed(case, Some(choice))).exposed,
            choice
        );
    }
    Ok(())
}

/// ¶3: the prose is built from `data` alone. It is the same when the
/// artifacts are removed, replaced, or multiplied, and when result-level
/// decoys are added; no canary found only outside a call's `data` appears in
/// its prose; neither does the fresh canary `fresh` planted in artifacts and
/// decoys.
fn check_clause_3(case: &Case, fresh: &str) -> Result<(), TestCaseError> {
    let prose = model::outcome(case).messages;
    prop_assert_eq!(prose.len(), case.calls.len());
    let canaries = gen::canary_strings(case);
    for (message, call) in prose.iter().zip(&case.calls) {
        let data = data_text(call);
        for canary in canaries.iter().filter(|c| !data.contains(c.as_str())) {
            prop_assert!(
                !message.content.contains(canary.as_str()),
                "{} leaked into the prose of {:?}: {:?}",
                canary,
                call.tool_call_id,
                message.content
            );
        }
    }
    let planted = json!([
        {"type": fresh, "payload": {"url": format!("https://{fresh}.example/"), "tool_call_id": fresh},
         "tool_call_id": fresh},
        {"type": "link", "payload": {"text": fresh}, "content": fresh},
        fresh,
    ]);
    let decoys = |r: &mut Map<String, Value>| {
        for k in DECOY_KEYS {
            r.insert((*k).to_owned(), Value::String(fresh.to_owned()));
        }
    };
    let variants = [
        (
            "artifacts removed",
            map_results(case, |r| {
                r.remove("artifacts");
            }),
        ),
        (
            "artifacts replaced",
            map_results(case, |r| {
                r.insert("artifacts".into(), planted.clone());
            }),
        ),
        (
            "artifacts multiplied",
            map_results(case, |r| {
                if let Some(Value::Array(entries)) = r.get_mut("artifacts") {
                    let copy = entries.clone();
                    entries.extend(copy.iter().cloned());
                    entries.extend(copy);
                }
            }),
        ),
        ("decoys added", map_results(case, decoys)),
        (
            "the reserved key in data replaced",
            map_results(case, |r| {
                if let Some(Value::Object(data)) = r.get_mut("data") {
                    data.insert("artifacts".into(), planted.clone());
                }
            }),
        ),
        (
            "artifacts replaced and decoys added",
            map_results(case, |r| {
                r.insert("artifacts".into(), planted.clone());
                decoys(r);
            }),
        ),
    ];
    for (how, variant) in &variants {
        let messages = model::outcome(variant).messages;
        prop_assert_eq!(&messages, &prose, "the prose changed when {}", how);
        for (message, call) in messages.iter().zip(&variant.calls) {
            if !data_text(call).contains(fresh) {
                prop_assert!(
                    !message.content.contains(fresh),
                    "{} leaked into the prose when {}",
                    fresh,
                    how
                );
            }
        }
    }
    Ok(())
}

/// ¶4: `tool_artifacts` is the same whether the port is exposed, hidden or
/// left at its default.
fn check_clause_4(case: &Case) -> Result<(), TestCaseError> {
    let shown = model::outcome(&with_exposed(case, Some(true))).tool_artifacts;
    let hidden = model::outcome(&with_exposed(case, Some(false))).tool_artifacts;
    let default = model::outcome(&with_exposed(case, None)).tool_artifacts;
    prop_assert_eq!(&shown, &hidden, "hiding the port changed delivery");
    prop_assert_eq!(&shown, &default, "the default exposure changed delivery");
    Ok(())
}

/// Every way RT-TOOL-2 drops an entry, applied to an entry that is an object.
const MALFORMINGS: usize = 13;

fn malform(way: usize, entry: &mut Value) {
    let Value::Object(m) = entry else {
        return;
    };
    let payload = m.get("payload").cloned().unwrap_or(Value::Null);
    match way {
        0 => *entry = Value::String(entry.to_string()),
        1 => *entry = Value::Array(vec![m.get("type").cloned().unwrap_or(Value::Null), payload]),
        2 => *entry = Value::Null,
        3 => {
            m.remove("type");
        }
        4 => {
            m.insert("type".into(), json!(1));
        }
        5 => {
            m.insert("type".into(), Value::Null);
        }
        6 => {
            m.insert("type".into(), json!(["link"]));
        }
        7 => {
            m.insert("type".into(), json!(""));
        }
        8 => {
            m.remove("payload");
        }
        9 => {
            m.insert("payload".into(), Value::String(payload.to_string()));
        }
        10 => {
            m.insert("payload".into(), Value::Array(vec![payload]));
        }
        11 => {
            m.insert("payload".into(), Value::Null);
        }
        _ => {
            m.insert("payload".into(), json!(3));
        }
    }
}

/// RT-TOOL-2: only a call whose `success` is `true` surfaces artifacts, and
/// only entries with a non-empty string `type` and an object `payload`; a
/// case whose calls all failed, or whose entries are all malformed (in any
/// one way, or by `extra`, entries the generator made malformed), surfaces
/// nothing.
fn check_rt_tool_2(case: &Case, extra: &[Value]) -> Result<(), TestCaseError> {
    for art in model::outcome(case).tool_artifacts {
        let call = case
            .calls
            .iter()
            .find(|c| c.tool_call_id == art.tool_call_id);
        let success = call.and_then(|c| c.result.get("success"));
        prop_assert_eq!(
            success,
            Some(&Value::Bool(true)),
            "{:?} from a call that did not succeed",
            art
        );
        prop_assert!(!art.kind.is_empty(), "{:?} has an empty type", art);
        prop_assert!(
            art.payload.is_object(),
            "{:?} has a payload that is not an object",
            art
        );
    }
    let failed = map_results(case, |r| {
        r.insert("success".into(), Value::Bool(false));
    });
    let surfaced = model::outcome(&failed).tool_artifacts;
    prop_assert!(surfaced.is_empty(), "failed calls surfaced {:?}", surfaced);
    for way in 0..MALFORMINGS {
        let malformed = map_entries(case, |e| malform(way, e));
        let surfaced = model::outcome(&malformed).tool_artifacts;
        prop_assert!(
            surfaced.is_empty(),
            "malformed entries ({}) surfaced {:?}",
            way,
            surfaced
        );
    }
    let replaced = map_results(case, |r| {
        r.insert("artifacts".into(), Value::Array(extra.to_vec()));
    });
    let surfaced = model::outcome(&replaced).tool_artifacts;
    prop_assert!(
        surfaced.is_empty(),
        "generated malformed entries surfaced {:?}",
        surfaced
    );
    Ok(())
}

/// Validity: unique string ids, and the case survives serialize → parse.
fn check_valid(case: &Case) -> Result<(), TestCaseError> {
    let ids: BTreeSet<&str> = case.calls.iter().map(|c| c.tool_call_id.as_str()).collect();
    prop_assert_eq!(ids.len(), case.calls.len(), "repeated call ids");
    let back = round_trip_case(case)?;
    prop_assert_eq!(&back, case);
    Ok(())
}

// ---------------------------------------------------------------------------
// Any JSON, for totality

/// Any JSON, nested at most 6 deep, with the keys the model reads made
/// likely, and numbers no double holds (`1e400`, 40 digits).
fn any_json() -> impl Strategy<Value = Value> {
    let number = prop_oneof![
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter_map("not finite", |x| serde_json::Number::from_f64(x)
            .map(Value::Number)),
        prop::sample::select(vec![
            "1e400",
            "-0",
            "1.0",
            "-1e-400",
            "1234567890123456789012345678901234567890"
        ])
        .prop_map(|s| serde_json::from_str::<Value>(s).unwrap_or(Value::Null)),
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number,
        "\\PC{0,12}".prop_map(Value::String),
        Just(json!("")),
    ];
    let key = prop_oneof![
        prop::sample::select(vec![
            "success",
            "data",
            "error",
            "artifacts",
            "type",
            "payload",
            "tool_call_id",
            "result"
        ])
        .prop_map(str::to_owned),
        "\\PC{0,6}",
    ];
    leaf.prop_recursive(6, 48, 5, move |inner| {
        prop_oneof![
            vec(inner.clone(), 0..5).prop_map(Value::Array),
            vec((key.clone(), inner), 0..5).prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// A valid case whose results are any JSON.
fn any_json_case() -> impl Strategy<Value = Case> {
    (gen::exposed(), vec(("\\PC{0,4}", any_json()), 0..4)).prop_map(|(exposed, calls)| {
        let mut seen = BTreeSet::new();
        let calls = calls
            .into_iter()
            .enumerate()
            .map(|(i, (id, result))| {
                let mut id: String = id;
                while !seen.insert(id.clone()) {
                    id = format!("{id}#{i}");
                }
                Call {
                    tool_call_id: id,
                    result,
                }
            })
            .collect();
        Case { exposed, calls }
    })
}

// ---------------------------------------------------------------------------
// The properties

proptest! {
    #![proptest_config(config())]

    #[test]
    fn clause_1_key_by_key(case in gen::case()) {
        check_clause_1(&case)?;
    }

    #[test]
    fn clause_2_not_exposed_by_default(case in gen::case()) {
        check_clause_2(&case)?;
    }

    #[test]
    fn clause_3_prose_from_data_alone(case in gen::case(), fresh in gen::canary()) {
        check_clause_3(&case, &fresh)?;
    }

    #[test]
    fn clause_4_delivery_regardless_of_exposure(case in gen::case()) {
        check_clause_4(&case)?;
    }

    #[test]
    fn rt_tool_2_malformed_and_failed_surface_nothing(
        case in gen::case(),
        extra in vec(gen::malformed_entry(), 0..4),
    ) {
        check_rt_tool_2(&case, &extra)?;
    }

    /// The model never panics, whatever JSON a tool returned, and answers
    /// every call once, in order, with artifacts only of real calls.
    #[test]
    fn totality_any_json_result(case in any_json_case()) {
        let _zone = model::zone(&case);
        let outcome = model::outcome(&case);
        let ids: Vec<&str> = case.calls.iter().map(|c| c.tool_call_id.as_str()).collect();
        let answered: Vec<&str> = outcome.messages.iter().map(|m| m.tool_call_id.as_str()).collect();
        prop_assert_eq!(answered, ids.clone());
        for art in &outcome.tool_artifacts {
            prop_assert!(ids.contains(&art.tool_call_id.as_str()));
        }
        prop_assert!(serde_json::to_vec(&outcome).is_ok());
        check_clause_1(&case)?;
        check_clause_4(&case)?;
    }

    /// The `verdict` command's bytes-to-bytes path, which leaves payloads and
    /// data as raw text, prints exactly the model's outcome, as one line, and
    /// its zone, for compact and pretty-printed cases alike.
    #[test]
    fn verdict_bytes_are_the_models_outcome(case in gen::case(), odd in any_json_case()) {
        for (case, pretty) in [(&case, false), (&odd, true)] {
            let bytes = if pretty { serde_json::to_vec_pretty(case) } else { serde_json::to_vec(case) }
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            let mut out = Vec::new();
            let zone = rt_tool_3::verdict(&bytes, &mut out).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
            prop_assert_eq!(zone, model::zone(case));
            let mut reference = serde_json::to_vec(&model::outcome(case)).map_err(|e| TestCaseError::fail(e.to_string()))?;
            reference.push(b'\n');
            prop_assert_eq!(String::from_utf8_lossy(&out), String::from_utf8_lossy(&reference));
        }
    }

    /// Cases and outcomes survive serialize → parse unchanged, whether
    /// generated or holding any JSON.
    #[test]
    fn round_trip(case in gen::case(), odd in any_json_case()) {
        for case in [&case, &odd] {
            check_valid(case)?;
            let outcome = model::outcome(case);
            let bytes = serde_json::to_vec(&outcome).map_err(|e| TestCaseError::fail(e.to_string()))?;
            // Read as the oracle reads a document, within its nesting
            // bound (serde_json's own stops at 128, and payloads nest to
            // 501).
            let back: Outcome = rt_tool_3::wire::parse(&bytes)
                .map_err(|e| TestCaseError::fail(format!("the outcome does not parse back: {e}")))?;
            prop_assert_eq!(back, outcome);
        }
    }

    /// Cases built by `arbitrary` from random bytes are valid and keep every
    /// clause.
    #[test]
    fn arbitrary_cases_are_valid_and_keep_every_clause(
        bytes in vec(any::<u8>(), 0..2048),
        fresh in gen::canary(),
    ) {
        let mut u = Unstructured::new(&bytes);
        let case = Case::arbitrary(&mut u)
            .map_err(|e| TestCaseError::fail(format!("arbitrary failed: {e}")))?;
        check_valid(&case)?;
        check_clause_1(&case)?;
        check_clause_2(&case)?;
        check_clause_3(&case, &fresh)?;
        check_clause_4(&case)?;
        check_rt_tool_2(&case, &[])?;
    }
}

/// The regression file is rewritten whole (temporary file, then rename) in
/// proptest's own format: what it saves, proptest loads back.
#[test]
fn regressions_are_saved_atomically_in_proptests_format() {
    use proptest::test_runner::FailurePersistence;
    let seeds = gen::AtomicRegressions("proptest-regressions/properties.txt")
        .load_persisted_failures2(None);
    assert!(seeds.len() >= 2, "the committed regressions hold seeds");
    let dir = std::env::temp_dir().join(format!("rt-tool-3-regressions-{}", std::process::id()));
    let path: &'static str = Box::leak(
        dir.join("sub/regressions.txt")
            .display()
            .to_string()
            .into_boxed_str(),
    );
    let mut saver = gen::AtomicRegressions(path);
    saver.save_persisted_failure2(None, seeds[0].clone(), &"first\nvalue");
    saver.save_persisted_failure2(None, seeds[1].clone(), &"second");
    let back = saver.load_persisted_failures2(None);
    let text = |s: &[proptest::test_runner::PersistedSeed]| {
        s.iter().map(ToString::to_string).collect::<Vec<_>>()
    };
    assert_eq!(text(&back), text(&seeds[..2]));
    let file = std::fs::read_to_string(path).expect("written");
    assert!(
        file.starts_with("# Seeds for failure cases")
            && file.contains("# shrinks to \"first\\nvalue\""),
        "{file}"
    );
    let leftovers = std::fs::read_dir(dir.join("sub")).expect("dir").count();
    assert_eq!(leftovers, 1, "a temporary file was left behind");
    let _ = std::fs::remove_dir_all(dir);
}

// ---------------------------------------------------------------------------
// The requests `diff` writes

/// Every request `diff` writes is the very line serde_json writes for it:
/// the case and its siblings, key order, digits and escapes alike.
fn written_as_serde_writes(case: &Case) -> Result<(), TestCaseError> {
    for (seq, sibling) in rt_tool_3::diff::siblings(case, rt_tool_3::judge::ProseMode::DataOnly)
        .iter()
        .enumerate()
    {
        let mut ours = Vec::new();
        rt_tool_3::harness::run_request(&mut ours, seq as u64 + 1, sibling);
        let mut theirs =
            serde_json::to_vec(&json!({"cmd": "run", "seq": seq + 1, "case": sibling})).unwrap();
        theirs.push(b'\n');
        prop_assert_eq!(
            String::from_utf8_lossy(&ours),
            String::from_utf8_lossy(&theirs)
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn requests_are_written_as_serde_json_writes_them(case in gen::case()) {
        written_as_serde_writes(&case)?;
    }

    /// Strings at every offset from an eight-byte word, each character that
    /// needs an escape among plain ASCII and non-ASCII text.
    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them(
        parts in vec(prop_oneof![
            (0u8..0x80).prop_map(|b| char::from(b).to_string()),
            Just("é€😀".to_owned()),
            "[a-z]{0,17}",
        ], 0..12)
    ) {
        let text: String = parts.concat();
        let case = Case {
            exposed: None,
            calls: vec![Call {
                tool_call_id: text.clone(),
                result: json!({"data": text.clone(), text.clone(): [text, 1.25, -0, null, true]}),
            }],
        };
        written_as_serde_writes(&case)?;
    }
}
