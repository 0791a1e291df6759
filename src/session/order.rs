//! The Anthropic Messages API's ordering rules, which every session sent to it (Claude Code
//! transcripts, Anthropic request bodies) must keep besides the pairing of
//! [`pairs::problems`]: the API merges consecutive turns of one role (system messages, sent
//! by Claude Code under a beta, take no part), then wants the first turn from the user,
//! every tool result in the user turn right after the assistant turn that made its call, and
//! every call answered there. Claude Code sends its live thread as it is, so a rewrite that
//! broke one of these is refused with a 400 on every retry.

use super::pairs::{self, Problem, Turn};
use crate::session::Format;

/// Structural problems of `messages`, a session of `format`: [`pairs::problems`], and for
/// Anthropic-bound formats the API's ordering rules ([`anthropic`]), in message order.
pub fn problems<T: Turn>(format: Format, messages: &[T]) -> Vec<Problem> {
    let mut out = pairs::problems(messages);
    if format.anthropic_bound() {
        let more = anthropic(messages, &out);
        out.extend(more);
        out.sort_by_key(Problem::index);
    }
    out
}

/// One turn of the conversation after merging: its role and its messages' indices.
struct MergedTurn {
    assistant: bool,
    messages: Vec<usize>,
}

/// The Anthropic ordering faults of `messages` that `known` (the pairing problems) does
/// not already name. Calls still waiting for their results at the very end are no fault,
/// as for [`pairs::problems`].
pub fn anthropic<T: Turn>(messages: &[T], known: &[Problem]) -> Vec<Problem> {
    let mut turns: Vec<MergedTurn> = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        if m.is_system() {
            continue;
        }
        let assistant = m.is_assistant();
        match turns.last_mut() {
            Some(t) if t.assistant == assistant => t.messages.push(i),
            _ => turns.push(MergedTurn {
                assistant,
                messages: vec![i],
            }),
        }
    }
    let mut out = Vec::new();
    if let Some(first) = turns.first().filter(|t| t.assistant) {
        out.push(Problem::FirstNotUser {
            index: first.messages[0],
        });
    }
    let calls_of = |t: &MergedTurn| -> Vec<&str> {
        t.messages
            .iter()
            .flat_map(|&i| messages[i].calls())
            .collect()
    };
    let results_of = |t: &MergedTurn| -> Vec<&str> {
        t.messages
            .iter()
            .flat_map(|&i| messages[i].results())
            .collect()
    };
    for (k, t) in turns.iter().enumerate() {
        if t.assistant {
            let Some(next) = turns.get(k + 1) else {
                continue;
            };
            let answered = results_of(next);
            for &i in &t.messages {
                for id in messages[i].calls().filter(|id| !answered.contains(id)) {
                    let missing = Problem::MissingResult {
                        index: i,
                        call_id: id.to_string(),
                    };
                    if !known.contains(&missing) {
                        out.push(Problem::CallNotAnsweredNext {
                            index: i,
                            call_id: id.to_string(),
                        });
                    }
                }
            }
            continue;
        }
        let made = match k.checked_sub(1).map(|p| &turns[p]) {
            Some(prev) => calls_of(prev),
            None => Vec::new(),
        };
        for &i in &t.messages {
            for id in messages[i].results().filter(|id| !made.contains(id)) {
                let orphan = Problem::OrphanResult {
                    index: i,
                    call_id: id.to_string(),
                };
                if !known.contains(&orphan) {
                    out.push(Problem::ResultNotAfterCall {
                        index: i,
                        call_id: id.to_string(),
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{Message, Origin, Part, Role};

    fn msg(role: Role, parts: Vec<Part>) -> Message {
        Message::new(role, parts, Origin::Record(0))
    }
    fn text(role: Role, t: &str) -> Message {
        msg(role, vec![Part::Text(t.into())])
    }
    fn call(id: &str) -> Message {
        msg(
            Role::Assistant,
            vec![Part::ToolCall {
                id: id.into(),
                name: "Bash".into(),
                arguments: "{}".into(),
            }],
        )
    }
    fn result(id: &str) -> Message {
        msg(
            Role::User,
            vec![Part::ToolResult {
                call_id: id.into(),
                content: vec![Part::Text("ok".into())],
                is_error: false,
            }],
        )
    }
    fn names(format: Format, msgs: &[Message]) -> Vec<String> {
        problems(format, msgs)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn a_thread_that_starts_with_the_assistant_is_refused_by_anthropic_only() {
        let msgs = [
            text(Role::System, "attachment"),
            text(Role::Assistant, "All tests pass."),
            text(Role::User, "next"),
        ];
        assert_eq!(
            problems(Format::ClaudeCode, &msgs),
            [Problem::FirstNotUser { index: 1 }]
        );
        assert!(
            names(Format::Anthropic, &msgs)[0].contains("first message must use the \"user\" role")
        );
        assert!(problems(Format::OpenAi, &msgs).is_empty());
        assert!(problems(Format::Codex, &msgs).is_empty());
    }

    #[test]
    fn merged_turns_and_system_messages_between_are_fine() {
        let msgs = [
            text(Role::User, "a"),
            text(Role::User, "b"),
            call("t1"),
            text(Role::Assistant, "thinking aloud"),
            text(Role::System, "reminder"),
            result("t1"),
            text(Role::User, "more"),
            text(Role::Assistant, "done"),
        ];
        assert_eq!(problems(Format::ClaudeCode, &msgs), []);
    }

    #[test]
    fn a_result_must_follow_its_call_directly() {
        // The call was answered, then an assistant turn, then the same id answered again.
        let msgs = [
            text(Role::User, "a"),
            call("t1"),
            result("t1"),
            text(Role::Assistant, "x"),
            result("t1"),
        ];
        assert!(pairs::problems(&msgs).is_empty());
        assert_eq!(
            problems(Format::ClaudeCode, &msgs),
            [Problem::ResultNotAfterCall {
                index: 4,
                call_id: "t1".into()
            }]
        );
    }

    #[test]
    fn a_call_must_be_answered_in_the_next_turn() {
        let msgs = [
            text(Role::User, "a"),
            call("t1"),
            result("t9"),
            text(Role::Assistant, "x"),
            result("t1"),
        ];
        let got = problems(Format::Anthropic, &msgs);
        assert!(got.contains(&Problem::CallNotAnsweredNext {
            index: 1,
            call_id: "t1".into()
        }));
        // The orphan is named once, by the pairing rule.
        assert!(got.contains(&Problem::OrphanResult {
            index: 2,
            call_id: "t9".into()
        }));
        assert!(!got
            .iter()
            .any(|p| matches!(p, Problem::ResultNotAfterCall { index: 2, .. })));
    }

    #[test]
    fn calls_open_at_the_end_are_no_fault() {
        let msgs = [text(Role::User, "a"), call("t1")];
        assert_eq!(problems(Format::ClaudeCode, &msgs), []);
    }
}
