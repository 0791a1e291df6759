//! Sessions inside an agent's SQLite database (goose's `sessions.db`, OpenCode's
//! `opencode.db`): which agent's database a file is, and reading and writing one session
//! of it through that agent's format ([`crate::formats::goose_db`],
//! [`crate::formats::opencode`]).

use std::path::Path;

use crate::formats::{goose_db, opencode};
use crate::session::Format;

/// One session of an agent's database.
#[derive(Debug, Clone, PartialEq)]
pub enum DbSession {
    Goose(goose_db::SessionInfo),
    OpenCode(opencode::SessionInfo),
}

impl DbSession {
    pub fn id(&self) -> &str {
        match self {
            DbSession::Goose(s) => &s.id,
            DbSession::OpenCode(s) => &s.id,
        }
    }

    /// The agent, as shown in messages.
    pub fn agent(&self) -> &'static str {
        match self {
            DbSession::Goose(_) => "goose",
            DbSession::OpenCode(_) => "OpenCode",
        }
    }

    pub fn format(&self) -> Format {
        match self {
            DbSession::Goose(_) => Format::GooseDb,
            DbSession::OpenCode(_) => Format::OpenCode,
        }
    }

    /// The name its archives are filed under.
    pub fn archive_name(&self) -> String {
        match self {
            DbSession::Goose(s) => format!("goose-{}", s.id),
            DbSession::OpenCode(s) => format!("opencode-{}", s.id),
        }
    }
}

/// A session read from an agent's database: which one, and its rendering.
pub struct Selected {
    pub session: DbSession,
    pub text: String,
}

/// Reads session `wanted` (`None`: the database's only session) of the database at
/// `path`, read-only.
pub fn read(path: &Path, wanted: Option<&str>) -> anyhow::Result<Selected> {
    if opencode::is_opencode(path) {
        let s = opencode::read_session(path, wanted)?;
        return Ok(Selected {
            session: DbSession::OpenCode(s.session),
            text: s.text,
        });
    }
    let s = goose_db::read_session(path, wanted)?;
    Ok(Selected {
        session: DbSession::Goose(s.session),
        text: s.text,
    })
}

/// Whether the database at `path` has a session `wanted` names.
pub fn has(path: &Path, wanted: &str) -> bool {
    read(path, Some(wanted)).is_ok()
}

/// Writes `bytes`, session `s` of the database at `path` rewritten; what changed, for
/// the debug log.
pub fn write(
    path: &Path,
    s: &DbSession,
    bytes: &[u8],
    guard: &goose_db::Guard,
) -> anyhow::Result<String> {
    Ok(match s {
        DbSession::Goose(s) => {
            let done = goose_db::write_session(path, s, bytes, guard)?;
            format!(
                "{} rows updated, {} inserted, {} deleted",
                done.updated, done.inserted, done.deleted
            )
        }
        DbSession::OpenCode(s) => {
            let done = opencode::write_session(path, s, bytes, guard)?;
            format!(
                "{} messages inserted, {} deleted",
                done.inserted, done.deleted
            )
        }
    })
}
