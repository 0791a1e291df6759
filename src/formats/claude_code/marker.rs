//! The record ctxctl appends to a Claude Code transcript after every rewrite: a
//! `last-prompt`, as Claude Code writes its own, that
//! - names the live leaf, so that no other record of the file (one left off the thread by
//!   a trim of a damaged tree, say) is taken for it, and
//! - by its `ctxctl` key marks where ctxctl last rewrote the history: provider usage
//!   recorded before it describes a history that is no longer there, usage the agent
//!   reports after resuming (written after it) is current again.

use serde_json::{json, Map, Value};

use super::plan::{Entry, Fate};
use super::uid;
use super::Transcript;
use crate::formats::message::{self, Notes};
use crate::session::{LinesDoc, Message, Origin, Part, ReadError, Role, Session};

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

/// Claude Code's latest `lastPrompt` in `t` (read from `doc`, its document).
pub fn latest_prompt(t: &Transcript, doc: &LinesDoc) -> Result<Option<Value>, ReadError> {
    let prompts = (0..t.recs.len()).rev();
    for i in prompts.filter(|&i| t.recs[i].ty() == "last-prompt") {
        if let Some(p) = t.whole(doc, i)?.v.get_mut("lastPrompt") {
            return Ok(Some(p.take()));
        }
    }
    Ok(None)
}

/// The text of the user message made of records `recs`, read from `doc`: the session's
/// messages may have had their text dropped once counted (a plan that reads none).
fn prompt_text(t: &Transcript, doc: &LinesDoc, recs: &[usize]) -> Result<String, ReadError> {
    let mut parts = Vec::new();
    for &r in recs {
        let rec = t.whole(doc, r)?;
        let place = format!("line {}.message.content", rec.line + 1);
        let content = rec.v.get("message").and_then(|m| m.get("content"));
        parts.extend(message::content_parts(
            content,
            &place,
            &mut Notes::default(),
        )?);
    }
    Ok(Message::new(Role::User, parts, Origin::Records(Vec::new())).text())
}

/// The `sessionId` of the last record that has one.
pub fn session_id(t: &Transcript, doc: &LinesDoc) -> Result<Option<Value>, ReadError> {
    for i in (0..t.recs.len()).rev() {
        if let Some(id) = t.whole(doc, i)?.v.get_mut("sessionId") {
            return Ok(Some(id.take()));
        }
    }
    Ok(None)
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
            uid::text(&t.recs[last].uuid)
        }
        e => e.insert_uuid().map(str::to_string),
    }
}

/// The marker ending a rewrite laid out as `entries`, whose thread ends in `leaf`. It
/// repeats Claude Code's latest `lastPrompt` (else the last user prompt kept) and carries
/// the compaction's id when the rewrite is one.
pub fn after_rewrite(
    t: &Transcript,
    doc: &LinesDoc,
    leaf: &str,
    entries: &[Entry],
    session: &Session,
    msg_recs: &[&[usize]],
) -> Result<Value, ReadError> {
    let kept = entries.iter().rev().find_map(|e| match e {
        Entry::Msg { idx, .. } => {
            let m = &session.messages[*idx];
            let results_only = m.parts.iter().all(|p| matches!(p, Part::ToolResult { .. }));
            (m.role == Role::User && !results_only).then_some(*idx)
        }
        _ => None,
    });
    let prompt = match latest_prompt(t, doc)? {
        Some(p) => p,
        None => Value::String(match kept {
            Some(idx) => prompt_text(t, doc, msg_recs[idx])?,
            None => String::new(),
        }),
    };
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
    Ok(rewrite_marker(
        leaf,
        prompt,
        session_id(t, doc)?.as_ref(),
        meta,
    ))
}
