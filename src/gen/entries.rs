//! Artifact entries: the `type`, the extra and near-miss keys a tool adds,
//! entries RT-TOOL-2 keeps and entries it drops.

use super::*;

/// Keys that nearly spell `type`, `payload` or `tool_call_id`, or that
/// prototype-based runtimes treat specially: case variants, stray whitespace,
/// a zero-width space, Cyrillic look-alikes (`у` U+0443, `а` U+0430), other
/// spellings of `tool_call_id`, and `__proto__` / `constructor`. None of them
/// is `type` or `payload`, so an entry carrying one is judged by its real
/// keys alone.
pub const NEAR_MISS_KEYS: &[&str] = &[
    "Type",
    "TYPE",
    "Payload",
    "PAYLOAD",
    "type ",
    " payload",
    "tool_call_id ",
    "type\u{200b}",
    "payload\u{200b}",
    "t\u{443}pe",
    "p\u{430}yload",
    "tool-call-id",
    "toolCallId",
    "__proto__",
    "constructor",
];

/// Ordinary artifact types.
pub(super) const TYPES: &[&str] = &[
    "link", "file", "image", "record", "table", "node", "markdown", "chart",
];

/// Types a normaliser would change: padded, blank, cased, with a
/// look-alike or an invisible character. Each must come out unchanged.
pub const ODD_TYPES: &[&str] = &[
    " link",
    "link ",
    "\tfile\n",
    " ",
    "\t",
    "\u{a0}",
    "Link",
    "FILE",
    "l\u{456}nk",
    "f\u{456}le",
    "li\u{200b}nk",
    "\u{feff}image",
];

/// An artifact `type`: mostly an ordinary one (`link`, `file` …), sometimes a
/// canary, an odd non-empty string (whitespace, non-ASCII), one a normaliser
/// would change ([`ODD_TYPES`]), or a type of 257 to 400 bytes. Never empty:
/// RT-TOOL-6 refuses an empty `type`, and [`malformed_entry`] makes those.
pub fn artifact_type() -> BoxedStrategy<String> {
    one_of![
        16 => select(TYPES).prop_map(str::to_owned),
        2 => canary(),
        2 => text().prop_map(|t| if t.is_empty() { "x".to_owned() } else { t }),
        3 => select(ODD_TYPES).prop_map(str::to_owned),
        1 => long_type(),
    ]
    .boxed()
}

/// A type of 257 to 400 bytes: an ordinary one padded with `x`.
fn long_type() -> BoxedStrategy<String> {
    (select(TYPES), 257usize..=400)
        .prop_map(|(t, n)| format!("{t}{}", "x".repeat(n - t.len())))
        .boxed()
}

/// An ordinary type, or (one in seventeen) a long one: never one a
/// normaliser would change. The cases at RT-TOOL-6's bounds draw these, so
/// that a runtime that trims or lower-cases types is first shown on a case
/// within the floors, where the type alone is wrong, and not on one over
/// them, where the changed artifact is also missing from what RT-TOOL-6
/// still owes (at `artifact_type`'s mix, `trim-type` was named on 6 seeds
/// of 10).
pub(super) fn plain_type() -> BoxedStrategy<String> {
    one_of![16 => select(TYPES).prop_map(str::to_owned), 1 => long_type()].boxed()
}

/// The value of an extra key on an entry.
pub(super) fn extra_value() -> BoxedStrategy<Value> {
    one_of![
        2 => text().prop_map(Value::String),
        2 => canary().prop_map(Value::String),
        1 => spoofed_id(),
        1 => plain_payload(),
    ]
    .boxed()
}

/// An extra key of an artifact entry, never `type` nor `payload`: a spoofed
/// `tool_call_id`, a near miss ([`NEAR_MISS_KEYS`]; `__proto__` and
/// `constructor` more often than the others), or an arbitrary key.
pub fn entry_extra() -> BoxedStrategy<(String, Value)> {
    one_of![
        3 => spoofed_id().prop_map(|id| ("tool_call_id".to_owned(), id)),
        3 => (select(NEAR_MISS_KEYS), extra_value()).prop_map(|(k, v)| (k.to_owned(), v)),
        // The prototype keys once more: a prototype-based runtime that copies
        // an entry with them may change the copy's shape, not just its keys.
        1 => (select(vec!["__proto__", "constructor"]), plain_payload())
            .prop_map(|(k, v)| (k.to_owned(), v)),
        2 => (key(), extra_value()).prop_map(|(k, v)| match k.as_str() {
            "type" | "payload" => (format!("{k}_"), v),
            _ => (k, v),
        }),
    ]
    .boxed()
}

/// An entry RT-TOOL-2 keeps: a non-empty string `type` and an object
/// `payload`, and in 40 % of entries one to three extra keys
/// ([`entry_extra`]), before or after the real ones.
pub fn well_formed_entry() -> BoxedStrategy<Value> {
    (
        artifact_type(),
        payload(),
        one_of![3 => Just(vec![]), 2 => vec(entry_extra(), 1..=3)],
        any::<bool>(),
    )
        .prop_map(|(kind, payload, extras, extras_first)| {
            let mut m = Map::new();
            let extras = extras
                .into_iter()
                .filter(|(k, _)| k != "type" && k != "payload");
            if extras_first {
                m.extend(extras);
                m.insert("type".into(), kind.into());
                m.insert("payload".into(), payload);
            } else {
                m.insert("type".into(), kind.into());
                m.insert("payload".into(), payload);
                m.extend(extras);
            }
            Value::Object(m)
        })
        .boxed()
}

/// An entry RT-TOOL-2 drops, in each way it drops one, about equally often:
/// not an object (a string, a number, null, a boolean, an array); no `type`;
/// a `type` that is not a string; an empty `type`; no `payload`; a `payload`
/// that is not an object (a string, an array, null, a number, a boolean).
/// Its contents may carry canaries and spoofed ids.
pub fn malformed_entry() -> BoxedStrategy<Value> {
    let not_object = one_of![
        one_of![text(), canary(), select(TYPES).prop_map(str::to_owned)].prop_map(Value::String),
        number(),
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (artifact_type(), payload()).prop_map(|(t, p)| json!([t, p])),
    ];
    let not_string = one_of![
        number(),
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        select(TYPES).prop_map(|t| json!([t])),
        select(TYPES).prop_map(|t| json!({"name": t})),
    ];
    let not_object_payload = one_of![
        one_of![text(), canary(), url()].prop_map(Value::String),
        vec(scalar(), 0..3).prop_map(Value::Array),
        Just(Value::Null),
        number(),
        any::<bool>().prop_map(Value::Bool),
    ];
    one_of![
        not_object,
        // No `type`, sometimes with a near miss in its place.
        (payload(), proptest::option::of(select(NEAR_MISS_KEYS))).prop_map(
            |(p, near)| match near {
                Some(k) => json!({k: "link", "payload": p}),
                None => json!({"payload": p}),
            }
        ),
        (not_string, payload()).prop_map(|(t, p)| json!({"type": t, "payload": p})),
        // An empty `type`, with a payload that is never `{}`: a blank
        // `type` trimmed to `""` beside it (`{"type": " ", "payload": {}}`
        // in any call) would otherwise be that entry delivered, which is
        // RT-TOOL-2's as much as RT-TOOL-3 ¶1's, and a runtime that trims
        // could not be told from one that keeps dropped entries (trim-type
        // was named on 51 seeds of 60 with them, 5 of the 9 misses these).
        payload().prop_map(|mut p| {
            if p.as_object().is_some_and(Map::is_empty) {
                p["reason"] = json!("no type");
            }
            json!({"type": "", "payload": p})
        }),
        // No `payload`, sometimes with a near miss in its place.
        (artifact_type(), proptest::option::of(payload())).prop_map(|(t, p)| match p {
            Some(p) => json!({"type": t, "PAYLOAD": p}),
            None => json!({"type": t}),
        }),
        (artifact_type(), not_object_payload).prop_map(|(t, p)| json!({"type": t, "payload": p})),
    ]
    .boxed()
}

/// An entry of an `artifacts` array: 70 % [`well_formed_entry`], 30 %
/// [`malformed_entry`].
pub fn artifact_entry() -> BoxedStrategy<Value> {
    one_of![7 => well_formed_entry(), 3 => malformed_entry()].boxed()
}
