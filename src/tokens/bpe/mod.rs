//! Counting tokens exactly as tiktoken does, for o200k_base and cl100k_base, at the
//! tokenizer's limit: the vocabulary is a static table laid out by `build/vocab.rs` (nothing to
//! decode at start-up), a piece that is itself a vocabulary entry counts 1 without merging
//! (tiktoken's own shortcut), every thread searches with its own regex cache, and nothing
//! is allocated per piece.

mod hash;
mod merge;
mod pretok;
mod vocab;

use std::cell::RefCell;
use std::sync::LazyLock;

use regex_automata::meta::Cache;

use pretok::Pretokenizer;
use vocab::Vocab;

/// A tiktoken byte-pair encoding: its pre-tokenizer and vocabulary.
pub struct Bpe {
    /// Which slot of a thread's regex caches is this encoding's.
    id: usize,
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
    LazyLock::new(|| Bpe::new(0, &pretok::O200K, &O200K_VOCAB));
static CL100K: LazyLock<Result<Bpe, String>> =
    LazyLock::new(|| Bpe::new(1, &pretok::CL100K, &CL100K_VOCAB));

/// A counting thread's own state: a regex cache per encoding and merge buffers.
#[derive(Default)]
struct Local {
    caches: [Option<Cache>; 2],
    scratch: merge::Scratch,
}

thread_local! {
    static LOCAL: RefCell<Local> = RefCell::default();
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
    fn new(id: usize, patterns: &[(&str, bool); 3], vocab: &'static Vocab) -> Result<Bpe, String> {
        Ok(Bpe {
            id,
            pretok: Pretokenizer::new(patterns)?,
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
        LOCAL.with(|local| match local.try_borrow_mut() {
            Ok(mut local) => {
                let Local { caches, scratch } = &mut *local;
                let cache = caches[self.id].get_or_insert_with(|| self.pretok.cache());
                self.count_with(cache, scratch, text, limit)
            }
            // Only if counting were re-entered on one thread: fresh buffers then.
            Err(_) => self.count_with(
                &mut self.pretok.cache(),
                &mut merge::Scratch::default(),
                text,
                limit,
            ),
        })
    }

    fn count_with(
        &self,
        cache: &mut Cache,
        scratch: &mut merge::Scratch,
        text: &str,
        limit: usize,
    ) -> usize {
        let mut n = 0;
        self.pretok.each_while(cache, text, |piece| {
            let bytes = piece.as_bytes();
            n += if bytes.len() < 2 || self.vocab.rank(bytes).is_some() {
                1
            } else {
                merge::count(self.vocab, bytes, scratch)
            };
            n <= limit
        });
        n
    }

    /// The vocabulary's size (tests check it against tiktoken's).
    pub fn vocab_len(&self) -> usize {
        self.vocab.len()
    }
}
