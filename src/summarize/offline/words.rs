//! Lists of ASCII words found in any case, as a `(?i)` regex of their alternation finds
//! them, but made ready in microseconds: such a regex takes half a millisecond to a
//! millisecond to build, on every run, and a small session's gists use several.
//!
//! `(?i)` folds case by Unicode's simple case folding, under which two characters beyond
//! ASCII stand for ASCII letters: the long s (`ſ`, an `s`) and the Kelvin sign (`K`, a
//! `k`). A text without them is searched ASCII-case-insensitively (Aho-Corasick, leftmost
//! first); one with them by the regex, built the first time one comes.

use std::ops::Range;
use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, MatchKind};
use regex::Regex;

/// ASCII words to find in any case. The first match is the leftmost, and of the words
/// starting there the first listed: what the regex `(?i)w1|w2|…` finds.
pub struct Words {
    words: &'static [&'static str],
    ascii: OnceLock<AhoCorasick>,
    unicode: OnceLock<Regex>,
}

impl Words {
    /// `words` (ASCII, not empty) to be found.
    pub const fn new(words: &'static [&'static str]) -> Words {
        Words {
            words,
            ascii: OnceLock::new(),
            unicode: OnceLock::new(),
        }
    }

    /// Where the first of the words in `text` is.
    pub fn find(&self, text: &str) -> Option<Range<usize>> {
        if folds_into_ascii(text) {
            return self.regex().find(text).map(|m| m.range());
        }
        self.ascii().find(text).map(|m| m.range())
    }

    /// Whether `text` has any of the words.
    pub fn is_match(&self, text: &str) -> bool {
        if folds_into_ascii(text) {
            return self.regex().is_match(text);
        }
        self.ascii().is_match(text)
    }

    /// The words as a regex's alternation (without flags or group).
    pub fn alternation(&self) -> String {
        let escaped: Vec<String> = self.words.iter().map(|w| regex::escape(w)).collect();
        escaped.join("|")
    }

    fn ascii(&self) -> &AhoCorasick {
        self.ascii.get_or_init(|| {
            debug_assert!(self.words.iter().all(|w| w.is_ascii() && !w.is_empty()));
            AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .match_kind(MatchKind::LeftmostFirst)
                .build(self.words)
                .expect("a few ASCII words make an automaton")
        })
    }

    fn regex(&self) -> &Regex {
        self.unicode.get_or_init(|| {
            Regex::new(&format!("(?i){}", self.alternation())).expect("escaped words are a regex")
        })
    }
}

/// Whether `text` has a character beyond ASCII that `(?i)` takes for an ASCII letter.
fn folds_into_ascii(text: &str) -> bool {
    !text.is_ascii() && text.contains(['\u{17F}', '\u{212A}'])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every character `(?i)` matches for an ASCII letter is ASCII, `ſ` or `K`: the premise
    /// of the ASCII search.
    #[test]
    fn only_two_characters_beyond_ascii_fold_into_ascii_letters() {
        let letters = Regex::new("^(?i)[a-z]$").unwrap();
        let mut buf = [0; 4];
        let beyond: Vec<char> = (0x80..=0x10FFFF)
            .filter_map(char::from_u32)
            .filter(|c| letters.is_match(c.encode_utf8(&mut buf)))
            .collect();
        assert_eq!(beyond, ['\u{17F}', '\u{212A}']);
    }

    static WORDS: Words = Words::new(&["error", "not found", "fail", "failed", "i'll use"]);

    /// Finds what the regex finds, where it finds it, on texts of every kind.
    #[test]
    fn finds_what_the_case_insensitive_regex_finds() {
        let re = Regex::new(&format!("(?i){}", WORDS.alternation())).unwrap();
        let texts = [
            "",
            "all fine",
            "ERROR: it broke",
            "the build FAILED; not Found",
            "failed before error",
            "a Fail then a failed",
            "I'LL USE the cache",
            "i\u{2019}ll use the cache",
            "errör, ERRor",
            "ſ fails? no: \u{17F}tatus ok but Not found",
            "\u{212A} then Fail",
            "→ erro r ✓ then eRrOr",
            "faile",
            "not  found",
        ];
        for t in texts {
            assert_eq!(WORDS.find(t), re.find(t).map(|m| m.range()), "{t:?}");
            assert_eq!(WORDS.is_match(t), re.is_match(t), "{t:?}");
        }
    }

    /// A long s or Kelvin sign makes a word in a text, as it does for the regex.
    #[test]
    fn the_two_unicode_letters_count_as_theirs() {
        static W: Words = Words::new(&["status", "traceback"]);
        assert_eq!(W.find("a \u{17F}tatus"), Some(2..9));
        assert!(W.is_match("TRACEBAC\u{212A}"));
        assert!(!W.is_match("stat\u{fc}s"));
    }
}
