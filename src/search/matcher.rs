//! The pattern a search looks for ([`Matcher`]), and the cheap test on a record's raw
//! bytes that rules most records out before any JSON is parsed.
//!
//! The prefilter is sound, never a false "no": it looks for the longest run of the
//! pattern's characters that every JSON writer writes as themselves (ASCII letters,
//! digits, spaces and punctuation other than `"`, `\`, `/`, `<`, `>`, `&` and `'`, which
//! some writers escape), so text that holds the pattern holds the run byte for byte in
//! the file. A regex's prefilter is the set of such runs of the literals one of which
//! every match starts (or ends) with. A pattern with no such run of [`MIN_RUN`]
//! characters has no prefilter: every record is parsed.

use regex::{bytes, Regex, RegexBuilder};

use super::SearchError;

/// The shortest run worth a prefilter.
const MIN_RUN: usize = 3;

/// How a pattern is read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MatchOptions {
    /// Case-insensitive (`-i`).
    pub ignore_case: bool,
    /// Whole words only (`-w`).
    pub word: bool,
    /// The pattern is a literal string, not a regex (`-F`).
    pub fixed: bool,
}

/// A compiled pattern.
#[derive(Debug, Clone)]
pub struct Matcher {
    regex: Regex,
    prefilter: Option<bytes::Regex>,
}

impl Matcher {
    /// Compiles `pattern` as `opts` say.
    pub fn new(pattern: &str, opts: MatchOptions) -> Result<Matcher, SearchError> {
        let literal = opts.fixed || !pattern.chars().any(regex_syntax_meta);
        let body = if opts.fixed {
            regex::escape(pattern)
        } else {
            pattern.to_string()
        };
        let body = if opts.word {
            format!(r"\b(?:{body})\b")
        } else {
            body
        };
        let regex = RegexBuilder::new(&body)
            .case_insensitive(opts.ignore_case)
            .multi_line(true)
            .build()
            .map_err(|e| SearchError::Pattern {
                pattern: pattern.to_string(),
                why: one_line(&e),
            })?;
        let runs = if literal {
            plain_run(pattern, opts.ignore_case).map(|r| vec![r])
        } else {
            required_runs(&body, opts.ignore_case)
        };
        let prefilter = runs.map(|runs| {
            let alts: Vec<String> = runs.iter().map(|r| regex::escape(r)).collect();
            bytes::RegexBuilder::new(&alts.join("|"))
                .case_insensitive(opts.ignore_case)
                .build()
                .expect("escaped literals make a valid regex")
        });
        Ok(Matcher { regex, prefilter })
    }

    /// Whether `raw` (a record as the file holds it, JSON escapes and all) may hold a
    /// match in its text: false only when it cannot.
    pub fn may_match(&self, raw: &[u8]) -> bool {
        self.prefilter.as_ref().is_none_or(|p| p.is_match(raw))
    }

    /// The prefilter, if the pattern has one.
    pub fn prefilter(&self) -> Option<&bytes::Regex> {
        self.prefilter.as_ref()
    }

    /// The same pattern with no prefilter: every record is parsed (the plain path, which
    /// the prefilter's results are held to).
    pub fn without_prefilter(mut self) -> Matcher {
        self.prefilter = None;
        self
    }

    /// Whether the prefilter rules records out (false: every record is parsed).
    pub fn has_prefilter(&self) -> bool {
        self.prefilter.is_some()
    }

    /// The byte ranges of the matches in `text`.
    pub fn find_all(&self, text: &str) -> Vec<std::ops::Range<usize>> {
        self.regex
            .find_iter(text)
            .filter(|m| !m.is_empty())
            .map(|m| m.range())
            .collect()
    }

    pub fn is_match(&self, text: &str) -> bool {
        self.regex.find_iter(text).any(|m| !m.is_empty())
    }
}

/// A regex error on one line: its last line (`unclosed group`), which says what is wrong.
fn one_line(e: &regex::Error) -> String {
    let text = e.to_string();
    let last = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    last.trim().trim_start_matches("error: ").to_string()
}

/// Whether `c` has a meaning in a regex (the pattern is then not a plain literal).
fn regex_syntax_meta(c: char) -> bool {
    matches!(
        c,
        '\\' | '.' | '+' | '*' | '?' | '(' | ')' | '|' | '[' | ']' | '{' | '}' | '^' | '$'
    )
}

/// Whether every JSON writer writes `c` as itself, and (case-insensitively) every
/// character it matches too.
fn is_plain(c: char, ignore_case: bool) -> bool {
    let plain = c.is_ascii_alphanumeric()
        || c == ' '
        || (c.is_ascii_punctuation() && !matches!(c, '"' | '\\' | '/' | '<' | '>' | '&' | '\''));
    // Under Unicode case folding `k` also matches the Kelvin sign and `s` the long s,
    // which a writer may escape as \uXXXX.
    plain && !(ignore_case && matches!(c, 'k' | 'K' | 's' | 'S'))
}

/// For a regex: a set of plain runs one of which every match holds, if there is one
/// (each at least [`MIN_RUN`] long). The regex's literals (regex-syntax's extraction,
/// prefixes, then suffixes) are what every match starts (or ends) with; the longest
/// plain run of each is then in the file byte for byte. The case is left to the
/// prefilter (the pattern is read case-sensitively here, as `plain_run` does).
fn required_runs(body: &str, ignore_case: bool) -> Option<Vec<String>> {
    use regex_syntax::hir::literal::{ExtractKind, Extractor};
    let hir = regex_syntax::ParserBuilder::new()
        .multi_line(true)
        .build()
        .parse(body)
        .ok()?;
    let mut best: Option<Vec<String>> = None;
    for kind in [ExtractKind::Prefix, ExtractKind::Suffix] {
        let seq = Extractor::new().kind(kind).extract(&hir);
        let Some(lits) = seq.literals() else { continue };
        let mut runs = Vec::with_capacity(lits.len());
        for lit in lits {
            let text = std::str::from_utf8(lit.as_bytes()).ok()?;
            runs.push(plain_run(text, ignore_case)?);
        }
        runs.sort();
        runs.dedup();
        let shortest = |r: &Vec<String>| r.iter().map(String::len).min().unwrap_or(0);
        if !runs.is_empty() && best.as_ref().is_none_or(|b| shortest(&runs) > shortest(b)) {
            best = Some(runs);
        }
    }
    best
}

/// The longest run of `pattern`'s plain characters, if it is long enough.
fn plain_run(pattern: &str, ignore_case: bool) -> Option<String> {
    let mut best = "";
    for run in pattern.split(|c| !is_plain(c, ignore_case)) {
        if run.len() > best.len() {
            best = run;
        }
    }
    (best.len() >= MIN_RUN).then(|| best.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, opts: MatchOptions) -> Matcher {
        Matcher::new(p, opts).unwrap()
    }

    #[test]
    fn the_prefilter_takes_the_longest_run_a_writer_never_escapes() {
        assert_eq!(
            plain_run("say \"hi there\" now", false).as_deref(),
            Some("hi there")
        );
        assert_eq!(plain_run("a/b\nc", false), None);
        assert_eq!(plain_run("risk task", true).as_deref(), Some(" ta"));
        assert_eq!(plain_run("abc", true).as_deref(), Some("abc"));
    }

    #[test]
    fn a_quote_in_the_pattern_still_passes_the_prefilter_of_its_escaped_form() {
        let f = MatchOptions {
            fixed: true,
            ..MatchOptions::default()
        };
        let x = m("he said \"go\"", f);
        assert!(x.may_match(br#"{"text":"he said \"go\" twice"}"#));
        assert!(x.is_match("he said \"go\" twice"));
        assert!(!x.may_match(br#"{"text":"she said"}"#));
    }

    #[test]
    fn words_cases_and_regexes() {
        let w = MatchOptions {
            word: true,
            ..MatchOptions::default()
        };
        assert!(m("cat", w).is_match("a cat sat"));
        assert!(!m("cat", w).is_match("concatenate"));
        let i = MatchOptions {
            ignore_case: true,
            ..MatchOptions::default()
        };
        assert!(m("HELLO", i).is_match("say hello"));
        assert!(m("HELLO", i).may_match(b"say hello"));
        let r = m(r"err(or)?\d+", MatchOptions::default());
        assert!(r.has_prefilter());
        assert!(!r.may_match(b"an er42"));
        assert!(!m(r"\d+ e", MatchOptions::default()).has_prefilter());
        assert_eq!(r.find_all("x error42 err7"), vec![2..9, 10..14]);
        assert!(matches!(
            Matcher::new("(", MatchOptions::default()),
            Err(SearchError::Pattern { .. })
        ));
    }
}
