//! Tool call ↔ tool result pairing: the hard invariant of every provider API.
//!
//! [`units`] splits a message list into the smallest runs that can be kept or removed
//! without separating a call from its result, or a reasoning item from the output it was
//! produced with; [`problems`] lists structural faults.

use std::collections::VecDeque;
use std::fmt;
use std::ops::Range;

use super::{Message, Part, Role};
use crate::fasthash::{FastMap, FastSet};

/// Splits `messages` into consecutive ranges, in order, covering every index: a message
/// that makes tool calls is in the same range as every message answering them (and any
/// message in between), and a reasoning item (see [`is_reasoning`]) in the same range as
/// the assistant items that follow it, the output of the same response: the Responses API
/// refuses a reasoning item without its following item. Every other message is a range of
/// its own.
pub fn units(messages: &[Message]) -> Vec<Range<usize>> {
    // For each calling message, the last message answering one of its calls. A call is
    // answered by the next result with its id (agents reuse ids across turns).
    let mut reach: Vec<usize> = (0..messages.len()).collect();
    let mut open: FastMap<&str, usize> = FastMap::default();
    // The end of the run of assistant messages each message belongs to, scanned backwards.
    let mut run_end = messages.len();
    for j in (0..messages.len()).rev() {
        if messages[j].role != Role::Assistant {
            run_end = j;
        } else if is_reasoning(&messages[j]) {
            reach[j] = run_end - 1;
        }
    }
    for (j, m) in messages.iter().enumerate() {
        for id in m.result_ids() {
            if let Some(i) = open.remove(id) {
                reach[i] = reach[i].max(j);
            }
        }
        for id in m.call_ids() {
            open.insert(id, j);
        }
    }
    let mut out = Vec::new();
    let mut start = 0;
    let mut end = 0; // exclusive end of the current unit
    for (i, &last) in reach.iter().enumerate() {
        if i == end && i > start {
            out.push(start..end);
            start = i;
        }
        end = end.max(last + 1);
    }
    if start < messages.len() {
        out.push(start..messages.len());
    }
    out
}

/// A reasoning item of its own (Codex writes each as a Responses `reasoning` item): an
/// assistant message holding only reasoning, readable or encrypted.
pub fn is_reasoning(m: &Message) -> bool {
    m.role == Role::Assistant
        && !m.parts.is_empty()
        && m.parts
            .iter()
            .all(|p| matches!(p, Part::Thinking(_) | Part::Opaque { .. }))
}

/// A structural fault that makes the next API request fail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// A tool result whose call is not in the session before it.
    OrphanResult { index: usize, call_id: String },
    /// A tool call with no result before the next user turn.
    MissingResult { index: usize, call_id: String },
    /// A reasoning item not followed by an item of its response.
    LoneReasoning { index: usize },
    /// A tool call made with a reasoning item that is no longer before it.
    MissingReasoning { index: usize, call_id: String },
    /// The first message sent (after system messages) is not the user's (Anthropic API).
    FirstNotUser { index: usize },
    /// A tool result not in the user turn right after the assistant turn that made the call
    /// (Anthropic API, consecutive turns of one role merged).
    ResultNotAfterCall { index: usize, call_id: String },
    /// A tool call not answered in the user turn right after it (Anthropic API).
    CallNotAnsweredNext { index: usize, call_id: String },
}

impl Problem {
    pub fn index(&self) -> usize {
        match self {
            Problem::OrphanResult { index, .. }
            | Problem::MissingResult { index, .. }
            | Problem::LoneReasoning { index }
            | Problem::MissingReasoning { index, .. }
            | Problem::FirstNotUser { index }
            | Problem::ResultNotAfterCall { index, .. }
            | Problem::CallNotAnsweredNext { index, .. } => *index,
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::OrphanResult { index, call_id } => {
                write!(
                    f,
                    "message {index}: tool result for unknown call {call_id:?}"
                )
            }
            Problem::MissingResult { index, call_id } => {
                write!(f, "message {index}: tool call {call_id:?} has no result before the next user turn")
            }
            Problem::LoneReasoning { index } => write!(
                f,
                "message {index}: reasoning item without the output it was produced with"
            ),
            Problem::MissingReasoning { index, call_id } => write!(
                f,
                "message {index}: tool call {call_id:?} without the reasoning item it was produced with"
            ),
            Problem::FirstNotUser { index } => write!(
                f,
                "message {index}: the first message sent is not the user's (the Anthropic API \
                 refuses it: first message must use the \"user\" role)"
            ),
            Problem::ResultNotAfterCall { index, call_id } => write!(
                f,
                "message {index}: tool result for call {call_id:?} is not in the user message right \
                 after the call (the Anthropic API refuses it)"
            ),
            Problem::CallNotAnsweredNext { index, call_id } => write!(
                f,
                "message {index}: tool call {call_id:?} is not answered in the next user message \
                 (the Anthropic API refuses it)"
            ),
        }
    }
}

/// What pairing looks at in a message.
pub trait Turn {
    /// A user message that is not only tool results: calls still open before it are faults.
    fn is_user_turn(&self) -> bool;
    /// Ids of the tool calls the message answers.
    fn results(&self) -> impl Iterator<Item = &str>;
    /// Ids of the tool calls it makes.
    fn calls(&self) -> impl Iterator<Item = &str>;
    /// An assistant message (an item of a model response).
    fn is_assistant(&self) -> bool;
    /// A reasoning item of its own ([`is_reasoning`]).
    fn is_reasoning(&self) -> bool;
    /// A system or developer message (instructions, agent attachments): no turn of the
    /// conversation.
    fn is_system(&self) -> bool;
    /// Made together with a reasoning item that must come before it
    /// ([`Message::needs_reasoning`]).
    fn needs_reasoning(&self) -> bool;
}

impl Turn for Message {
    fn is_user_turn(&self) -> bool {
        Message::is_user_turn(self)
    }
    fn is_assistant(&self) -> bool {
        self.role == Role::Assistant
    }
    fn is_reasoning(&self) -> bool {
        is_reasoning(self)
    }
    fn is_system(&self) -> bool {
        self.role.is_system()
    }
    fn needs_reasoning(&self) -> bool {
        self.needs_reasoning
    }
    fn results(&self) -> impl Iterator<Item = &str> {
        self.result_ids()
    }
    fn calls(&self) -> impl Iterator<Item = &str> {
        self.call_ids()
    }
}

/// A message reduced to what pairing looks at, kept between runs (see
/// [`crate::cache::digest`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Shape {
    pub user_turn: bool,
    pub results: Vec<String>,
    pub calls: Vec<String>,
    pub assistant: bool,
    pub reasoning: bool,
    pub needs_reasoning: bool,
    pub system: bool,
}

impl Shape {
    pub fn of(m: &Message) -> Shape {
        Shape {
            user_turn: Message::is_user_turn(m),
            results: m.result_ids().map(str::to_string).collect(),
            calls: m.call_ids().map(str::to_string).collect(),
            assistant: m.role == Role::Assistant,
            reasoning: is_reasoning(m),
            needs_reasoning: m.needs_reasoning,
            system: m.role.is_system(),
        }
    }
}

/// The shapes of many messages, compactly: a byte of flags for every message, and the
/// ids of tool calls and results end to end in one text (360K messages of a 100M-token
/// session take a few MiB).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Shapes {
    flags: Vec<u8>,
    /// Every id, end to end.
    text: String,
    /// Where each id ends in `text`.
    ends: Vec<u32>,
    /// Messages with ids: (message index, index of its first id in `ends`, calls, results).
    ids: Vec<[u32; 4]>,
}

const USER_TURN: u8 = 1;
const ASSISTANT: u8 = 2;
const REASONING: u8 = 4;
const NEEDS_REASONING: u8 = 8;
const SYSTEM: u8 = 16;

impl Shapes {
    pub fn push(&mut self, s: Shape) {
        let flag = |on: bool, f: u8| if on { f } else { 0 };
        let flags = flag(s.user_turn, USER_TURN)
            | flag(s.assistant, ASSISTANT)
            | flag(s.reasoning, REASONING)
            | flag(s.needs_reasoning, NEEDS_REASONING)
            | flag(s.system, SYSTEM);
        self.push_flags(flags, &s.calls, &s.results);
    }

    /// Adds a message that is a user turn, a system message or neither, making and answering
    /// the tool calls of ids `calls` and `results` (and nothing else): what a session's
    /// digest keeps of it. A message that is none of these and answers no call is taken for
    /// the assistant's.
    pub fn push_turn(&mut self, user_turn: bool, system: bool, calls: &[&str], results: &[&str]) {
        let flags = if system {
            SYSTEM
        } else if user_turn {
            USER_TURN
        } else if results.is_empty() {
            ASSISTANT
        } else {
            0
        };
        self.push_flags(flags, calls, results);
    }

    fn push_flags<S: AsRef<str>>(&mut self, flags: u8, calls: &[S], results: &[S]) {
        let index = u32::try_from(self.flags.len()).unwrap_or(u32::MAX);
        self.flags.push(flags);
        if calls.is_empty() && results.is_empty() {
            return;
        }
        let first = u32::try_from(self.ends.len()).unwrap_or(u32::MAX);
        for id in calls.iter().chain(results) {
            self.text.push_str(id.as_ref());
            self.ends
                .push(u32::try_from(self.text.len()).unwrap_or(u32::MAX));
        }
        let n = |v: &[S]| u32::try_from(v.len()).unwrap_or(u32::MAX);
        self.ids.push([index, first, n(calls), n(results)]);
    }

    /// Adds the shapes of the messages after these.
    pub fn append(&mut self, other: Shapes) {
        let shift = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        let (messages, ids, text) = (
            shift(self.flags.len()),
            shift(self.ends.len()),
            shift(self.text.len()),
        );
        self.flags.extend(other.flags);
        self.text.push_str(&other.text);
        self.ends
            .extend(other.ends.into_iter().map(|e| e.saturating_add(text)));
        self.ids.extend(
            other
                .ids
                .into_iter()
                .map(|[i, f, c, r]| [i.saturating_add(messages), f.saturating_add(ids), c, r]),
        );
    }

    pub fn len(&self) -> usize {
        self.flags.len()
    }

    pub fn is_empty(&self) -> bool {
        self.flags.is_empty()
    }

    /// Id `k`.
    fn id(&self, k: usize) -> &str {
        let start = if k == 0 { 0 } else { self.ends[k - 1] as usize };
        &self.text[start..self.ends[k] as usize]
    }

    /// Each message's shape, for [`problems`].
    pub fn turns(&self) -> Vec<TurnRef<'_>> {
        let mut ids = self.ids.iter().enumerate().peekable();
        self.flags
            .iter()
            .enumerate()
            .map(|(i, &flags)| TurnRef {
                flags,
                shapes: self,
                entry: ids
                    .next_if(|(_, [at, ..])| *at as usize == i)
                    .map_or(u32::MAX, |(k, _)| u32::try_from(k).unwrap_or(u32::MAX)),
            })
            .collect()
    }
}

/// One message of [`Shapes`] (16 bytes).
#[derive(Debug, Clone, Copy)]
pub struct TurnRef<'a> {
    shapes: &'a Shapes,
    /// Its entry in `shapes.ids`, `u32::MAX` for none.
    entry: u32,
    flags: u8,
}

impl TurnRef<'_> {
    fn ids(&self, results: bool) -> impl Iterator<Item = &str> {
        let entry = self.shapes.ids.get(self.entry as usize).copied();
        let range = entry.map_or(0..0, |[_, first, calls, n]| {
            let first = first as usize;
            if results {
                first + calls as usize..first + calls as usize + n as usize
            } else {
                first..first + calls as usize
            }
        });
        range.map(|k| self.shapes.id(k))
    }
}

impl Turn for TurnRef<'_> {
    fn is_user_turn(&self) -> bool {
        self.flags & USER_TURN != 0
    }
    fn results(&self) -> impl Iterator<Item = &str> {
        self.ids(true)
    }
    fn calls(&self) -> impl Iterator<Item = &str> {
        self.ids(false)
    }
    fn is_assistant(&self) -> bool {
        self.flags & ASSISTANT != 0
    }
    fn is_reasoning(&self) -> bool {
        self.flags & REASONING != 0
    }
    fn is_system(&self) -> bool {
        self.flags & SYSTEM != 0
    }
    fn needs_reasoning(&self) -> bool {
        self.flags & NEEDS_REASONING != 0
    }
}

impl Turn for Shape {
    fn is_user_turn(&self) -> bool {
        self.user_turn
    }
    fn results(&self) -> impl Iterator<Item = &str> {
        self.results.iter().map(String::as_str)
    }
    fn calls(&self) -> impl Iterator<Item = &str> {
        self.calls.iter().map(String::as_str)
    }
    fn is_assistant(&self) -> bool {
        self.assistant
    }
    fn is_reasoning(&self) -> bool {
        self.reasoning
    }
    fn is_system(&self) -> bool {
        self.system
    }
    fn needs_reasoning(&self) -> bool {
        self.needs_reasoning
    }
}

/// Lists orphan results, unanswered calls, reasoning items without their following item
/// and calls without their reasoning item. A call still waiting for its result, or a
/// reasoning item for its output, at the very end of the session is not a fault.
pub fn problems<T: Turn>(messages: &[T]) -> Vec<Problem> {
    let mut out = reasoning_problems(messages);
    // Calls seen so far and not yet answered, in call order: (id, index of the calling
    // message); an answered call leaves a hole. `slots` finds an id's open calls, oldest
    // first, without scanning (a hostile file may hold many thousands of calls).
    let mut open: Vec<Option<(&str, usize)>> = Vec::new();
    let mut slots: FastMap<&str, VecDeque<usize>> = FastMap::default();
    let mut seen: FastSet<&str> = FastSet::default();
    for (i, m) in messages.iter().enumerate() {
        if m.is_user_turn() {
            for (call_id, index) in open.drain(..).flatten() {
                out.push(Problem::MissingResult {
                    index,
                    call_id: call_id.to_string(),
                });
            }
            slots.clear();
        }
        for id in m.results() {
            if let Some(slot) = slots.get_mut(id).and_then(VecDeque::pop_front) {
                open[slot] = None;
            } else if !seen.contains(id) {
                out.push(Problem::OrphanResult {
                    index: i,
                    call_id: id.to_string(),
                });
            }
        }
        for id in m.calls() {
            seen.insert(id);
            slots.entry(id).or_default().push_back(open.len());
            open.push(Some((id, i)));
        }
    }
    out.sort_by_key(Problem::index);
    out
}

/// Reasoning items not followed by an assistant item, and calls that need a reasoning item
/// with none among the assistant items before them.
fn reasoning_problems<T: Turn>(messages: &[T]) -> Vec<Problem> {
    let mut out = Vec::new();
    // Whether the current run of assistant items holds a reasoning item.
    let mut reasoned = false;
    for (i, m) in messages.iter().enumerate() {
        if !m.is_assistant() {
            reasoned = false;
            continue;
        }
        if m.is_reasoning() {
            reasoned = true;
            let next = messages.get(i + 1);
            if next.is_some_and(|n| !n.is_assistant()) {
                out.push(Problem::LoneReasoning { index: i });
            }
        }
        if m.needs_reasoning() && !reasoned {
            for id in m.calls() {
                out.push(Problem::MissingReasoning {
                    index: i,
                    call_id: id.to_string(),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{Origin, Part, Role};

    fn user(t: &str) -> Message {
        Message::new(Role::User, vec![Part::Text(t.into())], Origin::Record(0))
    }
    fn call(ids: &[&str]) -> Message {
        let parts = ids
            .iter()
            .map(|id| Part::ToolCall {
                id: id.to_string(),
                name: "f".into(),
                arguments: "{}".into(),
            })
            .collect();
        Message::new(Role::Assistant, parts, Origin::Record(0))
    }
    fn result(id: &str) -> Message {
        let part = Part::ToolResult {
            call_id: id.into(),
            content: vec![Part::Text("ok".into())],
            is_error: false,
        };
        Message::new(Role::Tool, vec![part], Origin::Record(0))
    }

    fn reasoning() -> Message {
        let parts = vec![
            Part::Thinking("plan".into()),
            Part::Opaque {
                kind: "encrypted_content".into(),
                bytes: 8,
                tokens: None,
            },
        ];
        Message::new(Role::Assistant, parts, Origin::Record(0))
    }

    #[test]
    fn reasoning_goes_with_the_items_of_its_response() {
        let text = Message::new(
            Role::Assistant,
            vec![Part::Text("ok".into())],
            Origin::Record(0),
        );
        let msgs = vec![
            user("a"),
            reasoning(),
            text.clone(),
            call(&["1"]),
            result("1"),
            reasoning(),
            text,
            user("b"),
        ];
        assert_eq!(units(&msgs), vec![0..1, 1..5, 5..7, 7..8]);
        assert!(problems(&msgs).is_empty());
    }

    #[test]
    fn lone_reasoning_and_calls_without_theirs_are_problems() {
        let mut needy = call(&["1"]);
        needy.needs_reasoning = true;
        let msgs = vec![
            user("a"),
            reasoning(),
            user("b"),
            needy.clone(),
            result("1"),
        ];
        assert_eq!(
            problems(&msgs),
            vec![
                Problem::LoneReasoning { index: 1 },
                Problem::MissingReasoning {
                    index: 3,
                    call_id: "1".into()
                }
            ]
        );
        // With its reasoning item before it, and a reasoning item still waiting for its
        // output at the very end, nothing is wrong.
        let msgs = vec![user("a"), reasoning(), needy, result("1"), reasoning()];
        assert!(problems(&msgs).is_empty());
        let shapes: Vec<Shape> = msgs.iter().map(Shape::of).collect();
        assert!(problems(&shapes).is_empty());
    }

    #[test]
    fn calls_and_results_form_one_unit() {
        let msgs = vec![
            user("a"),
            call(&["1", "2"]),
            result("1"),
            result("2"),
            user("b"),
        ];
        assert_eq!(units(&msgs), vec![0..1, 1..4, 4..5]);
        assert!(problems(&msgs).is_empty());
    }

    #[test]
    fn unanswered_call_at_the_end_is_fine_but_not_before_a_user_turn() {
        let msgs = vec![user("a"), call(&["1"])];
        assert!(problems(&msgs).is_empty());
        let msgs = vec![user("a"), call(&["1"]), user("b")];
        assert_eq!(
            problems(&msgs),
            vec![Problem::MissingResult {
                index: 1,
                call_id: "1".into()
            }]
        );
    }

    #[test]
    fn orphan_results_are_reported() {
        let msgs = vec![user("a"), result("9")];
        assert_eq!(
            problems(&msgs),
            vec![Problem::OrphanResult {
                index: 1,
                call_id: "9".into()
            }]
        );
        assert_eq!(units(&msgs), vec![0..1, 1..2]);
    }

    /// The straightforward quadratic algorithm `problems` replaced (found by a hostile file
    /// with 50,000 parallel calls, answered in reverse order: `check` took 24 s).
    fn problems_by_scanning(messages: &[Message]) -> Vec<Problem> {
        let mut out = Vec::new();
        let mut open: Vec<(String, usize)> = Vec::new();
        let mut seen: Vec<&str> = Vec::new();
        for (i, m) in messages.iter().enumerate() {
            if m.role == Role::User && !m.has_tool_results() && !m.parts.is_empty() {
                for (call_id, index) in open.drain(..) {
                    out.push(Problem::MissingResult { index, call_id });
                }
            }
            for id in m.result_ids() {
                if let Some(pos) = open.iter().position(|(c, _)| c == id) {
                    open.remove(pos);
                } else if !seen.contains(&id) {
                    out.push(Problem::OrphanResult {
                        index: i,
                        call_id: id.to_string(),
                    });
                }
            }
            for id in m.call_ids() {
                seen.push(id);
                open.push((id.to_string(), i));
            }
        }
        out.sort_by_key(Problem::index);
        out
    }

    #[test]
    fn problems_match_a_plain_scan_with_repeated_ids() {
        let sessions = [
            vec![call(&["1", "1", "2"]), result("1"), user("x"), result("1")],
            vec![
                call(&["1"]),
                call(&["1"]),
                result("1"),
                result("2"),
                user("y"),
            ],
            vec![
                result("3"),
                call(&["3", "4"]),
                result("4"),
                result("4"),
                user("z"),
            ],
            vec![
                call(&["a", "b"]),
                user("u"),
                call(&["b"]),
                result("b"),
                result("a"),
            ],
        ];
        for msgs in sessions {
            assert_eq!(problems(&msgs), problems_by_scanning(&msgs), "{msgs:?}");
        }
    }

    #[test]
    fn many_calls_answered_in_reverse() {
        let ids: Vec<String> = (0..20_000).map(|i| format!("c{i}")).collect();
        let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
        let mut msgs = vec![user("go"), call(&refs)];
        msgs.extend(ids.iter().rev().skip(1).map(|id| result(id)));
        msgs.push(user("next"));
        assert_eq!(
            problems(&msgs),
            vec![Problem::MissingResult {
                index: 1,
                call_id: "c19999".into()
            }]
        );
    }

    #[test]
    fn reused_call_ids_pair_with_the_next_result() {
        let msgs = vec![
            call(&["x"]),
            result("x"),
            user("a"),
            call(&["x"]),
            result("x"),
        ];
        assert_eq!(units(&msgs), vec![0..2, 2..3, 3..5]);
        assert!(problems(&msgs).is_empty());
    }

    #[test]
    fn units_cover_everything_in_order() {
        let msgs = vec![
            call(&["1"]),
            user("x"),
            result("1"),
            call(&["2"]),
            result("2"),
        ];
        assert_eq!(units(&msgs), vec![0..3, 3..5]);
        assert!(units(&[]).is_empty());
    }

    #[test]
    fn compact_shapes_pair_as_shapes_do() {
        let shape = |user_turn: bool, calls: &[&str], results: &[&str]| Shape {
            user_turn,
            calls: calls.iter().map(|s| s.to_string()).collect(),
            results: results.iter().map(|s| s.to_string()).collect(),
            assistant: !calls.is_empty(),
            reasoning: false,
            needs_reasoning: false,
            system: false,
        };
        let all = vec![
            shape(true, &[], &[]),
            shape(false, &["a", "bb"], &[]),
            shape(false, &[], &["bb", "zz"]),
            shape(false, &["c"], &["a"]),
            shape(true, &[], &[]),
        ];
        let (mut one, mut two) = (Shapes::default(), Shapes::default());
        for (i, s) in all.iter().enumerate() {
            if i < 2 { &mut one } else { &mut two }.push(s.clone());
        }
        one.append(two);
        let turns = one.turns();
        assert_eq!(turns.len(), all.len());
        for (t, s) in turns.iter().zip(&all) {
            assert_eq!(t.calls().collect::<Vec<_>>(), s.calls().collect::<Vec<_>>());
            assert_eq!(
                t.results().collect::<Vec<_>>(),
                s.results().collect::<Vec<_>>()
            );
            assert_eq!(t.is_user_turn(), s.user_turn);
        }
        assert_eq!(problems(&turns), problems(&all));
        assert!(!problems(&all).is_empty());
    }
}
