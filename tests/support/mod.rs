//! Locating the shared fixtures (`shared/fixtures/` beside the checkout or its parent, or
//! beside the checkout a local clone was made from).

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The fixtures directory: the first `shared/fixtures` found walking up from the crate,
/// or else from the checkout it was cloned from (a clone made elsewhere, such as
/// `git clone . $(mktemp -d)`, still finds the fixtures beside its origin).
pub fn fixtures_dir() -> PathBuf {
    try_fixtures_dir().unwrap_or_else(|| {
        panic!(
            "no shared/fixtures above {} or its origin",
            env!("CARGO_MANIFEST_DIR")
        )
    })
}

/// [`fixtures_dir`], if there is one.
pub fn try_fixtures_dir() -> Option<PathBuf> {
    let start = Path::new(env!("CARGO_MANIFEST_DIR"));
    let above = |dir: &Path| {
        dir.ancestors()
            .map(|a| a.join("shared/fixtures"))
            .find(|p| p.is_dir())
    };
    above(start).or_else(|| above(&cloned_from(start)?))
}

/// The local checkout `repo` was cloned from, if its `origin` is a directory.
fn cloned_from(repo: &Path) -> Option<PathBuf> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["remote", "get-url", "origin"])
        .output()
        .ok()?;
    let url = String::from_utf8(out.stdout).ok()?;
    let dir = PathBuf::from(url.trim().trim_start_matches("file://"));
    (out.status.success() && dir.is_dir()).then(|| dir.canonicalize().unwrap_or(dir))
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
