//! Writing a rewritten session back into goose's database: in one `BEGIN IMMEDIATE`
//! transaction, each line of the rewritten rendering is matched to its row by `message_id`;
//! rows whose `content`/`metadata` text changed are updated (those columns only), lines
//! with a new id are inserted, rows no line names any more are deleted (what `archive
//! restore` does to the rows a compaction added). Untouched rows are not written at all.
//! The session must still render as it did when it was read, and must render as the
//! rewritten text afterwards, or nothing is committed.

use std::collections::{HashMap, VecDeque};

use rusqlite::TransactionBehavior;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::db::{unix_of, Db, Schema, SessionInfo};
use super::StoreError;
use crate::formats::dbagent::{Guard, LIVE_SECS};

/// One message line of a rendering.
#[derive(Deserialize)]
struct Line<'a> {
    id: Option<String>,
    role: String,
    created: i64,
    #[serde(borrow)]
    content: &'a RawValue,
    #[serde(borrow, default)]
    metadata: Option<&'a RawValue>,
}

/// What a write changed.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Applied {
    pub updated: usize,
    pub inserted: usize,
    pub deleted: usize,
    /// Whether the `sessions` row's token figures were written.
    pub session_updated: bool,
}

/// Writes `text` (the rendering of session `s`, rewritten) into the database.
pub fn apply(
    db: &mut Db,
    s: &SessionInfo,
    text: &str,
    guard: &Guard,
) -> Result<Applied, StoreError> {
    let schema = db.schema.clone();
    let path = schema.path.clone();
    let has_meta_col = schema.has_message_column("metadata_json");
    let has_id_col = schema.has_message_column("message_id");
    let tx = db
        .conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|e| super::STORE.sql(&path, e))?;
    // The session as it is now, under the write lock.
    let s = &schema.select(&tx, Some(&s.id))?;
    let before = schema.render(&tx, s)?;
    if xxhash_rust::xxh3::xxh3_128(before.text.as_bytes()) != guard.expected {
        return Err(StoreError::Changed {
            store: &super::STORE,
            path,
            id: s.id.clone(),
        });
    }
    if !guard.include_live {
        live_check(&schema, s, &before.rows, guard.now)?;
    }
    if before.rows.iter().any(|r| r.message_id.is_none()) {
        return Err(StoreError::Unsupported {
            path,
            why: format!("session {} has messages without a message_id (a goose older than 1.10's schema v7)", s.id),
        });
    }
    let mut done = Applied::default();
    session_tokens(&tx, &schema, s, &before.text, text, &mut done)?;
    let mut by_id: HashMap<&str, VecDeque<usize>> = HashMap::new();
    for (i, r) in before.rows.iter().enumerate() {
        by_id
            .entry(r.message_id.as_deref().unwrap_or(""))
            .or_default()
            .push_back(i);
    }
    let mut seen = vec![false; before.rows.len()];
    let mut last_matched: Option<usize> = None;
    let bad = |n: usize, why: &str| StoreError::Unsupported {
        path: path.clone(),
        why: format!("rewritten line {n}: {why}"),
    };
    for (n, l) in text.lines().enumerate().skip(1) {
        let line: Line = serde_json::from_str(l).map_err(|e| bad(n + 1, &e.to_string()))?;
        let id = line
            .id
            .as_deref()
            .ok_or_else(|| bad(n + 1, "no message id"))?;
        let metadata = line.metadata.map(RawValue::get);
        match by_id.get_mut(id).and_then(VecDeque::pop_front) {
            Some(i) => {
                if last_matched.is_some_and(|p| p > i) {
                    return Err(bad(n + 1, "messages reordered"));
                }
                last_matched = Some(i);
                seen[i] = true;
                let row = &before.rows[i];
                if line.content.get() != row.content {
                    tx.execute(
                        "UPDATE messages SET content_json = ?1 WHERE id = ?2",
                        rusqlite::params![line.content.get(), row.rowid],
                    )
                    .map_err(|e| super::STORE.sql(&path, e))?;
                }
                if metadata != row.metadata.as_deref() {
                    if !has_meta_col {
                        return Err(bad(n + 1, "the database has no metadata_json column"));
                    }
                    tx.execute(
                        "UPDATE messages SET metadata_json = ?1 WHERE id = ?2",
                        rusqlite::params![metadata, row.rowid],
                    )
                    .map_err(|e| super::STORE.sql(&path, e))?;
                }
                if line.content.get() != row.content || metadata != row.metadata.as_deref() {
                    done.updated += 1;
                }
            }
            None => {
                if !has_meta_col || !has_id_col {
                    return Err(bad(
                        n + 1,
                        "the database has no metadata_json or message_id column",
                    ));
                }
                tx.execute(
                    "INSERT INTO messages (message_id, session_id, role, content_json, \
                     created_timestamp, metadata_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    rusqlite::params![
                        id,
                        s.id,
                        line.role,
                        line.content.get(),
                        line.created,
                        metadata
                    ],
                )
                .map_err(|e| super::STORE.sql(&path, e))?;
                done.inserted += 1;
            }
        }
    }
    for (i, r) in before.rows.iter().enumerate() {
        if !seen[i] {
            tx.execute("DELETE FROM messages WHERE id = ?1", [r.rowid])
                .map_err(|e| super::STORE.sql(&path, e))?;
            done.deleted += 1;
        }
    }
    let after = schema.render(&tx, s)?;
    if after.text != text {
        let line = after
            .text
            .lines()
            .zip(text.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(after.text.lines().count().min(text.lines().count()));
        return Err(StoreError::Unsupported {
            path,
            why: format!(
                "session {} would not read back as rewritten (from message line {}: out of \
                 goose's order?); nothing was written",
                s.id,
                line + 1
            ),
        });
    }
    tx.commit().map_err(|e| super::STORE.sql(&path, e))?;
    Ok(done)
}

/// Writes the token figures of the rendering's first line (`after`) that differ from
/// those read (`before`) into the `sessions` row; nothing else of that line may change.
fn session_tokens(
    tx: &rusqlite::Transaction<'_>,
    schema: &Schema,
    s: &SessionInfo,
    before: &str,
    after: &str,
    done: &mut Applied,
) -> Result<(), StoreError> {
    let head = |t: &str| {
        serde_json::from_str::<serde_json::Value>(t.lines().next().unwrap_or_default()).ok()
    };
    let (Some(old), Some(new)) = (head(before), head(after)) else {
        return Err(StoreError::Unsupported {
            path: schema.path.clone(),
            why: "the rewritten session has no first line describing it".into(),
        });
    };
    let keys = ["total_tokens", "input_tokens", "output_tokens"];
    let (mut a, mut b) = (old.clone(), new.clone());
    for k in keys {
        a[k] = serde_json::Value::Null;
        b[k] = serde_json::Value::Null;
    }
    if a != b {
        return Err(StoreError::Unsupported {
            path: schema.path.clone(),
            why: format!("session {}: only its token figures can be rewritten", s.id),
        });
    }
    for k in keys {
        if old[k] != new[k] && schema.has_session_column(k) {
            tx.execute(
                &format!("UPDATE sessions SET {k} = ?1 WHERE id = ?2"),
                rusqlite::params![new[k].as_i64(), s.id],
            )
            .map_err(|e| super::STORE.sql(&schema.path, e))?;
            done.session_updated = true;
        }
    }
    Ok(())
}

/// Refuses a session goose seems to be running: updated or written to within
/// [`LIVE_SECS`]. goose keeps a running session in memory and writes all of it back after
/// its own compactions, which would erase what ctxctl wrote.
fn live_check(
    db: &Schema,
    s: &SessionInfo,
    rows: &[super::db::Row],
    now: i64,
) -> Result<(), StoreError> {
    let updated = s.updated_at.as_deref().and_then(unix_of);
    let latest = rows.iter().map(|r| r.created).chain(updated).max();
    if let Some(t) = latest {
        let age = now - t;
        if age < LIVE_SECS {
            return Err(StoreError::Live {
                store: &super::STORE,
                path: db.path.clone(),
                id: s.id.clone(),
                secs: age.max(0),
            });
        }
    }
    Ok(())
}
