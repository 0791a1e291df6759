//! Token counting: exact tiktoken encodings, two offline estimates, and the per-message
//! formula from OpenAI's cookbook ("How to count tokens with tiktoken").

/// Exact counts from the providers' counting endpoints (`--count-with api`).
#[cfg(feature = "llm")]
pub mod api;
mod bpe;
mod cache;
mod encoding;
pub mod key;
pub(crate) mod parallel;

pub use cache::TextCache;
pub use encoding::{Encoding, EncodingError, Tokenizer};

use std::sync::OnceLock;

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
/// has seen (a system prompt repeated across files is counted once per run). The
/// tokenizer is built on first use, so a run whose counts all come from the persistent
/// cache never builds it.
pub struct Counter {
    encoding: Encoding,
    tokenizer: OnceLock<Tokenizer>,
    /// Set when the requested tokenizer could not be built and `approx` is used instead.
    fallback: OnceLock<EncodingError>,
    cache: TextCache,
}

impl Counter {
    /// A counter that builds the tokenizer for `encoding` when first needed.
    pub fn lazy(encoding: Encoding) -> Counter {
        Counter {
            encoding,
            tokenizer: OnceLock::new(),
            fallback: OnceLock::new(),
            cache: TextCache::default(),
        }
    }

    /// A counter with an already built tokenizer.
    pub fn new(tokenizer: Tokenizer) -> Counter {
        let c = Counter::lazy(tokenizer.encoding());
        let _ = c.tokenizer.set(tokenizer);
        c
    }

    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Why the requested tokenizer was replaced by `approx`, if it was.
    pub fn fallback(&self) -> Option<&EncodingError> {
        self.fallback.get()
    }

    /// Whether the tokenizer has been built (a fully cached run never builds it).
    pub fn is_built(&self) -> bool {
        self.tokenizer.get().is_some()
    }

    fn tokenizer(&self) -> &Tokenizer {
        self.tokenizer.get_or_init(|| {
            Tokenizer::new(self.encoding).unwrap_or_else(|e| {
                let _ = self.fallback.set(e);
                Tokenizer::Approx
            })
        })
    }

    /// Tokens of a plain text.
    pub fn text(&self, text: &str) -> usize {
        if text.is_empty() {
            return 0;
        }
        self.cache.get_or(text, || self.tokenizer().count(text))
    }

    /// A bound on [`Counter::text`] known without counting: every tokenizer makes a token
    /// of at least one byte, but `words`, which counts 1.3 a word (a word and the space
    /// after it are at least two bytes).
    pub fn at_most(&self, text: &str) -> usize {
        match self.encoding {
            Encoding::Words => (text.len().div_ceil(2) * 13).div_ceil(10),
            _ => text.len(),
        }
    }

    /// The fewest tokens a text that starts with `prefix` has ([`Tokenizer::floor`]).
    pub fn floor(&self, prefix: &str) -> usize {
        self.tokenizer().floor(prefix)
    }

    /// Whether `text` has more than `limit` tokens (`self.text(text) > limit`), counting
    /// no further than needed to tell: a long text checked against a small budget costs
    /// the budget, not the text.
    pub fn exceeds(&self, text: &str, limit: usize) -> bool {
        self.passes(text, limit).is_some()
    }

    /// Whether `text` passes `limit` tokens, and by what ([`Tokenizer::passes`]): the
    /// length of a prefix every text that starts with has more than `limit` too (but for
    /// all of `text`, which vouches for `text` alone), or `None` when `text` has no more.
    /// A text found to have no more is counted whole: its count is remembered.
    pub fn passes(&self, text: &str, limit: usize) -> Option<usize> {
        if text.is_empty() {
            return None;
        }
        match self.tokenizer().within(text, limit) {
            Ok(n) => {
                self.cache.put(text, n);
                None
            }
            Err(decided) => Some(decided),
        }
    }

    /// [`Counter::text`] of `before`, `text` trimmed, then `after`: counted in parts when
    /// the tokenizer cuts after line breaks ([`Tokenizer::cuts_after_line_breaks`]) and
    /// `before` ends with one, so that `text`, most likely counted already (a summary that
    /// was fit to a cap: [`Counter::passes`]), is not counted again but for its last line.
    pub fn text_wrapped(&self, before: &str, text: &str, after: &str) -> usize {
        let body = text.trim();
        let letter_at =
            |t: &str, i: usize| t.as_bytes().get(i).is_some_and(u8::is_ascii_alphabetic);
        // Where the last line that starts with a letter starts: `text` is cut there, and
        // between `before` and `body`.
        let last = (self.tokenizer().cuts_after_line_breaks()
            && before.ends_with('\n')
            && text.starts_with(body)
            && letter_at(body, 0))
        .then(|| {
            memchr::memrchr_iter(b'\n', body.as_bytes())
                .map(|i| i + 1)
                .find(|&i| letter_at(body, i))
                .unwrap_or(0)
        });
        let Some(cut) = last else {
            return self.text(&format!("{before}{body}{after}"));
        };
        // text = text[..cut] + text[cut..], and the wrapped text is before + text[..cut] +
        // body[cut..] + after, each sum cut where the tokenizer cuts.
        let head = self.text(text).saturating_sub(self.text(&text[cut..]));
        self.text(before) + head + self.text(&format!("{}{after}", &body[cut..]))
    }

    /// Tokens of one message: framing, role, name and every part.
    pub fn message(&self, m: &Message) -> usize {
        let mut n = TOKENS_PER_MESSAGE + self.text(m.role.name());
        if let Some(name) = &m.name {
            n += self.text(name) + TOKENS_PER_NAME;
        }
        n + self.parts(&m.parts)
    }

    /// Tokens of one message whose parts `given` knows the tokens of are not counted again
    /// (the rest are): the same figure as [`Counter::message`].
    pub fn message_given(&self, m: &Message, given: &dyn Fn(&Part) -> Option<usize>) -> usize {
        let mut n = TOKENS_PER_MESSAGE + self.text(m.role.name());
        if let Some(name) = &m.name {
            n += self.text(name) + TOKENS_PER_NAME;
        }
        n + m
            .parts
            .iter()
            .map(|p| given(p).unwrap_or_else(|| self.part(p)))
            .sum::<usize>()
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
            Part::Opaque { bytes, tokens, .. } => tokens.unwrap_or_else(|| bytes.div_ceil(4)),
            Part::Image { .. } => IMAGE_TOKENS,
            Part::Other { .. } => 0,
        }
    }

    /// Per-message counts of a session, counted on every core for large sessions. (The
    /// persistent cache is [`crate::context::Context::count`]'s business.)
    pub fn messages(&self, session: &Session) -> Vec<usize> {
        self.fill(
            session,
            vec![None; session.messages.len()],
            parallel::available(),
        )
    }

    /// The persistent-cache key of every message of `session` (see [`key::message_key`]).
    pub fn keys(&self, session: &Session) -> Vec<u128> {
        // Hashing is memory-bound: large sessions are hashed on every core.
        self.keys_of(&session.messages, parallel::available())
    }

    /// The persistent-cache key of each of `messages`, hashed on up to `threads` threads.
    pub fn keys_of(&self, messages: &[Message], threads: usize) -> Vec<u128> {
        let msgs: Vec<&Message> = messages.iter().collect();
        parallel::map_by(
            &msgs,
            threads,
            |m| parallel::approx_bytes(m),
            |m| key::message_key(m, self.encoding),
        )
    }

    /// Completes `known` (one entry per message of `session`) by counting the messages
    /// that have none, on up to `threads` threads.
    pub fn fill(&self, session: &Session, known: Vec<Option<usize>>, threads: usize) -> Vec<usize> {
        self.fill_of(&session.messages, known, threads)
    }

    /// [`Counter::fill`] for a slice of messages.
    pub fn fill_of(
        &self,
        messages: &[Message],
        known: Vec<Option<usize>>,
        threads: usize,
    ) -> Vec<usize> {
        complete(known, |missing| {
            let todo: Vec<&Message> = missing.iter().map(|&i| &messages[i]).collect();
            self.count_messages(&todo, threads)
        })
    }

    /// [`Counter::fill_of`] on one thread, the parts `given` knows not counted again.
    pub fn fill_given(
        &self,
        messages: &[Message],
        known: Vec<Option<usize>>,
        given: &dyn Fn(&Part) -> Option<usize>,
    ) -> Vec<usize> {
        complete(known, |missing| {
            missing
                .iter()
                .map(|&i| self.message_given(&messages[i], given))
                .collect()
        })
    }

    /// Completes `known` (one entry per part) by counting the parts that have none, on up
    /// to `threads` threads.
    pub fn fill_parts(
        &self,
        parts: &[&Part],
        known: Vec<Option<usize>>,
        threads: usize,
    ) -> Vec<usize> {
        complete(known, |missing| {
            let todo: Vec<&Part> = missing.iter().map(|&i| parts[i]).collect();
            parallel::count_parts(&todo, threads, |p| self.part(p))
        })
    }

    /// Whether counts made so far may be remembered across runs: counts from a fallback
    /// tokenizer are not what their keys promise.
    pub fn keeps_counts(&self) -> bool {
        self.fallback().is_none()
    }

    /// Counts every message, on up to `threads` threads when there is enough text.
    pub fn count_messages(&self, msgs: &[&Message], threads: usize) -> Vec<usize> {
        parallel::count(msgs, threads, |m| self.message(m))
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

/// `known` with its gaps filled: `count_missing` gets the indices of the gaps and returns
/// their counts in the same order.
fn complete(
    known: Vec<Option<usize>>,
    count_missing: impl FnOnce(&[usize]) -> Vec<usize>,
) -> Vec<usize> {
    let missing: Vec<usize> = (0..known.len()).filter(|&i| known[i].is_none()).collect();
    let mut counts: Vec<usize> = known.into_iter().map(Option::unwrap_or_default).collect();
    if !missing.is_empty() {
        for (&i, n) in missing.iter().zip(count_missing(&missing)) {
            counts[i] = n;
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{Origin, Role};

    fn counter(e: Encoding) -> Counter {
        Counter::new(Tokenizer::new(e).unwrap())
    }

    /// Text of the characters a piece's end turns on: runs of spaces and newlines,
    /// contractions, punctuation, digits, letters of both cases, other scripts.
    fn tricky_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::strategy::Strategy;
        proptest::collection::vec(
            proptest::sample::select(vec![
                " ",
                "  ",
                "\n",
                "\n\n",
                "\t",
                "'ll",
                "'s",
                "'",
                "ab",
                "CD",
                "Éx",
                "ß",
                "12",
                "3456",
                "!",
                ")\n",
                "/",
                "## ",
                "- ",
                "🙂",
                "漢字",
                ".",
                "`x`",
                "                ",
                "\u{a0}",
                "\u{2028}",
            ]),
            0..80,
        )
        .prop_map(|v| v.concat())
    }

    proptest::proptest! {
        /// A text that starts with [`Counter::passes`]'s prefix of one that passed a limit
        /// (short of all of it) passes it too, by the same pieces, whatever follows (the
        /// fitting of the offline summary relies on it).
        #[test]
        fn what_follows_the_prefix_that_passes_does_not_matter(
            text in tricky_text(),
            other in tricky_text(),
            limit in 0usize..40,
        ) {
            for e in [Encoding::O200kBase, Encoding::Cl100kBase] {
                let c = counter(e);
                let Some(decided) = c.passes(&text, limit) else {
                    proptest::prop_assert!(c.text(&text) <= limit);
                    continue;
                };
                proptest::prop_assert!(c.text(&text) > limit);
                let Tokenizer::Fast(_, bpe) = c.tokenizer() else {
                    unreachable!("{e} is counted by the fast tokenizer")
                };
                if decided == text.len() {
                    continue;
                }
                let changed = format!("{}{other}", &text[..decided]);
                proptest::prop_assert!(c.passes(&changed, limit).is_some(), "{} {:?}", e, changed);
                // The same pieces to where the count passed the limit.
                proptest::prop_assert_eq!(
                    bpe.count_prefix(&changed, limit),
                    bpe.count_prefix(&text, limit),
                    "{} {:?}", e, changed
                );
            }
        }
    }

    proptest::proptest! {
        /// No text that starts with a prefix has fewer tokens than the prefix's floor.
        #[test]
        fn no_text_goes_below_its_prefix_floor(
            prefix in tricky_text(),
            other in tricky_text(),
        ) {
            for e in Encoding::ALL {
                let c = counter(e);
                let floor = c.floor(&prefix);
                proptest::prop_assert!(floor <= c.text(&prefix), "{} {:?}", e, prefix);
                let longer = format!("{prefix}{other}");
                proptest::prop_assert!(floor <= c.text(&longer), "{} {:?}", e, longer);
            }
        }
    }

    /// Cut anywhere, a text's head has a floor no longer head of it goes below: long words
    /// that become fewer tokens whole, contractions, runs of spaces and of line breaks.
    #[test]
    fn every_longer_head_keeps_the_floor() {
        let texts = [
            "internationalization tokenizers they'll\n\n  reconfigure antidisestablishment",
            "fn main() {\n    let   x = 12345678;\r\n\t}   \n\n\nIt'S DONE.  ",
            "日本語のテキスト、中文文本。 naïve café — ÀÉÎ straße ٣٤٥ 🙂🙂 👍🏽",
        ];
        for e in Encoding::ALL {
            let c = counter(e);
            for t in texts {
                let cuts: Vec<usize> = (0..=t.len()).filter(|&i| t.is_char_boundary(i)).collect();
                for (a, &k) in cuts.iter().enumerate() {
                    let floor = c.floor(&t[..k]);
                    for &j in &cuts[a..] {
                        assert!(
                            floor <= c.text(&t[..j]),
                            "{e}: {:?} within {:?}",
                            &t[..k],
                            &t[..j]
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_prefix_floor_is_its_count_but_for_the_last_pieces() {
        let text = "Please rework the parser so that it accepts trailing commas, then run";
        for e in [Encoding::O200kBase, Encoding::Cl100kBase] {
            let c = counter(e);
            // "trailing commas, then run": the last pieces may still grow.
            let (floor, all) = (c.floor(text), c.text(text));
            assert!(floor < all && floor + 6 >= all, "{e}: {floor} of {all}");
            // Every piece of the text is settled by a line that follows.
            assert_eq!(c.floor(&format!("{text}\n{}", "x".repeat(20))), all + 1);
        }
        assert_eq!(
            counter(Encoding::Approx).floor(text),
            counter(Encoding::Approx).text(text)
        );
        assert_eq!(counter(Encoding::P50kBase).floor(text), 0);
    }

    proptest::proptest! {
        /// A text wrapped is counted in parts as it would be whole, whatever its lines,
        /// counted before (and remembered by [`Counter::passes`]) or not.
        #[test]
        fn a_wrapped_text_counts_as_the_whole(
            before in tricky_text(),
            lines in proptest::collection::vec(tricky_text(), 1..4),
            letters in proptest::collection::vec(
                proptest::sample::select(vec!["A", "x", "Ab", "É", "1", " ", ""]), 4),
            after in tricky_text(),
            fitted: bool,
            breaks: bool,
        ) {
            let before = if breaks { format!("{before}\n") } else { before };
            // Lines that start with a letter or not, the first right after `before`.
            let text: String = (lines.iter().zip(&letters).enumerate())
                .map(|(i, (l, a))| format!("{}{a}{l}", if i == 0 { "" } else { "\n" }))
                .collect();
            for e in [Encoding::O200kBase, Encoding::Cl100kBase, Encoding::Approx, Encoding::Words] {
                let c = counter(e);
                if fitted {
                    proptest::prop_assert!(c.passes(&text, usize::MAX).is_none());
                }
                let whole = format!("{before}{}{after}", text.trim());
                proptest::prop_assert_eq!(
                    c.text_wrapped(&before, &text, &after),
                    counter(e).text(&whole),
                    "{} {:?}", e, whole
                );
            }
        }
    }

    /// A summary's lines are not counted again: its count, remembered when it was found to
    /// fit, and its last line's are what the wrapped text takes from it.
    #[test]
    fn a_fitted_text_is_not_counted_again_when_wrapped() {
        let c = counter(Encoding::O200kBase);
        let summary = format!(
            "Offline summary.\n{}\nLast words here.\n",
            "## Facts\n- one\n".repeat(50)
        );
        assert!(c.passes(&summary, 10_000).is_none());
        // Remembered: a wrong count put in its place is what comes back.
        c.cache.put(&summary, 7);
        let tail = c.text("Last words here.\n");
        let wrapped = c.text_wrapped("<s>\n", &summary, "\n</s>");
        assert_eq!(
            wrapped,
            c.text("<s>\n") + 7 - tail + c.text("Last words here.\n</s>")
        );
        // Not wrapped after a line break: counted whole.
        let whole = c.text(&format!("<s>{}\n</s>", summary.trim()));
        assert_eq!(c.text_wrapped("<s>", &summary, "\n</s>"), whole);
    }

    /// A line break is a cut only before a letter: o200k_base takes `/` after a line
    /// break into the punctuation before it.
    #[test]
    fn a_line_break_before_anything_but_a_letter_is_no_cut() {
        for e in [Encoding::O200kBase, Encoding::Cl100kBase] {
            let c = counter(e);
            // Counted apart, `x)\n` and `/ab` make one token more than together.
            for (before, text) in [("x)\n", "/ab\nok"), ("<s>\n", "Ok)\n/ab\n")] {
                let whole = c.text(&format!("{before}{text}\n</s>"));
                assert_eq!(
                    c.text_wrapped(before, text, "\n</s>"),
                    whole,
                    "{e} {text:?}"
                );
            }
        }
    }

    #[test]
    fn a_newline_piece_is_decided_by_the_end_of_its_whitespace() {
        // `\s*[\r\n]+` ends at a run's last newline: the `\n` after `a` is a piece of its
        // own while the spaces after it end in `b`, but one with them if a newline ends them.
        let text = format!("a\n{}b and more words", " ".repeat(100));
        let other = format!("a\n{}\n", " ".repeat(100));
        for e in [Encoding::O200kBase, Encoding::Cl100kBase] {
            let c = counter(e);
            let decided = c
                .passes(&text, 1)
                .expect("a and the newline pass one token");
            assert!(
                decided > 102,
                "{e}: the prefix takes in the spaces: {decided}"
            );
            assert!(!other.starts_with(&text[..decided]), "{e}");
            let Tokenizer::Fast(_, bpe) = c.tokenizer() else {
                unreachable!("{e} is counted by the fast tokenizer")
            };
            // The texts part within the spaces, and their pieces differ there.
            assert_ne!(
                bpe.count_prefix(&other, 1),
                bpe.count_prefix(&text, 1),
                "{e}"
            );
        }
    }

    #[test]
    fn exceeds_agrees_with_the_count() {
        let text = "Fix the parser, then run `cargo test` again.\n\n  indented 12345 ünïcödé 🙂 "
            .repeat(7);
        for e in [
            Encoding::O200kBase,
            Encoding::Cl100kBase,
            Encoding::Approx,
            Encoding::Words,
        ] {
            let c = counter(e);
            let n = c.text(&text);
            for limit in [0, 1, n / 2, n - 1, n, n + 1, 10 * n] {
                assert_eq!(c.exceeds(&text, limit), n > limit, "{e} {limit}");
                let decided = c.passes(&text, limit);
                assert_eq!(decided.is_some(), n > limit, "{e} {limit}");
                // The prefix has more than the limit by itself.
                assert!(
                    decided.is_none_or(|d| c.text(&text[..d]) > limit),
                    "{e} {limit}"
                );
            }
            assert!(!c.exceeds("", 0));
        }
    }

    #[test]
    fn the_bound_is_never_below_the_count() {
        let texts = [
            "a",
            " ",
            "a b c",
            "x\ny",
            "🙂",
            "ünïcödé",
            "1234567890 !!!!!! \t\t\n\n",
            "<|endoftext|> <|fim_prefix|>",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        ];
        for e in Encoding::ALL {
            let c = counter(e);
            for t in texts {
                assert!(c.at_most(t) >= c.text(t), "{e} {t:?}");
            }
        }
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
