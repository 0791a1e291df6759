//! The conversation tree of a Claude Code transcript and its live thread.
//!
//! Records link to their parent by `uuid`/`parentUuid`. The live thread is the path from the
//! leaf (the last conversation record, or the `leafUuid` of a trailing `last-prompt` or
//! `summary`) back to the root or to the last `compact_boundary`, plus the records Claude
//! Code hangs beside that path: the other records of a split API response (same
//! `message.id`) and parallel tool results, whose `parentUuid` is their `tool_use` record.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::formats::jsonl::{records, Record};
use crate::session::{LinesDoc, ReadError};

/// The `model` Claude Code writes on assistant records it makes up itself (errors,
/// interruptions); they carry no real usage.
pub const SYNTHETIC_MODEL: &str = "<synthetic>";

/// One parsed line of a transcript.
#[derive(Debug)]
pub struct Rec {
    pub line: usize,
    pub v: Value,
    pub uuid: Option<String>,
    pub parent: Option<String>,
}

impl Rec {
    fn new(line: usize, v: Value) -> Rec {
        let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        Rec {
            line,
            uuid: text("uuid"),
            parent: text("parentUuid"),
            v,
        }
    }

    pub fn ty(&self) -> &str {
        self.v.get("type").and_then(Value::as_str).unwrap_or("")
    }

    /// A record of the conversation tree that can be a leaf.
    pub fn is_conversation(&self) -> bool {
        self.uuid.is_some() && matches!(self.ty(), "user" | "assistant" | "system")
    }

    pub fn sidechain(&self) -> bool {
        self.v.get("isSidechain").and_then(Value::as_bool) == Some(true)
    }

    /// `message.id` of an assistant record (shared by the records of one API response).
    pub fn message_id(&self) -> Option<&str> {
        if self.ty() != "assistant" {
            return None;
        }
        self.v.pointer("/message/id").and_then(Value::as_str)
    }

    pub fn is_boundary(&self) -> bool {
        self.ty() == "system"
            && self.v.get("subtype").and_then(Value::as_str) == Some("compact_boundary")
    }

    /// The `tool_use_id`s a user record answers.
    pub fn result_ids(&self) -> Vec<&str> {
        if self.ty() != "user" {
            return Vec::new();
        }
        let blocks = self.v.pointer("/message/content").and_then(Value::as_array);
        blocks
            .into_iter()
            .flatten()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
            .filter_map(|b| b.get("tool_use_id").and_then(Value::as_str))
            .collect()
    }

    pub fn timestamp(&self) -> Option<&str> {
        self.v.get("timestamp").and_then(Value::as_str)
    }
}

/// A transcript's records and its live thread.
#[derive(Debug)]
pub struct Transcript {
    /// Parsed lines in file order (blank lines and a truncated tail are skipped).
    pub recs: Vec<Rec>,
    pub by_uuid: HashMap<String, usize>,
    /// Per record: part of the active context.
    pub live: Vec<bool>,
    /// The record the live thread was traced back from.
    pub leaf: Option<usize>,
    /// The `compact_boundary` the active context starts after.
    pub boundary: Option<usize>,
    /// Line of a truncated last line, kept verbatim.
    pub truncated_tail: Option<usize>,
    pub warnings: Vec<String>,
}

impl Transcript {
    pub fn parse(doc: &LinesDoc) -> Result<Transcript, ReadError> {
        let mut recs = Vec::new();
        let mut warnings = Vec::new();
        let mut truncated_tail = None;
        for record in records(doc) {
            match record? {
                Record::Line(i, v) if v.is_object() => recs.push(Rec::new(i, v)),
                Record::Line(i, _) => {
                    return Err(ReadError::shape(format!("line {}", i + 1), "a JSON object"))
                }
                Record::Truncated(i, w) => {
                    warnings.push(w);
                    truncated_tail = Some(i);
                }
            }
        }
        let mut by_uuid = HashMap::new();
        for (i, r) in recs.iter().enumerate() {
            if let Some(u) = &r.uuid {
                by_uuid.insert(u.clone(), i);
            }
        }
        let mut t = Transcript {
            live: vec![false; recs.len()],
            recs,
            by_uuid,
            leaf: None,
            boundary: None,
            truncated_tail,
            warnings,
        };
        t.trace();
        Ok(t)
    }

    /// Index of the record `i`'s `parentUuid` names, if it is in the file.
    pub fn parent(&self, i: usize) -> Option<usize> {
        self.recs[i]
            .parent
            .as_ref()
            .and_then(|p| self.by_uuid.get(p))
            .copied()
    }

    /// Whether record `i` belongs to the thread kind this file is about: a subagent file
    /// holds only sidechain records; a main file's sidechain records (1.x) are not its thread.
    fn eligible(&self, i: usize, main: bool) -> bool {
        !main || !self.recs[i].sidechain()
    }

    fn trace(&mut self) {
        let main = self
            .recs
            .iter()
            .any(|r| r.is_conversation() && !r.sidechain());
        // The leaf is the last user or assistant record: trailing `system` records (a hook
        // summary, an error notice) may stand outside the thread.
        let candidate = |i: &usize| self.recs[*i].is_conversation() && self.eligible(*i, main);
        let Some(last) = (0..self.recs.len())
            .rev()
            .filter(candidate)
            .find(|&i| self.recs[i].ty() != "system")
            .or_else(|| (0..self.recs.len()).rev().find(candidate))
        else {
            return;
        };
        let named = self.recs[last + 1..].iter().rev().find_map(|r| {
            matches!(r.ty(), "last-prompt" | "summary")
                .then(|| r.v.get("leafUuid").and_then(Value::as_str))
                .flatten()
                .and_then(|u| self.by_uuid.get(u).copied())
        });
        let leaf = named
            .filter(|&i| self.recs[i].is_conversation() && self.eligible(i, main))
            .unwrap_or(last);
        self.leaf = Some(leaf);

        // Walk back from the leaf.
        let mut chain = Vec::new();
        let mut seen = HashSet::new();
        let mut cur = Some(leaf);
        while let Some(i) = cur {
            if self.recs[i].is_boundary() {
                self.boundary = Some(i);
                break;
            }
            if !seen.insert(i) {
                self.warnings.push(format!(
                    "line {}: parentUuid links loop back; the thread starts here",
                    self.recs[i].line + 1
                ));
                break;
            }
            chain.push(i);
            cur = self.parent(i);
            if cur.is_none() {
                if let Some(p) = &self.recs[i].parent {
                    self.warnings.push(format!(
                        "line {}: parent record {p} is not in this file; the thread starts here",
                        self.recs[i].line + 1
                    ));
                }
            }
        }
        self.expand(chain, main);
    }

    /// Adds the records Claude Code hangs beside the chain: the other records of a split
    /// response and tool results whose parent is a live `tool_use` record.
    fn expand(&mut self, chain: Vec<usize>, main: bool) {
        let after = self.boundary.map_or(0, |b| b + 1);
        let mut children: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut by_message: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, r) in self.recs.iter().enumerate().skip(after) {
            if !self.eligible(i, main) {
                continue;
            }
            if let Some(p) = &r.parent {
                children.entry(p).or_default().push(i);
            }
            if let Some(id) = r.message_id() {
                by_message.entry(id).or_default().push(i);
            }
        }
        let mut live = vec![false; self.recs.len()];
        let mut answered: HashSet<String> = HashSet::new();
        for &i in &chain {
            live[i] = true;
            answered.extend(self.recs[i].result_ids().into_iter().map(str::to_string));
        }
        let mut queue = chain;
        while let Some(i) = queue.pop() {
            let r = &self.recs[i];
            let same = r.message_id().and_then(|id| by_message.get(id));
            let kids = r.uuid.as_deref().and_then(|u| children.get(u));
            for &j in same.into_iter().flatten() {
                if !live[j] {
                    live[j] = true;
                    queue.push(j);
                }
            }
            for &c in kids.into_iter().flatten() {
                let ids = self.recs[c].result_ids();
                if live[c] || ids.is_empty() || ids.iter().all(|id| answered.contains(*id)) {
                    continue;
                }
                answered.extend(ids.into_iter().map(str::to_string));
                live[c] = true;
                queue.push(c);
            }
        }
        self.live = live;
    }
}
