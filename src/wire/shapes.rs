//! The JSON shapes of the wire contract: a [`Case`] and its [`Call`]s, an
//! [`Outcome`] with its [`Message`]s and [`ToolArtifact`]s, shown by
//! `Debug` in the domain's notation; and RT-TOOL-2's reserved key.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::parse::{parse, Refusal};

/// RT-TOOL-2's reserved key of a result's `data`: `artifacts`. A tool
/// node's output may carry it, and it is always removed from `data` before
/// the prose is rendered ([`crate::model::RESERVED_KEY`]).
pub const RESERVED_KEY: &str = "artifacts";

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

/// An [`Outcome`] whose artifacts borrow from the case ([`Landed`]): what
/// the judge holds an observed outcome against.
#[derive(Clone, Debug, PartialEq)]
pub struct Reference<'a> {
    /// One message per call, in call order.
    pub messages: Vec<Message>,
    /// Every call's kept artifacts.
    pub tool_artifacts: Vec<Landed<'a>>,
    /// Whether the author sees the `tool_artifacts` port.
    pub exposed: bool,
}

impl Reference<'_> {
    /// The outcome, its artifacts copied.
    pub fn to_outcome(self) -> Outcome {
        Outcome {
            messages: self.messages,
            tool_artifacts: self
                .tool_artifacts
                .into_iter()
                .map(Landed::to_artifact)
                .collect(),
            exposed: self.exposed,
        }
    }
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
    #[serde(deserialize_with = "super::untrusted::value")]
    pub payload: Value,
    /// The id of the call that produced the artifact.
    pub tool_call_id: String,
}

/// A [`ToolArtifact`] as the model builds it from a case, borrowing the
/// artifact's `type` and `payload` and the call's id rather than copying
/// them: the judge holds a run's artifacts so, and a payload of many
/// megabytes is not copied to be compared.
#[derive(Clone, Copy, PartialEq)]
pub struct Landed<'a> {
    /// The artifact's own `type`.
    pub kind: &'a str,
    /// The artifact's own `payload`, unchanged.
    pub payload: &'a Value,
    /// The id of the call that produced the artifact.
    pub tool_call_id: &'a str,
}

impl Landed<'_> {
    /// The entry as the port carries it, its parts copied.
    pub fn to_artifact(self) -> ToolArtifact {
        ToolArtifact {
            kind: self.kind.to_owned(),
            payload: self.payload.clone(),
            tool_call_id: self.tool_call_id.to_owned(),
        }
    }
}

impl<'a> From<&'a ToolArtifact> for Landed<'a> {
    fn from(a: &'a ToolArtifact) -> Landed<'a> {
        Landed {
            kind: &a.kind,
            payload: &a.payload,
            tool_call_id: &a.tool_call_id,
        }
    }
}

impl fmt::Debug for Landed<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}⟨{} {}⟩", self.tool_call_id, self.kind, self.payload)
    }
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
