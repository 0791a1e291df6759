//! Claude Code transcripts (`~/.claude/projects/<dir>/<session>.jsonl`).
//!
//! The `user`, `assistant` and `attachment` records of the live thread (see [`Transcript`])
//! become messages, in the order Claude Code sends them; the records of one API response
//! split over several lines (same `message.id`) become one message, and an attachment a
//! `system` message (see [`attach`]). Everything
//! else (`system`, `progress`, `summary`, `file-history-snapshot`, `queue-operation`,
//! `mode`, `last-prompt`, the synthetic records of failed API calls, unknown types, dead
//! branches, history before a compaction) is carried along untouched.

mod attach;
mod counted;
mod groups;
mod index;
pub mod indexed;
pub mod live;
mod marker;
mod models;
mod new;
mod offsets;
mod parents;
mod paths;
mod plan;
pub mod reattach;
mod relink;
mod responses;
mod restore;
mod seq;
pub mod skel;
mod sparse;
mod splice;
mod thread;
mod uid;
mod uuid_spill;
mod uuids;
mod write;

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use super::agent::{AgentInfo, AgentStore, ResumeRule};
use crate::formats::message::{self, Notes};
use crate::formats::{lines_doc, Codec, CountedRead, Counting};
use crate::session::{parse_agent_version, Item, Keep, RestorePlan, WriteError};
use crate::session::{
    AgentLimits, CompactMeta, Document, Format, LinesDoc, Message, Origin, ReadError,
    ReportedUsage, Role, Session, Text,
};
pub use reattach::Reattach;
pub use thread::{Rec, Transcript, SYNTHETIC_MODEL};

/// The messages of a transcript's live thread, and per message the records it came from.
///
/// Each record is parsed again from `doc` (the document `t` was parsed from) as its turn
/// comes, its text going into its message. A writer that wants only which records make
/// each message reads [`plan::message_records`] instead.
pub fn messages(
    t: &Transcript,
    doc: &LinesDoc,
    notes: &mut Notes,
) -> Result<Vec<(Message, Vec<usize>)>, ReadError> {
    messages_counted(t, doc, notes, None).map(|(m, _)| m)
}

/// Messages, each with the records it came from.
type Messages = Vec<(Message, Vec<usize>)>;

/// [`messages`], each given to `count` as soon as it is whole ([`counted`]), their counts
/// in message order.
fn messages_counted(
    t: &Transcript,
    doc: &LinesDoc,
    notes: &mut Notes,
    count: Option<Counting>,
) -> Result<(Messages, Option<Vec<usize>>), ReadError> {
    let mut out: Vec<(Message, Vec<usize>)> = Vec::new();
    let mut group: HashMap<&str, usize> = HashMap::new();
    let mut counted = count.map(|c| counted::Counted::new(t, c));
    for (pos, &i) in t.order.iter().enumerate() {
        if !matches!(t.recs[i].ty(), "attachment" | "user" | "assistant") {
            continue;
        }
        let r = &t.whole(doc, i)?;
        if r.ty() == "attachment" {
            let mut m = Message::new(Role::System, attach::parts(r), Origin::Record(r.line));
            m.id = r.uuid.clone();
            out.push((m, vec![i]));
            if let Some(c) = &mut counted {
                let m = out.len() - 1;
                c.after(pos, None, &mut out, m);
            }
            continue;
        }
        if !matches!(r.ty(), "user" | "assistant") || attach::is_api_error(r) {
            continue;
        }
        let place = format!("line {}", r.line + 1);
        let Some(msg) = r.v.get("message").filter(|m| m.is_object()) else {
            return Err(ReadError::shape(place, "a \"message\" object"));
        };
        let parts = message::content_parts(
            msg.get("content"),
            &format!("{place}.message.content"),
            notes,
        )?;
        let head = &t.recs[i];
        if let Some(&m) = head.message_id().and_then(|id| group.get(id)) {
            let (existing, recs) = &mut out[m];
            existing.parts.extend(parts);
            recs.push(i);
            existing.origin = Origin::Records(recs.iter().map(|&k| t.recs[k].line).collect());
            if let Some(c) = &mut counted {
                c.after(pos, head.message_id(), &mut out, m);
            }
            continue;
        }
        let role = if r.ty() == "user" {
            Role::User
        } else {
            Role::Assistant
        };
        let mut m = Message::new(role, parts, Origin::Record(r.line));
        m.id = r.uuid.clone();
        m.pinned = r.v.get("_preserve").and_then(Value::as_bool) == Some(true);
        m.agent_kept = t.preserved(i);
        m.compact = compact_meta(r).map(Box::new);
        if let Some(id) = head.message_id() {
            group.insert(id, out.len());
        }
        out.push((m, vec![i]));
        if let Some(c) = &mut counted {
            let m = out.len() - 1;
            c.after(pos, head.message_id(), &mut out, m);
        }
    }
    let counts = counted.map(|c| c.finish(&mut out));
    Ok((out, counts))
}

/// A compaction summary: ctxctl's (`ctxctl` key with its metadata) or Claude Code's own.
fn compact_meta(r: &Rec) -> Option<CompactMeta> {
    if r.v.get("isCompactSummary").and_then(Value::as_bool) != Some(true) {
        return None;
    }
    if let Some(meta) = r.v.get("ctxctl").and_then(message::compact_meta) {
        return Some(meta);
    }
    Some(CompactMeta {
        id: None,
        seq: None,
        timestamp: r.timestamp().map(str::to_string),
        by: "claude-code",
    })
}

pub fn read(text: impl Into<String>) -> Result<Session, ReadError> {
    read_counted(Text::from(text.into()), None).map(|(s, _)| s)
}

/// [`read`] of a text mapped from its file (see [`crate::mapped`]), each message given
/// to `count` as soon as it is whole.
pub fn read_counting_text(text: Text, count: Counting) -> Result<CountedRead, ReadError> {
    read_counted(text, Some(count))
}

/// [`read`], each message given to `count` as soon as it is whole (see [`counted`]).
fn read_counted(text: Text, count: Option<Counting>) -> Result<CountedRead, ReadError> {
    let mut doc = LinesDoc::new(text);
    let t = Transcript::parse(&doc)?;
    doc.truncated_tail = t.truncated_tail;
    let mut notes = Notes::default();
    let (msgs, counts) = messages_counted(&t, &doc, &mut notes, count)?;
    let named = |i: &usize| t.recs[*i].named_model;
    let model = (0..t.recs.len())
        .rev()
        .filter(|&i| t.live[i])
        .find(named)
        .or_else(|| (0..t.recs.len()).rev().find(named))
        .map(|i| t.whole(&doc, i))
        .transpose()?
        .and_then(|r| model_of(&r).map(str::to_string));
    let reported_usage = usage(&t, &msgs);
    let compacted_at = t
        .boundary
        .filter(|_| reported_usage.is_none())
        .map(|b| t.recs[b].line);
    let conversation = || t.recs.iter().filter(|r| r.is_conversation());
    let snapshot = (0..t.recs.len()).rev().find(|&i| t.recs[i].snapshot);
    let request_extra = match snapshot {
        Some(i) => attach::prompt_snapshot(&[t.whole(&doc, i)?]),
        None => None,
    };
    // The latest version wins: a session resumed after an upgrade sends the new prompt.
    let mut agent_version = None;
    for i in (0..t.recs.len()).rev() {
        let r = t.whole(&doc, i)?;
        if let Some(v) = r.v.get("version").and_then(Value::as_str) {
            agent_version = parse_agent_version(v);
            break;
        }
    }
    let agent_limits = AgentLimits {
        subagent: conversation().next().is_some() && conversation().all(|r| r.sidechain()),
        prompt_measured: request_extra.is_some(),
        full_tool_schemas: model.as_deref().is_some_and(|m| !defers_tools(m)),
        agent_version,
        compacted_at,
        ..AgentLimits::default()
    };
    let mut warnings = t.warnings;
    // A transcript with no response yet names no model: Claude Code's default (the
    // output names the model used).
    let model = model.or_else(|| Some(DEFAULT_MODEL.to_string()));
    warnings.extend(notes.into_warnings());
    let session = Session {
        format: Format::ClaudeCode,
        doc: Document::Lines(doc),
        messages: msgs.into_iter().map(|(m, _)| m).collect(),
        model,
        warnings,
        reported_usage,
        agent_limits,
        request_extra,
        resume: None,
        skipped: false,
    };
    Ok((session, counts))
}

/// The thread as it was before the compaction boundary on line `line` of `doc` (the
/// file up to that line, read as a transcript of its own): the messages its latest live
/// report's request held, and that report. `None` when it has none, or when that thread
/// starts at a record whose parent is not in the file (an excerpt: its first report held
/// history the file does not have). The hidden part that report measures (system prompt,
/// tools) is still sent after the boundary ([`AgentLimits::compacted_at`]). With them, the
/// files that thread left for Claude Code to re-attach ([`Reattach`]).
pub fn before_compaction(
    doc: &LinesDoc,
    line: usize,
) -> Option<(Vec<Message>, ReportedUsage, Reattach)> {
    doc.lines.get(line)?;
    // The lines before the boundary, read in place (a copy of them was the file again).
    let t = Transcript::parse_before(doc, line).ok()?;
    if t.cut_short {
        return None;
    }
    let mut notes = Notes::default();
    let msgs = messages(&t, doc, &mut notes).ok()?;
    let u = usage(&t, &msgs)?;
    let held = u.request_end?.min(msgs.len());
    let msgs = msgs.into_iter().take(held).map(|(m, _)| m).collect();
    let mut files = Reattach::new();
    for &i in &t.order {
        if matches!(t.recs[i].ty(), "user" | "assistant") {
            if let Ok(r) = t.whole(doc, i) {
                files.observe(&r.v);
            }
        }
    }
    Some((msgs, u, files))
}

/// The model an assistant record names, unless it is Claude Code's own made-up one.
fn model_of(r: &Rec) -> Option<&str> {
    if r.ty() != "assistant" {
        return None;
    }
    r.v.pointer("/message/model")
        .and_then(Value::as_str)
        .filter(|m| *m != SYNTHETIC_MODEL && !m.is_empty())
}

/// The line up to which provider usage is stale: that of the latest record ctxctl wrote.
/// ctxctl ends every rewrite with a marker (a `last-prompt` carrying a `ctxctl` key), so
/// usage the agent reports after resuming counts again; a ctxctl summary with no marker after
/// it (older ctxctl builds) leaves no usage current.
fn stale_until(t: &Transcript) -> Option<usize> {
    let r = t
        .recs
        .iter()
        .rev()
        .find(|r| r.rare().get("ctxctl").is_some())?;
    Some(if r.is_rewrite_marker() {
        r.line
    } else {
        usize::MAX
    })
}

/// The usage of the last real API response in the thread, unless ctxctl rewrote the
/// history after it or Claude Code compacted it, with the live responses' reports before it.
fn usage(t: &Transcript, msgs: &[(Message, Vec<usize>)]) -> Option<ReportedUsage> {
    let stale = stale_until(t);
    let boundary = t.splice.as_ref().map(|s| t.recs[s.boundary].line);
    // A report still describes the live thread unless ctxctl rewrote the history after it
    // or it was made before Claude Code's compaction (a response preserved across the
    // compaction reported the larger context it was answered in).
    let live = |recs: &[usize]| {
        !stale.is_some_and(|s| recs.iter().any(|&i| t.recs[i].line <= s))
            && !boundary.is_some_and(|b| recs.iter().any(|&i| t.recs[i].line < b))
    };
    let reported: Vec<(usize, &Vec<usize>)> = msgs
        .iter()
        .enumerate()
        .filter(|(_, (m, recs))| {
            m.role == Role::Assistant
                && t.recs[recs[0]].named_model
                && recs.iter().any(|&i| t.recs[i].usage.is_some())
        })
        .map(|(i, (_, recs))| (i, recs))
        .collect();
    let &(idx, recs) = reported.last()?;
    if !live(recs) {
        return None;
    }
    let (input_tokens, output_tokens) = usage_of(t, recs)?;
    let earlier = reported[..reported.len() - 1]
        .iter()
        .filter(|(_, recs)| live(recs))
        .filter_map(|&(i, recs)| usage_of(t, recs).map(|(input, _)| (i, input)))
        .collect();
    Some(ReportedUsage {
        input_tokens,
        output_tokens,
        after_message: Some(idx),
        request_end: Some(idx),
        earlier,
        dropped: 0,
    })
}

/// The prompt (input + cache reads + cache writes) and output tokens one response reported.
/// Its records repeat the same usage (counted once); some builds write partial usage on
/// early records (2.1.6x: an input of 0 on the text before a tool call), so the largest is
/// taken.
fn usage_of(t: &Transcript, recs: &[usize]) -> Option<(u64, u64)> {
    let mut found = None;
    for &i in recs {
        let Some((input, output)) = t.recs[i].usage else {
            continue;
        };
        found = Some(match found {
            Some((i, o)) => (input.max(i), output.max(o)),
            None => (input, output),
        });
    }
    found
}

/// The model Claude Code uses when a transcript names none (its `default` alias).
pub const DEFAULT_MODEL: &str = "claude-opus-4-8";

/// Claude Code transcripts (`~/.claude/projects/**.jsonl`).
pub struct ClaudeCode;

/// Record types only Claude Code writes.
const CLAUDE_TYPES: [&str; 5] = [
    "summary",
    "file-history-snapshot",
    "queue-operation",
    "last-prompt",
    "progress",
];

/// Claude Code outside its transcripts: `~/.claude/projects` (`$CLAUDE_CONFIG_DIR`), the
/// `claude` program, `claude --resume ID`.
pub static AGENT: AgentInfo = AgentInfo {
    programs: &["claude"],
    packages: &["claude-code"],
    stores: |env, home| {
        let root = env
            .var("CLAUDE_CONFIG_DIR")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| home.join(".claude"));
        vec![AgentStore::dir("claude-code", root.join("projects"))]
    },
    resume: Some(ResumeRule {
        var: "CTXCTL_CLAUDE_BIN",
        program: "claude",
        args: |id, _| vec!["--resume".into(), id.into()],
        id_of: None,
    }),
    id_by_place: None,
    database: None,
};

impl Codec for ClaudeCode {
    fn agent_info(&self) -> Option<&'static AgentInfo> {
        Some(&AGENT)
    }

    fn format(&self) -> Format {
        Format::ClaudeCode
    }

    fn name(&self) -> &'static str {
        "claude-code"
    }

    fn project(&self, path: &Path, head: &[Value]) -> Option<String> {
        paths::project(path, head)
    }

    fn line_score(&self, _index: usize, r: &Value) -> usize {
        let ty = r.get("type").and_then(Value::as_str).unwrap_or("");
        let linked = r.get("uuid").is_some() || r.get("parentUuid").is_some();
        usize::from(r.get("sessionId").is_some() && linked || CLAUDE_TYPES.contains(&ty))
    }

    fn read(&self, text: String, _keep: Keep) -> Result<Session, ReadError> {
        read(text)
    }

    fn read_counting(&self, text: String, count: Counting) -> Result<CountedRead, ReadError> {
        read_counted(text.into(), Some(count))
    }

    fn write(&self, session: &Session, items: &[Item]) -> Result<Vec<u8>, WriteError> {
        Ok(write::write(session, lines_doc(session)?, items)?.into_bytes())
    }

    fn write_to(
        &self,
        session: &Session,
        items: &[Item],
        out: &mut dyn std::io::Write,
    ) -> Result<(), WriteError> {
        Ok(write::write(session, lines_doc(session)?, items)?.write_to(out)?)
    }

    fn restores_summaries(&self) -> bool {
        true
    }

    /// Claude Code sends the live thread as it is: the API wants the user first.
    fn user_first(&self) -> bool {
        true
    }

    fn restore(&self, session: &Session, plan: &RestorePlan) -> Result<Vec<u8>, WriteError> {
        Ok(restore::restore(session, lines_doc(session)?, plan)?.render())
    }

    fn restore_to(
        &self,
        session: &Session,
        plan: &RestorePlan,
        out: &mut dyn std::io::Write,
    ) -> Result<(), WriteError> {
        Ok(restore::restore(session, lines_doc(session)?, plan)?.render_to(out)?)
    }

    fn classify_path(&self, path: &std::path::Path) -> Option<crate::formats::Found> {
        match paths::classify(path) {
            crate::formats::Found::Session => None,
            found => Some(found),
        }
    }
}

/// Whether Claude Code can defer tools (tool search) for `model`: not for a Claude Haiku,
/// as its bundle decides by the name (`model.toLowerCase().includes("haiku")`).
pub fn defers_tools(model: &str) -> bool {
    !model.to_ascii_lowercase().contains("haiku")
}

#[cfg(test)]
#[path = "read_tests.rs"]
mod tests;
