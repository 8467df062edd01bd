//! Call ids, and the ids a tool spoofs: a sibling call's real id, the call's
//! own id, an id no call has. A generated result carries *marks* where a
//! spoofed id goes; [`assemble`] makes a case's ids unique and replaces the
//! marks with real ids.

use super::*;

/// Call ids at the edges.
pub(super) const EDGE_IDS: &[&str] = &[
    "",
    " ",
    "c1 ",
    "C1",
    "ид-1",
    "🦀",
    "c\u{200b}1",
    "\"quoted\"",
    "__proto__",
    "tool_call_id",
    "null",
    "0",
];

/// Marks, inside a generated result, the id of a sibling call (`MARK_SIBLING`
/// followed by a small number) or of the call itself (`MARK_OWN`). A case's
/// calls are assembled first, then the marks are replaced by real ids. U+FDD0
/// is a noncharacter no other generator produces in this position.
pub(super) const MARK_SIBLING: &str = "\u{fdd0}sibling\u{fdd0}";
pub(super) const MARK_OWN: &str = "\u{fdd0}own\u{fdd0}";
/// What a sibling mark becomes in a case with a single call: an id no call has.
pub(super) const GHOST_ID: &str = "call_ghost";

/// A call id: mostly `c1`…`c9` (so that ids collide often and need
/// de-duplicating, and a random spoofed id often is a real one), OpenAI- and
/// Anthropic-style ids, and edge ids (empty, whitespace, non-ASCII,
/// zero-width). Not necessarily unique: [`case`] makes a case's ids unique.
pub fn call_id() -> BoxedStrategy<String> {
    one_of![
        6 => (1u32..=9).prop_map(|n| format!("c{n}")),
        3 => matching("call_[A-Za-z0-9]{8,24}"),
        1 => matching("toolu_[A-Za-z0-9]{12}"),
        1 => select(EDGE_IDS).prop_map(str::to_owned),
    ]
    .boxed()
}

/// A value for a spoofed `tool_call_id`: a sibling call's real id (a mark
/// until [`case`] replaces it), the call's own id, a random [`call_id`]
/// (often a real one too), a canary, or not a string at all (null, a
/// number, an object, a boolean, a sibling's id in a list).
pub(super) fn spoofed_id() -> BoxedStrategy<Value> {
    one_of![
        3 => (0usize..4).prop_map(|k| Value::String(format!("{MARK_SIBLING}{k}"))),
        1 => Just(Value::String(MARK_OWN.to_owned())),
        2 => call_id().prop_map(Value::String),
        1 => canary().prop_map(Value::String),
        1 => one_of![
            Just(Value::Null),
            (0i64..10).prop_map(Value::from),
            Just(json!({"id": "c1"})),
            any::<bool>().prop_map(Value::Bool),
            (0usize..4).prop_map(|k| json!([format!("{MARK_SIBLING}{k}")])),
        ],
    ]
    .boxed()
}

/// A `tool_call_id` placed where no entry is: inside `data`, or at a
/// result's top level. A sibling call's real id (a mark until [`case`]
/// replaces it), the call's own id, or an id no call has; never a canary,
/// since `data` may hold none.
pub(super) fn data_id() -> BoxedStrategy<Value> {
    one_of![
        2 => (0usize..4).prop_map(|k| Value::String(format!("{MARK_SIBLING}{k}"))),
        1 => Just(Value::String(MARK_OWN.to_owned())),
        1 => (0u32..1000).prop_map(|n| Value::String(format!("call_unknown_{n}"))),
    ]
    .boxed()
}

/// Replaces marks by real ids, everywhere in a result.
pub(super) fn resolve(v: &mut Value, own: &str, siblings: &[String]) {
    match v {
        Value::String(s) if s == MARK_OWN => *s = own.to_owned(),
        Value::String(s) => {
            if let Some(k) = s.strip_prefix(MARK_SIBLING) {
                let k: usize = k.parse().unwrap_or(0);
                *s = match siblings {
                    [] => GHOST_ID.to_owned(),
                    _ => siblings[k % siblings.len()].clone(),
                };
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| resolve(x, own, siblings)),
        Value::Object(m) => m.values_mut().for_each(|x| resolve(x, own, siblings)),
        _ => {}
    }
}

/// Makes ids unique (suffixing the index on a collision) and replaces marks.
pub(super) fn assemble(exposed: Option<bool>, raw: Vec<(String, Value)>) -> Case {
    let ids = unique_ids(raw.iter().map(|(id, _)| id.clone()));
    let calls = raw
        .into_iter()
        .zip(&ids)
        .map(|((_, mut result), id)| {
            let siblings: Vec<String> = ids.iter().filter(|x| *x != id).cloned().collect();
            resolve(&mut result, id, &siblings);
            Call {
                tool_call_id: id.clone(),
                result,
            }
        })
        .collect();
    Case { exposed, calls }
}

/// The ids as given, except that a repeated one gets `-<index>` appended
/// (and `'` until it is unique).
pub(super) fn unique_ids(ids: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut seen = BTreeSet::new();
    ids.into_iter()
        .enumerate()
        .map(|(i, id)| {
            let mut id = id;
            if seen.contains(&id) {
                id = format!("{id}-{i}");
                while seen.contains(&id) {
                    id.push('\'');
                }
            }
            seen.insert(id.clone());
            id
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_made_unique_by_their_index() {
        let ids = unique_ids(["c1", "c1", "c1-1", "c2"].map(String::from));
        assert_eq!(ids, ["c1", "c1-1", "c1-1-2", "c2"]);
    }

    #[test]
    fn marks_become_real_ids() {
        let mut v = json!({"a": [format!("{MARK_SIBLING}3"), MARK_OWN], "b": "x"});
        resolve(&mut v, "me", &["s1".to_owned(), "s2".to_owned()]);
        assert_eq!(v, json!({"a": ["s2", "me"], "b": "x"}));
        let mut lone = json!(format!("{MARK_SIBLING}0"));
        resolve(&mut lone, "me", &[]);
        assert_eq!(lone, json!(GHOST_ID));
    }
}
