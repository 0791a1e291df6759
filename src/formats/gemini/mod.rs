//! Gemini CLI sessions (`~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl`).
//!
//! A session file is an event log ([`replay`]); the conversation is what replaying it
//! leaves, turned into the history Gemini CLI sends (`history`). Rewrites append one
//! `$set.messages` checkpoint and change no earlier byte ([`write`]).

mod history;
mod paths;
mod replay;
mod write;

use std::path::Path;

use serde_json::Value;

use crate::formats::message::Notes;
use crate::formats::{lines_doc, Codec, Found};
use crate::session::{
    Document, Format, Item, Keep, LinesDoc, ReadError, RestorePlan, Session, WriteError,
};
use history::{history, response_record, Sent, Source};
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
    let mut doc = LinesDoc::new(text.into());
    let p = parse(&doc)?;
    doc.truncated_tail = p.replay.truncated_tail;
    let mut warnings = p.replay.warnings.clone();
    warnings.extend(p.notes.into_warnings());
    Ok(Session {
        format: Format::Gemini,
        doc: Document::Lines(doc),
        messages: p.sent.into_iter().map(|s| s.message).collect(),
        model: Some(p.replay.model.unwrap_or_else(|| DEFAULT_MODEL.to_string())),
        warnings,
        reported_usage: None,
        agent_limits: Default::default(),
        resume: None,
        skipped: false,
        request_extra: None,
    })
}

/// Gemini CLI session logs.
pub struct Gemini;

impl Codec for Gemini {
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
        write::write(session, lines_doc(session)?, items)
    }

    fn restores_summaries(&self) -> bool {
        true
    }

    fn restore(&self, session: &Session, plan: &RestorePlan) -> Result<Vec<u8>, WriteError> {
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
