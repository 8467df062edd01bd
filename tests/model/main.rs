//! The model, the judge and the wire contract, in process: the binary
//! `.ci/mutants` holds every mutant of `src/model.rs`, `src/judge.rs`,
//! `src/judge/`, `src/wire.rs` and `src/wire/` to (`cargo test --test
//! model`).

#[path = "../support/mod.rs"]
mod support;

mod complexity;
mod judge;
mod model;
mod observed;
mod vectors;
mod wire;
