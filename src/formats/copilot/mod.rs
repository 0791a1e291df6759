//! GitHub Copilot CLI sessions (`~/.copilot/session-state/<session id>/events.jsonl`).
//!
//! A session is an append-only event log (`events.rs`) that `copilot --resume` replays into
//! the request it sends; ctxctl reads it the same way and rewrites it line by line
//! (`write.rs`). Beside the log Copilot keeps `workspace.yaml` (name, cwd, counters),
//! `checkpoints/` (its compaction summaries as Markdown), `rewind-file-snapshots/` and
//! `files/`; `~/.copilot/session-store.db` is a search index of all sessions. None of them
//! is read on resume for the conversation, and ctxctl leaves them alone.

pub mod events;
pub mod stream;
mod write;

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::formats::agent::{AgentInfo, AgentStore, ResumeRule};
use crate::formats::{lines_doc, Codec, Found};
use crate::session::{Document, Format, Item, Keep, LinesDoc, ReadError, Session, WriteError};
use events::{is_event, Log};

/// The model Copilot CLI uses when the log names none.
pub const DEFAULT_MODEL: &str = "claude-sonnet-4.5";

pub fn read(text: impl Into<String>) -> Result<Session, ReadError> {
    let mut doc = LinesDoc::new(text.into());
    let log = Log::parse(&doc)?;
    doc.truncated_tail = log.truncated_tail;
    let agent_limits = crate::session::AgentLimits {
        window: log.window,
        ..Default::default()
    };
    Ok(Session {
        format: Format::Copilot,
        doc: Document::Lines(doc),
        messages: log.messages,
        model: Some(log.model.unwrap_or_else(|| DEFAULT_MODEL.to_string())),
        warnings: log.warnings,
        reported_usage: log.usage,
        agent_limits,
        resume: None,
        skipped: false,
        request_extra: None,
    })
}

/// The directory below a `.copilot/session-state` directory that `path` lies in, and what
/// follows it.
fn below_state(path: &Path) -> Option<Vec<&str>> {
    let names: Vec<&str> = path
        .components()
        .filter_map(|c| c.as_os_str().to_str())
        .collect();
    let at = names.iter().rposition(|n| *n == "session-state")?;
    Some(names[at + 1..].to_vec())
}

/// Copilot CLI outside its logs: `~/.copilot/session-state` (`$COPILOT_HOME`), the
/// `copilot` program, `copilot --resume=ID`; a session is named by its directory.
pub static AGENT: AgentInfo = AgentInfo {
    programs: &["copilot"],
    packages: &["copilot"],
    stores: |env, home| {
        let root = env
            .var("COPILOT_HOME")
            .map_or_else(|| home.join(".copilot"), PathBuf::from);
        vec![AgentStore::dir("copilot-cli", root.join("session-state"))]
    },
    resume: Some(ResumeRule {
        var: "CTXCTL_COPILOT_BIN",
        program: "copilot",
        args: |id, _| vec![format!("--resume={id}")],
        id_of: Some(id_by_place),
    }),
    id_by_place: Some(id_by_place),
    database: None,
};

/// The id of the session whose log is at `path`: its directory's name.
fn id_by_place(path: &Path) -> Option<String> {
    match below_state(path)?.as_slice() {
        [id, "events.jsonl"] => Some((*id).to_string()),
        _ => None,
    }
}

/// GitHub Copilot CLI event logs.
pub struct Copilot;

impl Codec for Copilot {
    fn format(&self) -> Format {
        Format::Copilot
    }

    fn name(&self) -> &'static str {
        "copilot-cli"
    }

    fn line_score(&self, index: usize, r: &Value) -> usize {
        if !is_event(r) {
            return 0;
        }
        let start = index == 0
            && r["type"] == "session.start"
            && r.pointer("/data/producer").is_some_and(Value::is_string);
        1 + 2 * usize::from(start)
    }

    fn read(&self, text: String, _keep: Keep) -> Result<Session, ReadError> {
        read(text)
    }

    fn write(&self, session: &Session, items: &[Item]) -> Result<Vec<u8>, WriteError> {
        write::write(session, lines_doc(session)?, items)
    }

    fn user_first(&self) -> bool {
        true
    }

    /// In a session's directory only `events.jsonl` is the conversation.
    fn classify_path(&self, path: &Path) -> Option<Found> {
        match below_state(path)?.as_slice() {
            [_, "events.jsonl"] => Some(Found::Session),
            [_, _, ..] => Some(Found::Other(
                "a Copilot CLI session's side file (the conversation is events.jsonl)",
            )),
            _ => None,
        }
    }

    /// The `cwd` of the log's `session.start`.
    fn project(&self, _path: &Path, head: &[Value]) -> Option<String> {
        head.iter().find_map(|r| {
            (r.get("type")? == "session.start")
                .then(|| r.pointer("/data/context/cwd")?.as_str().map(str::to_string))?
        })
    }

    fn agent_info(&self) -> Option<&'static AgentInfo> {
        Some(&AGENT)
    }
}

#[cfg(test)]
mod tests;
