//! The format cases: each directory `tests/formats/<format>/<case>/` is one run of the real
//! binary on a session of that format, compared with the outputs stored beside it, so a new
//! format's cases are files, not code. The layout is in tests/formats/README.md.
//!
//! `CTXCTL_BLESS=1 cargo test --test formats` writes the expected outputs from what the runs
//! give (review them with `git diff` before committing); without it every case is compared
//! and all the differences are reported at once, as line diffs.

// Tests read their own switches (CTXCTL_BLESS) and PATH from the environment.
#![allow(clippy::disallowed_methods)]

#[path = "support/mod.rs"]
mod shared;
#[allow(dead_code)]
#[path = "cli/support.rs"]
mod support;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use support::TestEnv;

/// Set to write the expected outputs instead of comparing with them.
const BLESS: &str = "CTXCTL_BLESS";

/// Where a case's expected files written by the run are kept.
const OUT: &str = "out";

fn root() -> PathBuf {
    support::repo().join("tests/formats")
}

fn blessing() -> bool {
    std::env::var_os(BLESS).is_some_and(|v| !v.is_empty() && v != "0")
}

struct Case {
    format: String,
    name: String,
    dir: PathBuf,
    input: PathBuf,
    args: Vec<String>,
}

impl Case {
    fn id(&self) -> String {
        format!("{}/{}", self.format, self.name)
    }
}

/// What a run gave, normalised: exit code, stdout, stderr and the files it wrote or changed
/// in its working directory (name → text).
#[derive(Default)]
struct Outcome {
    exit: i32,
    stdout: String,
    stderr: String,
    files: BTreeMap<String, String>,
}

/// The sorted subdirectories of `dir`.
fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    out.sort();
    out
}

/// The one `input.*` file in `dir`, if there is one.
fn input_in(dir: &Path) -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && name(p).starts_with("input."))
        .collect();
    assert!(found.len() <= 1, "{}: more than one input.*", dir.display());
    found.pop()
}

fn name(p: &Path) -> &str {
    p.file_name().and_then(|n| n.to_str()).expect("utf-8 name")
}

/// Every case, sorted by format and name.
fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for fdir in subdirs(&root()) {
        let shared_input = input_in(&fdir);
        for dir in subdirs(&fdir) {
            let cmd = fs::read_to_string(dir.join("cmd"))
                .unwrap_or_else(|e| panic!("{}/cmd: {e}", dir.display()));
            assert!(
                !cmd.contains(['"', '\'', '\\']),
                "{}/cmd: arguments are split on white space; quotes are not understood",
                dir.display()
            );
            let input = input_in(&dir)
                .or_else(|| shared_input.clone())
                .unwrap_or_else(|| panic!("{}: no input.* here or above", dir.display()));
            out.push(Case {
                format: name(&fdir).to_string(),
                name: name(&dir).to_string(),
                args: cmd.split_whitespace().map(str::to_string).collect(),
                dir,
                input,
            });
        }
    }
    assert!(!out.is_empty(), "no cases under {}", root().display());
    out
}

/// Numbers the UUIDs a run made up (those not in its input) in order of appearance, so
/// outputs compare across runs and still show which ids are the same.
struct Uuids {
    re: regex::Regex,
    known: BTreeSet<String>,
    made: HashMap<String, usize>,
}

impl Uuids {
    fn new(input: &str) -> Uuids {
        let re = regex::Regex::new("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
            .unwrap();
        let known = re
            .find_iter(input)
            .map(|m| m.as_str().to_string())
            .collect();
        Uuids {
            re,
            known,
            made: HashMap::new(),
        }
    }

    fn number(&mut self, text: &str) -> String {
        let mut out = String::new();
        let mut last = 0;
        for m in self.re.find_iter(text) {
            out.push_str(&text[last..m.start()]);
            let id = m.as_str();
            if self.known.contains(id) {
                out.push_str(id);
            } else {
                let next = self.made.len() + 1;
                let n = *self.made.entry(id.to_string()).or_insert(next);
                write!(out, "[UUID-{n}]").unwrap();
            }
            last = m.end();
        }
        out.push_str(&text[last..]);
        out
    }
}

/// Runs `case` in a fresh environment: its input copied into the working directory under
/// its own name, the arguments as given.
fn run(case: &Case) -> Outcome {
    let env = TestEnv::new();
    let input_name = name(&case.input);
    let input = fs::read(&case.input).unwrap();
    env.write(input_name, &input);
    let args: Vec<&str> = case.args.iter().map(String::as_str).collect();
    let run = env.run(&args);
    let mut uuids = Uuids::new(&String::from_utf8_lossy(&input));
    let mut norm = |text: &str| uuids.number(&env.redact_paths(text));
    let mut outcome = Outcome {
        exit: run.code,
        stdout: norm(&run.stdout),
        stderr: norm(&run.stderr),
        files: BTreeMap::new(),
    };
    // The files in the working directory that the run wrote or changed (HOME is below it:
    // the store and archives are not part of a case's outputs).
    let mut written: Vec<PathBuf> = fs::read_dir(env.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    written.sort();
    for p in written {
        let bytes = fs::read(&p).unwrap();
        if name(&p) == input_name && bytes == input {
            continue;
        }
        let text = norm(&String::from_utf8_lossy(&bytes));
        outcome.files.insert(name(&p).to_string(), text);
    }
    outcome
}

/// The outcome stored in a case's directory (missing files read as empty, exit as -1).
fn expected(case: &Case) -> Outcome {
    let read = |n: &str| fs::read_to_string(case.dir.join(n)).unwrap_or_default();
    let mut files = BTreeMap::new();
    let out = case.dir.join(OUT);
    if out.is_dir() {
        for e in fs::read_dir(&out).unwrap() {
            let p = e.unwrap().path();
            files.insert(name(&p).to_string(), fs::read_to_string(&p).unwrap());
        }
    }
    Outcome {
        exit: read("exit").trim().parse().unwrap_or(-1),
        stdout: read("stdout"),
        stderr: read("stderr"),
        files,
    }
}

fn bless(case: &Case, got: &Outcome) {
    fs::write(case.dir.join("exit"), format!("{}\n", got.exit)).unwrap();
    fs::write(case.dir.join("stdout"), &got.stdout).unwrap();
    fs::write(case.dir.join("stderr"), &got.stderr).unwrap();
    let out = case.dir.join(OUT);
    if out.exists() {
        fs::remove_dir_all(&out).unwrap();
    }
    for (n, text) in &got.files {
        fs::create_dir_all(&out).unwrap();
        fs::write(out.join(n), text).unwrap();
    }
}

/// A unified diff of `want` and `got` under a header, or nothing when they are equal.
fn diff(what: &str, want: &str, got: &str) -> Option<String> {
    (want != got).then(|| {
        let d = similar::TextDiff::from_lines(want, got);
        format!(
            "{what}:\n{}",
            d.unified_diff()
                .context_radius(2)
                .header("expected", "actual")
        )
    })
}

/// The differences between what a case should give and what it gave.
fn compare(case: &Case, want: &Outcome, got: &Outcome) -> Vec<String> {
    let mut out = Vec::new();
    if want.exit != got.exit {
        out.push(format!(
            "exit code: expected {}, got {}",
            want.exit, got.exit
        ));
    }
    out.extend(diff("stdout", &want.stdout, &got.stdout));
    out.extend(diff("stderr", &want.stderr, &got.stderr));
    let names: BTreeSet<&String> = want.files.keys().chain(got.files.keys()).collect();
    for n in names {
        match (want.files.get(n), got.files.get(n)) {
            (Some(w), Some(g)) => out.extend(diff(&format!("{OUT}/{n}"), w, g)),
            (Some(_), None) => {
                out.push(format!("{OUT}/{n}: expected, but the run did not write it"))
            }
            (None, Some(_)) => out.push(format!("{OUT}/{n}: written by the run, but not expected")),
            (None, None) => {}
        }
    }
    if !out.is_empty() {
        out.insert(0, format!("ctxctl {}", case.args.join(" ")));
    }
    out
}

/// Runs `cases` on every core, in order of the returned outcomes.
fn run_all(cases: &[Case]) -> Vec<Outcome> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Outcome>>> = Mutex::new(cases.iter().map(|_| None).collect());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(case) = cases.get(i) else { break };
                let got = run(case);
                results.lock().unwrap()[i] = Some(got);
            });
        }
    });
    results
        .into_inner()
        .unwrap()
        .into_iter()
        .map(|o| o.expect("every case ran"))
        .collect()
}

#[test]
#[allow(clippy::print_stderr)] // says what blessing wrote
fn every_case_gives_its_expected_outputs() {
    let cases = cases();
    let outcomes = run_all(&cases);
    if blessing() {
        for (case, got) in cases.iter().zip(&outcomes) {
            bless(case, got);
        }
        eprintln!(
            "{BLESS}: wrote the expected outputs of {} cases; review them with git diff",
            cases.len()
        );
        return;
    }
    let mut failures = String::new();
    let mut failed = 0;
    for (case, got) in cases.iter().zip(&outcomes) {
        let problems = compare(case, &expected(case), got);
        if !problems.is_empty() {
            failed += 1;
            writeln!(failures, "=== {} ({})", case.id(), case.dir.display()).unwrap();
            for p in problems {
                writeln!(failures, "{}", p.trim_end()).unwrap();
            }
        }
    }
    assert!(
        failed == 0,
        "{failed} of {} format cases differ from their expected outputs:\n\n{failures}\n\
         If the new outputs are right: {BLESS}=1 cargo test --test formats, then review \
         and commit the changes under tests/formats/",
        cases.len()
    );
}

/// The `--format` values ctxctl's help lists.
fn formats_in_help() -> BTreeSet<String> {
    let env = TestEnv::new();
    let help = env.run(&["--help"]).stdout;
    let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
    let after = &flat[flat.find("--format <FORMAT>").expect("--format in --help")..];
    let start = after.find("[possible values: ").unwrap() + "[possible values: ".len();
    let list = &after[start..start + after[start..].find(']').unwrap()];
    list.split(", ").map(str::to_string).collect()
}

#[test]
fn every_format_has_the_basic_cases() {
    let cases = cases();
    let dirs: BTreeSet<String> = cases.iter().map(|c| c.format.clone()).collect();
    assert_eq!(
        dirs,
        formats_in_help(),
        "tests/formats/ should hold one directory per --format value"
    );
    let mut missing = Vec::new();
    for format in &dirs {
        let of: Vec<&Case> = cases.iter().filter(|c| &c.format == format).collect();
        let mut has = |what: &str, ok: &dyn Fn(&Case) -> bool| {
            if !of.iter().any(|c| ok(c)) {
                missing.push(format!("{format}: no {what} case"));
            }
        };
        let cmd = |c: &Case, name: &str| c.args.first().is_some_and(|a| a == name);
        has("count", &|c| cmd(c, "count"));
        has("check", &|c| cmd(c, "check"));
        has("trim -o", &|c| {
            cmd(c, "trim") && c.args.iter().any(|a| a == "-o")
        });
        has("compact -o", &|c| {
            cmd(c, "compact") && c.args.iter().any(|a| a == "-o")
        });
        has("bad input (exit 2, one error line)", &|c| {
            let want = expected(c);
            want.exit == 2 && want.stderr.lines().filter(|l| l.contains("error:")).count() == 1
        });
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}
