//! How much of what the next turn needs the offline summary keeps (issue #21's benchmark).
//!
//! For every real transcript under `shared/fixtures/` long enough to compact (its middle,
//! with a tail of a fifth of the session, holds at least 2,000 tokens) and every
//! session given on the command line (`scripts/summary-bench.sh` adds generated ones), it
//! partitions the session as `compact` does, summarizes the middle offline and reports the
//! recall of the middle's user requests, file paths, commands and error lines (errors
//! counted only when their resolution is reported right), the middle's compression and the
//! summary's tokens, and checks that the summary is byte for byte the same when made again
//! from a fresh read. Exits 1 when a target is missed.
//!
//! Usage: cargo run --example summary_bench [-- SESSION...]

#![allow(clippy::print_stdout)] // a stand-alone benchmark program, not part of the CLI
#![allow(clippy::disallowed_methods)] // reads its own arguments and paths

use std::path::{Path, PathBuf};

use ctxctl::compact::partition;
use ctxctl::formats;
use ctxctl::summarize::offline::{self, collect, DEFAULT_CAP};
use ctxctl::summarize::recall::{self, Kind};
use ctxctl::summarize::Input;
use ctxctl::tokens::{Counter, Encoding, Tokenizer};

/// Middles smaller than this are not worth compacting.
const MIN_MIDDLE: usize = 2000;

#[derive(Default, Clone, Copy)]
struct Tally {
    hit: usize,
    all: usize,
}

impl Tally {
    fn add(&mut self, hit: bool) {
        self.all += 1;
        self.hit += usize::from(hit);
    }
    fn pct(self) -> f64 {
        if self.all == 0 {
            100.0
        } else {
            self.hit as f64 * 100.0 / self.all as f64
        }
    }
    fn show(self) -> String {
        format!("{}/{}", self.hit, self.all)
    }
}

#[derive(Default)]
struct Totals {
    requests: Tally,
    paths: Tally,
    commands: Tally,
    errors: Tally,
    middle: usize,
    summary: usize,
    deterministic: bool,
}

fn main() {
    let mut files = fixtures();
    files.extend(std::env::args().skip(1).map(PathBuf::from));
    let counter = Counter::new(Tokenizer::new(Encoding::O200kBase).expect("o200k_base"));
    let mut t = Totals {
        deterministic: true,
        ..Totals::default()
    };
    println!(
        "{:<58} {:>7} {:>7} {:>6} {:>8} {:>8} {:>8} {:>8}",
        "session", "middle", "summary", "ratio", "requests", "paths", "commands", "errors"
    );
    for path in files {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let Ok(session) = formats::read(&bytes, None) else {
            continue;
        };
        let counts = counter.messages(&session);
        let total: usize = counts.iter().sum();
        let p = partition(&session, &counts, total / 5);
        let picked: Vec<_> = p
            .summarized()
            .map(|i| session.messages[i].clone())
            .collect();
        let middle: usize = p.summarized().map(|i| counts[i]).sum();
        if middle < MIN_MIDDLE {
            continue;
        }
        let summary = offline::summarize(&Input::new(&picked), &counter, DEFAULT_CAP);
        // Made again from a fresh read with a fresh counter: the same bytes.
        let again = {
            let s = formats::read(&bytes, None).expect("reads again");
            let c = Counter::new(Tokenizer::new(Encoding::O200kBase).expect("o200k_base"));
            let msgs: Vec<_> = p.summarized().map(|i| s.messages[i].clone()).collect();
            offline::summarize(&Input::new(&msgs), &c, DEFAULT_CAP)
        };
        t.deterministic &= again == summary;
        let r = recall::measure(&recall::facts(&picked), &summary);
        let errors = errors_with_resolution(&picked, &summary);
        let tokens = counter.text(&summary);
        let (req, paths, cmds) = (
            tally(&r, Kind::Request),
            tally(&r, Kind::Path),
            tally(&r, Kind::Command),
        );
        println!(
            "{:<58} {:>7} {:>7} {:>5.0}× {:>8} {:>8} {:>8} {:>8}",
            short(&path),
            middle,
            tokens,
            middle as f64 / tokens.max(1) as f64,
            req.show(),
            paths.show(),
            cmds.show(),
            errors.show()
        );
        for (sum, one) in [
            (&mut t.requests, req),
            (&mut t.paths, paths),
            (&mut t.commands, cmds),
            (&mut t.errors, errors),
        ] {
            sum.hit += one.hit;
            sum.all += one.all;
        }
        t.middle += middle;
        t.summary += tokens;
    }
    let ratio = t.middle as f64 / t.summary.max(1) as f64;
    println!();
    let checks = [
        (
            "user requests verbatim",
            t.requests.pct(),
            100.0,
            t.requests,
        ),
        ("paths", t.paths.pct(), 98.0, t.paths),
        ("commands", t.commands.pct(), 95.0, t.commands),
        ("errors with resolution", t.errors.pct(), 90.0, t.errors),
    ];
    let mut ok = true;
    for (name, pct, target, tally) in checks {
        let met = pct >= target;
        ok &= met;
        println!(
            "{name:<24} {pct:>6.1}%  ({})  target ≥ {target}%  {}",
            tally.show(),
            if met { "met" } else { "MISSED" }
        );
    }
    let met = ratio >= 10.0;
    ok &= met && t.deterministic;
    println!(
        "{:<24} {ratio:>6.1}×  ({} → {} tokens)  target ≥ 10×  {}",
        "middle compression",
        t.middle,
        t.summary,
        if met { "met" } else { "MISSED" }
    );
    println!(
        "{:<24} {}",
        "byte-deterministic",
        if t.deterministic { "yes" } else { "NO" }
    );
    std::process::exit(if ok { 0 } else { 1 });
}

fn tally(r: &recall::Recall, k: Kind) -> Tally {
    let t = r.tally(k);
    Tally {
        hit: t.mentioned,
        all: t.facts,
    }
}

/// Errors whose line the summary shows with the right resolution beside it.
fn errors_with_resolution(msgs: &[ctxctl::session::Message], summary: &str) -> Tally {
    let mut t = Tally::default();
    for e in collect(msgs).errors {
        let line = e.line.lines().next().unwrap_or_default().trim();
        let line: String = line.chars().take(80).collect();
        let shown = summary.lines().find(|l| l.contains(line.trim()));
        let right = shown
            .is_some_and(|l| l.contains("— not seen resolved") != e.resolved && l.contains("— "));
        t.add(right);
    }
    t
}

/// Every `*.json` / `*.jsonl` file below `shared/fixtures/` (found walking up from the
/// crate), sorted.
fn fixtures() -> Vec<PathBuf> {
    let start = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(dir) = start
        .ancestors()
        .map(|a| a.join("shared/fixtures"))
        .find(|p| p.is_dir())
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "json" || x == "jsonl") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn short(p: &Path) -> String {
    let s = p.display().to_string();
    let s = s.rsplit("fixtures/").next().unwrap_or(&s).to_string();
    if s.chars().count() > 58 {
        let tail: String = s.chars().skip(s.chars().count() - 57).collect();
        format!("…{tail}")
    } else {
        s
    }
}
