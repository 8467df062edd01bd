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
/// shape, a string, null, absent, a boolean, a number, any small JSON, a
/// deep value, text with
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
        // Rarely, far deeper: 100 to 200 levels, within every parser's
        // bound (PHP's 512) once the request wraps it.
        1 => (100usize..=200).prop_flat_map(deep_exactly).prop_map(Some),
        2 => (text(), select(DELIMITERS), text(), any::<bool>()).prop_map(|(a, d, b, wrap)| {
            let s = format!("{a}{d}{b}");
            Some(if wrap { json!({"result": s}) } else { Value::String(s) })
        }),
        // Prose of every length, and data that reads like an error, which
        // a runtime may take for a failed call.
        2 => prose_text().prop_map(|t| Some(json!({"result": t}))),
        1 => text().prop_map(|t| Some(Value::String(format!("Error: {t}")))),
        // A boolean or a number, which the rule's example never shows.
        1 => any::<bool>().prop_map(|b| Some(Value::Bool(b))),
        1 => number().prop_map(Some),
    ]
    .boxed()
}

/// Other frameworks' keys for a call's id, its name and its content.
pub const CALL_KEYS: &[&str] = &[
    "toolCallId",
    "tool_use_id",
    "call_id",
    "id",
    "name",
    "content_blocks",
    "structuredContent",
    "isTruncated",
];

/// Keys other frameworks give a tool's result beside its data: the rule
/// names none of them, so a runtime may do nothing with them but keep
/// them out of the prose and off the port.
pub const FRAMEWORK_KEYS: &[&[&str]] = &[
    crate::serve::TEXT_KEYS,
    crate::serve::META_KEYS,
    crate::serve::ATTACHMENT_KEYS,
    crate::serve::EXPOSURE_KEYS,
    crate::serve::ERROR_FLAG_KEYS,
    CALL_KEYS,
];

/// A key the rule never names, at a result's top level, with its value:
/// an arbitrary name holding a string (often prose-sized), an object, a
/// list, null or a number; or another framework's key for text, metadata, attachments (a
/// list of well-formed entries), exposure or failure ([`FRAMEWORK_KEYS`]).
/// Never `success`, `data`, `error` nor `artifacts`.
pub fn unknown_key() -> BoxedStrategy<(String, Value)> {
    let value = one_of![
        2 => prose_text().prop_map(Value::String),
        1 => text().prop_map(Value::String),
        1 => json(2),
        1 => vec(prose_text().prop_map(Value::String), 0..=3).prop_map(Value::Array),
        1 => Just(Value::Null),
        1 => number(),
    ];
    let named = |keys: &'static [&'static str]| select(keys).prop_map(str::to_owned);
    let pair = one_of![
        4 => (key(), value.clone()),
        2 => (named(crate::serve::TEXT_KEYS), prose_text().prop_map(Value::String)),
        2 => (named(crate::serve::META_KEYS), vec((key(), prose_text().prop_map(Value::String)), 1..=3))
            .prop_map(|(k, kv)| (k, object(kv))),
        2 => (named(crate::serve::ATTACHMENT_KEYS), vec(well_formed_entry(), 1..=2))
            .prop_map(|(k, v)| (k, Value::Array(v))),
        1 => (named(crate::serve::EXPOSURE_KEYS), any::<bool>()).prop_map(|(k, b)| (k, b.into())),
        1 => (named(crate::serve::ERROR_FLAG_KEYS), proptest::bool::weighted(0.8))
            .prop_map(|(k, b)| (k, b.into())),
        1 => (named(CALL_KEYS), value),
    ];
    pair.prop_map(|(k, v)| match k.as_str() {
        "success" | "data" | "error" | "artifacts" => (format!("{k}_"), v),
        _ => (k, v),
    })
    .boxed()
}

/// A result's `artifacts` (`None`: no `artifacts` key): absent, null, empty,
/// one to four [`artifact_entry`]s, up to two and a [`blob_entry`], or
/// (about one result in a hundred) up to two and a [`deep_entry`].
pub(super) fn artifacts_field() -> BoxedStrategy<Option<Value>> {
    let among = |special: BoxedStrategy<Value>| {
        (vec(artifact_entry(), 0..=2), special, any::<Index>()).prop_map(|(mut v, b, at)| {
            v.insert(at.index(v.len() + 1), b);
            Some(Value::Array(v))
        })
    };
    one_of![
        20 => Just(None),
        10 => Just(Some(Value::Null)),
        10 => Just(Some(json!([]))),
        60 => vec(artifact_entry(), 1..=4).prop_map(|v| Some(Value::Array(v))),
        // A file's content among them, of any size (payload sizes drawn
        // across their range, not at a few points).
        10 => among(blob_entry()),
        // A payload nested 64 levels deep or more, up to the deepest every
        // document holding it stays within the oracle's nesting bound.
        1 => among(deep_entry()),
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

/// A result's `error` (`None`: no `error` key): absent, null, text, and
/// about one in seven of each other JSON type, as tools write errors: a
/// flag, a code, a list of messages, an object with a code and a message.
/// Whatever its type, a successful call's `error` never reaches the prose,
/// and no type of it decides whether the call failed.
pub fn error() -> BoxedStrategy<Option<Value>> {
    one_of![
        3 => Just(None),
        2 => Just(Some(Value::Null)),
        1 => text().prop_map(|t| Some(Value::String(t))),
        1 => text().prop_map(|t| Some(Value::String(format!("Error: {t}")))),
        1 => any::<bool>().prop_map(|b| Some(Value::Bool(b))),
        1 => number().prop_map(Some),
        1 => vec(text().prop_map(Value::String), 0..=2).prop_map(|v| Some(Value::Array(v))),
        1 => (number(), text()).prop_map(|(code, t)| Some(json!({"code": code, "message": t}))),
    ]
    .boxed()
}

/// A strict-zone result with marks not yet replaced by ids.
pub(super) fn marked_result() -> BoxedStrategy<Value> {
    (
        proptest::bool::weighted(0.85),
        data(),
        error(),
        artifacts_field(),
        (
            one_of![8 => Just(vec![]), 1 => vec(decoy(), 1..=2)],
            one_of![3 => Just(vec![]), 2 => vec(unknown_key(), 1..=3)],
        )
            .prop_map(|(mut decoys, unknown)| {
                decoys.extend(unknown);
                decoys
            }),
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
