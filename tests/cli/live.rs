//! A session an agent is using is never rewritten behind its back: the same rule for a
//! file named alone as for a batch (`trim`, `compact`, `-o` onto the input, `archive
//! restore`), with `--include-live` to go ahead; a recent write alone only warns when the
//! user named the file.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{sample, Run, TestEnv};

/// Session ids, one per test: the signals are machine-wide, and the tests run at once.
const ID: &str = "0196f2a1-7b3c-4d5e-8f90-a1b2c3d4e5f6";
const ID2: &str = "2196f2a1-7b3c-4d5e-8f90-a1b2c3d4e5f6";
const ID3: &str = "3196f2a1-7b3c-4d5e-8f90-a1b2c3d4e5f6";
const ID4: &str = "4196f2a1-7b3c-4d5e-8f90-a1b2c3d4e5f6";
const ID5: &str = "6196f2a1-7b3c-4d5e-8f90-a1b2c3d4e5f6";

/// A stand-in agent: runs until `stop` is removed, set up by `setup` (a shell line run
/// first in the test dir), and signals readiness by creating `ready`.
struct Agent {
    child: Child,
    stop: PathBuf,
}

impl Agent {
    fn start(env: &TestEnv, program: &Path, args: &[&str], setup: &str) -> Agent {
        let stop = env.path().join("stop");
        let ready = env.path().join("ready");
        let _ = fs::remove_file(&ready);
        fs::write(&stop, "").unwrap();
        let script =
            // Only the shell itself holds fd 3 (if `setup` opened it): its children close it,
            // or a scan could find `touch` still holding the file and name it instead.
            format!("{setup}\ntouch ready 3>&-\nwhile [ -e stop ]; do sleep 0.05 3>&-; done\n",);
        fs::write(program, format!("#!/bin/sh\n{script}")).unwrap();
        make_executable(program);
        let child = Command::new(program)
            .args(args)
            .current_dir(env.path())
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        let start = Instant::now();
        while !ready.exists() {
            assert!(start.elapsed() < Duration::from_secs(30), "agent not ready");
            std::thread::sleep(Duration::from_millis(20));
        }
        Agent { child, stop }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.stop);
        let _ = self.child.wait();
    }
}

fn make_executable(p: &Path) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(p, fs::Permissions::from_mode(0o755)).unwrap();
}

/// The sample Codex rollout under a file name that carries a session id, last written an
/// hour before the run's clock.
fn session(env: &TestEnv, id: &str) -> PathBuf {
    let p = env.write(
        &format!("rollout-2026-01-02T02-00-00-{id}.jsonl"),
        fs::read(sample("codex.jsonl")).unwrap(),
    );
    age(&p, 3600);
    p
}

/// Sets `p`'s modification time `secs` before the tests' clock (CTXCTL_NOW).
fn age(p: &Path, secs: u64) {
    let now = std::time::UNIX_EPOCH + Duration::from_secs(1_767_323_045);
    let f = fs::File::options().append(true).open(p).unwrap();
    f.set_modified(now - Duration::from_secs(secs)).unwrap();
}

fn rewrites(file: &str) -> Vec<Vec<String>> {
    let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    vec![
        v(&["compact", file, "--in-place", "--tail-tokens", "200"]),
        v(&["compact", file, "-o", file, "--tail-tokens", "200"]),
        v(&[
            "trim",
            file,
            "--in-place",
            "--strategy",
            "fifo",
            "--max-tokens",
            "600",
        ]),
        v(&[
            "trim",
            file,
            "-o",
            file,
            "--strategy",
            "fifo",
            "--max-tokens",
            "600",
        ]),
    ]
}

fn run(env: &TestEnv, args: &[String]) -> Run {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    env.run(&args)
}

fn archived(env: &TestEnv) -> usize {
    let dir = env.data_dir().join("archives");
    fs::read_dir(dir).map_or(0, |d| d.flatten().count())
}

/// Runs each of `runs` and checks it is refused: exit 2, one error, nothing written.
/// Returns each error line, as a snapshot shows it (the agent's process id as `[PID]`): it
/// must name the file, the signal and --include-live.
/// `line` with the process named as the writer redacted whatever its number: the agent
/// and a child it started may both hold the file, and either may be the one named.
fn any_writer_pid(line: &str) -> String {
    const AT: &str = "held open for writing by process ";
    let Some(i) = line.find(AT) else {
        return line.to_string();
    };
    let start = i + AT.len();
    let digits = line[start..].bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return line.to_string();
    }
    format!("{}[PID]{}", &line[..start], &line[start + digits..])
}

fn refused(env: &TestEnv, runs: &[Vec<String>], file: &Path, before: &[u8], pid: u32) -> String {
    let mut said = String::new();
    for args in runs {
        let run = run(env, args);
        assert_eq!(run.code, 2, "{run:?}");
        assert_eq!(fs::read(file).unwrap(), before, "the file changed: {run:?}");
        assert_eq!(archived(env), 0, "an archive was written: {run:?}");
        // The one error line (a loaded machine may add a warning before it).
        let errors: Vec<&str> = (run.stderr.lines())
            .filter(|l| l.starts_with("ctxctl: error: "))
            .collect();
        assert_eq!(errors.len(), 1, "{run:?}");
        let error = env
            .redact(errors[0])
            .replace(&format!(" {pid} "), " [PID] ");
        let error = any_writer_pid(&error);
        said.push_str(&format!("$ {}\n{error}\n", args.join(" ")));
    }
    said
}

#[test]
fn a_named_session_held_open_for_writing_is_refused() {
    let env = TestEnv::new();
    let file = session(&env, ID2);
    let name = file.file_name().unwrap().to_str().unwrap().to_string();
    let before = fs::read(&file).unwrap();
    let agent = Agent::start(
        &env,
        &env.path().join("writer"),
        &[],
        &format!("exec 3>>{name}"),
    );
    // The same line under --json: the report is not printed, the error is.
    let mut runs = rewrites(&name);
    runs.push([rewrites(&name)[0].clone(), vec!["--json".into()]].concat());
    insta::assert_snapshot!(refused(&env, &runs, &file, &before, agent.pid()));
    // --include-live goes ahead.
    let r = run(
        &env,
        &[rewrites(&name)[0].clone(), vec!["--include-live".into()]].concat(),
    );
    assert_eq!(r.code, 0, "{r:?}");
    assert_ne!(fs::read(&file).unwrap(), before);
    drop(agent);
}

#[test]
fn a_named_session_its_agent_is_running_is_refused() {
    let env = TestEnv::new();
    let file = session(&env, ID);
    let name = file.file_name().unwrap().to_str().unwrap().to_string();
    let before = fs::read(&file).unwrap();
    // An agent that does not keep the file open (Claude Code appends and closes) but names
    // the session on its command line.
    let bin = env.path().join("bin");
    fs::create_dir_all(&bin).unwrap();
    let agent = Agent::start(&env, &bin.join("claude"), &["--resume", ID], "");
    // The process and its command line naming the session.
    let runs = rewrites(&name);
    insta::assert_snapshot!(refused(&env, &runs, &file, &before, agent.pid()));
    drop(agent);
    // The agent quit: the rewrite goes ahead.
    let r = run(&env, &rewrites(&name)[0]);
    assert_eq!(r.code, 0, "{r:?}");
    insta::assert_snapshot!("after_quit", env.snap(&r));
}

#[test]
fn archive_restore_into_a_live_session_is_refused() {
    let env = TestEnv::new();
    let file = session(&env, ID3);
    let name = file.file_name().unwrap().to_str().unwrap().to_string();
    let r = run(&env, &rewrites(&name)[0]);
    assert_eq!(r.code, 0, "{r:?}");
    age(&file, 3600);
    let compacted = fs::read(&file).unwrap();
    let bin = env.path().join("bin");
    fs::create_dir_all(&bin).unwrap();
    let agent = Agent::start(&env, &bin.join("codex"), &["resume", ID3], "");
    let r = env.run(&["archive", "restore", &name]);
    assert_eq!(r.code, 2, "{r:?}");
    let stderr = r.stderr.replace(&format!(" {} ", agent.pid()), " [PID] ");
    insta::assert_snapshot!(env.redact(&stderr));
    assert_eq!(fs::read(&file).unwrap(), compacted);
    drop(agent);
    let r = env.run(&["archive", "restore", &name]);
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(
        fs::read(&file).unwrap(),
        fs::read(sample("codex.jsonl")).unwrap()
    );
}

/// A recent write alone: the agent may just have exited. A named file is rewritten with a
/// warning; the same file in a batch is skipped.
#[test]
fn a_recent_write_warns_for_a_named_file_and_skips_in_a_batch() {
    let env = TestEnv::new();
    let file = session(&env, ID4);
    let name = file.file_name().unwrap().to_str().unwrap().to_string();
    age(&file, 5);
    let r = run(&env, &rewrites(&name)[2]);
    assert_eq!(r.code, 0, "{r:?}");
    insta::assert_snapshot!("named", env.snap(&r));
    let dir = env.path().join("batch");
    fs::create_dir_all(&dir).unwrap();
    let copy = dir.join(&name);
    fs::copy(sample("codex.jsonl"), &copy).unwrap();
    age(&copy, 5);
    let before = fs::read(&copy).unwrap();
    let r = env.run(&[
        "compact",
        "-r",
        "batch",
        "--in-place",
        "--tail-tokens",
        "200",
    ]);
    assert_eq!(r.code, 0, "{r:?}");
    insta::assert_snapshot!("batch", env.snap(&r));
    assert_eq!(fs::read(&copy).unwrap(), before);
}

/// Claude Code keeps no transcript open: while it runs a session it keeps
/// `~/.claude/sessions/<PID>.json` naming it. A marker whose process is gone, or is another
/// process that got the same number, is left over from a killed run and ignored.
#[test]
fn a_claude_code_session_its_marker_names_is_refused_unless_stale() {
    let env = TestEnv::new();
    let claude = env.home().join(".claude");
    let file = claude.join(format!("projects/-work-proj/{ID5}.jsonl"));
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::copy(sample("claude-code.jsonl"), &file).unwrap();
    age(&file, 3600);
    let before = fs::read(&file).unwrap();
    let sessions = claude.join("sessions");
    fs::create_dir_all(&sessions).unwrap();
    let agent = Agent::start(&env, &env.path().join("claude-proc"), &[], "");
    let stat = fs::read_to_string(format!("/proc/{}/stat", agent.pid())).unwrap();
    let start = stat[stat.rfind(')').unwrap() + 1..]
        .split_whitespace()
        .nth(19)
        .unwrap()
        .to_string();
    let marker = sessions.join(format!("{}.json", agent.pid()));
    let write_marker = |started: &str| {
        let m = serde_json::json!({
            "pid": agent.pid(), "sessionId": ID5, "cwd": "/work/proj",
            "procStart": started, "version": "2.1.332", "status": "idle"
        });
        fs::write(&marker, m.to_string()).unwrap();
    };
    write_marker(&start);
    let f = file.to_str().unwrap().to_string();
    let args = |extra: &[&'static str]| -> Vec<String> {
        let base = ["compact", f.as_str(), "--in-place", "--tail-tokens", "200"];
        base.iter().chain(extra).map(|a| a.to_string()).collect()
    };
    let r = run(&env, &args(&[]));
    assert_eq!(r.code, 2, "{r:?}");
    // The marker and its process.
    let pid = agent.pid().to_string();
    insta::assert_snapshot!("marker", env.redact(&r.stderr).replace(&pid, "[PID]"));
    assert_eq!(fs::read(&file).unwrap(), before);
    // Left over by a killed run whose number another process has now.
    write_marker("1");
    let r = run(&env, &args(&["--dry-run"]));
    insta::assert_snapshot!("stale_marker", env.snap(&r));
    write_marker(&start);
    drop(agent);
    // The process is gone: the marker is stale.
    let r = run(&env, &args(&[]));
    assert_eq!(r.code, 0, "{r:?}");
    assert_ne!(fs::read(&file).unwrap(), before);
}

/// A compaction of a Codex rollout only adds lines (a `compacted` record and what Codex
/// writes after one): they are appended to the same file, so a writer that still holds it
/// (here, with `--include-live`) goes on writing into the session, not into a replaced
/// file. (A Claude Code compaction puts its boundary before the kept tail: a replacement.)
#[test]
fn a_rewrite_that_only_adds_lines_appends_to_the_same_file() {
    use std::os::unix::fs::MetadataExt;
    let env = TestEnv::new();
    let id = "5196f2a1-7b3c-4d5e-8f90-a1b2c3d4e5f6";
    {
        let (sample_name, file_name) = (
            "codex.jsonl",
            format!("rollout-2026-01-02T02-00-00-{id}.jsonl"),
        );
        let file = env.write(&file_name, fs::read(sample(sample_name)).unwrap());
        age(&file, 3600);
        let before = fs::read(&file).unwrap();
        let inode = fs::metadata(&file).unwrap().ino();
        let agent = Agent::start(
            &env,
            &env.path().join("writer"),
            &[],
            &format!("exec 3>>{file_name}\ntrap 'echo {{\\\"late\\\":1}} >&3' EXIT"),
        );
        let r = env.run(&[
            "compact",
            &file_name,
            "--in-place",
            "--tail-tokens",
            "200",
            "--include-live",
        ]);
        assert_eq!(r.code, 0, "{sample_name}: {r:?}");
        drop(agent);
        let after = fs::read(&file).unwrap();
        assert_eq!(
            fs::metadata(&file).unwrap().ino(),
            inode,
            "{sample_name}: replaced"
        );
        assert!(
            after.starts_with(&before),
            "{sample_name}: the original moved"
        );
        assert!(
            String::from_utf8_lossy(&after).ends_with("{\"late\":1}\n"),
            "{sample_name}: the writer's line was lost"
        );
    }
}

/// ctxctl's own rewrite keeps the session's last activity: it does not make the session
/// look active (`sessions --since`) or live (the recent-write window) to the next run.
#[test]
fn a_rewrite_keeps_the_sessions_last_activity() {
    let env = TestEnv::new();
    let id = "7196f2a1-7b3c-4d5e-8f90-a1b2c3d4e5f6";
    for (args, sample_name) in [
        (vec!["compact", "--tail-tokens", "200"], "codex.jsonl"),
        (vec!["compact", "--tail-tokens", "200"], "claude-code.jsonl"),
        (
            vec!["trim", "--strategy", "fifo", "--max-tokens", "600"],
            "openai-chat.json",
        ),
    ] {
        let name = format!("{id}-{sample_name}");
        let file = env.write(&name, fs::read(sample(sample_name)).unwrap());
        age(&file, 3600);
        let before = fs::metadata(&file).unwrap().modified().unwrap();
        let r = env.run(&[args.as_slice(), &[name.as_str(), "--in-place"]].concat());
        assert_eq!(r.code, 0, "{r:?}");
        assert_ne!(
            fs::read(&file).unwrap(),
            fs::read(sample(sample_name)).unwrap()
        );
        assert_eq!(
            fs::metadata(&file).unwrap().modified().unwrap(),
            before,
            "{name}"
        );
        let r = env.run(&["archive", "restore", &name]);
        assert_eq!(r.code, 0, "{r:?}");
        assert_eq!(
            fs::metadata(&file).unwrap().modified().unwrap(),
            before,
            "{name}"
        );
    }
}
