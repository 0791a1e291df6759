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
/// reads); only the latest and the latest that called tools keep the rest.
#[derive(Debug, Default)]
pub struct Reports {
    /// (request end, input) of every report, in order.
    points: Vec<(usize, u64)>,
    /// The latest report.
    last: Option<Point>,
    /// The latest report whose response called tools.
    last_calling: Option<Point>,
}

/// A report as [`Reports::finish`] gives it.
#[derive(Debug, Clone, Copy)]
struct Point {
    /// Its place in `points`.
    k: usize,
    /// The last message of its response.
    after: usize,
    output: u64,
    calls: bool,
}

impl Reports {
    /// Takes live message `l`, which made history messages `span`.
    pub fn take(&mut self, l: &Live, span: Option<(usize, usize)>) {
        if l.kind() != "gemini" || matches!(l.from, From::Checkpoint { .. }) {
            return;
        }
        let tokens = l.value.get("tokens");
        let n = |key: &str| tokens.and_then(|t| t.get(key)).and_then(Value::as_u64);
        let Some(input) = n("input").filter(|&i| i > 0) else {
            return;
        };
        let Some((start, after)) = span else {
            return;
        };
        let calls = l
            .value
            .get("toolCalls")
            .and_then(Value::as_array)
            .is_some_and(|c| !c.is_empty());
        let point = Point {
            k: self.points.len(),
            after,
            output: n("output").unwrap_or(0),
            calls,
        };
        self.points.push((start, input));
        self.last = Some(point);
        if calls {
            self.last_calling = Some(point);
        }
    }

    /// The latest report and the earlier ones.
    pub fn finish(self) -> Option<ReportedUsage> {
        let mut points = self.points;
        let mut chosen = self.last?;
        // A turn's final answer (no tool call) reports a larger input than the history
        // before it holds (by a third or more on real chats): a later request is better
        // predicted from the latest response that called tools, when there is one.
        if points.len() > 1 && !chosen.calls {
            if let Some(c) = self.last_calling {
                chosen = c;
            }
        }
        points.truncate(chosen.k + 1);
        let (end, input) = points.pop()?;
        Some(ReportedUsage {
            input_tokens: input,
            output_tokens: chosen.output,
            after_message: Some(chosen.after),
            request_end: Some(end),
            earlier: points,
            dropped: 0,
        })
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

    fn report(input: u64, calls: bool) -> Live {
        let mut value =
            serde_json::json!({"type": "gemini", "tokens": {"input": input, "output": input / 10}});
        if calls {
            value["toolCalls"] = serde_json::json!([{"id": "c"}]);
        }
        Live {
            value,
            from: From::Line(0),
        }
    }

    #[test]
    fn a_final_answer_gives_way_to_the_latest_report_that_called_tools() {
        let mut r = Reports::default();
        // (input, calls), its span (request end, last message of the response).
        for (k, (input, calls)) in [(100, true), (150, true), (200, false), (300, false)]
            .into_iter()
            .enumerate()
        {
            r.take(&report(input, calls), Some((2 * k, 2 * k + 1)));
        }
        let u = r.finish().unwrap();
        assert_eq!(
            (
                u.input_tokens,
                u.output_tokens,
                u.request_end,
                u.after_message
            ),
            (150, 15, Some(2), Some(3))
        );
        assert_eq!(u.earlier, [(0, 100)]);
        // Without a report that called tools, or when the latest did, the latest.
        let mut r = Reports::default();
        r.take(&report(100, false), Some((0, 1)));
        r.take(&report(200, false), Some((2, 3)));
        let u = r.finish().unwrap();
        assert_eq!((u.input_tokens, u.earlier), (200, vec![(0, 100)]));
        let mut r = Reports::default();
        r.take(&report(100, false), Some((0, 1)));
        r.take(&report(200, true), Some((2, 3)));
        assert_eq!(r.finish().unwrap().input_tokens, 200);
        assert!(Reports::default().finish().is_none());
    }
}
