//! The canary sibling: the marked sibling with fresh call ids, its calls
//! in other places beside one call more, and its artifacts, other keys
//! and error swapped for canaries.

use serde_json::{json, Value};

use super::tokens::Tokens;
use crate::judge::ProseMode;
use crate::model;
use crate::wire::{Call, Case};
use veil::Veil;

/// The exposure of whichever of the case and its marked sibling has the
/// port hidden: the canary sibling's. When those two deliver differently,
/// the canary sibling, whose artifacts are all new, tells whether the port
/// hidden that way still delivers: if it does, the difference is not the
/// exposure's (an artifact delivered once and not again, a cache, a
/// pairing by content) and each run is judged on its own.
pub(super) fn hidden_of(exposed: Option<bool>) -> Option<bool> {
    match exposed {
        Some(true) => Some(false),
        other => other,
    }
}

mod veil;

/// The prefix of the canary sibling's tokens.
pub(super) const CANARY: &str = "CANARY";

/// The prefix of the canary sibling's call ids.
const FRESH_ID: &str = "call_FRESH";

/// A canary sibling and the canaries in it.
pub(super) struct Canaried {
    pub(super) case: Case,
    pub(super) canaries: Vec<String>,
    /// For each of the canary sibling's calls, the index of the case's call
    /// it stands for; `None` for the call it adds ([`canary_order`]).
    pub(super) order: Vec<Option<usize>>,
    /// The `data` of the call the canary sibling adds: a token no string of
    /// the case holds, which no other call's prose may carry.
    pub(super) added: String,
    /// Each call's id in the case it was made from, by index: the canary
    /// sibling's calls have fresh ids.
    pub(super) ids: Vec<String>,
}

/// Where the canary sibling puts the case's calls: the second to the last,
/// then a call of its own, then the first (`[c1, c2, added, c0]` for
/// `[c0, c1, c2]`; `[added, c0]` for one call). So every call has another
/// place, another number of calls beside it and, with two or more, other
/// neighbours: a prose numbered by place ("result 2 of 3") or counting the
/// calls changes, which ¶3 ("built from a result's `data` alone") forbids.
fn canary_order(n: usize) -> Vec<Option<usize>> {
    (1..n)
        .map(Some)
        .chain([None])
        .chain((n > 0).then_some(Some(0)))
        .collect()
}

impl Canaried {
    /// `prose` of one of the canary sibling's calls with each call's fresh
    /// id written back as the id it stands for, so a prose that names its
    /// own call reads as it would in the case.
    pub(super) fn with_old_ids(&self, prose: &str) -> String {
        self.order
            .iter()
            .zip(&self.case.calls)
            .filter_map(|(i, call)| Some((call, &self.ids[(*i)?])))
            .fold(prose.to_owned(), |p, (call, old)| {
                p.replace(&call.tool_call_id, old)
            })
    }

    /// The fresh id of the call the canary sibling adds.
    pub(super) fn added_id(&self) -> &str {
        self.order
            .iter()
            .zip(&self.case.calls)
            .find(|(i, _)| i.is_none())
            .map_or("", |(_, call)| call.tool_call_id.as_str())
    }

    /// The prose of each of the case's calls in the canary sibling's run,
    /// in the case's order (`contents` is in the sibling's).
    pub(super) fn in_case_order<'o>(&self, contents: &[Option<&'o str>]) -> Vec<Option<&'o str>> {
        let mut found = vec![None; self.ids.len()];
        for (i, content) in self.order.iter().zip(contents) {
            if let Some(i) = i {
                found[*i] = *content;
            }
        }
        found
    }
}

/// The canary sibling of `case` (the marked sibling, in `diff`): in every
/// result, every place the prose may not draw on veiled ([`Veil`]), in
/// whatever JSON type the case holds there: its `artifacts`, the reserved
/// key of an object `data`, every other result-level key but `success` and
/// `data`, with decoys added where there are none, and the `error` of each
/// call that succeeded, and under the letter of ¶3
/// ([`ProseMode::failed_error_allowed`]) that of each call that did not.
pub(super) fn canary_sibling(case: &Case, prose: ProseMode) -> Canaried {
    let mut tokens = Tokens::new(case, CANARY, 0).afresh();
    let added = tokens.fresh(CANARY);
    let mut canaries = Vec::new();
    let mut fresh = || {
        let t = tokens.fresh(CANARY);
        canaries.push(t.clone());
        t
    };
    // Fresh call ids: a call's prose comes from its data alone, so it may
    // not change with its id, and a runtime that keeps prose by call id
    // (across the runs of one invocation, or from an earlier case that
    // used the same ids) shows the prose of another run here.
    let mut fresh_ids = Tokens::new(case, FRESH_ID, 2).afresh();
    let order = canary_order(case.calls.len());
    let ids: Vec<String> = order.iter().map(|_| fresh_ids.fresh(FRESH_ID)).collect();
    let calls = order
        .iter()
        .enumerate()
        .map(|(j, i)| {
            let Some(call) = i.map(|i| &case.calls[i]) else {
                return Call {
                    tool_call_id: ids[j].clone(),
                    result: json!({"success": true, "data": added}),
                };
            };
            let Value::Object(original) = &call.result else {
                return Call {
                    tool_call_id: ids[j].clone(),
                    result: call.result.clone(),
                };
            };
            let spoof = &ids[(j + 1) % ids.len()];
            Call {
                tool_call_id: ids[j].clone(),
                result: Value::Object(canary_result(original, spoof, prose, &mut fresh)),
            }
        })
        .collect();
    Canaried {
        case: Case {
            exposed: case.exposed,
            calls,
        },
        canaries,
        order,
        added,
        ids: case.calls.iter().map(|c| c.tool_call_id.clone()).collect(),
    }
}

/// The canary sibling's result for a call whose result is the object
/// `original` (see [`canary_sibling`]), its artifacts' entries claiming
/// `spoof` as their call id, each canary drawn from `fresh`.
fn canary_result(
    original: &serde_json::Map<String, Value>,
    spoof: &str,
    prose: ProseMode,
    fresh: impl FnMut() -> String,
) -> serde_json::Map<String, Value> {
    let mut veil = Veil {
        fresh,
        drawn: 0,
        spoof,
    };
    // Every key but `success`, `data` and `artifacts` (made anew below),
    // whatever its name, veiled: nothing in it is `data`. The `error` is
    // veiled below where the prose may not draw on it.
    let mut result: serde_json::Map<String, Value> = original
        .iter()
        .filter(|(k, _)| *k != "artifacts" && *k != "data")
        .map(|(k, v)| {
            let v = match k.as_str() {
                "success" | "error" => v.clone(),
                k => veil.other(v, DECOYS.contains(&k)),
            };
            (k.clone(), v)
        })
        .collect();
    if let Some(data) = original.get("data") {
        let data = match data {
            Value::Object(o) => {
                // The reserved key veiled where it was, or added last.
                let mut reserved = Some(veil.list(o.get(model::RESERVED_KEY)));
                let mut o: serde_json::Map<String, Value> = o
                    .iter()
                    .map(|(k, v)| match k == model::RESERVED_KEY {
                        true => (k.clone(), reserved.take().unwrap_or_default()),
                        false => (k.clone(), v.clone()),
                    })
                    .collect();
                if let Some(reserved) = reserved {
                    o.insert(model::RESERVED_KEY.into(), reserved);
                }
                Value::Object(o)
            }
            other => other.clone(),
        };
        result.insert("data".into(), data);
    }
    result.insert("artifacts".into(), veil.list(original.get("artifacts")));
    for decoy in DECOYS {
        if !result.contains_key(*decoy) {
            result.insert((*decoy).into(), Value::String(veil.fresh()));
        }
    }
    let succeeded = original.get("success") == Some(&Value::Bool(true));
    if succeeded || !prose.failed_error_allowed() {
        let error = match original.get("error") {
            Some(error) => veil.other(error, true),
            None => Value::String(veil.fresh()),
        };
        result.insert("error".into(), error);
    }
    result
}

/// The result-level keys the canary sibling always gives a string canary
/// when the result has none of its own there: decoys a runtime may take
/// for the prose.
const DECOYS: &[&str] = &["content", "prose", "message", "artifacts_text"];

#[cfg(test)]
mod tests {
    use super::super::sent::Sent;
    use super::veil::CANARY_KEY;
    use super::*;
    use crate::{gen, judge};

    /// A place of a result the prose may not draw on.
    #[derive(Clone, Copy, Debug)]
    enum At {
        Artifacts,
        Reserved,
        /// The `error` of a call that succeeded, or not (`false`, judged
        /// under the letter of ¶3).
        Error(bool),
        /// A decoy, `content`.
        Decoy,
        /// Any other key, `note`.
        Other,
    }

    impl At {
        /// A result holding `v` at this place (nothing, for `None`).
        fn result(self, v: Option<Value>) -> Value {
            let mut result = json!({"success": !matches!(self, At::Error(false)), "data": "d"});
            let key = match self {
                At::Reserved => {
                    result["data"] = json!({"result": "ok"});
                    if let Some(v) = v {
                        result["data"][model::RESERVED_KEY] = v;
                    }
                    return result;
                }
                At::Artifacts => "artifacts",
                At::Error(_) => "error",
                At::Decoy => "content",
                At::Other => "note",
            };
            if let Some(v) = v {
                result[key] = v;
            }
            result
        }

        /// What a result holds at this place.
        fn of(self, result: &Value) -> Option<&Value> {
            match self {
                At::Reserved => result["data"].get(model::RESERVED_KEY),
                At::Artifacts => result.get("artifacts"),
                At::Error(_) => result.get("error"),
                At::Decoy => result.get("content"),
                At::Other => result.get("note"),
            }
        }
    }

    /// `v` with every non-empty string `"S"`: what the canary sibling
    /// keeps of a place.
    fn shape(v: &Value) -> Value {
        match v {
            Value::String(s) if !s.is_empty() => json!("S"),
            Value::Array(a) => a.iter().map(shape).collect(),
            Value::Object(o) => {
                Value::Object(o.iter().map(|(k, x)| (k.clone(), shape(x))).collect())
            }
            other => other.clone(),
        }
    }

    /// The canary sibling of a case of two calls, the first holding `v` at
    /// `at`, judged under `prose`: the first call's result there, and the
    /// sibling.
    fn veiled(at: At, v: Option<Value>, prose: ProseMode) -> (Value, Canaried) {
        let case: Case = serde_json::from_value(json!({"calls": [
            {"tool_call_id": "c1", "result": at.result(v)},
            {"tool_call_id": "c2", "result": {"success": true, "data": "e"}}]}))
        .unwrap();
        let canary = canary_sibling(&case, prose);
        // Two calls: `[c2, added, c1]`.
        assert_eq!(canary.order, [Some(1), None, Some(0)]);
        (canary.case.calls[2].result.clone(), canary)
    }

    /// Every non-empty string value in `v` holds a canary of `canary`, but
    /// for a canary entry's `type` and the call id it claims, another
    /// call's.
    fn all_canaries(v: &Value, canary: &Canaried) {
        match v {
            Value::String(s) if !s.is_empty() => {
                let own = &canary.case.calls[2].tool_call_id;
                let mut ids = canary.case.calls.iter().map(|c| &c.tool_call_id);
                let spoof = ids.any(|id| id != own && id == s);
                let canaried = canary.canaries.iter().any(|c| s.contains(c.as_str()));
                assert!(canaried || spoof || s == "canary", "{s:?}");
            }
            Value::Array(a) => a.iter().for_each(|x| all_canaries(x, canary)),
            Value::Object(o) => o.values().for_each(|x| all_canaries(x, canary)),
            _ => {}
        }
    }

    /// A value a place of the case holds, and its shape ([`shape`]) in the
    /// canary sibling: in a list of entries (`artifacts`, the reserved
    /// key), in an `error` or a decoy, in any other key.
    type Row = (Option<Value>, Value, Value, Option<Value>);

    /// A value of every JSON type, and a place's shape in the canary
    /// sibling for each kind of place: a canary entry at the end of a
    /// list, a canary member or item where an object or array holds no
    /// string.
    fn rows() -> Vec<Row> {
        let probe = json!({"type": "S", "payload": {"url": "S", "text": "S"},
            "tool_call_id": "S", "Type": "S"});
        let room = json!({CANARY_KEY: "S"});
        let entries = json!([{"type": "", "payload": {"n": 1, "s": "secret text"}},
            "a loose entry", 3, null, {"type": "link", "payload": {}}]);
        let entries_shape = json!([{"type": "", "payload": {"n": 1, "s": "S"}},
            "S", 3, null, {"type": "S", "payload": {}}]);
        let mut entries_listed = entries_shape.clone();
        entries_listed.as_array_mut().unwrap().push(probe.clone());
        let entry = json!({"type": "link", "payload": {"url": "https://example.com/a"},
            "tool_call_id": "c2", "title": "Quarterly report"});
        let entry_shape = json!({"type": "S", "payload": {"url": "S"}, "tool_call_id": "S",
            "title": "S"});
        let bare = json!({"code": 7, "deep": [[{"k": true}]]});
        let mut bare_roomy = bare.clone();
        bare_roomy[CANARY_KEY] = json!("S");
        // The case's value; its shape in a list of entries (`artifacts`,
        // the reserved key), in an `error` or decoy, in any other key.
        vec![
            (None, json!([probe]), json!("S"), None),
            (
                Some(Value::Null),
                json!([probe]),
                json!("S"),
                Some(Value::Null),
            ),
            (
                Some(json!(false)),
                json!([probe]),
                json!("S"),
                Some(json!(false)),
            ),
            (
                Some(json!(-12.5e3)),
                json!([probe]),
                json!("S"),
                Some(json!(-12.5e3)),
            ),
            (Some(json!("")), json!([probe]), json!("S"), Some(json!(""))),
            (
                Some(json!("disk full at /tmp")),
                json!("S"),
                json!("S"),
                Some(json!("S")),
            ),
            (
                Some(json!([])),
                json!([probe]),
                json!(["S"]),
                Some(json!(["S"])),
            ),
            (
                Some(json!([1, null])),
                json!([1, null, probe]),
                json!([1, null, "S"]),
                Some(json!([1, null, "S"])),
            ),
            (
                Some(entries),
                entries_listed,
                entries_shape.clone(),
                Some(entries_shape),
            ),
            (Some(json!({})), room.clone(), room.clone(), Some(room)),
            (
                Some(entry),
                entry_shape.clone(),
                entry_shape.clone(),
                Some(entry_shape),
            ),
            (
                Some(bare),
                bare_roomy.clone(),
                bare_roomy.clone(),
                Some(bare_roomy),
            ),
        ]
    }

    /// Each place the prose may not draw on, in every JSON type: the
    /// canary sibling keeps its type and shape (each entry kept or dropped
    /// by RT-TOOL-2 as in the case, an empty `type` staying empty), every
    /// non-empty string in it a canary, and a canary where the case's value
    /// held none: one canary entry more in a list of entries, a member or
    /// an item in an array or object, a string canary for a scalar `error`
    /// or decoy. So a runtime that renders the place, in whatever type it
    /// holds, shows a canary, and the reference, which renders none of it,
    /// none.
    #[test]
    fn every_place_keeps_its_type_and_shape_every_string_a_canary() {
        let places = [
            At::Artifacts,
            At::Reserved,
            At::Error(true),
            At::Error(false),
            At::Decoy,
            At::Other,
        ];
        for (v, list, probed, other) in &rows() {
            for at in places {
                let (result, canary) = veiled(at, v.clone(), ProseMode::Letter);
                let want = match at {
                    At::Artifacts | At::Reserved => Some(list),
                    At::Error(_) | At::Decoy => Some(probed),
                    At::Other => other.as_ref(),
                };
                let got = at.of(&result);
                assert_eq!(
                    got.map(shape).as_ref(),
                    want,
                    "{at:?} holding {v:?}: {result}"
                );
                // Where the shape holds a string, a rendering of the place
                // shows a canary.
                let rendered = got.map(model::sorted_compact_json).unwrap_or_default();
                let string = want.is_some_and(|w| w.to_string().contains("\"S\""));
                assert_eq!(rendered.contains(CANARY), string, "{at:?} holding {v:?}");
                all_canaries(got.unwrap_or(&Value::Null), &canary);
                // The rest of `data` as it was; the reference renders no canary.
                if let At::Reserved = at {
                    assert_eq!(result["data"]["result"], "ok");
                }
                let prose = model::outcome(&canary.case).messages;
                let of_the_case = canary.order.iter().zip(&prose).filter(|(i, _)| i.is_some());
                for (_, m) in of_the_case {
                    assert!(!m.content.contains(CANARY), "{prose:?}");
                }
            }
        }
    }

    /// A failed call's `error`, which its prose may draw on by default, as
    /// it was, in every type.
    #[test]
    fn a_failed_calls_error_is_kept_by_default_in_every_type() {
        for (v, ..) in rows() {
            let (result, _) = veiled(At::Error(false), v.clone(), ProseMode::DataOnly);
            assert_eq!(result.get("error"), v.as_ref());
        }
    }

    /// A list of entries written as JSON text stays JSON text, veiled: a
    /// runtime that parses it meets canaries; a string that is no such text
    /// is a canary.
    #[test]
    fn entries_as_json_text_stay_json_text_of_canaries() {
        let text =
            json!([{"type": "link", "payload": {"url": "https://example.com/a"}}]).to_string();
        for at in [At::Artifacts, At::Reserved] {
            let (result, canary) = veiled(at, Some(json!(text)), ProseMode::DataOnly);
            let veiled_text = at.of(&result).and_then(Value::as_str).unwrap();
            let parsed: Value = serde_json::from_str(veiled_text).unwrap();
            let probe = json!({"type": "S", "payload": {"url": "S", "text": "S"},
                "tool_call_id": "S", "Type": "S"});
            let want = json!([{"type": "S", "payload": {"url": "S"}}, probe]);
            assert_eq!(shape(&parsed), want, "{at:?}");
            all_canaries(&parsed, &canary);
            for not_text in [" [1, 2", "{oops}", "[1] x", "\"[]\""] {
                let (result, canary) = veiled(at, Some(json!(not_text)), ProseMode::DataOnly);
                let s = at.of(&result).and_then(Value::as_str).unwrap();
                assert!(canary.canaries.iter().any(|c| c == s), "{not_text}: {s}");
            }
        }
    }

    /// The deepest of a value's containers, counted from 1.
    fn depth(v: &Value) -> usize {
        match v {
            Value::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
            Value::Object(o) => 1 + o.values().map(depth).max().unwrap_or(0),
            _ => 0,
        }
    }

    /// The canary sibling is never deeper than its case, nor than the
    /// canary entries it puts at the top of a list place: a case whose
    /// request sits at the nesting bound, a value that deep in each place
    /// (with a string at the bottom, or none), has a sibling whose request
    /// is within it.
    #[test]
    fn the_canary_sibling_is_no_deeper_than_its_case() {
        let request = |case: &Case| {
            let mut out = Vec::new();
            crate::harness::run_request(&mut out, 1, case);
            out
        };
        for leaf in [json!("a deep secret"), json!(1)] {
            for at in [
                At::Artifacts,
                At::Reserved,
                At::Error(true),
                At::Decoy,
                At::Other,
            ] {
                for object in [false, true] {
                    let nest = |n: usize| {
                        (0..n).fold(leaf.clone(), |v, _| match object {
                            true => json!({"k": v}),
                            false => json!([v]),
                        })
                    };
                    let case_of = |n| -> Case {
                        serde_json::from_value(json!({"calls": [
                            {"tool_call_id": "c1", "result": at.result(Some(nest(n)))}]}))
                        .unwrap()
                    };
                    // The deepest value the request holds at the bound: the
                    // request, the case, `calls` and the call are 4 levels.
                    let n = crate::wire::MAX_DEPTH - 4 - depth(&at.result(Some(json!(null))));
                    assert!(!crate::wire::within_depth(&request(&case_of(n + 1))));
                    let case = case_of(n);
                    assert!(crate::wire::within_depth(&request(&case)));
                    let canary = canary_sibling(&case, ProseMode::Letter);
                    let sent = request(&canary.case);
                    assert!(crate::wire::within_depth(&sent), "{at:?}, {n} deep");
                    let deepest = |c: &Case| c.calls.iter().map(|c| depth(&c.result)).max();
                    assert!(deepest(&canary.case) <= deepest(&case), "{at:?}");
                }
            }
        }
    }

    /// The canary sibling keeps each call's `data` but puts the call in
    /// another place, beside one call more whose `data` is a token no
    /// string of the case holds; with two calls or more, the first goes
    /// last, so neighbours change too. A prose numbered by place or
    /// counting the calls therefore changes, and is found.
    #[test]
    fn the_canary_sibling_moves_every_call_and_adds_one() {
        let mut moved = 0;
        for case in gen::cases(13).take(300) {
            let sent = Sent::new(case.clone(), ProseMode::DataOnly);
            let canary = &sent.canary;
            let n = case.calls.len();
            assert_eq!(canary.case.calls.len(), n + 1);
            let data = |call: &Call| call.result.get("data").cloned();
            let mut held = String::new();
            for call in &case.calls {
                judge::strings(&call.result, &mut |s| held.push_str(s));
            }
            assert!(!held.contains(canary.added.as_str()));
            for (j, (stands_for, call)) in canary.order.iter().zip(&canary.case.calls).enumerate() {
                match stands_for {
                    None => {
                        assert_eq!(data(call), Some(json!(canary.added)));
                        assert_eq!(canary.added_id(), call.tool_call_id);
                    }
                    Some(i) => {
                        assert_ne!(*i, j, "call {i} kept its place");
                        let marked = sent.marked.markers().nth(*i).flatten();
                        let want = data(&case.calls[*i]).map(|d| match (d, marked) {
                            (Value::String(s), Some(m)) => json!(format!("{s} {m}")),
                            (d, _) => d,
                        });
                        if matches!(want, Some(Value::String(_)) | None) {
                            assert_eq!(data(call), want, "call {i}");
                        }
                        moved += 1;
                    }
                }
            }
            let contents: Vec<Option<&str>> = canary
                .case
                .calls
                .iter()
                .map(|c| Some(c.tool_call_id.as_str()))
                .collect();
            let back = canary.in_case_order(&contents);
            for (i, id) in back.iter().enumerate() {
                let j = canary.order.iter().position(|o| *o == Some(i)).unwrap();
                assert_eq!(*id, Some(canary.case.calls[j].tool_call_id.as_str()));
            }
        }
        assert!(moved > 300, "{moved} calls moved");
    }
}
