//! Untrusted JSON text read into a serde_json [`Value`], every object read
//! as the object it is.
//!
//! With `arbitrary_precision`, serde_json hands a visitor a number it
//! cannot hold as an `i64` or `u64` as a map of one entry: its private key
//! `"$serde_json::private::Number"`, and the number's text. `Value`'s own
//! `Deserialize` takes *any* map whose first key is that text for such a
//! number. So a tool that returned `{"$serde_json::private::Number": "12"}`
//! was read as `12`, its prose rendered as `12`; one that returned
//! `{"$serde_json::private::Number": "x"}` made a valid case refused as
//! invalid. No runtime in PHP, TypeScript or Python reads either so. With
//! `raw_value`, `Value` likewise takes a map whose first key is
//! `"$serde_json::private::RawValue"` for the JSON text its value holds
//! (`{"$serde_json::private::RawValue": "[1,2]"}` as `[1,2]`); no reader
//! hands a visitor such a map unless a `RawValue` is asked for, so here
//! it is always a key.
//!
//! The key's text cannot tell the two apart; how the value comes can. The
//! number's text comes as an owned `String` (`visit_string`), which
//! serde_json's readers of JSON text never use for a string of the text:
//! they lend it (`visit_borrowed_str`) or copy it out of its escapes
//! (`visit_str`). So [`Any`] reads such a map as a number only when its
//! value comes by `visit_string`. That holds for JSON text; a [`Value`]
//! read back as a deserializer (`serde_json::from_value`) hands every
//! string over as a `String`, so untrusted trees are never read that way.

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, Error, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Number, Value};

use super::parse::{parse, Refusal};

/// serde_json's private key for a number given as its text, which its
/// `Value` (with `arbitrary_precision`) takes for that number wherever it
/// is an object's first key.
pub const SERDE_NUMBER_KEY: &str = "$serde_json::private::Number";

/// serde_json's private key for raw JSON text, which its `Value` (with
/// `raw_value`) takes for the JSON its value holds wherever it is an
/// object's first key.
pub const SERDE_RAW_KEY: &str = "$serde_json::private::RawValue";

/// Parses one JSON document as [`parse`] does (the nesting bound, nothing
/// after it), into a [`Value`] in which every object of the text is an
/// object.
pub fn parse_value(bytes: &[u8]) -> Result<Value, Refusal> {
    parse(bytes)
}

/// Deserializes a [`Value`] from JSON text with every object of the text
/// read as an object: a field's `#[serde(deserialize_with = ...)]`.
pub fn value<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
    deserializer.deserialize_any(Any)
}

/// A [`Value`] read by [`value`], where a type is wanted (`next_value::<Json>`).
#[derive(Clone, Debug, PartialEq)]
pub struct Json(pub Value);

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Json, D::Error> {
        value(deserializer).map(Json)
    }
}

/// Reads any JSON value into a [`Value`], as serde_json's own visitor
/// does but for a map whose first key is [`SERDE_NUMBER_KEY`]: a number only if
/// its value is the number's own `String`.
pub(crate) struct Any;

impl<'de> DeserializeSeed<'de> for Any {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(Any)
    }
}

impl<'de> Visitor<'de> for Any {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E: Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_bool<E: Error>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E: Error>(self, n: i64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }

    fn visit_u64<E: Error>(self, n: u64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }

    fn visit_f64<E: Error>(self, n: f64) -> Result<Value, E> {
        Number::from_f64(n)
            .map(Value::Number)
            .ok_or_else(|| E::custom("not a JSON number"))
    }

    fn visit_str<E: Error>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_owned()))
    }

    fn visit_string<E: Error>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element_seed(Any)? {
            items.push(item);
        }
        // Grown by doubling, a list holds room for up to twice its items.
        items.shrink_to_fit();
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let Some(first) = map.next_key::<String>()? else {
            return Ok(Value::Object(Map::new()));
        };
        let value = if first == SERDE_NUMBER_KEY {
            match map.next_value_seed(AfterNumberKey)? {
                Read::Number(text) => {
                    return text.parse().map(Value::Number).map_err(A::Error::custom)
                }
                Read::Json(value) => value,
            }
        } else {
            map.next_value_seed(Any)?
        };
        // The entries are gathered first so that the map is made at its
        // size: grown an entry at a time, a map of a few keys holds room
        // for twice as many (a fifth of `check`'s peak on many small
        // objects). A repeated key keeps its last value where its first
        // stood, as serde_json's `Map` (with `preserve_order`) inserts it.
        let mut entries = vec![(first, value)];
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(Any)?;
            entries.push((key, value));
        }
        let mut object = Map::with_capacity(entries.len());
        object.extend(entries);
        Ok(Value::Object(object))
    }
}

/// What follows [`SERDE_NUMBER_KEY`]: a number's own text, or a value of the
/// JSON text (an object whose key is that text).
pub(crate) enum Read {
    Number(String),
    Json(Value),
}

/// Reads the value after [`SERDE_NUMBER_KEY`]: an owned `String` is a number's
/// text; anything else, a value read by [`Any`].
pub(crate) struct AfterNumberKey;

impl<'de> DeserializeSeed<'de> for AfterNumberKey {
    type Value = Read;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Read, D::Error> {
        deserializer.deserialize_any(AfterNumberKey)
    }
}

impl<'de> Visitor<'de> for AfterNumberKey {
    type Value = Read;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Any.expecting(f)
    }

    fn visit_string<E: Error>(self, s: String) -> Result<Read, E> {
        Ok(Read::Number(s))
    }

    fn visit_str<E: Error>(self, s: &str) -> Result<Read, E> {
        Any.visit_str(s).map(Read::Json)
    }

    fn visit_unit<E: Error>(self) -> Result<Read, E> {
        Any.visit_unit().map(Read::Json)
    }

    fn visit_bool<E: Error>(self, b: bool) -> Result<Read, E> {
        Any.visit_bool(b).map(Read::Json)
    }

    fn visit_i64<E: Error>(self, n: i64) -> Result<Read, E> {
        Any.visit_i64(n).map(Read::Json)
    }

    fn visit_u64<E: Error>(self, n: u64) -> Result<Read, E> {
        Any.visit_u64(n).map(Read::Json)
    }

    fn visit_f64<E: Error>(self, n: f64) -> Result<Read, E> {
        Any.visit_f64(n).map(Read::Json)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Read, A::Error> {
        Any.visit_seq(seq).map(Read::Json)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Read, A::Error> {
        Any.visit_map(map).map(Read::Json)
    }
}
