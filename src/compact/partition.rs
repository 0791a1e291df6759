//! Choosing what a compaction keeps and what it summarizes.
//!
//! A session is split into three consecutive ranges: the head (leading system messages,
//! kept), the middle (summarized and archived) and the tail (recent messages, kept). The
//! cut between middle and tail never separates a tool call from its result.

use std::ops::Range;

use crate::session::{pairs, Message, Part, Session};

/// Head, middle and tail of a session, as consecutive index ranges covering every message.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Partition {
    /// The leading instructions, kept.
    pub head: Range<usize>,
    /// What the summary replaces (but for [`Partition::kept`]).
    pub middle: Range<usize>,
    /// The recent messages, kept.
    pub tail: Range<usize>,
    /// Messages of the middle kept verbatim, in order: pinned ones (`"_preserve": true`)
    /// with their tool partners. The summary goes around them.
    pub kept: Vec<usize>,
    /// What the session does after the cut, for the summary message's last words.
    pub continuation: Continuation,
}

/// How the conversation goes on after a compaction, judged from where the cut falls: the
/// summary message tells the model what to do next, as agents' own compactions do.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Continuation {
    /// The tail starts with a request of the user: the conversation goes on from there.
    #[default]
    Conversation,
    /// The cut falls inside the assistant's work on a request (a tool loop) that has not
    /// ended: carry on without asking the user again.
    ToolLoop,
    /// The session ends with the assistant's finished answer: compacted between turns (by
    /// hand, as `/compact` does); the next message will be the user's.
    Manual,
}

impl Continuation {
    /// The continuation of `msgs` cut at `cut`.
    pub fn at(msgs: &[Message], cut: usize) -> Continuation {
        Continuation::ending(msgs, cut, msgs.last().is_some_and(Continuation::finishes))
    }

    /// Whether `m` is the assistant's finished answer: words and no tool call. Asked of
    /// every message of a large session as it is read: its text is looked at, not copied.
    pub fn finishes(m: &Message) -> bool {
        m.role == crate::session::Role::Assistant
            && m.call_ids().next().is_none()
            && m.parts.iter().any(has_words)
    }

    /// [`Continuation::at`], `finished` telling whether the last message
    /// [`finishes`](Continuation::finishes) (its text may be gone).
    fn ending(msgs: &[Message], cut: usize, finished: bool) -> Continuation {
        if finished {
            Continuation::Manual
        } else if msgs.get(cut).is_some_and(Message::is_user_request) {
            Continuation::Conversation
        } else {
            Continuation::ToolLoop
        }
    }
}

/// Whether `p`'s text ([`Part::text`]) is not blank.
fn has_words(p: &Part) -> bool {
    match p {
        Part::Text(t) | Part::Thinking(t) => !t.trim().is_empty(),
        // `name(arguments)`.
        Part::ToolCall { .. } => true,
        Part::ToolResult { content, .. } => content.iter().any(has_words),
        Part::Opaque { .. } | Part::Image { .. } | Part::Other { .. } => false,
    }
}

impl Partition {
    /// Whether there is something to summarize.
    pub fn has_middle(&self) -> bool {
        self.summarized().next().is_some()
    }

    /// The messages of the middle the summary replaces, in order.
    pub fn summarized(&self) -> impl Iterator<Item = usize> + '_ {
        self.middle
            .clone()
            .filter(|i| self.kept.binary_search(i).is_err())
    }
}

/// Splits `session` for compaction. `counts` are the per-message token counts
/// (`Counter::messages`) and `tail_budget` the tokens the tail should reach.
///
/// - head: the leading instructions: system/developer messages (Anthropic's `system`
///   field included) and context the agent injected ([`Message::is_instructions`]);
/// - tail: whole messages scanned back from the end until their tokens reach the budget,
///   the message crossing it kept whole; at least one message, so a single message is a
///   tail and never summarized;
/// - the cut is moved earlier so no tool call is separated from its result (later if that
///   would leave nothing to summarize), then to a user turn when one is near: earlier if the
///   tail stays within twice the budget, else later if it keeps half of it;
/// - a middle holding nothing but earlier summaries is left alone (compacting twice in a row
///   changes nothing), and so is an empty one: `has_middle()` is then false.
pub fn partition(session: &Session, counts: &[usize], tail_budget: usize) -> Partition {
    let finished = session.messages.last().is_some_and(Continuation::finishes);
    partition_ending(session, counts, tail_budget, finished)
}

/// [`partition`] of a session whose messages' text may be gone: `finished` tells whether
/// its last message [`finishes`](Continuation::finishes) it, the one thing the partition
/// reads of the text.
pub fn partition_ending(
    session: &Session,
    counts: &[usize],
    tail_budget: usize,
    finished: bool,
) -> Partition {
    let msgs = &session.messages;
    let n = msgs.len();
    let count = |i: usize| counts.get(i).copied().unwrap_or(0);
    let head_end = msgs.iter().take_while(|m| m.is_instructions()).count();
    let nothing = |head_end: usize| Partition {
        head: 0..head_end,
        middle: head_end..head_end,
        tail: head_end..n,
        kept: Vec::new(),
        continuation: Continuation::ending(msgs, head_end, finished),
    };
    if n - head_end < 2 {
        return nothing(head_end);
    }

    // Scan back whole messages until the budget is reached (at least one message).
    let mut cut = n;
    let mut acc = 0;
    while cut > head_end {
        cut -= 1;
        acc += count(cut);
        if acc >= tail_budget {
            break;
        }
    }

    if cut == head_end {
        // The budget covers everything after the head.
        return nothing(head_end);
    }

    // Safe points: starts of pairing units inside the non-head part.
    let units = pairs::units(msgs);
    let boundaries: Vec<usize> = units
        .iter()
        .map(|u| u.start)
        .filter(|&b| b > head_end && b < n)
        .collect();
    cut = match boundaries.iter().rposition(|&b| b <= cut) {
        Some(k) => boundaries[k],
        // The whole non-head part is one unit or the cut is inside the first one: take the
        // first safe point after it, if any.
        None => match boundaries.first() {
            Some(&b) => b,
            None => return nothing(head_end),
        },
    };

    cut = prefer_user_turn(msgs, &boundaries, cut, counts, tail_budget);

    let middle = head_end..cut;
    let kept = kept_in(&units, msgs, &middle);
    let p = Partition {
        head: 0..head_end,
        middle,
        tail: cut..n,
        kept,
        continuation: Continuation::ending(msgs, cut, finished),
    };
    if p.summarized().all(|i| msgs[i].compact.is_some()) {
        return nothing(head_end);
    }
    p
}

/// The messages of `middle` kept verbatim: every pairing unit holding a pinned message.
fn kept_in(units: &[Range<usize>], msgs: &[Message], middle: &Range<usize>) -> Vec<usize> {
    units
        .iter()
        .filter(|u| u.start >= middle.start && u.end <= middle.end)
        .filter(|u| msgs[(*u).clone()].iter().any(|m| m.pinned))
        .flat_map(|u| u.clone())
        .collect()
}

/// Moves `cut` (a safe point) to the nearest safe point starting a user turn, when that
/// keeps the tail between half and twice the budget.
fn prefer_user_turn(
    msgs: &[Message],
    boundaries: &[usize],
    cut: usize,
    counts: &[usize],
    budget: usize,
) -> usize {
    if msgs[cut].is_user_request() {
        return cut;
    }
    // Tokens from each index to the end.
    let mut suffix = vec![0; msgs.len() + 1];
    for i in (0..msgs.len()).rev() {
        suffix[i] = suffix[i + 1] + counts.get(i).copied().unwrap_or(0);
    }
    let tail_tokens = |from: usize| suffix[from];
    let earlier = boundaries
        .iter()
        .rev()
        .filter(|&&b| b < cut)
        .take_while(|&&b| tail_tokens(b) <= budget.saturating_mul(2))
        .find(|&&b| msgs[b].is_user_request());
    if let Some(&b) = earlier {
        return b;
    }
    let later = boundaries
        .iter()
        .filter(|&&b| b > cut)
        .take_while(|&&b| tail_tokens(b) >= budget / 2)
        .find(|&&b| msgs[b].is_user_request());
    later.copied().unwrap_or(cut)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{CompactMeta, Document, Format, LinesDoc, Origin, Part, Role};

    fn msg(role: Role, text: &str) -> Message {
        Message::new(role, vec![Part::Text(text.into())], Origin::Record(0))
    }
    fn call(id: &str) -> Message {
        let p = Part::ToolCall {
            id: id.into(),
            name: "f".into(),
            arguments: "{}".into(),
        };
        Message::new(Role::Assistant, vec![p], Origin::Record(0))
    }
    fn result(id: &str) -> Message {
        let p = Part::ToolResult {
            call_id: id.into(),
            content: vec![Part::Text("ok".into())],
            is_error: false,
        };
        Message::new(Role::Tool, vec![p], Origin::Record(0))
    }
    fn session(messages: Vec<Message>) -> Session {
        Session {
            format: Format::Jsonl,
            doc: Document::Lines(LinesDoc::new(String::new())),
            messages,
            model: None,
            warnings: Vec::new(),
            reported_usage: None,
            agent_limits: Default::default(),
            request_extra: None,
            resume: None,
            skipped: false,
        }
    }
    fn split(s: &Session, counts: &[usize], budget: usize) -> (Range<usize>, Range<usize>) {
        let p = partition(s, counts, budget);
        assert_eq!(p.head.end, p.middle.start);
        assert_eq!(p.middle.end, p.tail.start);
        assert_eq!(p.tail.end, s.messages.len());
        (p.head, p.middle)
    }

    #[test]
    fn head_is_leading_system_messages_and_tail_reaches_the_budget() {
        use Role::*;
        let s = session(vec![
            msg(System, "s"),
            msg(Developer, "d"),
            msg(User, "u1"),
            msg(Assistant, "a1"),
            msg(User, "u2"),
            msg(Assistant, "a2"),
            msg(User, "u3"),
            msg(Assistant, "a3"),
        ]);
        let counts = [5, 5, 10, 10, 10, 10, 10, 10];
        // 20 tokens: u3+a3 reach it exactly; the tail starts at a user turn.
        assert_eq!(split(&s, &counts, 20), (0..2, 2..6));
        // 25 tokens: a2 crosses the budget and is kept whole; u2 is within twice the budget.
        assert_eq!(split(&s, &counts, 25), (0..2, 2..4));
    }

    #[test]
    fn a_system_message_later_on_is_not_head() {
        use Role::*;
        let s = session(vec![
            msg(User, "u"),
            msg(System, "s"),
            msg(Assistant, "a"),
            msg(User, "u2"),
        ]);
        let (head, middle) = split(&s, &[1, 1, 1, 1], 1);
        assert_eq!(head, 0..0);
        assert_eq!(middle, 0..3);
    }

    #[test]
    fn the_cut_never_separates_a_call_from_its_result() {
        use Role::*;
        let s = session(vec![
            msg(User, "u1"),
            msg(Assistant, "a1"),
            call("c1"),
            result("c1"),
            msg(Assistant, "a2"),
        ]);
        // Budget reached at the result (index 3): the cut moves back to the call.
        // No user turn follows, and u1 (index 0) would leave nothing to summarize.
        let (_, middle) = split(&s, &[10, 10, 10, 10, 10], 20);
        assert_eq!(middle, 0..2);
    }

    #[test]
    fn a_cut_inside_the_first_unit_moves_later() {
        use Role::*;
        let s = session(vec![
            call("c1"),
            msg(Assistant, "between"),
            result("c1"),
            msg(Assistant, "done"),
        ]);
        // The budget is reached inside 0..3, which starts at the head: moving the cut
        // earlier would leave nothing to summarize, so it moves after the result.
        let (_, middle) = split(&s, &[1, 1, 1, 1], 3);
        assert_eq!(middle, 0..3);
        // One unit spanning everything after the head leaves no safe point.
        let s = session(vec![call("c"), msg(Assistant, "x"), result("c")]);
        let p = partition(&s, &[1, 1, 1], 1);
        assert!(!p.has_middle());
        assert_eq!(p.tail, 0..3);
    }

    #[test]
    fn prefers_a_tail_starting_with_a_user_turn_later_when_earlier_is_too_far() {
        use Role::*;
        let s = session(vec![
            msg(User, "u1"),
            msg(Assistant, "big"),
            msg(Assistant, "a"),
            msg(User, "u2"),
            msg(Assistant, "b"),
        ]);
        // Cut at index 2 (10+10+10 ≥ 25); u1 is too far back (130 > 50), u2 keeps 20 ≥ 12.
        let (_, middle) = split(&s, &[10, 100, 10, 10, 10], 25);
        assert_eq!(middle, 0..3);
    }

    #[test]
    fn pinned_messages_of_the_middle_are_kept_with_their_tool_partners() {
        use Role::*;
        let mut pinned_result = result("c1");
        pinned_result.pinned = true;
        let mut pinned = msg(User, "remember: port 8080");
        pinned.pinned = true;
        let s = session(vec![
            msg(User, "u1"),
            call("c1"),
            pinned_result,
            msg(Assistant, "a1"),
            pinned,
            msg(User, "u2"),
            msg(Assistant, "a2"),
        ]);
        let p = partition(&s, &[10; 7], 20);
        assert_eq!((p.middle.clone(), p.tail.clone()), (0..5, 5..7));
        assert_eq!(p.kept, [1, 2, 4]);
        assert_eq!(p.summarized().collect::<Vec<_>>(), [0, 3]);
        // A middle of nothing but pinned messages has nothing to summarize.
        let mut only = msg(User, "keep");
        only.pinned = true;
        let s = session(vec![only, msg(User, "u2"), msg(Assistant, "a2")]);
        assert!(!partition(&s, &[10; 3], 20).has_middle());
    }

    #[test]
    fn the_continuation_follows_from_the_cut() {
        use Role::*;
        let msgs = vec![msg(User, "u1"), call("c1"), result("c1"), msg(User, "u2")];
        assert_eq!(Continuation::at(&msgs, 3), Continuation::Conversation);
        assert_eq!(Continuation::at(&msgs[..3], 1), Continuation::ToolLoop);
        let done = vec![
            msg(User, "u1"),
            call("c1"),
            result("c1"),
            msg(Assistant, "done"),
        ];
        assert_eq!(Continuation::at(&done, 1), Continuation::Manual);
    }

    /// A finished answer has words as its text has them, without the text being joined.
    #[test]
    fn a_finished_answer_is_told_by_its_words() {
        let text = |t: &str| Part::Text(t.into());
        let result = |content| Part::ToolResult {
            call_id: "c".into(),
            content,
            is_error: false,
        };
        let image = Part::Image { media_type: None };
        let cases = [
            vec![text("done")],
            vec![text(" \n\t ")],
            vec![text(""), text("  ")],
            vec![Part::Thinking("hmm".into())],
            vec![Part::Thinking(" ".into()), image.clone()],
            vec![image],
            vec![result(vec![text(" ")])],
            vec![result(vec![text(""), text("ok")])],
            vec![],
        ];
        for parts in cases {
            let m = Message::new(Role::Assistant, parts, Origin::Record(0));
            let joined = !m.text().trim().is_empty();
            assert_eq!(Continuation::finishes(&m), joined, "{:?}", m.parts);
        }
        assert!(!Continuation::finishes(&msg(Role::User, "done")));
        assert!(!Continuation::finishes(&call("c1")));
    }

    #[test]
    fn nothing_to_compact() {
        use Role::*;
        // Empty, one message, only system messages, all under budget.
        for (msgs, budget) in [
            (vec![], 10),
            (vec![msg(User, "u")], 0),
            (vec![msg(System, "s"), msg(System, "t")], 0),
            (vec![msg(User, "u"), msg(Assistant, "a")], 1000),
        ] {
            let n = msgs.len();
            let s = session(msgs);
            let p = partition(&s, &vec![5; n], budget);
            assert!(!p.has_middle(), "{p:?}");
            assert_eq!(p.tail.end, n);
        }
    }

    #[test]
    fn a_middle_of_only_earlier_summaries_is_left_alone() {
        use Role::*;
        let mut summary = msg(User, "summary");
        summary.compact = Some(Box::new(CompactMeta {
            id: Some("x".into()),
            seq: Some(1),
            timestamp: None,
            by: "ctxctl",
        }));
        let s = session(vec![
            msg(System, "s"),
            summary,
            msg(User, "u"),
            msg(Assistant, "a"),
        ]);
        let p = partition(&s, &[1, 50, 10, 10], 20);
        assert!(!p.has_middle(), "{p:?}");
    }

    #[test]
    fn single_message_goes_to_the_tail_even_with_zero_budget() {
        let s = session(vec![msg(Role::User, "u"), msg(Role::Assistant, "a")]);
        let p = partition(&s, &[10, 10], 0);
        assert_eq!((p.middle, p.tail), (0..1, 1..2));
    }
}
