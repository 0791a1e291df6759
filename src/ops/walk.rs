//! The files a command works on: `FILE...` as given, then every session file below each
//! `-r DIR`, in a stable order.

use std::path::{Path, PathBuf};

use anyhow::Context as _;

/// `files`, then the session files below each of `dirs` (sorted per directory). No input
/// at all is a usage error.
pub fn collect(files: &[PathBuf], dirs: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = files.to_vec();
    for dir in dirs {
        let mut found = Vec::new();
        walk(dir, &mut found).with_context(|| format!("{}", dir.display()))?;
        found.sort();
        out.extend(found);
    }
    if out.is_empty() {
        anyhow::bail!("no input: give session FILEs, - for standard input, or -r DIR");
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let ty = entry.file_type()?;
        if ty.is_dir() {
            walk(&path, out)?;
        } else if ty.is_file() && is_session_file(&path) {
            out.push(path);
        }
    }
    Ok(())
}

fn is_session_file(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    !name.starts_with(crate::fsutil::TEMP_PREFIX)
        && matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("json" | "jsonl")
        )
}
