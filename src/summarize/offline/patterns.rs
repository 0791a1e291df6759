//! What the gists search tool outputs and assistant texts for, as regexes. Shared by the
//! build script, which compiles them into DFAs (build/regexes.rs), and by the searches
//! (`crate::prebuilt::Regex`), which read those DFAs, or compile these patterns should
//! the DFAs not read.

/// The words that mark a decision, as an alternation (no metacharacters: the words are
/// matched as they are, in any case).
macro_rules! decision_words {
    () => {
        "decided|decide to|i'll use|we'll use|i will use|we will use|going with|chose|\
         switch to|switched to|switching to|opt for|opted for|the plan is|approach is|\
         let's use|settled on"
    };
}

/// Any of the decision words, in any case.
pub const DECISIONS: &str = concat!("(?i)", decision_words!());

/// A decision word as a whole word: what a sentence that records a decision has. Not
/// compiled ahead: a DFA has no Unicode word boundary.
#[allow(dead_code)] // not read by the build script
pub const DECISION_SENTENCE: &str = concat!(r"(?i)\b(?:", decision_words!(), r")\b");

/// The words of a failed tool's output's error line, in any case.
pub const ERROR_WORDS: &str =
    "(?i)error|exception|traceback|panicked|failed|fatal|denied|not found";

/// An exit code report (`Exit code: 1`, `"exit_code": 1`, `Process exited with code 1`),
/// ending with the code (`-?\d+`, after the last character the rest of it may end with:
/// whitespace, `:`, `=`, `"` or the `e` of `code`).
pub const EXIT_CODE: &str = r#"(?i)(?:exit(?:ed with)?|return)[ _]?code"?\s*[:=]?\s*-?\d+"#;

/// The patterns the build script compiles, by the names their DFAs' files take.
#[allow(dead_code)] // read by the build script
pub const ALL: [(&str, &str); 3] = [
    ("decisions", DECISIONS),
    ("error_words", ERROR_WORDS),
    ("exit_code", EXIT_CODE),
];
