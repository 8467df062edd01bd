//! The rule and what is built around it: the rule's text pinned, the
//! example verdicts, the properties each clause states, the generators'
//! census, the fuzz corpus replayed, and the crate's architecture.

#[path = "../support/mod.rs"]
mod support;

mod architecture;
mod census;
mod corpus;
mod properties;
mod readme;
mod rule;
mod verdicts;
