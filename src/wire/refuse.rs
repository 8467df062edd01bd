//! A case read, and the invalid part of the domain refused: the wrong shape,
//! an unknown or duplicated field, `exposed` neither a boolean nor null, a
//! call id that is not a string, two calls with one id (RT-TOOL-9); each
//! refusal naming the field and the call.

use std::collections::HashMap;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

use super::shapes::{Call, Case};
use super::untrusted::Json;
use super::view::{JsonRef, Node};

impl<'de> Deserialize<'de> for Case {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Case, D::Error> {
        d.deserialize_map(CaseVisitor { results: Trees })
    }
}

/// How a case's reader reads each call's `result`: the rest of the case
/// is read, and refused, the same whichever way its results are held.
pub(super) trait Results<'de> {
    /// What a result is read into.
    type Result;
    /// Reads the value of the `result` field `map` is at.
    fn read<A: MapAccess<'de>>(&mut self, map: &mut A) -> Result<Self::Result, A::Error>;
}

/// Each result read into a `Value` tree of its own.
struct Trees;

impl<'de> Results<'de> for Trees {
    type Result = Value;

    fn read<A: MapAccess<'de>>(&mut self, map: &mut A) -> Result<Value, A::Error> {
        map.next_value::<Json>().map(|json| json.0)
    }
}

pub(super) struct CaseVisitor<R> {
    pub(super) results: R,
}

impl<'de, R: Results<'de>> Visitor<'de> for CaseVisitor<R> {
    type Value = Case<R::Result>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a case: an object with `calls` and an optional `exposed`")
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut exposed: Option<Option<bool>> = None;
        let mut calls: Option<Vec<Call<R::Result>>> = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "exposed" if exposed.is_some() => {
                    return Err(de::Error::duplicate_field("exposed"))
                }
                "calls" if calls.is_some() => return Err(de::Error::duplicate_field("calls")),
                "exposed" => {
                    exposed = Some(match map.next_value::<Json>()?.0 {
                        Value::Null => None,
                        Value::Bool(b) => Some(b),
                        other => {
                            return Err(de::Error::custom(format_args!(
                                "`exposed` must be true, false or null, not {}",
                                kind(&other)
                            )))
                        }
                    })
                }
                "calls" => {
                    calls = Some(map.next_value_seed(CallsSeed {
                        results: &mut self.results,
                    })?)
                }
                _ => {
                    return Err(de::Error::custom(format_args!(
                        "unknown top-level field `{key}` (a case has only `exposed` and `calls`)"
                    )))
                }
            }
        }
        let calls = calls.ok_or_else(|| de::Error::missing_field("calls"))?;
        Ok(Case {
            exposed: exposed.flatten(),
            calls,
        })
    }
}

struct CallsSeed<'r, R> {
    results: &'r mut R,
}

impl<'de, R: Results<'de>> DeserializeSeed<'de> for CallsSeed<'_, R> {
    type Value = Vec<Call<R::Result>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, R: Results<'de>> Visitor<'de> for CallsSeed<'_, R> {
    type Value = Vec<Call<R::Result>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`calls` to be an array of calls")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut calls = Vec::new();
        let mut seen: HashMap<String, usize> = HashMap::new();
        while let Some(call) = seq.next_element_seed(CallSeed {
            index: calls.len(),
            results: &mut *self.results,
        })? {
            if let Some(first) = seen.insert(call.tool_call_id.clone(), calls.len()) {
                return Err(de::Error::custom(format_args!(
                    "calls[{}] reuses tool_call_id {:?} of calls[{first}]; two calls with one id are not a case (RT-TOOL-9)",
                    calls.len(),
                    call.tool_call_id
                )));
            }
            calls.push(call);
        }
        Ok(calls)
    }
}

struct CallSeed<'r, R> {
    index: usize,
    results: &'r mut R,
}

impl<'de, R: Results<'de>> DeserializeSeed<'de> for CallSeed<'_, R> {
    type Value = Call<R::Result>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, R: Results<'de>> Visitor<'de> for CallSeed<'_, R> {
    type Value = Call<R::Result>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "calls[{}] to be an object with `tool_call_id` and `result`",
            self.index
        )
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let i = self.index;
        let mut id: Option<String> = None;
        let mut result: Option<R::Result> = None;
        while let Some(key) = map.next_key::<String>()? {
            let duplicate = match key.as_str() {
                "tool_call_id" => id.is_some(),
                "result" => result.is_some(),
                _ => false,
            };
            if duplicate {
                return Err(de::Error::custom(format_args!(
                    "calls[{i}] has a duplicate field `{key}`"
                )));
            }
            match key.as_str() {
                "tool_call_id" => match map.next_value::<Json>()?.0 {
                    Value::String(s) => id = Some(s),
                    other => {
                        return Err(de::Error::custom(format_args!(
                            "calls[{i}].tool_call_id must be a string, not {}",
                            kind(&other)
                        )))
                    }
                },
                "result" => result = Some(self.results.read(&mut map)?),
                _ => return Err(de::Error::custom(format_args!(
                    "calls[{i}] has an unknown field `{key}` (a call has only `tool_call_id` and `result`)"
                ))),
            }
        }
        let Some(tool_call_id) = id else {
            return Err(de::Error::custom(format_args!(
                "calls[{i}] is missing field `tool_call_id`"
            )));
        };
        let Some(result) = result else {
            return Err(de::Error::custom(format_args!(
                "calls[{i}] (tool_call_id {tool_call_id:?}) is missing field `result`"
            )));
        };
        Ok(Call {
            tool_call_id,
            result,
        })
    }
}

/// The JSON type of a value, as a person names it ("a string", "an object").
pub fn kind<'a>(v: impl JsonRef<'a>) -> &'static str {
    match v.node() {
        Node::Null => "null",
        Node::Bool(_) => "a boolean",
        Node::Number(_) => "a number",
        Node::String(_) => "a string",
        Node::Array(_) => "an array",
        Node::Object(_) => "an object",
    }
}
