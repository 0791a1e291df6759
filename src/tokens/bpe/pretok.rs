//! Pre-tokenization: splitting text into the pieces tiktoken's regex would find. The
//! patterns and the look-ahead rewrite are `bpe-openai`'s (MIT): tiktoken's `\s+(?!\S)`
//! becomes a pattern `\s+\s` whose last character is dropped from the match, which keeps
//! the regex free of look-around (patterns.rs).
//!
//! The patterns are searched with dense DFAs the build script made (build/pretok.rs) and
//! that are read in place from the binary: nothing is compiled at start-up (compiling the
//! regex took ~5 ms, longer than counting a small session), a search needs no cache, so
//! counting threads share nothing, and a dense DFA is faster than a lazy one.

use regex_automata::dfa::{dense, Automaton};
use regex_automata::{Anchored, Input};

pub use super::patterns::{CL100K, O200K};

pub use crate::prebuilt::Aligned;

/// A pre-tokenizer DFA the build script wrote, aligned for reading in place.
macro_rules! dfa {
    ($name:literal) => {
        $crate::prebuilt::aligned!(concat!($name, ".dfa"))
    };
}
pub(super) use dfa;

pub struct Pretokenizer {
    dfa: dense::DFA<&'static [u32]>,
    lookahead: [bool; 3],
}

impl Pretokenizer {
    /// The pre-tokenizer of `patterns`, whose DFA (anchored, leftmost-first, one pattern
    /// id per pattern) is `table`. The table is validated, not trusted: a bad one is an
    /// error, never undefined behaviour.
    pub fn new(
        patterns: &[(&str, bool); 3],
        table: &'static Aligned<[u8]>,
    ) -> Result<Pretokenizer, String> {
        let (dfa, _) = dense::DFA::from_bytes(&table.0).map_err(|e| e.to_string())?;
        if dfa.pattern_len() != patterns.len() {
            return Err(format!(
                "the pre-tokenizer DFA has {} patterns, not {}",
                dfa.pattern_len(),
                patterns.len()
            ));
        }
        Ok(Pretokenizer {
            dfa,
            lookahead: patterns.map(|p| p.1),
        })
    }

    /// Calls `piece` on the pre-token pieces of `text`, in order, until it returns false.
    #[inline]
    pub fn each_while(&self, text: &str, mut piece: impl FnMut(&str) -> bool) {
        let mut last = 0;
        while last < text.len() {
            let input = Input::new(&text[last..]).anchored(Anchored::Yes);
            // The DFAs have no quit bytes and no size limit at search time: a search
            // cannot fail. Should one, the text's remaining pieces are not counted.
            let Ok(Some(m)) = self.dfa.try_search_fwd(&input) else {
                break;
            };
            let start = last;
            let mut end = last + m.offset();
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use regex_automata::meta::Regex;

    /// The pieces the patterns' regex, compiled at run time with the meta engine (as the
    /// pre-tokenizer did before its DFAs were built ahead), finds in `text`.
    fn meta_pieces(patterns: &[(&str, bool); 3], text: &str) -> Vec<String> {
        let pats: Vec<&str> = patterns.iter().map(|p| p.0).collect();
        let regex = Regex::new_many(&pats).unwrap();
        let mut out = Vec::new();
        let mut last = 0;
        while last < text.len() {
            let input = Input::new(&text[last..]).anchored(Anchored::Yes);
            let Some(m) = regex.search(&input) else { break };
            let mut end = last + m.end();
            if patterns[m.pattern().as_usize()].1 {
                end -= text[last..end]
                    .chars()
                    .next_back()
                    .map_or(0, char::len_utf8);
            }
            if end == last {
                break;
            }
            out.push(text[last..end].to_string());
            last = end;
        }
        out
    }

    fn dfa_pieces(p: &Pretokenizer, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        p.each_while(text, |piece| {
            out.push(piece.to_string());
            true
        });
        out
    }

    fn both() -> [(&'static [(&'static str, bool); 3], Pretokenizer); 2] {
        [
            (
                &O200K,
                Pretokenizer::new(&O200K, dfa!("o200k_base")).unwrap(),
            ),
            (
                &CL100K,
                Pretokenizer::new(&CL100K, dfa!("cl100k_base")).unwrap(),
            ),
        ]
    }

    #[test]
    fn the_dfas_split_as_the_regex_does() {
        let texts = [
            "",
            "Hello, world! It's   a test.\n\n  \tindented\r\n",
            "naïve café — ÀÉÎ ÖÜ straße ǅungla 123456789 ٣٤٥ ½",
            "fn main() {\n    println!(\"{}\", x);  \n}\n\n\n   ",
            "日本語のテキスト、中文文本。한국어 텍스트 🙂🙂 👍🏽",
            "I'M HERE, you're there; they'LL see'd 'S",
            "trailing spaces   ",
            "\u{a0}\u{2003}\u{3000} wide\u{200b}spaces",
        ];
        for (patterns, p) in both() {
            for t in texts {
                assert_eq!(dfa_pieces(&p, t), meta_pieces(patterns, t), "{t:?}");
            }
        }
    }

    #[test]
    fn a_table_of_the_wrong_shape_is_an_error() {
        static BAD: &Aligned<[u8]> = &Aligned([0u8; 64]);
        assert!(Pretokenizer::new(&O200K, BAD).is_err());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn the_dfas_split_any_text_as_the_regex_does(
            text in "(\\PC|\\s|[0-9']|\\p{Lu}|\\p{M}|[ \\t\\r\\n]{1,4}){0,60}"
        ) {
            for (patterns, p) in both() {
                prop_assert_eq!(dfa_pieces(&p, &text), meta_pieces(patterns, &text));
            }
        }
    }
}
