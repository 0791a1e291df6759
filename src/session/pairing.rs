//! [`pairs::problems`](super::pairs::problems) taken a message at a time, in memory that follows what is still
//! open rather than the session's length: a streamed read of a multi-GB transcript (a
//! Codex rollout, a Gemini CLI log) checks its pairing as the messages go by instead of
//! keeping every message's [`Shape`](super::pairs::Shape) until the end.
//!
//! It holds the calls not yet answered (a set that shrinks as their results arrive and
//! empties at every user turn), a 64-bit hash of every call id made (to tell a result of
//! a call answered before from an orphan: 8 bytes a call), and the problems found. The
//! problems come out as [`pairs::problems`](super::pairs::problems) gives them, held equal by the tests below.

use std::collections::{BTreeMap, VecDeque};

use super::ordering::Ordering;
use super::pairs::{Problem, Turn};
use crate::fasthash::FastMap;
use crate::idmap::IdMap;

/// The pairing check of the messages taken so far.
#[derive(Debug, Default)]
pub struct Pairing {
    /// Messages taken.
    taken: usize,
    /// Reasoning problems, in message order.
    reasoning: Vec<Problem>,
    /// Pairing problems, in the order [`pairs::problems`](super::pairs::problems) finds them.
    pairing: Vec<Problem>,
    /// Whether the current run of assistant items holds a reasoning item.
    reasoned: bool,
    /// The previous message, when it was a reasoning item (its index).
    after_reasoning: Option<usize>,
    /// Calls not yet answered, in call order (by their sequence number): id and index of
    /// the calling message.
    open: BTreeMap<u64, (Box<str>, usize)>,
    /// The open calls of each id, oldest first.
    slots: FastMap<Box<str>, VecDeque<u64>>,
    /// Calls made so far.
    calls: u64,
    /// Every call id made (hashed): an [`IdMap`] set, 8 bytes a call where a hash set
    /// took ~12 (a 2 GB transcript's ~400K calls, held to its end).
    seen: IdMap<()>,
    /// The Anthropic ordering rules, checked too for a session sent to that API.
    ordering: Option<Ordering>,
}

/// The hash a call id is remembered by.
fn id_hash(id: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(id.as_bytes())
}

impl Pairing {
    /// A check that also keeps the Anthropic API's ordering rules, as
    /// [`order::problems`](super::order::problems) does for an Anthropic-bound format.
    pub fn anthropic() -> Pairing {
        Pairing {
            ordering: Some(Ordering::default()),
            ..Pairing::default()
        }
    }

    /// Whether it keeps the Anthropic ordering rules too.
    pub fn orders(&self) -> bool {
        self.ordering.is_some()
    }

    /// Takes the next message.
    pub fn take<T: Turn>(&mut self, m: &T) {
        let i = self.taken;
        self.taken += 1;
        if let Some(o) = &mut self.ordering {
            o.take(m);
        }
        self.reasoning_of(i, m);
        if m.is_user_turn() {
            for (_, (call_id, index)) in std::mem::take(&mut self.open) {
                self.pairing.push(Problem::MissingResult {
                    index,
                    call_id: call_id.into(),
                });
            }
            self.slots.clear();
        }
        for id in m.results() {
            let slot = self.slots.get_mut(id).and_then(VecDeque::pop_front);
            if let Some(slot) = slot {
                if self.slots.get(id).is_some_and(VecDeque::is_empty) {
                    self.slots.remove(id);
                }
                self.open.remove(&slot);
            } else if !self.seen.contains(id_hash(id)) {
                self.pairing.push(Problem::OrphanResult {
                    index: i,
                    call_id: id.to_string(),
                });
            }
        }
        for id in m.calls() {
            self.seen.insert(id_hash(id), ());
            let seq = self.calls;
            self.calls += 1;
            self.slots.entry(id.into()).or_default().push_back(seq);
            self.open.insert(seq, (id.into(), i));
        }
    }

    /// As `reasoning_problems` reads message `i`, `m`.
    fn reasoning_of<T: Turn>(&mut self, i: usize, m: &T) {
        // A reasoning item not followed by an assistant item.
        if let Some(r) = self.after_reasoning.take() {
            if !m.is_assistant() {
                self.reasoning.push(Problem::LoneReasoning { index: r });
            }
        }
        if !m.is_assistant() {
            self.reasoned = false;
            return;
        }
        if m.is_reasoning() {
            self.reasoned = true;
            self.after_reasoning = Some(i);
        }
        if m.needs_reasoning() && !self.reasoned {
            for id in m.calls() {
                self.reasoning.push(Problem::MissingReasoning {
                    index: i,
                    call_id: id.to_string(),
                });
            }
        }
    }

    /// Messages taken.
    pub fn len(&self) -> usize {
        self.taken
    }

    pub fn is_empty(&self) -> bool {
        self.taken == 0
    }

    /// The problems of the messages taken so far, as [`pairs::problems`](super::pairs::problems) lists them.
    pub fn problems(&self) -> Vec<Problem> {
        let mut out = self.reasoning.clone();
        out.extend(self.pairing.iter().cloned());
        out.sort_by_key(Problem::index);
        out
    }

    /// The problems of every message taken, as [`pairs::problems`](super::pairs::problems)
    /// lists them (as [`order::problems`](super::order::problems) does, with the ordering
    /// rules, for a check made by [`Pairing::anthropic`]).
    pub fn finish(self) -> Vec<Problem> {
        let mut out = self.reasoning;
        out.extend(self.pairing);
        out.sort_by_key(Problem::index);
        if let Some(o) = self.ordering {
            let more = o.finish(&out);
            out.extend(more);
            out.sort_by_key(Problem::index);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::ordering::tests::Gen;
    use crate::session::pairs::{problems, Shape};

    fn shape(user_turn: bool, calls: &[&str], results: &[&str]) -> Shape {
        Shape {
            user_turn,
            calls: calls.iter().map(|s| s.to_string()).collect(),
            results: results.iter().map(|s| s.to_string()).collect(),
            assistant: !user_turn && results.is_empty(),
            ..Shape::default()
        }
    }

    fn reasoning() -> Shape {
        Shape {
            assistant: true,
            reasoning: true,
            ..Shape::default()
        }
    }

    fn streamed(all: &[Shape]) -> Vec<Problem> {
        let mut p = Pairing::default();
        all.iter().for_each(|s| p.take(s));
        assert_eq!(p.len(), all.len());
        p.finish()
    }

    #[test]
    fn streamed_pairing_finds_what_the_whole_check_finds() {
        let mut needy = shape(false, &["n"], &[]);
        needy.needs_reasoning = true;
        let sessions = [
            vec![
                shape(false, &["1", "1", "2"], &[]),
                shape(false, &[], &["1"]),
                shape(true, &[], &[]),
                shape(false, &[], &["1"]),
            ],
            vec![
                shape(false, &["1"], &[]),
                shape(false, &["1"], &[]),
                shape(false, &[], &["1"]),
                shape(false, &[], &["2"]),
                shape(true, &[], &[]),
            ],
            vec![
                shape(false, &[], &["3"]),
                shape(false, &["3", "4"], &[]),
                shape(false, &[], &["4"]),
                shape(false, &[], &["4"]),
                shape(true, &[], &[]),
            ],
            vec![
                shape(false, &["a", "b"], &[]),
                shape(true, &[], &[]),
                shape(false, &["b"], &[]),
                shape(false, &[], &["b"]),
                shape(false, &[], &["a"]),
            ],
            vec![
                shape(true, &[], &[]),
                reasoning(),
                shape(true, &[], &[]),
                needy.clone(),
                shape(false, &[], &["n"]),
                reasoning(),
                needy,
                shape(false, &["x", "y"], &[]),
                shape(true, &[], &[]),
                reasoning(),
            ],
        ];
        for all in sessions {
            let whole = problems(&all);
            assert_eq!(streamed(&all), whole, "{all:?}");
        }
    }

    #[test]
    fn answered_calls_leave_nothing_open() {
        let mut p = Pairing::default();
        for k in 0..1000 {
            let id = format!("c{k}");
            p.take(&shape(false, &[&id], &[]));
            p.take(&shape(false, &[], &[&id]));
        }
        assert!(p.open.is_empty() && p.slots.is_empty());
        assert!(p.finish().is_empty());
    }

    #[test]
    fn many_calls_answered_in_reverse() {
        let ids: Vec<String> = (0..20_000).map(|i| format!("c{i}")).collect();
        let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
        let mut all = vec![shape(true, &[], &[]), shape(false, &refs, &[])];
        all.extend(ids.iter().rev().skip(1).map(|id| shape(false, &[], &[id])));
        all.push(shape(true, &[], &[]));
        assert_eq!(streamed(&all), problems(&all));
    }

    #[test]
    fn a_pairing_check_made_for_anthropic_finds_what_order_problems_finds() {
        let mut g = Gen(7);
        for _ in 0..5_000 {
            let session = g.session();
            let mut p = Pairing::anthropic();
            session.iter().for_each(|s| p.take(s));
            assert_eq!(
                p.finish(),
                crate::session::order::problems(crate::session::Format::ClaudeCode, &session),
                "{session:?}"
            );
        }
    }
}
