//! completions/ and man/ match what the binary generates. Regenerate with
//! `CTXCTL_UPDATE_GENERATED=1 cargo test --test cli generated`.

use crate::support::repo;

#[test]
fn completions_and_man_pages_are_fresh() {
    let update = std::env::var("CTXCTL_UPDATE_GENERATED").is_ok_and(|v| v == "1");
    let mut stale = Vec::new();
    let files = ctxctl::cli::generate::all();
    assert!(files.iter().any(|(p, _)| p == "man/ctxctl-check.1"));
    for (rel, content) in &files {
        let path = repo().join(rel);
        let current = std::fs::read(&path).ok();
        if current.as_deref() != Some(content.as_slice()) {
            if update {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, content).unwrap();
            } else {
                stale.push(rel.clone());
            }
        }
    }
    // No stray files the generator no longer produces.
    for dir in ["completions", "man"] {
        for entry in std::fs::read_dir(repo().join(dir))
            .into_iter()
            .flatten()
            .flatten()
        {
            let rel = format!("{dir}/{}", entry.file_name().to_string_lossy());
            if !files.iter().any(|(p, _)| *p == rel) {
                if update {
                    std::fs::remove_file(entry.path()).unwrap();
                } else {
                    stale.push(format!("{rel} (no longer generated)"));
                }
            }
        }
    }
    assert!(
        stale.is_empty(),
        "generated files are out of date: {stale:?}\nregenerate with: CTXCTL_UPDATE_GENERATED=1 cargo test --test cli generated"
    );
}
