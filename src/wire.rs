//! The wire contract: a case and an outcome, exactly the JSON shapes of
//! READING.md ("The wire contract").
//!
//! A [`Case`] is one node invocation: the author's `exposed` choice for the
//! `tool_artifacts` port and the calls the model issued, each with whatever
//! JSON its tool returned. An [`Outcome`] is what a node produced for it.
//!
//! Parsing a case is where the *invalid* part of the domain is refused, so
//! that no implementation ever sees such a case. The refusals are: not the
//! shape below, an unknown field, `exposed` neither a boolean nor null, a call
//! id that is not a string, and two calls with one id (RT-TOOL-9). Each
//! refusal names the field and the call, and serde_json adds the line and
//! column. Everything inside a `result` is untrusted and accepted as it is:
//! key order and every digit of every number are kept (serde_json's
//! `preserve_order` and `arbitrary_precision`). Within one JSON object inside a
//! `result`, a duplicated key keeps its *last* value; the case's own fields
//! (`exposed`, `calls`, `tool_call_id`, `result`) may not be duplicated.

use std::collections::HashMap;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One node invocation: the input of the rule.
#[derive(Clone, PartialEq, Serialize)]
pub struct Case {
    /// The author's instance choice for the `tool_artifacts` port: `Some(true)`
    /// exposes it, `Some(false)` hides it, `None` (JSON `null` or absent)
    /// leaves it at the node type's default.
    pub exposed: Option<bool>,
    /// The calls of this invocation, in the order the model issued them.
    pub calls: Vec<Call>,
}

/// One tool call and the untrusted JSON its tool returned.
#[derive(Clone, PartialEq, Serialize)]
pub struct Call {
    /// The call's real id, assigned by the node (never by the tool).
    pub tool_call_id: String,
    /// Whatever the tool returned: any JSON at all.
    pub result: Value,
}

/// What a node produced for a case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Outcome {
    /// One message per call, in call order: the prose the model reads back.
    pub messages: Vec<Message>,
    /// Every call's kept artifacts: the `tool_artifacts` port.
    pub tool_artifacts: Vec<ToolArtifact>,
    /// Whether the author sees the `tool_artifacts` port.
    pub exposed: bool,
}

/// The prose fed back to the model for one call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Message {
    /// The call this message answers.
    pub tool_call_id: String,
    /// The prose itself.
    pub content: String,
}

/// One entry on the `tool_artifacts` port: exactly `{type, payload, tool_call_id}`.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolArtifact {
    /// The artifact's own `type`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The artifact's own `payload`, unchanged.
    pub payload: Value,
    /// The id of the call that produced the artifact.
    pub tool_call_id: String,
}

/// Debug output in the domain's notation: the call id, then the artifact.
impl fmt::Debug for ToolArtifact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}⟨{} {}⟩", self.tool_call_id, self.kind, self.payload)
    }
}

impl fmt::Debug for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} → {}", self.tool_call_id, self.result)
    }
}

impl fmt::Debug for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let exposed = match self.exposed {
            Some(b) => b.to_string(),
            None => "default".into(),
        };
        f.debug_struct("Case")
            .field("exposed", &format_args!("{exposed}"))
            .field("calls", &self.calls)
            .finish()
    }
}

impl Case {
    /// Parses a case from JSON bytes, refusing the invalid part of the domain.
    ///
    /// The error's text is one line: what is wrong, where (field and call),
    /// and serde_json's line and column.
    pub fn from_json(bytes: &[u8]) -> Result<Case, serde_json::Error> {
        serde_json::from_slice(bytes)
    }
}

impl<'de> Deserialize<'de> for Case {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Case, D::Error> {
        d.deserialize_map(CaseVisitor)
    }
}

struct CaseVisitor;

impl<'de> Visitor<'de> for CaseVisitor {
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
                    exposed = Some(match map.next_value::<Value>()? {
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
                "calls" => calls = Some(map.next_value_seed(CallsSeed)?),
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

struct CallsSeed;

impl<'de> DeserializeSeed<'de> for CallsSeed {
    type Value = Vec<Call>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<Call>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for CallsSeed {
    type Value = Vec<Call>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`calls` to be an array of calls")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Call>, A::Error> {
        let mut calls = Vec::new();
        let mut seen: HashMap<String, usize> = HashMap::new();
        while let Some(call) = seq.next_element_seed(CallSeed { index: calls.len() })? {
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

struct CallSeed {
    index: usize,
}

impl<'de> DeserializeSeed<'de> for CallSeed {
    type Value = Call;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Call, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for CallSeed {
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
                "tool_call_id" => match map.next_value::<Value>()? {
                    Value::String(s) => id = Some(s),
                    other => {
                        return Err(de::Error::custom(format_args!(
                            "calls[{i}].tool_call_id must be a string, not {}",
                            kind(&other)
                        )))
                    }
                },
                "result" => result = Some(map.next_value()?),
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
