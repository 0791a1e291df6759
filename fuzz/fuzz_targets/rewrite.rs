//! Rewrites with arbitrary plans (keep, drop, insert, shorten tool results): whatever the
//! writer accepts reads back as the same format. Input: a plan length byte, the plan, then
//! the session.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    ctxctl_fuzz::checks::rewrite(data);
});
