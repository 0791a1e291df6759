//! Format detection and every reader (`session::read` with `None` and each format) on
//! arbitrary bytes: no panic, no stack overflow, no hang.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    ctxctl_fuzz::checks::read_all(data);
});
