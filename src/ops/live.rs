//! Sessions an agent is using right now, and the one rule every rewrite applies to them
//! (`trim`, `compact`, `archive restore`, the agents' databases; one file or a batch):
//!
//! - **Live** — another process holds the file open for writing, a running agent process
//!   names the session on its command line (`claude --resume ID`, `codex resume ID`), or
//!   the agent's own marker says it runs the session: refused, unless `--include-live`.
//!   A single file is an error (exit 2, nothing written); a batch skips it.
//! - **Recent** — modified within `live_secs` (`[compact] live_secs`, default the 120 s
//!   goose's database uses for the same question): a batch skips it; a file the user named
//!   is rewritten with a warning (the agent may just have exited: the usual moment to fix a
//!   session is right after quitting it).
//!
//! The signals are read once per run ([`Procs`]). A rewrite looks twice: before any work
//! ([`guard`]) and right before the file is replaced ([`recheck`]), so an agent started
//! meanwhile is not overwritten either; the check against a concurrent writer in
//! [`write`](super::write) still catches one that appends in between.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::UNIX_EPOCH;

use crate::context::Context;
use crate::formats::dbagent::LIVE_SECS;

/// Whether the user named the session or a walk found it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Named on the command line (or implied): a recent write is only a warning.
    Named,
    /// Found by `-r` or one of several files: a recent write skips it.
    Batch,
}

/// Why a session looks live: the batch's `skipped:` note and `--json`'s `reason`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Live {
    #[error("written {age}s ago (within {window}s): an agent may be writing it; --include-live rewrites it")]
    Recent { age: u64, window: u64 },
    #[error("held open for writing by process {pid} ({cmd}): an agent is writing it; --include-live rewrites it")]
    Open { pid: u32, cmd: String },
    #[error("process {pid} ({cmd}) is running this session (its command line names {id}); --include-live rewrites it")]
    Agent { pid: u32, cmd: String, id: String },
    #[error("Claude Code's {} says process {pid} ({cmd}) is running this session; --include-live rewrites it", .marker.display())]
    Marker {
        marker: PathBuf,
        pid: u32,
        cmd: String,
    },
}

/// A session the user named that is live: nothing was written.
#[derive(Debug, thiserror::Error)]
#[error("{}: live session, nothing was written: {live}", .path.display())]
pub struct Refused {
    pub path: PathBuf,
    pub live: Live,
}

/// Applies the rule to the session file `path` before a rewrite: `Err(Live)` when it is
/// live, or recent in a batch; a recent file the user named gets a warning and `Ok`.
/// `Ok` with `--include-live`, a live window of 0, or for standard input.
pub fn guard(ctx: &Context, path: &Path, scope: Scope) -> Result<(), Live> {
    if ctx.settings.include_live || path == Path::new("-") {
        return Ok(());
    }
    if let Some(live) = signal(path) {
        return Err(live);
    }
    let Some(window) = window(ctx) else {
        return Ok(());
    };
    let Some(age) = recent(ctx, path, window) else {
        return Ok(());
    };
    match scope {
        Scope::Batch => Err(Live::Recent { age, window }),
        Scope::Named => {
            ctx.printer.warn(&format!(
                "{}: written {age}s ago, but no process has it open or names it: rewriting it \
                 (if its agent is still running, quit it first, or it will write over ctxctl's change)",
                path.display()
            ));
            Ok(())
        }
    }
}

/// [`guard`] for a session the user named, as an error that names the file.
pub fn guard_named(ctx: &Context, path: &Path) -> anyhow::Result<()> {
    guard(ctx, path, Scope::Named).map_err(|live| {
        Refused {
            path: path.to_path_buf(),
            live,
        }
        .into()
    })
}

/// The last look right before `path` is replaced: the hard signals only (an agent that
/// started while ctxctl worked), read afresh.
pub fn recheck(ctx: &Context, path: &Path) -> anyhow::Result<()> {
    if ctx.settings.include_live {
        return Ok(());
    }
    match Procs::read(file_id(path)).live(path) {
        Some(live) => Err(Refused {
            path: path.to_path_buf(),
            live,
        }
        .into()),
        None => Ok(()),
    }
}

/// [`guard`] for one session of an agent's database, last active at `active` (Unix
/// seconds): the database is written by every session of it, so its file's time and
/// writers do not tell (its write checks the session again, in its transaction).
pub fn check_session(ctx: &Context, active: Option<i64>) -> anyhow::Result<()> {
    let Some(window) = window(ctx).filter(|_| !ctx.settings.include_live) else {
        return Ok(());
    };
    let now = crate::ops::store::clock(ctx)?.unix();
    if let Some(age) = active.and_then(|m| age(now, m, window)) {
        return Err(Live::Recent { age, window }.into());
    }
    Ok(())
}

/// The hard signals for `path`, from the processes as they were at this run's first look.
pub fn signal(path: &Path) -> Option<Live> {
    static PROCS: OnceLock<Procs> = OnceLock::new();
    PROCS.get_or_init(|| Procs::read(None)).live(path)
}

/// The run's live window in seconds; `None` with a window of 0.
fn window(ctx: &Context) -> Option<u64> {
    let window = ctx
        .settings
        .file
        .compact
        .live_secs
        .unwrap_or(LIVE_SECS as u64);
    (window != 0).then_some(window)
}

/// Seconds since `path` was modified, when within `window` by the run's clock
/// (`CTXCTL_NOW` in tests); `None` for a file whose time cannot be read.
fn recent(ctx: &Context, path: &Path, window: u64) -> Option<u64> {
    let now = crate::ops::store::clock(ctx).ok()?.unix();
    let modified = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_secs() as i64)?;
    age(now, modified, window)
}

/// Seconds since `modified` when that is within `window` of `now`. A time after `now` is
/// a clock out of step, not a write in progress.
fn age(now: i64, modified: i64, window: u64) -> Option<u64> {
    let age = u64::try_from(now.checked_sub(modified)?).ok()?;
    (age < window).then_some(age)
}

/// The session id an agent names a session file by: the UUID in its name (Claude Code's
/// `<id>.jsonl`, Codex's `rollout-<time>-<id>.jsonl`, a subagent's `agent-<id>.jsonl`).
pub fn session_id(path: &Path) -> Option<&str> {
    let stem = path.file_stem()?.to_str()?;
    (0..stem.len().saturating_sub(35))
        .rev()
        .filter(|&i| stem.is_char_boundary(i) && stem.is_char_boundary(i + 36))
        .map(|i| &stem[i..i + 36])
        .find(|s| is_uuid(s))
}

fn is_uuid(s: &str) -> bool {
    s.len() == 36
        && s.bytes().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

/// What the processes on this machine (those ctxctl may read) hold and run.
#[derive(Debug, Default)]
struct Procs {
    /// (device, inode) of each file some process has open for writing → (pid, name).
    writers: std::collections::HashMap<(u64, u64), (u32, String)>,
    /// Agent processes: (pid, name, command line).
    agents: Vec<(u32, String, Vec<String>)>,
}

impl Procs {
    fn live(&self, path: &Path) -> Option<Live> {
        if let Some((pid, cmd)) = self.writer_of(path) {
            return Some(Live::Open { pid, cmd });
        }
        if let Some(live) = claude::marker(path) {
            return Some(live);
        }
        // The UUID in the file's name, else the id its agent's folder names it by
        // (Copilot CLI's `session-state/<id>/events.jsonl`).
        let id = session_id(path)
            .map(str::to_string)
            .or_else(|| crate::formats::agent::id_by_place(path))?;
        self.agents
            .iter()
            .find(|(_, _, argv)| argv.iter().any(|a| a.contains(id.as_str())))
            .map(|(pid, cmd, _)| Live::Agent {
                pid: *pid,
                cmd: cmd.clone(),
                id: id.clone(),
            })
    }

    fn writer_of(&self, path: &Path) -> Option<(u32, String)> {
        self.writers.get(&file_id(path)?).cloned()
    }

    /// Linux: `/proc/*/fd` with the access mode in `/proc/*/fdinfo`, `/proc/*/cmdline`;
    /// only the descriptors of the file `only` when given (the last look before one file
    /// is replaced), else of every regular file (a batch's one look). Processes whose
    /// entries cannot be read (other users') are not seen, nor is this process.
    #[cfg(target_os = "linux")]
    fn read(only: Option<(u64, u64)>) -> Procs {
        use std::os::unix::fs::MetadataExt;
        let mut out = Procs::default();
        let me = std::process::id();
        let Ok(procs) = std::fs::read_dir("/proc") else {
            return out;
        };
        for proc in procs.flatten() {
            let Some(pid) = (proc.file_name().to_str()).and_then(|n| n.parse::<u32>().ok()) else {
                continue;
            };
            if pid == me {
                continue;
            }
            let dir = proc.path();
            let comm = std::fs::read_to_string(dir.join("comm"))
                .map(|c| c.trim_end().to_string())
                .unwrap_or_default();
            let argv: Vec<String> = std::fs::read(dir.join("cmdline"))
                .map(|b| {
                    b.split(|&c| c == 0)
                        .filter(|a| !a.is_empty())
                        .map(|a| String::from_utf8_lossy(a).into_owned())
                        .collect()
                })
                .unwrap_or_default();
            let Ok(fds) = std::fs::read_dir(dir.join("fd")) else {
                if crate::formats::agent::is_agent_process(&comm, &argv) {
                    out.agents.push((pid, comm, argv));
                }
                continue;
            };
            for fd in fds.flatten() {
                // What the descriptor is first (most are pipes and sockets), its mode after.
                let Ok(m) = std::fs::metadata(fd.path()) else {
                    continue;
                };
                let id = (m.dev(), m.ino());
                if !m.is_file() || only.is_some_and(|o| o != id) {
                    continue;
                }
                if opened_for_writing(&dir, &fd.file_name()) {
                    out.writers.insert(id, (pid, comm.clone()));
                }
            }
            if crate::formats::agent::is_agent_process(&comm, &argv) {
                out.agents.push((pid, comm, argv));
            }
        }
        out
    }

    #[cfg(not(target_os = "linux"))]
    fn read(_only: Option<(u64, u64)>) -> Procs {
        Procs::default()
    }
}

/// The (device, inode) of the file at `path`; `None` off Unix.
fn file_id(path: &Path) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(path).ok()?;
        Some((m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// Claude Code does not keep its transcript open (each append opens and closes it); while
/// it runs a session it keeps `<root>/sessions/<PID>.json` (`{"pid", "sessionId",
/// "procStart", …}`) beside `<root>/projects/`, from start-up to a clean exit, whatever the
/// mode (`-p`, interactive, idle at its prompt) or how the session was chosen (`--resume`,
/// `--continue`, `/resume`). A file left by a killed process is told apart by its process:
/// gone, or started at another time (`procStart`, field 22 of `/proc/PID/stat`).
mod claude {
    use std::path::{Component, Path, PathBuf};

    use super::Live;

    /// The marker that names the session of the transcript `path`
    /// (`<root>/projects/<project>/<id>.jsonl`, or a subagent's
    /// `<root>/projects/<project>/<id>/subagents/agent-….jsonl`), with a running process.
    pub(super) fn marker(path: &Path) -> Option<Live> {
        let (root, id) = session_of(path)?;
        let dir = std::fs::read_dir(root.join("sessions")).ok()?;
        dir.flatten().find_map(|e| {
            let p = e.path();
            let pid: u32 = p
                .file_name()?
                .to_str()?
                .strip_suffix(".json")?
                .parse()
                .ok()?;
            let text = std::fs::read(&p).ok()?;
            let m: serde_json::Value = serde_json::from_slice(&text).ok()?;
            if m.get("sessionId")?.as_str()? != id || m.get("pid")?.as_u64()? != u64::from(pid) {
                return None;
            }
            let started = m.get("procStart").and_then(|s| s.as_str());
            running(pid, started).then(|| Live::Marker {
                cmd: super::comm(pid),
                marker: p,
                pid,
            })
        })
    }

    /// The Claude directory and the session id of a transcript under its `projects/`.
    fn session_of(path: &Path) -> Option<(PathBuf, String)> {
        let parts: Vec<Component> = path.components().collect();
        let at = parts.iter().rposition(|c| c.as_os_str() == "projects")?;
        let root: PathBuf = parts[..at].iter().collect();
        let rest = &parts[at + 1..];
        let id = match rest {
            [_, file] => Path::new(file.as_os_str()).file_stem()?.to_str()?,
            [_, dir, sub, _] if sub.as_os_str() == "subagents" => dir.as_os_str().to_str()?,
            _ => return None,
        };
        Some((root, id.to_string()))
    }

    /// Whether process `pid` runs, started at `started` (clock ticks after boot) if known.
    fn running(pid: u32, started: Option<&str>) -> bool {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            return false;
        };
        match started {
            Some(s) => start_time(&stat) == Some(s),
            None => true,
        }
    }

    /// Field 22 of a `/proc/PID/stat` line (after the parenthesised name, which may hold
    /// spaces).
    pub(super) fn start_time(stat: &str) -> Option<&str> {
        let after = &stat[stat.rfind(')')? + 1..];
        after.split_whitespace().nth(19)
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn transcripts_and_subagents_name_their_session() {
            let (root, id) = session_of(Path::new("/h/.claude/projects/-p/abc.jsonl")).unwrap();
            assert_eq!(
                (root.as_path(), id.as_str()),
                (Path::new("/h/.claude"), "abc")
            );
            let (_, id) = session_of(Path::new(
                "/h/.claude/projects/-p/abc/subagents/agent-1.jsonl",
            ))
            .unwrap();
            assert_eq!(id, "abc");
            assert!(session_of(Path::new("/h/chat.jsonl")).is_none());
            assert!(session_of(Path::new("/h/projects/a/b/c/d.jsonl")).is_none());
        }

        #[test]
        fn the_start_time_is_field_22() {
            let stat =
                "13619 (claude (x) y) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 40822 99";
            assert_eq!(start_time(stat), Some("40822"));
        }
    }
}

/// The name of process `pid` (`/proc/PID/comm`), or `?`.
fn comm(pid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .map(|c| c.trim_end().to_string())
        .unwrap_or_else(|_| "?".into())
}

/// Whether descriptor `fd` of the process whose `/proc` directory is `proc` was opened for
/// writing (the access mode in its `fdinfo` flags: write-only or read-write).
#[cfg(target_os = "linux")]
pub(crate) fn opened_for_writing(proc: &Path, fd: &std::ffi::OsStr) -> bool {
    let info = proc.join("fdinfo").join(fd);
    std::fs::read_to_string(info).ok().is_some_and(|text| {
        text.lines()
            .find_map(|l| l.strip_prefix("flags:"))
            .and_then(|f| u32::from_str_radix(f.trim(), 8).ok())
            .is_some_and(|flags| flags & 0o3 != 0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_is_live_and_old_or_future_is_not() {
        assert_eq!(age(1000, 1000, 120), Some(0));
        assert_eq!(age(1000, 881, 120), Some(119));
        assert_eq!(age(1000, 880, 120), None);
        assert_eq!(age(1000, 1005, 120), None);
    }

    #[test]
    fn session_ids_come_from_the_file_name() {
        let id = "0196f2a1-7b3c-4d5e-8f90-a1b2c3d4e5f6";
        assert_eq!(session_id(Path::new(&format!("/p/{id}.jsonl"))), Some(id));
        assert_eq!(
            session_id(Path::new(&format!(
                "rollout-2026-11-27T10-00-00-{id}.jsonl"
            ))),
            Some(id)
        );
        assert_eq!(session_id(Path::new("chat.json")), None);
        assert_eq!(
            session_id(Path::new("0196f2a1-7b3c-4d5e-8f90-a1b2c3d4e5fg.jsonl")),
            None
        );
        assert_eq!(session_id(Path::new("日本語のファイル名です.json")), None);
    }

    #[test]
    fn an_agent_naming_the_session_makes_it_live() {
        let id = "0196f2a1-7b3c-4d5e-8f90-a1b2c3d4e5f6";
        let procs = Procs {
            writers: Default::default(),
            agents: vec![(
                42,
                "claude".into(),
                vec!["claude".into(), "--resume".into(), id.into()],
            )],
        };
        let live = procs.live(Path::new(&format!("/nowhere/{id}.jsonl")));
        assert_eq!(
            live,
            Some(Live::Agent {
                pid: 42,
                cmd: "claude".into(),
                id: id.into()
            })
        );
        let other = "1196f2a1-7b3c-4d5e-8f90-a1b2c3d4e5f6";
        assert_eq!(
            procs.live(Path::new(&format!("/nowhere/{other}.jsonl"))),
            None
        );
    }
}
