//! The conversation tree of a Claude Code transcript and its live thread.
//!
//! Records link to their parent by `uuid`/`parentUuid`. The live thread is what Claude Code
//! 2.1.x sends on `--resume`:
//! - the leaf is the `leafUuid` of the last `last-prompt` (or `summary`) record, followed
//!   down to the last record of its thread; without one, the last conversation record;
//! - the path from the leaf back to the root or to the nearest `compact_boundary`;
//! - every Claude Code boundary carrying `compactMetadata.preservedSegment` relinks the
//!   chain first, in file order, as Claude Code does when it loads the file: the segment's
//!   `headUuid` record hangs from its `anchorUuid` record (the summary) and what hung from
//!   the summary continues from its `tailUuid` record (see [`Splice`]). The records from
//!   tail back to head sit before the boundary in the file, and a later compaction's
//!   segment may reach back through an earlier one's (two compactions in a row);
//! - the records Claude Code hangs beside that path: the other records of a split API
//!   response (same `message.id`) and parallel tool results, whose `parentUuid` is their
//!   `tool_use` record.
//!
//! `attachment` records (agent and skill listings, task reminders, file re-reads) are on the
//! `parentUuid` chain like the rest: Claude Code sends them as `system` messages.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::groups::Groups;
use super::relink::Children;
use super::uid::Uid;
use super::uuids::Uuids;
use crate::formats::jsonl::{records_before, Record};
use crate::session::{LinesDoc, ReadError};

/// The `model` Claude Code writes on assistant records it makes up itself (errors,
/// interruptions); they carry no real usage.
pub const SYNTHETIC_MODEL: &str = "<synthetic>";

/// One parsed line of a transcript, whole: what a message is made from.
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

    pub fn timestamp(&self) -> Option<&str> {
        self.v.get("timestamp").and_then(Value::as_str)
    }
}

/// The keys of a record a [`Head`] keeps in [`Head::rare`], where the record has them: the
/// few the thread and a rewrite read that only a few records carry.
const RARE: [&str; 4] = ["leafUuid", "compactMetadata", "ctxctl", "logicalParentUuid"];

/// A record's `type`: the ones Claude Code writes without a copy each (eight bytes
/// where a string would take 16 and its allocation).
#[derive(Debug)]
enum Ty {
    /// Its place in [`KNOWN_TYPES`].
    Known(u8),
    /// Boxed, so that the many known types take 16 bytes, not the 24 of a string.
    #[allow(clippy::box_collection)]
    Other(Box<String>),
}

const KNOWN_TYPES: [&str; 11] = [
    "",
    "user",
    "assistant",
    "system",
    "attachment",
    "last-prompt",
    "summary",
    "progress",
    "file-history-snapshot",
    "queue-operation",
    "mode",
];

/// One line of a transcript reduced to what its thread is traced from and a rewrite
/// plans by: its ids, type, a few flags and its [`RARE`] keys. Its text (message content,
/// tool results, attachments) stays in the file: [`Transcript::whole`] parses the line
/// again when it is wanted, so that a transcript's records take memory by their number,
/// not their size.
#[derive(Debug)]
pub struct Head {
    pub line: usize,
    pub uuid: Option<Uid>,
    pub parent: Option<Uid>,
    /// The record's [`RARE`] keys, when it has any (most records have none).
    rare: Option<Box<Value>>,
    ty: Ty,
    sidechain: bool,
    boundary: bool,
    message_id: Option<Box<str>>,
    results: Box<[Box<str>]>,
    /// An assistant record naming a real model (see [`super::model_of`]).
    pub named_model: bool,
    /// `message.usage`, when the record has one: its prompt (input, cache reads and
    /// writes) and output tokens.
    pub usage: Option<(u64, u64)>,
    /// Its `attachment` is a `prompt_snapshot`.
    pub snapshot: bool,
}

impl Head {
    fn new(line: usize, v: Value) -> Head {
        let r = Rec::new(line, v);
        let ty = match KNOWN_TYPES.iter().position(|&k| k == r.ty()) {
            Some(k) => Ty::Known(k as u8),
            None => Ty::Other(Box::new(r.ty().into())),
        };
        let v = &r.v;
        let assistant = r.ty() == "assistant";
        let results = match r.ty() {
            "user" => v
                .pointer("/message/content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
                .filter_map(|b| b.get("tool_use_id").and_then(Value::as_str))
                .map(Box::from)
                .collect(),
            _ => Box::default(),
        };
        let usage = v.pointer("/message/usage").map(|u| {
            let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
            (
                n("input_tokens") + n("cache_read_input_tokens") + n("cache_creation_input_tokens"),
                n("output_tokens"),
            )
        });
        let rare: serde_json::Map<String, Value> = RARE
            .iter()
            .filter_map(|&k| Some((k.to_string(), v.get(k)?.clone())))
            .collect();
        Head {
            line,
            sidechain: v.get("isSidechain").and_then(Value::as_bool) == Some(true),
            boundary: r.ty() == "system"
                && v.get("subtype").and_then(Value::as_str) == Some("compact_boundary"),
            message_id: match assistant {
                true => v
                    .pointer("/message/id")
                    .and_then(Value::as_str)
                    .map(Box::from),
                false => None,
            },
            results,
            named_model: super::model_of(&r).is_some(),
            usage,
            snapshot: v
                .get("attachment")
                .and_then(|a| a.get("type"))
                .and_then(Value::as_str)
                == Some("prompt_snapshot"),
            rare: (!rare.is_empty()).then(|| Box::new(Value::Object(rare))),
            ty,
            uuid: r.uuid.as_deref().map(Uid::new),
            parent: r.parent.as_deref().map(Uid::new),
        }
    }

    pub fn ty(&self) -> &str {
        match &self.ty {
            Ty::Known(k) => KNOWN_TYPES[*k as usize],
            Ty::Other(t) => t,
        }
    }

    /// The record's [`RARE`] keys it has, as an object (`null` when it has none).
    pub fn rare(&self) -> &Value {
        static NONE: Value = Value::Null;
        self.rare.as_deref().unwrap_or(&NONE)
    }

    /// A record of the conversation tree that can be a leaf.
    pub fn is_conversation(&self) -> bool {
        self.uuid.is_some() && matches!(self.ty(), "user" | "assistant" | "system" | "attachment")
    }

    pub fn sidechain(&self) -> bool {
        self.sidechain
    }

    /// `message.id` of an assistant record (shared by the records of one API response).
    pub fn message_id(&self) -> Option<&str> {
        self.message_id.as_deref()
    }

    pub fn is_boundary(&self) -> bool {
        self.boundary
    }

    /// The `tool_use_id`s a user record answers.
    pub fn result_ids(&self) -> Vec<&str> {
        self.results.iter().map(|r| &**r).collect()
    }

    /// Whether it is the marker [`super::marker::rewrite_marker`] writes.
    pub fn is_rewrite_marker(&self) -> bool {
        self.ty() == "last-prompt" && self.rare().get("ctxctl").is_some()
    }
}

/// A transcript's records and its live thread.
#[derive(Debug)]
pub struct Transcript {
    /// Parsed lines in file order (blank lines and a truncated tail are skipped).
    pub recs: Vec<Head>,
    by_uuid: Uuids,
    /// Per record: part of the active context.
    pub live: Vec<bool>,
    /// The record the live thread was traced back from.
    pub leaf: Option<usize>,
    /// The `compact_boundary` the active context starts after.
    pub boundary: Option<usize>,
    /// The records that boundary preserves from before it, when it does.
    pub splice: Option<Splice>,
    /// Every preserved segment Claude Code's compactions relink, in file order.
    pub splices: Vec<Splice>,
    /// The thread parent of each relinked record (see [`Splice`]).
    relink: HashMap<usize, usize>,
    /// The live records in the order Claude Code sends them.
    pub order: Vec<usize>,
    /// Per record: its place in `order` (`usize::MAX` when not live).
    pub rank: Vec<usize>,
    /// Line of a truncated last line, kept verbatim.
    pub truncated_tail: Option<usize>,
    pub warnings: Vec<String>,
    /// The live thread starts at a record whose parent is not in the file.
    pub cut_short: bool,
}

impl Transcript {
    pub fn parse(doc: &LinesDoc) -> Result<Transcript, ReadError> {
        Transcript::parse_before(doc, doc.lines.len())
    }

    /// The transcript of `doc`'s lines before line `end`, as [`Transcript::parse`] reads a
    /// document holding only those lines (records' lines are `doc`'s), without copying
    /// them into one: the history before a compaction boundary of a large file.
    pub fn parse_before(doc: &LinesDoc, end: usize) -> Result<Transcript, ReadError> {
        // One head a line at most: sized once, not doubled past the need (a 160 MB file's
        // 313K heads would take a 524K-head allocation).
        let mut recs = Vec::with_capacity(end.min(doc.lines.len()));
        let mut warnings = Vec::new();
        let mut truncated_tail = None;
        for record in records_before(doc, end) {
            match record? {
                Record::Line(i, v) if v.is_object() => recs.push(Head::new(i, v)),
                Record::Line(i, _) => {
                    return Err(ReadError::shape(format!("line {}", i + 1), "a JSON object"))
                }
                Record::Truncated(i, w) => {
                    warnings.push(w);
                    truncated_tail = Some(i);
                }
            }
        }
        let by_uuid = Uuids::new(recs.len(), |i| recs[i].uuid.as_ref());
        let n = recs.len();
        let mut t = Transcript {
            live: vec![false; n],
            recs,
            by_uuid,
            leaf: None,
            boundary: None,
            splice: None,
            splices: Vec::new(),
            relink: HashMap::new(),
            order: Vec::new(),
            rank: vec![usize::MAX; n],
            truncated_tail,
            warnings,
            cut_short: false,
        };
        t.trace();
        Ok(t)
    }

    /// Record `i` whole, its line of `doc` (the document the transcript was parsed from)
    /// parsed again.
    pub fn whole(&self, doc: &LinesDoc, i: usize) -> Result<Rec, ReadError> {
        let line = self.recs[i].line;
        let v = serde_json::from_str(doc.line(line)).map_err(|e| ReadError::json(&e, line))?;
        Ok(Rec::new(line, v))
    }

    /// Whether live record `i` is one Claude Code's compaction preserved from before its
    /// boundary (the segment, or a record beside it).
    pub fn preserved(&self, i: usize) -> bool {
        self.splice
            .as_ref()
            .is_some_and(|s| self.live[i] && self.recs[i].line < self.recs[s.boundary].line)
    }

    /// Index of record `i`'s parent on the thread: the record its `parentUuid` names, if it
    /// is in the file, except where a preserved segment is relinked (see [`Splice`]).
    pub fn parent(&self, i: usize) -> Option<usize> {
        match self.relink.get(&i) {
            Some(&p) => Some(p),
            None => self.file_parent(i),
        }
    }

    /// Index of the record `i`'s `parentUuid` names, if it is in the file.
    pub fn file_parent(&self, i: usize) -> Option<usize> {
        self.recs[i]
            .parent
            .as_ref()
            .and_then(|p| self.rec_of_uid(p))
    }

    /// Index of the record with uuid `u` (the last, should several have it).
    pub fn rec_of(&self, u: &str) -> Option<usize> {
        self.rec_of_uid(&Uid::new(u))
    }

    /// [`Transcript::rec_of`] a uuid as the records keep them.
    pub fn rec_of_uid(&self, u: &Uid) -> Option<usize> {
        self.by_uuid.get(u, |i| self.recs[i].uuid.as_ref())
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
        self.relink_segments(main);
        let Some(leaf) = self.find_leaf(main) else {
            return;
        };
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
                    self.cut_short = true;
                    self.warnings.push(format!(
                        "line {}: parent record {p} is not in this file; the thread starts here",
                        self.recs[i].line + 1
                    ));
                }
            }
        }
        chain.reverse();
        if let Some(b) = self.boundary {
            self.splice = self
                .splices
                .iter()
                .find(|s| s.boundary == b && chain.contains(&s.anchor))
                .cloned();
        }
        self.expand(chain, main);
    }

    /// Relinks the preserved segment of every compact boundary, in file order (a later
    /// segment is followed through the relinks of the earlier ones). A segment whose
    /// records cannot be followed from tail to head is left alone, with a warning.
    fn relink_segments(&mut self, main: bool) {
        let boundaries: Vec<usize> = (0..self.recs.len())
            .filter(|&i| self.recs[i].is_boundary())
            .collect();
        if boundaries.is_empty() {
            return;
        }
        let mut children = Children::of(self.recs.len(), |c| self.parent(c));
        for b in boundaries {
            match Splice::find(self, b, main) {
                Ok(Some(s)) => {
                    let head_parent = self.parent(s.head);
                    let link = (s.head, s.anchor, s.tail);
                    children.splice(&mut self.relink, head_parent, link);
                    self.splices.push(s);
                }
                Ok(None) => {}
                Err(w) => self.warnings.push(w),
            }
        }
    }

    /// The leaf: the record the last resolvable `last-prompt` names, followed down to the
    /// last record of its thread (Claude Code writes `last-prompt` sometimes before a
    /// turn's last records); else the last conversation record, or the one a trailing
    /// `summary` names. A trailing `system` record (a hook summary, an error notice) may
    /// stand outside the thread, so the last non-`system` record is preferred.
    fn find_leaf(&self, main: bool) -> Option<usize> {
        let n = self.recs.len();
        let candidate = |i: usize| self.recs[i].is_conversation() && self.eligible(i, main);
        let last_of = |ok: &dyn Fn(usize) -> bool| {
            (0..n)
                .rev()
                .filter(|&i| candidate(i) && ok(i))
                .find(|&i| self.recs[i].ty() != "system")
                .or_else(|| (0..n).rev().find(|&i| candidate(i) && ok(i)))
        };
        let named_by = |r: &Head| {
            r.rare()
                .get("leafUuid")
                .and_then(Value::as_str)
                .and_then(|u| self.rec_of(u))
                .filter(|&i| candidate(i))
        };
        let prompt = self
            .recs
            .iter()
            .rev()
            .filter(|r| r.ty() == "last-prompt")
            .find_map(named_by);
        if let Some(named) = prompt {
            let mut memo = vec![None; n];
            let below: Vec<bool> = (0..n).map(|i| self.descends(i, named, &mut memo)).collect();
            return last_of(&|i| below[i]).or(Some(named));
        }
        let last = last_of(&|_| true)?;
        let summary = self.recs[last + 1..]
            .iter()
            .rev()
            .filter(|r| r.ty() == "summary")
            .find_map(named_by);
        Some(summary.unwrap_or(last))
    }

    /// Whether `anc` is `i` or one of its ancestors by `parentUuid`.
    fn descends(&self, i: usize, anc: usize, memo: &mut [Option<bool>]) -> bool {
        let mut path = Vec::new();
        let mut cur = Some(i);
        let mut found = false;
        while let Some(j) = cur {
            if let Some(m) = memo[j] {
                found = m;
                break;
            }
            if j == anc {
                found = true;
                break;
            }
            if path.len() > self.recs.len() {
                break;
            }
            path.push(j);
            cur = self.file_parent(j);
        }
        for j in path {
            memo[j] = Some(found);
        }
        found
    }

    /// Adds the records Claude Code hangs beside the chain (`chain`, in thread order): the
    /// other records of a split response and tool results whose parent is a live
    /// `tool_use` record. Sets `live` and `order`.
    fn expand(&mut self, chain: Vec<usize>, main: bool) {
        let after = match (&self.splice, self.boundary) {
            (None, Some(b)) => b + 1,
            _ => 0,
        };
        let n = self.recs.len();
        let in_scope = |i: &usize| self.eligible(*i, main);
        // Parallel tool results hang from their `tool_use` record by `parentUuid`: the
        // children of the record a uuid names are those of every record with that uuid.
        let children = Groups::new(n, || {
            (after..n)
                .filter(in_scope)
                .filter_map(|c| Some((self.file_parent(c)?, c)))
        });
        // The records of each API response, by `message.id` and then file order.
        let mut by_message: Vec<u32> = (after..n)
            .filter(in_scope)
            .filter(|&i| self.recs[i].message_id().is_some())
            .map(|i| i as u32)
            .collect();
        by_message.sort_unstable_by_key(|&i| (self.recs[i as usize].message_id(), i));
        let same_message = |id: &str| {
            let key = |i: &u32| self.recs[*i as usize].message_id();
            let from = by_message.partition_point(|i| key(i) < Some(id));
            let to = by_message.partition_point(|i| key(i) <= Some(id));
            by_message[from..to].iter().map(|&i| i as usize)
        };
        let mut live = vec![false; n];
        let mut answered: HashSet<&str> = HashSet::new();
        // Sort key of each live record: its place on the chain; records beside the chain
        // come right after the record they were found from, in file order.
        let mut key: Vec<(usize, usize)> = vec![(0, 0); n];
        for (pos, &i) in chain.iter().enumerate() {
            live[i] = true;
            key[i] = (pos, 0);
            answered.extend(self.recs[i].result_ids());
        }
        let mut queue = chain;
        while let Some(i) = queue.pop() {
            let r = &self.recs[i];
            let at = key[i].0;
            let same = r.message_id().map(same_message);
            let kids = r.uuid.as_ref().and_then(|u| self.rec_of_uid(u));
            for j in same.into_iter().flatten() {
                if !live[j] {
                    live[j] = true;
                    key[j] = (at, 1 + self.recs[j].line);
                    queue.push(j);
                }
            }
            for c in kids.into_iter().flat_map(|k| children.of(k)) {
                let ids = self.recs[c].result_ids();
                if live[c] || ids.is_empty() || ids.iter().all(|id| answered.contains(*id)) {
                    continue;
                }
                answered.extend(ids);
                live[c] = true;
                key[c] = (at, 1 + self.recs[c].line);
                queue.push(c);
            }
        }
        let mut order: Vec<usize> = (0..n).filter(|&i| live[i]).collect();
        order.sort_by_key(|&i| key[i]);
        self.live = live;
        self.rank = vec![usize::MAX; n];
        for (k, &i) in order.iter().enumerate() {
            self.rank[i] = k;
        }
        self.order = order;
    }
}

/// The records a Claude Code `compact_boundary` preserves from before it
/// (`compactMetadata.preservedSegment`): Claude Code sends them, from `headUuid` to
/// `tailUuid`, right after the `anchorUuid` record (its summary), and the records that
/// follow the anchor after them. On the thread, the head's parent is the anchor and the
/// anchor's children continue from the tail.
#[derive(Debug, Clone, PartialEq)]
pub struct Splice {
    /// The boundary carrying the segment.
    pub boundary: usize,
    pub anchor: usize,
    pub head: usize,
    pub tail: usize,
}

impl Splice {
    /// The segment of boundary `b`, when it names one; an error (a warning) when its records
    /// cannot be followed from tail to head on the thread as relinked so far.
    fn find(t: &Transcript, b: usize, main: bool) -> Result<Option<Splice>, String> {
        let Some(seg) = t.recs[b]
            .rare()
            .pointer("/compactMetadata/preservedSegment")
        else {
            return Ok(None);
        };
        if seg.is_null() {
            return Ok(None);
        }
        let line = t.recs[b].line + 1;
        let at = |k: &str| seg.get(k).and_then(Value::as_str).and_then(|u| t.rec_of(u));
        let (Some(head), Some(anchor), Some(tail)) =
            (at("headUuid"), at("anchorUuid"), at("tailUuid"))
        else {
            return Err(format!(
                "line {line}: the compact boundary's preserved segment names records not in this \
                 file; they are not counted"
            ));
        };
        let mut seen = HashSet::new();
        let mut cur = Some(tail);
        while let Some(i) = cur {
            let bad =
                t.recs[i].is_boundary() || !t.eligible(i, main) || i == anchor || !seen.insert(i);
            if bad {
                break;
            }
            if i == head {
                return Ok(Some(Splice {
                    boundary: b,
                    anchor,
                    head,
                    tail,
                }));
            }
            cur = t.parent(i);
        }
        Err(format!(
            "line {line}: the compact boundary's preserved segment does not lead from its tail \
             back to its head; it is not counted"
        ))
    }
}

#[cfg(test)]
#[path = "thread_tests.rs"]
mod tests;
