//! The clause faults that rebuild the port, the exposure or the prose the
//! way another runtime's own loop over the results builds them: [`rebuilt`]
//! sends each to the function of its family.

use serde_json::{json, Value};

use super::outcome::{entry, kept};
use super::Fault;
use crate::model;
use crate::wire::Case;

/// The clause faults written as another runtime's own loop over the
/// results: the port, the exposure or the prose rebuilt the way that
/// runtime builds it.
pub(super) fn rebuilt(case: &Case, fault: Fault, value: &mut Value) {
    match fault {
        Fault::ResultId
        | Fault::DataId
        | Fault::DeepId
        | Fault::CamelCaseId
        | Fault::LastCallId => claimed_ids(case, fault, value),
        Fault::CaseInsensitiveKeys => case_insensitive_keys(case, value),
        Fault::LowercaseType
        | Fault::TrimType
        | Fault::DropNullKeys
        | Fault::EmptyObjectAsArray
        | Fault::ParseJsonStrings
        | Fault::StripProtoKeys
        | Fault::Int64AsString
        | Fault::SerdeNumberKey
        | Fault::PhpAssocArrays => cleaned_up(fault, value),
        Fault::DropEmptyPayload | Fault::DropUrlInData | Fault::DedupeAcrossCalls => {
            dropped_as_needless(case, fault, value)
        }
        Fault::ParseArtifactsString => parsed_artifacts_string(case, value),
        Fault::ExposeWithArtifacts => {
            let delivers = value["tool_artifacts"]
                .as_array()
                .is_some_and(|a| !a.is_empty());
            if case.exposed.is_none() && delivers {
                value["exposed"] = true.into();
            }
        }
        Fault::AlwaysHidden => value["exposed"] = false.into(),
        Fault::StringifyResult
        | Fault::ResultMinusArtifacts
        | Fault::ArtifactsWhenEmpty
        | Fault::ResourceLinkProse
        | Fault::ReservedListOnly => prose_from_more(case, fault, value),
        Fault::MergedProse => {
            let mut list = messages(value);
            let all: Vec<&str> = list.iter().filter_map(|m| m["content"].as_str()).collect();
            let joined = all.join("\n");
            for m in &mut list {
                m["content"] = joined.clone().into();
            }
            value["messages"] = Value::Array(list);
        }
        Fault::DropWhenAuthorHides | Fault::DropWhenUndecided => {
            let drops = match fault {
                Fault::DropWhenAuthorHides => case.exposed == Some(false),
                _ => case.exposed.is_none(),
            };
            if drops {
                value["tool_artifacts"] = json!([]);
            }
        }
        Fault::KeepEmptyType
        | Fault::TypeofObject
        | Fault::ErrorMeansFailure
        | Fault::LiftUnfiltered => refiltered(case, fault, value),
        Fault::StopAtOversize => {
            let list: Vec<Value> = kept(case)
                .take_while(|(_, e)| {
                    model::encoded_len(&e["payload"]) <= model::floors::PAYLOAD_BYTES
                })
                .map(|(call, e)| entry(&e["type"], &e["payload"], &call.tool_call_id))
                .collect();
            value["tool_artifacts"] = Value::Array(list);
        }
        _ => {}
    }
}

/// The messages of `value`, a copy.
fn messages(value: &Value) -> Vec<Value> {
    value["messages"].as_array().cloned().unwrap_or_default()
}

/// [`Fault::ResultId`], [`Fault::DataId`], [`Fault::DeepId`],
/// [`Fault::CamelCaseId`] and [`Fault::LastCallId`]: each artifact given
/// the id something other than its call claims for it (its result, its
/// `data`, its payload at any depth, its own `toolCallId`), or the last
/// call's.
fn claimed_ids(case: &Case, fault: Fault, value: &mut Value) {
    let last = case.calls.last().map(|c| c.tool_call_id.as_str());
    let list = kept(case)
        .map(|(call, e)| {
            let claimed = match fault {
                Fault::ResultId => call.result.get("tool_call_id"),
                Fault::DataId => call.result.get("data").and_then(|d| d.get("tool_call_id")),
                Fault::DeepId => first_key(&e["payload"], "tool_call_id"),
                Fault::CamelCaseId => e.get("toolCallId"),
                _ => None,
            };
            let id = match (claimed, last) {
                (Some(Value::String(id)), _) => id.as_str(),
                (_, Some(last)) if fault == Fault::LastCallId => last,
                _ => call.tool_call_id.as_str(),
            };
            entry(&e["type"], &e["payload"], id)
        })
        .collect();
    value["tool_artifacts"] = Value::Array(list);
}

/// [`Fault::CaseInsensitiveKeys`]: each entry's `type` and `payload` read
/// case-insensitively, the last spelling winning.
fn case_insensitive_keys(case: &Case, value: &mut Value) {
    let mut list = Vec::new();
    for call in &case.calls {
        let ok = call.result.get("success") == Some(&Value::Bool(true));
        let Some(Value::Array(entries)) = call.result.get("artifacts").filter(|_| ok) else {
            continue;
        };
        for e in entries.iter().filter_map(Value::as_object) {
            let last = |name: &str| {
                e.iter()
                    .rev()
                    .find(|(k, _)| k.to_lowercase() == name)
                    .map(|(_, v)| v)
            };
            let read = json!({"type": last("type"), "payload": last("payload")});
            if let Some((kind, payload)) = model::well_formed(&read) {
                list.push(entry(&kind.into(), payload, &call.tool_call_id));
            }
        }
    }
    value["tool_artifacts"] = Value::Array(list);
}

/// The faults that "clean up" what they deliver: a `type` lowercased or
/// trimmed, or a payload [`clean`]ed.
fn cleaned_up(fault: Fault, value: &mut Value) {
    for out in value["tool_artifacts"].as_array_mut().into_iter().flatten() {
        let kind = out["type"].as_str().unwrap_or_default();
        match fault {
            Fault::LowercaseType => out["type"] = kind.to_lowercase().into(),
            Fault::TrimType => out["type"] = kind.trim().into(),
            Fault::EmptyObjectAsArray => {
                for v in out["payload"].as_object_mut().into_iter().flatten() {
                    clean(v.1, fault);
                }
            }
            _ => clean(&mut out["payload"], fault),
        }
    }
}

/// [`Fault::DropEmptyPayload`], [`Fault::DropUrlInData`] and
/// [`Fault::DedupeAcrossCalls`]: an artifact dropped as needless, its
/// payload empty, its `url` in its call's prose already, or its equal
/// delivered by an earlier call.
fn dropped_as_needless(case: &Case, fault: Fault, value: &mut Value) {
    let mut earlier: Vec<&Value> = Vec::new();
    let mut list = Vec::new();
    for (c, call) in case.calls.iter().enumerate() {
        let prose = model::clause_3_prose(call).content;
        let mine: Vec<&Value> = kept(case)
            .filter(|(k, _)| k.tool_call_id == call.tool_call_id)
            .map(|(_, e)| e)
            .collect();
        for e in &mine {
            let payload = &e["payload"];
            let dropped = match fault {
                Fault::DropEmptyPayload => payload.as_object().is_some_and(|p| p.is_empty()),
                Fault::DropUrlInData => payload["url"]
                    .as_str()
                    .is_some_and(|url| prose.contains(url)),
                _ => earlier.iter().any(|x| {
                    x["type"] == e["type"]
                        && crate::judge::json_eq(&x["payload"], payload)
                            != crate::judge::Eq::Different
                }),
            };
            if !dropped {
                list.push(entry(&e["type"], payload, &case.calls[c].tool_call_id));
            }
        }
        earlier.extend(mine);
    }
    value["tool_artifacts"] = Value::Array(list);
}

/// [`Fault::ParseArtifactsString`]: a successful call's `artifacts` that is
/// a string holding a JSON list read as that list, its well-formed entries
/// delivered.
fn parsed_artifacts_string(case: &Case, value: &mut Value) {
    let mut extra = Vec::new();
    for call in &case.calls {
        let ok = call.result.get("success") == Some(&Value::Bool(true));
        if let Some(Value::String(text)) = call.result.get("artifacts").filter(|_| ok) {
            if let Ok(Value::Array(entries)) = serde_json::from_str::<Value>(text) {
                for (kind, payload) in entries.iter().filter_map(model::well_formed) {
                    extra.push(entry(&kind.into(), payload, &call.tool_call_id));
                }
            }
        }
    }
    if let Some(list) = value["tool_artifacts"].as_array_mut() {
        list.extend(extra);
    }
}

/// [`Fault::StringifyResult`], [`Fault::ResultMinusArtifacts`],
/// [`Fault::ArtifactsWhenEmpty`], [`Fault::ResourceLinkProse`] and
/// [`Fault::ReservedListOnly`]: a prose built from more than `data`:
/// the whole result, the result less its artifacts, the artifacts' strings
/// when `data` is empty, the prose with a link for each artifact's `url`,
/// or `data` rendered with its reserved key left in when that holds no
/// list.
fn prose_from_more(case: &Case, fault: Fault, value: &mut Value) {
    let mut list = messages(value);
    for (m, call) in list.iter_mut().zip(&case.calls) {
        let content = m["content"].as_str().unwrap_or_default().to_owned();
        let artifacts = kept(case).filter(|(k, _)| k.tool_call_id == call.tool_call_id);
        m["content"] = match fault {
            Fault::StringifyResult => call.result.to_string().into(),
            Fault::ResultMinusArtifacts => {
                let mut result = call.result.clone();
                if let Value::Object(r) = &mut result {
                    r.shift_remove("artifacts");
                }
                result.to_string().into()
            }
            Fault::ReservedListOnly => match call.result.get("data") {
                // The reference rendering of `data` with the reserved key
                // in: it holds two keys or more, or that key alone.
                Some(data @ Value::Object(o))
                    if o.get(model::RESERVED_KEY).is_some_and(|r| !r.is_array()) =>
                {
                    model::sorted_compact_json(data).into()
                }
                _ => continue,
            },
            Fault::ArtifactsWhenEmpty => {
                let empty = matches!(call.result.get("data"), None | Some(Value::Null))
                    || call.result["data"] == json!("");
                if !empty {
                    continue;
                }
                let mut strings = Vec::new();
                for (_, e) in artifacts {
                    crate::judge::strings(&e["payload"], &mut |s| strings.push(s.to_owned()));
                }
                strings.join(" ").into()
            }
            _ => {
                let mut content = content;
                for (_, e) in artifacts {
                    if let Some(url) = e["payload"]["url"].as_str() {
                        content.push_str(&format!(" [resource link: {url}]"));
                    }
                }
                content.into()
            }
        };
    }
    value["messages"] = Value::Array(list);
}

/// [`Fault::KeepEmptyType`], [`Fault::TypeofObject`],
/// [`Fault::ErrorMeansFailure`] and [`Fault::LiftUnfiltered`]: the port
/// rebuilt with RT-TOOL-2's filter read another way: an empty `type` or a
/// payload JavaScript's `typeof` takes for an object kept, a call failed
/// only by its `error`, or the entries under `data`'s reserved key lifted
/// unfiltered.
fn refiltered(case: &Case, fault: Fault, value: &mut Value) {
    let mut list = Vec::new();
    for call in &case.calls {
        let success = call.result.get("success");
        let ok = success == Some(&Value::Bool(true));
        let error = call.result.get("error").is_some_and(|e| !e.is_null());
        let (entries, delivers) = match fault {
            Fault::ErrorMeansFailure => (call.result.get("artifacts"), ok || !error),
            Fault::LiftUnfiltered => (call.result.get("artifacts"), ok),
            _ => (call.result.get("artifacts"), ok),
        };
        let Some(Value::Array(entries)) = entries.filter(|_| delivers) else {
            continue;
        };
        for e in entries {
            let (kind, payload) = (&e["type"], &e["payload"]);
            let keeps = model::well_formed(e).is_some()
                || match fault {
                    Fault::KeepEmptyType => kind == "" && payload.is_object(),
                    Fault::TypeofObject => {
                        kind.as_str().is_some_and(|k| !k.is_empty())
                            && (payload.is_array() || payload.is_null())
                            && e.get("payload").is_some()
                    }
                    _ => false,
                };
            if keeps {
                list.push(entry(kind, payload, &call.tool_call_id));
            }
        }
        let reserved = call
            .result
            .get("data")
            .filter(|d| d.is_object())
            .and_then(|d| d.get(model::RESERVED_KEY));
        if let (Fault::LiftUnfiltered, true, Some(Value::Array(lifted))) = (fault, ok, reserved) {
            for e in lifted
                .iter()
                .filter(|e| e.get("type").is_some() && e.get("payload").is_some())
            {
                list.push(entry(&e["type"], &e["payload"], &call.tool_call_id));
            }
        }
    }
    value["tool_artifacts"] = Value::Array(list);
}

/// The first value under `key` in `v`, depth first, in document order.
fn first_key<'v>(v: &'v Value, key: &str) -> Option<&'v Value> {
    match v {
        Value::Object(m) => m.iter().find_map(|(k, x)| {
            if k == key && x.is_string() {
                Some(x)
            } else {
                first_key(x, key)
            }
        }),
        Value::Array(a) => a.iter().find_map(|x| first_key(x, key)),
        _ => None,
    }
}

/// The number an object spells for serde_json's `Value` with
/// `arbitrary_precision`: its first key `$serde_json::private::Number`,
/// its value the number's text.
fn spelled_number(m: &serde_json::Map<String, Value>) -> Option<serde_json::Number> {
    let (key, text) = m.iter().next()?;
    if key != crate::wire::SERDE_NUMBER_KEY {
        return None;
    }
    text.as_str()?.parse().ok()
}

/// A payload "cleaned up" the way `fault` cleans it, at every depth.
fn clean(v: &mut Value, fault: Fault) {
    match v {
        Value::Object(m) if fault == Fault::EmptyObjectAsArray && m.is_empty() => {
            *v = json!([]);
        }
        Value::Object(m) => {
            if let Some(n) = spelled_number(m).filter(|_| fault == Fault::SerdeNumberKey) {
                *v = Value::Number(n);
                return;
            }
            let list = !m.is_empty() && m.keys().enumerate().all(|(i, k)| *k == i.to_string());
            if list && fault == Fault::PhpAssocArrays {
                let mut items: Vec<Value> = std::mem::take(m).into_values().collect();
                items.iter_mut().for_each(|x| clean(x, fault));
                *v = Value::Array(items);
                return;
            }
            m.retain(|k, x| match fault {
                Fault::DropNullKeys => !x.is_null(),
                Fault::StripProtoKeys => k != "__proto__" && k != "constructor",
                _ => true,
            });
            m.values_mut().for_each(|x| clean(x, fault));
        }
        Value::Array(a) => a.iter_mut().for_each(|x| clean(x, fault)),
        Value::String(s) if fault == Fault::ParseJsonStrings => {
            if let Ok(parsed) = serde_json::from_str::<Value>(s) {
                *v = parsed;
            }
        }
        Value::Number(n) if fault == Fault::Int64AsString => {
            let text = n.to_string();
            let int = text.bytes().all(|b| b.is_ascii_digit() || b == b'-');
            if int
                && text
                    .parse::<i64>()
                    .map_or(true, |i| i32::try_from(i).is_err())
            {
                *v = Value::String(text);
            }
        }
        _ => {}
    }
}
