//! Counting tokens exactly as tiktoken does, for o200k_base and cl100k_base, at the
//! tokenizer's limit: the vocabulary is a static table laid out by `build/vocab.rs` (nothing to
//! decode at start-up), the pre-tokenizer is a DFA built ahead as well (nothing to compile,
//! no search cache to share between threads), a piece that is itself a vocabulary entry
//! counts 1 without merging (tiktoken's own shortcut), and nothing is allocated per piece.

mod hash;
mod merge;
mod patterns;
mod pretok;
mod vocab;

use std::cell::RefCell;
use std::sync::LazyLock;

use pretok::Pretokenizer;
use vocab::Vocab;

/// A tiktoken byte-pair encoding: its pre-tokenizer and vocabulary.
pub struct Bpe {
    pretok: Pretokenizer,
    vocab: &'static Vocab,
}

macro_rules! table {
    ($name:literal) => {
        Vocab::new(
            include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".slots")),
            include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".starts")),
            include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".bytes")),
        )
    };
}

static O200K_VOCAB: Vocab = table!("o200k_base");
static CL100K_VOCAB: Vocab = table!("cl100k_base");

static O200K: LazyLock<Result<Bpe, String>> =
    LazyLock::new(|| Bpe::new(&pretok::O200K, pretok::dfa!("o200k_base"), &O200K_VOCAB));
static CL100K: LazyLock<Result<Bpe, String>> =
    LazyLock::new(|| Bpe::new(&pretok::CL100K, pretok::dfa!("cl100k_base"), &CL100K_VOCAB));

thread_local! {
    /// A counting thread's merge buffers.
    static SCRATCH: RefCell<merge::Scratch> = RefCell::default();
}

/// o200k_base (built once per process; the error says why its regex would not build).
pub fn o200k_base() -> Result<&'static Bpe, &'static str> {
    O200K.as_ref().map_err(String::as_str)
}

/// cl100k_base, likewise.
pub fn cl100k_base() -> Result<&'static Bpe, &'static str> {
    CL100K.as_ref().map_err(String::as_str)
}

impl Bpe {
    fn new(
        patterns: &[(&str, bool); 3],
        dfa: &'static pretok::Aligned<[u8]>,
        vocab: &'static Vocab,
    ) -> Result<Bpe, String> {
        Ok(Bpe {
            pretok: Pretokenizer::new(patterns, dfa)?,
            vocab,
        })
    }

    /// The number of tokens tiktoken's `encode_ordinary` gives `text` (special-token text
    /// such as `<|endoftext|>` is ordinary text).
    pub fn count(&self, text: &str) -> usize {
        self.count_upto(text, usize::MAX)
    }

    /// [`Bpe::count`] of `text`, or some figure over `limit` as soon as the count passes
    /// it: a text's count is the sum of its pieces', so the rest need not be counted.
    pub fn count_upto(&self, text: &str, limit: usize) -> usize {
        self.count_prefix(text, limit).0
    }

    /// [`Bpe::count_upto`], and the length of the prefix of `text` whose pieces were
    /// counted (all of it, unless the count passed `limit`).
    pub fn count_prefix(&self, text: &str, limit: usize) -> (usize, usize) {
        self.with_scratch(|bpe, scratch| bpe.count_with(scratch, text, limit))
    }

    /// The tokens of `text`'s first pieces, as long as `settled(where the piece ends)`
    /// holds (see [`crate::tokens::Tokenizer::floor`]).
    pub fn count_settled(&self, text: &str, settled: impl Fn(usize) -> bool) -> usize {
        self.with_scratch(|bpe, scratch| {
            let (mut n, mut end) = (0, 0);
            bpe.pretok.each_while(text, |piece| {
                end += piece.len();
                if !settled(end) {
                    return false;
                }
                n += bpe.piece(piece.as_bytes(), scratch);
                true
            });
            n
        })
    }

    fn with_scratch<T>(&self, f: impl FnOnce(&Bpe, &mut merge::Scratch) -> T) -> T {
        SCRATCH.with(|scratch| match scratch.try_borrow_mut() {
            Ok(mut scratch) => f(self, &mut scratch),
            // Only if counting were re-entered on one thread: fresh buffers then.
            Err(_) => f(self, &mut merge::Scratch::default()),
        })
    }

    fn count_with(&self, scratch: &mut merge::Scratch, text: &str, limit: usize) -> (usize, usize) {
        let (mut n, mut end) = (0, 0);
        self.pretok.each_while(text, |piece| {
            let bytes = piece.as_bytes();
            n += self.piece(bytes, scratch);
            end += bytes.len();
            n <= limit
        });
        (n, end)
    }

    /// The tokens of one piece: 1 for a vocabulary entry (tiktoken's shortcut).
    #[inline]
    fn piece(&self, bytes: &[u8], scratch: &mut merge::Scratch) -> usize {
        if bytes.len() < 2 || self.vocab.rank(bytes).is_some() {
            1
        } else {
            merge::count(self.vocab, bytes, scratch)
        }
    }

    /// The vocabulary's size (tests check it against tiktoken's).
    pub fn vocab_len(&self) -> usize {
        self.vocab.len()
    }
}
