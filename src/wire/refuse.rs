//! A case read, and the invalid part of the domain refused: the wrong shape,
//! an unknown or duplicated field, `exposed` neither a boolean nor null, a
//! call id that is not a string, two calls with one id (RT-TOOL-9); each
//! refusal naming the field and the call.

use std::collections::HashMap;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::raw::{shallow_result, RawTable};
use super::shapes::{Call, Case};
use super::untrusted::Json;

impl<'de> Deserialize<'de> for Case {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Case, D::Error> {
        d.deserialize_map(CaseVisitor { raw: None })
    }
}

pub(super) struct CaseVisitor<'t, 'de> {
    pub(super) raw: RawTable<'t, 'de>,
}

impl<'de> Visitor<'de> for CaseVisitor<'_, 'de> {
    type Value = Case;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a case: an object with `calls` and an optional `exposed`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Case, A::Error> {
        let mut exposed: Option<Option<bool>> = None;
        let mut calls: Option<Vec<Call>> = None;
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
                "calls" => calls = Some(map.next_value_seed(CallsSeed { raw: self.raw })?),
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

struct CallsSeed<'t, 'de> {
    raw: RawTable<'t, 'de>,
}

impl<'de> DeserializeSeed<'de> for CallsSeed<'_, 'de> {
    type Value = Vec<Call>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<Call>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for CallsSeed<'_, 'de> {
    type Value = Vec<Call>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`calls` to be an array of calls")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Call>, A::Error> {
        let mut calls = Vec::new();
        let mut seen: HashMap<String, usize> = HashMap::new();
        while let Some(call) = seq.next_element_seed(CallSeed {
            index: calls.len(),
            raw: self.raw,
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

struct CallSeed<'t, 'de> {
    index: usize,
    raw: RawTable<'t, 'de>,
}

impl<'de> DeserializeSeed<'de> for CallSeed<'_, 'de> {
    type Value = Call;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Call, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for CallSeed<'_, 'de> {
    type Value = Call;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "calls[{}] to be an object with `tool_call_id` and `result`",
            self.index
        )
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Call, A::Error> {
        let i = self.index;
        let mut id: Option<String> = None;
        let mut result: Option<Value> = None;
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
                "result" => {
                    result = Some(match self.raw {
                        None => map.next_value::<Json>()?.0,
                        Some(table) => {
                            let raw: &'de RawValue = map.next_value()?;
                            shallow_result(raw, table).map_err(de::Error::custom)?
                        }
                    })
                }
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
pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
