//! The files a command works on: `FILE...` as given (a directory among them is walked, as
//! ripgrep and fd do), then every session file below each `-r DIR`, in a stable order,
//! leaving out what the agents keep there that is not a session (each format says which
//! of its agent's files those are: [`crate::formats::classify_path`]) and what the run's
//! filters ([`crate::ops::filter`]) leave out.

use std::path::{Path, PathBuf};

use crate::context::Context;
use crate::formats::{classify_path, Found};
use crate::ops::describe::describe;
use crate::ops::filter::Filter;
use crate::ops::session_files::{is_db_file, is_session_file, walk_dir, Entry};

/// One input of a command: a file, or one session of an agent's database that a walk
/// found (each session of OpenCode's `opencode.db` is an input of its own).
#[derive(Debug, Clone)]
pub struct Input {
    pub path: PathBuf,
    /// The session of the database `path` this input is.
    pub session: Option<DbItem>,
}

/// One session of an agent's database, as a walk lists it.
#[derive(Debug, Clone)]
pub struct DbItem {
    pub id: String,
    /// When it was last active, in Unix seconds.
    pub active: Option<i64>,
}

impl Input {
    pub fn file(path: PathBuf) -> Self {
        Input {
            path,
            session: None,
        }
    }

    /// The id of the database session this is.
    pub fn id(&self) -> Option<&str> {
        self.session.as_ref().map(|s| s.id.as_str())
    }

    /// How the input is shown: the path, and `#ID` after a database's as `ctxctl
    /// sessions` shows it (`--session ID` selects it).
    pub fn shown(&self) -> String {
        let path = crate::ops::load::display(&self.path);
        match &self.session {
            Some(s) => format!("{path}#{}", s.id),
            None => path,
        }
    }

    /// [`Input::shown`] as a path, for reports that take one.
    pub fn label(&self) -> PathBuf {
        match &self.session {
            Some(_) => PathBuf::from(self.shown()),
            None => self.path.clone(),
        }
    }
}

/// `files` (each directory among them walked), then the session files below each of
/// `dirs` (sorted per directory). Below a directory, files that are not sessions (agent
/// metadata and settings, todo lists, empty files) are skipped with a note under `-v`; so
/// are subagent transcripts unless `subagents` (they belong to their parent session:
/// counting reads them, checks and rewrites leave them to it), and files `filter` leaves
/// out. An agent's database below a directory (OpenCode's `opencode.db`) gives each of
/// its sessions that `filter` keeps as an input, as `ctxctl sessions` lists them, unless
/// `--session` names the one to read. Files named on the command line are always taken,
/// as they are. A directory that does not exist is skipped with a warning; directories
/// with nothing to do give no input (a note says so); no input at all otherwise is a usage
/// error.
pub fn collect(
    ctx: &Context,
    files: &[PathBuf],
    dirs: &[PathBuf],
    subagents: bool,
    filter: &Filter,
) -> anyhow::Result<Vec<Input>> {
    let now = crate::ops::store::clock(ctx)?.unix();
    let mut out = Vec::new();
    let mut walked = Vec::new();
    for f in files {
        if f != Path::new("-") && f.is_dir() {
            walked.push(f.clone());
        } else if let Some(each) = every_session(ctx, f, filter)? {
            out.extend(each);
        } else {
            out.push(Input::file(f.clone()));
        }
    }
    let walked_any = !walked.is_empty() || !dirs.is_empty();
    let own = own_dirs(ctx);
    for dir in walked.iter().chain(dirs) {
        if !dir.exists() {
            // One agent not installed does not stop the run over the others' (cron).
            ctx.printer
                .warn(&format!("{}: no such directory; skipped", dir.display()));
            continue;
        }
        if is_own(&own, dir) {
            ctx.printer.debug(&format!(
                "{}: skipped (ctxctl's own cache or archive)",
                dir.display()
            ));
            continue;
        }
        for entry in walk_dir(dir, true, &own)? {
            let skip = match classify_path(&entry.path) {
                _ if entry.len == 0 => Some("empty file".to_string()),
                // Every agent database below it (goose's sessions.db, OpenCode's
                // opencode.db), as `ctxctl sessions` finds them.
                _ if ctx.settings.session.is_none()
                    && crate::ops::load::is_database(&entry.path) =>
                {
                    out.extend(db_sessions(ctx, &entry.path, filter)?);
                    continue;
                }
                Found::Other(why) => Some(why.to_string()),
                Found::Subagent { parent } if !subagents => {
                    Some(format!("subagent transcript, part of {}", parent.display()))
                }
                _ if is_db_file(&entry.path) && !is_session_file(&entry.path) => {
                    // With `--session`, the database that has it (see `load`).
                    match crate::ops::agentdb::has(
                        &entry.path,
                        ctx.settings.session.as_deref().unwrap_or_default(),
                    ) {
                        true => None,
                        false => Some("an agent database without that --session".to_string()),
                    }
                }
                _ => filtered_out(ctx, filter, &entry, now),
            };
            match skip {
                Some(why) => ctx
                    .printer
                    .debug(&format!("{}: skipped ({why})", entry.path.display())),
                None => out.push(Input::file(entry.path)),
            }
        }
    }
    if out.is_empty() && walked_any {
        let dirs_shown: Vec<String> = walked
            .iter()
            .chain(dirs)
            .filter(|d| d.exists())
            .map(|d| d.display().to_string())
            .collect();
        // A directory named as FILE must hold a session (a typo, a wrong path); a batch
        // run (`-r`) with nothing to do is not an error: a quiet night for cron.
        if dirs.is_empty() {
            anyhow::bail!(
                "{}: is a directory with no session file below it",
                dirs_shown.join(", ")
            );
        }
        ctx.printer.note(&match filter.filters_files() {
            true => format!(
                "no session below {} matches the filters",
                dirs_shown.join(", ")
            ),
            false => format!("no session file below {}", dirs_shown.join(", ")),
        });
        return Ok(out);
    }
    if out.is_empty() {
        anyhow::bail!("no input: give session FILEs, - for standard input, or -r DIR");
    }
    Ok(out)
}

/// ctxctl's own directories that a walk of a home passes through and must not take for
/// sessions, whatever their files are named: the cache (digests are JSON files) and the
/// archive store (uncompressed archives are too). The named sessions of the data
/// directory (`sessions/`) are sessions, and stay.
fn own_dirs(ctx: &Context) -> Vec<PathBuf> {
    let cache = crate::config::paths::cache_dir(&ctx.env);
    let archives = ctx.data_dir().ok().map(|d| d.value.join("archives"));
    (cache.into_iter().chain(archives))
        .filter_map(|d| std::fs::canonicalize(d).ok())
        .collect()
}

/// Whether the directory `dir` is one of `own` or below one (canonical directories, see
/// [`own_dirs`]): a walk below it is not made. The walks of other directories do not go
/// into `own` ([`walk_dir`]'s pruning).
fn is_own(own: &[PathBuf], dir: &Path) -> bool {
    !own.is_empty()
        && std::fs::canonicalize(dir).is_ok_and(|real| own.iter().any(|d| real.starts_with(d)))
}

/// An agent's database named as FILE without `--session` reads like a directory of its
/// sessions: each session `filter` keeps, an input. `None` for anything else, and for a
/// database of one session (or none listed): the file is read as it is, its only
/// session (or the error saying why not).
pub fn every_session(
    ctx: &Context,
    path: &Path,
    filter: &Filter,
) -> anyhow::Result<Option<Vec<Input>>> {
    if ctx.settings.session.is_some() || !crate::ops::load::is_database(path) {
        return Ok(None);
    }
    let all = crate::ops::sessions::discover(ctx, &[path.to_path_buf()], &Filter::default())?;
    if all.len() < 2 {
        return Ok(None);
    }
    db_sessions(ctx, path, filter).map(Some)
}

/// The sessions of the agent database at `path` that `filter` keeps (by each session's
/// own time and project), each an input; a database that cannot be listed is one input,
/// whose reading then says why.
fn db_sessions(ctx: &Context, path: &Path, filter: &Filter) -> anyhow::Result<Vec<Input>> {
    let found = crate::ops::sessions::discover(ctx, &[path.to_path_buf()], filter)?;
    if found.is_empty() {
        ctx.printer
            .debug(&format!("{}: no session kept", path.display()));
    }
    Ok(found
        .into_iter()
        .map(|c| Input {
            path: c.path,
            session: c.db_session.map(|id| DbItem {
                id,
                active: c.modified,
            }),
        })
        .collect())
}

/// Why `filter` leaves out the file `entry`, if it does.
pub fn filtered_out(ctx: &Context, filter: &Filter, entry: &Entry, now: i64) -> Option<String> {
    if !filter.keeps_path(&entry.path, entry.age(now)) {
        return Some("filtered out by its name or time".into());
    }
    if filter.needs_description() {
        let d = describe(&entry.path, ctx.settings.format);
        if !filter.keeps_described(&d) {
            return Some(format!(
                "filtered out: agent {}, project {}",
                d.agent(),
                d.project.as_deref().unwrap_or("unknown")
            ));
        }
    }
    None
}
