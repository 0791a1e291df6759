//! Sessions inside an agent's SQLite database (goose's `sessions.db`, OpenCode's
//! `opencode.db`): reading and writing one session of it through the agent's
//! [`DbAgent`](crate::formats::dbagent::DbAgent), which tells whose database it is.

use std::path::Path;

use crate::formats::dbagent;
pub use crate::formats::dbagent::{DbSession, Guard};

/// A session read from an agent's database: which one, and its rendering.
pub struct Selected {
    pub session: DbSession,
    pub text: String,
}

/// Reads session `wanted` (`None`: the database's only session) of the database at
/// `path`, read-only.
pub fn read(path: &Path, wanted: Option<&str>) -> anyhow::Result<Selected> {
    let agent = dbagent::of_database(path).ok_or_else(|| {
        let names: Vec<&str> = dbagent::all().map(|a| a.store.agent).collect();
        anyhow::anyhow!(
            "{}: not the session database of an agent ctxctl reads ({}): it lacks their tables",
            path.display(),
            names.join(", ")
        )
    })?;
    let (session, text) = (agent.read)(path, wanted)?;
    Ok(Selected { session, text })
}

/// Whether the database at `path` has a session `wanted` names.
pub fn has(path: &Path, wanted: &str) -> bool {
    read(path, Some(wanted)).is_ok()
}

/// Writes `bytes`, session `s` of the database at `path` rewritten; what changed, for
/// the debug log.
pub fn write(path: &Path, s: &DbSession, bytes: &[u8], guard: &Guard) -> anyhow::Result<String> {
    Ok((s.agent.write)(path, &s.id, bytes, guard)?)
}
