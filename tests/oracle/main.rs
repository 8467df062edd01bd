//! The oracle as users run it, one process or more: the command line,
//! `diff` against `serve` (conforming, faulty, stuck), campaigns and shards,
//! shrinking a large case in bounded time.
//! The full fault catalogue is `tests/catalogue/`, run by `.ci/run`.

#[path = "../support/mod.rs"]
mod support;

mod agree;
mod campaign;
mod cli;
mod oracle;
mod shrink;
