//! goose's SQLite session store (goose ≥ 1.10): `sessions.db`, one database for every
//! session, found at `${XDG_DATA_HOME:-~/.local/share}/goose/sessions/sessions.db`
//! (`$GOOSE_PATH_ROOT/data/sessions/sessions.db` when set).
//!
//! A database holds many sessions, so it is not read as text: [`db`] opens it (read-only
//! for reading: that works while goose holds it and its WAL), selects one session and
//! renders it as goose JSONL, one line per `messages` row; this codec reads and writes that
//! rendering with the goose JSONL logic ([`super::goose`]), and [`apply`] writes a
//! rewritten rendering back into the database in one transaction. The commands see a
//! session like any other; only loading and replacing go through here
//! ([`crate::ops::load`], [`crate::ops::write`]).
//!
//! Rewrites are goose's own compaction layout: nothing is deleted, summarized messages get
//! `agentVisible: false`, the summary is a `user` message only the agent sees
//! (`userVisible: false`), ctxctl's facts about it ride in its `metadata.ctxctl`.

mod apply;
pub mod db;

use std::path::Path;

use serde_json::{Map, Value};

use super::agent::{AgentInfo, AgentStore, ResumeRule};
use super::goose;
use super::sqlite::Store;
pub use super::sqlite::StoreError;
use super::{lines_doc, Codec};
use crate::session::{Format, Item, Keep, ReadError, RestorePlan, Session, WriteError};

pub use super::dbagent::Guard;
pub use super::dbagent::LIVE_SECS;
use super::dbagent::{self, DbAgent, DbSession};
pub use apply::Applied;
pub use db::SessionInfo;

/// goose's store, in the words its errors use.
pub static STORE: Store = Store {
    agent: "goose",
    program: "goose",
    what: "not a goose session database",
    not_a_database: "messages.session_id",
    keys: "id or name",
    choose: "a goose session with --session ID|NAME; user sessions",
    live_why: ", which writes its whole session back and would undo ctxctl's change",
};

/// A session read from a goose database: its rendering and which session it is.
pub struct Selected {
    pub session: SessionInfo,
    pub text: String,
}

/// Reads session `wanted` (an id or a name; `None`: the only user session) of the goose
/// database at `path`, read-only.
pub fn read_session(path: &Path, wanted: Option<&str>) -> Result<Selected, StoreError> {
    let db = db::Db::open(path, false)?;
    let session = db.select(wanted)?;
    let text = db.render(&session)?.text;
    Ok(Selected { session, text })
}

/// Every session of the goose database at `path`, the most recently updated first.
pub fn list_sessions(path: &Path) -> Result<Vec<SessionInfo>, StoreError> {
    let db = db::Db::open(path, false)?;
    db.schema.sessions(&db.conn)
}

/// Writes `text`, session `s` of the database at `path` rewritten, in one transaction.
pub fn write_session(
    path: &Path,
    s: &SessionInfo,
    text: &[u8],
    guard: &Guard,
) -> Result<Applied, StoreError> {
    let text = std::str::from_utf8(text).map_err(|_| StoreError::Unsupported {
        path: path.to_path_buf(),
        why: "the rewritten session is not UTF-8".into(),
    })?;
    let mut db = db::Db::open(path, true)?;
    apply::apply(&mut db, s, text, guard)
}

/// A session of a goose database, as its rendering (see the module docs).
pub struct GooseDb;

/// goose ≥ 1.10 outside its database: the database ([`default_path`]) and, beside it, the
/// JSONL files of goose ≤ 1.9; `goose session --resume --session-id ID`.
pub static AGENT: AgentInfo = AgentInfo {
    programs: &["goose"],
    packages: &["goose"],
    stores: |env, _| {
        let Some(db) = default_path(env) else {
            return Vec::new();
        };
        let jsonl = db
            .parent()
            .map(std::path::PathBuf::from)
            .unwrap_or_default();
        vec![
            AgentStore::database("goose (database)", db),
            AgentStore::dir("goose (jsonl, before 1.10)", jsonl),
        ]
    },
    resume: Some(ResumeRule {
        var: "CTXCTL_GOOSE_BIN",
        program: "goose",
        args: |id, _| {
            ["session", "--resume", "--session-id", id]
                .map(String::from)
                .to_vec()
        },
        id_of: None,
    }),
    id_by_place: None,
    database: Some(&DB),
};

/// goose's database as the commands meet it ([`DbAgent`]).
pub static DB: DbAgent = DbAgent {
    format: Format::GooseDb,
    file_name: "sessions.db",
    store: &STORE,
    archive_prefix: "goose",
    in_walks: false,
    is_mine: |path| dbagent::has_tables(path, &["sessions", "messages"]),
    list: |path| {
        Ok(list_sessions(path)?
            .into_iter()
            .map(|s| DbSession {
                agent: &DB,
                updated: s.updated_at.as_deref().and_then(db::unix_of),
                project: s.working_dir,
                listed: true,
                id: s.id,
            })
            .collect())
    },
    read: |path, wanted| {
        let s = read_session(path, wanted)?;
        let session = DbSession {
            agent: &DB,
            updated: s.session.updated_at.as_deref().and_then(db::unix_of),
            project: s.session.working_dir.clone(),
            listed: true,
            id: s.session.id,
        };
        Ok((session, s.text))
    },
    write: |path, id, text, guard| {
        let s = read_session(path, Some(id))?.session;
        let done = write_session(path, &s, text, guard)?;
        Ok(format!(
            "{} rows updated, {} inserted, {} deleted",
            done.updated, done.inserted, done.deleted
        ))
    },
};

/// goose's session database, where goose (≥ 1.10) keeps it on Linux and macOS:
/// `$GOOSE_PATH_ROOT/data/sessions/sessions.db` when that is absolute, else
/// `${XDG_DATA_HOME:-~/.local/share}/goose/sessions/sessions.db`.
pub fn default_path(env: &dyn super::agent::Vars) -> Option<std::path::PathBuf> {
    if let Some(root) = super::agent::absolute(env, "GOOSE_PATH_ROOT") {
        return Some(root.join("data/sessions/sessions.db"));
    }
    Some(super::agent::data_home(env)?.join("goose/sessions/sessions.db"))
}

impl Codec for GooseDb {
    fn agent_info(&self) -> Option<&'static AgentInfo> {
        Some(&AGENT)
    }

    fn format(&self) -> Format {
        Format::GooseDb
    }

    fn name(&self) -> &'static str {
        "goose-db"
    }

    fn agent(&self) -> &'static str {
        "goose"
    }

    fn project(&self, _path: &Path, head: &[Value]) -> Option<String> {
        goose::working_dir(head)
    }

    fn read(&self, text: String, _keep: Keep) -> Result<Session, ReadError> {
        let model = text
            .lines()
            .next()
            .and_then(|l| serde_json::from_str::<Value>(l).ok())
            .and_then(|v| v.get("model").and_then(Value::as_str).map(String::from));
        let mut s = goose::read(text)?;
        s.format = Format::GooseDb;
        s.model = model;
        Ok(s)
    }

    fn write(&self, session: &Session, items: &[Item]) -> Result<Vec<u8>, WriteError> {
        let out = goose::write::write(session, lines_doc(session)?, items)?;
        if items == session.keep_all().as_slice() {
            return Ok(out);
        }
        rows_out(&out, true)
    }

    fn restores_summaries(&self) -> bool {
        true
    }

    fn restore(&self, session: &Session, plan: &RestorePlan) -> Result<Vec<u8>, WriteError> {
        let out = goose::restore::restore(session, lines_doc(session)?, plan)?;
        // The continuation message the compaction added goes with its summary.
        let id = session.messages[plan.at]
            .compact
            .as_ref()
            .and_then(|c| c.id.clone());
        let text = String::from_utf8(rows_out(&out, false)?)
            .map_err(|e| WriteError::Document(e.to_string()))?;
        // The session's token figures the compaction cleared, back from its summary.
        let doc = lines_doc(session)?;
        let stash = session.messages[plan.at]
            .origin
            .records()
            .first()
            .and_then(|&r| serde_json::from_str::<Value>(doc.line(r)).ok())
            .and_then(|v| v.pointer("/metadata/ctxctl/session_tokens").cloned());
        let mut kept = String::with_capacity(text.len());
        for (n, line) in text.split_inclusive('\n').enumerate() {
            if n == 0 {
                kept.push_str(&head_with_tokens(line, stash.as_ref())?);
                continue;
            }
            let continues = serde_json::from_str::<Value>(line).ok().and_then(|v| {
                v.pointer("/metadata/ctxctl/continues")
                    .and_then(Value::as_str)
                    .map(String::from)
            });
            if id.is_none() || continues != id {
                kept.push_str(line);
            }
        }
        Ok(kept.into_bytes())
    }
}

/// Turns the lines the goose writer added into rows as the database renders them: a
/// `message_id` like goose's (`msg_<session>_<uuid>`), ctxctl's facts inside `metadata`,
/// and a `created_timestamp` that sorts the row where it stands (at or after the message
/// before it, before the next existing one: rows added later have larger row ids, which
/// break ties after every existing row). Existing lines are kept byte for byte.
///
/// A rewrite (`rewritten`) also clears the session's token figures (goose's last request):
/// goose decides to compact from `total_tokens` when it is set, and would compact again a
/// session ctxctl just made smaller. A compaction's summary keeps them for its restore.
fn rows_out(out: &[u8], rewritten: bool) -> Result<Vec<u8>, WriteError> {
    let text = std::str::from_utf8(out).map_err(|e| WriteError::Document(e.to_string()))?;
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let Some(head) = lines.first() else {
        return Ok(out.to_vec());
    };
    // Not a rendering of goose's database (a text read with `--format goose-db`): the
    // goose writer's output as it is.
    let Ok(mut head) = serde_json::from_str::<Value>(head) else {
        return Ok(out.to_vec());
    };
    let sid = head
        .get("id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let mut stash = Map::new();
    if rewritten {
        if let Value::Object(h) = &mut head {
            for k in TOKEN_KEYS {
                if let Some(v) = h.get_mut(k) {
                    if !v.is_null() {
                        stash.insert(k.to_string(), std::mem::take(v));
                    }
                }
            }
        }
        lines[0] = head.to_string();
    }
    // Lines that are not messages (only in texts that are no rendering) are kept and do
    // not constrain the order.
    let values: Vec<Option<(bool, Value)>> = lines[1..]
        .iter()
        .map(|l| {
            let v: Value = serde_json::from_str(l)
                .ok()
                .filter(|v: &Value| v.get("role").is_some())?;
            Some((v.get("id").is_none_or(Value::is_null), v))
        })
        .collect();
    let created = |v: &Value| v.get("created").and_then(Value::as_i64).unwrap_or(0);
    let mut prev = i64::MIN;
    for k in 0..values.len() {
        let Some((new, v)) = &values[k] else {
            continue;
        };
        if !new {
            prev = created(v);
            continue;
        }
        let next = values[k + 1..]
            .iter()
            .flatten()
            .find(|(n, _)| !n)
            .map(|(_, v)| created(v));
        // Rows after this one that share `prev`'s timestamp sort before it whatever its
        // row id; that only matters when the model sees them.
        let hidden_ties = values[k + 1..]
            .iter()
            .flatten()
            .filter(|(n, _)| !n)
            .take_while(|(_, w)| created(w) <= prev)
            .all(|(_, w)| w.pointer("/metadata/agentVisible") == Some(&Value::Bool(false)));
        let at = match next {
            Some(hi) if hi > prev => hi - 1,
            Some(_) if hidden_ties => prev,
            Some(_) => {
                return Err(WriteError::Document(format!(
                    "a message added before line {} cannot be placed in goose's order: the \
                     messages around it share one created_timestamp",
                    k + 2
                )))
            }
            None => prev.max(created(v)),
        };
        prev = at;
        let mut v = v.clone();
        if let Some(c) = v.get_mut("ctxctl").and_then(Value::as_object_mut) {
            if c.contains_key("compact_id") && !stash.is_empty() {
                c.insert("session_tokens".into(), Value::Object(stash.clone()));
            }
        }
        let mut row = added_row(&sid, &v, at)?;
        if let Some(id) = v.pointer("/ctxctl/compact_id").and_then(Value::as_str) {
            row.push('\n');
            row.push_str(&continuation(&sid, id, at)?);
        }
        lines[k + 1] = row;
    }
    let mut joined = lines.join("\n");
    if text.ends_with('\n') {
        joined.push('\n');
    }
    Ok(joined.into_bytes())
}

/// The token figures of the `sessions` row the rendering's first line carries.
const TOKEN_KEYS: [&str; 3] = ["total_tokens", "input_tokens", "output_tokens"];

/// The rendering's first line `line` with the token figures `stash` holds put back where
/// they are cleared.
fn head_with_tokens(line: &str, stash: Option<&Value>) -> Result<String, WriteError> {
    let Some(stash) = stash.and_then(Value::as_object) else {
        return Ok(line.to_string());
    };
    let mut head: Value = serde_json::from_str(line)?;
    if let Value::Object(h) = &mut head {
        for (k, v) in stash {
            if h.get(k).is_some_and(Value::is_null) {
                h.insert(k.clone(), v.clone());
            }
        }
    }
    let mut out = head.to_string();
    if line.ends_with('\n') {
        out.push('\n');
    }
    Ok(out)
}

/// What goose's own compaction says after its summary (an assistant message only the
/// agent sees), so that the conversation goes on from the summary.
const CONTINUATION: &str = "Your context was compacted. The previous message contains a summary \
of the conversation so far.\nDo not mention that you read a summary or that conversation \
summarization occurred.\nJust continue the conversation naturally based on the summarized context.";

/// The assistant message after the summary of compaction `compact_id`, as goose adds one.
fn continuation(sid: &str, compact_id: &str, at: i64) -> Result<String, WriteError> {
    let v = serde_json::json!({
        "role": "assistant",
        "content": [{"type": "text", "text": CONTINUATION}],
        "metadata": {"userVisible": false, "agentVisible": true},
        "ctxctl": {"continues": compact_id},
    });
    added_row(sid, &v, at)
}

/// A line the goose writer added, as a row of session `sid` created at `at` renders.
fn added_row(sid: &str, v: &Value, at: i64) -> Result<String, WriteError> {
    let mut meta = match v.get("metadata") {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    if let Some(c) = v.get("ctxctl") {
        meta.insert("ctxctl".into(), c.clone());
    }
    let id = format!("msg_{sid}_{}", uuid::Uuid::new_v4());
    let content = v
        .get("content")
        .cloned()
        .unwrap_or(Value::Array(Vec::new()));
    let role = v.get("role").and_then(Value::as_str).unwrap_or("user");
    Ok(format!(
        "{{\"id\":{},\"role\":{},\"created\":{at},\"content\":{},\"metadata\":{}}}",
        Value::String(id),
        Value::String(role.into()),
        serde_json::to_string(&content)?,
        serde_json::to_string(&Value::Object(meta))?
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gooses_database_follows_its_root_then_the_data_home() {
        use super::default_path as goose_db;
        use crate::config::Env;
        use std::path::PathBuf;
        assert_eq!(
            goose_db(&Env::from_pairs([
                ("GOOSE_PATH_ROOT", "/g"),
                ("XDG_DATA_HOME", "/x")
            ])),
            Some(PathBuf::from("/g/data/sessions/sessions.db"))
        );
        assert_eq!(
            goose_db(&Env::from_pairs([
                ("GOOSE_PATH_ROOT", "rel"),
                ("XDG_DATA_HOME", "/x")
            ])),
            Some(PathBuf::from("/x/goose/sessions/sessions.db"))
        );
        assert_eq!(
            goose_db(&Env::from_pairs([("HOME", "/h")])),
            Some(PathBuf::from("/h/.local/share/goose/sessions/sessions.db"))
        );
    }

    fn line(id: Option<&str>, created: i64) -> String {
        serde_json::json!({"id": id, "role": "user", "created": created,
            "content": [{"type": "text", "text": "x"}]})
        .to_string()
    }

    fn created(out: &[u8]) -> Vec<i64> {
        std::str::from_utf8(out)
            .unwrap()
            .lines()
            .skip(1)
            .map(|l| {
                serde_json::from_str::<Value>(l).unwrap()["created"]
                    .as_i64()
                    .unwrap()
            })
            .collect()
    }

    #[test]
    fn added_rows_sort_where_they_stand() {
        let head = r#"{"id":"s1"}"#;
        let text = [
            head.to_string(),
            line(Some("a"), 10),
            line(None, 20),
            line(Some("b"), 20),
        ]
        .join("\n");
        let out = rows_out(text.as_bytes(), true).unwrap();
        // Before the next existing row (a larger row id would sort it after `b` otherwise).
        assert_eq!(created(&out), [10, 19, 20]);
        let added = std::str::from_utf8(&out)
            .unwrap()
            .lines()
            .nth(2)
            .unwrap()
            .to_string();
        assert!(added.starts_with(r#"{"id":"msg_s1_"#), "{added}");
        assert!(added.ends_with(r#""metadata":{}}"#), "{added}");
        // At the end: at or after the last one.
        let text = [head.to_string(), line(Some("a"), 10), line(None, 3)].join("\n");
        assert_eq!(created(&rows_out(text.as_bytes(), true).unwrap()), [10, 10]);
        // No room between two rows of the same second: refused.
        let text = [
            head.to_string(),
            line(Some("a"), 10),
            line(None, 10),
            line(Some("b"), 10),
        ]
        .join("\n");
        assert!(rows_out(text.as_bytes(), true).is_err());
        // Unless the rows of that second after it are hidden from the model: then sorting
        // after them changes nothing it sees.
        let hidden = serde_json::json!({"id": "b", "role": "user", "created": 10,
            "content": [], "metadata": {"agentVisible": false}})
        .to_string();
        let text = [
            head.to_string(),
            line(Some("a"), 10),
            line(None, 10),
            hidden,
            line(Some("c"), 30),
        ]
        .join("\n");
        assert_eq!(
            created(&rows_out(text.as_bytes(), true).unwrap()),
            [10, 10, 10, 30]
        );
    }

    #[test]
    fn a_compaction_summary_is_followed_by_gooses_continuation() {
        let summary = serde_json::json!({"id": null, "role": "user", "created": 0,
            "content": [{"type": "text", "text": "sum"}],
            "metadata": {"userVisible": false, "agentVisible": true},
            "ctxctl": {"compact_id": "c1"}})
        .to_string();
        let text = [r#"{"id":"s1"}"#.to_string(), summary, line(Some("b"), 20)].join("\n");
        let out = String::from_utf8(rows_out(text.as_bytes(), true).unwrap()).unwrap();
        let lines: Vec<Value> = out
            .lines()
            .skip(1)
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0]["metadata"]["ctxctl"]["compact_id"], "c1");
        assert_eq!(lines[1]["role"], "assistant");
        assert_eq!(lines[1]["metadata"]["ctxctl"]["continues"], "c1");
        assert_eq!(lines[1]["metadata"]["userVisible"], false);
        assert_eq!(
            (lines[0]["created"].as_i64(), lines[1]["created"].as_i64()),
            (Some(19), Some(19))
        );
    }
}
