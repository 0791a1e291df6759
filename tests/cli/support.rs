//! A hermetic environment for running the real binary: a temp HOME with XDG dirs inside it,
//! a cleared environment, no colour, no network.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub struct TestEnv {
    pub dir: tempfile::TempDir,
    envs: Vec<(String, String)>,
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// The stdout parsed as JSON (panics with the output if it is not).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }
}

impl Run {
    /// The one entry of the `files` array of `count`, `check` or `stats --json`.
    pub fn file(&self) -> serde_json::Value {
        let v = self.json();
        let files = v["files"]
            .as_array()
            .unwrap_or_else(|| panic!("no files: {self:?}"));
        assert_eq!(files.len(), 1, "{self:?}");
        files[0].clone()
    }
}

impl From<std::process::Output> for Run {
    fn from(out: std::process::Output) -> Run {
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit {}\n--- stdout\n{}--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

/// The repository root (for sample-sessions/).
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A sample session bundled with the repository.
pub fn sample(name: &str) -> PathBuf {
    repo().join("sample-sessions").join(name)
}

/// A fixture from shared/fixtures (see `shared::fixtures_dir`); a missing one fails the
/// test loudly rather than skipping it.
pub fn fixture(rel: &str) -> PathBuf {
    let p = crate::shared::fixtures_dir().join(rel);
    assert!(p.exists(), "fixture {} is missing", p.display());
    p
}

/// A new temp dir named `ctxctl-test-` and ten digits. A compaction writes the archive's
/// path into the summary, so the compacted session's token count depends on that path: with
/// digits only where the name varies (each run of three digits is one token in every BPE
/// tokenizer ctxctl uses) the count is the same in every run, and snapshots can show it.
fn temp_dir() -> tempfile::TempDir {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    loop {
        let n = u64::from(std::process::id()) * 100_000
            + u64::from(NEXT.fetch_add(1, Ordering::Relaxed));
        let made = tempfile::Builder::new()
            .prefix(&format!("ctxctl-test-{:010}", n % 10_000_000_000))
            .rand_bytes(0)
            .tempdir();
        match made {
            Ok(dir) => return dir,
            // Left behind by a killed run with the same process id: take the next number.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => panic!("tempdir: {e}"),
        }
    }
}

impl TestEnv {
    pub fn new() -> TestEnv {
        let dir = temp_dir();
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        let envs = vec![
            ("HOME".to_string(), home.display().to_string()),
            (
                "XDG_DATA_HOME".to_string(),
                home.join(".local/share").display().to_string(),
            ),
            (
                "XDG_CONFIG_HOME".to_string(),
                home.join(".config").display().to_string(),
            ),
            (
                "XDG_CACHE_HOME".to_string(),
                home.join(".cache").display().to_string(),
            ),
            (
                "PATH".to_string(),
                std::env::var("PATH").unwrap_or_default(),
            ),
            ("NO_COLOR".to_string(), "1".to_string()),
            ("CTXCTL_NOW".to_string(), "2026-01-02T03:04:05Z".to_string()),
        ];
        TestEnv { dir, envs }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// The data directory ctxctl uses in this environment.
    pub fn data_dir(&self) -> PathBuf {
        self.home().join(".local/share/ctxctl")
    }

    /// The environment runs get (for running ctxctl in this process).
    pub fn vars(&self) -> Vec<(String, String)> {
        self.envs.clone()
    }

    pub fn env(mut self, key: &str, value: &str) -> TestEnv {
        self.set(key, value);
        self
    }

    /// Sets an environment variable for the runs that follow.
    pub fn set(&mut self, key: &str, value: &str) {
        self.envs.retain(|(k, _)| k != key);
        self.envs.push((key.to_string(), value.to_string()));
    }

    /// Removes an environment variable for the runs that follow.
    pub fn unset(&mut self, key: &str) {
        self.envs.retain(|(k, _)| k != key);
    }

    /// Writes a file under the test dir and returns its path.
    pub fn write(&self, name: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let p = self.dir.path().join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&p, content).unwrap();
        p
    }

    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ctxctl"));
        cmd.env_clear();
        for (k, v) in &self.envs {
            cmd.env(k, v);
        }
        cmd.args(args).current_dir(self.dir.path());
        cmd
    }

    pub fn run(&self, args: &[&str]) -> Run {
        self.run_stdin(args, None)
    }

    pub fn run_stdin(&self, args: &[&str], stdin: Option<&[u8]>) -> Run {
        use std::io::Write;
        let mut cmd = self.command(args);
        cmd.stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("spawn ctxctl");
        if let Some(input) = stdin {
            let mut pipe = child.stdin.take().unwrap();
            let input = input.to_vec();
            std::thread::spawn(move || {
                let _ = pipe.write_all(&input);
            });
        }
        let out = child.wait_with_output().expect("wait ctxctl");
        Run::from(out)
    }

    /// Runs `line` with `sh -c` in this environment, the built ctxctl first on PATH (for
    /// pipelines, redirections and `~` as a user types them).
    pub fn shell(&self, line: &str) -> Run {
        let bin = PathBuf::from(env!("CARGO_BIN_EXE_ctxctl"));
        let mut path = bin.parent().unwrap().display().to_string();
        if let Some((_, p)) = self.envs.iter().find(|(k, _)| k == "PATH") {
            path = format!("{path}:{p}");
        }
        let mut cmd = Command::new("sh");
        cmd.env_clear();
        for (k, v) in &self.envs {
            cmd.env(k, v);
        }
        cmd.env("PATH", path)
            .args(["-c", line])
            .current_dir(self.dir.path())
            .stdin(Stdio::null());
        let out = cmd.output().expect("spawn sh");
        Run::from(out)
    }
}

impl TestEnv {
    /// `text` as a snapshot shows it: this environment's directory as `[TMP]`, the shared
    /// fixtures as `[FIXTURES]`, the checkout as `[REPO]`, compaction ids (random UUIDs) as
    /// `[UUID]`, the port of a test server on 127.0.0.1 as `[PORT]` and the size a batch
    /// reports archiving as `[N]` (a zstd archive's size moves with its random compaction
    /// id). Timestamps need nothing: `CTXCTL_NOW` fixes them.
    pub fn redact(&self, text: &str) -> String {
        let uuid = regex::Regex::new(
            "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}",
        )
        .unwrap();
        let port = regex::Regex::new(r"127\.0\.0\.1:[0-9]+").unwrap();
        let archived = regex::Regex::new(r"\([0-9,]+ bytes archived\)").unwrap();
        let paths = self.redact_paths(text);
        let text = uuid.replace_all(&paths, "[UUID]");
        let text = port.replace_all(&text, "127.0.0.1:[PORT]");
        archived
            .replace_all(&text, "([N] bytes archived)")
            .into_owned()
    }

    /// [`TestEnv::redact`] without the UUIDs: only the paths.
    pub fn redact_paths(&self, text: &str) -> String {
        let mut out = text.to_string();
        let fixtures = crate::shared::try_fixtures_dir().unwrap_or_default();
        let repo = repo();
        let dirs = [
            (self.path(), "[TMP]"),
            (fixtures.as_path(), "[FIXTURES]"),
            (repo.as_path(), "[REPO]"),
        ];
        for (dir, name) in dirs {
            if dir.as_os_str().is_empty() {
                continue;
            }
            if let Ok(real) = dir.canonicalize() {
                out = out.replace(s(&real), name);
            }
            out = out.replace(s(dir), name);
        }
        out
    }

    /// A run as a snapshot shows it (its exit code, stdout and stderr), redacted.
    pub fn snap(&self, run: &Run) -> String {
        self.redact(&format!("{run:?}"))
    }

    /// [`TestEnv::snap`] with runs of spaces shrunk to two: for tables whose column widths
    /// depend on the length of the temp dir's path.
    pub fn snap_unaligned(&self, run: &Run) -> String {
        let spaces = regex::Regex::new("   +").unwrap();
        spaces.replace_all(&self.snap(run), "  ").into_owned()
    }
}

/// `p` as a &str argument.
pub fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// A plain JSONL session of `n` alternating user/assistant lines.
pub fn jsonl_chat(n: usize) -> String {
    (0..n)
        .map(|i| {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            format!(
                "{}\n",
                serde_json::json!({"role": role, "content": format!("message {i}: some words about the task at hand")})
            )
        })
        .collect()
}

/// An archive file's JSON text, decompressed when it is zstd (the default); what a
/// half-written zstd file holds decompresses to an error, returned as empty.
pub fn archive_bytes(path: &Path) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap();
    match bytes.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        true => zstd::decode_all(&bytes[..]).unwrap_or_default(),
        false => bytes,
    }
}

/// An archive file's JSON, decompressed when it is zstd (the default).
pub fn read_archive(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&archive_bytes(path)).unwrap()
}

/// The archive files of `session` in `env`'s data directory, in order (complete ones only:
/// temp files are not listed).
pub fn archives(env: &TestEnv, session: &str) -> Vec<PathBuf> {
    let dir = env.data_dir().join("archives").join(session);
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    out.retain(|p| {
        p.file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("compact-")
    });
    out.sort();
    out
}

/// The ids `archive ls --json` lists in `env`, in its order.
pub fn archive_ids(env: &TestEnv) -> Vec<String> {
    let run = env.run(&["archive", "ls", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    run.json()
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {run:?}"))
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect()
}
