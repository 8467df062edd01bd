//! Results whose every place takes every JSON type: `success`, `data`,
//! `error`, `artifacts`, an entry's `type`, `payload` and `tool_call_id`,
//! the reserved key of `data`, and keys the rule never names. A runtime
//! written for the usual types (a list of entries, a string `error`) meets
//! each place in each of the six, and the oracle is held to seeing what it
//! does with each.

use super::*;

/// The six types of a JSON value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum JsonType {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool,
    /// A number.
    Number,
    /// A string.
    String,
    /// An array.
    Array,
    /// An object.
    Object,
}

impl JsonType {
    /// Every type, in the order of RFC 8259's grammar of values.
    pub const ALL: [JsonType; 6] = [
        JsonType::Null,
        JsonType::Bool,
        JsonType::Number,
        JsonType::String,
        JsonType::Array,
        JsonType::Object,
    ];

    /// The type of `v`.
    pub fn of(v: &Value) -> JsonType {
        match v {
            Value::Null => JsonType::Null,
            Value::Bool(_) => JsonType::Bool,
            Value::Number(_) => JsonType::Number,
            Value::String(_) => JsonType::String,
            Value::Array(_) => JsonType::Array,
            Value::Object(_) => JsonType::Object,
        }
    }
}

/// A string for a typed place: a short [`text`] (often under the 8
/// characters a leak is looked for from), a URL, a file name, a canary, or
/// prose-sized text.
pub fn typed_string() -> BoxedStrategy<String> {
    one_of![
        3 => text(),
        2 => url(),
        1 => file_name(),
        2 => canary(),
        1 => prose_text(),
    ]
    .boxed()
}

/// A value of type `t`: null, a boolean, a [`number`], a
/// [`typed_string`], or an array or object of up to three items, each a
/// string, a scalar or a container of strings one level down.
pub fn of_type(t: JsonType) -> BoxedStrategy<Value> {
    let string = || typed_string().prop_map(Value::String);
    let item = || {
        one_of![
            3 => string(),
            2 => scalar(),
            1 => vec(string(), 0..=2).prop_map(Value::Array),
            1 => vec((key(), string()), 0..=2).prop_map(object),
        ]
    };
    match t {
        JsonType::Null => Just(Value::Null).boxed(),
        JsonType::Bool => any::<bool>().prop_map(Value::Bool).boxed(),
        JsonType::Number => number(),
        JsonType::String => string().boxed(),
        JsonType::Array => vec(item(), 0..=3).prop_map(Value::Array).boxed(),
        JsonType::Object => vec((key(), item()), 0..=3).prop_map(object).boxed(),
    }
}

/// A value of any of the six types, each as likely.
pub fn any_type() -> BoxedStrategy<Value> {
    let [null, boolean, num, string, array, obj] = JsonType::ALL.map(of_type);
    one_of![null, boolean, num, string, array, obj].boxed()
}

/// A value of any type, or none (`None`: the key is left out).
fn maybe_any() -> BoxedStrategy<Option<Value>> {
    one_of![1 => Just(None), 6 => any_type().prop_map(Some)].boxed()
}

/// An entry whose `type`, `payload` and `tool_call_id` each take any type
/// or are absent: mostly the type RT-TOOL-2 keeps (a non-empty string, an
/// object), so that well-formed entries come often, with a spoofed id, and
/// sometimes a near-miss or other key of any type.
pub fn typed_entry() -> BoxedStrategy<Value> {
    (
        one_of![3 => artifact_type().prop_map(|t| Some(Value::String(t))), 2 => maybe_any()],
        one_of![3 => payload().prop_map(Some), 2 => maybe_any()],
        one_of![1 => Just(None), 1 => spoofed_id().prop_map(Some), 2 => maybe_any()],
        proptest::option::weighted(
            0.3,
            (
                one_of![select(NEAR_MISS_KEYS).prop_map(str::to_owned), key()],
                any_type(),
            ),
        ),
    )
        .prop_map(|(kind, payload, id, extra)| {
            let mut m = Map::new();
            let keys = [("type", kind), ("payload", payload), ("tool_call_id", id)];
            for (k, v) in keys {
                if let Some(v) = v {
                    m.insert(k.into(), v);
                }
            }
            if let Some((k, v)) = extra {
                m.entry(k).or_insert(v);
            }
            Value::Object(m)
        })
        .boxed()
}

/// A place that holds a list of entries (a result's `artifacts`, the
/// reserved key of `data`) in type `t`: an array of [`typed_entry`]s and
/// values of any type; one entry, a map of entries or any object; a text,
/// or the JSON text of a list of entries; or a scalar.
pub fn typed_entries(t: JsonType) -> BoxedStrategy<Value> {
    match t {
        JsonType::Array => vec(one_of![3 => typed_entry(), 1 => any_type()], 0..=4)
            .prop_map(Value::Array)
            .boxed(),
        JsonType::Object => one_of![
            typed_entry(),
            vec((key(), typed_entry()), 1..=2).prop_map(object),
            of_type(JsonType::Object),
        ]
        .boxed(),
        JsonType::String => one_of![
            of_type(JsonType::String),
            vec(typed_entry(), 1..=2).prop_map(|v| Value::String(Value::Array(v).to_string())),
        ]
        .boxed(),
        scalar => of_type(scalar),
    }
}

/// [`typed_entries`] of any type, each as likely.
fn any_entries() -> BoxedStrategy<Value> {
    let [null, boolean, num, string, array, obj] = JsonType::ALL.map(typed_entries);
    one_of![null, boolean, num, string, array, obj].boxed()
}

/// A result whose every place takes every JSON type, each type about as
/// likely (see [`JsonType`]): `success` (`true` half the time, so that the
/// artifacts are kept), `data` (an object carrying the reserved key, of
/// [`typed_entries`], in about a third of results), `error`, `artifacts`
/// ([`typed_entries`]), and up to two other keys, decoys or keys the rule
/// never names. A result that is not an object comes too, one in twenty.
/// Spoofed ids are marks until [`typed_case`] makes them ids.
pub fn typed_result() -> BoxedStrategy<Value> {
    let data = one_of![
        2 => maybe_any(),
        1 => (vec((key(), any_type()), 0..=2), any_entries()).prop_map(|(members, reserved)| {
            let mut m: Map<String, Value> = members.into_iter().collect();
            m.insert(RESERVED_KEY.into(), reserved);
            Some(Value::Object(m))
        }),
    ];
    let other = (
        one_of![select(DECOY_KEYS).prop_map(str::to_owned), key()],
        any_type(),
    );
    let object = (
        one_of![1 => Just(Value::Bool(true)), 1 => any_type()],
        data,
        maybe_any(),
        one_of![1 => Just(None), 6 => any_entries().prop_map(Some)],
        vec(other, 0..=2),
    )
        .prop_map(|(success, data, error, artifacts, others)| {
            let mut m = Map::new();
            m.insert("success".into(), success);
            let places = [("data", data), ("error", error), ("artifacts", artifacts)];
            for (k, v) in places {
                if let Some(v) = v {
                    m.insert(k.into(), v);
                }
            }
            for (k, v) in others {
                m.entry(k).or_insert(v);
            }
            Value::Object(m)
        });
    one_of![19 => object, 1 => any_type()].boxed()
}

/// A case of one to three calls of [`typed_result`]s, ids unique and marks
/// made ids: [`typed_result`] as [`case`] draws a result.
pub fn typed_case() -> BoxedStrategy<Case> {
    (exposed(), vec((call_id(), typed_result()), 1..=3))
        .prop_map(|(e, raw)| assemble(e, raw))
        .boxed()
}

/// The places of a result [`typed_result`] draws in every type, as
/// [`typed_places`] names them: the result itself, its `success`, `data`,
/// `error` and `artifacts`, the reserved key of `data`, each entry's
/// `type`, `payload` and `tool_call_id`, and any other key of the result.
pub const TYPED_PLACES: [&str; 10] = [
    "result",
    "success",
    "data",
    "error",
    "artifacts",
    "reserved",
    "type",
    "payload",
    "tool_call_id",
    "other",
];

/// Each place ([`TYPED_PLACES`]) a result holds a value at, with that value's
/// type: `("reserved", JsonType::Object)` for a `data` whose reserved key
/// holds an object. An entry's places are read in an `artifacts` array.
pub fn typed_places(result: &Value) -> Vec<(&'static str, JsonType)> {
    let mut found = vec![("result", JsonType::of(result))];
    let mut at = |place: &'static str, v: Option<&Value>| {
        found.extend(v.map(|v| (place, JsonType::of(v))));
    };
    for key in ["success", "data", "error", "artifacts"] {
        at(key, result.get(key));
    }
    let data = result.get("data").filter(|d| d.is_object());
    at("reserved", data.and_then(|d| d.get(RESERVED_KEY)));
    let entries = result.get("artifacts").and_then(Value::as_array);
    for e in entries.into_iter().flatten() {
        for key in ["type", "payload", "tool_call_id"] {
            at(key, e.get(key));
        }
    }
    for (k, v) in result.as_object().into_iter().flatten() {
        if !["success", "data", "error", "artifacts"].contains(&k.as_str()) {
            at("other", Some(v));
        }
    }
    found
}

/// RT-TOOL-2's reserved key, which [`typed_result`] puts in `data`.
const RESERVED_KEY: &str = crate::wire::RESERVED_KEY;

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// Every place of a result takes every JSON type within 400 cases,
    /// and a string under the reserved key is there to be leaked.
    #[test]
    fn every_place_takes_every_type() {
        let strategy = typed_case();
        let mut seen = BTreeSet::new();
        let mut long_reserved = 0;
        for i in 0..400 {
            let case = case_at(&strategy, 7, i).expect("drawn");
            for call in &case.calls {
                seen.extend(typed_places(&call.result));
                let reserved = call.result.get("data").and_then(|d| d.get(RESERVED_KEY));
                let mut long = false;
                crate::judge::strings(reserved.unwrap_or(&Value::Null), &mut |s| {
                    long |= s.chars().count() >= 8;
                });
                long_reserved += usize::from(long);
            }
        }
        for place in TYPED_PLACES {
            for t in JsonType::ALL {
                assert!(seen.contains(&(place, t)), "{place} never {t:?}");
            }
        }
        assert!(long_reserved >= 40, "{long_reserved}");
    }
}
