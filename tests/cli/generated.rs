//! completions/ and man/ match what the binary generates. Regenerate with
//! `CTXCTL_UPDATE_GENERATED=1 cargo test --test cli generated`.

use crate::support::{repo, TestEnv};

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
/// to them, see `completions_offer_option_values_in_every_shell` for its shape).
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

#[test]
fn completions_for_every_shell() {
    let env = TestEnv::new();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let run = env.run(&["completions", shell]);
        assert_eq!(run.code, 0, "{shell}");
        assert!(run.stdout.contains("ctxctl"), "{shell}");
    }
}

/// Every shell's script offers the values of `--strategy`, `--format`, `--summarizer` and
/// `--compress` (elvish and PowerShell through the table ctxctl adds to clap_complete's
/// scripts), and the checked-in scripts are these (tests/cli/generated.rs).
#[test]
fn completions_offer_option_values_in_every_shell() {
    let env = TestEnv::new();
    let strategies = [
        "fifo",
        "sliding-window",
        "smart",
        "selective",
        "composite",
        "tool-results",
        "mask-tool-results",
    ];
    let formats: Vec<&str> = ctxctl::session::Format::all().map(|f| f.name()).collect();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = env.run(&["completions", shell]).stdout;
        for value in strategies.iter().chain(&formats) {
            assert!(script.contains(value), "{shell}: no {value}");
        }
        for value in ["offline", "llm", "zstd"] {
            assert!(script.contains(value), "{shell}: no {value}");
        }
    }
    let elvish = env.run(&["completions", "elvish"]).stdout;
    assert!(
        elvish.contains("&'--summarizer'= ['offline' 'llm']")
            && elvish.contains("var previous = $words[-2]"),
        "{elvish}"
    );
    let ps = env.run(&["completions", "powershell"]).stdout;
    assert!(
        ps.contains("'--summarizer' = @('offline', 'llm')")
            && ps.contains("[CompletionResultType]::ParameterValue, $_)"),
        "{ps}"
    );
}
