//! `doctor`'s look at the agent releases in the user's home: the versions the session files
//! record, against the ones ctxctl was verified with, and record types a release wrote that
//! ctxctl does not know (see [`drift`]). The newest files are read first, within a cap, so a
//! large home stays quick.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::formats::drift::{self, Drift};
use crate::session::Format;

/// At most this many files, and bytes, are read.
const MAX_FILES: usize = 200;
const MAX_BYTES: u64 = 256 << 20;

/// The versions line for the store of `agent` at `path`, when the agent's releases are
/// tracked and the store has session files: `warn` when a file comes from a release newer
/// than the verified ones or holds unknown record types.
pub fn of_store(agent: &str, path: &Path, database: bool) -> Option<(&'static str, String)> {
    let format = Format::from_name(agent)?;
    let (name, verified) = drift::verified(format)?;
    if database || !path.is_dir() {
        return None;
    }
    let mut files = Vec::new();
    jsonl_files(path, 5, &mut files);
    if files.is_empty() {
        return None;
    }
    let total = files.len();
    files.sort_by_key(|(_, t)| std::cmp::Reverse(*t));
    let mut all = Drift::default();
    let (mut read, mut bytes) = (0, 0u64);
    for (f, _) in &files {
        if read >= MAX_FILES || bytes >= MAX_BYTES {
            break;
        }
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        bytes += text.len() as u64;
        read += 1;
        // Count each file once per version it records.
        let mut d = drift::scan(format, &text);
        d.versions.values_mut().for_each(|n| *n = 1);
        all.merge(d);
    }
    let mut versions: Vec<(&String, &usize)> = all.versions.iter().collect();
    versions.sort_by(|a, b| drift::compare(b.0, a.0));
    let listed: Vec<String> = versions
        .iter()
        .map(|(v, n)| {
            let note = drift::against_verified(format, v)
                .map_or(String::new(), |note| format!(", {note}"));
            let files = if **n == 1 { "file" } else { "files" };
            format!("{v} ({n} {files}{note})")
        })
        .collect();
    let range = match (verified.first(), verified.last()) {
        (Some(a), Some(b)) if a.0 != b.0 => format!("{}–{}", a.0, b.0),
        (Some(a), _) => a.0.to_string(),
        _ => String::new(),
    };
    let newer = all
        .versions
        .keys()
        .any(|v| drift::against_verified(format, v) == Some("newer than verified"));
    let mut detail = if listed.is_empty() {
        format!("no version recorded in {read} of {total} files; verified {range}")
    } else {
        format!("{}; verified {range}", listed.join(", "))
    };
    if read < total {
        detail.push_str(&format!(" (the newest {read} of {total} files read)"));
    }
    if let Some(said) = all.describe(name) {
        detail.push_str(&format!("; {said}"));
    }
    let status = if newer || !all.records.is_empty() || !all.attachments.is_empty() {
        "warn"
    } else {
        "ok"
    };
    Some((status, detail))
}

/// `*.jsonl` files below `dir`, at most `depth` levels down, with their modification time.
fn jsonl_files(dir: &Path, depth: usize, out: &mut Vec<(PathBuf, SystemTime)>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        let Ok(t) = e.file_type() else { continue };
        if t.is_dir() && depth > 0 {
            jsonl_files(&p, depth - 1, out);
        } else if t.is_file() && p.extension().is_some_and(|x| x == "jsonl") {
            let time = e
                .metadata()
                .and_then(|m| m.modified())
                .unwrap_or(SystemTime::UNIX_EPOCH);
            out.push((p, time));
        }
    }
}
