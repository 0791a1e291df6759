//! Every command shown in README.md and docs/*.md runs, and prints what the page shows, so
//! the pages cannot rot.
//!
//! Each page's fenced blocks are read in order and run in one scratch environment of its own
//! (a `TestEnv` whose working directory holds copies of `sample-sessions/`, `completions/`
//! and `man/`, and whose HOME holds a Claude Code and a Codex session, last written two days
//! before the fixed `CTXCTL_NOW`), the way a reader would type them in one shell:
//!
//! - ```` ```console ````: each line starting with `$ ` is a command, run with `sh -c` and the
//!   built `ctxctl` first on PATH. A trailing `# exit N` gives the expected exit code (default
//!   0). `export A=B …` lines set variables for the commands after them. The lines under a
//!   command are its output, compared with what it printed (see tests/cli/readme_match.rs:
//!   paths, URLs, UUIDs and column widths are normalised, `…` leaves lines out, shown JSON
//!   may leave out fields); a command shown with no output must print nothing.
//! - ```` ```toml ````: the example config; parsed with `FileConfig::parse`, checked to set
//!   every key the schema knows, and saved as `config.toml` for the commands that follow.
//! - ```` ```yaml ````: a GitHub Actions step (its `run:` commands) or a pre-commit hook (its
//!   `entry:` with session files appended, as pre-commit calls it) is run the same way.
//! - ```` ```sh ````: `cargo run --release -- ARGS` runs `ctxctl ARGS`; a crontab line runs
//!   its command; `cargo test --locked` must be what `.ci/run` runs.
//! - ```` ```text ````: illustrative text, not run.
//!
//! Commands needing an LLM (`--summarizer llm`) or a provider's token counter
//! (`--count-with api`) run against loopback servers standing in for them: for those commands
//! `CTXCTL_LLM_BASE_URL` and `CTXCTL_COUNT_API_BASE_URL` point at the servers (a page's export
//! of either is shown in their place), and such a command must have sent a request. A
//! command that cannot run here is listed in `NOT_RUNNABLE` with the reason; anything else
//! unknown fails the test.
//!
//! `CTXCTL_DOCS_BLESS=1` rewrites the shown output of every command whose output differs with
//! what it printed (review the diff); `CTXCTL_README_TRANSCRIPT=FILE` writes every command
//! with its output, as the pages would show it, to FILE.

// Commands not run, and those waiting for a feature, are noted on the test's stderr.
#![allow(clippy::print_stderr)]

use std::io::Write as _;
use std::path::Path;

use crate::http::Server;
use crate::readme_blocks::{
    blocks, cron_command, expected_exit, programs, schema_keys, strip_comment, Block,
};
use crate::readme_match::{json_shown, lines, localize, matches};
use crate::support::{repo, Run, TestEnv};

/// README commands (by prefix) that are not run here, and why.
const NOT_RUNNABLE: &[(&str, &str)] = &[
    (
        "cargo install",
        "installs into ~/.cargo; the tests run the binary cargo just built",
    ),
    (
        "cargo test",
        "the test suite itself; `cargo test --locked` is checked against .ci/run",
    ),
    ("cargo fmt", "a CI step of .ci/run, not a ctxctl command"),
    ("cargo clippy", "a CI step of .ci/run, not a ctxctl command"),
    (
        "CTXCTL_UPDATE_GENERATED=1 cargo test",
        "rewrites checked-in files; tests/cli/generated.rs checks them",
    ),
    (
        "INSTA_UPDATE=always cargo test",
        "re-records snapshots; the snapshot tests compare against them",
    ),
    (
        "CTXCTL_BLESS=1 cargo test",
        "re-records tests/formats/ expectations; tests/formats.rs compares against them",
    ),
    (
        "python3 scripts/make-samples.py",
        "checked by samples::make_samples_reproduces_the_samples",
    ),
    (
        "python3 scripts/bench.py",
        "needs a release build and minutes; prints figures, asserts nothing",
    ),
    (
        "CC_VERSION=",
        "installs a real Claude Code from npm; scripts/e2e run in .ci/run",
    ),
    (
        "CODEX_VERSION=",
        "installs a real Codex CLI from npm; scripts/e2e run in .ci/run",
    ),
    ("cargo install cargo-fuzz", "installs a tool into ~/.cargo"),
    ("fuzz/seed.sh", "fills fuzz/corpus/ for a fuzzing run"),
    (
        "RUSTC_BOOTSTRAP=1 cargo fuzz",
        "fuzzes for minutes; tests/fuzz_regressions.rs replays what it found",
    ),
    (
        "CTXCTL_DOCS_BLESS=1 cargo test",
        "rewrites the docs' shown output; this test compares it",
    ),
];

/// Pages whose examples another test runs, in the setting they need, and which one.
const OWN_TEST: &[(&str, &str)] = &[(
    "docs/project-session.md",
    "tests/cli/here.rs runs it inside a project directory",
)];

/// Programs README commands may use besides ctxctl.
const TOOLS: &[&str] = &["cat", "cp", "mkdir", "head", "cut"];

/// Block languages the README may use; anything else must be added here with a rule.
const LANGUAGES: &[&str] = &["console", "sh", "toml", "yaml", "rust", "text"];

fn readme() -> String {
    std::fs::read_to_string(repo().join("README.md")).unwrap()
}

/// README.md, then docs/*.md by name: (path relative to the repository, text).
fn pages() -> Vec<(String, String)> {
    let mut docs: Vec<String> = std::fs::read_dir(repo().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    docs.sort();
    std::iter::once("README.md".to_string())
        .chain(docs)
        .map(|p| {
            let text = std::fs::read_to_string(repo().join(&p)).unwrap();
            (p, text)
        })
        .collect()
}

fn not_runnable(cmd: &str) -> Option<&'static str> {
    NOT_RUNNABLE
        .iter()
        .find(|(prefix, _)| cmd.starts_with(prefix))
        .map(|(_, why)| *why)
}

/// The scratch environment every command of one page runs in, and what the run saw.
struct Scratch {
    /// The page being run, for messages (`README.md`, `docs/USAGE.md`).
    page: String,
    env: TestEnv,
    llm: Server,
    count: Server,
    /// What the page exported as `CTXCTL_LLM_BASE_URL` / `CTXCTL_COUNT_API_BASE_URL`.
    llm_url: Option<String>,
    count_url: Option<String>,
    keys: Vec<String>,
    ran: usize,
    llm_calls: usize,
    count_calls: usize,
    /// With `CTXCTL_DOCS_BLESS`: (first line index, lines replaced, new lines).
    bless: Option<Vec<(usize, usize, Vec<String>)>>,
    transcript: Option<std::fs::File>,
}

/// When the sample agent sessions were last written: two days before `CTXCTL_NOW`.
const SESSIONS_WRITTEN: u64 = 1_767_150_245;

impl Scratch {
    fn new(page: &str) -> Scratch {
        let llm = Server::llm_stub();
        let count = Server::count_stub();
        let env = TestEnv::new();
        for dir in ["sample-sessions", "completions", "man"] {
            copy_dir(&repo().join(dir), &env.path().join(dir));
        }
        let sample = |name: &str| std::fs::read(repo().join("sample-sessions").join(name)).unwrap();
        for name in ["openai-chat.json", "claude-code.jsonl"] {
            env.write(&format!("sessions/{name}"), sample(name));
        }
        let home = env.home();
        let claude = home.join(".claude/projects/-home-dev-shop");
        let codex = home.join(".codex/sessions/2026/03/14");
        let sessions = [
            (
                claude.join("d93e3082-ad22-40cf-b10b-b53b83ced403.jsonl"),
                "claude-code.jsonl",
            ),
            (
                codex
                    .join("rollout-2026-03-14T10-12-03-019ceb9d-f459-75a8-bb88-0af9e4aaa557.jsonl"),
                "codex.jsonl",
            ),
        ];
        let written = std::time::UNIX_EPOCH + std::time::Duration::from_secs(SESSIONS_WRITTEN);
        for (path, name) in sessions {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, sample(name)).unwrap();
            let file = std::fs::File::options().write(true).open(&path).unwrap();
            file.set_modified(written).unwrap();
        }
        let transcript = std::env::var_os("CTXCTL_README_TRANSCRIPT").map(|p| {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .expect("CTXCTL_README_TRANSCRIPT")
        });
        let bless = std::env::var_os("CTXCTL_DOCS_BLESS").map(|_| Vec::new());
        Scratch {
            page: page.to_string(),
            env,
            llm,
            count,
            llm_url: None,
            count_url: None,
            keys: Vec::new(),
            ran: 0,
            llm_calls: 0,
            count_calls: 0,
            bless,
            transcript,
        }
    }

    /// `export A=B C=D`: sets the variables for later commands.
    fn export(&mut self, cmd: &str) {
        for pair in strip_comment(cmd).split_whitespace().skip(1) {
            let (k, v) = pair.split_once('=').expect("export NAME=VALUE");
            let v = v.trim_matches(['\'', '"']);
            if k.ends_with("API_KEY") {
                self.keys.push(v.to_string());
            }
            match k {
                "CTXCTL_LLM_BASE_URL" => self.llm_url = Some(v.to_string()),
                "CTXCTL_COUNT_API_BASE_URL" => self.count_url = Some(v.to_string()),
                _ => {}
            }
            self.env.set(k, v);
        }
    }

    /// Real output as the page shows it: HOME as `~`, the working directory as `~/work`,
    /// the loopback servers as the URLs the page exported.
    fn localize(&self, text: &str) -> String {
        let mut subs = Vec::new();
        for (dir, shown) in [
            (self.env.home(), "~"),
            (self.env.path().to_path_buf(), "~/work"),
        ] {
            if let Ok(real) = dir.canonicalize() {
                subs.push((real.display().to_string(), shown.to_string()));
            }
            subs.push((dir.display().to_string(), shown.to_string()));
        }
        if let Some(url) = &self.llm_url {
            subs.push((format!("{}/v1", self.llm.url), url.clone()));
        }
        if let Some(url) = &self.count_url {
            subs.push((self.count.url.clone(), url.clone()));
        }
        localize(text, &subs)
    }

    /// Runs one command from the page's line `line` and checks its exit code.
    fn run(&mut self, line: usize, cmd: &str, expect: i32) -> Run {
        let page = self.page.clone();
        for program in programs(cmd) {
            assert!(
                program == "ctxctl" || TOOLS.contains(&program),
                "{page}:{line}: `{cmd}` uses {program:?}; run only ctxctl and {TOOLS:?}, \
                 or list the command in NOT_RUNNABLE with the reason"
            );
        }
        let llm = cmd.contains("--summarizer llm");
        let count = cmd.contains("--count-with api");
        let before = (self.llm.requests().len(), self.count.requests().len());
        // Only these reach the loopback servers; the others see what the page exported.
        if llm || count {
            let (llm_url, count_url) = (format!("{}/v1", self.llm.url), self.count.url.clone());
            self.env.set("CTXCTL_LLM_BASE_URL", &llm_url);
            self.env.set("CTXCTL_COUNT_API_BASE_URL", &count_url);
        }
        let run = self.env.shell(cmd);
        for (var, exported) in [
            ("CTXCTL_LLM_BASE_URL", self.llm_url.clone()),
            ("CTXCTL_COUNT_API_BASE_URL", self.count_url.clone()),
        ] {
            match exported {
                Some(v) => self.env.set(var, &v),
                None => self.env.unset(var),
            }
        }
        self.ran += 1;
        let shown = self.localize(&format!("{}{}", run.stdout, run.stderr));
        if let Some(t) = &mut self.transcript {
            let _ = write!(t, "{page}:{line}\n$ {cmd}\n{shown}\n");
        }
        assert_eq!(
            run.code, expect,
            "{page}:{line}: `{cmd}` exited {} instead of {expect}\n{run:?}",
            run.code
        );
        if llm {
            assert!(
                self.llm.requests().len() > before.0,
                "{page}:{line}: `{cmd}` did not call the summarizer"
            );
            self.llm_calls += 1;
        }
        if count {
            assert!(
                self.count.requests().len() > before.1,
                "{page}:{line}: `{cmd}` did not ask the counting endpoint"
            );
            self.count_calls += 1;
        }
        for key in &self.keys {
            assert!(
                !run.stdout.contains(key.as_str()) && !run.stderr.contains(key.as_str()),
                "{page}:{line}: `{cmd}` printed an API key"
            );
        }
        run
    }

    /// Compares what a command printed with the `shown` lines under it (from line `at`).
    fn compare(&mut self, at: usize, cmd: &str, shown: &[String], run: &Run) {
        let out = self.localize(&run.stdout);
        let err = self.localize(&run.stderr);
        let piped = cmd.contains('|') || cmd.contains('>');
        let json = cmd.contains("--json") && !piped && !shown.is_empty() && run.code == 0;
        let verdict = if json {
            json_shown(&shown.join("\n"), &out)
        } else if matches(shown, &lines(&out), &lines(&err)) {
            Ok(())
        } else {
            Err("the output shown is not what it printed".to_string())
        };
        let Err(why) = verdict else { return };
        let mut real = lines(&out);
        real.extend(lines(&err));
        let page = self.page.clone();
        match &mut self.bless {
            Some(edits) => edits.push((at, shown.len(), real)),
            None => panic!(
                "{page}:{at}: `{cmd}`: {why} (CTXCTL_DOCS_BLESS=1 rewrites it)\n--- shown\n{}\n--- printed\n{}",
                shown.join("\n"),
                real.join("\n")
            ),
        }
    }

    fn console(&mut self, block: &Block) {
        let mut i = 0;
        while i < block.lines.len() {
            let line = block.line + i;
            let Some(cmd) = block.lines[i].strip_prefix("$ ") else {
                panic!(
                    "{}:{line}: console block text before the first `$ ` command",
                    self.page
                );
            };
            assert!(
                !cmd.ends_with('\\'),
                "{}:{line}: keep commands on one line",
                self.page
            );
            let mut shown: Vec<String> = block.lines[i + 1..]
                .iter()
                .take_while(|l| !l.starts_with("$ "))
                .cloned()
                .collect();
            let taken = shown.len();
            while shown.last().is_some_and(|l| l.trim().is_empty()) {
                shown.pop();
            }
            i += 1 + taken;
            if programs(cmd).first() == Some(&"export") {
                self.export(cmd);
                continue;
            }
            if let Some(why) = not_runnable(cmd) {
                eprintln!("{}:{line}: not run ({why}): {cmd}", self.page);
                continue;
            }
            let run = self.run(line, cmd, expected_exit(cmd));
            self.compare(line + 1, cmd, &shown, &run);
        }
    }

    fn toml(&mut self, block: &Block) {
        let text = block.lines.join("\n") + "\n";
        let parsed = ctxctl::config::FileConfig::parse(&text, Path::new("README.md"));
        if let Err(e) = parsed {
            panic!(
                "{}:{}: the example config does not parse: {e}",
                self.page, block.line
            );
        }
        let value: toml::Table = text.parse().unwrap();
        for (table, keys) in schema_keys() {
            let t = match table {
                "" => Some(&value),
                "models" => value
                    .get("models")
                    .and_then(|m| m.as_table())
                    .and_then(|m| m.values().next())
                    .and_then(|v| v.as_table()),
                name => value.get(name).and_then(|v| v.as_table()),
            };
            for key in keys {
                assert!(
                    t.is_some_and(|t| t.contains_key(&key)),
                    "{}:{}: the example config lacks [{table}] {key}",
                    self.page,
                    block.line
                );
            }
        }
        self.env.write("config.toml", text);
    }

    fn yaml(&mut self, block: &Block) {
        let mut found = 0;
        for (i, l) in block.lines.iter().enumerate() {
            let line = block.line + i;
            let l = l.trim().trim_start_matches("- ");
            if let Some(cmd) = l.strip_prefix("run:") {
                let cmd = cmd.trim();
                found += 1;
                match not_runnable(cmd) {
                    Some(why) => eprintln!("{}:{line}: not run ({why}): {cmd}", self.page),
                    None => {
                        self.run(line, cmd, 0);
                    }
                }
            } else if let Some(entry) = l.strip_prefix("entry:") {
                found += 1;
                // pre-commit appends the staged files that match `files:`: sessions, and a
                // JSON file that is none (a project's package.json).
                self.env.write(
                    "package.json",
                    "{\"name\": \"app\", \"version\": \"1.0.0\", \"private\": true}\n",
                );
                let cmd = format!(
                    "{} sample-sessions/openai-chat.json package.json sample-sessions/plain.jsonl",
                    entry.trim()
                );
                self.run(line, &cmd, 0);
            }
        }
        assert!(
            found > 0,
            "{}:{}: a yaml block with no `run:` or `entry:` to check",
            self.page,
            block.line
        );
    }

    fn sh(&mut self, block: &Block) {
        for (i, l) in block.lines.iter().enumerate() {
            let line = block.line + i;
            let l = l.trim();
            if l.is_empty() || l.starts_with('#') {
                continue;
            }
            let cmd = strip_comment(l);
            if let Some(args) = cmd.strip_prefix("cargo run --release -- ") {
                self.run(line, &format!("ctxctl {args}"), expected_exit(l));
            } else if let Some(cmd) = cron_command(cmd) {
                let cmd = cmd.replace("$HOME/.cargo/bin/ctxctl", "ctxctl");
                self.run(line, &cmd, 0);
            } else if cmd == "cargo test --locked" {
                assert!(
                    ci_runs(cmd),
                    "{}:{line}: .ci/run does not run `{cmd}`; keep them in sync",
                    self.page
                );
            } else {
                let why = not_runnable(cmd).unwrap_or_else(|| {
                    panic!(
                        "{}:{line}: `{cmd}` is neither run nor in NOT_RUNNABLE",
                        self.page
                    )
                });
                eprintln!("{}:{line}: not run ({why}): {cmd}", self.page);
            }
        }
    }

    /// With `CTXCTL_DOCS_BLESS`: writes the page back with the output its commands printed.
    fn write_back(&mut self, text: &str) {
        let Some(mut edits) = self.bless.take() else {
            return;
        };
        if edits.is_empty() {
            return;
        }
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        edits.sort_by_key(|e| std::cmp::Reverse(e.0));
        for (at, n, new) in &edits {
            lines.splice(at - 1..at - 1 + n, new.iter().cloned());
        }
        let mut out = lines.join("\n");
        out.push('\n');
        std::fs::write(repo().join(&self.page), out).unwrap();
        eprintln!(
            "{}: rewrote the output of {} command(s)",
            self.page,
            edits.len()
        );
    }
}

/// A `Cargo.toml` snippet (the library section): a `[dependencies]` table.
fn is_manifest(block: &Block) -> bool {
    block
        .lines
        .first()
        .is_some_and(|l| l.trim() == "[dependencies]")
}

/// A manifest snippet must depend on ctxctl without its default features (the CLI), and
/// only ask for features the crate has.
fn manifest(page: &str, block: &Block) {
    let text = block.lines.join("\n");
    let value: toml::Table = text
        .parse()
        .unwrap_or_else(|e| panic!("{page}:{}: not TOML: {e}", block.line));
    let dep = &value["dependencies"]["ctxctl"];
    assert_eq!(
        dep.get("default-features").and_then(|v| v.as_bool()),
        Some(false),
        "{page}:{}: the library is used without the CLI",
        block.line
    );
    let cargo: toml::Table = std::fs::read_to_string(repo().join("Cargo.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let features = cargo["features"].as_table().unwrap();
    for f in dep
        .get("features")
        .and_then(|v| v.as_array())
        .into_iter()
        .flatten()
    {
        let f = f.as_str().unwrap();
        assert!(
            features.contains_key(f),
            "{page}:{}: no feature {f}",
            block.line
        );
    }
}

/// A Rust example must be one of the crate's doc tests (which `cargo test` compiles and
/// runs), line for line: its lines appear, in order, in the docs of src/lib.rs or
/// src/manager/mod.rs.
fn rust(page: &str, block: &Block) {
    let docs: String = ["src/lib.rs", "src/manager/mod.rs"]
        .iter()
        .map(|f| std::fs::read_to_string(repo().join(f)).unwrap())
        .flat_map(|text| {
            text.lines()
                .filter_map(|l| l.strip_prefix("//!"))
                .map(|l| l.strip_prefix(' ').unwrap_or(l).to_string())
                .collect::<Vec<_>>()
        })
        .collect::<Vec<_>>()
        .join("\n");
    let example = block.lines.join("\n");
    assert!(
        docs.contains(&example),
        "{page}:{}: this Rust example is not a doc test of src/lib.rs or src/manager/mod.rs; \
         copy it there so that `cargo test` runs it",
        block.line
    );
}

/// Runs every block of one page in a scratch environment of its own.
fn run_page(page: &str, text: &str) -> Scratch {
    let mut s = Scratch::new(page);
    for block in blocks(text) {
        assert!(
            LANGUAGES.contains(&block.lang.as_str()),
            "{page}:{}: a ```{} block; give it a rule in tests/cli/readme.rs",
            block.line,
            block.lang
        );
        match block.lang.as_str() {
            "console" => s.console(&block),
            "toml" if is_manifest(&block) => manifest(page, &block),
            "toml" => s.toml(&block),
            "yaml" => s.yaml(&block),
            "rust" => rust(page, &block),
            "text" => {}
            _ => s.sh(&block),
        }
    }
    s.write_back(text);
    s
}

#[test]
fn every_readme_command_runs() {
    let s = run_page("README.md", &readme());
    assert!(s.ran >= 15, "only {} README commands ran", s.ran);
}

/// The manual's pages run the same way, each in a scratch environment of its own.
#[test]
fn every_docs_command_runs() {
    let (mut ran, mut llm, mut count) = (0, 0, 0);
    for (page, text) in pages().into_iter().skip(1) {
        if let Some((_, why)) = OWN_TEST.iter().find(|(p, _)| *p == page) {
            eprintln!("{page}: not run here ({why})");
            continue;
        }
        let s = run_page(&page, &text);
        ran += s.ran;
        llm += s.llm_calls;
        count += s.count_calls;
    }
    assert!(ran >= 60, "only {ran} docs commands ran");
    assert!(llm >= 3, "the LLM examples did not reach the server");
    assert!(
        count >= 1,
        "the --count-with api examples did not reach the server"
    );
}

/// The README stays a page for a person's first minutes; the manual is in docs/, and its
/// index links every page.
#[test]
fn readme_fits_and_the_docs_index_links_every_page() {
    let n = readme().lines().count();
    assert!(n <= 450, "README.md has {n} lines; move material to docs/");
    let index = std::fs::read_to_string(repo().join("docs/README.md")).unwrap();
    for entry in std::fs::read_dir(repo().join("docs")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name != "README.md" && (name.ends_with(".md") || name.ends_with(".json")) {
            assert!(
                index.contains(&format!("]({name}")),
                "docs/README.md does not link {name}"
            );
        }
    }
}

/// The README opens with the two set-up commands, and its test command is CI's.
#[test]
fn readme_opens_with_the_setup_commands() {
    let text = readme();
    let first = &blocks(&text)[0];
    assert!(first.line <= 4, "the first code block must open the README");
    let cmds: Vec<&str> = first.lines.iter().map(|l| strip_comment(l)).collect();
    assert_eq!(cmds.len(), 2, "{cmds:?}");
    assert!(cmds[0].starts_with("cargo run --release -- "), "{cmds:?}");
    assert_eq!(cmds[1], "cargo test --locked");
    assert!(ci_runs(cmds[1]), ".ci/run must run `{}`", cmds[1]);
}

/// Every `CTXCTL_*` variable, strategy and subcommand is in the README or the manual.
#[test]
fn docs_cover_every_variable_strategy_and_command() {
    let pages = pages();
    let text: String = pages
        .iter()
        .map(|(_, t)| t.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    for (name, _) in ctxctl::config::env::DOCUMENTED {
        assert!(text.contains(&format!("`{name}`")), "no page names {name}");
    }
    let commands: Vec<String> = blocks(&text)
        .into_iter()
        .filter(|b| b.lang == "console")
        .flat_map(|b| b.lines)
        .filter_map(|l| l.strip_prefix("$ ").map(str::to_string))
        .collect();
    for kind in ctxctl::strategy::StrategyKind::ALL {
        let flag = format!("--strategy {}", kind.name());
        assert!(
            commands.iter().any(|c| c.contains(&flag)),
            "no page has an example of {flag}"
        );
    }
    for sub in ctxctl::cli::command().get_subcommands() {
        let name = sub.get_name();
        if name == "help" {
            continue;
        }
        let used = commands.iter().any(|c| {
            let words: Vec<&str> = c.split_whitespace().collect();
            // `ctxctl NAME` or `ctxctl --global-option… NAME`
            words
                .windows(2)
                .any(|w| (w[0] == "ctxctl" || w[0].starts_with('-')) && w[1] == name)
        });
        assert!(used, "no page has a `ctxctl {name}` command");
    }
}

fn ci_runs(cmd: &str) -> bool {
    let ci = std::fs::read_to_string(repo().join(".ci/run")).unwrap();
    ci.lines().any(|l| l.trim() == cmd)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}
