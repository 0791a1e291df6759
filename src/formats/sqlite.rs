//! What the agents that keep their sessions in a SQLite database (goose's `sessions.db`,
//! OpenCode's `opencode.db`) share, written once: telling a database by its header,
//! opening one so that reading never writes, finding a table's columns, and the errors,
//! worded for the agent whose store it is ([`Store`]).

use std::collections::HashSet;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

/// How long a write waits for the agent (or anyone) holding the database's write lock.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(3);

/// The first 16 bytes of every SQLite database file.
const MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// A column's value as text (`None` for NULL and for non-text values).
pub fn text(v: rusqlite::types::ValueRef<'_>) -> Option<String> {
    match v {
        rusqlite::types::ValueRef::Text(t) => Some(String::from_utf8_lossy(t).into_owned()),
        _ => None,
    }
}

/// `json` as it is when it is JSON on one line; compacted when it spans lines (a line of
/// a session's rendering must stay one line); `None` when it is not JSON.
pub fn one_line(json: &str) -> Option<String> {
    let raw: &serde_json::value::RawValue = serde_json::from_str(json).ok()?;
    if raw.get().contains('\n') || raw.get().contains('\r') {
        let v: serde_json::Value = serde_json::from_str(json).ok()?;
        return Some(v.to_string());
    }
    Some(raw.get().to_string())
}

/// Whether `path` is a SQLite database (by its header; no SQLite involved).
pub fn is_database(path: &Path) -> bool {
    let mut head = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| &head == MAGIC)
}

/// Opens the database at `path` for writing, or for reading only.
///
/// Reading never changes the database (`query_only`); it is opened for writing all the
/// same where it can be, so that closing it removes the WAL files SQLite makes when it
/// opens a WAL database nobody else has open (a read-only connection would leave them
/// behind), and it works while the agent holds the database and its WAL. A database that
/// cannot be written is opened read-only.
pub fn open(path: &Path, write: bool) -> rusqlite::Result<Connection> {
    let rw = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = if write {
        Connection::open_with_flags(path, rw)?
    } else {
        let ro = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, rw)
            .or_else(|_| Connection::open_with_flags(path, ro))?;
        conn.pragma_update(None, "query_only", true)?;
        conn
    };
    conn.busy_timeout(BUSY_TIMEOUT)?;
    Ok(conn)
}

/// The column names of `table` (empty when there is no such table).
pub fn columns(conn: &Connection, table: &str) -> rusqlite::Result<HashSet<String>> {
    let mut st = conn.prepare("SELECT name FROM pragma_table_info(?1)")?;
    let names = st
        .query_map([table], |r| r.get::<_, String>(0))?
        .collect::<Result<HashSet<_>, _>>()?;
    Ok(names)
}

/// An agent's SQLite store, in the words its errors use.
#[derive(Debug)]
pub struct Store {
    /// The agent as messages name it (`goose`, `OpenCode`).
    pub agent: &'static str,
    /// The program that holds the database (`goose`, `opencode`).
    pub program: &'static str,
    /// What a database that is not this store is said not to be.
    pub what: &'static str,
    /// The column a database that is not SQLite at all is said to lack.
    pub not_a_database: &'static str,
    /// What `--session` may name (`id or name`).
    pub keys: &'static str,
    /// How to choose one when several could be meant, and which are listed.
    pub choose: &'static str,
    /// Why a write to a session the agent has open is refused, after "may be open in …".
    pub live_why: &'static str,
}

impl Store {
    /// The error for a SQLite failure on the database at `path`: a lock held by another
    /// program and a file that is not a database get their own words.
    pub fn sql(&'static self, path: &Path, e: rusqlite::Error) -> StoreError {
        let path = path.to_path_buf();
        match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => {
                StoreError::Locked { path, store: self }
            }
            Some(rusqlite::ErrorCode::NotADatabase) => StoreError::NotStore {
                path,
                store: self,
                missing: self.not_a_database.into(),
            },
            _ => StoreError::Sql {
                path,
                msg: e.to_string().replace('\n', " "),
            },
        }
    }

    /// The columns each of `needed`'s tables must have, found in `conn`; a missing one is
    /// [`StoreError::NotStore`]. Gives the columns of every table, in `needed`'s order.
    pub fn needs(
        &'static self,
        path: &Path,
        conn: &Connection,
        needed: &[(&str, &[&str])],
    ) -> Result<Vec<HashSet<String>>, StoreError> {
        let mut all = Vec::with_capacity(needed.len());
        for (table, cols) in needed {
            let have = columns(conn, table).map_err(|e| self.sql(path, e))?;
            if let Some(missing) = cols.iter().find(|c| !have.contains(**c)) {
                return Err(StoreError::NotStore {
                    path: path.to_path_buf(),
                    store: self,
                    missing: format!("{table}.{missing}"),
                });
            }
            all.push(have);
        }
        Ok(all)
    }
}

/// A session of an agent's store, as `--session` chooses among them.
pub trait Listed: Clone {
    /// How many names `--session` may give it by.
    const KEYS: usize;
    /// Its `i`th name (0: its id; below [`Self::KEYS`]). Each name is tried over every
    /// session (most recently updated first) before the next.
    fn key(&self, i: usize) -> &str;
    /// Whether it may be chosen when `--session` is not given (and it is the only one).
    fn chosen_alone(&self) -> bool;
    /// The session as one entry of a list in an error.
    fn describe(&self) -> String;
}

impl Store {
    /// The session of `all` (most recently updated first) that `wanted` names, or with none
    /// the only one that may be chosen alone.
    pub fn select<S: Listed>(
        &'static self,
        path: &Path,
        all: Vec<S>,
        wanted: Option<&str>,
    ) -> Result<S, StoreError> {
        if let Some(w) = wanted {
            let named = (0..S::KEYS).find_map(|i| all.iter().find(|s| s.key(i) == w));
            return named.cloned().ok_or_else(|| StoreError::NoSuchSession {
                path: path.to_path_buf(),
                store: self,
                wanted: w.to_string(),
                candidates: listing(&all),
            });
        }
        let alone: Vec<S> = all.into_iter().filter(S::chosen_alone).collect();
        match alone.as_slice() {
            [one] => Ok(one.clone()),
            _ => Err(StoreError::ChooseOne {
                path: path.to_path_buf(),
                store: self,
                candidates: listing(&alone),
            }),
        }
    }
}

/// `all` as a list in an error: the first 20, then how many more; `none` when empty.
fn listing<S: Listed>(all: &[S]) -> String {
    const MAX: usize = 20;
    let mut out: Vec<String> = all.iter().take(MAX).map(S::describe).collect();
    if all.len() > MAX {
        out.push(format!("… and {} more", all.len() - MAX));
    }
    if out.is_empty() {
        return "none".into();
    }
    out.join("; ")
}

/// Why an agent's database cannot be read or written. Nothing was written in any case.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{}: the database is locked by another program ({}?); waited {} s, nothing was written", .path.display(), .store.program, BUSY_TIMEOUT.as_secs())]
    Locked {
        path: PathBuf,
        store: &'static Store,
    },
    #[error("{}: {msg}", .path.display())]
    Sql { path: PathBuf, msg: String },
    #[error("{}: {} (expected a {missing} column)", .path.display(), .store.what)]
    NotStore {
        path: PathBuf,
        store: &'static Store,
        missing: String,
    },
    #[error("{}: no {} session with the {} {wanted:?}; sessions: {candidates}", .path.display(), .store.agent, .store.keys)]
    NoSuchSession {
        path: PathBuf,
        store: &'static Store,
        wanted: String,
        candidates: String,
    },
    #[error("{}: choose {}: {candidates}", .path.display(), .store.choose)]
    ChooseOne {
        path: PathBuf,
        store: &'static Store,
        candidates: String,
    },
    #[error("{}: {row}: {what}", .path.display())]
    BadRow {
        path: PathBuf,
        row: String,
        what: String,
    },
    #[error("{}: {} session {id} changed while ctxctl was working on it (is {} running it?); nothing was written", .path.display(), .store.agent, .store.program)]
    Changed {
        path: PathBuf,
        store: &'static Store,
        id: String,
    },
    #[error("{}: {} session {id} was active {secs} s ago and may be open in {}{}; nothing was written (quit that session, or pass --include-live)", .path.display(), .store.agent, .store.program, .store.live_why)]
    Live {
        path: PathBuf,
        store: &'static Store,
        id: String,
        secs: i64,
    },
    #[error("{}: {why}", .path.display())]
    Unsupported { path: PathBuf, why: String },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_on_several_lines_is_compacted_and_other_text_refused() {
        assert_eq!(one_line("[1, 2]").as_deref(), Some("[1, 2]"));
        assert_eq!(one_line("[1,\n 2]").as_deref(), Some("[1,2]"));
        assert_eq!(one_line("[1,"), None);
    }

    static TEST: Store = Store {
        agent: "Agent",
        program: "agent",
        what: "not an Agent database",
        not_a_database: "t.c",
        keys: "id or name",
        choose: "an Agent session with --session ID; sessions",
        live_why: "",
    };

    #[test]
    fn a_file_that_is_not_sqlite_is_not_a_database() {
        let dir = tempfile::tempdir().unwrap();
        let text = dir.path().join("x.db");
        std::fs::write(&text, "SQLite format 2 and then some").unwrap();
        assert!(!is_database(&text));
        let db = dir.path().join("y.db");
        Connection::open(&db)
            .unwrap()
            .execute_batch("CREATE TABLE t (c TEXT)")
            .unwrap();
        assert!(is_database(&db));
    }

    #[test]
    fn reading_never_writes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        Connection::open(&path)
            .unwrap()
            .execute_batch("CREATE TABLE t (c TEXT)")
            .unwrap();
        let conn = open(&path, false).unwrap();
        assert!(conn.execute("INSERT INTO t VALUES ('x')", []).is_err());
        let conn = open(&path, true).unwrap();
        assert_eq!(conn.execute("INSERT INTO t VALUES ('x')", []).unwrap(), 1);
    }

    #[test]
    fn a_missing_column_names_table_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch("CREATE TABLE t (c TEXT)").unwrap();
        let cols = TEST.needs(&path, &conn, &[("t", &["c"])]).unwrap();
        assert!(cols[0].contains("c"));
        let e = TEST.needs(&path, &conn, &[("t", &["c", "d"])]).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{}: not an Agent database (expected a t.d column)",
                path.display()
            )
        );
    }
}
