//! The record ctxctl appends to a Claude Code transcript after every rewrite: a
//! `last-prompt`, as Claude Code writes its own, that
//! - names the live leaf, so that no other record of the file (one left off the thread by
//!   a trim of a damaged tree, say) is taken for it, and
//! - by its `ctxctl` key marks where ctxctl last rewrote the history: provider usage
//!   recorded before it describes a history that is no longer there, usage the agent
//!   reports after resuming (written after it) is current again.

use serde_json::{json, Map, Value};

use super::plan::{Entry, Fate};
use super::Transcript;
use crate::session::{Part, Role, Session};

/// The marker record.
pub fn rewrite_marker(
    leaf: &str,
    last_prompt: Value,
    session_id: Option<&Value>,
    meta: Map<String, Value>,
) -> Value {
    let mut obj = Map::new();
    obj.insert("type".into(), json!("last-prompt"));
    obj.insert("lastPrompt".into(), last_prompt);
    obj.insert("leafUuid".into(), json!(leaf));
    if let Some(id) = session_id {
        obj.insert("sessionId".into(), id.clone());
    }
    obj.insert("ctxctl".into(), Value::Object(meta));
    Value::Object(obj)
}

/// Whether `v` is a marker [`rewrite_marker`] wrote.
pub fn is_rewrite_marker(v: &Value) -> bool {
    v.get("type").and_then(Value::as_str) == Some("last-prompt") && v.get("ctxctl").is_some()
}

/// Claude Code's latest `lastPrompt` in `t`.
pub fn latest_prompt(t: &Transcript) -> Option<&Value> {
    t.recs
        .iter()
        .rev()
        .filter(|r| r.ty() == "last-prompt")
        .find_map(|r| r.v.get("lastPrompt"))
}

/// The `sessionId` of the last record that has one.
pub fn session_id(t: &Transcript) -> Option<&Value> {
    t.recs.iter().rev().find_map(|r| r.v.get("sessionId"))
}

/// The record the rewritten thread ends in: the last entry when it is a new record, else
/// the old leaf if it stays at the end, else the last record of the last message.
pub fn new_leaf(
    t: &Transcript,
    entries: &[Entry],
    fates: &[Fate],
    msg_recs: &[&[usize]],
) -> Option<String> {
    let pos = entries.len().checked_sub(1)?;
    match &entries[pos] {
        Entry::Msg { idx, .. } => {
            let old = t.leaf.filter(|&l| fates[l] == Fate::Retained(pos));
            let last = old.or_else(|| msg_recs[*idx].iter().copied().max_by_key(|&r| t.rank[r]))?;
            t.recs[last].uuid.clone()
        }
        e => e.insert_uuid().map(str::to_string),
    }
}

/// The marker ending a rewrite laid out as `entries`, whose thread ends in `leaf`. It
/// repeats Claude Code's latest `lastPrompt` (else the last user prompt kept) and carries
/// the compaction's id when the rewrite is one.
pub fn after_rewrite(t: &Transcript, leaf: &str, entries: &[Entry], session: &Session) -> Value {
    let kept = || {
        entries.iter().rev().find_map(|e| match e {
            Entry::Msg { idx, .. } => {
                let m = &session.messages[*idx];
                let results_only = m.parts.iter().all(|p| matches!(p, Part::ToolResult { .. }));
                (m.role == Role::User && !results_only).then(|| m.text())
            }
            _ => None,
        })
    };
    let prompt = latest_prompt(t)
        .cloned()
        .unwrap_or_else(|| Value::String(kept().unwrap_or_default()));
    let mut meta = Map::new();
    meta.insert("rewrite".into(), Value::Bool(true));
    let id = entries.iter().find_map(|e| match e {
        Entry::New {
            m, summary: true, ..
        } => m.meta.get("compact_id"),
        _ => None,
    });
    if let Some(id) = id {
        meta.insert("compact_id".into(), id.clone());
    }
    rewrite_marker(leaf, prompt, session_id(t), meta)
}
