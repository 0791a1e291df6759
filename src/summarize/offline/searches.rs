//! The searches the gists make in every tool output and assistant text, ready in
//! microseconds: their regexes (patterns.rs) were compiled into DFAs by the build script
//! and are read in place ([`crate::prebuilt::Regex`]).

use crate::prebuilt::{self, Regex};

use super::patterns;

/// Any decision word ([`patterns::DECISIONS`]).
pub static DECISIONS: Regex = prebuilt::regex!("decisions", patterns::DECISIONS);

/// The words of an error line ([`patterns::ERROR_WORDS`]).
pub static ERROR_WORDS: Regex = prebuilt::regex!("error_words", patterns::ERROR_WORDS);

/// An exit code report ([`patterns::EXIT_CODE`]).
pub static EXIT_CODE: Regex = prebuilt::regex!("exit_code", patterns::EXIT_CODE);

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn all() -> [&'static Regex; 3] {
        [&DECISIONS, &ERROR_WORDS, &EXIT_CODE]
    }

    /// The DFAs are read, not compiled, and are the build script's for these patterns.
    #[test]
    fn every_search_reads_its_tables() {
        let names: Vec<&str> = all().iter().map(|r| r.pattern()).collect();
        let built: Vec<&str> = patterns::ALL.iter().map(|p| p.1).collect();
        assert_eq!(names, built);
        for re in all() {
            assert!(re.is_read(), "{}", re.pattern());
        }
    }

    /// Each finds what `regex::Regex` finds: the long s (`ſ`) and the Kelvin sign (`K`)
    /// stand for `s` and `k` under `(?i)`, and `\s` and `\d` are Unicode's.
    #[test]
    fn finds_what_the_compiled_regex_finds() {
        let texts = [
            "",
            "all fine",
            "ERROR: it broke",
            "the build FAILED; not Found",
            "failed before error",
            "TRACEBAC\u{212A} then an Exception",
            "I'LL USE the cache; we\u{2019}ll use",
            "the plan i\u{17F} set, Let'\u{17F} use it",
            "errör, ERRor, → erro r ✓ then eRrOr",
            "Exit code: 1\nWall time: 2s",
            "{\"metadata\":{\"exit_code\":0}}",
            "Process exited with code -9",
            "RETURN_CODE= 3 and exit code \u{a0}\u{2003}42",
            "exit code: ٣٤",
            "exitcode\"-",
        ];
        for re in all() {
            let compiled = regex::Regex::new(re.pattern()).unwrap();
            for t in texts {
                let want = compiled.find(t).map(|m| m.range());
                assert_eq!(re.find(t), want, "{} in {t:?}", re.pattern());
                assert_eq!(re.is_match(t), want.is_some(), "{} in {t:?}", re.pattern());
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]
        #[test]
        fn finds_what_the_compiled_regex_finds_in_any_text(
            text in "((?i)error|fail(ed)?|not found|traceback|exit(ed with)?|return|code|\
                     decided?|i'll use|the plan is|chose)?\
                     ([ _:=\"\\-\\n]|\\s|\\d|\\PC|[ſKk]){0,6}",
            repeat in 1..4usize,
        ) {
            let text = text.repeat(repeat);
            for re in all() {
                let compiled = regex::Regex::new(re.pattern()).unwrap();
                prop_assert_eq!(re.find(&text), compiled.find(&text).map(|m| m.range()));
            }
        }
    }
}
