//! Gemini CLI sessions (`~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl`).
//!
//! A session file is an event log ([`replay`]); the conversation is what replaying it
//! leaves, turned into the history Gemini CLI sends (`history`). Rewrites append one
//! `$set.messages` checkpoint and change no earlier byte ([`write`]).

mod history;
mod paths;
mod replay;
pub mod stream;
mod usage;
mod write;

use std::path::Path;

use serde_json::Value;

use super::agent::{AgentInfo, AgentStore, ResumeRule};
use crate::formats::message::Notes;
use crate::formats::{lines_doc, Codec, Found};
use crate::session::{
    Document, Format, Item, Keep, LinesDoc, ReadError, RestorePlan, Session, WriteError,
};
pub(crate) use history::Sent;
use history::{history, response_record, Source};
use replay::{is_message, Replay};

/// The model Gemini CLI uses when the log names none (its `DEFAULT_GEMINI_MODEL`).
pub const DEFAULT_MODEL: &str = "gemini-2.5-pro";

/// A replayed log and the history it gives.
pub(crate) struct Parsed {
    pub replay: Replay,
    pub sent: Vec<Sent>,
    pub notes: Notes,
}

pub(crate) fn parse(doc: &LinesDoc) -> Result<Parsed, ReadError> {
    let replay = Replay::parse(doc)?;
    let mut notes = Notes::default();
    let sent = history(&replay.live, &mut notes)?;
    Ok(Parsed {
        replay,
        sent,
        notes,
    })
}

pub fn read(text: impl Into<String>) -> Result<Session, ReadError> {
    let text = text.into();
    if let Some(chat) = chat_document(&text) {
        return read_chat(&chat);
    }
    let mut doc = LinesDoc::new(text);
    let p = parse(&doc)?;
    doc.truncated_tail = p.replay.truncated_tail;
    let mut warnings = p.replay.warnings.clone();
    warnings.extend(p.notes.into_warnings());
    let reported_usage = usage::reported(&p.replay.live, &p.sent);
    Ok(Session {
        format: Format::Gemini,
        doc: Document::Lines(doc),
        messages: p.sent.into_iter().map(|s| s.message).collect(),
        model: Some(p.replay.model.unwrap_or_else(|| DEFAULT_MODEL.to_string())),
        warnings,
        reported_usage,
        agent_limits: Default::default(),
        resume: None,
        skipped: false,
        request_extra: None,
    })
}

/// `text` as a Gemini CLI `.json` chat file: one JSON object (pretty-printed or not) with
/// the session's metadata and a `messages` array. `None` for a JSONL log.
fn chat_document(text: &str) -> Option<Value> {
    let body = text.trim_start_matches('\u{feff}').trim_start();
    if !body.starts_with('{') {
        return None;
    }
    let v: Value = serde_json::from_str(body).ok()?;
    (is_chat_document(&v)).then_some(v)
}

/// Whether a JSON document is a Gemini CLI `.json` chat: its metadata beside a message list
/// whose messages are Gemini CLI's (`type` rather than `role`).
pub fn is_chat_document(v: &Value) -> bool {
    v.get("sessionId").is_some()
        && v.get("projectHash").is_some()
        && v.get("messages")
            .and_then(Value::as_array)
            .is_some_and(|m| {
                m.iter()
                    .all(|m| m.get("role").is_none() && m.get("type").is_some())
            })
}

/// A `.json` chat file, read for counting: its history and the tokens it records. Gemini
/// CLI no longer writes this format, so ctxctl does not rewrite it (the document is not
/// kept; a rewrite says so).
fn read_chat(doc: &Value) -> Result<Session, ReadError> {
    let replay = Replay::of_chat(doc)?;
    let mut notes = Notes::default();
    let sent = history(&replay.live, &mut notes)?;
    let reported_usage = usage::reported(&replay.live, &sent);
    Ok(Session {
        format: Format::Gemini,
        doc: Document::Released,
        messages: sent.into_iter().map(|s| s.message).collect(),
        model: Some(replay.model.unwrap_or_else(|| DEFAULT_MODEL.to_string())),
        warnings: notes.into_warnings(),
        reported_usage,
        agent_limits: Default::default(),
        resume: None,
        skipped: false,
        request_extra: None,
    })
}

/// A `.json` chat file is read, not rewritten (see [`read_chat`]).
fn refuse_chat(session: &Session) -> Result<(), WriteError> {
    match session.doc {
        Document::Released => Err(WriteError::Document(
            "a Gemini CLI .json chat file (the format before its JSONL log) is read, not \
             rewritten"
                .into(),
        )),
        _ => Ok(()),
    }
}

/// Gemini CLI session logs.
pub struct Gemini;

/// Gemini CLI outside its chat files: `~/.gemini/tmp`, the `gemini` program,
/// `gemini --resume UUID`.
pub static AGENT: AgentInfo = AgentInfo {
    programs: &["gemini"],
    packages: &["gemini-cli"],
    stores: |_, home| vec![AgentStore::dir("gemini-cli", home.join(".gemini/tmp"))],
    resume: Some(ResumeRule {
        var: "CTXCTL_GEMINI_BIN",
        program: "gemini",
        args: |id, _| vec!["--resume".into(), id.into()],
        id_of: Some(|path| {
            super::agent::head_value(path, |r| r.get("sessionId")?.as_str().map(str::to_string))
        }),
    }),
    id_by_place: None,
    database: None,
};

impl Codec for Gemini {
    fn agent_info(&self) -> Option<&'static AgentInfo> {
        Some(&AGENT)
    }

    fn format(&self) -> Format {
        Format::Gemini
    }

    fn name(&self) -> &'static str {
        "gemini-cli"
    }

    fn project(&self, path: &Path, _head: &[Value]) -> Option<String> {
        paths::project(path)
    }

    fn line_score(&self, index: usize, r: &Value) -> usize {
        let metadata = index == 0
            && r.get("sessionId").is_some()
            && r.get("projectHash").is_some()
            && r.get("startTime").is_some();
        let update = r.get("$set").is_some() || r.get("$rewindTo").is_some();
        let message = is_message(r)
            && r.get("timestamp").is_some()
            && r.get("role").is_none()
            && matches!(
                r.get("type").and_then(Value::as_str),
                Some("user" | "gemini" | "info" | "error" | "warning")
            );
        2 * usize::from(metadata || update) + usize::from(message)
    }

    fn read(&self, text: String, _keep: Keep) -> Result<Session, ReadError> {
        read(text)
    }

    fn write(&self, session: &Session, items: &[Item]) -> Result<Vec<u8>, WriteError> {
        refuse_chat(session)?;
        write::write(session, lines_doc(session)?, items)
    }

    fn restores_summaries(&self) -> bool {
        true
    }

    fn restore(&self, session: &Session, plan: &RestorePlan) -> Result<Vec<u8>, WriteError> {
        refuse_chat(session)?;
        write::restore(session, lines_doc(session)?, plan)
    }

    /// A message read from a checkpoint, or a synthetic `_response` turn, is archived as
    /// its record(s), not as the whole line its origin names.
    fn embedded_items(&self, session: &Session) -> Option<Vec<Option<Value>>> {
        let Document::Lines(doc) = &session.doc else {
            return None;
        };
        let p = parse(doc).ok()?;
        let items: Vec<Option<Value>> = p
            .sent
            .iter()
            .map(|s| {
                let whole = |src: &Source| {
                    matches!(src, Source::Record(k)
                        if matches!(p.replay.live[*k].from, replay::From::Line(_)))
                };
                if s.sources.len() == 1 && whole(&s.sources[0]) {
                    return None;
                }
                let mut recs: Vec<Value> = s
                    .sources
                    .iter()
                    .map(|src| match *src {
                        Source::Record(k) => p.replay.live[k].value.clone(),
                        Source::Responses(k) => response_record(&p.replay.live[k].value),
                    })
                    .collect();
                Some(if recs.len() == 1 {
                    recs.remove(0)
                } else {
                    Value::Array(recs)
                })
            })
            .collect();
        (items.len() == session.messages.len()).then_some(items)
    }

    fn classify_path(&self, path: &std::path::Path) -> Option<Found> {
        paths::classify(path)
    }
}

#[cfg(test)]
mod tests;
