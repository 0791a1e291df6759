//! goose's SQLite store itself: opening it, finding its columns by name, choosing a session
//! and rendering its rows as the lines the [`GooseDb`](super::GooseDb) codec reads.
//!
//! A session renders as goose JSONL: a metadata line (from the `sessions` row), then one
//! line per `messages` row in goose's load order (`created_timestamp, id`), built from the
//! row's columns verbatim: `{"id":message_id,"role":…,"created":…,"content":content_json,
//! "metadata":metadata_json}`. Writing ([`super::apply`]) maps lines back to rows.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use rusqlite::Connection;
use serde_json::{json, Value};

use super::StoreError;
use crate::formats::sqlite::{self, one_line, text, Listed};

/// An open goose session database.
pub struct Db {
    pub conn: Connection,
    pub schema: Schema,
}

/// What a goose database holds: its path and the columns of its tables.
#[derive(Debug, Clone)]
pub struct Schema {
    pub path: PathBuf,
    messages: HashSet<String>,
    sessions: HashSet<String>,
}

/// One session of the database, as listed.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionInfo {
    pub id: String,
    pub name: String,
    pub kind: String,
    pub updated_at: Option<String>,
    pub messages: usize,
    /// The directory goose ran the session in.
    pub working_dir: Option<String>,
}

/// One `messages` row as rendered.
#[derive(Debug, Clone)]
pub struct Row {
    pub rowid: i64,
    pub message_id: Option<String>,
    pub created: i64,
    /// The `content_json` and `metadata_json` texts the line holds.
    pub content: String,
    pub metadata: Option<String>,
}

/// A session rendered as goose JSONL.
pub struct Rendered {
    pub text: String,
    pub rows: Vec<Row>,
}

/// Columns ctxctl cannot read a goose database without.
const NEEDED: [&str; 5] = [
    "id",
    "session_id",
    "role",
    "content_json",
    "created_timestamp",
];

impl Db {
    /// Opens `path` for reading only (which works while goose holds the database and its
    /// WAL), or for writing ([`sqlite::open`]).
    pub fn open(path: &Path, write: bool) -> Result<Db, StoreError> {
        let conn = sqlite::open(path, write).map_err(|e| super::STORE.sql(path, e))?;
        let [messages, sessions]: [HashSet<String>; 2] = super::STORE
            .needs(path, &conn, &[("messages", &NEEDED), ("sessions", &["id"])])?
            .try_into()
            .expect("one column set per table asked for");
        let schema = Schema {
            path: path.to_path_buf(),
            messages,
            sessions,
        };
        Ok(Db { conn, schema })
    }

    /// See [`Schema::select`].
    pub fn select(&self, wanted: Option<&str>) -> Result<SessionInfo, StoreError> {
        self.schema.select(&self.conn, wanted)
    }

    /// See [`Schema::render`].
    pub fn render(&self, s: &SessionInfo) -> Result<Rendered, StoreError> {
        self.schema.render(&self.conn, s)
    }
}

impl Schema {
    pub fn has_message_column(&self, c: &str) -> bool {
        self.messages.contains(c)
    }

    pub fn has_session_column(&self, c: &str) -> bool {
        self.sessions.contains(c)
    }

    /// `column` of the sessions table, or `default` (SQL) when this database has none.
    fn session_col(&self, column: &str, default: &str) -> String {
        if self.sessions.contains(column) {
            format!("s.{column}")
        } else {
            default.to_string()
        }
    }

    fn message_col(&self, column: &str) -> String {
        if self.messages.contains(column) {
            column.to_string()
        } else {
            "NULL".to_string()
        }
    }

    pub(super) fn err(&self, e: rusqlite::Error) -> StoreError {
        super::STORE.sql(&self.path, e)
    }

    /// Every session, the most recently updated first (goose's list order).
    pub fn sessions(&self, conn: &Connection) -> Result<Vec<SessionInfo>, StoreError> {
        let updated = self.session_col("updated_at", "NULL");
        let sql = format!(
            "SELECT s.id, {}, {}, {updated}, \
             (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id), {} \
             FROM sessions s ORDER BY {updated} DESC, s.id DESC",
            self.session_col("name", "''"),
            self.session_col("session_type", "'user'"),
            self.session_col("working_dir", "NULL"),
        );
        let mut st = conn.prepare(&sql).map_err(|e| self.err(e))?;
        let rows = st
            .query_map([], |r| {
                Ok(SessionInfo {
                    id: r.get(0)?,
                    name: r.get::<_, Option<String>>(1)?.unwrap_or_default(),
                    kind: r.get::<_, Option<String>>(2)?.unwrap_or_default(),
                    updated_at: text(r.get_ref(3)?),
                    messages: r.get::<_, i64>(4)? as usize,
                    working_dir: text(r.get_ref(5)?),
                })
            })
            .map_err(|e| self.err(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.err(e));
        rows
    }

    /// The session `wanted` names (its id or its name, as `goose session --name` takes
    /// either; the most recently updated one wins), or with none the only user session.
    pub fn select(
        &self,
        conn: &Connection,
        wanted: Option<&str>,
    ) -> Result<SessionInfo, StoreError> {
        super::STORE.select(&self.path, self.sessions(conn)?, wanted)
    }

    /// The session's rows as goose JSONL.
    pub fn render(&self, conn: &Connection, s: &SessionInfo) -> Result<Rendered, StoreError> {
        let sql = format!(
            "SELECT {}, {}, {}, {}, {} FROM sessions s WHERE s.id = ?1",
            self.session_col("working_dir", "NULL"),
            self.session_col("total_tokens", "NULL"),
            self.session_col("input_tokens", "NULL"),
            self.session_col("output_tokens", "NULL"),
            self.session_col("model_config_json", "NULL"),
        );
        let meta = conn
            .query_row(&sql, [&s.id], |r| {
                Ok((
                    text(r.get_ref(0)?),
                    r.get::<_, Option<i64>>(1)?,
                    r.get::<_, Option<i64>>(2)?,
                    r.get::<_, Option<i64>>(3)?,
                    text(r.get_ref(4)?),
                ))
            })
            .map_err(|e| self.err(e))?;
        let model = meta
            .4
            .and_then(|m: String| serde_json::from_str::<Value>(&m).ok())
            .and_then(|m| {
                m.get("model_name")
                    .and_then(Value::as_str)
                    .map(String::from)
            });
        let sql = format!(
            "SELECT id, {}, role, content_json, created_timestamp, {} FROM messages \
             WHERE session_id = ?1 ORDER BY created_timestamp, id",
            self.message_col("message_id"),
            self.message_col("metadata_json"),
        );
        let mut st = conn.prepare(&sql).map_err(|e| self.err(e))?;
        let mut q = st.query([&s.id]).map_err(|e| self.err(e))?;
        let mut rows = Vec::new();
        let mut lines = Vec::new();
        while let Some(r) = q.next().map_err(|e| self.err(e))? {
            let rowid: i64 = r.get(0).map_err(|e| self.err(e))?;
            let bad = |what: &str| StoreError::BadRow {
                path: self.path.clone(),
                row: format!("messages row {rowid}"),
                what: what.to_string(),
            };
            let role = text(r.get_ref(2).map_err(|e| self.err(e))?).unwrap_or_default();
            // goose skips rows of any other role when it loads a session.
            if role != "user" && role != "assistant" {
                continue;
            }
            let message_id = text(r.get_ref(1).map_err(|e| self.err(e))?);
            let content = text(r.get_ref(3).map_err(|e| self.err(e))?)
                .ok_or_else(|| bad("content_json is not text"))?;
            let created: i64 = r
                .get(4)
                .map_err(|_| bad("created_timestamp is not an integer"))?;
            let metadata = text(r.get_ref(5).map_err(|e| self.err(e))?);
            let content = one_line(&content).ok_or_else(|| bad("content_json is not JSON"))?;
            let metadata = match metadata {
                Some(m) => Some(one_line(&m).ok_or_else(|| bad("metadata_json is not JSON"))?),
                None => None,
            };
            let mut line = format!(
                "{{\"id\":{},\"role\":{},\"created\":{created},\"content\":{content}",
                json!(message_id),
                json!(role)
            );
            if let Some(m) = &metadata {
                line.push_str(",\"metadata\":");
                line.push_str(m);
            }
            line.push('}');
            lines.push(line);
            rows.push(Row {
                rowid,
                message_id,
                created,
                content,
                metadata,
            });
        }
        let head = json!({
            "id": s.id,
            "description": s.name,
            "working_dir": meta.0,
            "total_tokens": meta.1,
            "input_tokens": meta.2,
            "output_tokens": meta.3,
            "model": model,
        });
        let mut text = head.to_string();
        text.push('\n');
        for l in lines {
            text.push_str(&l);
            text.push('\n');
        }
        Ok(Rendered { text, rows })
    }
}

/// The sessions to choose from, one per line, for an error message.
impl Listed for SessionInfo {
    const KEYS: usize = 2;

    fn key(&self, i: usize) -> &str {
        [&self.id, &self.name][i]
    }

    /// goose's own sessions: user and scheduled ones, not subagents'.
    fn chosen_alone(&self) -> bool {
        matches!(self.kind.as_str(), "user" | "scheduled" | "")
    }

    fn describe(&self) -> String {
        format!(
            "{} {:?} ({} messages, {}, updated {})",
            self.id,
            self.name,
            self.messages,
            if self.kind.is_empty() {
                "user"
            } else {
                &self.kind
            },
            self.updated_at.as_deref().unwrap_or("?")
        )
    }
}

/// Seconds since the epoch of goose's `updated_at` (`YYYY-MM-DD HH:MM:SS`, UTC).
pub fn unix_of(ts: &str) -> Option<i64> {
    let b = ts.trim();
    let num = |r: std::ops::Range<usize>| b.get(r)?.parse::<i64>().ok();
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hh, mm, ss) = (
        num(11..13).unwrap_or(0),
        num(14..16).unwrap_or(0),
        num(17..19).unwrap_or(0),
    );
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + hh * 3600 + mm * 60 + ss)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn goose_timestamps_read_as_unix_seconds() {
        assert_eq!(unix_of("1970-01-01 00:00:00"), Some(0));
        assert_eq!(unix_of("2026-11-23 20:00:00"), Some(1_795_464_000));
        assert_eq!(unix_of("2000-03-01T00:00:01Z"), Some(951_868_801));
        assert_eq!(unix_of("yesterday"), None);
    }
}
