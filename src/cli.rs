//! The commands of `rt-tool-3`, a module each, and what they share: how a
//! command reads its input, writes its output and fails. `main.rs` holds
//! the command line's definitions and sends each command here.

pub(crate) mod cases;
pub(crate) mod conclusion;
pub(crate) mod diff;
pub(crate) mod fail;
pub(crate) mod input;
pub(crate) mod merge;
pub(crate) mod output;
pub(crate) mod progress;
pub(crate) mod serve;
pub(crate) mod verdict;
