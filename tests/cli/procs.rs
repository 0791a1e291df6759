//! Running ctxctl in the background: a test can watch its stderr, wait for files it
//! creates (the pause hook's marker), kill it, and collect the result.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crate::support::Run;

/// How long a test waits for a background ctxctl to get somewhere before giving up
/// (a guard against hanging, not a timing assertion).
const PATIENCE: Duration = Duration::from_secs(90);

pub struct Spawned {
    child: Child,
    stderr: Arc<Mutex<String>>,
    reader: Option<JoinHandle<()>>,
}

/// Starts `cmd` with stdout and stderr piped, stdin closed.
pub fn spawn(mut cmd: Command) -> Spawned {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn ctxctl");
    let pipe = child.stderr.take().unwrap();
    let stderr = Arc::new(Mutex::new(String::new()));
    let sink = Arc::clone(&stderr);
    let reader = thread::spawn(move || {
        let mut lines = BufReader::new(pipe);
        let mut line = String::new();
        while lines.read_line(&mut line).unwrap_or(0) > 0 {
            sink.lock().unwrap().push_str(&line);
            line.clear();
        }
    });
    Spawned {
        child,
        stderr,
        reader: Some(reader),
    }
}

impl Spawned {
    /// Waits until the stderr so far contains `needle`.
    pub fn wait_for_stderr(&mut self, needle: &str) {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if self.stderr.lock().unwrap().contains(needle) {
                return;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                // Let the reader drain what is left, then look one last time.
                thread::sleep(Duration::from_millis(50));
                let err = self.stderr.lock().unwrap().clone();
                assert!(
                    err.contains(needle),
                    "ctxctl exited ({status}) without saying {needle:?}:\n{err}"
                );
                return;
            }
            assert!(Instant::now() < deadline, "no {needle:?} on stderr");
            thread::sleep(Duration::from_millis(10));
        }
    }

    /// Sends SIGKILL (`kill -9`).
    pub fn kill(&mut self) {
        self.child.kill().expect("kill ctxctl");
    }

    /// Waits for the exit and returns what it printed.
    pub fn finish(mut self) -> Run {
        let mut stdout = String::new();
        if let Some(mut out) = self.child.stdout.take() {
            out.read_to_string(&mut stdout).unwrap();
        }
        let status = self.child.wait().unwrap();
        if let Some(r) = self.reader.take() {
            r.join().unwrap();
        }
        let stderr = self.stderr.lock().unwrap().clone();
        Run {
            code: status.code().unwrap_or(-1),
            stdout,
            stderr,
        }
    }
}

impl Drop for Spawned {
    /// A test that fails half-way does not leave a paused ctxctl behind.
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Waits until `path` exists.
pub fn wait_for_file(path: &Path) {
    let deadline = Instant::now() + PATIENCE;
    while !path.exists() {
        assert!(
            Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        thread::sleep(Duration::from_millis(10));
    }
}
