//! The fault catalogue and the conforming variants on ten seeds: campaign
//! sized (about five minutes on two cores), so it is not part of a plain
//! `cargo test`; `.ci/run` runs it as `cargo test --test catalogue`
//! (`test = false` in Cargo.toml).

#[path = "../support/mod.rs"]
mod support;

mod catalogue;
