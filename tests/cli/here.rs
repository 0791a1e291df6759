//! No path: a command run in a project directory works on that project's newest session
//! of any agent (Claude Code, Codex, Gemini CLI here, in a test HOME), `--pick` refuses
//! without a terminal, and `--resume` / `--print-resume` hand over to the agent.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, SystemTime};

use crate::support::{s, sample, Run, TestEnv};

const CLAUDE_ID: &str = "d93e3082-ad22-40cf-b10b-b53b83ced403";
const CODEX_ID: &str = "019ceb9d-f459-75a8-bb88-0af9e4aaa557";

/// The three sessions of one project.
struct Project {
    env: TestEnv,
    dir: PathBuf,
    claude: PathBuf,
    codex: PathBuf,
    gemini: PathBuf,
}

/// `CTXCTL_NOW` minus `secs`, as a file time.
fn ago(secs: u64) -> SystemTime {
    // 2026-01-02T03:04:05Z, the test clock.
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_767_323_045 - secs)
}

fn touch(path: &Path, at: SystemTime) {
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(at).unwrap();
}

/// A test HOME holding a Claude Code, a Codex and a Gemini CLI session of `proj/` (each
/// recording that directory as its project), the newest one `newest` ("claude", "codex"
/// or "gemini"), the others an hour and two hours older.
fn project(newest: &str) -> Project {
    let env = TestEnv::new();
    let dir = env.path().join("proj");
    std::fs::create_dir_all(dir.join("src/deep")).unwrap();
    // The path as the agents record it (their cwd is the physical path).
    let dir = dir.canonicalize().unwrap();
    let home = env.home();
    let at = |rel: &str, text: String| {
        let p = home.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    };
    let in_proj = |name: &str| {
        std::fs::read_to_string(sample(name))
            .unwrap()
            .replace("/home/dev/shop", s(&dir))
    };
    let encoded: String = s(&dir)
        .chars()
        .map(|c| if c == '/' || c == '.' { '-' } else { c })
        .collect();
    let claude = at(
        &format!(".claude/projects/{encoded}/{CLAUDE_ID}.jsonl"),
        in_proj("claude-code.jsonl"),
    );
    let codex = at(
        &format!(".codex/sessions/2026/01/02/rollout-2026-01-02T01-00-00-{CODEX_ID}.jsonl"),
        in_proj("codex.jsonl"),
    );
    let gemini = at(
        ".gemini/tmp/proj/chats/session-2026-11-23T20-14-f3111096.jsonl",
        std::fs::read_to_string(crate::support::fixture(
            "gemini-cli/run-a/session-2026-11-23T20-14-f3111096.jsonl",
        ))
        .unwrap(),
    );
    at(
        ".gemini/projects.json",
        serde_json::json!({"projects": {s(&dir): "proj"}}).to_string(),
    );
    let mut older = [3600, 7200].into_iter();
    for (name, path) in [("claude", &claude), ("codex", &codex), ("gemini", &gemini)] {
        let secs = if name == newest {
            180
        } else {
            older.next().unwrap()
        };
        touch(path, ago(secs));
    }
    Project {
        env,
        dir,
        claude,
        codex,
        gemini,
    }
}

/// Runs ctxctl in `cwd` (stdin empty, not a terminal).
fn run_in(env: &TestEnv, cwd: &Path, args: &[&str]) -> Run {
    let out = env
        .command(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    Run::from(out)
}

/// `run` as a snapshot shows it: the temp dir as `[TMP]`, also in Claude Code's name for
/// the project's directory (`[TMP-PROJ]`); runs of spaces shrunk.
fn snap(p: &Project, run: &Run) -> String {
    let run = Run {
        code: run.code,
        stdout: encoded_dir(&p.dir, &run.stdout),
        stderr: encoded_dir(&p.dir, &run.stderr),
    };
    p.env.snap_unaligned(&run)
}

/// `text` with Claude Code's name for the project's directory `dir` as `[TMP-PROJ]`.
fn encoded_dir(dir: &Path, text: &str) -> String {
    let encoded: String = s(dir)
        .chars()
        .map(|c| if c == '/' || c == '.' { '-' } else { c })
        .collect();
    text.replace(&encoded, "[TMP-PROJ]")
}

#[test]
fn check_with_no_path_takes_the_newest_session_of_the_project() {
    let p = project("codex");
    let run = run_in(&p.env, &p.dir, &["check"]);
    // The Codex session's check, and a line saying which session it is.
    insta::assert_snapshot!(snap(&p, &run));
    assert_eq!(run.code, 0, "{run:?}");

    // From a subdirectory of the project: the same session.
    let deep = run_in(&p.env, &p.dir.join("src/deep"), &["check"]);
    assert_eq!(deep.stderr, run.stderr, "{deep:?}");
    assert_eq!(deep.stdout, run.stdout, "{deep:?}");

    // Another agent's session newest: that one.
    let p = project("gemini");
    let run = run_in(&p.env, &p.dir, &["check", "--json"]);
    assert_eq!(run.file()["path"], s(&p.gemini), "{run:?}");
    insta::assert_snapshot!(
        "gemini_named",
        snap(
            &p,
            &Run {
                stdout: String::new(),
                ..run
            }
        )
    );
    // -q: no line about which session.
    let quiet = run_in(&p.env, &p.dir, &["check", "-q"]);
    assert_eq!(quiet.stderr, "", "{quiet:?}");
}

#[test]
fn count_stats_and_compact_dry_run_take_the_same_session() {
    let p = project("claude");
    let check = run_in(&p.env, &p.dir, &["check", "--json"]);
    assert_eq!(check.file()["path"], s(&p.claude), "{check:?}");
    let count = run_in(&p.env, &p.dir, &["count", "--json"]);
    assert_eq!(count.file()["path"], s(&p.claude), "{count:?}");
    let stats = run_in(&p.env, &p.dir, &["stats", "--json"]);
    assert_eq!(stats.code, 0, "{stats:?}");
    assert_eq!(stats.file()["path"], s(&p.claude), "{stats:?}");
    let before = std::fs::read(&p.claude).unwrap();
    let plan = run_in(
        &p.env,
        &p.dir,
        &["compact", "--dry-run", "--tail-tokens", "500"],
    );
    insta::assert_snapshot!(snap(&p, &plan));
    assert_eq!(
        plan.code, 1,
        "a dry run that would change something: {plan:?}"
    );
    assert_eq!(
        std::fs::read(&p.claude).unwrap(),
        before,
        "a dry run writes nothing"
    );
}

#[test]
fn explicit_paths_and_batches_are_left_as_they_were() {
    let p = project("codex");
    // A FILE given: that one, and no line about the project's session.
    let run = run_in(&p.env, &p.dir, &["check", s(&p.claude), "--json"]);
    assert_eq!(run.file()["path"], s(&p.claude), "{run:?}");
    insta::assert_snapshot!(
        "file_given",
        snap(
            &p,
            &Run {
                stdout: String::new(),
                ..run
            }
        )
    );
    let (claude, codex) = (p.env.home().join(".claude"), p.env.home().join(".codex"));
    let batch = run_in(
        &p.env,
        &p.dir,
        &["count", "-r", s(&claude), "-r", s(&codex), "--json"],
    );
    assert_eq!(
        batch.json()["files"].as_array().unwrap().len(),
        2,
        "{batch:?}"
    );
    insta::assert_snapshot!(
        "batch",
        snap(
            &p,
            &Run {
                stdout: String::new(),
                ..batch
            }
        )
    );
}

#[test]
fn outside_any_project_it_says_where_it_looked() {
    let p = project("codex");
    let elsewhere = p.env.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let run = run_in(&p.env, &elsewhere, &["compact", "--dry-run"]);
    insta::assert_snapshot!(p.env.snap(&run));
    assert_eq!(run.code, 2);
}

#[test]
fn pick_is_refused_without_a_terminal() {
    let p = project("codex");
    let run = run_in(&p.env, &p.dir, &["check", "--pick"]);
    insta::assert_snapshot!(p.env.snap(&run));
    assert_eq!(run.code, 2);
    // With a FILE there is nothing to pick.
    let with_file = run_in(&p.env, &p.dir, &["check", "--pick", s(&p.claude)]);
    assert_eq!(with_file.code, 2, "{with_file:?}");
    insta::assert_snapshot!("pick_with_file", snap(&p, &with_file));
}

#[test]
fn print_resume_prints_each_agents_own_command() {
    let p = project("codex");
    let dir = s(&p.dir);
    let line = |args: &[&str]| {
        let mut all = vec!["compact", "--dry-run", "--print-resume", "-q"];
        all.extend_from_slice(args);
        let run = run_in(&p.env, &p.dir, &all);
        assert!(run.code == 0 || run.code == 1, "{run:?}");
        run.stdout.replace(dir, "[PROJ]")
    };
    let got = [
        line(&[]),
        line(&[s(&p.claude)]),
        line(&[s(&p.gemini)]),
        line(&[s(&p.codex), "--", "-p", "what did we do so far?"]),
    ]
    .concat();
    insta::assert_snapshot!(got, @r"
    cd [PROJ] && codex resume 019ceb9d-f459-75a8-bb88-0af9e4aaa557
    cd [PROJ] && claude --resume d93e3082-ad22-40cf-b10b-b53b83ced403
    cd [PROJ] && gemini --resume f3111096-be31-4aa5-bd0a-3911b1bcbf12
    cd [PROJ] && codex resume 019ceb9d-f459-75a8-bb88-0af9e4aaa557 -p 'what did we do so far?'
    ");
    // A session of no agent: refused before anything is written.
    let chat = p.env.write(
        "chat.json",
        r#"{"messages":[{"role":"user","content":"hi"}]}"#,
    );
    let run = run_in(
        &p.env,
        &p.dir,
        &["trim", s(&chat), "--strategy", "fifo", "--resume"],
    );
    assert_eq!(run.code, 2, "{run:?}");
    insta::assert_snapshot!("nothing_to_resume", snap(&p, &run));
    // Words for the agent without --resume: a usage error.
    let run = run_in(&p.env, &p.dir, &["compact", "--dry-run", "--", "-p", "x"]);
    assert_eq!(run.code, 2, "{run:?}");
}

#[test]
fn resume_hands_over_to_the_agent_in_the_project_directory() {
    let p = project("claude");
    let bin = p.env.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fake = bin.join("fake-claude");
    let out = p.env.path().join("agent-ran.txt");
    std::fs::write(
        &fake,
        "#!/bin/sh\npwd > \"$FAKE_OUT\"\nfor a in \"$@\"; do printf '%s\\n' \"$a\" >> \"$FAKE_OUT\"; done\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut env = p.env;
    env.set("CTXCTL_CLAUDE_BIN", s(&fake));
    env.set("FAKE_OUT", s(&out));
    let before = std::fs::read(&p.claude).unwrap();
    let run = run_in(
        &env,
        &p.dir.join("src"),
        &[
            "compact",
            "--tail-tokens",
            "500",
            "--resume",
            "--",
            "-p",
            "what did we do so far?",
        ],
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert_ne!(
        std::fs::read(&p.claude).unwrap(),
        before,
        "compacted in place: {run:?}"
    );
    let ran = std::fs::read_to_string(&out).expect("the agent ran");
    assert_eq!(
        ran,
        format!(
            "{}\n--resume\n{CLAUDE_ID}\n-p\nwhat did we do so far?\n",
            s(&p.dir)
        )
    );
    insta::assert_snapshot!("resuming", env.redact(&encoded_dir(&p.dir, &run.stderr)));

    // A rewrite that fails (its summarizer cannot be reached): the agent is not started.
    std::fs::remove_file(&out).unwrap();
    env.set("CTXCTL_LLM_BASE_URL", "http://127.0.0.1:9");
    env.set("CTXCTL_LLM_API_KEY", "test-key");
    env.set("CTXCTL_LLM_MODEL", "gpt-4o-mini");
    env.set("CTXCTL_LLM_PROVIDER", "openai");
    let run = run_in(
        &env,
        &p.dir,
        &[
            "compact",
            "--tail-tokens",
            "20",
            "--summarizer",
            "llm",
            "--retries",
            "0",
            "--resume",
        ],
    );
    assert_eq!(run.code, 3, "{run:?}");
    insta::assert_snapshot!(
        "not_resuming",
        env.redact(&encoded_dir(&p.dir, &run.stderr))
    );
    assert!(!out.exists(), "{run:?}");
}

#[test]
fn diff_and_archive_take_the_projects_session_too() {
    let p = project("claude");
    let original = p
        .env
        .write("original.jsonl", std::fs::read(&p.claude).unwrap());
    let run = run_in(
        &p.env,
        &p.dir,
        &["compact", "--tail-tokens", "500", "--in-place"],
    );
    assert_eq!(run.code, 0, "{run:?}");
    // diff with one side: this project's session is A, the one given B.
    let diff = run_in(&p.env, &p.dir, &["diff", s(&original), "--json"]);
    assert_eq!(diff.code, 1, "{diff:?}");
    assert_eq!(diff.json()["a"]["path"], s(&p.claude), "{diff:?}");
    assert_eq!(diff.json()["b"]["path"], s(&original), "{diff:?}");
    let none = run_in(&p.env, &p.dir, &["diff"]);
    assert_eq!(none.code, 2, "{none:?}");
    insta::assert_snapshot!("diff_needs_b", snap(&p, &none));
    // archive ls: this session's archives; --all: every archive.
    let ls = run_in(&p.env, &p.dir, &["archive", "ls", "--json"]);
    let ids: Vec<String> = ls
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, [format!("{CLAUDE_ID}/1")], "{ls:?}");
    let other = p.env.write("other.jsonl", crate::support::jsonl_chat(40));
    let trimmed = p.env.run(&[
        "trim",
        s(&other),
        "--strategy",
        "sliding-window",
        "--window",
        "4",
        "--in-place",
    ]);
    assert_eq!(trimmed.code, 0, "{trimmed:?}");
    let all = run_in(&p.env, &p.dir, &["archive", "ls", "--all", "--json"]);
    assert_eq!(all.json().as_array().unwrap().len(), 2, "{all:?}");
    let here = run_in(&p.env, &p.dir, &["archive", "ls", "--json"]);
    assert_eq!(here.json().as_array().unwrap().len(), 1, "{here:?}");
    // archive restore: the newest archive of this session, back into it.
    let restore = run_in(&p.env, &p.dir, &["archive", "restore"]);
    assert_eq!(restore.code, 0, "{restore:?}");
    let same = run_in(&p.env, &p.dir, &["diff", s(&original)]);
    assert_eq!(same.code, 0, "restored: {same:?}");
}

/// The console examples of docs/project-session.md run in a project whose newest session
/// is Claude Code's, with a stand-in `claude`, each with the exit code it shows.
#[test]
fn the_docs_page_examples_run() {
    use crate::readme_blocks::{blocks, expected_exit, strip_comment};
    let p = project("claude");
    let fake = p.env.path().join("bin/claude");
    let out = p.env.path().join("agent-ran.txt");
    std::fs::create_dir_all(fake.parent().unwrap()).unwrap();
    std::fs::write(
        &fake,
        "#!/bin/sh\npwd > \"$FAKE_OUT\"\nfor a in \"$@\"; do printf '%s\\n' \"$a\" >> \"$FAKE_OUT\"; done\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut env = p.env;
    env.set("CTXCTL_CLAUDE_BIN", s(&fake));
    env.set("FAKE_OUT", s(&out));
    let bin = Path::new(env!("CARGO_BIN_EXE_ctxctl"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let text =
        std::fs::read_to_string(crate::support::repo().join("docs/project-session.md")).unwrap();
    let mut ran = 0;
    for block in blocks(&text).into_iter().filter(|b| b.lang == "console") {
        for (i, line) in block.lines.iter().enumerate() {
            let Some(cmd) = line.strip_prefix("$ ") else {
                continue;
            };
            let mut sh = std::process::Command::new("sh");
            sh.env_clear();
            for (k, v) in env.vars() {
                sh.env(k, v);
            }
            let o = sh
                .env("PATH", &path)
                .args(["-c", strip_comment(cmd)])
                .current_dir(&p.dir)
                .stdin(Stdio::null())
                .output()
                .unwrap();
            let code = o.status.code().unwrap_or(-1);
            assert_eq!(
                code,
                expected_exit(cmd),
                "docs/project-session.md:{}: `{cmd}`\n{}{}",
                block.line + i,
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            );
            ran += 1;
        }
    }
    assert!(ran >= 5, "only {ran} examples");
    let resumed = std::fs::read_to_string(&out).expect("the --resume example ran the agent");
    assert!(
        resumed.ends_with(&format!(
            "--resume\n{CLAUDE_ID}\n-p\nwhat did we do so far?\n"
        )),
        "{resumed}"
    );
}

/// An agent's database: the OpenCode session whose directory is the project is taken
/// (the database as the input, the session selected as `--session` would).
#[test]
fn a_database_session_of_the_project_is_taken_too() {
    let p = project("claude");
    let db = p.env.home().join(".local/share/opencode/opencode.db");
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    std::fs::copy(
        crate::support::repo().join("tests/formats/opencode/input.db"),
        &db,
    )
    .unwrap();
    let sid = "ses_df5f2d654ffeKnuN9WuHea9bXj";
    let conn = rusqlite::Connection::open(&db).unwrap();
    // A minute before the test clock: newer than the Claude Code session.
    let updated = (1_767_323_045_i64 - 60) * 1000;
    conn.execute(
        "UPDATE session SET directory = ?1, time_updated = ?2 WHERE id = ?3",
        rusqlite::params![s(&p.dir), updated, sid],
    )
    .unwrap();
    drop(conn);
    let run = run_in(&p.env, &p.dir, &["count", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    insta::assert_snapshot!("opencode_named", p.env.redact(&run.stderr));
    let resume = run_in(
        &p.env,
        &p.dir,
        &["compact", "--dry-run", "--print-resume", "-q"],
    );
    assert_eq!(
        resume.stdout,
        format!("cd {} && opencode --session {sid}\n", s(&p.dir)),
        "{resume:?}"
    );
}
