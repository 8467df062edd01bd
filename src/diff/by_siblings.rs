//! What one outcome cannot show, judged by comparing a case's sibling
//! runs: whether delivery changes with the exposure (¶4), and whether the
//! prose changes with what it may not draw on (¶3).

use serde_json::Value;

use super::canary::{Canaried, CANARY};
use crate::judge::{self, same_multiset, Violation};
use crate::wire::Call;

/// ¶4 by siblings: the port of the run with it exposed against the run
/// with it hidden.
pub(super) fn delivery_differs(
    runs: &[Value],
    shown: usize,
    hidden: usize,
    exposures: [Option<bool>; 2],
) -> Option<Violation> {
    fn artifacts(o: &Value) -> &[Value] {
        o.get("tool_artifacts")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }
    let port = |o: &Value| o.get("tool_artifacts").is_some();
    let (a, b) = (artifacts(&runs[shown]), artifacts(&runs[hidden]));
    // Two runs that deliver the same mostly deliver it in the same order,
    // and lists equal item by item are the same multiset: that is checked
    // first, without hashing every payload of both.
    let in_order = || {
        a.len() == b.len()
            && a.iter()
                .zip(b)
                .all(|(x, y)| judge::json_eq(x, y) != judge::Eq::Different)
    };
    let differs = !(in_order() || same_multiset(a, b)) || port(&runs[shown]) != port(&runs[hidden]);
    if !differs {
        return None;
    }
    let said = |o: &Value| match o.get("tool_artifacts") {
        Some(Value::Array(a)) => format!("{} artifact(s)", a.len()),
        Some(_) => "no list".to_owned(),
        None => "no tool_artifacts at all".to_owned(),
    };
    let exposure = |e: Option<bool>| e.map_or("null".to_owned(), |b| b.to_string());
    // Which artifact one run carries and the other does not.
    let only_in = |x: &[Value], y: &[Value]| {
        x.iter()
            .find(|e| {
                !y.iter()
                    .any(|f| judge::json_eq(*e, f) != judge::Eq::Different)
            })
            .map(|e| {
                let text = |k: &str| {
                    e.get(k).map_or("?".to_owned(), |v| match v {
                        Value::String(s) => format!("{s:?}"),
                        other => other.to_string(),
                    })
                };
                format!(
                    "the {} artifact of call {}",
                    text("type"),
                    text("tool_call_id")
                )
            })
    };
    let which = match (only_in(a, b), only_in(b, a)) {
        (Some(e), _) => Some((e, shown, hidden)),
        (None, Some(e)) => Some((e, hidden, shown)),
        (None, None) => None,
    }
    .map_or_else(String::new, |(e, with, without)| {
        format!(
            "; {e} is delivered with exposed: {} and not with exposed: {}",
            exposure(exposures[with]),
            exposure(exposures[without])
        )
    });
    Some(Violation::new(
        judge::Code::DeliveryDependsOnExposure,
        judge::Place::key("tool_artifacts"),
        format!(
            "with exposed: {} the port carries {}, with exposed: {} it carries {}{which}: delivery must not depend on exposure",
            exposure(exposures[shown]),
            said(&runs[shown]),
            exposure(exposures[hidden]),
            said(&runs[hidden]),
        ),
    ))
}

/// ¶3 by siblings: the canary sibling's prose against the marked
/// sibling's, call by call (`after` in the case's order,
/// [`Canaried::in_case_order`]). The two differ in nothing the prose may
/// draw on: the canary sibling's artifacts, decoys, other keys, `error`,
/// call ids, order and number of calls are new, its `data` the same. No
/// call's prose may carry a canary or the added call's token; the prose of
/// a call `unchanged` says so of (by index: one of RT-TOOL-1's shape, in a
/// run within the floors) may not change at all.
pub(super) fn prose_siblings(
    unchanged: &[bool],
    calls: &[Call],
    before: &[Option<&str>],
    after: &[Option<&str>],
    canary: &Canaried,
) -> Vec<Violation> {
    let mut found = Vec::new();
    for (i, call) in calls.iter().enumerate() {
        let Some(Some(text)) = after.get(i) else {
            continue;
        };
        // Every canary starts with the prefix: a text without it holds
        // none, and is not searched for each.
        let seen = match text.contains(CANARY) {
            true => canary.canaries.iter().find(|c| text.contains(c.as_str())),
            false => None,
        };
        let before = before.get(i).copied().flatten();
        if text.contains(canary.added.as_str()) {
            let added = canary.added_id();
            found.push(Violation::new(
                judge::Code::ProseOfAnotherCall,
                judge::Place {
                    from: Some(format!("the data of call {added}")),
                    ..judge::Place::call(i)
                },
                format!(
                    "the prose of call {} carries the marker of call {added}'s data: each call's prose comes from its own result's data",
                    call.tool_call_id
                ),
            ));
        } else if let Some(seen) = seen {
            found.push(Violation::new(
                judge::Code::ProseCanary,
                judge::Place::call(i),
                format!(
                    "with its artifacts, decoys, other keys and error swapped for canaries, the prose of call {} contains the canary {seen}: prose comes from data alone",
                    call.tool_call_id
                ),
            ));
        } else if unchanged.get(i) == Some(&true)
            && before != Some(*text)
            && before != Some(canary.with_old_ids(text).as_str())
        {
            found.push(Violation::new(
                judge::Code::ProseChanged,
                judge::Place::call(i),
                format!(
                    "the prose of call {} changed from {:?} to {:?} when only its call id, place, neighbours, artifacts, result-level keys and error changed, not its data (prose kept by call id, numbered by place, or drawn from more than data)",
                    call.tool_call_id,
                    before.unwrap_or_default(),
                    text
                ),
            ));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::canary::canary_sibling;
    use super::*;
    use crate::judge::ProseMode;
    use crate::wire::Case;

    #[test]
    fn delivery_differs_when_the_port_carries_another_multiset() {
        let a = json!({"type": "link", "payload": {"url": "u", "n": 1}, "tool_call_id": "c1"});
        let b = json!({"type": "file", "payload": {"name": "f"}, "tool_call_id": "c2"});
        let run = |items: &[&Value]| json!({"messages": [], "tool_artifacts": items});
        let differs = |shown: Value, hidden: Value| {
            delivery_differs(&[shown, hidden], 0, 1, [Some(true), None]).is_some()
        };
        // The same, in the same order or not, or up to how a number is written.
        assert!(!differs(run(&[&a, &b]), run(&[&a, &b])));
        assert!(!differs(run(&[&a, &b]), run(&[&b, &a])));
        let one = json!({"type": "t", "payload": 1, "tool_call_id": "c1"});
        let one_point_oh = json!({"type": "t", "payload": 1.0, "tool_call_id": "c1"});
        assert!(!differs(run(&[&one, &a]), run(&[&a, &one_point_oh])));
        // Not the same: fewer, one for another, or no port at all.
        assert!(differs(run(&[&a, &b]), run(&[&a])));
        assert!(differs(run(&[&a, &a]), run(&[&a, &b])));
        assert!(differs(run(&[&a, &b]), run(&[&b, &b])));
        assert!(differs(run(&[&a, &b]), run(&[&b, &one])));
        assert!(differs(run(&[]), json!({"messages": []})));
    }

    #[test]
    fn a_canary_in_the_prose_is_named() {
        let case: Case = serde_json::from_value(json!({"calls": [
            {"tool_call_id": "c1", "result": {"success": true, "data": "d"}},
            {"tool_call_id": "c2", "result": {"success": true, "data": "e"}}]}))
        .unwrap();
        let canary = Canaried {
            case: case.clone(),
            canaries: ["CANARY0000000000000001", "CANARY00000000000000ff"]
                .map(str::to_owned)
                .to_vec(),
            order: vec![Some(0), Some(1)],
            added: "CANARY00000000000000aa".into(),
            ids: vec!["c1".into(), "c2".into()],
        };
        let found = |after: [Option<&str>; 2]| {
            let before = [Some("d"), Some("e")];
            prose_siblings(&[true; 2], &case.calls, &before, &after, &canary)
        };
        assert!(found([Some("d"), Some("e")]).is_empty());
        let leaked = found([Some("d"), Some("e, see CANARY00000000000000ff.")]);
        assert_eq!(leaked.len(), 1);
        assert!(leaked[0]
            .message
            .contains("call c2 contains the canary CANARY00000000000000ff"));
        // The prose changed, with no canary in it: a change all the same.
        let changed = found([Some("d CANARY-1"), Some("e")]);
        assert_eq!(changed.len(), 1);
        assert!(
            changed[0].message.contains("changed from"),
            "{}",
            changed[0].message
        );
    }

    /// The `data` of the call the canary sibling adds, in the prose of a
    /// call of the case, is another call's data in its prose.
    #[test]
    fn the_added_calls_data_in_a_prose_is_another_calls() {
        let case: Case = serde_json::from_value(json!({"calls": [
            {"tool_call_id": "c1", "result": {"success": true, "data": "d"}}]}))
        .unwrap();
        let canary = canary_sibling(&case, ProseMode::DataOnly);
        let added = canary.added.clone();
        let merged = format!("d\n{added}");
        let found = prose_siblings(
            &[true],
            &case.calls,
            &[Some("d")],
            &[Some(&merged)],
            &canary,
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].code, judge::Code::ProseOfAnotherCall);
        assert!(
            found[0].message.contains(canary.added_id()),
            "{}",
            found[0].message
        );
        assert!(
            prose_siblings(&[true], &case.calls, &[Some("d")], &[Some("d")], &canary).is_empty()
        );
    }
}
