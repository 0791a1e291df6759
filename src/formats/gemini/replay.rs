//! Replaying a Gemini CLI session log the way Gemini CLI loads it.
//!
//! Every line is one JSON object (Gemini CLI 0.61, `chatRecordingService`):
//!
//! * a metadata line `{"sessionId", "projectHash", "startTime", "lastUpdated", "kind"}`,
//!   merged into the session's state;
//! * a message `{"id", "timestamp", "type", "content", …}`: a repeated `id` replaces the
//!   earlier message in place (a JavaScript `Map` keeps the first position);
//! * `{"$set": {…}}`: merged into the state; with `messages`, the whole message list is
//!   cleared and rebuilt from it (a checkpoint: every resume and every compression
//!   writes one);
//! * `{"$rewindTo": "<id>"}`: drops that message and everything after it (everything,
//!   if the id is not found).
//!
//! What is left is the live message list; [`super::history`] turns it into what Gemini
//! sends.

use std::collections::HashMap;

use serde_json::Value;

use crate::formats::jsonl::{records, Record};
use crate::session::{LinesDoc, ReadError};

/// Where a live message was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum From {
    /// A message line of its own.
    Line(usize),
    /// Element `index` of the `$set.messages` checkpoint on `line`.
    Checkpoint { line: usize, index: usize },
}

impl From {
    pub fn line(self) -> usize {
        match self {
            From::Line(l) | From::Checkpoint { line: l, .. } => l,
        }
    }
}

/// One message of the live list, as recorded.
#[derive(Debug, Clone)]
pub struct Live {
    pub value: Value,
    pub from: From,
}

impl Live {
    pub fn id(&self) -> &str {
        self.value.get("id").and_then(Value::as_str).unwrap_or("")
    }

    pub fn kind(&self) -> &str {
        self.value.get("type").and_then(Value::as_str).unwrap_or("")
    }
}

/// A replayed log.
#[derive(Debug, Default)]
pub struct Replay {
    /// The live message list, in Gemini's order.
    pub live: Vec<Live>,
    /// Positions in `live` by id.
    by_id: HashMap<String, usize>,
    /// The model of the last `gemini` message recorded anywhere in the file.
    pub model: Option<String>,
    /// The latest `lastUpdated` or message `timestamp` in the file (ISO 8601 UTC, which
    /// sorts as text).
    pub last_time: Option<String>,
    /// The line of the last `$set.messages` checkpoint.
    pub last_checkpoint: Option<usize>,
    pub truncated_tail: Option<usize>,
    pub warnings: Vec<String>,
}

/// Whether `v` is a message record (as opposed to metadata or an update).
pub fn is_message(v: &Value) -> bool {
    v.get("id").is_some() && v.get("type").is_some_and(Value::is_string)
}

impl Replay {
    pub fn parse(doc: &LinesDoc) -> Result<Replay, ReadError> {
        let mut r = Replay::default();
        for record in records(doc) {
            let (i, v) = match record? {
                Record::Line(i, v) => (i, v),
                Record::Truncated(i, w) => {
                    r.warnings.push(w);
                    r.truncated_tail = Some(i);
                    continue;
                }
            };
            r.line(i, v)?;
        }
        Ok(r)
    }

    fn line(&mut self, i: usize, v: Value) -> Result<(), ReadError> {
        let place = || format!("line {}", i + 1);
        let Value::Object(obj) = &v else {
            return Err(ReadError::shape(place(), "a JSON object"));
        };
        if let Some(set) = obj.get("$set") {
            let Value::Object(set) = set else {
                return Err(ReadError::shape(format!("{}: $set", place()), "an object"));
            };
            self.time(set.get("lastUpdated"));
            if let Some(messages) = set.get("messages") {
                let Value::Array(list) = messages else {
                    return Err(ReadError::shape(
                        format!("{}: $set.messages", place()),
                        "an array of messages",
                    ));
                };
                self.live.clear();
                self.by_id.clear();
                self.last_checkpoint = Some(i);
                for (index, m) in list.iter().enumerate() {
                    let at = format!("{}: $set.messages[{index}]", place());
                    self.message(m.clone(), From::Checkpoint { line: i, index }, &at)?;
                }
            }
            return Ok(());
        }
        if let Some(to) = obj.get("$rewindTo") {
            let id = to.as_str().ok_or_else(|| {
                ReadError::shape(format!("{}: $rewindTo", place()), "a message id")
            })?;
            let keep = self.by_id.get(id).copied().unwrap_or(0);
            self.live.truncate(keep);
            self.by_id.retain(|_, p| *p < keep);
            return Ok(());
        }
        if is_message(&v) {
            return self.message(v, From::Line(i), &place());
        }
        // Metadata (`sessionId`, `startTime`, …): nothing the model is sent.
        self.time(obj.get("lastUpdated"));
        Ok(())
    }

    /// The live list of a Gemini CLI `.json` chat file (the format before its JSONL log):
    /// `{"sessionId", "projectHash", "startTime", "lastUpdated", "messages": [...]}`, each
    /// message as a log line holds it; message `i` is read as line `i`.
    pub fn of_chat(doc: &Value) -> Result<Replay, ReadError> {
        let mut r = Replay::default();
        r.time(doc.get("lastUpdated"));
        let Some(list) = doc.get("messages").and_then(Value::as_array) else {
            return Err(ReadError::shape("messages", "an array of messages"));
        };
        for (i, m) in list.iter().enumerate() {
            r.message(m.clone(), From::Line(i), &format!("messages[{i}]"))?;
        }
        Ok(r)
    }

    fn message(&mut self, v: Value, from: From, place: &str) -> Result<(), ReadError> {
        let Some(id) = v.get("id").and_then(Value::as_str).map(str::to_string) else {
            return Err(ReadError::shape(place, "a message with a string \"id\""));
        };
        if !v.get("type").is_some_and(Value::is_string) {
            return Err(ReadError::shape(place, "a message with a string \"type\""));
        }
        self.time(v.get("timestamp"));
        if v.get("type").and_then(Value::as_str) == Some("gemini") {
            if let Some(m) = v.get("model").and_then(Value::as_str) {
                self.model = Some(m.to_string());
            }
        }
        let live = Live { value: v, from };
        match self.by_id.get(&id) {
            Some(&p) => self.live[p] = live,
            None => {
                self.by_id.insert(id, self.live.len());
                self.live.push(live);
            }
        }
        Ok(())
    }

    fn time(&mut self, t: Option<&Value>) {
        if let Some(t) = t.and_then(Value::as_str) {
            if self.last_time.as_deref().is_none_or(|l| t > l) {
                self.last_time = Some(t.to_string());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn replay(lines: &[Value]) -> Replay {
        let text: Vec<String> = lines.iter().map(Value::to_string).collect();
        Replay::parse(&LinesDoc::new(text.join("\n") + "\n")).unwrap()
    }

    fn msg(id: &str, ty: &str, text: &str) -> Value {
        json!({"id": id, "timestamp": "2026-01-01T00:00:00.000Z", "type": ty, "content": text})
    }

    fn ids(r: &Replay) -> Vec<&str> {
        r.live.iter().map(Live::id).collect()
    }

    #[test]
    fn a_repeated_id_replaces_the_message_in_place() {
        let mut later = msg("b", "gemini", "calling");
        later["toolCalls"] = json!([{"id": "c1", "name": "ls", "args": {}}]);
        let r = replay(&[
            json!({"sessionId": "s", "projectHash": "h", "startTime": "t", "kind": "main"}),
            msg("a", "user", "hi"),
            msg("b", "gemini", "calling"),
            msg("c", "user", "next"),
            later,
        ]);
        assert_eq!(ids(&r), ["a", "b", "c"]);
        assert!(r.live[1].value.get("toolCalls").is_some());
        assert_eq!(r.live[1].from, From::Line(4));
    }

    #[test]
    fn a_checkpoint_rebuilds_the_list_and_rewind_cuts_it() {
        let r = replay(&[
            msg("old", "user", "gone"),
            json!({"$set": {"messages": [msg("a", "user", "x"), msg("b", "gemini", "y")], "lastUpdated": "2026-02-01T00:00:00.000Z"}}),
            msg("c", "user", "z"),
            msg("d", "gemini", "w"),
            json!({"$rewindTo": "c"}),
            msg("e", "user", "again"),
        ]);
        assert_eq!(ids(&r), ["a", "b", "e"]);
        assert_eq!(r.live[1].from, From::Checkpoint { line: 1, index: 1 });
        assert_eq!(r.last_checkpoint, Some(1));
        assert_eq!(r.last_time.as_deref(), Some("2026-02-01T00:00:00.000Z"));
        // An unknown id clears everything.
        let r = replay(&[msg("a", "user", "x"), json!({"$rewindTo": "nope"})]);
        assert!(r.live.is_empty());
    }

    #[test]
    fn the_model_is_the_last_one_recorded() {
        let mut a = msg("a", "gemini", "x");
        a["model"] = json!("gemini-2.5-pro");
        let mut b = msg("b", "gemini", "y");
        b["model"] = json!("gemini-2.5-flash");
        let r = replay(&[a, b, json!({"$set": {"messages": []}})]);
        assert_eq!(r.model.as_deref(), Some("gemini-2.5-flash"));
        assert!(r.live.is_empty());
    }

    #[test]
    fn bad_records_name_their_line() {
        let doc = LinesDoc::new("{\"$set\":{\"messages\":{}}}\n".to_string());
        let e = Replay::parse(&doc).unwrap_err().to_string();
        assert!(e.starts_with("line 1: $set.messages: expected"), "{e}");
        let doc = LinesDoc::new("[1]\n".to_string());
        assert!(Replay::parse(&doc).is_err());
    }
}
