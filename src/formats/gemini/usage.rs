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
#[derive(Debug, Default)]
pub struct Reports {
    /// (request end, last message of the response, input, output, whether it called tools)
    points: Vec<(usize, usize, u64, u64, bool)>,
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
        (self.points).push((start, after, input, n("output").unwrap_or(0), calls));
    }

    /// The latest report and the earlier ones.
    pub fn finish(self) -> Option<ReportedUsage> {
        let mut points = self.points;
        // A turn's final answer (no tool call) reports a larger input than the history
        // before it holds (by a third or more on real chats): a later request is better
        // predicted from the latest response that called tools, when there is one.
        if points.len() > 1 && points.last().is_some_and(|p| !p.4) {
            if let Some(k) = points.iter().rposition(|p| p.4) {
                points.truncate(k + 1);
            }
        }
        let (end, after, input, output, _) = points.pop()?;
        Some(ReportedUsage {
            input_tokens: input,
            output_tokens: output,
            after_message: Some(after),
            request_end: Some(end),
            earlier: points.iter().map(|&(e, _, i, _, _)| (e, i)).collect(),
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
}
