//! Results: `data` in its shapes, the `artifacts` field, failed calls,
//! result-level decoys, and strings shared by `data` and an artifact.

use super::*;

/// Result-level keys that look like prose or like a call id, and are neither
/// `success`, `data` nor `error`: the prose must never be read from them.
pub const DECOY_KEYS: &[&str] = &[
    "content",
    "prose",
    "message",
    "tool_call_id",
    "artifacts_text",
];

/// Strings that look like the boundary of an artifact section, placed in
/// `data` to tempt a runtime that splits prose from artifacts by text.
pub const DELIMITERS: &[&str] = &[
    "</tool_artifacts>",
    "<tool_artifacts>",
    "---",
    "{\"type\":\"link\"",
    "[ARTIFACT]",
    "```json",
    "\n\nArtifacts:\n",
    "\"tool_call_id\":\"c2\"",
    "]}",
];

/// A result's `data` (`None`: no `data` key): the rule's `{"result": …}`
/// shape, a string, null, absent, any small JSON, a deep value, text with
/// a delimiter-like string ([`DELIMITERS`]), typed content blocks the way MCP
/// writes a tool's output (`[{"type": "text", …}, {"type":
/// "resource_link", …}]`), or `{"result": …}` carrying a `tool_call_id` of
/// its own, at the top or one object down (a sibling's, the call's own, or
/// no call's). Never a canary, and never RT-TOOL-2's reserved `artifacts`
/// key (that is a lenient twist).
pub fn data() -> BoxedStrategy<Option<Value>> {
    one_of![
        1 => (text(), url()).prop_map(|(t, u)| Some(json!([
            {"type": "text", "text": t},
            {"type": "resource_link", "uri": u, "name": "result"},
        ]))),
        2 => (text(), data_id(), any::<bool>()).prop_map(|(t, id, nested)| Some(if nested {
            json!({"result": t, "meta": {"tool_call_id": id}})
        } else {
            json!({"result": t, "tool_call_id": id})
        })),
        4 => text().prop_map(|t| Some(json!({"result": t}))),
        2 => text().prop_map(|t| Some(Value::String(t))),
        1 => Just(Some(Value::Null)),
        1 => Just(None),
        3 => json(3).prop_map(Some),
        1 => deep(20).prop_map(Some),
        2 => (text(), select(DELIMITERS), text(), any::<bool>()).prop_map(|(a, d, b, wrap)| {
            let s = format!("{a}{d}{b}");
            Some(if wrap { json!({"result": s}) } else { Value::String(s) })
        }),
    ]
    .boxed()
}

/// A result's `artifacts` (`None`: no `artifacts` key): absent, null, empty,
/// or one to four [`artifact_entry`]s.
pub(super) fn artifacts_field() -> BoxedStrategy<Option<Value>> {
    one_of![
        2 => Just(None),
        1 => Just(Some(Value::Null)),
        1 => Just(Some(json!([]))),
        6 => vec(artifact_entry(), 1..=4).prop_map(|v| Some(Value::Array(v))),
    ]
    .boxed()
}

/// A result-level decoy: one of [`DECOY_KEYS`] holding a canary, text around
/// a canary, a sibling's id, or an artifact list written out as text.
pub fn decoy() -> BoxedStrategy<(String, Value)> {
    let value = one_of![
        canary().prop_map(Value::String),
        canary().prop_map(|c| Value::String(format!("Artifact saved at https://{c}.example/"))),
        (0usize..4).prop_map(|k| Value::String(format!("{MARK_SIBLING}{k}"))),
        canary().prop_map(|c| {
            Value::String(json!([{"type": "link", "payload": {"url": c}}]).to_string())
        }),
    ];
    (select(DECOY_KEYS), value)
        .prop_map(|(k, v)| (k.to_owned(), v))
        .boxed()
}

/// A strict-zone result with marks not yet replaced by ids.
pub(super) fn marked_result() -> BoxedStrategy<Value> {
    (
        proptest::bool::weighted(0.85),
        data(),
        one_of![
            3 => Just(None),
            2 => Just(Some(Value::Null)),
            1 => text().prop_map(|t| Some(Value::String(t))),
        ],
        artifacts_field(),
        one_of![8 => Just(vec![]), 1 => vec(decoy(), 1..=2)],
        one_of![5 => Just(None), 1 => one_of![url(), file_name()].prop_map(Some)],
        one_of![10 => Just(None), 1 => data_id().prop_map(Some)],
    )
        .prop_map(|(success, data, error, artifacts, decoys, shared, id)| {
            let mut data = data;
            let mut artifacts = artifacts;
            if let Some(shared) = shared {
                share(&shared, &mut data, &mut artifacts);
            }
            let mut m = Map::new();
            m.insert("success".into(), success.into());
            if let Some(data) = data {
                m.insert("data".into(), data);
            }
            if let Some(error) = error {
                m.insert("error".into(), error);
            }
            if let Some(artifacts) = artifacts {
                m.insert("artifacts".into(), artifacts);
            }
            m.extend(decoys);
            if let Some(id) = id {
                m.insert("tool_call_id".into(), id);
            }
            Value::Object(m)
        })
        .boxed()
}

/// Puts one string both in `data` and in a new artifact's payload.
pub(super) fn share(shared: &str, data: &mut Option<Value>, artifacts: &mut Option<Value>) {
    let is_url = shared.starts_with("https://");
    let key = if is_url { "url" } else { "name" };
    match data {
        Some(Value::Object(m)) => {
            m.insert(key.into(), shared.into());
        }
        Some(Value::String(s)) => {
            s.push(' ');
            s.push_str(shared);
        }
        _ => *data = Some(json!({"result": format!("Created {shared}")})),
    }
    let entry = json!({"type": if is_url { "link" } else { "file" }, "payload": {key: shared}});
    match artifacts {
        Some(Value::Array(entries)) => entries.push(entry),
        _ => *artifacts = Some(Value::Array(vec![entry])),
    }
}

/// A strict-zone result for the call `own_id`, whose siblings in the case
/// are `sibling_ids`: an object with a boolean `success` (true 85 % of the
/// time), a [`data`], sometimes an `error`, `artifacts` absent, null or an
/// array of [`artifact_entry`]s, sometimes [`decoy`]s, and sometimes a URL
/// or file name shared by `data` and an artifact. Spoofed ids name the
/// siblings (or a call that does not exist, when there is none).
pub fn result(own_id: &str, sibling_ids: &[String]) -> BoxedStrategy<Value> {
    let own = own_id.to_owned();
    let siblings = sibling_ids.to_vec();
    marked_result()
        .prop_map(move |mut v| {
            resolve(&mut v, &own, &siblings);
            v
        })
        .boxed()
}
