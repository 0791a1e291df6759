//! An agent that keeps its sessions in a SQLite database (goose's `sessions.db`,
//! OpenCode's `opencode.db`), as the commands meet it: which database is its, its sessions
//! as listed, one session read as the text its codec reads, and that text written back.
//! Each such agent has one [`DbAgent`] value in its own folder, named by its
//! [`AgentInfo::database`](super::agent::AgentInfo::database); nothing else names it.

use std::path::Path;

use super::sqlite::{Store, StoreError};
use crate::session::Format;

/// Seconds since a database session's last update within which it counts as open in its
/// agent (which may write all of it back and undo a rewrite).
pub const LIVE_SECS: i64 = 120;

/// A session's reading: which session, and its text as the agent's codec reads it.
pub type ReadFn = fn(&Path, Option<&str>) -> Result<(DbSession, String), StoreError>;

/// What a write to an agent's database needs besides the text.
#[derive(Debug, Clone, Copy)]
pub struct Guard {
    /// xxh3-128 of the rendering the rewrite was made from.
    pub expected: u128,
    /// Now, in Unix seconds.
    pub now: i64,
    /// Write even a session that looks live (`--include-live`).
    pub include_live: bool,
}

/// An agent whose sessions live in a SQLite database.
#[derive(Debug)]
pub struct DbAgent {
    /// The format its sessions render as.
    pub format: Format,
    /// The database's file name (`sessions.db`): how a walk over a directory finds it.
    pub file_name: &'static str,
    /// Its errors' words.
    pub store: &'static Store,
    /// What its archives are filed under, before the session id (`goose` → `goose-ID`).
    pub archive_prefix: &'static str,
    /// Whether `-r DIR` reads the database as one of DIR's session files (goose's sits
    /// among the JSONL sessions of goose ≤ 1.9, which `-r` over that directory means).
    pub in_walks: bool,
    /// Whether the database at `path` is this agent's (by its tables).
    pub is_mine: fn(&Path) -> bool,
    /// Its sessions, the most recently updated first.
    pub list: fn(&Path) -> Result<Vec<DbSession>, StoreError>,
    /// The session `wanted` names (`None`: the only one there is to choose) and its
    /// rendering, read-only.
    pub read: ReadFn,
    /// Writes `text`, session `id` rewritten, in one transaction; what changed, for the
    /// debug log.
    pub write: fn(&Path, &str, &[u8], &Guard) -> Result<String, StoreError>,
}

/// One session of an agent's database.
#[derive(Debug, Clone)]
pub struct DbSession {
    pub agent: &'static DbAgent,
    pub id: String,
    /// Last activity, Unix seconds.
    pub updated: Option<i64>,
    /// The directory the agent ran it in.
    pub project: Option<String>,
    /// Whether the agent's own list of sessions shows it (OpenCode's leaves out the
    /// sessions its subagents ran).
    pub listed: bool,
}

impl PartialEq for DbSession {
    fn eq(&self, other: &DbSession) -> bool {
        std::ptr::eq(self.agent, other.agent)
            && (&self.id, self.updated, &self.project, self.listed)
                == (&other.id, other.updated, &other.project, other.listed)
    }
}

impl DbSession {
    /// The agent, as messages name it.
    pub fn agent_name(&self) -> &'static str {
        self.agent.store.agent
    }

    pub fn format(&self) -> Format {
        self.agent.format
    }

    /// The name its archives are filed under.
    pub fn archive_name(&self) -> String {
        archive_name(self.agent, &self.id)
    }

    /// The error for a session that changed while ctxctl worked on it.
    pub fn changed(&self, path: &Path) -> StoreError {
        StoreError::Changed {
            path: path.to_path_buf(),
            store: self.agent.store,
            id: self.id.clone(),
        }
    }
}

/// The name the archives of session `id` of `agent` are filed under.
pub fn archive_name(agent: &DbAgent, id: &str) -> String {
    format!("{}-{id}", agent.archive_prefix)
}

/// Every database agent, in the order of the codec table.
pub fn all() -> impl Iterator<Item = &'static DbAgent> {
    super::CODECS
        .iter()
        .filter_map(|c| c.agent_info()?.database)
}

/// The agent whose sessions `format` renders.
pub fn of_format(format: Format) -> Option<&'static DbAgent> {
    all().find(|a| a.format == format)
}

/// The agent whose database has the file name `name`.
pub fn of_file_name(name: &str) -> Option<&'static DbAgent> {
    all().find(|a| a.file_name == name)
}

/// The agent whose database `path` is (by its tables); `None` for a database that is
/// none of theirs, or that SQLite cannot read.
pub fn of_database(path: &Path) -> Option<&'static DbAgent> {
    all().find(|a| (a.is_mine)(path))
}

/// Whether the SQLite database at `path` can be opened and has every one of `tables`.
/// `false` when it cannot be opened.
pub fn has_tables(path: &Path, tables: &[&str]) -> bool {
    let flags =
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let Ok(conn) = rusqlite::Connection::open_with_flags(path, flags) else {
        return false;
    };
    tables.iter().all(|t| {
        conn.query_row(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
            [t],
            |r| r.get::<_, i64>(0),
        )
        .is_ok_and(|n| n == 1)
    })
}
