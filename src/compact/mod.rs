//! Compaction: keep the head (leading system messages) and a recent tail verbatim, replace
//! the middle with one summary message. Pure: the caller counts tokens, runs a
//! [`Summarizer`](crate::summarize::Summarizer), archives the originals and writes the
//! result.
//!
//! 1. [`partition`] chooses head, middle and tail;
//! 2. [`crate::session::previous_summaries`] finds earlier summaries in the middle to carry forward;
//! 3. [`assemble`] builds the write plan `[head…, summary, tail…]`.

mod assemble;
mod partition;

pub use assemble::{
    assemble, summary_message, summary_message_frame, summary_message_text, CompactInfo,
    SUMMARY_ROLE,
};
pub use partition::{partition, partition_ending, Continuation, Partition};

use crate::session::{Message, NewMessage, Origin, Part};
use crate::tokens::Counter;

/// Whether a session of `tokens` needs compacting: usage at or over `threshold` ×
/// `effective_limit` (exactly the threshold triggers). An empty session never does.
pub fn needs_compaction(tokens: usize, effective_limit: usize, threshold: f64) -> bool {
    if tokens == 0 {
        return false;
    }
    // Compare tokens / limit ≥ threshold without dividing by a zero limit.
    tokens as f64 >= threshold * effective_limit as f64
}

/// Tokens of the compacted session: head, kept middle messages and tail as counted, plus
/// the summary message and the reply priming.
pub fn compacted_tokens(
    counter: &Counter,
    counts: &[usize],
    partition: &Partition,
    summary: &NewMessage,
) -> usize {
    let message = Message::new(
        summary.role,
        vec![Part::Text(summary.text.clone())],
        Origin::Record(0),
    );
    compacted_tokens_with(counts, partition, counter.message(&message))
}

/// Tokens of the summary message of `summary` ([`summary_message`]), its text counted in
/// parts ([`Counter::text_wrapped`]): a summary fit to a cap was counted whole already.
pub fn summary_tokens(
    counter: &Counter,
    summary: &str,
    partition: &Partition,
    info: &CompactInfo,
) -> usize {
    let messages = partition.summarized().count();
    let (before, after) = summary_message_frame(messages, info, partition.continuation);
    let framing = Message::new(SUMMARY_ROLE, Vec::new(), Origin::Record(0));
    counter.message(&framing) + counter.text_wrapped(&before, summary, &after)
}

/// [`compacted_tokens`] with a summary message of `summary` tokens.
pub fn compacted_tokens_with(counts: &[usize], partition: &Partition, summary: usize) -> usize {
    let kept = partition
        .head
        .clone()
        .chain(partition.kept.iter().copied())
        .chain(partition.tail.clone())
        .filter_map(|i| counts.get(i).copied());
    let per: Vec<usize> = kept.chain([summary]).collect();
    Counter::total(&per)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::{Encoding, Tokenizer};

    #[test]
    fn threshold_is_inclusive_and_empty_never_triggers() {
        assert!(needs_compaction(80, 100, 0.8));
        assert!(!needs_compaction(79, 100, 0.8));
        assert!(needs_compaction(150, 100, 0.8));
        assert!(!needs_compaction(0, 100, 0.0));
        assert!(!needs_compaction(0, 0, 0.8));
        assert!(needs_compaction(1, 0, 0.8));
        // 94904 × 0.8 = 75923.2: 75923 is below, 75924 at/over.
        assert!(!needs_compaction(75_923, 94_904, 0.8));
        assert!(needs_compaction(75_924, 94_904, 0.8));
    }

    #[test]
    fn compacted_tokens_add_head_tail_summary_and_priming() {
        let counter = Counter::new(Tokenizer::new(Encoding::Approx).unwrap());
        let p = Partition {
            head: 0..1,
            middle: 1..3,
            tail: 3..4,
            ..Default::default()
        };
        let summary = NewMessage {
            role: crate::session::Role::User,
            text: "abcdefgh".into(), // 2 tokens + 3 framing + 1 for "user"
            meta: Default::default(),
        };
        let n = compacted_tokens(&counter, &[10, 100, 100, 20], &p, &summary);
        assert_eq!(n, 10 + 20 + 6 + crate::tokens::REPLY_PRIMING);
    }

    /// The summary message counted in parts is the message counted whole, for a summary
    /// fit to a cap (its count remembered) and one not, with and without an archive.
    #[test]
    fn the_summary_message_counts_the_same_in_parts() {
        let p = Partition {
            head: 0..1,
            middle: 1..5,
            tail: 5..6,
            ..Default::default()
        };
        let summary = "Offline summary of 4 earlier messages.\n\n## Requests\n1. Fix it.\n\n\
                       ## State at the cut\nLast words: done)\n/tmp/x\n";
        for archive in [
            None,
            Some("/home/u/.local/share/ctxctl/archives/s/1.json".into()),
        ] {
            let info = CompactInfo {
                id: "id".into(),
                timestamp: "2026-11-26T00:00:00Z".into(),
                seq: 1,
                archive,
            };
            for fitted in [false, true] {
                let counter = Counter::new(Tokenizer::new(Encoding::O200kBase).unwrap());
                if fitted {
                    assert!(counter.passes(summary, 10_000).is_none());
                }
                let whole = Message::new(
                    SUMMARY_ROLE,
                    vec![Part::Text(summary_message(summary, &p, &info).text)],
                    Origin::Record(0),
                );
                assert_eq!(
                    summary_tokens(&counter, summary, &p, &info),
                    counter.message(&whole)
                );
            }
        }
    }
}
