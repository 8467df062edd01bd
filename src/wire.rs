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

use schemars::JsonSchema;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One node invocation: the input of the rule.
#[derive(Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Case {
    /// The author's instance choice for the `tool_artifacts` port: `true`
    /// exposes it, `false` hides it, `null` or absent leaves it at the node
    /// type's default.
    #[schemars(default)]
    pub exposed: Option<bool>,
    /// The calls of this invocation, in the order the model issued them.
    pub calls: Vec<Call>,
}

/// One tool call and the untrusted JSON its tool returned.
#[derive(Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Call {
    /// The call's real id, assigned by the node (never by the tool).
    pub tool_call_id: String,
    /// Whatever the tool returned: any JSON at all.
    pub result: Value,
}

/// What a node produced for a case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Message {
    /// The call this message answers.
    pub tool_call_id: String,
    /// The prose itself.
    pub content: String,
}

/// One entry on the `tool_artifacts` port: exactly `{type, payload, tool_call_id}`.
#[derive(Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
    /// The refusal is one line: what is wrong, where (field and call), and
    /// the line and column.
    pub fn from_json(bytes: &[u8]) -> Result<Case, Refusal> {
        parse(bytes)
    }
}

/// The deepest nesting of arrays and objects the oracle reads in one
/// document, the default limit of PHP's `json_decode`. It is the oracle's
/// own bound, not a rule of RT-TOOL-3: it keeps every recursive walk, and
/// the freeing of a parsed value, far from the end of the stack.
pub const MAX_DEPTH: usize = 512;

/// A JSON input the oracle refuses, said in one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal(pub String);

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refusal {}

/// Parses one JSON document the oracle reads (a case, an outcome, a reply),
/// nested at most [`MAX_DEPTH`] deep, with nothing after it but whitespace.
pub fn parse<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, Refusal> {
    check_depth(bytes)?;
    let mut de = serde_json::Deserializer::from_slice(bytes);
    de.disable_recursion_limit();
    let value = T::deserialize(&mut de).map_err(|e| Refusal(e.to_string()))?;
    de.end().map_err(|e| Refusal(e.to_string()))?;
    Ok(value)
}

/// Refuses a document nested deeper than [`MAX_DEPTH`], before it is parsed.
fn check_depth(bytes: &[u8]) -> Result<(), Refusal> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (at, &b) in bytes.iter().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' if depth == MAX_DEPTH => {
                let before = &bytes[..at];
                let line = 1 + before.iter().filter(|&&c| c == b'\n').count();
                let column = 1 + before.iter().rev().take_while(|&&c| c != b'\n').count();
                return Err(Refusal(format!(
                    "nesting deeper than {MAX_DEPTH} levels at line {line} column {column} (the oracle's own limit)"
                )));
            }
            b'[' | b'{' => depth += 1,
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
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
