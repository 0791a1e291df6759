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

/// The checked-in man pages say where ctxctl reads and writes, which variables it honours
/// and what its exit codes mean, and refer to no page that does not exist.
#[test]
fn man_pages_have_environment_files_and_exit_status_and_no_dangling_references() {
    let dir = repo().join("man");
    let top = std::fs::read_to_string(dir.join("ctxctl.1")).unwrap();
    for section in [".SH ENVIRONMENT", ".SH FILES", ".SH EXIT STATUS"] {
        assert!(top.contains(section), "ctxctl.1 lacks {section}");
    }
    assert!(
        top.contains(r"\fBCTXCTL_LOCK_TIMEOUT\fR"),
        "every variable is listed"
    );
    let pages: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    let reference = regex::Regex::new(r"(ctxctl(?:\\-[a-z]+)*)\(1\)").unwrap();
    for page in &pages {
        let text = std::fs::read_to_string(dir.join(page)).unwrap();
        assert!(text.contains(".SH EXIT STATUS"), "{page} lacks EXIT STATUS");
        for r in reference.captures_iter(&text) {
            let target = format!("{}.1", r[1].replace(r"\-", "-"));
            assert!(
                pages.contains(&target),
                "{page} refers to {target}, which does not exist"
            );
        }
    }
}

/// Every shell's checked-in script offers the strategies, formats and summarizers (clap's
/// elvish and PowerShell scripts complete flag names only: ctxctl adds a table of values
/// to them, see tests/cli/misc.rs for its shape).
#[test]
fn completions_offer_strategy_format_and_summarizer_values() {
    let dir = repo().join("completions");
    for file in [
        "ctxctl.bash",
        "_ctxctl",
        "ctxctl.fish",
        "ctxctl.elv",
        "_ctxctl.ps1",
    ] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        for value in [
            "sliding-window",
            "mask-tool-results",
            "claude-code",
            "goose-db",
            "llm",
        ] {
            assert!(text.contains(value), "{file} does not offer {value}");
        }
    }
    let bash = std::fs::read_to_string(dir.join("ctxctl.bash")).unwrap();
    let strategy = bash.split("--strategy)").nth(1).unwrap();
    assert!(
        strategy
            .lines()
            .nth(1)
            .unwrap()
            .contains("fifo sliding-window"),
        "bash completes --strategy values"
    );
}
