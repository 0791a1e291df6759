//! Counting a transcript's messages as they are read ([`Codec::read_counting`]
//! (crate::formats::Codec::read_counting)): each message is given to the count as soon as
//! it is whole, so that a rewrite that plans by counts (a fifo trim, a restore) never
//! holds every message's text at once beside the file's.
//!
//! A message is whole once the last live record of its API response (its `message.id`)
//! has been read: the records of one response may be interleaved with others (parallel
//! tool results), so the last of each id is found first, from the records' heads.

use std::collections::HashMap;

use super::Transcript;
use crate::formats::Counting;
use crate::session::Message;

/// Which messages are counted, and their counts.
pub struct Counted<'t> {
    count: Counting<'t>,
    /// The last position in the live order of each `message.id` of a user or assistant
    /// record.
    last: HashMap<&'t str, usize>,
    counts: Vec<Option<usize>>,
}

impl<'t> Counted<'t> {
    pub fn new(t: &'t Transcript, count: Counting<'t>) -> Counted<'t> {
        let mut last = HashMap::new();
        for (pos, &i) in t.order.iter().enumerate() {
            let head = &t.recs[i];
            if matches!(head.ty(), "user" | "assistant") {
                if let Some(id) = head.message_id() {
                    last.insert(id, pos);
                }
            }
        }
        Counted {
            count,
            last,
            counts: Vec::new(),
        }
    }

    /// Counts message `m` of `msgs` if the record at position `pos` of the live order,
    /// one of its records with message id `id`, was its last.
    pub fn after(
        &mut self,
        pos: usize,
        id: Option<&str>,
        msgs: &mut [(Message, Vec<usize>)],
        m: usize,
    ) {
        let whole = id
            .and_then(|id| self.last.get(id))
            .is_none_or(|&l| l <= pos);
        if whole {
            self.count(msgs, m);
        }
    }

    fn count(&mut self, msgs: &mut [(Message, Vec<usize>)], m: usize) {
        if self.counts.len() <= m {
            self.counts.resize(m + 1, None);
        }
        if self.counts[m].is_none() {
            self.counts[m] = Some((self.count)(m, &mut msgs[m].0));
        }
    }

    /// The counts of all messages, those not counted yet (whose last record was not a
    /// message's) counted now.
    pub fn finish(mut self, msgs: &mut [(Message, Vec<usize>)]) -> Vec<usize> {
        for m in 0..msgs.len() {
            self.count(msgs, m);
        }
        self.counts
            .into_iter()
            .map(Option::unwrap_or_default)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use crate::session::Message;

    #[test]
    fn each_message_is_counted_once_when_whole() {
        // One response split over three records, a tool result between two of them, an
        // API error sharing nothing, an attachment.
        let text = [
            r#"{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}"#,
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"c1","name":"x","input":{}}]}}"#,
            r#"{"type":"user","uuid":"r1","parentUuid":"a1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"one"}]}}"#,
            r#"{"type":"assistant","uuid":"a2","parentUuid":"r1","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"c2","name":"x","input":{}}]}}"#,
            r#"{"type":"user","uuid":"r2","parentUuid":"a2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c2","content":"two"}]}}"#,
            r#"{"type":"attachment","uuid":"t1","parentUuid":"r2","attachment":{"type":"task_reminder","content":[],"itemCount":0}}"#,
            r#"{"type":"assistant","uuid":"e1","parentUuid":"t1","isApiErrorMessage":true,"message":{"id":"e","role":"assistant","content":[{"type":"text","text":"API Error"}]}}"#,
            r#"{"type":"assistant","uuid":"a3","parentUuid":"e1","message":{"id":"n","role":"assistant","content":"done"}}"#,
        ]
        .join("\n");
        let whole = super::super::read(text.clone()).unwrap();
        let calls = Mutex::new(Vec::new());
        let count = |place: usize, m: &mut Message| {
            calls.lock().unwrap().push(place);
            let n = m.parts.len();
            m.release_text();
            n
        };
        let (session, counts) = super::super::read_counted(text.into(), Some(&count)).unwrap();
        let parts: Vec<usize> = whole.messages.iter().map(|m| m.parts.len()).collect();
        assert_eq!(counts, Some(parts));
        assert_eq!(session.messages.len(), whole.messages.len());
        // The split response is counted after its last record, past the first result.
        let mut calls = calls.into_inner().unwrap();
        assert_eq!(calls, vec![0, 2, 1, 3, 4, 5]);
        calls.sort_unstable();
        calls.dedup();
        assert_eq!(calls.len(), whole.messages.len());
        let roles =
            |s: &crate::session::Session| s.messages.iter().map(|m| m.role).collect::<Vec<_>>();
        assert_eq!(roles(&session), roles(&whole));
    }
}
