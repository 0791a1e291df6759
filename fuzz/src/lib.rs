//! The fuzz targets' bodies live in `checks.rs`, which the main crate's stable test
//! `tests/fuzz_regressions.rs` also includes, so CI replays every corpus seed and committed
//! crash input through exactly the code the fuzzer runs.

pub mod checks;
