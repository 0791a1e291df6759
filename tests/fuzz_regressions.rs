//! The fuzz targets on stable, once over every input we have: the sample sessions, the
//! shared fixtures, each of them cut short at a spread of places (agents leave half-written
//! files behind), and the committed crash inputs (`fuzz/regressions/<target>/`). With
//! `CTXCTL_FUZZ_CORPUS=1` the local corpus a fuzzing run grew (`fuzz/corpus/<target>/`,
//! git-ignored) is replayed too. The checks are the fuzz targets' own code, included from
//! `fuzz/src/checks.rs`.

// Tests read their own switches (CTXCTL_BIG_TESTS …) from the environment.
#![allow(clippy::disallowed_methods)]

#[path = "../fuzz/src/checks.rs"]
#[allow(dead_code)]
mod checks;
mod support;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/// Places each seed is cut at, as fractions of its length in 1/8ths (8/8 is the whole).
const CUTS: usize = 8;

fn files_in(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files_in(&p, out);
        } else if p.is_file() && !is_note(&p) {
            out.push(p);
        }
    }
}

/// `.gitkeep` and `README.md` files are not inputs.
fn is_note(p: &Path) -> bool {
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.starts_with('.') || name == "README.md"
}

/// Whole session files every target starts from.
fn seeds() -> Vec<PathBuf> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    files_in(&repo.join("sample-sessions"), &mut out);
    if let Some(dir) = support::try_fixtures_dir() {
        files_in(&dir, &mut out);
    }
    out.retain(|p| {
        matches!(
            p.extension().and_then(|e| e.to_str()),
            Some("json" | "jsonl")
        )
    });
    out.sort();
    out
}

/// The inputs of one target: seeds, its committed regressions and (on request) its local
/// corpus.
fn inputs(target: &str) -> Vec<PathBuf> {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut out = seeds();
    files_in(&fuzz.join("regressions").join(target), &mut out);
    if std::env::var_os("CTXCTL_FUZZ_CORPUS").is_some_and(|v| v == "1") {
        files_in(&fuzz.join("corpus").join(target), &mut out);
    }
    out
}

/// Runs `target` on `data`, returning the panic message if it failed.
fn check(target: &str, data: &[u8]) -> Option<String> {
    let r = catch_unwind(AssertUnwindSafe(|| checks::run(target, data)));
    r.err().map(|e| {
        e.downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "panic".to_string())
    })
}

fn replay(target: &str) {
    let files = inputs(target);
    assert!(!files.is_empty(), "no inputs for {target}");
    let fuzz_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut failures = Vec::new();
    let mut runs = 0;
    for path in &files {
        let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if path.starts_with(&fuzz_dir) {
            // Fuzzer inputs, as the target saw them.
            runs += 1;
            if let Some(msg) = check(target, &data) {
                failures.push(format!("{}: {msg}", path.display()));
            }
            continue;
        }
        // Trim planning runs seven strategies per seed: half as many cuts keep CI quick.
        let step = if target == "trim" { 2 } else { 1 };
        let cuts = (1..=CUTS)
            .step_by(step)
            .map(|k| data.len() * (k + step - 1) / CUTS);
        for cut in cuts {
            for (plan, input) in checks::seed_inputs(target, &data[..cut]).iter().enumerate() {
                runs += 1;
                if let Some(msg) = check(target, input) {
                    failures.push(format!(
                        "{} (first {cut} bytes, input {plan}): {msg}",
                        path.display()
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{target}: {} of {runs} inputs failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn read_target_replays_its_corpus() {
    replay("read");
}

#[test]
fn round_trip_target_replays_its_corpus() {
    replay("round_trip");
}

#[test]
fn rewrite_target_replays_its_corpus() {
    replay("rewrite");
}

#[test]
fn every_target_has_a_regressions_dir() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    for target in checks::TARGETS {
        assert!(
            fuzz.join("regressions").join(target).is_dir(),
            "fuzz/regressions/{target} is missing"
        );
        assert!(fuzz
            .join("fuzz_targets")
            .join(format!("{target}.rs"))
            .is_file());
    }
}

#[test]
fn trim_target_replays_its_corpus() {
    replay("trim");
}
