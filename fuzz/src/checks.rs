//! What the fuzz targets check, as plain functions that panic when a property fails.
//!
//! Shared by the cargo-fuzz targets (`fuzz_targets/*.rs`) and by the main crate's stable
//! test `tests/fuzz_regressions.rs` (which includes this file with `#[path]`), so a crash
//! input committed under `fuzz/regressions/` fails CI the same way it failed the fuzzer.

use ctxctl::session::{self, pairs, Format, Item, NewMessage, PartEdit, Role, Session};
use ctxctl::tokens::{Counter, Encoding, Tokenizer};

/// The fuzz targets, by name (the directory names under `corpus/` and `regressions/`).
pub const TARGETS: [&str; 3] = ["read", "round_trip", "rewrite"];

/// Runs the check of fuzz target `name` on `data`.
pub fn run(name: &str, data: &[u8]) {
    match name {
        "read" => read_all(data),
        "round_trip" => round_trip(data),
        "rewrite" => rewrite(data),
        other => panic!("no fuzz target {other:?}"),
    }
}

/// The inputs a whole session file gives target `name`: itself, or for `rewrite` the file
/// behind a few plans (keep all; insert, shorten, drop; summarise, keep).
pub fn seed_inputs(name: &str, session: &[u8]) -> Vec<Vec<u8>> {
    if name != "rewrite" {
        return vec![session.to_vec()];
    }
    let plans: [&[u8]; 3] = [&[0], &[3, 5, 6, 4], &[2, 7, 0]];
    plans.iter().map(|p| [*p, session].concat()).collect()
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

/// A write plan for `s` driven by `ops` (one byte per message, cycled): keep, drop, insert
/// a note before, shorten its tool results, or replace it with a summary.
fn plan(s: &Session, ops: &[u8]) -> Vec<Item> {
    let note = |role: Role, text: &str| {
        Item::Insert(NewMessage {
            role,
            text: text.to_string(),
            meta: serde_json::Map::new(),
        })
    };
    let mut items = Vec::new();
    for (i, m) in s.messages.iter().enumerate() {
        let op = if ops.is_empty() {
            0
        } else {
            ops[i % ops.len()] % 8
        };
        match op {
            4 => {}
            5 => {
                items.push(note(Role::User, "[note]"));
                items.push(Item::Keep(i));
            }
            6 => {
                let edits: Vec<PartEdit> = m
                    .result_ids()
                    .map(|id| PartEdit::ResultText {
                        call_id: id.to_string(),
                        text: "[trimmed]".to_string(),
                    })
                    .collect();
                items.push(if edits.is_empty() {
                    Item::Keep(i)
                } else {
                    Item::Edit { index: i, edits }
                });
            }
            7 => items.push(note(Role::Assistant, "[summary]")),
            _ => items.push(Item::Keep(i)),
        }
    }
    items
}

/// Any rewrite the writer accepts must be readable again as the same format. The first
/// byte says how many of the following bytes are the plan; the rest is the session.
pub fn rewrite(data: &[u8]) {
    let Some((&n, rest)) = data.split_first() else {
        return;
    };
    let n = usize::from(n % 32).min(rest.len());
    let (ops, bytes) = rest.split_at(n);
    for format in formats() {
        let Ok(s) = session::read(bytes, format) else {
            continue;
        };
        let Ok(out) = session::write(&s, &plan(&s, ops)) else {
            continue;
        };
        if let Err(e) = session::read(&out, Some(s.format)) {
            panic!(
                "{}: a rewrite cannot be read back: {e}\n{}",
                s.format,
                String::from_utf8_lossy(&out)
            );
        }
    }
}
