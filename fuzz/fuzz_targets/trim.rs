//! Trim planning: every strategy on a session file or a generated session, with options
//! and a budget from the input; the plan must write, read back and keep tool calls with
//! their results. Input: an 8-byte header, then the session or its recipe.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    ctxctl_fuzz::checks::trim(data);
});
