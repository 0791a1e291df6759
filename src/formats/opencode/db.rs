//! OpenCode's SQLite store itself: opening it, finding its columns by name, choosing a
//! session, and rendering what OpenCode sends of it as the lines the
//! [`OpenCode`](super::OpenCode) codec reads.
//!
//! A session renders as: a first line describing it (from the `session` row), then one
//! line per `message` row OpenCode puts into its next request, in the order it sends them
//! ([`super::view::filter_compacted`]), each with its `part` rows:
//! `{"id":…,"time_created":…,"data":<message.data>,"parts":[{"id":…,"time_created":…,"data":<part.data>},…]}`.
//! The `data` columns are copied verbatim (compacted only if they span lines).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};
use serde_json::{json, Value};

use super::rows::{PartRow, Row};
use super::view::{filter_compacted, Msg};
use super::StoreError;
use crate::formats::sqlite::{self, one_line, text, Listed};

/// An open OpenCode database.
pub struct Db {
    pub conn: Connection,
    pub schema: Schema,
}

/// What an OpenCode database holds: its path and the columns of its session table.
#[derive(Debug, Clone)]
pub struct Schema {
    pub path: PathBuf,
    session: HashSet<String>,
}

/// One session of the database, as listed.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionInfo {
    pub id: String,
    pub title: String,
    pub slug: String,
    pub parent: Option<String>,
    /// `time_updated`, Unix milliseconds.
    pub updated: i64,
    pub messages: usize,
    /// The directory OpenCode ran the session in (`session.directory`).
    pub directory: Option<String>,
}

/// A session rendered: the text and every row of the session (not only those shown).
pub struct Rendered {
    pub text: String,
    pub rows: Vec<Row>,
}

/// Columns ctxctl cannot read an OpenCode database without, by table.
const NEEDED: [(&str, &[&str]); 3] = [
    ("session", &["id", "time_updated"]),
    ("message", &["id", "session_id", "time_created", "data"]),
    (
        "part",
        &["id", "message_id", "session_id", "time_created", "data"],
    ),
];

/// Whether the SQLite database at `path` has OpenCode's tables (`session`, `message`,
/// `part`) rather than goose's. `false` when it cannot be opened.
pub fn is_opencode(path: &Path) -> bool {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let Ok(conn) = Connection::open_with_flags(path, flags) else {
        return false;
    };
    conn.query_row(
        "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN ('session', 'message', 'part')",
        [],
        |r| r.get::<_, i64>(0),
    )
    .is_ok_and(|n| n == 3)
}

impl Db {
    /// Opens `path` for reading only (`query_only`; works while OpenCode holds it and its
    /// WAL), or for writing ([`sqlite::open`]).
    pub fn open(path: &Path, write: bool) -> Result<Db, StoreError> {
        let conn = sqlite::open(path, write).map_err(|e| super::STORE.sql(path, e))?;
        let session = super::STORE.needs(path, &conn, &NEEDED)?.swap_remove(0);
        Ok(Db {
            conn,
            schema: Schema {
                path: path.to_path_buf(),
                session,
            },
        })
    }

    pub fn select(&self, wanted: Option<&str>) -> Result<SessionInfo, StoreError> {
        self.schema.select(&self.conn, wanted)
    }

    pub fn render(&self, s: &SessionInfo) -> Result<Rendered, StoreError> {
        self.schema.render(&self.conn, s)
    }
}

impl Schema {
    pub(super) fn err(&self, e: rusqlite::Error) -> StoreError {
        super::STORE.sql(&self.path, e)
    }

    fn col(&self, column: &str, default: &str) -> String {
        if self.session.contains(column) {
            format!("s.{column}")
        } else {
            default.to_string()
        }
    }

    /// Every session, the most recently updated first (`opencode session list`'s order).
    pub fn sessions(&self, conn: &Connection) -> Result<Vec<SessionInfo>, StoreError> {
        let sql = format!(
            "SELECT s.id, {}, {}, {}, s.time_updated, \
             (SELECT COUNT(*) FROM message m WHERE m.session_id = s.id), {} \
             FROM session s ORDER BY s.time_updated DESC, s.id",
            self.col("title", "''"),
            self.col("slug", "''"),
            self.col("parent_id", "NULL"),
            self.col("directory", "NULL"),
        );
        let mut st = conn.prepare(&sql).map_err(|e| self.err(e))?;
        let rows = st
            .query_map([], |r| {
                Ok(SessionInfo {
                    id: r.get(0)?,
                    title: r.get::<_, Option<String>>(1)?.unwrap_or_default(),
                    slug: r.get::<_, Option<String>>(2)?.unwrap_or_default(),
                    parent: r.get(3)?,
                    updated: r.get::<_, Option<i64>>(4)?.unwrap_or(0),
                    messages: r.get::<_, i64>(5)? as usize,
                    directory: r.get(6)?,
                })
            })
            .map_err(|e| self.err(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.err(e));
        rows
    }

    /// The session `wanted` names (its id, else its title, else its slug; the most
    /// recently updated wins), or with none the only top-level session.
    pub fn select(
        &self,
        conn: &Connection,
        wanted: Option<&str>,
    ) -> Result<SessionInfo, StoreError> {
        super::STORE.select(&self.path, self.sessions(conn)?, wanted)
    }

    /// Every message of session `s` with its parts, in OpenCode's order
    /// (`time_created, id`; parts by `id`).
    pub fn rows(&self, conn: &Connection, s: &SessionInfo) -> Result<Vec<Row>, StoreError> {
        let bad = |id: &str, what: &str| StoreError::BadRow {
            path: self.path.clone(),
            row: id.to_string(),
            what: what.to_string(),
        };
        let mut st = conn
            .prepare(
                "SELECT id, time_created, data FROM message WHERE session_id = ?1 \
                 ORDER BY time_created, id",
            )
            .map_err(|e| self.err(e))?;
        let mut q = st.query([&s.id]).map_err(|e| self.err(e))?;
        let mut rows = Vec::new();
        while let Some(r) = q.next().map_err(|e| self.err(e))? {
            let id: String = r.get(0).map_err(|e| self.err(e))?;
            let time_created: i64 = r
                .get(1)
                .map_err(|_| bad(&id, "time_created is not an integer"))?;
            let data = text(r.get_ref(2).map_err(|e| self.err(e))?)
                .and_then(|d| one_line(&d))
                .ok_or_else(|| bad(&id, "data is not JSON"))?;
            rows.push(Row {
                id,
                time_created,
                data,
                parts: Vec::new(),
            });
        }
        let mut st = conn
            .prepare(
                "SELECT id, message_id, time_created, data FROM part WHERE session_id = ?1 \
                 ORDER BY message_id, id",
            )
            .map_err(|e| self.err(e))?;
        let mut q = st.query([&s.id]).map_err(|e| self.err(e))?;
        let index: std::collections::HashMap<String, usize> = rows
            .iter()
            .enumerate()
            .map(|(i, r)| (r.id.clone(), i))
            .collect();
        while let Some(r) = q.next().map_err(|e| self.err(e))? {
            let id: String = r.get(0).map_err(|e| self.err(e))?;
            let message: String = r.get(1).map_err(|e| self.err(e))?;
            let time_created: i64 = r
                .get(2)
                .map_err(|_| bad(&id, "time_created is not an integer"))?;
            let data = text(r.get_ref(3).map_err(|e| self.err(e))?)
                .and_then(|d| one_line(&d))
                .ok_or_else(|| bad(&id, "data is not JSON"))?;
            if let Some(&i) = index.get(&message) {
                rows[i].parts.push(PartRow {
                    id,
                    time_created,
                    data,
                });
            }
        }
        Ok(rows)
    }

    /// The session as the codec reads it (see the module docs).
    pub fn render(&self, conn: &Connection, s: &SessionInfo) -> Result<Rendered, StoreError> {
        let model = conn
            .query_row(
                &format!(
                    "SELECT {} FROM session s WHERE s.id = ?1",
                    self.col("model", "NULL")
                ),
                [&s.id],
                |r| Ok(text(r.get_ref(0)?)),
            )
            .map_err(|e| self.err(e))?
            .and_then(|m| serde_json::from_str::<Value>(&m).ok())
            .and_then(|m| m.get("id").and_then(Value::as_str).map(String::from));
        let rows = self.rows(conn, s)?;
        let msgs: Vec<Msg> = rows
            .iter()
            .map(|r| {
                Msg::parse(r).map_err(|what| StoreError::BadRow {
                    path: self.path.clone(),
                    row: r.id.clone(),
                    what,
                })
            })
            .collect::<Result<_, _>>()?;
        let shown = filter_compacted(&msgs);
        let head = json!({
            "session": s.id,
            "title": s.title,
            "slug": s.slug,
            "model": model,
            "time_updated": s.updated,
        });
        let mut out = head.to_string();
        out.push('\n');
        for i in shown {
            out.push_str(&line(&rows[i]));
            out.push('\n');
        }
        Ok(Rendered { text: out, rows })
    }
}

/// The rendering line of one message row.
pub fn line(r: &Row) -> String {
    let mut out = format!(
        "{{\"id\":{},\"time_created\":{},\"data\":{},\"parts\":[",
        json!(r.id),
        r.time_created,
        r.data
    );
    for (k, p) in r.parts.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        out.push_str(&format!(
            "{{\"id\":{},\"time_created\":{},\"data\":{}}}",
            json!(p.id),
            p.time_created,
            p.data
        ));
    }
    out.push_str("]}");
    out
}

/// The sessions to choose from, for an error message.
impl Listed for SessionInfo {
    const KEYS: usize = 3;

    fn key(&self, i: usize) -> &str {
        [&self.id, &self.title, &self.slug][i]
    }

    /// Top-level sessions, not the subagent sessions a task started.
    fn chosen_alone(&self) -> bool {
        self.parent.is_none()
    }

    fn describe(&self) -> String {
        format!("{} {:?} ({} messages)", self.id, self.title, self.messages)
    }
}
