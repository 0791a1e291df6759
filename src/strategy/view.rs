//! The working state every strategy transforms: the messages still in the output, in order,
//! each with its token count, its tool-call unit and whether it may go. Strategies chain by
//! passing the view on, so `composite` needs no re-reading or re-counting.

use std::ops::{Deref, Range};

use super::Options;
use crate::session::{pairs, Message, Part, PartEdit, Role, Session};
use crate::tokens::{Counter, REPLY_PRIMING, TOKENS_PER_MESSAGE, TOKENS_PER_NAME};

/// What every strategy needs besides the view.
pub(crate) struct Ctx<'a> {
    pub counter: &'a Counter,
    pub opts: &'a Options,
    pub budget: usize,
    /// Prefer a user message first after a cut (Anthropic sessions).
    pub user_first: bool,
}

/// One message of the output.
#[derive(Debug, Clone)]
pub(crate) struct Entry<'a> {
    /// Index in the input session; `None` for a message the plan adds.
    pub index: Option<usize>,
    /// The message as it will be written (edited or added ones are owned).
    pub msg: Msg<'a>,
    /// Edits to write for a kept input message.
    pub edits: Vec<PartEdit>,
    pub tokens: usize,
    /// The tool-call unit it belongs to; consecutive entries with equal units go together.
    pub unit: usize,
    /// A system or developer message: never removed, never counted as trimmable.
    pub system: bool,
    /// In a unit that must stay (pinned message, last user turn).
    pub protected: bool,
    /// Pinned itself: never edited either.
    pub pinned: bool,
}

/// An entry's message: the input's own, or one the plan made or edited. Boxed when owned,
/// so that an entry stays small: the view holds one per message of a session that may have
/// hundreds of thousands (with `Cow<Message>` inline, the view of a 10M-token session took
/// 7.6 MB, the peak of a trim).
#[derive(Debug, Clone)]
pub(crate) enum Msg<'a> {
    Input(&'a Message),
    Made(Box<Message>),
}

impl Deref for Msg<'_> {
    type Target = Message;

    fn deref(&self) -> &Message {
        match self {
            Msg::Input(m) => m,
            Msg::Made(m) => m,
        }
    }
}

impl Entry<'_> {
    /// Tokens of `content`, one of this entry's tool results. When the result is the
    /// message's only part, that is the message's count less its framing, which saves
    /// tokenizing the content again.
    pub fn content_tokens(
        &self,
        content: &[Part],
        counter: &Counter,
        framing: &mut Framing,
    ) -> usize {
        if self.msg.parts.len() == 1 {
            self.tokens.saturating_sub(framing.of(&self.msg, counter))
        } else {
            counter.parts(content)
        }
    }

    /// Replaces the content of the result answering `call_id` (which counted `old` tokens)
    /// by `text` (which counts `new`). A message's count is the sum of its parts' counts
    /// plus framing, so the new count is exact without recounting the message.
    pub fn edit_result(&mut self, call_id: &str, text: String, old: usize, new: usize) {
        let is_target =
            |p: &Part| matches!(p, Part::ToolResult { call_id: id, .. } if id == call_id);
        let replaced = |p: &Part| match p {
            Part::ToolResult {
                call_id, is_error, ..
            } => Part::ToolResult {
                call_id: call_id.clone(),
                content: vec![Part::Text(text.clone())],
                is_error: *is_error,
            },
            other => other.clone(),
        };
        let Some(k) = self.msg.parts.iter().position(is_target) else {
            return;
        };
        match &mut self.msg {
            Msg::Made(m) => m.parts[k] = replaced(&m.parts[k]),
            // Clone the message without the content being replaced.
            Msg::Input(m) => {
                let mut parts = Vec::with_capacity(m.parts.len());
                for (j, p) in m.parts.iter().enumerate() {
                    parts.push(if j == k { replaced(p) } else { p.clone() });
                }
                self.msg = Msg::Made(Box::new(Message {
                    role: m.role,
                    name: m.name.clone(),
                    parts,
                    id: m.id.clone(),
                    pinned: m.pinned,
                    injected: m.injected,
                    needs_reasoning: m.needs_reasoning,
                    agent_kept: m.agent_kept,
                    compact: m.compact.clone(),
                    origin: m.origin.clone(),
                }));
            }
        }
        self.tokens = self.tokens.saturating_sub(old) + new;
        self.edits
            .retain(|PartEdit::ResultText { call_id: id, .. }| id != call_id);
        self.edits.push(PartEdit::ResultText {
            call_id: call_id.to_string(),
            text,
        });
    }
}

/// The tokens of a message besides its parts, as [`Counter::message`] counts them,
/// remembered per role.
#[derive(Debug, Default)]
pub(crate) struct Framing {
    roles: [Option<usize>; Role::ALL.len()],
}

impl Framing {
    pub fn of(&mut self, m: &Message, counter: &Counter) -> usize {
        let k = Role::ALL.iter().position(|r| *r == m.role).unwrap_or(0);
        let role = *self.roles[k].get_or_insert_with(|| counter.text(m.role.name()));
        let name = m
            .name
            .as_ref()
            .map_or(0, |n| counter.text(n) + TOKENS_PER_NAME);
        TOKENS_PER_MESSAGE + role + name
    }
}

/// The most recent user message that is a turn of the user: like
/// [`Session::last_user_index`], but an omission marker does not count, so that trimming an
/// output whose marker comes last still protects the user's own message.
pub(crate) fn last_user_index(session: &Session) -> Option<usize> {
    session.messages.iter().rposition(|m| {
        m.role == Role::User
            && !m.parts.iter().all(|p| matches!(p, Part::ToolResult { .. }))
            && super::is_omission_marker(m).is_none()
    })
}

/// The tool results of `m` that [`crate::session::write`] can edit, as (call id, content):
/// the first result of each id, and one without an id only in a `tool` message.
pub(crate) fn editable_results(m: &Message) -> Vec<(&str, &[Part])> {
    let mut out: Vec<(&str, &[Part])> = Vec::new();
    for p in &m.parts {
        if let Part::ToolResult {
            call_id, content, ..
        } = p
        {
            let id = call_id.as_str();
            let unaddressable = id.is_empty() && m.role != Role::Tool;
            if !unaddressable && !out.iter().any(|(seen, _)| *seen == id) {
                out.push((id, content));
            }
        }
    }
    out
}

/// A run of entries of one unit, seen by strategies as one thing to keep or drop.
#[derive(Debug, Clone)]
pub(crate) struct Group {
    pub range: Range<usize>,
    /// Tokens of its non-system entries (what dropping it saves).
    pub tokens: usize,
    /// Its non-system entries.
    pub msgs: usize,
    pub protected: bool,
}

impl Group {
    pub fn removable(&self) -> bool {
        self.msgs > 0 && !self.protected
    }
}

/// Running token total of a set of entries, reply priming included.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Tally {
    tokens: usize,
    msgs: usize,
}

impl Tally {
    pub fn total(self) -> usize {
        if self.msgs == 0 {
            0
        } else {
            self.tokens + REPLY_PRIMING
        }
    }
    pub fn add(&mut self, g: &Group) {
        self.tokens += g.tokens;
        self.msgs += g.msgs;
    }
    pub fn sub(&mut self, g: &Group) {
        self.tokens -= g.tokens;
        self.msgs -= g.msgs;
    }
}

#[derive(Debug, Clone)]
pub(crate) struct View<'a> {
    pub entries: Vec<Entry<'a>>,
    /// A unit number no entry uses yet, for added messages.
    pub next_unit: usize,
}

impl<'a> View<'a> {
    /// Every message of `session`, `pinned` as [`super::selector::resolve`] decided.
    pub fn new(session: &'a Session, counts: &[usize], pinned: &[bool]) -> View<'a> {
        let msgs = &session.messages;
        let units = pairs::units(msgs);
        let last_user = last_user_index(session);
        let mut entries = Vec::with_capacity(msgs.len());
        for (u, r) in units.iter().enumerate() {
            let protected = r.clone().any(|i| {
                let m = &msgs[i];
                // A system message carrying tool parts would tie its unit to itself.
                let tied =
                    m.role.is_system() && (m.call_ids().next().is_some() || m.has_tool_results());
                pinned[i] || m.agent_kept || Some(i) == last_user || tied
            });
            entries.extend(r.clone().map(|i| Entry {
                index: Some(i),
                msg: Msg::Input(&msgs[i]),
                edits: Vec::new(),
                tokens: counts[i],
                unit: u,
                system: msgs[i].is_instructions(),
                protected,
                pinned: pinned[i],
            }));
        }
        View {
            entries,
            next_unit: units.len(),
        }
    }

    /// Tokens of every entry.
    pub fn tally(&self) -> Tally {
        let mut t = Tally::default();
        for e in &self.entries {
            t.tokens += e.tokens;
            t.msgs += 1;
        }
        t
    }

    pub fn total(&self) -> usize {
        self.tally().total()
    }

    /// Tokens of what no removal can touch: system entries and protected groups.
    pub fn fixed_tally(&self, groups: &[Group]) -> Tally {
        let mut t = Tally::default();
        for g in groups {
            for e in &self.entries[g.range.clone()] {
                if e.system || !g.removable() {
                    t.tokens += e.tokens;
                    t.msgs += 1;
                }
            }
        }
        t
    }

    /// The view's units, in order.
    pub fn groups(&self) -> Vec<Group> {
        let mut out: Vec<Group> = Vec::new();
        for (i, e) in self.entries.iter().enumerate() {
            let same = out
                .last()
                .is_some_and(|g| self.entries[g.range.start].unit == e.unit);
            if !same {
                out.push(Group {
                    range: i..i,
                    tokens: 0,
                    msgs: 0,
                    protected: false,
                });
            }
            let g = out.last_mut().expect("a group was just pushed");
            g.range.end = i + 1;
            g.protected |= e.protected;
            if !e.system {
                g.tokens += e.tokens;
                g.msgs += 1;
            }
        }
        out
    }

    /// The view without the non-system entries of the groups marked in `remove`.
    pub fn remove(self, groups: &[Group], remove: &[bool]) -> View<'a> {
        let mut gone = vec![false; self.entries.len()];
        for (g, _) in groups.iter().zip(remove).filter(|(_, r)| **r) {
            gone[g.range.clone()].fill(true);
        }
        let entries = self
            .entries
            .into_iter()
            .zip(gone)
            .filter(|(e, gone)| e.system || !gone)
            .map(|(e, _)| e)
            .collect();
        View {
            entries,
            next_unit: self.next_unit,
        }
    }

    /// After a cut at the start, drops further unprotected groups while the first kept one
    /// would begin with an orphan tool result (or, with `user_first`, with anything but a
    /// user message). Does nothing when no group before the first kept one was removed.
    pub fn fix_start(&self, groups: &[Group], remove: &mut [bool], user_first: bool) {
        let Some(first) = groups.iter().position(|g| g.msgs > 0) else {
            return;
        };
        for k in first..groups.len() {
            let g = &groups[k];
            if g.msgs == 0 || remove[k] {
                continue;
            }
            if k == first || !g.removable() {
                return;
            }
            let Some(head) = self.entries[g.range.clone()].iter().find(|e| !e.system) else {
                return;
            };
            let orphan = head.msg.has_tool_results();
            let not_user = user_first && head.msg.role != Role::User;
            if !orphan && !not_user {
                return;
            }
            remove[k] = true;
        }
    }
}
