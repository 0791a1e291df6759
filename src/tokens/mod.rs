//! Token counting: exact tiktoken encodings, two offline estimates, and the per-message
//! formula from OpenAI's cookbook ("How to count tokens with tiktoken").

mod cache;
mod encoding;

pub use cache::TextCache;
pub use encoding::{Encoding, EncodingError, Tokenizer};

use crate::session::{Message, Part, Session};

/// Tokens added to every message for its framing (`<|start|>{role}\n … <|end|>\n`).
pub const TOKENS_PER_MESSAGE: usize = 3;
/// Tokens added when a message has a `name`.
pub const TOKENS_PER_NAME: usize = 1;
/// Tokens that prime the reply (`<|start|>assistant<|message|>`), once per session.
pub const REPLY_PRIMING: usize = 3;
/// Structure overhead of each tool call (tiktoken-rs' `FUNCTION_CALL_OVERHEAD`).
pub const TOOL_CALL_OVERHEAD: usize = 1;
/// Fixed estimate for an image: OpenAI's cost of a 1024×1024 high-detail image (765).
pub const IMAGE_TOKENS: usize = 765;

/// Counts tokens of texts, messages and sessions with one tokenizer, remembering texts it
/// has seen (a system prompt repeated across files is counted once per run).
pub struct Counter {
    tokenizer: Tokenizer,
    cache: TextCache,
}

impl Counter {
    pub fn new(tokenizer: Tokenizer) -> Counter {
        Counter {
            tokenizer,
            cache: TextCache::default(),
        }
    }

    pub fn encoding(&self) -> Encoding {
        self.tokenizer.encoding()
    }

    /// Tokens of a plain text.
    pub fn text(&self, text: &str) -> usize {
        if text.is_empty() {
            return 0;
        }
        self.cache.get_or(text, || self.tokenizer.count(text))
    }

    /// Tokens of one message: framing, role, name and every part.
    pub fn message(&self, m: &Message) -> usize {
        let mut n = TOKENS_PER_MESSAGE + self.text(m.role.name());
        if let Some(name) = &m.name {
            n += self.text(name) + TOKENS_PER_NAME;
        }
        n + self.parts(&m.parts)
    }

    /// Tokens of message parts; tool results count their nested content.
    pub fn parts(&self, parts: &[Part]) -> usize {
        parts.iter().map(|p| self.part(p)).sum()
    }

    pub fn part(&self, p: &Part) -> usize {
        match p {
            Part::Text(t) | Part::Thinking(t) => self.text(t),
            Part::ToolCall {
                name, arguments, ..
            } => self.text(name) + self.text(arguments) + TOOL_CALL_OVERHEAD,
            Part::ToolResult { content, .. } => self.parts(content),
            Part::Opaque { bytes, .. } => bytes.div_ceil(4),
            Part::Image { .. } => IMAGE_TOKENS,
            Part::Other { .. } => 0,
        }
    }

    /// Per-message counts of a session, counted on every core for large sessions.
    pub fn messages(&self, session: &Session) -> Vec<usize> {
        let msgs = &session.messages;
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let bytes: usize = msgs.iter().map(approx_bytes).sum();
        if threads < 2 || bytes < PARALLEL_BYTES {
            return msgs.iter().map(|m| self.message(m)).collect();
        }
        // Split into chunks of about equal text size, one per thread.
        let target = bytes.div_ceil(threads);
        let mut chunks: Vec<&[Message]> = Vec::with_capacity(threads);
        let (mut start, mut acc) = (0, 0);
        for (i, m) in msgs.iter().enumerate() {
            acc += approx_bytes(m);
            if acc >= target && chunks.len() + 1 < threads {
                chunks.push(&msgs[start..=i]);
                start = i + 1;
                acc = 0;
            }
        }
        chunks.push(&msgs[start..]);
        std::thread::scope(|s| {
            let handles: Vec<_> = chunks
                .iter()
                .map(|chunk| {
                    s.spawn(move || chunk.iter().map(|m| self.message(m)).collect::<Vec<_>>())
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().expect("counting thread panicked"))
                .collect()
        })
    }

    /// The session's total: its messages plus the reply priming. An empty session is 0.
    pub fn total(per_message: &[usize]) -> usize {
        if per_message.is_empty() {
            0
        } else {
            per_message.iter().sum::<usize>() + REPLY_PRIMING
        }
    }
}

/// Below this much text, threads cost more than they save.
const PARALLEL_BYTES: usize = 256 * 1024;

fn approx_bytes(m: &Message) -> usize {
    fn part(p: &Part) -> usize {
        match p {
            Part::Text(t) | Part::Thinking(t) => t.len(),
            Part::ToolCall { arguments, .. } => arguments.len() + 16,
            Part::ToolResult { content, .. } => content.iter().map(part).sum(),
            _ => 16,
        }
    }
    16 + m.parts.iter().map(part).sum::<usize>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{Origin, Role};

    fn counter(e: Encoding) -> Counter {
        Counter::new(Tokenizer::new(e).unwrap())
    }

    #[test]
    fn cookbook_example_counts_match_the_api() {
        // The cookbook's six-message example: 129 prompt tokens on gpt-4 (cl100k_base) and
        // 124 on gpt-4o (o200k_base), verified there against the API.
        let text = [
            (Role::System, None, "You are a helpful, pattern-following assistant that translates corporate jargon into plain English."),
            (Role::System, Some("example_user"), "New synergies will help drive top-line growth."),
            (Role::System, Some("example_assistant"), "Things working well together will increase revenue."),
            (Role::System, Some("example_user"), "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage."),
            (Role::System, Some("example_assistant"), "Let's talk later when we're less busy about how to do better."),
            (Role::User, None, "This late pivot means we don't have time to boil the ocean for the client deliverable."),
        ];
        let msgs: Vec<Message> = text
            .iter()
            .map(|(role, name, t)| {
                let mut m = Message::new(*role, vec![Part::Text(t.to_string())], Origin::Record(0));
                m.name = name.map(str::to_string);
                m
            })
            .collect();
        for (enc, want) in [(Encoding::Cl100kBase, 129), (Encoding::O200kBase, 124)] {
            let c = counter(enc);
            let per: Vec<usize> = msgs.iter().map(|m| c.message(m)).collect();
            assert_eq!(Counter::total(&per), want, "{enc:?}");
        }
    }

    #[test]
    fn empty_session_is_zero() {
        assert_eq!(Counter::total(&[]), 0);
    }

    #[test]
    fn parts_are_counted() {
        let c = counter(Encoding::Approx);
        let call = Part::ToolCall {
            id: "x".into(),
            name: "abcd".into(),
            arguments: "abcdefgh".into(),
        };
        assert_eq!(c.part(&call), 1 + 2 + TOOL_CALL_OVERHEAD);
        let result = Part::ToolResult {
            call_id: "x".into(),
            content: vec![Part::Text("abcd".into()), Part::Image { media_type: None }],
            is_error: false,
        };
        assert_eq!(c.part(&result), 1 + IMAGE_TOKENS);
        assert_eq!(c.part(&Part::Other { kind: "x".into() }), 0);
    }
}
