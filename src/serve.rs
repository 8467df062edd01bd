//! The reference model served over the protocol, as a conforming
//! implementation that adapters and harnesses can be tested against, and,
//! with a [`Fault`], as a known-broken one that shows what `diff` catches.
//!
//! Each fault breaks one thing. The clause faults are written against the
//! reference outcome, the way a real runtime goes wrong; the process faults
//! break the protocol instead.
//!
//! The faults and the variants are named in `fault.rs` and `variant.rs`
//! (with how a variant meets the rule); `protocol.rs` serves them;
//! `outcome.rs` breaks the reference outcome by a clause fault, in place,
//! or hands it to `rebuilt.rs`, the faults that rebuild the port, the
//! exposure or the prose, or to `space.rs`, the faults across the rule's
//! whole space.

mod fault;
mod outcome;
mod protocol;
mod rebuilt;
mod space;
mod variant;

pub use fault::{Fault, STRIKE};
pub use outcome::outcome;
pub use protocol::{serve, Settings};
pub use space::{ATTACHMENT_KEYS, ERROR_FLAG_KEYS, EXPOSURE_KEYS, META_KEYS, TEXT_KEYS};
pub use variant::Variant;
