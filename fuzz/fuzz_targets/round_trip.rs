//! Read → write(keep everything) → read: the rewrite is readable, holds the same messages,
//! and for JSONL formats is byte-identical to the input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    ctxctl_fuzz::checks::round_trip(data);
});
