//! The usage Gemini CLI records: every `gemini` message carries the `tokens` its response
//! reported (`input` is the prompt, cached tokens included). The request that response
//! answered held every history message before the model turn it became.

use serde_json::Value;

use super::history::{Sent, Source};
use super::replay::{From, Live};
use crate::session::ReportedUsage;

/// The latest reported usage of the live list and the earlier ones (for calibration), or
/// `None` when no live `gemini` message records tokens. Messages restored from a
/// checkpoint (`$set.messages`, written by every resume and compression) carry the
/// tokens of a history that may since have been compressed: only messages recorded on
/// lines of their own count.
pub fn reported(live: &[Live], sent: &[Sent]) -> Option<ReportedUsage> {
    let spans = spans(live.len(), sent);
    let mut reports = Reports::default();
    for (l, span) in live.iter().zip(spans) {
        reports.take(l, span);
    }
    reports.finish()
}

/// The usage reports of the live list, taken a live message at a time (with the first
/// and last history messages made from it) by [`reported`] and by the streamed read.
/// Every report keeps 16 bytes (where its request ended and its input, what calibration
/// reads); only the latest keeps the rest.
///
/// A request that follows a response whose only tool calls were `update_topic` (Gemini
/// CLI's topic tool, which its scheduler runs alone, before any other call) reports an
/// input larger than the history it sent by about the thoughts of every earlier response
/// of the session that joined its history (`tokens.thoughts`); the requests after it do
/// not. On real chats this
/// is every turn's final answer, 5,000 to 40,000 tokens over the history. Such a report
/// is taken less those thoughts (what the history itself held), and when the live list
/// ends on such a response the next request is predicted with them (see
/// [`Reports::finish`]).
#[derive(Debug, Default)]
pub struct Reports {
    /// (request end, input) of every report, in order.
    points: Vec<(usize, u64)>,
    /// The latest report.
    last: Option<Point>,
    /// The thoughts of every response so far.
    thoughts: u64,
    /// Whether the latest response called tools and every call was `update_topic`.
    topic_only: bool,
}

/// The one tool whose call, alone, makes the next request carry the session's thoughts.
const TOPIC_TOOL: &str = "update_topic";

/// A report as [`Reports::finish`] gives it.
#[derive(Debug, Clone, Copy)]
struct Point {
    /// The last message of its response.
    after: usize,
    output: u64,
}

impl Reports {
    /// Takes live message `l`, which made history messages `span`.
    pub fn take(&mut self, l: &Live, span: Option<(usize, usize)>) {
        if l.kind() != "gemini" || matches!(l.from, From::Checkpoint { .. }) {
            return;
        }
        let tokens = l.value.get("tokens");
        let n = |key: &str| tokens.and_then(|t| t.get(key)).and_then(Value::as_u64);
        let carried = if self.topic_only { self.thoughts } else { 0 };
        let names: Vec<&str> = l
            .value
            .get("toolCalls")
            .and_then(Value::as_array)
            .map(|calls| {
                calls
                    .iter()
                    .map(|c| c.get("name").and_then(Value::as_str).unwrap_or(""))
                    .collect()
            })
            .unwrap_or_default();
        // A response with neither text nor a call (Gemini CLI retries one stopped by a
        // malformed function call) never joins the history, nor do its thoughts.
        if !names.is_empty() || has_text(l.value.get("content")) {
            self.thoughts += n("thoughts").unwrap_or(0);
        }
        self.topic_only = !names.is_empty() && names.iter().all(|&n| n == TOPIC_TOOL);
        let Some(input) = n("input").filter(|&i| i > 0) else {
            return;
        };
        let Some((start, after)) = span else {
            return;
        };
        self.points
            .push((start, input.saturating_sub(carried).max(1)));
        self.last = Some(Point {
            after,
            output: n("output").unwrap_or(0),
        });
    }

    /// The latest report and the earlier ones. When the live list ends on a response
    /// that only called `update_topic`, the next request carries the session's thoughts:
    /// they are part of what the report says the next request holds besides its messages.
    pub fn finish(self) -> Option<ReportedUsage> {
        let mut points = self.points;
        let chosen = self.last?;
        let (end, input) = points.pop()?;
        let pending = if self.topic_only { self.thoughts } else { 0 };
        Some(ReportedUsage {
            input_tokens: input + pending,
            output_tokens: chosen.output,
            after_message: Some(chosen.after),
            request_end: Some(end),
            earlier: points,
            dropped: 0,
        })
    }
}

/// Whether a message's `content` (a string, or a list of parts) holds any text.
fn has_text(content: Option<&Value>) -> bool {
    match content {
        Some(Value::String(s)) => !s.trim().is_empty(),
        Some(Value::Array(parts)) => parts.iter().any(|p| {
            p.get("text")
                .and_then(Value::as_str)
                .is_some_and(|t| !t.trim().is_empty())
        }),
        _ => false,
    }
}

/// For each of `n` live messages, the first and last history messages written back from it
/// (as itself or as its response turn): one pass over the history, so that a session of
/// 100,000 messages is not scanned once per message.
fn spans(n: usize, sent: &[Sent]) -> Vec<Option<(usize, usize)>> {
    let mut out = vec![None; n];
    for (i, s) in sent.iter().enumerate() {
        for src in &s.sources {
            let (Source::Record(k) | Source::Responses(k)) = *src;
            if let Some(slot) = out.get_mut(k) {
                slot.get_or_insert((i, i)).1 = i;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{Message, Origin, Role};

    fn sent(sources: Vec<Source>) -> Sent {
        Sent {
            message: Message::new(Role::User, Vec::new(), Origin::Record(0)),
            sources,
        }
    }

    #[test]
    fn spans_are_the_first_and_last_history_messages_of_each_live_one() {
        let history = [
            sent(vec![Source::Record(0)]),
            sent(vec![Source::Record(2), Source::Responses(0)]),
            sent(vec![Source::Responses(2)]),
            sent(vec![Source::Record(9)]),
        ];
        assert_eq!(
            spans(4, &history),
            vec![Some((0, 1)), None, Some((1, 2)), None]
        );
    }

    fn report(input: u64, thoughts: u64, calls: &[&str], content: &str) -> Live {
        let mut value = serde_json::json!({"type": "gemini", "content": content,
            "tokens": {"input": input, "output": input / 10, "thoughts": thoughts}});
        if !calls.is_empty() {
            let calls: Vec<Value> = calls
                .iter()
                .map(|n| serde_json::json!({"name": n}))
                .collect();
            value["toolCalls"] = Value::from(calls);
        }
        Live {
            value,
            from: From::Line(0),
        }
    }

    /// The reports `(input, thoughts, calls, content)`, one history message pair each.
    fn finish(reports: &[(u64, u64, &[&str], &str)]) -> ReportedUsage {
        let mut r = Reports::default();
        for (k, &(input, thoughts, calls, content)) in reports.iter().enumerate() {
            r.take(
                &report(input, thoughts, calls, content),
                Some((2 * k, 2 * k + 1)),
            );
        }
        r.finish().unwrap()
    }

    #[test]
    fn the_latest_report_is_the_prediction_base() {
        let u = finish(&[(100, 0, &["read_file"], "a"), (200, 0, &[], "b")]);
        assert_eq!(
            (
                u.input_tokens,
                u.output_tokens,
                u.request_end,
                u.after_message
            ),
            (200, 20, Some(2), Some(3))
        );
        assert_eq!(u.earlier, [(0, 100)]);
        assert!(Reports::default().finish().is_none());
    }

    #[test]
    fn a_request_after_a_topic_only_call_is_taken_less_the_sessions_thoughts() {
        // 300 + 200 thoughts before the topic-only response's successor; the empty
        // response (retried by Gemini CLI) never joined the history, nor its 1,000.
        let u = finish(&[
            (900, 1_000, &[], ""),
            (1_000, 300, &["read_file"], "reading"),
            (1_100, 200, &["update_topic"], "topic"),
            (1_700, 0, &[], "answer"),
        ]);
        assert_eq!(u.input_tokens, 1_200);
        assert_eq!(u.earlier, [(0, 900), (2, 1_000), (4, 1_100)]);
        // Ending on the topic-only response, the next request will carry them.
        let u = finish(&[
            (1_000, 300, &["read_file"], "reading"),
            (1_100, 200, &["update_topic", "update_topic"], "topic"),
        ]);
        assert_eq!(u.input_tokens, 1_600);
        // A topic call beside another tool is an ordinary request.
        let u = finish(&[
            (1_000, 300, &["update_topic", "read_file"], "both"),
            (1_500, 0, &[], "answer"),
        ]);
        assert_eq!(u.input_tokens, 1_500);
    }

    #[test]
    fn text_is_a_string_or_text_parts() {
        assert!(has_text(Some(&serde_json::json!("hi"))));
        assert!(has_text(Some(&serde_json::json!([{"text": "hi"}]))));
        assert!(!has_text(Some(&serde_json::json!(" "))));
        assert!(!has_text(Some(&serde_json::json!([{"functionCall": {}}]))));
        assert!(!has_text(None));
    }
}
