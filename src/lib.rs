//! Reference model and conformance oracle for rule **RT-TOOL-3** of the
//! FlowDrop Workflow Specification **1.0-draft** ([`RULE`], [`SPEC_VERSION`]).
//!
//! # What it is
//!
//! FlowDrop workflows have nodes that call LLM tools. A tool returns a result
//! with `data` and, optionally, `artifacts`: links, files, records. RT-TOOL-3
//! says where the artifacts go:
//!
//! > 1. A node that invokes tools surfaces every call's artifacts on a
//! >    dedicated `tool_artifacts` output port, as a list of exactly
//! >    `{type, payload, tool_call_id}` entries built key by key, so a tool can
//! >    neither override the real `tool_call_id` nor smuggle keys of its own
//! >    through.
//! > 2. That port is not exposed by default.
//! > 3. The prose fed back to the model is built from a result's `data` alone
//! >    and never from its artifacts.
//! > 4. Delivery of a run's artifacts must not depend on whether the author
//! >    exposed the port.
//!
//! — RT-TOOL-3, FlowDrop Workflow Specification 1.0-draft,
//! <https://flowdrop.io/spec/rules/rt-tool/rt-tool-3>, licensed CC BY 4.0.
//!
//! This crate is that rule as a small pure function ([`model::outcome`]), and
//! the machinery to hold other implementations to it.
//!
//! # Why you would use it
//!
//! The rule is short and easy to get subtly wrong. Real runtimes let a tool
//! spoof a sibling call's id by returning its own `tool_call_id`, pass stray
//! keys through, fold an artifact's URL into the prose the model reads, or
//! stop delivering artifacts when the author hides the port. If you write a
//! FlowDrop runtime, in Rust or anything else, use this crate as the oracle:
//! ask [`model::outcome`] what your node should produce for a case, and
//! [`model::zone`] how much of that is normative.
//!
//! # Where it comes from
//!
//! The rule text is the specification's (quoted above with attribution). The
//! project's reading of it, its neighbouring rules (RT-TOOL-1, -2, -6, -9 and
//! EXPO-2) and the JSON wire contract live beside the specification in
//! `READING.md`; the wire shapes are in [`wire`].
//!
//! ```
//! use rt_tool_3::{model, wire::Case};
//!
//! let case = Case::from_json(br#"{"calls": [{"tool_call_id": "c1", "result": {
//!     "success": true,
//!     "data": {"result": "Created node 5 (draft)."},
//!     "artifacts": [{"type": "link", "payload": {"url": "https://example.com/node/5"}}]}}]}"#).unwrap();
//! let outcome = model::outcome(&case);
//! assert_eq!(outcome.messages[0].content, "Created node 5 (draft).");
//! assert_eq!(outcome.tool_artifacts[0].tool_call_id, "c1");
//! assert!(!outcome.exposed);
//! ```
#![deny(missing_docs)]

pub mod diff;
pub mod gen;
pub mod harness;
pub mod judge;
pub mod model;
pub mod serve;
pub mod vectors;
pub mod wire;

/// The rule this crate models.
pub const RULE: &str = "RT-TOOL-3";

/// The version of the FlowDrop Workflow Specification the rule is taken from.
pub const SPEC_VERSION: &str = "1.0-draft";
