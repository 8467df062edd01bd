//! A case read as `verdict` reads it: its bulk (artifact payloads, and a
//! `data` that is an array or an object) left as the raw JSON text it came
//! in, with the same refusals as a case read whole.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::parse::{check_depth, parse, refusal, Refusal};
use super::refuse::CaseVisitor;
use super::shapes::{Case, RESERVED_KEY};
use super::surrogates::has_lone_surrogate;
use super::untrusted::Json;

/// Where artifact payloads go when they are left as raw text, if they are.
pub(super) type RawTable<'t, 'de> = Option<&'t RefCell<Vec<&'de RawValue>>>;

/// A case whose bulk (artifact payloads, and every `data` that is an array
/// or an object) was left as the raw JSON text it came in, never parsed into
/// one tree: the way `verdict` keeps a large case's memory near its size,
/// and every payload byte for byte as written.
///
/// In `case`, each such value is replaced by the placeholder
/// `{"\u0000": i}` (an object, as an object payload is for RT-TOOL-2),
/// where `i` indexes `raw`.
pub struct RawCase<'de> {
    /// The case, with placeholders for the bulk.
    pub case: Case,
    /// The bulk, as written.
    pub raw: Vec<&'de RawValue>,
}

/// The key of a payload placeholder.
pub const PLACEHOLDER: &str = "\u{0}";

impl<'de> RawCase<'de> {
    /// Parses a case as [`Case::from_json`] does (the same refusals), but
    /// leaves the bulk as raw text.
    pub fn from_json(bytes: &'de [u8]) -> Result<RawCase<'de>, Refusal> {
        check_depth(bytes)?;
        let table = RefCell::new(Vec::new());
        let mut de = serde_json::Deserializer::from_slice(bytes);
        de.disable_recursion_limit();
        let parsed = de
            .deserialize_map(CaseVisitor { raw: Some(&table) })
            .and_then(|case| de.end().map(|()| case));
        // A part parsed on its own (a string inside a result, say) reports
        // where it failed within that part; the whole case parsed as one
        // tree reports the line and column in the document.
        let case = parsed.map_err(|e| match parse::<Case>(bytes) {
            Err(whole) => whole,
            Ok(_) => refusal(e),
        })?;
        // The bulk left raw was checked as JSON, but serde_json checks a
        // `\u` escape's surrogate pairing only when it decodes the string;
        // the whole case, parsed as a tree, says where the lone one is.
        if has_lone_surrogate(bytes) {
            return Err(parse::<Case>(bytes).err().unwrap_or_else(|| {
                Refusal("a \\u escape is half of a surrogate pair without the other half".into())
            }));
        }
        Ok(RawCase {
            case,
            raw: table.into_inner(),
        })
    }

    /// The raw text a placeholder stands for.
    pub fn raw(&self, placeholder: &Value) -> Option<&'de RawValue> {
        let i = placeholder
            .as_object()
            .filter(|o| o.len() == 1)?
            .get(PLACEHOLDER)?
            .as_u64()?;
        self.raw.get(usize::try_from(i).ok()?).copied()
    }
}

/// Parses one part of an already depth-checked document.
fn part<'de, T: Deserialize<'de>>(text: &'de str) -> serde_json::Result<T> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let value = T::deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// One value of an already depth-checked document, every object of it an
/// object ([`Json`]).
fn part_value(text: &str) -> serde_json::Result<Value> {
    part::<Json>(text).map(|json| json.0)
}

/// A result with each artifact entry's object payload, and a `data` that is
/// an array or an object, swapped for a placeholder into `table`; everything
/// else parsed as it is.
pub(super) fn shallow_result<'de>(
    raw: &'de RawValue,
    table: &RefCell<Vec<&'de RawValue>>,
) -> serde_json::Result<Value> {
    let placeholder = |v: &'de RawValue| {
        let mut table = table.borrow_mut();
        table.push(v);
        serde_json::json!({ PLACEHOLDER: table.len() - 1 })
    };
    if !raw.get().starts_with('{') {
        return part_value(raw.get());
    }
    let mut result = serde_json::Map::new();
    for (key, field) in pairs(raw.get())? {
        let value = if key == "artifacts" && field.get().starts_with('[') {
            let mut entries = Vec::new();
            for entry in part::<Vec<&'de RawValue>>(field.get())? {
                if !entry.get().starts_with('{') {
                    entries.push(part_value(entry.get())?);
                    continue;
                }
                let mut fields = serde_json::Map::new();
                for (k, v) in pairs(entry.get())? {
                    let v = if k == "payload" && v.get().starts_with('{') {
                        placeholder(v)
                    } else {
                        part_value(v.get())?
                    };
                    fields.insert(k, v);
                }
                entries.push(Value::Object(fields));
            }
            Value::Array(entries)
        } else if key == "data" && field.get().starts_with('[') {
            placeholder(field)
        } else if key == "data" && field.get().starts_with('{') {
            // A `data` still carrying RT-TOOL-2's reserved key is rare and
            // changes the zone: it is read whole.
            if pairs(field.get())?.iter().any(|(k, _)| k == RESERVED_KEY) {
                part_value(field.get())?
            } else {
                placeholder(field)
            }
        } else {
            part_value(field.get())?
        };
        result.insert(key, value);
    }
    Ok(Value::Object(result))
}

/// The fields of a raw object, in order; a repeated key keeps its last value.
fn pairs(text: &str) -> serde_json::Result<Vec<(String, &RawValue)>> {
    struct Pairs;
    impl<'de> Visitor<'de> for Pairs {
        type Value = Vec<(String, &'de RawValue)>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut pairs: Vec<(String, &'de RawValue)> = Vec::new();
            // Where each key sits: a hostile object of 100,000 keys, looked
            // through one by one, took seconds.
            let mut index: HashMap<String, usize> = HashMap::new();
            while let Some((k, v)) = map.next_entry::<String, &'de RawValue>()? {
                match index.get(&k) {
                    Some(&at) => pairs[at].1 = v,
                    None => {
                        index.insert(k.clone(), pairs.len());
                        pairs.push((k, v));
                    }
                }
            }
            Ok(pairs)
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    de.deserialize_map(Pairs)
}
