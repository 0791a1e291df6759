//! What the fuzz targets check, as plain functions that panic when a property fails.
//!
//! Shared by the cargo-fuzz targets (`fuzz_targets/*.rs`) and by the main crate's stable
//! test `tests/fuzz_regressions.rs` (which includes this file with `#[path]`), so a crash
//! input committed under `fuzz/regressions/` fails CI the same way it failed the fuzzer.

use ctxctl::session::{self, pairs, Format, Session};
use ctxctl::tokens::{Counter, Encoding, Tokenizer};

/// The fuzz targets, by name (the directory names under `corpus/` and `regressions/`).
pub const TARGETS: [&str; 2] = ["read", "round_trip"];

/// Runs the check of fuzz target `name` on `data`.
pub fn run(name: &str, data: &[u8]) {
    match name {
        "read" => read_all(data),
        "round_trip" => round_trip(data),
        other => panic!("no fuzz target {other:?}"),
    }
}

/// `None` (detect) and then every format forced, as `--format` would.
fn formats() -> impl Iterator<Item = Option<Format>> {
    std::iter::once(None).chain(Format::ALL.into_iter().map(Some))
}

/// Format detection and every reader on `data`: errors are fine, panics are not. What a
/// reader accepts also goes through the pure code every command runs on a session.
pub fn read_all(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let body = text.trim_start_matches('\u{feff}');
        if !body.trim().is_empty() {
            let _ = session::detect(body);
        }
    }
    for format in formats() {
        if let Ok(s) = session::read(data, format) {
            inspect(&s);
        }
    }
}

/// What `count`, `check` and `stats` do with a session once read.
fn inspect(s: &Session) {
    let units = pairs::units(&s.messages);
    let covered: usize = units.iter().map(|u| u.len()).sum();
    assert_eq!(
        covered,
        s.messages.len(),
        "pairing units must cover every message"
    );
    let _ = pairs::problems(&s.messages);
    let tokenizer = Tokenizer::new(Encoding::Approx).expect("the approx tokenizer always builds");
    let counts = Counter::new(tokenizer).messages(s);
    assert_eq!(counts.len(), s.messages.len());
    let _ = Counter::total(&counts);
    for m in &s.messages {
        let _ = m.text();
    }
}

/// Read, write back keeping every message, read again: the rewrite must be readable as the
/// same format with the same messages, and a JSONL rewrite must be byte-identical.
pub fn round_trip(data: &[u8]) {
    for format in formats() {
        let Ok(s) = session::read(data, format) else {
            continue;
        };
        let out = match session::write(&s, &s.keep_all()) {
            Ok(out) => out,
            Err(e) => panic!("{}: writing back every message failed: {e}", s.format),
        };
        if s.format.is_lines() {
            assert!(
                out == data,
                "{}: a keep-everything rewrite changed the bytes",
                s.format
            );
            continue;
        }
        let again = match session::read(&out, Some(s.format)) {
            Ok(again) => again,
            Err(e) => panic!("{}: the rewrite cannot be read back: {e}", s.format),
        };
        assert_eq!(
            again.messages, s.messages,
            "{}: the rewrite holds different messages",
            s.format
        );
        let out2 = session::write(&again, &again.keep_all())
            .unwrap_or_else(|e| panic!("{}: second rewrite failed: {e}", s.format));
        assert!(out2 == out, "{}: rewriting is not stable", s.format);
    }
}
