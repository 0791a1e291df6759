//! Every command shown in README.md runs, so the README cannot rot.
//!
//! The README's fenced blocks are read in order and run in one scratch environment (a
//! `TestEnv` whose working directory holds copies of `sample-sessions/`, `completions/` and
//! `man/`, and whose HOME holds Claude Code and Codex session directories), the way a reader
//! would type them in one shell:
//!
//! - ```` ```console ````: each line starting with `$ ` is a command, run with `sh -c` and the
//!   built `ctxctl` first on PATH. A trailing `# exit N` gives the expected exit code (default
//!   0). `export A=B …` lines set variables for the commands after them. The lines under a
//!   command are its output as shown to readers: illustrative, NOT asserted (numbers and paths
//!   differ per machine), except that shown `--json` output must parse and use only field
//!   names the real output has.
//! - ```` ```toml ````: the example config; parsed with `FileConfig::parse`, checked to set
//!   every key the schema knows, and saved as `config.toml` for the commands that follow.
//! - ```` ```yaml ````: a GitHub Actions step (its `run:` commands) or a pre-commit hook (its
//!   `entry:` with session files appended, as pre-commit calls it) is run the same way.
//! - ```` ```sh ````: `cargo run --release -- ARGS` runs `ctxctl ARGS`; a crontab line runs
//!   its command; `cargo test --locked` must be what `.ci/run` runs.
//!
//! Commands needing an LLM run against a loopback server that answers in OpenAI or Anthropic
//! shape; `CTXCTL_LLM_BASE_URL` always points at it (a README export of that variable is
//! replaced), and such a command must have sent it a request. Likewise the token-counting
//! examples (`--count-with api`) reach a loopback stand-in for the providers' counting
//! endpoints through `CTXCTL_COUNT_API_BASE_URL`. A command that cannot run here
//! is listed in `NOT_RUNNABLE` with the reason; anything else unknown fails the test.
//!
//! `CTXCTL_README_TRANSCRIPT=FILE` writes every command with its real output to FILE, for
//! whoever updates the README's examples.

// Commands not run, and those waiting for a feature, are noted on the test's stderr.
#![allow(clippy::print_stderr)]

use std::io::Write as _;
use std::path::Path;

use crate::http::Server;
use crate::readme_blocks::{
    blocks, cron_command, expected_exit, json_fields_exist, programs, schema_keys, strip_comment,
    Block,
};
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
];

/// Programs README commands may use besides ctxctl.
const TOOLS: &[&str] = &["cat", "cp", "mkdir", "head", "cut"];

/// Block languages the README may use; anything else must be added here with a rule.
const LANGUAGES: &[&str] = &["console", "sh", "toml", "yaml", "rust"];

fn readme() -> String {
    std::fs::read_to_string(repo().join("README.md")).unwrap()
}

fn not_runnable(cmd: &str) -> Option<&'static str> {
    NOT_RUNNABLE
        .iter()
        .find(|(prefix, _)| cmd.starts_with(prefix))
        .map(|(_, why)| *why)
}

/// The scratch environment every README command runs in, and what the run saw.
struct Scratch {
    env: TestEnv,
    llm: Server,
    count: Server,
    keys: Vec<String>,
    pending: Vec<String>,
    ran: usize,
    transcript: Option<std::fs::File>,
}

impl Scratch {
    fn new() -> Scratch {
        let llm = Server::llm_stub();
        let count = Server::count_stub();
        let env = TestEnv::new()
            .env("CTXCTL_LLM_BASE_URL", &format!("{}/v1", llm.url))
            .env("CTXCTL_COUNT_API_BASE_URL", &count.url);
        for dir in ["sample-sessions", "completions", "man"] {
            copy_dir(&repo().join(dir), &env.path().join(dir));
        }
        let sample = |name: &str| std::fs::read(repo().join("sample-sessions").join(name)).unwrap();
        for name in ["openai-chat.json", "claude-code.jsonl"] {
            env.write(&format!("sessions/{name}"), sample(name));
        }
        let home = env.home();
        let claude = home.join(".claude/projects/-home-dev-shop");
        std::fs::create_dir_all(&claude).unwrap();
        std::fs::write(
            claude.join("d93e3082-ad22-40cf-b10b-b53b83ced403.jsonl"),
            sample("claude-code.jsonl"),
        )
        .unwrap();
        let codex = home.join(".codex/sessions/2026/03/14");
        std::fs::create_dir_all(&codex).unwrap();
        std::fs::write(
            codex.join("rollout-2026-03-14T10-12-03-019ceb9d-f459-75a8-bb88-0af9e4aaa557.jsonl"),
            sample("codex.jsonl"),
        )
        .unwrap();
        let transcript = std::env::var_os("CTXCTL_README_TRANSCRIPT")
            .map(|p| std::fs::File::create(p).expect("CTXCTL_README_TRANSCRIPT"));
        Scratch {
            env,
            llm,
            count,
            keys: Vec::new(),
            pending: Vec::new(),
            ran: 0,
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
            if k == "CTXCTL_LLM_BASE_URL" || k == "CTXCTL_COUNT_API_BASE_URL" {
                continue; // the loopback servers stand in for the README's URLs
            }
            self.env.set(k, v);
        }
    }

    /// Runs one command from README line `line` and checks its exit code.
    fn run(&mut self, line: usize, cmd: &str, expect: i32) -> Run {
        for program in programs(cmd) {
            assert!(
                program == "ctxctl" || TOOLS.contains(&program),
                "README.md:{line}: `{cmd}` uses {program:?}; run only ctxctl and {TOOLS:?}, \
                 or list the command in NOT_RUNNABLE with the reason"
            );
        }
        let llm = cmd.contains("--summarizer llm");
        let before = self.llm.requests().len();
        let run = self.env.shell(cmd);
        self.ran += 1;
        if let Some(t) = &mut self.transcript {
            let _ = write!(t, "$ {cmd}\n{}{}\n", run.stdout, run.stderr);
        }
        if self.is_pending(cmd) {
            assert!(
                run.code == 2 && run.stderr.contains("unexpected argument"),
                "README.md:{line}: `{cmd}` waits for `compact -r`, but failed otherwise: {run:?}"
            );
            self.pending.push(format!("README.md:{line}: {cmd}"));
            return run;
        }
        assert_eq!(
            run.code, expect,
            "README.md:{line}: `{cmd}` exited {} instead of {expect}\n{run:?}",
            run.code
        );
        if llm {
            assert!(
                self.llm.requests().len() > before,
                "README.md:{line}: `{cmd}` did not call the summarizer"
            );
        }
        for key in &self.keys {
            assert!(
                !run.stdout.contains(key.as_str()) && !run.stderr.contains(key.as_str()),
                "README.md:{line}: `{cmd}` printed an API key"
            );
        }
        run
    }

    /// `compact -r` (batch compaction) is being added in parallel; until `compact --help`
    /// offers `--recursive`, README commands using it must fail only for that reason.
    fn is_pending(&self, cmd: &str) -> bool {
        let batch =
            cmd.contains("ctxctl compact") && (cmd.contains(" -r ") || cmd.contains("--recursive"));
        batch
            && !self
                .env
                .run(&["compact", "--help"])
                .stdout
                .contains("--recursive")
    }

    fn console(&mut self, block: &Block) {
        let mut i = 0;
        while i < block.lines.len() {
            let line = block.line + i;
            let Some(cmd) = block.lines[i].strip_prefix("$ ") else {
                panic!("README.md:{line}: console block text before the first `$ ` command");
            };
            assert!(
                !cmd.ends_with('\\'),
                "README.md:{line}: keep commands on one line"
            );
            let shown: Vec<&str> = block.lines[i + 1..]
                .iter()
                .take_while(|l| !l.starts_with("$ "))
                .map(String::as_str)
                .collect();
            i += 1 + shown.len();
            if programs(cmd).first() == Some(&"export") {
                self.export(cmd);
                continue;
            }
            if let Some(why) = not_runnable(cmd) {
                eprintln!("README.md:{line}: not run ({why}): {cmd}");
                continue;
            }
            let run = self.run(line, cmd, expected_exit(cmd));
            // Shown JSON of a whole (unpiped) `--json` run must match the real field names.
            if cmd.contains("--json") && !cmd.contains('|') && !shown.is_empty() && run.code == 0 {
                json_fields_exist(line, &shown.join("\n"), &run.stdout);
            }
        }
    }

    fn toml(&mut self, block: &Block) {
        let text = block.lines.join("\n") + "\n";
        let parsed = ctxctl::config::FileConfig::parse(&text, Path::new("README.md"));
        if let Err(e) = parsed {
            panic!(
                "README.md:{}: the example config does not parse: {e}",
                block.line
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
                    "README.md:{}: the example config lacks [{table}] {key}",
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
                    Some(why) => eprintln!("README.md:{line}: not run ({why}): {cmd}"),
                    None => {
                        self.run(line, cmd, 0);
                    }
                }
            } else if let Some(entry) = l.strip_prefix("entry:") {
                found += 1;
                // pre-commit appends the staged files that match `files:`.
                let cmd = format!(
                    "{} sample-sessions/openai-chat.json sample-sessions/plain.jsonl",
                    entry.trim()
                );
                self.run(line, &cmd, 0);
            }
        }
        assert!(
            found > 0,
            "README.md:{}: a yaml block with no `run:` or `entry:` to check",
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
                    "README.md:{line}: .ci/run does not run `{cmd}`; keep them in sync"
                );
            } else {
                let why = not_runnable(cmd).unwrap_or_else(|| {
                    panic!("README.md:{line}: `{cmd}` is neither run nor in NOT_RUNNABLE")
                });
                eprintln!("README.md:{line}: not run ({why}): {cmd}");
            }
        }
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
fn manifest(block: &Block) {
    let text = block.lines.join("\n");
    let value: toml::Table = text
        .parse()
        .unwrap_or_else(|e| panic!("README.md:{}: not TOML: {e}", block.line));
    let dep = &value["dependencies"]["ctxctl"];
    assert_eq!(
        dep.get("default-features").and_then(|v| v.as_bool()),
        Some(false),
        "README.md:{}: the library is used without the CLI",
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
            "README.md:{}: no feature {f}",
            block.line
        );
    }
}

/// A Rust example must be one of the crate's doc tests (which `cargo test` compiles and
/// runs), line for line: its lines appear, in order, in the docs of src/lib.rs or
/// src/manager/mod.rs.
fn rust(block: &Block) {
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
        "README.md:{}: this Rust example is not a doc test of src/lib.rs or src/manager/mod.rs; \
         copy it there so that `cargo test` runs it",
        block.line
    );
}

#[test]
fn every_readme_command_runs() {
    let text = readme();
    let mut s = Scratch::new();
    for block in blocks(&text) {
        assert!(
            LANGUAGES.contains(&block.lang.as_str()),
            "README.md:{}: a ```{} block; give it a rule in tests/cli/readme.rs",
            block.line,
            block.lang
        );
        match block.lang.as_str() {
            "console" => s.console(&block),
            "toml" if is_manifest(&block) => manifest(&block),
            "toml" => s.toml(&block),
            "yaml" => s.yaml(&block),
            "rust" => rust(&block),
            _ => s.sh(&block),
        }
    }
    assert!(s.ran >= 40, "only {} README commands ran", s.ran);
    assert!(
        s.llm.requests().len() >= 3,
        "the LLM examples did not reach the server"
    );
    assert!(
        !s.count.requests().is_empty(),
        "the --count-with api examples did not reach the server"
    );
    for p in &s.pending {
        eprintln!("pending until `compact -r` lands: {p}");
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

/// Every `CTXCTL_*` variable, strategy and subcommand is in the README.
#[test]
fn readme_covers_every_variable_strategy_and_command() {
    let text = readme();
    for (name, _) in ctxctl::config::env::DOCUMENTED {
        assert!(text.contains(&format!("`{name}`")), "README lacks {name}");
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
            "README has no example of {flag}"
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
        assert!(used, "README has no `ctxctl {name}` command");
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
