//! A Codex rollout read from its records' skeletons ([`Rec`]) rather than from its whole
//! text: the first pass folds each record, in file order, into a [`Plan`], which follows
//! [`Rollout::parse`](super::Rollout::parse) step by step but keeps of each item of the
//! active history only where it is in the file and what the reading needs of it (its
//! role, its billed reasoning). [`Plan::finish`] then places the reported usage and tells
//! which turns are closed, from the items' roles ([`Planned`]); the second pass
//! ([`super::fetch`]) fetches the active items a window at a time and makes them into
//! the messages [`super::read`] gives.
//!
//! The memory this takes is proportional to the active history's number of items (some
//! 32 bytes each) and the file's reasoning items, not to the file's size. Whatever the
//! whole reader would word as an error, or this route cannot hold, gives `None`: the
//! caller reads the file whole, and the error is its.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::reasoning::{is_call_kind, produced, shares, Closed};
use super::skel::{ItemFact, Rec, Report};
use crate::session::{parse_agent_version, AgentLimits, ReportedUsage, Role};

/// Where an item of the active history is read from.
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

/// One item of the active history: where it is, and what the reading needs of it.
#[derive(Debug, Clone, Copy)]
pub struct Slot {
    /// Where its line is in the file.
    pub at: u64,
    pub len: u32,
    pub line: u32,
    pub place: Place,
    /// The reasoning tokens billed for it ([`NOT_BILLED`]: none).
    billed: u32,
    /// Its message's role (`None`: the whole reader refuses it).
    pub role: Option<Role>,
    /// A user `message` (what an older compaction keeps).
    user_message: bool,
}

/// [`Slot::billed`] of an item not billed.
const NOT_BILLED: u32 = u32::MAX;

impl Slot {
    pub fn billed(&self) -> Option<usize> {
        (self.billed != NOT_BILLED).then_some(self.billed as usize)
    }
}

/// Where a record is in the file.
#[derive(Debug, Clone, Copy)]
pub struct At {
    pub line: usize,
    pub at: u64,
    pub len: u32,
}

/// The rollout as read so far.
#[derive(Debug, Default)]
pub struct Plan {
    system: Option<(usize, String)>,
    items: Vec<Slot>,
    model: Option<String>,
    usage: Option<(u64, u64, usize)>,
    limits: AgentLimits,
    warnings: Vec<String>,
    /// Reasoning items waiting for their response's usage report: their place in `items`,
    /// the size and hash of their encrypted content.
    unbilled: Vec<(usize, Option<(usize, u128)>)>,
    /// The hashes of the call ids made in the same response as a reasoning item.
    reasoned_calls: HashSet<u64>,
    in_reasoned_response: bool,
    billed: HashMap<u128, usize>,
    last_total: Option<Value>,
    /// Records folded.
    records: usize,
    /// Something this route cannot hold (a line or a size past 32 bits).
    broken: bool,
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
            } if self.system.is_none() => {
                self.limits.agent_version = version.as_deref().and_then(parse_agent_version);
                self.limits.instructions_read = base_read;
                if let Some(text) = text {
                    self.system = Some((line, text));
                }
            }
            Rec::Meta { .. } | Rec::Other => {}
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

    /// A model item on its own line, noted as `Rollout::response_item` notes it.
    fn item(&mut self, at: At, place: Place, f: &ItemFact) {
        if !produced(&f.kind, f.role.as_deref()) {
            self.in_reasoned_response = false;
        } else if f.kind == "reasoning" {
            self.in_reasoned_response = true;
            self.unbilled.push((self.items.len(), f.encrypted));
        } else if is_call_kind(&f.kind) && self.in_reasoned_response {
            if let Some(id) = f.call_id {
                self.reasoned_calls.insert(id);
            }
        }
        self.push(at, place, f, None);
    }

    fn push(&mut self, at: At, place: Place, f: &ItemFact, billed: Option<usize>) {
        let (Ok(line), Some(billed)) = (u32::try_from(at.line), self.billed_as(billed)) else {
            self.broken = true;
            return;
        };
        self.items.push(Slot {
            at: at.at,
            len: at.len,
            line,
            place,
            billed,
            role: f.role(),
            user_message: f.is_user_message(),
        });
    }

    /// `billed` as [`Slot::billed`] keeps it; `None` when it cannot.
    fn billed_as(&self, billed: Option<usize>) -> Option<u32> {
        match billed {
            None => Some(NOT_BILLED),
            Some(b) => u32::try_from(b).ok().filter(|&b| b != NOT_BILLED),
        }
    }

    fn bill(&mut self, reasoning: Option<u64>) {
        let Some(reasoning) = reasoning else { return };
        let pending = std::mem::take(&mut self.unbilled);
        let sizes: Vec<usize> = pending.iter().map(|(_, e)| e.map_or(0, |e| e.0)).collect();
        for (&(k, enc), share) in pending.iter().zip(shares(reasoning, &sizes)) {
            match self.billed_as(Some(share)) {
                Some(b) => self.items[k].billed = b,
                None => self.broken = true,
            }
            if let Some((_, key)) = enc {
                self.billed.insert(key, share);
            }
        }
    }

    fn compacted(&mut self, at: At, history: Option<Vec<(usize, ItemFact)>>) {
        self.usage = None;
        self.limits.overflow = false;
        self.unbilled.clear();
        if let Some(history) = history {
            self.items.clear();
            for (k, f) in history {
                let billed = (f.kind == "reasoning")
                    .then(|| f.encrypted.and_then(|(_, key)| self.billed.get(&key)))
                    .flatten()
                    .copied();
                let Ok(k) = u32::try_from(k) else {
                    self.broken = true;
                    return;
                };
                self.push(at, Place::History(k), &f, billed);
            }
            return;
        }
        // Older builds: the history becomes the user messages so far plus the summary.
        self.items.retain(|s| s.user_message);
        let fact = ItemFact {
            kind: "message".into(),
            role: Some("user".into()),
            call_id: None,
            encrypted: None,
        };
        self.push(at, Place::Summary, &fact, None);
    }

    /// The plan of the second pass; `None` when an active item is one the whole reader
    /// refuses, or this route could not hold the file.
    pub fn finish(self) -> Option<Planned> {
        if self.broken {
            return None;
        }
        let system_line = self.system.as_ref().map(|(l, _)| *l);
        let roles: Vec<Role> = (system_line.map(|_| Some(Role::System)).into_iter())
            .chain(self.items.iter().map(|s| s.role))
            .collect::<Option<_>>()?;
        let usage = self.usage.map(|u| {
            let lines: Vec<Option<usize>> = (system_line.into_iter())
                .chain(self.items.iter().map(|s| s.line as usize))
                .map(Some)
                .collect();
            super::reported(&lines, &roles, u)
        });
        let closed = Closed::of(&roles, usage.as_ref());
        Some(Planned {
            system: self.system,
            items: self.items,
            model: self.model,
            usage,
            limits: self.limits,
            warnings: self.warnings,
            closed,
            reasoned_calls: self.reasoned_calls,
        })
    }
}

/// What the first pass found: the messages to make, and what the rollout holds besides.
#[derive(Debug)]
pub struct Planned {
    pub system: Option<(usize, String)>,
    pub items: Vec<Slot>,
    pub model: Option<String>,
    /// The reported usage, its `dropped` not known yet.
    pub usage: Option<ReportedUsage>,
    pub limits: AgentLimits,
    /// The file's warnings (a truncated last line).
    pub warnings: Vec<String>,
    pub closed: Closed,
    pub reasoned_calls: HashSet<u64>,
}

impl Planned {
    /// How many messages the rollout holds.
    pub fn len(&self) -> usize {
        usize::from(self.system.is_some()) + self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
