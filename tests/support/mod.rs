//! Locating the shared fixtures (`shared/fixtures/` beside the checkout or its parent).

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The fixtures directory: the first `shared/fixtures` found walking up from the crate.
pub fn fixtures_dir() -> PathBuf {
    let start = Path::new(env!("CARGO_MANIFEST_DIR"));
    start
        .ancestors()
        .map(|a| a.join("shared/fixtures"))
        .find(|p| p.is_dir())
        .unwrap_or_else(|| panic!("no shared/fixtures above {}", start.display()))
}

/// The bytes of `fixtures/<rel>`.
pub fn fixture(rel: &str) -> Vec<u8> {
    let path = fixtures_dir().join(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The files of `fixtures/<dir>`, sorted.
pub fn fixtures_in(dir: &str) -> Vec<PathBuf> {
    let path = fixtures_dir().join(dir);
    let mut out: Vec<PathBuf> = std::fs::read_dir(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    assert!(!out.is_empty(), "{} is empty", path.display());
    out
}

/// A goose JSONL session made of the real goose `Message` objects in the scenario
/// recording (the longest recorded request plus its response), under a metadata line.
/// No real goose session file could be found under a usable license (see PROVENANCE.md).
pub fn goose_session_from_recording() -> String {
    let rec: serde_json::Value = serde_json::from_slice(&fixture(
        "goose/goose_scenario_recording_basic_greeting.json",
    ))
    .unwrap();
    let entry = rec
        .as_object()
        .unwrap()
        .values()
        .max_by_key(|e| e["input"]["messages"].as_array().map_or(0, Vec::len))
        .unwrap();
    let mut messages = entry["input"]["messages"].as_array().unwrap().clone();
    messages.push(entry["output"]["message"].clone());
    let mut out = serde_json::json!({
        "working_dir": "/tmp/goose",
        "description": "basic greeting",
        "message_count": messages.len(),
    })
    .to_string();
    out.push('\n');
    for m in messages {
        out.push_str(&m.to_string());
        out.push('\n');
    }
    out
}
