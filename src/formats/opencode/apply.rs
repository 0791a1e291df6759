//! Writing a rewritten rendering back into OpenCode's database, in one `BEGIN IMMEDIATE`
//! transaction: message lines whose id the session does not have are inserted (the
//! message row and its part rows); ctxctl's own messages (`data.ctxctl`) the rendering no
//! longer shows are deleted with their parts, only when no other message comes after
//! them (what `archive restore` does). Nothing else is written. The session must still
//! render as it did when it was read, and must render as the rewritten text afterwards
//! (compared as JSON), or nothing is committed.

use std::collections::HashSet;

use rusqlite::TransactionBehavior;
use serde_json::Value;

use super::db::{Db, SessionInfo};
use super::StoreError;
use crate::formats::dbagent::{Guard, LIVE_SECS};

/// What a write changed.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Applied {
    pub inserted: usize,
    pub deleted: usize,
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
    let sql = |e| super::STORE.sql(&path, e);
    let unsupported = |why: String| StoreError::Unsupported {
        path: path.clone(),
        why,
    };
    let tx = db
        .conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(sql)?;
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
        let latest = before
            .rows
            .iter()
            .map(|r| r.time_created)
            .chain([s.updated])
            .max()
            .unwrap_or(0);
        let age = guard.now - latest / 1000;
        if age < LIVE_SECS {
            return Err(StoreError::Live {
                store: &super::STORE,
                path,
                id: s.id.clone(),
                secs: age.max(0),
            });
        }
    }
    let target: Vec<Value> = text
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()
        .map_err(|e| unsupported(format!("the rewritten session is not JSON lines: {e}")))?;
    let existing: HashSet<&str> = before.rows.iter().map(|r| r.id.as_str()).collect();
    let wanted: HashSet<&str> = target
        .iter()
        .skip(1)
        .filter_map(|v| v.get("id").and_then(Value::as_str))
        .collect();
    let mut done = Applied::default();
    // ctxctl's messages shown now and not in the rewrite: the ones a restore removes.
    let shown: Vec<Value> = before
        .text
        .lines()
        .skip(1)
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let gone: HashSet<String> = shown
        .iter()
        .filter(|v| v.pointer("/data/ctxctl").is_some())
        .filter_map(|v| v.get("id").and_then(Value::as_str))
        .filter(|id| !wanted.contains(id))
        .map(String::from)
        .collect();
    if let Some(first) = before.rows.iter().position(|r| gone.contains(&r.id)) {
        let after = before.rows[first..]
            .iter()
            .filter(|r| !gone.contains(&r.id))
            .count();
        if after > 0 {
            return Err(unsupported(format!(
                "OpenCode added {after} message(s) to session {} after ctxctl's compaction (it \
                 was resumed); removing the compaction would change what that conversation \
                 was based on, so nothing was restored",
                s.id
            )));
        }
        for id in &gone {
            tx.execute("DELETE FROM part WHERE message_id = ?1", [id])
                .map_err(sql)?;
            tx.execute(
                "DELETE FROM message WHERE id = ?1 AND session_id = ?2",
                [id, &s.id],
            )
            .map_err(sql)?;
            done.deleted += 1;
        }
    }
    for v in target.iter().skip(1) {
        let Some(id) = v.get("id").and_then(Value::as_str) else {
            return Err(unsupported("a rewritten message has no id".into()));
        };
        if existing.contains(id) {
            continue;
        }
        let time = v.get("time_created").and_then(Value::as_i64).unwrap_or(0);
        let data = v.get("data").map(Value::to_string).unwrap_or_default();
        tx.execute(
            "INSERT INTO message (id, session_id, time_created, time_updated, data) \
             VALUES (?1, ?2, ?3, ?3, ?4)",
            rusqlite::params![id, s.id, time, data],
        )
        .map_err(sql)?;
        for p in v
            .get("parts")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let pid = p.get("id").and_then(Value::as_str).unwrap_or_default();
            let pt = p
                .get("time_created")
                .and_then(Value::as_i64)
                .unwrap_or(time);
            let pdata = p.get("data").map(Value::to_string).unwrap_or_default();
            tx.execute(
                "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) \
                 VALUES (?1, ?2, ?3, ?4, ?4, ?5)",
                rusqlite::params![pid, id, s.id, pt, pdata],
            )
            .map_err(sql)?;
        }
        done.inserted += 1;
    }
    let after = schema.render(&tx, s)?;
    let got: Vec<Value> = after
        .text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    if got != target {
        let at = got
            .iter()
            .zip(&target)
            .position(|(a, b)| a != b)
            .unwrap_or(got.len().min(target.len()));
        return Err(unsupported(format!(
            "session {} would not read back as rewritten (from line {}: OpenCode would send \
             its messages in another order); nothing was written",
            s.id,
            at + 1
        )));
    }
    tx.commit().map_err(sql)?;
    Ok(done)
}
