//! Integration tests: the real binary in a clean environment.

// Tests read their own switches (CTXCTL_BIG_TESTS …) from the environment.
#![allow(clippy::disallowed_methods)]

/// Helpers shared with the other test binaries (tests/support/).
#[path = "../support/mod.rs"]
mod shared;
mod support;

mod agent_restore;
mod agent_usage;
mod appender;
mod archive;
mod archive_bytes;
mod archive_clean;
mod archive_when;
mod archive_zstd;
mod batch;
mod cache;
mod check;
mod claude_tree;
mod codex;
mod compact;
mod config;
mod count;
mod count_api;
mod crash;
mod cron;
mod diff;
mod drift;
mod errors;
mod flags;
mod gemini;
mod generated;
mod goose_db;
mod grep;
mod help;
mod here;
mod hostile;
mod http;
mod json_schema;
mod linking;
mod live;
mod llm_sections;
mod mapped;
mod mcp;
mod models;
mod opencode;
mod outputs;
mod procs;
mod progress;
mod race;
mod readme;
mod readme_blocks;
mod readme_match;
mod rewrite_read;
mod samples;
mod secrets;
mod sessions;
mod stable_next;
mod stats;
mod stream;
mod summaries;
mod surrogates;
mod trim;
mod window;

/// Every file in tests/cli is compiled into this binary (none forgotten).
#[test]
fn no_forgotten_test_files() {
    let dir = support::repo().join("tests/cli");
    let main = std::fs::read_to_string(dir.join("main.rs")).unwrap();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if let Some(stem) = name.strip_suffix(".rs") {
            if stem != "main" {
                assert!(
                    main.contains(&format!("mod {stem};")),
                    "tests/cli/{name} is not in main.rs"
                );
            }
        }
    }
}
