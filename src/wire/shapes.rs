//! The JSON shapes of the wire contract: a [`Case`] and its [`Call`]s, an
//! [`Outcome`] with its [`Message`]s and [`ToolArtifact`]s, shown by
//! `Debug` in the domain's notation; how a case holds its results
//! ([`Holds`]: a `Value` each, or a value of one compact tree); and
//! RT-TOOL-2's reserved key.

use std::borrow::Cow;
use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::compact;
use super::parse::{parse, Refusal};
use super::view::{Held, JsonRef};

/// RT-TOOL-2's reserved key of a result's `data`: `artifacts`. A tool
/// node's output may carry it, and it is always removed from `data` before
/// the prose is rendered ([`crate::model::RESERVED_KEY`]).
pub const RESERVED_KEY: &str = "artifacts";

/// One node invocation: the input of the rule.
// Its results are `Value`s by default; `compact::with_case` reads a case of
// any size with its results in one compact tree, and the model reads
// either (`Holds`). Not in the doc comment, which is the schema's text.
#[derive(Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields, rename = "Case")]
pub struct Case<R = Value> {
    /// The author's instance choice for the `tool_artifacts` port: `true`
    /// exposes it, `false` hides it, `null` or absent leaves it at the node
    /// type's default.
    #[schemars(default)]
    pub exposed: Option<bool>,
    /// The calls of this invocation, in the order the model issued them.
    pub calls: Vec<Call<R>>,
}

/// One tool call and the untrusted JSON its tool returned.
#[derive(Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields, rename = "Call")]
pub struct Call<R = Value> {
    /// The call's real id, assigned by the node (never by the tool).
    pub tool_call_id: String,
    /// Whatever the tool returned: any JSON at all.
    pub result: R,
}

impl<R: Holds> Case<R> {
    /// The case as the judge reads it ([`Holds::case_held`]).
    pub fn held(&self) -> Cow<'_, Case<Held<'_>>> {
        R::case_held(self)
    }
}

impl<R: Holds> Call<R> {
    /// The call's result, as the model reads it.
    pub fn result(&self) -> R::Ref<'_> {
        self.result.json()
    }
}

/// A result as a case holds it: a `Value` (a [`Case`] as the generators,
/// `diff` and `serve` hold it), or a value of one compact tree
/// ([`compact::with_case`], for a case of any size); the model reads
/// either through [`JsonRef`].
pub trait Holds {
    /// How it is read.
    type Ref<'a>: JsonRef<'a>
    where
        Self: 'a;
    /// The value, to be read.
    fn json(&self) -> Self::Ref<'_>;
    /// The value, as the judge reads it.
    fn held(&self) -> Held<'_>;
    /// A case of such results as the judge reads it: each result a
    /// [`Held`] borrowed from the case, each id copied; the case itself
    /// when its results are [`Held`] already.
    fn case_held(case: &Case<Self>) -> Cow<'_, Case<Held<'_>>>
    where
        Self: Sized,
    {
        Cow::Owned(Case {
            exposed: case.exposed,
            calls: (case.calls.iter())
                .map(|call| Call {
                    tool_call_id: call.tool_call_id.clone(),
                    result: call.result.held(),
                })
                .collect(),
        })
    }
}

impl Holds for Value {
    type Ref<'a> = &'a Value;
    fn json(&self) -> &Value {
        self
    }
    fn held(&self) -> Held<'_> {
        Held::Tree(self)
    }
}

impl Holds for Held<'_> {
    type Ref<'a>
        = Held<'a>
    where
        Self: 'a;
    fn json(&self) -> Held<'_> {
        *self
    }
    fn held(&self) -> Held<'_> {
        *self
    }
    fn case_held(case: &Case<Self>) -> Cow<'_, Case<Held<'_>>> {
        Cow::Borrowed(case)
    }
}

impl Holds for compact::Compact<'_> {
    type Ref<'a>
        = compact::Compact<'a>
    where
        Self: 'a;
    fn json(&self) -> compact::Compact<'_> {
        *self
    }
    fn held(&self) -> Held<'_> {
        Held::Compact(*self)
    }
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
#[derive(Clone, PartialEq)]
pub struct Reference<'a, J = &'a Value> {
    /// One message per call, in call order.
    pub messages: Vec<Message>,
    /// Every call's kept artifacts.
    pub tool_artifacts: Vec<Landed<'a, J>>,
    /// Whether the author sees the `tool_artifacts` port.
    pub exposed: bool,
}

impl<'a, J: JsonRef<'a>> fmt::Debug for Reference<'a, J> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Reference")
            .field("messages", &self.messages)
            .field("tool_artifacts", &self.tool_artifacts)
            .field("exposed", &self.exposed)
            .finish()
    }
}

impl<'a, J: JsonRef<'a>> Reference<'a, J> {
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
pub struct Landed<'a, J = &'a Value> {
    /// The artifact's own `type`.
    pub kind: &'a str,
    /// The artifact's own `payload`, unchanged.
    pub payload: J,
    /// The id of the call that produced the artifact.
    pub tool_call_id: &'a str,
}

impl<'a, J: JsonRef<'a>> Landed<'a, J> {
    /// The entry as the port carries it, its parts copied.
    pub fn to_artifact(self) -> ToolArtifact {
        ToolArtifact {
            kind: self.kind.to_owned(),
            payload: self.payload.to_value(),
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

impl<'a, J: JsonRef<'a>> fmt::Debug for Landed<'a, J> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut payload = Vec::new();
        super::write::write_value(&mut payload, self.payload);
        let payload = String::from_utf8_lossy(&payload);
        write!(f, "{}⟨{} {payload}⟩", self.tool_call_id, self.kind)
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
