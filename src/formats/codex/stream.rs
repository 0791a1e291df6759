//! A Codex rollout read from its records' skeletons ([`Rec`]) rather than from its whole
//! text: the first pass folds each record, in file order, into a [`Plan`], which follows
//! [`Rollout::parse`](super::Rollout::parse) step by step. The active history is what
//! the last `compacted` record left (its replacement history, or the user messages an
//! older one kept and its summary: the *prefix*, a few [`Slot`]s saying where each item
//! is) followed by every model item on a line of its own after that record (the *tail*,
//! one bit a line). Of the tail's items the plan keeps only their roles (a byte each) and
//! their reasoning's billed tokens. [`Plan::finish`] then places the reported usage and
//! tells which turns are closed ([`Planned`]); the second pass ([`super::fetch`]) fetches
//! the prefix's items, reads the tail's lines again, and makes the messages
//! [`super::read`] gives.
//!
//! The memory this takes is a few bytes for each item of the active history and each
//! reasoning item or reasoned call of the file, not the file's size. Whatever the whole
//! reader would word as an error, or this route cannot hold, gives `None`: the caller
//! reads the file whole, and the error is its.

use std::collections::HashMap;

use serde_json::Value;

use super::reasoning::{is_call_kind, produced, shares, Closed};
use super::skel::{ItemFact, Rec, Report};
use crate::session::{parse_agent_version, AgentLimits, ReportedUsage, Role};

/// Where an item of the prefix is read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// The `payload` of its own line.
    Payload,
    /// Its own line (a legacy rollout's bare item).
    Bare,
    /// Element `k` of the `replacement_history` of the `compacted` record on its line.
    History(u32),
    /// The summary (`message`) of the older `compacted` record on its line.
    Summary,
}

/// One item of the prefix: where it is, and what the reading needs of it.
#[derive(Debug, Clone, Copy)]
pub struct Slot {
    /// Where its line is in the file.
    pub at: u64,
    pub len: u32,
    pub line: usize,
    pub place: Place,
    pub billed: Option<usize>,
    role: Option<Role>,
    /// A user `message` (what an older compaction keeps).
    user_message: bool,
}

/// Where a record is in the file.
#[derive(Debug, Clone, Copy)]
pub struct At {
    pub line: usize,
    pub at: u64,
    pub len: u32,
}

/// The lines after the last compaction (or all of them).
#[derive(Debug, Default)]
pub struct Tail {
    /// The line it starts on (the compaction's, whose rest it reads first) and where.
    pub line: usize,
    pub at: u64,
    /// Which of its lines (from `line` on) hold a model item, a bit each.
    bits: Vec<u64>,
    /// The reasoning tokens billed for its items, by line (from `line`; in line order).
    billed: Vec<(u32, u32)>,
    /// Its user messages (what an older compaction keeps).
    users: Vec<Slot>,
    /// How many items it holds.
    items: usize,
}

impl Tail {
    fn starting(line: usize, at: u64) -> Tail {
        Tail {
            line,
            at,
            ..Tail::default()
        }
    }

    fn set(&mut self, line: usize) {
        let k = line - self.line;
        if self.bits.len() <= k / 64 {
            self.bits.resize(k / 64 + 1, 0);
        }
        self.bits[k / 64] |= 1 << (k % 64);
        self.items += 1;
    }

    /// Whether `line` holds one of its items.
    pub fn holds(&self, line: usize) -> bool {
        let Some(k) = line.checked_sub(self.line) else {
            return false;
        };
        self.bits
            .get(k / 64)
            .is_some_and(|b| b & (1 << (k % 64)) != 0)
    }

    /// Its items' lines, in order.
    fn lines(&self) -> impl Iterator<Item = usize> + '_ {
        (self.bits.iter().enumerate()).flat_map(move |(w, &b)| {
            (0..64)
                .filter(move |i| b & (1 << i) != 0)
                .map(move |i| self.line + w * 64 + i)
        })
    }

    /// The reasoning tokens billed for the item on `line`.
    pub fn billed(&self, line: usize) -> Option<usize> {
        let line = u32::try_from(line.checked_sub(self.line)?).ok()?;
        let k = self.billed.binary_search_by_key(&line, |b| b.0).ok()?;
        Some(self.billed[k].1 as usize)
    }
}

/// The rollout as read so far.
#[derive(Debug, Default)]
pub struct Plan {
    system: Option<(usize, String)>,
    prefix: Vec<Slot>,
    tail: Tail,
    /// The roles of the prefix's and the tail's items, in order.
    roles: Vec<Role>,
    /// An active item the whole reader refuses (a message without a role).
    refused: bool,
    /// Something this route does not hold (a bill past 32 bits).
    unheld: bool,
    model: Option<String>,
    usage: Option<(u64, u64, usize)>,
    limits: AgentLimits,
    /// The tools the rollout records that Codex sends, as JSON text.
    tools: Option<String>,
    /// Whether a `session_meta` was read (the first one's tools are the session's).
    meta_seen: bool,
    /// Whether the model called the freeform `apply_patch` tool ([`super::shell_output`]).
    patch: bool,
    warnings: Vec<String>,
    /// The tail's reasoning items waiting for their response's usage report: their line,
    /// the size and hash of their encrypted content.
    unbilled: Vec<(usize, Option<(usize, u128)>)>,
    /// The hashes of the call ids made in the same response as a reasoning item.
    reasoned_calls: Vec<u64>,
    in_reasoned_response: bool,
    /// The tokens billed for reasoning items, by their encrypted content's hash (64 bits
    /// of it), the latest last.
    billed: Vec<(u64, usize)>,
    last_total: Option<Value>,
    /// Records folded.
    records: usize,
}

impl Plan {
    /// Folds the record `rec` at `at`, as [`super::Rollout::parse`] reads it.
    pub fn record(&mut self, at: At, rec: Rec) {
        let first = self.records == 0;
        self.records += 1;
        let line = at.line;
        match rec {
            Rec::Meta {
                version,
                base_read,
                text,
                tools,
            } => {
                // Codex sends the tools of the session's own (first) `session_meta`; a
                // forked rollout's later ones are its parent's.
                if !self.meta_seen {
                    self.meta_seen = true;
                    self.tools = tools;
                }
                if self.system.is_none() {
                    self.limits.agent_version = version.as_deref().and_then(parse_agent_version);
                    self.limits.instructions_read = base_read;
                    self.system = text.map(|text| (line, text));
                }
            }
            Rec::Other => {}
            Rec::Item(f) => self.item(at, Place::Payload, &f),
            Rec::Compacted(history) => self.compacted(at, history),
            Rec::TurnContext(model) => {
                if model.is_some() {
                    self.model = model;
                }
            }
            Rec::Billing(reasoning) => self.bill(reasoning),
            Rec::TokenCount(report) => self.token_count(line, report),
            Rec::TaskStarted(window) => {
                if window.is_some() {
                    self.limits.window = window;
                }
            }
            Rec::TaskComplete(exceeded) => {
                if exceeded {
                    self.limits.overflow = true;
                }
            }
            Rec::Bare {
                record_type,
                untyped,
                instructions,
                item,
            } => {
                if record_type {
                    return;
                }
                if first && untyped {
                    if let Some(text) = instructions.filter(|t| !t.is_empty()) {
                        self.system = Some((line, text));
                    }
                    return;
                }
                if let Some(f) = item {
                    self.item(at, Place::Bare, &f);
                }
            }
        }
    }

    /// The warning of a truncated last line, which the reading skips.
    pub fn truncated(&mut self, warning: String) {
        self.warnings.push(warning);
    }

    /// The lone surrogates the first pass read as U+FFFD: their warning first, as the whole
    /// reader gives it, and noted in the limits.
    pub fn mended(&mut self, found: crate::formats::surrogates::Found) {
        if let Some(w) = found.warning() {
            self.warnings.insert(0, w);
        }
        found.note(&mut self.limits);
    }

    fn token_count(&mut self, line: usize, r: Report) {
        if r.window.is_some() {
            self.limits.window = r.window;
        }
        if let Some(reasoning) = r.reasoning {
            self.bill(reasoning);
        }
        let repeated = r.total.is_some() && r.total == self.last_total && self.usage.is_some();
        self.last_total = r.total;
        if let (Some(input), Some(output), false) = (r.input, r.output, repeated) {
            if input > 0 {
                self.usage = Some((input, output, line));
                self.limits.overflow = false;
            }
        }
    }

    /// A model item on its own line, noted as `Rollout::response_item` notes it, then
    /// added to the tail.
    fn item(&mut self, at: At, place: Place, f: &ItemFact) {
        self.patch |= f.patch;
        if !produced(&f.kind, f.role.as_deref()) {
            self.in_reasoned_response = false;
        } else if f.kind == "reasoning" {
            self.in_reasoned_response = true;
            self.unbilled.push((at.line, f.encrypted));
        } else if is_call_kind(&f.kind) && self.in_reasoned_response {
            if let Some(id) = f.call_id {
                self.reasoned_calls.push(id);
            }
        }
        self.tail.set(at.line);
        self.role(f.role());
        if f.is_user_message() {
            self.tail.users.push(slot(at, place, f, None));
        }
    }

    fn role(&mut self, role: Option<Role>) {
        self.refused |= role.is_none();
        self.roles.push(role.unwrap_or(Role::Assistant));
    }

    fn bill(&mut self, reasoning: Option<u64>) {
        let Some(reasoning) = reasoning else { return };
        let pending = std::mem::take(&mut self.unbilled);
        let sizes: Vec<usize> = pending.iter().map(|(_, e)| e.map_or(0, |e| e.0)).collect();
        for (&(line, enc), share) in pending.iter().zip(shares(reasoning, &sizes)) {
            let held = (u32::try_from(line - self.tail.line).ok()).zip(u32::try_from(share).ok());
            match held {
                Some(b) => self.tail.billed.push(b),
                None => self.unheld = true,
            }
            if let Some((_, key)) = enc {
                self.billed.push((key as u64, share));
            }
        }
    }

    fn compacted(&mut self, at: At, history: Option<Vec<(usize, ItemFact)>>) {
        self.usage = None;
        self.limits.overflow = false;
        self.unbilled.clear();
        let tail = std::mem::replace(
            &mut self.tail,
            Tail::starting(at.line, at.at + u64::from(at.len)),
        );
        if let Some(history) = history {
            self.patch |= history.iter().any(|(_, f)| f.patch);
            // The keys looked for, found in one pass over what was billed (the latest wins).
            let mut found: HashMap<u64, Option<usize>> = (history.iter())
                .filter(|(_, f)| f.kind == "reasoning")
                .filter_map(|(_, f)| Some((f.encrypted?.1 as u64, None)))
                .collect();
            if !found.is_empty() {
                for &(k, share) in &self.billed {
                    if let Some(v) = found.get_mut(&k) {
                        *v = Some(share);
                    }
                }
            }
            let billed_of = |f: &ItemFact| {
                (f.kind == "reasoning")
                    .then_some(f.encrypted)
                    .flatten()
                    .and_then(|(_, key)| found.get(&(key as u64)).copied().flatten())
            };
            let prefix: Vec<Slot> = (history.iter())
                .map(|(k, f)| slot(at, Place::History(*k as u32), f, billed_of(f)))
                .collect();
            self.start_from(prefix);
            return;
        }
        // Older builds: the history becomes the user messages so far plus the summary.
        let mut kept: Vec<Slot> = self.prefix.drain(..).filter(|s| s.user_message).collect();
        kept.extend(tail.users);
        let fact = ItemFact {
            kind: "message".into(),
            role: Some("user".into()),
            call_id: None,
            encrypted: None,
            patch: false,
        };
        kept.push(slot(at, Place::Summary, &fact, None));
        self.start_from(kept);
    }

    /// The active history made of `prefix` (the tail started again).
    fn start_from(&mut self, prefix: Vec<Slot>) {
        self.roles.clear();
        self.refused = false;
        for s in &prefix {
            self.refused |= s.role.is_none();
            self.roles.push(s.role.unwrap_or(Role::Assistant));
        }
        self.prefix = prefix;
    }

    /// The plan of the second pass; `None` when an active item is one the whole reader
    /// refuses.
    pub fn finish(mut self) -> Option<Planned> {
        if self.refused || self.unheld {
            return None;
        }
        let system_line = self.system.as_ref().map(|(l, _)| *l);
        let roles: Vec<Role> = (system_line.map(|_| Role::System).into_iter())
            .chain(self.roles.iter().copied())
            .collect();
        let usage = self.usage.map(|u| {
            let lines = (system_line.into_iter())
                .chain(self.prefix.iter().map(|s| s.line))
                .chain(self.tail.lines())
                .map(Some);
            super::reported(lines, &roles, u)
        });
        let closed = Closed::of(&roles, usage.as_ref());
        self.reasoned_calls.sort_unstable();
        self.reasoned_calls.dedup();
        Some(Planned {
            len: roles.len(),
            system: self.system,
            prefix: self.prefix,
            tail: self.tail,
            model: self.model,
            usage,
            limits: self.limits,
            tools: self.tools,
            warnings: self.warnings,
            closed,
            reasoned_calls: self.reasoned_calls,
            patch: self.patch,
        })
    }
}

/// The slot of the item `f` at `at`, read from `place`.
fn slot(at: At, place: Place, f: &ItemFact, billed: Option<usize>) -> Slot {
    Slot {
        at: at.at,
        len: at.len,
        line: at.line,
        place,
        billed,
        role: f.role(),
        user_message: f.is_user_message(),
    }
}

/// What the first pass found: the messages to make, and what the rollout holds besides.
#[derive(Debug)]
pub struct Planned {
    /// How many messages the rollout holds.
    pub len: usize,
    pub system: Option<(usize, String)>,
    pub prefix: Vec<Slot>,
    pub tail: Tail,
    pub model: Option<String>,
    /// The reported usage, its `dropped` not known yet.
    pub usage: Option<ReportedUsage>,
    pub limits: AgentLimits,
    /// The tools the rollout records that Codex sends, as JSON text
    /// ([`crate::session::Session::request_extra`]).
    pub tools: Option<String>,
    /// The file's warnings (a truncated last line).
    pub warnings: Vec<String>,
    pub closed: Closed,
    /// Sorted.
    reasoned_calls: Vec<u64>,
    /// Whether the model called the freeform `apply_patch` tool: shell outputs are sent
    /// as plain text ([`super::shell_output`]).
    pub patch: bool,
}

impl Planned {
    /// Whether the call of this id hash was made with a reasoning item.
    pub fn reasoned(&self, id: u64) -> bool {
        self.reasoned_calls.binary_search(&id).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::formats::codex::skel::rec;

    /// The plan of `lines` (each a record), as if they were the file's lines in order.
    fn plan(lines: &[Value]) -> Plan {
        let mut p = Plan::default();
        let mut at = 0;
        for (line, v) in lines.iter().enumerate() {
            let text = v.to_string();
            let len = text.len() as u32;
            p.record(At { line, at, len }, rec(&text).unwrap());
            at += u64::from(len) + 1;
        }
        p
    }

    fn item(v: Value) -> Value {
        json!({"type": "response_item", "payload": v})
    }

    fn said(role: &str) -> Value {
        item(json!({"type": "message", "role": role, "content": "x"}))
    }

    #[test]
    fn the_tail_holds_one_bit_a_line() {
        let mut t = Tail::starting(10, 0);
        for line in [11, 12, 80, 200] {
            t.set(line);
        }
        assert!(t.holds(80) && !t.holds(79) && !t.holds(9) && !t.holds(10_000));
        assert_eq!(t.lines().collect::<Vec<_>>(), [11, 12, 80, 200]);
        assert_eq!(t.items, 4);
        t.billed.push((70, 5));
        assert_eq!((t.billed(80), t.billed(11)), (Some(5), None));
    }

    #[test]
    fn an_older_compaction_keeps_the_user_messages_and_its_summary() {
        let p = plan(&[
            said("user"),
            said("assistant"),
            said("user"),
            json!({"type": "compacted", "payload": {"message": "sum"}}),
            said("assistant"),
        ]);
        let places: Vec<(usize, Place)> = p.prefix.iter().map(|s| (s.line, s.place)).collect();
        assert_eq!(
            places,
            [
                (0, Place::Payload),
                (2, Place::Payload),
                (3, Place::Summary)
            ]
        );
        assert_eq!(
            (p.tail.line, p.tail.lines().collect::<Vec<_>>()),
            (3, vec![4])
        );
        let planned = p.finish().unwrap();
        assert_eq!(planned.len, 4);
        assert_eq!(planned.closed.before, 2);
    }

    #[test]
    fn a_message_without_a_role_is_refused_only_while_active() {
        let bad = item(json!({"type": "message", "content": []}));
        assert!(plan(&[said("user"), bad.clone()]).finish().is_none());
        let history = json!({"type": "compacted", "payload": {"replacement_history": []}});
        assert!(plan(&[bad, history, said("user")]).finish().is_some());
    }

    #[test]
    fn reasoning_is_billed_and_its_calls_remembered() {
        let p = plan(&[
            said("user"),
            item(json!({"type": "reasoning", "encrypted_content": "aaaa"})),
            item(json!({"type": "function_call", "call_id": "c"})),
            json!({"type": "token_usage_record", "payload": {"usage": {"reasoning_output_tokens": 9}}}),
            item(json!({"type": "function_call_output", "call_id": "c"})),
            item(json!({"type": "function_call", "call_id": "d"})),
        ]);
        let planned = p.finish().unwrap();
        assert_eq!(planned.tail.billed(1), Some(9));
        assert!(planned.reasoned(crate::formats::codex::skel::call_hash("c")));
        assert!(!planned.reasoned(crate::formats::codex::skel::call_hash("d")));
    }

    #[test]
    fn the_plan_keeps_the_first_session_meta_s_tools() {
        let meta = |name: &str| {
            json!({"type": "session_meta", "payload": {"base_instructions": {"text": "b"},
                "dynamic_tools": [{"name": name, "description": "d", "inputSchema": {}}]}})
        };
        let planned = plan(&[meta("first"), meta("parent"), said("user")])
            .finish()
            .unwrap();
        let tools: Value = serde_json::from_str(planned.tools.as_deref().unwrap()).unwrap();
        assert_eq!(tools[0]["name"], "first");
        // A first `session_meta` without instructions still names the session's tools.
        let mut bare = meta("first");
        bare["payload"]["base_instructions"]["text"] = json!("");
        let planned = plan(&[bare, meta("parent"), said("user")])
            .finish()
            .unwrap();
        let tools: Value = serde_json::from_str(planned.tools.as_deref().unwrap()).unwrap();
        assert_eq!(tools[0]["name"], "first");
        assert_eq!(planned.system.as_ref().map(|s| s.1.as_str()), Some("b"));
        assert_eq!(plan(&[said("user")]).finish().unwrap().tools, None);
    }
}
