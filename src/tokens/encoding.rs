//! Tokenizers: tiktoken encodings (exact) and two offline estimates.

use std::fmt;

use tiktoken_rs::CoreBPE;

use super::bpe::{self, Bpe};

/// A way of turning text into a token count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    O200kBase,
    Cl100kBase,
    P50kBase,
    R50kBase,
    /// About four characters per token (the spec's rule of thumb).
    Approx,
    /// 1.3 tokens per whitespace-separated word.
    Words,
}

impl Encoding {
    pub const ALL: [Encoding; 6] = [
        Encoding::O200kBase,
        Encoding::Cl100kBase,
        Encoding::P50kBase,
        Encoding::R50kBase,
        Encoding::Approx,
        Encoding::Words,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
            Encoding::P50kBase => "p50k_base",
            Encoding::R50kBase => "r50k_base",
            Encoding::Approx => "approx",
            Encoding::Words => "words",
        }
    }

    /// Parses a tokenizer name (`o200k_harmony` counts text like `o200k_base`).
    pub fn from_name(name: &str) -> Option<Encoding> {
        match name {
            "o200k_harmony" => Some(Encoding::O200kBase),
            "gpt2" => Some(Encoding::R50kBase),
            _ => Encoding::ALL.into_iter().find(|e| e.name() == name),
        }
    }

    /// Whether counts are exact for the model's own tokenizer (tiktoken encodings).
    pub fn is_exact(self) -> bool {
        !matches!(self, Encoding::Approx | Encoding::Words)
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Debug, thiserror::Error)]
#[error("cannot build the {encoding} tokenizer: {message}")]
pub struct EncodingError {
    pub encoding: Encoding,
    pub message: String,
}

/// A built tokenizer.
pub enum Tokenizer {
    /// o200k_base and cl100k_base: [`super::bpe`], which counts exactly as tiktoken
    /// (tested against tiktoken-rs on every fixture and on random text) and faster.
    Fast(Encoding, &'static Bpe),
    /// The older encodings, through tiktoken-rs.
    Bpe(Encoding, &'static CoreBPE),
    Approx,
    Words,
}

impl Tokenizer {
    /// Builds the tokenizer for `encoding` (tiktoken's are built once per process).
    pub fn new(encoding: Encoding) -> Result<Tokenizer, EncodingError> {
        let bpe = match encoding {
            Encoding::Approx => return Ok(Tokenizer::Approx),
            Encoding::Words => return Ok(Tokenizer::Words),
            Encoding::O200kBase => return fast(encoding, bpe::o200k_base),
            Encoding::Cl100kBase => return fast(encoding, bpe::cl100k_base),
            Encoding::P50kBase => std::panic::catch_unwind(tiktoken_rs::p50k_base_singleton),
            Encoding::R50kBase => std::panic::catch_unwind(tiktoken_rs::r50k_base_singleton),
        };
        bpe.map(|b| Tokenizer::Bpe(encoding, b))
            .map_err(|_| load_error(encoding))
    }

    /// The reference tokenizer for `encoding`: tiktoken-rs itself, whatever [`Tokenizer::new`]
    /// uses. Tests compare the two.
    pub fn tiktoken(encoding: Encoding) -> Result<Tokenizer, EncodingError> {
        let bpe = match encoding {
            Encoding::O200kBase => std::panic::catch_unwind(tiktoken_rs::o200k_base_singleton),
            Encoding::Cl100kBase => std::panic::catch_unwind(tiktoken_rs::cl100k_base_singleton),
            _ => return Tokenizer::new(encoding),
        };
        bpe.map(|b| Tokenizer::Bpe(encoding, b))
            .map_err(|_| load_error(encoding))
    }

    pub fn encoding(&self) -> Encoding {
        match self {
            Tokenizer::Fast(e, _) | Tokenizer::Bpe(e, _) => *e,
            Tokenizer::Approx => Encoding::Approx,
            Tokenizer::Words => Encoding::Words,
        }
    }

    /// Whether `text` has more than `limit` tokens; o200k_base and cl100k_base stop
    /// counting once past it.
    pub fn exceeds(&self, text: &str, limit: usize) -> bool {
        self.passes(text, limit).is_some()
    }

    /// Whether `text` passes `limit` tokens, and by what: the length of a prefix every text
    /// that starts with has more than `limit` too, or `None` when `text` has no more. A
    /// prefix that is all of `text` vouches for `text` alone. o200k_base and cl100k_base
    /// stop counting at the piece that passed the limit: the prefix is those pieces, the
    /// whitespace after them and [`PIECE_LOOKAHEAD`] bytes more, when the text has them.
    /// The others count the whole text.
    pub fn passes(&self, text: &str, limit: usize) -> Option<usize> {
        self.within(text, limit).err()
    }

    /// [`Tokenizer::passes`], telling what the count found when `text` has no more than
    /// `limit` tokens: `Ok(its tokens)`, or `Err(the prefix)` when it passes the limit.
    pub fn within(&self, text: &str, limit: usize) -> Result<usize, usize> {
        match self {
            Tokenizer::Fast(_, bpe) => {
                let (n, end) = bpe.count_prefix(text, limit);
                if n <= limit {
                    return Ok(n);
                }
                let mut decided = decided_by(text, end).min(text.len());
                while !text.is_char_boundary(decided) {
                    decided += 1;
                }
                Err(decided)
            }
            _ => match self.count(text) {
                n if n <= limit => Ok(n),
                _ => Err(text.len()),
            },
        }
    }

    /// The fewest tokens a text that starts with `prefix` has, whatever follows: for
    /// o200k_base and cl100k_base, the count of `prefix`'s pieces whose ends do not turn on
    /// what follows them (see [`PIECE_LOOKAHEAD`]); `approx` and `words` count more of a
    /// longer text; the older encodings tell nothing (0).
    pub fn floor(&self, prefix: &str) -> usize {
        match self {
            Tokenizer::Fast(_, bpe) => {
                bpe.count_settled(prefix, |end| decided_by(prefix, end) <= prefix.len())
            }
            Tokenizer::Bpe(..) => 0,
            Tokenizer::Approx | Tokenizer::Words => self.count(prefix),
        }
    }

    /// Whether a text's count is the sum of its parts' when cut after a line break and
    /// before an ASCII letter: o200k_base's and cl100k_base's pre-tokenizers make a piece
    /// end there whatever comes before or after (no piece holds a line break followed by a
    /// letter), and their counts are their pieces' counts.
    pub fn cuts_after_line_breaks(&self) -> bool {
        matches!(self.encoding(), Encoding::O200kBase | Encoding::Cl100kBase)
    }

    pub fn count(&self, text: &str) -> usize {
        match self {
            Tokenizer::Fast(_, bpe) => bpe.count(text),
            Tokenizer::Bpe(_, bpe) => bpe.encode_ordinary(text).len(),
            Tokenizer::Approx => text.chars().count().div_ceil(4),
            Tokenizer::Words => {
                let words = text.split_whitespace().count();
                (words * 13).div_ceil(10)
            }
        }
    }
}

/// Bytes after a pre-token piece and the whitespace that follows it that the piece's end
/// may still depend on: a look-ahead character, a contraction's `'ll` (four characters of
/// up to four bytes).
pub const PIECE_LOOKAHEAD: usize = 16;

/// Where in `text` the end of a piece that ends at `end` is decided: a piece's end turns
/// on the whitespace after it (`\s*[\r\n]+` ends at a run's last newline), however long,
/// and [`PIECE_LOOKAHEAD`] bytes past that (which may be past the text's end).
fn decided_by(text: &str, end: usize) -> usize {
    let rest = &text[end..];
    let run = rest.len() - rest.trim_start().len();
    end + run + PIECE_LOOKAHEAD
}

fn fast(
    encoding: Encoding,
    get: fn() -> Result<&'static Bpe, &'static str>,
) -> Result<Tokenizer, EncodingError> {
    get()
        .map(|b| Tokenizer::Fast(encoding, b))
        .map_err(|e| EncodingError {
            encoding,
            message: format!("its pre-tokenizer regex does not build: {e}"),
        })
}

fn load_error(encoding: Encoding) -> EncodingError {
    EncodingError {
        encoding,
        message: "the embedded ranks could not be loaded".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiktoken_counts_are_exact() {
        let t = Tokenizer::new(Encoding::Cl100kBase).unwrap();
        // tiktoken: enc.encode("hello world") == [15339, 1917]
        assert_eq!(t.count("hello world"), 2);
        let t = Tokenizer::new(Encoding::O200kBase).unwrap();
        assert_eq!(t.count("hello world"), 2);
        // Special-token text is ordinary text, never a special token.
        assert!(t.count("<|endoftext|>") > 1);
    }

    #[test]
    fn estimates() {
        assert_eq!(Tokenizer::Approx.count("abcdefghi"), 3);
        assert_eq!(Tokenizer::Words.count("one two three"), 4);
        assert_eq!(
            Encoding::from_name("o200k_harmony"),
            Some(Encoding::O200kBase)
        );
    }

    /// Text built from the pieces tokenizer regexes care about: letters of several scripts
    /// and cases, digits, contractions, punctuation, every kind of whitespace and line break,
    /// combining marks, emoji.
    fn tricky_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let pieces = prop::sample::select(vec![
            " ",
            "  ",
            "\t",
            "\n",
            "\r\n",
            "\r",
            "\u{a0}",
            "\u{3000}",
            "\u{200b}",
            "a",
            "Ab",
            "HTTP",
            "x1",
            "123",
            "45678",
            "'s",
            "'LL",
            "'re",
            ".",
            ",",
            "!?",
            "--",
            "/",
            "//",
            "\\",
            "\"",
            "{}",
            "[]",
            "(",
            ")",
            "é",
            "e\u{301}",
            "ß",
            "Ω",
            "жЖ",
            "中文",
            "日本語",
            "한국어",
            "🙂",
            "👍🏽",
            "#",
            "$%",
            "&*",
            "+=",
            "<>",
            "@",
            "^`",
            "|~",
            "_",
            "\u{feff}",
        ]);
        prop::collection::vec(pieces, 0..60).prop_map(|v| v.concat())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// The fast tokenizer counts every text as tiktoken-rs does.
        #[test]
        fn fast_counts_equal_tiktoken(text in tricky_text(), any in "\\PC{0,40}") {
            for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
                let fast = Tokenizer::new(enc).unwrap();
                let reference = Tokenizer::tiktoken(enc).unwrap();
                for t in [&text, &any] {
                    proptest::prop_assert_eq!(fast.count(t), reference.count(t), "{} {:?}", enc, t);
                }
            }
        }
    }
}
