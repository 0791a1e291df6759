//! An agent appending to its session while `trim --in-place` and `compact --in-place`
//! replace it, thousands of times: every record the agent wrote ends up in the session or
//! in exactly one archive, never lost, never twice (docs/HARDENING.md, "An agent appending
//! while the input is replaced loses nothing").
//!
//! Most rewrites run in this process through `ctxctl::cli::run_captured`, the binary's own
//! path from the parsed command line on (settings, lock, archive, check, rename, carry-over),
//! minus the start of a process that would make thousands of runs too slow for CI; a few
//! hundred run the real binary. Both race the same appender thread.

use std::fs;
use std::io::Write as _;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{archives, s, TestEnv};

/// Rewrites run in this process, per command (the bulk of the race);
/// `CTXCTL_RACE_RUNS=N` runs N instead (a soak run).
const IN_PROCESS: usize = 850;
/// Rewrites run by the real binary, per command.
const BINARY: usize = 150;
/// The agent's mean pause between bursts of records, in milliseconds. Much shorter and a
/// rewrite rarely gets from reading the session to checking it (the archive's fsync lies
/// between) without an append, so most runs give up (safe, but then little is raced) and
/// the session snowballs.
const PAUSE_MS: u64 = 30;

/// The agent waits (as for its model's answer) while its session is larger than this:
/// a streak of runs that give up would otherwise let it snowball, each run reading more
/// and so giving up more often.
const MAX_SESSION: u64 = 16 << 10;

fn in_process_runs() -> usize {
    std::env::var("CTXCTL_RACE_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(IN_PROCESS)
}

/// The agent: opens the session for each record, writes it whole, closes it, as Claude
/// Code does; in bursts of a few records (a tool call, its result, the answer), then a
/// pause of a few milliseconds that varies, so that appends land at every step of a
/// replacement. It never sees ctxctl.
struct Appender {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<u64>,
}

impl Appender {
    fn start(path: &Path, pause_ms: u64) -> Appender {
        let stop = Arc::new(AtomicBool::new(false));
        let (path, flag) = (path.to_path_buf(), Arc::clone(&stop));
        let thread = std::thread::spawn(move || {
            let mut n = 0u64;
            while !flag.load(Ordering::Relaxed) {
                if fs::metadata(&path).map_or(0, |m| m.len()) > MAX_SESSION {
                    std::thread::sleep(Duration::from_millis(1));
                    continue;
                }
                let role = if n.is_multiple_of(2) {
                    "user"
                } else {
                    "assistant"
                };
                let line = serde_json::json!({
                    "role": role,
                    "content": format!("appended {n} with a few words so that rewrites have work"),
                });
                let mut out = fs::OpenOptions::new().append(true).open(&path).unwrap();
                out.write_all(format!("{line}\n").as_bytes()).unwrap();
                drop(out);
                n += 1;
                let pause = if n.is_multiple_of(3) {
                    // Between bursts: pause_ms, give or take half of it.
                    Duration::from_micros(pause_ms * 500 + (n * 7_919) % (pause_ms * 1_000))
                } else {
                    Duration::from_micros(200)
                };
                std::thread::sleep(pause);
            }
            n
        });
        Appender { stop, thread }
    }

    /// Stops the agent; how many records it wrote.
    fn stop(self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().unwrap()
    }
}

/// The record number an appended record carries, if it is one of the appender's.
fn appended_number(record: &Value) -> Option<u64> {
    record["content"]
        .as_str()?
        .strip_prefix("appended ")?
        .split(' ')
        .next()?
        .parse()
        .ok()
}

/// What one racing run did.
#[derive(Debug, Default)]
struct Tally {
    runs: usize,
    /// The session was replaced (an archive was written and kept).
    rewrites: usize,
    /// Records appended while it was replaced were carried into the new file.
    carried: usize,
    /// The input changed before the check: read again.
    retried: usize,
    /// It changed again: left alone, exit 2.
    gave_up: usize,
    /// Nothing to do (within budget, nothing worth compacting).
    unchanged: usize,
}

impl Tally {
    fn add(&mut self, code: u8, stdout: &str, stderr: &str) {
        self.runs += 1;
        if stderr.contains("reading it again") {
            self.retried += 1;
        }
        if stderr.contains("the agent appended while it was replaced were kept") {
            self.carried += 1;
        }
        match code {
            0 => {
                let report: Value = serde_json::from_str(stdout)
                    .unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"));
                if report["archive"].is_string() {
                    self.rewrites += 1;
                } else {
                    self.unchanged += 1;
                }
            }
            // The input kept changing between reading and replacing: left as it was.
            2 if stderr.contains("changed again while ctxctl was working on it") => {
                self.gave_up += 1
            }
            _ => panic!("exit {code}\n{stdout}\n{stderr}"),
        }
    }
}

fn trim_args(f: &Path) -> Vec<String> {
    let args = [
        "trim",
        s(f),
        "--strategy",
        "fifo",
        "--max-tokens",
        "300",
        "--model",
        "gpt-4o",
        "--tokenizer",
        "approx",
        "--in-place",
        // The appender holds the file open: a live session, rewritten here on purpose to
        // race the rewrite's own check against a writer.
        "--include-live",
        "--json",
    ];
    args.map(String::from).to_vec()
}

fn compact_args(f: &Path) -> Vec<String> {
    let args = [
        "compact",
        s(f),
        "--tail-tokens",
        "150",
        "--summary-tokens",
        "60",
        "--model",
        "gpt-4o",
        "--tokenizer",
        "approx",
        "--in-place",
        // The appender holds the file open: a live session, rewritten here on purpose to
        // race the rewrite's own check against a writer.
        "--include-live",
        "--json",
    ];
    args.map(String::from).to_vec()
}

/// Races the appender against [`in_process_runs`] rewrites run in this process, then
/// [`BINARY`] runs of the real binary, each `args(session)`; checks that nothing was lost
/// or doubled and that the race was run (rewrites landed).
#[allow(clippy::print_stderr)] // reports the figures
fn race(args: fn(&Path) -> Vec<String>) {
    let env = TestEnv::new();
    // Every archive is kept: the check is that each record is in the session or in one.
    env.write(
        "home/.config/ctxctl/config.toml",
        "[archive]\nkeep = 0\nmax_mib = 0\n",
    );
    let f = env.write("live.jsonl", crate::support::jsonl_chat(4));
    let vars = env.vars();
    let appender = Appender::start(&f, PAUSE_MS);
    let (mut here, mut binary) = (Tally::default(), Tally::default());
    let started = Instant::now();
    for _ in 0..in_process_runs() {
        use ctxctl::render::capture::Stream;
        let pairs = vars.iter().map(|(k, v)| (k.as_str(), v.as_str()));
        let env = ctxctl::config::Env::from_pairs(pairs);
        let (status, out) = ctxctl::cli::run_captured(args(&f), env).unwrap();
        here.add(
            status.code(),
            &out.text(Stream::Stdout),
            &out.text(Stream::Stderr),
        );
    }
    for _ in 0..BINARY {
        let argv = args(&f);
        let run = env.run(&argv.iter().map(String::as_str).collect::<Vec<_>>());
        binary.add(run.code as u8, &run.stdout, &run.stderr);
    }
    let written = appender.stop();
    let summary = format!(
        "{}: {written} records appended in {:.1?}; in process {here:?}; binary {binary:?}",
        args(&f)[0],
        started.elapsed()
    );
    eprintln!("{summary}");
    assert_nothing_lost_or_doubled(&env, &f, written, &summary);
    // Whether an append lands in the short window between the check and the rename is
    // luck (a fast disk's fsync narrows it to nothing): carrying is asserted by the unit
    // tests of `ops::carry`, which append in that window on purpose; here only that the
    // race ran: rewrites landed on both routes while the appender wrote, and some found their
    // input changed under them. (How many land depends on the machine's load: a slower
    // run sees the input change more often and gives up, exit 2, as it should.)
    assert!(
        here.rewrites > 0 && binary.rewrites > 0 && here.retried + binary.retried > 0,
        "too little was raced: {summary}"
    );
}

/// Every record the appender wrote is in the session or in exactly one archive.
fn assert_nothing_lost_or_doubled(env: &TestEnv, f: &Path, written: u64, summary: &str) {
    let mut seen = vec![0u32; written as usize];
    let mut count = |record: &Value| {
        if let Some(n) = appended_number(record) {
            seen[n as usize] += 1;
        }
    };
    for line in fs::read_to_string(f).unwrap().lines() {
        count(&serde_json::from_str(line).expect(line));
    }
    let archived = archives(env, "live");
    for path in &archived {
        let archive: Value = crate::support::read_archive(path);
        for record in archive["records"].as_array().unwrap() {
            count(record);
        }
    }
    let lost: Vec<usize> = (0..seen.len()).filter(|&i| seen[i] == 0).collect();
    let doubled: Vec<usize> = (0..seen.len()).filter(|&i| seen[i] > 1).collect();
    assert!(
        lost.is_empty() && doubled.is_empty(),
        "{summary}, {} archives: lost {lost:?}, more than once {doubled:?}",
        archived.len()
    );
}

#[test]
fn an_agent_appending_through_a_thousand_in_place_trims_loses_nothing() {
    race(trim_args);
}

#[test]
fn an_agent_appending_through_a_thousand_in_place_compactions_loses_nothing() {
    race(compact_args);
}
