//! Pre-tokenization: splitting text into the pieces tiktoken's regex would find, with
//! `regex-automata`'s meta engine. The patterns and the look-ahead rewrite are
//! `bpe-openai`'s (MIT): tiktoken's `\s+(?!\S)` becomes a pattern `\s+\s` whose last
//! character is dropped from the match, which keeps the regex free of look-around.
//!
//! Each thread searches with its own cache: the regex's shared pool gives its first
//! caller a fast path that writes a shared atomic per match, and two counting threads
//! would keep pulling that cache line from each other.

use regex_automata::meta::{Cache, Regex};
use regex_automata::{Anchored, Input};

/// cl100k_base's pattern, split as `bpe-openai` does: (pattern, ends in one look-ahead char).
pub const CL100K: [(&str, bool); 3] = [
    ("(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+$", false),
    ("\\s+\\s", true),
    ("\\s+", false),
];

/// o200k_base's pattern, split likewise.
pub const O200K: [(&str, bool); 3] = [
    (concat!(
        "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
        "|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
        "|\\p{N}{1,3}",
        "| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*",
        "|\\s*[\\r\\n]+",
        "|\\s+$",
    ), false),
    ("\\s+\\s", true),
    ("\\s+", false),
];

pub struct Pretokenizer {
    regex: Regex,
    lookahead: [bool; 3],
}

impl Pretokenizer {
    pub fn new(patterns: &[(&str, bool); 3]) -> Result<Pretokenizer, String> {
        let pats: Vec<&str> = patterns.iter().map(|p| p.0).collect();
        let regex = Regex::new_many(&pats).map_err(|e| e.to_string())?;
        Ok(Pretokenizer {
            regex,
            lookahead: patterns.map(|p| p.1),
        })
    }

    /// A search cache for this regex (each thread keeps its own).
    pub fn cache(&self) -> Cache {
        self.regex.create_cache()
    }

    /// Calls `piece` on the pre-token pieces of `text`, in order, until it returns false.
    #[inline]
    pub fn each_while(&self, cache: &mut Cache, text: &str, mut piece: impl FnMut(&str) -> bool) {
        let mut last = 0;
        while last < text.len() {
            let input = Input::new(&text[last..]).anchored(Anchored::Yes);
            let Some(m) = self.regex.search_with(cache, &input) else {
                break;
            };
            let start = last;
            let mut end = last + m.range().end;
            if self.lookahead[m.pattern().as_usize()] {
                // Drop the look-ahead character (the pattern always matches one more).
                let c = text[start..end]
                    .chars()
                    .next_back()
                    .map_or(0, char::len_utf8);
                end -= c;
            }
            if end == start {
                break; // cannot happen with these patterns; never loop forever
            }
            last = end;
            if !piece(&text[start..end]) {
                break;
            }
        }
    }
}
