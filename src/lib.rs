//! Reference model and conformance oracle for rule **RT-TOOL-3** of the
//! FlowDrop Workflow Specification **1.0-draft** ([`RULE`], [`SPEC_VERSION`]),
//! pinned by the specification's own hash of the rule's text ([`RULE_HASH`]).
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
//! how much of that is normative: call by call
//! ([`model::of_rt_tool_1_shape`]: a well-formed call owes what it keeps,
//! whatever its siblings returned), and for the case as a whole
//! ([`model::zone`]).
//!
//! # Where it comes from
//!
//! The rule text is the specification's (quoted above with attribution, and
//! shipped whole as [`RULE_TEXT`]). The project's reading of it (each
//! paragraph as checkable properties, the neighbouring rules it relies on, the
//! zones, the tensions in the specification and how the oracle reads them,
//! and the JSON wire contract) is the [`reading`] module, `src/reading.md` in
//! the repository; the wire shapes are in [`wire`]. A finding cites a clause
//! the way the specification does, by paragraph: `RT-TOOL-3 ¶1` … `¶4`
//! ([`judge::Clause`]).
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

pub mod atomic;
pub mod code;
pub mod diff;
pub mod escape;
pub mod gen;
#[doc = include_str!("reading.md")]
pub mod reading {}
pub mod harness;
pub mod judge;
pub mod merge;
pub mod model;
pub mod replay;
pub mod report;
pub mod serve;
pub mod standing;
pub mod tally;
pub mod vectors;
pub mod wire;

/// Why `verdict` produced no outcome.
#[derive(Debug)]
pub enum VerdictError {
    /// The case is invalid (or past the oracle's own limits).
    Invalid(wire::Refusal),
    /// Writing the outcome failed.
    Write(std::io::Error),
}

/// The `verdict` command: a case's JSON bytes in, the reference outcome's
/// JSON out, as one line, with the case's zone.
///
/// The outcome is [`model::outcome`]'s, but a large case never becomes a
/// large tree: its results are read into one compact tree
/// ([`wire::compact`]), twelve bytes a value with its strings read in
/// place, and the outcome is written as it is built, so memory stays near
/// the input's size. The bytes are exactly serde_json's of
/// [`model::outcome`]. Nothing is written unless the case is valid.
pub fn verdict(bytes: &[u8], mut out: impl std::io::Write) -> Result<model::Zone, VerdictError> {
    let written = wire::compact::with_case(bytes, |case| {
        let reference = model::reference(case);
        let write = |out: &mut dyn std::io::Write| -> std::io::Result<()> {
            out.write_all(br#"{"messages":"#)?;
            serde_json::to_writer(&mut *out, &reference.messages)?;
            out.write_all(br#","tool_artifacts":["#)?;
            let mut entry = Vec::new();
            for (i, a) in reference.tool_artifacts.iter().enumerate() {
                entry.clear();
                if i > 0 {
                    entry.push(b',');
                }
                entry.extend_from_slice(br#"{"type":"#);
                wire::write_str(&mut entry, a.kind);
                entry.extend_from_slice(br#","payload":"#);
                wire::write_value(&mut entry, a.payload);
                entry.extend_from_slice(br#","tool_call_id":"#);
                wire::write_str(&mut entry, a.tool_call_id);
                entry.push(b'}');
                out.write_all(&entry)?;
            }
            write!(out, r#"],"exposed":{}}}"#, reference.exposed)?;
            out.write_all(b"\n")?;
            out.flush()
        };
        write(&mut out).map(|()| model::zone(case))
    });
    written
        .map_err(VerdictError::Invalid)?
        .map_err(VerdictError::Write)
}

/// The rule this crate models.
pub const RULE: &str = "RT-TOOL-3";

/// The version of the FlowDrop Workflow Specification the rule is taken from.
pub const SPEC_VERSION: &str = "1.0-draft";

/// The specification's `rule_hash` of the text this crate models: the first
/// 12 hex digits of SHA-256 over the rule's normative text (its four
/// paragraphs without their item numbers, joined by single spaces, whitespace
/// collapsed). The specification uses it to detect drift between a rule and
/// its commentary; here it pins which text the oracle judges against. A test
/// recomputes it from [`RULE_TEXT`].
pub const RULE_HASH: &str = "f4664b813918";

/// The rule's page as the specification publishes it (CC BY 4.0), with its
/// attribution: the normative text [`RULE_HASH`] is computed from.
pub const RULE_TEXT: &str = include_str!("RT-TOOL-3.md");

/// This oracle's own version.
pub const ORACLE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Which rule, in which text, judged by which oracle: every report and
/// every file the oracle writes names it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Provenance {
    /// The rule: `RT-TOOL-3`.
    pub rule: &'static str,
    /// The specification version: `1.0-draft`.
    pub spec_version: &'static str,
    /// The specification's hash of the rule's text ([`RULE_HASH`]).
    pub rule_hash: &'static str,
    /// The oracle and its version: `rt-tool-3 0.2.0`.
    pub oracle: String,
}

/// The [`Provenance`] of this build.
pub fn provenance() -> Provenance {
    Provenance {
        rule: RULE,
        spec_version: SPEC_VERSION,
        rule_hash: RULE_HASH,
        oracle: format!("rt-tool-3 {ORACLE_VERSION}"),
    }
}

impl std::fmt::Display for Provenance {
    /// `RT-TOOL-3 (FlowDrop 1.0-draft, rule_hash f4664b813918), rt-tool-3 0.2.0`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} (FlowDrop {}, rule_hash {}), {}",
            self.rule, self.spec_version, self.rule_hash, self.oracle
        )
    }
}
