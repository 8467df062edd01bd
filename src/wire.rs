//! The wire contract: a case and an outcome, exactly the JSON shapes of
//! the reading ([`crate::reading`], "The wire contract").
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
//!
//! Each concern has a file of its own: the shapes themselves and the
//! reserved key (`shapes.rs`); a case read, and its invalid part refused
//! (`refuse.rs`); one document parsed within the nesting bound, or refused
//! (`parse.rs`); a case read with its results in one compact tree, as
//! `verdict` reads it (`compact.rs`), and a value read through either
//! (`view.rs`); a reply's lone surrogate escapes read, marked and
//! shown (`surrogates.rs`); untrusted JSON read into a `Value` with
//! every object an object, serde_json's private number key included
//! (`untrusted.rs`); and a case or an outcome written as compact
//! JSON, byte for byte as serde_json writes it (`write.rs`).

pub mod compact;
mod parse;
mod refuse;
mod shapes;
mod surrogates;
pub(crate) mod untrusted;
mod view;
mod write;

pub(crate) use parse::parse_seed;
pub use parse::{parse, within_depth, Refusal, MAX_DEPTH};
pub use refuse::kind;
pub use shapes::{
    Call, Case, Holds, Landed, Message, Outcome, Reference, ToolArtifact, RESERVED_KEY,
};
pub(crate) use surrogates::with_lone_surrogates_marked;
pub use surrogates::{lone_mark, lone_surrogates, parse_reply, shown_lone};
pub use untrusted::{parse_value, value, Json, SERDE_NUMBER_KEY, SERDE_RAW_KEY};
pub use view::{double, Held, HeldItems, HeldMembers, JsonRef, Node};
pub(crate) use write::write_str;
pub use write::{exposed_json, write_sorted, write_sorted_object, write_value, CaseSpans, Sink};
