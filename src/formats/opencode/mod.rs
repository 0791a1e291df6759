//! OpenCode's SQLite session store (OpenCode ≥ 1.2): `opencode.db`, one database for every
//! session, at `${XDG_DATA_HOME:-~/.local/share}/opencode/opencode.db`.
//!
//! Like goose's database ([`super::goose_db`]), a session is not read as text: [`db`]
//! opens the database read-only, selects one session and renders what OpenCode sends of it
//! (from its last completed compaction on, [`view`]) as lines, one per `message` row with
//! its `part` rows; this codec reads that rendering, and [`apply`] writes a rewritten
//! rendering back in one transaction.
//!
//! A rewrite is OpenCode's own compaction, appended: a user message holding a `compaction`
//! part whose `tail_start_id` names the first message kept, and an assistant message with
//! `summary: true` holding ctxctl's summary (or a trim's marker). OpenCode then sends
//! `[compaction, summary, kept…]`, in a new process too; nothing is changed or deleted.
//! ctxctl's facts ride in both messages' `data.ctxctl`. `archive restore` deletes those
//! two messages again while nothing came after them.

mod apply;
pub mod db;
mod ids;
pub mod rows;
pub mod view;

use std::path::Path;

use serde_json::{json, Map, Value};

use super::agent::{AgentInfo, AgentStore, ResumeRule};
use super::sqlite::Store;
pub use super::sqlite::StoreError;
use super::{lines_doc, Codec};
use crate::session::{
    Document, Format, Item, Keep, LinesDoc, ReadError, ReportedUsage, RestorePlan, Session,
    WriteError,
};

use super::dbagent::{DbAgent, DbSession};
pub use apply::Applied;
pub use db::{is_opencode, SessionInfo};

/// OpenCode's store, in the words its errors use.
pub static STORE: Store = Store {
    agent: "OpenCode",
    program: "opencode",
    what: "not an OpenCode database",
    not_a_database: "message.data",
    keys: "id, title or slug",
    choose: "an OpenCode session with --session ID|TITLE; sessions",
    live_why: "",
};

/// A session read from an OpenCode database: its rendering and which session it is.
pub struct Selected {
    pub session: SessionInfo,
    pub text: String,
}

/// Every session of the OpenCode database at `path`, most recently updated first.
pub fn list_sessions(path: &Path) -> Result<Vec<SessionInfo>, StoreError> {
    let db = db::Db::open(path, false)?;
    db.schema.sessions(&db.conn)
}

/// Reads session `wanted` (an id, title or slug; `None`: the only top-level session) of
/// the OpenCode database at `path`, read-only.
pub fn read_session(path: &Path, wanted: Option<&str>) -> Result<Selected, StoreError> {
    let db = db::Db::open(path, false)?;
    let session = db.select(wanted)?;
    let text = db.render(&session)?.text;
    Ok(Selected { session, text })
}

/// Writes `text`, session `s` of the database at `path` rewritten, in one transaction.
pub fn write_session(
    path: &Path,
    s: &SessionInfo,
    text: &[u8],
    guard: &super::dbagent::Guard,
) -> Result<Applied, StoreError> {
    let text = std::str::from_utf8(text).map_err(|_| StoreError::Unsupported {
        path: path.to_path_buf(),
        why: "the rewritten session is not UTF-8".into(),
    })?;
    let mut db = db::Db::open(path, true)?;
    apply::apply(&mut db, s, text, guard)
}

/// The rendering's lines, parsed (line 0 is the session's head).
fn lines(doc: &LinesDoc) -> Result<Vec<Value>, ReadError> {
    (0..doc.lines.len())
        .map(|i| serde_json::from_str(doc.line(i)).map_err(|e| ReadError::json(&e, i)))
        .collect()
}

pub fn read(text: String) -> Result<Session, ReadError> {
    let doc = LinesDoc::new(text);
    let values = lines(&doc)?;
    let head = values.first().ok_or(ReadError::Empty)?;
    if head.get("session").is_none() {
        return Err(ReadError::shape(
            "line 1",
            "an OpenCode session as ctxctl renders it (give the opencode.db database itself)",
        ));
    }
    let mut messages = Vec::new();
    let mut model = head.get("model").and_then(Value::as_str).map(String::from);
    let mut usage = None;
    let mut summary_time = None;
    for (i, v) in values.iter().enumerate().skip(1) {
        let line = view::Line::parse(v).ok_or_else(|| {
            ReadError::shape(
                format!("line {}", i + 1),
                "a message with id, time_created, data and parts",
            )
        })?;
        let start = messages.len();
        messages.extend(view::messages(&line, i));
        if line.role() != "assistant" {
            continue;
        }
        if let Some(m) = line.data.get("modelID").and_then(Value::as_str) {
            model = Some(m.to_string());
        }
        if line.is_summary() {
            summary_time = Some(line.time_created);
            usage = None;
            continue;
        }
        // Usage reported before the last compaction describes the history it replaced.
        if summary_time.is_some_and(|t| line.time_created < t) || messages.len() == start {
            continue;
        }
        if let Some((input, output)) = line.usage() {
            usage = Some(ReportedUsage {
                input_tokens: input,
                output_tokens: output,
                after_message: Some(messages.len() - 1),
                request_end: Some(start),
                earlier: Vec::new(),
                dropped: 0,
            });
        }
    }
    Ok(Session {
        format: Format::OpenCode,
        doc: Document::Lines(doc),
        messages,
        model,
        warnings: Vec::new(),
        reported_usage: usage,
        agent_limits: Default::default(),
        request_extra: None,
        resume: None,
        skipped: false,
    })
}

/// A session of an OpenCode database, as its rendering (see the module docs).
pub struct OpenCode;

/// OpenCode outside its database: the database ([`default_path`]), the `opencode`
/// program, `opencode --session ID`.
pub static AGENT: AgentInfo = AgentInfo {
    programs: &["opencode"],
    packages: &["opencode"],
    stores: |env, _| {
        default_path(env)
            .map(|db| AgentStore::database("opencode", db))
            .into_iter()
            .collect()
    },
    resume: Some(ResumeRule {
        var: "CTXCTL_OPENCODE_BIN",
        program: "opencode",
        args: |id, _| vec!["--session".into(), id.into()],
        id_of: None,
    }),
    id_by_place: None,
    database: Some(&DB),
};

/// OpenCode's database as the commands meet it ([`DbAgent`]).
pub static DB: DbAgent = DbAgent {
    format: Format::OpenCode,
    file_name: "opencode.db",
    store: &STORE,
    archive_prefix: "opencode",
    in_walks: true,
    is_mine: is_opencode,
    list: |path| Ok(list_sessions(path)?.into_iter().map(row).collect()),
    read: |path, wanted| {
        let s = read_session(path, wanted)?;
        Ok((row(s.session), s.text))
    },
    write: |path, id, text, guard| {
        let s = read_session(path, Some(id))?.session;
        let done = write_session(path, &s, text, guard)?;
        Ok(format!(
            "{} messages inserted, {} deleted",
            done.inserted, done.deleted
        ))
    },
};

/// Session `s` as the commands list it (subagent sessions, with a parent, are not shown
/// in OpenCode's own list).
fn row(s: SessionInfo) -> DbSession {
    DbSession {
        agent: &DB,
        updated: Some(s.updated.div_euclid(1000)),
        project: s.directory,
        listed: s.parent.is_none(),
        id: s.id,
    }
}

/// OpenCode's database, where OpenCode (≥ 1.2) keeps it (`opencode db path`):
/// `${XDG_DATA_HOME:-~/.local/share}/opencode/opencode.db`.
pub fn default_path(env: &dyn super::agent::Vars) -> Option<std::path::PathBuf> {
    Some(super::agent::data_home(env)?.join("opencode/opencode.db"))
}

impl Codec for OpenCode {
    fn agent_info(&self) -> Option<&'static AgentInfo> {
        Some(&AGENT)
    }

    fn format(&self) -> Format {
        Format::OpenCode
    }

    fn name(&self) -> &'static str {
        "opencode"
    }

    fn read(&self, text: String, _keep: Keep) -> Result<Session, ReadError> {
        read(text)
    }

    fn write(&self, session: &Session, items: &[Item]) -> Result<Vec<u8>, WriteError> {
        let doc = lines_doc(session)?;
        if items == session.keep_all().as_slice() {
            return Ok(doc.text.as_bytes().to_vec());
        }
        write(session, doc, items)
    }

    fn restores_summaries(&self) -> bool {
        true
    }

    fn restore(&self, session: &Session, plan: &RestorePlan) -> Result<Vec<u8>, WriteError> {
        restore(session, lines_doc(session)?, plan)
    }

    fn user_first(&self) -> bool {
        true
    }
}

fn unsupported(why: &str) -> WriteError {
    WriteError::Document(format!("OpenCode cannot express this rewrite: {why}"))
}

/// The rewritten rendering: the session's head, ctxctl's compaction and summary messages,
/// then the messages kept, as OpenCode will send them.
fn write(session: &Session, doc: &LinesDoc, items: &[Item]) -> Result<Vec<u8>, WriteError> {
    let values = lines(doc)?;
    let n = session.messages.len();
    let (marker, kept) = match items {
        [Item::Insert(m), rest @ ..] => (Some(m), rest),
        rest => (None, rest),
    };
    let first = match kept.first() {
        Some(Item::Keep(k)) => *k,
        None => n,
        Some(_) => {
            return Err(unsupported(
                "it edits or adds messages between kept ones (OpenCode sends a session from \
                 its last compaction on, whole)",
            ))
        }
    };
    if kept
        .iter()
        .enumerate()
        .any(|(j, it)| *it != Item::Keep(first + j))
        || first + kept.len() != n
    {
        return Err(unsupported(
            "it keeps messages before the ones it removes, or changes kept ones; OpenCode can \
             only drop the oldest messages of what it sends (use compact, or a trim strategy \
             that removes from the start, such as --strategy fifo)",
        ));
    }
    if first == 0 {
        return Ok(doc.text.as_bytes().to_vec());
    }
    let record = |k: usize| session.messages[k].origin.records().first().copied();
    if first < n && first > 0 && record(first) == record(first - 1) {
        return Err(unsupported(
            "the first message kept is the result of a tool call whose call would be removed",
        ));
    }
    let head = values.first().cloned().unwrap_or(Value::Null);
    let sid = head
        .get("session")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let parsed: Vec<view::Line> = values[1..].iter().filter_map(view::Line::parse).collect();
    let last = parsed.iter().map(|l| l.time_created).max().unwrap_or(0);
    let template_user = parsed.iter().rev().find(|l| l.role() == "user");
    let template_assistant = parsed
        .iter()
        .rev()
        .find(|l| l.role() == "assistant" && !l.is_summary())
        .or_else(|| parsed.iter().rev().find(|l| l.role() == "assistant"));
    let tail = (first < n)
        .then(|| record(first).and_then(|r| values.get(r)))
        .flatten()
        .and_then(|v| v.get("id").and_then(Value::as_str));
    let (text, mut meta) = match marker {
        Some(m) => (m.text.clone(), m.meta.clone()),
        None => (
            format!(
                "[ctxctl] {first} earlier message{} of this conversation were removed to save context.",
                if first == 1 { "" } else { "s" }
            ),
            Map::new(),
        ),
    };
    meta.remove("compact_boundary");
    let added = compaction(
        sid,
        last + 1,
        tail,
        &text,
        &meta,
        template_user.map(|l| &l.data),
        template_assistant.map(|l| &l.data),
    );
    let mut out = String::new();
    out.push_str(doc.line(0));
    out.push('\n');
    for a in &added {
        out.push_str(&a.to_string());
        out.push('\n');
    }
    let mut seen = std::collections::HashSet::new();
    for k in first..n {
        if let Some(r) = record(k) {
            if seen.insert(r) {
                out.push_str(doc.line(r));
                out.push('\n');
            }
        }
    }
    Ok(out.into_bytes())
}

/// ctxctl's two messages at millisecond `at`: the user message with the `compaction` part
/// (`tail_start_id`: the first message kept) and the completed summary answering it.
fn compaction(
    sid: &str,
    at: i64,
    tail: Option<&str>,
    text: &str,
    meta: &Map<String, Value>,
    user: Option<&Value>,
    assistant: Option<&Value>,
) -> [Value; 2] {
    let mut ids = ids::Ids::new(sid, at);
    let (uid, cpid) = (ids.next("msg"), ids.next("prt"));
    let mut ids = ids::Ids::new(sid, at + 1);
    let (aid, tpid) = (ids.next("msg"), ids.next("prt"));
    let pick = |v: Option<&Value>, k: &str| v.and_then(|v| v.get(k)).cloned();
    let mut u = Map::new();
    u.insert("role".into(), json!("user"));
    u.insert("time".into(), json!({ "created": at }));
    for k in ["agent", "model"] {
        if let Some(v) = pick(user, k) {
            u.insert(k.into(), v);
        }
    }
    u.insert("ctxctl".into(), Value::Object(meta.clone()));
    let mut part = json!({"type": "compaction", "auto": false});
    if let Some(t) = tail {
        part["tail_start_id"] = json!(t);
    }
    let mut a = Map::new();
    a.insert("role".into(), json!("assistant"));
    a.insert("parentID".into(), json!(uid));
    a.insert("mode".into(), json!("compaction"));
    a.insert("agent".into(), json!("compaction"));
    a.insert("summary".into(), json!(true));
    for k in ["path", "modelID", "providerID"] {
        if let Some(v) = pick(assistant, k) {
            a.insert(k.into(), v);
        }
    }
    if !a.contains_key("modelID") {
        if let Some(m) = user.and_then(|u| u.get("model")) {
            a.insert(
                "modelID".into(),
                m.get("modelID").cloned().unwrap_or(Value::Null),
            );
            a.insert(
                "providerID".into(),
                m.get("providerID").cloned().unwrap_or(Value::Null),
            );
        }
    }
    a.insert("cost".into(), json!(0));
    a.insert(
        "tokens".into(),
        json!({"total": 0, "input": 0, "output": 0, "reasoning": 0, "cache": {"write": 0, "read": 0}}),
    );
    a.insert(
        "time".into(),
        json!({"created": at + 1, "completed": at + 1}),
    );
    a.insert("finish".into(), json!("stop"));
    a.insert("ctxctl".into(), Value::Object(meta.clone()));
    [
        json!({"id": uid, "time_created": at, "data": u,
               "parts": [{"id": cpid, "time_created": at, "data": part}]}),
        json!({"id": aid, "time_created": at + 1, "data": a,
               "parts": [{"id": tpid, "time_created": at + 1,
                          "data": {"type": "text", "text": text, "time": {"start": at + 1, "end": at + 1}}}]}),
    ]
}

/// Undoes a ctxctl compaction: the rendering without its two messages, the archived
/// lines in their place ([`apply`] deletes the two rows, refusing when OpenCode wrote
/// after them).
fn restore(session: &Session, doc: &LinesDoc, plan: &RestorePlan) -> Result<Vec<u8>, WriteError> {
    let values = lines(doc)?;
    let summary = &session.messages[plan.at];
    let Some(id) = summary.compact.as_ref().and_then(|c| c.id.clone()) else {
        return Err(WriteError::Document(
            "the summary is not one ctxctl wrote".into(),
        ));
    };
    let at = summary.origin.records().first().copied();
    let ours = |v: &Value| {
        v.pointer("/data/ctxctl/compact_id").and_then(Value::as_str) == Some(id.as_str())
    };
    let mut out = String::new();
    out.push_str(doc.line(0));
    out.push('\n');
    for (r, v) in values.iter().enumerate().skip(1) {
        if Some(r) == at {
            let mut last: Option<Value> = None;
            for rec in &plan.records {
                // A message OpenCode sends as a call and its results is one record, archived
                // once per message.
                let v = rec.value()?;
                if last.as_ref().is_some_and(|l| l.get("id") == v.get("id")) {
                    continue;
                }
                out.push_str(&rec.line()?);
                out.push('\n');
                last = Some(v.into_owned());
            }
            continue;
        }
        if ours(v) {
            continue;
        }
        out.push_str(doc.line(r));
        out.push('\n');
    }
    Ok(out.into_bytes())
}

#[cfg(test)]
mod tests;
