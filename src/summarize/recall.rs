//! The self-check of a summary: which facts of the messages it replaces it still mentions.
//!
//! The facts are those the offline summarizer extracts ([`super::offline::collect`]): file
//! paths, shell commands, the lines of errors, and the user's requests. A fact is mentioned
//! when its text appears in the summary (whitespace runs compared as one space): a path
//! whole, a command or error by its first line (at most 80 characters), a request by its
//! first line (at most 40, the head a shortened request keeps). Deterministic: the same
//! messages and summary give the same figures and the same list of what is missing.

use serde::Serialize;

use crate::fasthash::FastSet;

use super::offline::{collect, fit, Facts};
use crate::session::Message;

/// What kind of fact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Request,
    Path,
    Command,
    Error,
}

impl Kind {
    pub const ALL: [Kind; 4] = [Kind::Request, Kind::Path, Kind::Command, Kind::Error];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Request => "requests",
            Kind::Path => "paths",
            Kind::Command => "commands",
            Kind::Error => "errors",
        }
    }
}

/// One fact and the text that must appear for it to count as mentioned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fact {
    pub kind: Kind,
    pub text: String,
}

/// How many facts of one kind the summary mentions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub mentioned: usize,
    pub facts: usize,
}

/// The result of the check.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Recall {
    /// Per kind, in [`Kind::ALL`] order.
    pub tallies: [Tally; 4],
    /// The facts not mentioned, in the order found.
    pub missing: Vec<Fact>,
}

impl Recall {
    pub fn mentioned(&self) -> usize {
        self.tallies.iter().map(|t| t.mentioned).sum()
    }

    pub fn facts(&self) -> usize {
        self.tallies.iter().map(|t| t.facts).sum()
    }

    /// Mentioned facts over all facts (1 when there are none), rounded to 4 places.
    pub fn score(&self) -> f64 {
        match self.facts() {
            0 => 1.0,
            n => (self.mentioned() as f64 / n as f64 * 10_000.0).floor() / 10_000.0,
        }
    }

    pub fn tally(&self, kind: Kind) -> Tally {
        self.tallies[kind as usize]
    }

    /// `recall 97% (requests 2/2, paths 30/31, commands 12/12, errors 3/4)`.
    pub fn describe(&self) -> String {
        let parts: Vec<String> = Kind::ALL
            .iter()
            .filter(|k| self.tally(**k).facts > 0)
            .map(|k| {
                let t = self.tally(*k);
                format!("{} {}/{}", k.name(), t.mentioned, t.facts)
            })
            .collect();
        let pct = (self.score() * 100.0).floor();
        if parts.is_empty() {
            format!("recall {pct:.0}% (no facts to check)")
        } else {
            format!("recall {pct:.0}% ({})", parts.join(", "))
        }
    }
}

/// The facts of `messages` a summary of them should mention, without repeats.
pub fn facts(messages: &[Message]) -> Vec<Fact> {
    facts_of(&collect(messages))
}

/// The facts a summary should mention, from the collected facts `f` of the messages it
/// replaces (see [`crate::summarize::Input::facts`]), without repeats, in the order found.
pub fn facts_of(f: &Facts) -> Vec<Fact> {
    let requests = f.requests.iter().map(|r| (Kind::Request, head(r, 40)));
    let paths = f.files.iter().map(|(p, _)| (Kind::Path, p.as_str()));
    let commands = f.commands.iter().map(|(c, _)| (Kind::Command, head(c, 80)));
    let errors = f.errors.iter().map(|e| (Kind::Error, head(&e.line, 80)));
    let all: Vec<(Kind, String)> = (requests.chain(paths).chain(commands).chain(errors))
        .map(|(kind, text)| (kind, normalize(text)))
        .collect();
    // Repeats found by hash (a large middle has thousands of requests and paths), the
    // first of each kept.
    let mut seen: FastSet<(Kind, &str)> = FastSet::default();
    let first: Vec<bool> = (all.iter())
        .map(|(kind, text)| !text.is_empty() && seen.insert((*kind, text.as_str())))
        .collect();
    drop(seen);
    (all.into_iter().zip(first))
        .filter(|(_, first)| *first)
        .map(|((kind, text), _)| Fact { kind, text })
        .collect()
}

/// Checks which of `facts` `summary` mentions.
pub fn measure(facts: &[Fact], summary: &str) -> Recall {
    let text = normalize(summary);
    // Every run of WINDOW bytes of the summary: a fact whose first bytes are not among them
    // is not in it, told without a search (a large middle has thousands of facts, most of
    // them left out of a short summary).
    let starts: FastSet<&[u8]> = text.as_bytes().windows(WINDOW).collect();
    let mentions = |fact: &str| {
        let b = fact.as_bytes();
        (b.len() < WINDOW || starts.contains(&b[..WINDOW]))
            && memchr::memmem::find(text.as_bytes(), b).is_some()
    };
    let mut r = Recall::default();
    for f in facts {
        let t = &mut r.tallies[f.kind as usize];
        t.facts += 1;
        if mentions(&f.text) {
            t.mentioned += 1;
        } else {
            r.missing.push(f.clone());
        }
    }
    r
}

/// Bytes of a fact looked up among the summary's before it is searched for.
const WINDOW: usize = 8;

/// The list appended to a summary that left facts out, so that nothing is silently lost.
pub fn appendix(missing: &[Fact]) -> String {
    let mut out = String::from("## Facts the summary did not mention\n");
    for k in Kind::ALL {
        for f in missing.iter().filter(|f| f.kind == k) {
            out.push_str(&format!(
                "- {}: {}\n",
                &k.name()[..k.name().len() - 1],
                f.text
            ));
        }
    }
    out
}

/// The first line of `text`, at most `max` characters.
fn head(text: &str, max: usize) -> &str {
    // `fit::one_line` without the mark it adds when it cuts (nor any the line ends with).
    let first = text.trim().lines().next().unwrap_or_default().trim();
    fit::prefix_chars(first, max).trim_end_matches(" …")
}

/// `text` with every run of whitespace made one space, trimmed.
fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for w in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{Origin, Part, Role};

    #[test]
    fn a_head_is_the_first_line_cut_without_its_mark() {
        for (text, max) in [
            ("", 40),
            ("  Fix the build\nplease  ", 40),
            ("Fix the build", 3),
            ("ends with a mark …", 40),
            ("ends with marks … …", 17),
            ("éé🙂 words", 2),
        ] {
            let want = fit::one_line(text, max).trim_end_matches(" …").to_string();
            assert_eq!(head(text, max), want, "{text:?} {max}");
        }
    }

    fn msgs() -> Vec<Message> {
        let m = |role, parts| Message::new(role, parts, Origin::Record(0));
        vec![
            m(
                Role::User,
                vec![Part::Text("Fix   the build\nplease".into())],
            ),
            m(
                Role::Assistant,
                vec![Part::ToolCall {
                    id: "1".into(),
                    name: "Bash".into(),
                    arguments: r#"{"command":"cargo build && rm old.rs"}"#.into(),
                }],
            ),
            m(
                Role::Tool,
                vec![Part::ToolResult {
                    call_id: "1".into(),
                    content: vec![Part::Text("error[E0308]: mismatched types".into())],
                    is_error: true,
                }],
            ),
        ]
    }

    #[test]
    fn facts_are_found_by_their_text_and_the_missing_ones_listed() {
        let facts = facts(&msgs());
        let kinds: Vec<Kind> = facts.iter().map(|f| f.kind).collect();
        assert_eq!(kinds, [Kind::Request, Kind::Command, Kind::Error]);
        assert_eq!(facts[0].text, "Fix the build");
        let r = measure(
            &facts,
            "The user asked: Fix the\n build. Ran `cargo build && rm old.rs`.",
        );
        assert_eq!(
            r.tally(Kind::Request),
            Tally {
                mentioned: 1,
                facts: 1
            }
        );
        assert_eq!(
            r.tally(Kind::Command),
            Tally {
                mentioned: 1,
                facts: 1
            }
        );
        assert_eq!(r.score(), 0.6666);
        assert_eq!(
            r.describe(),
            "recall 66% (requests 1/1, commands 1/1, errors 0/1)"
        );
        assert_eq!(
            appendix(&r.missing),
            "## Facts the summary did not mention\n- error: error[E0308]: mismatched types\n"
        );
        let none = measure(&[], "x");
        assert_eq!(
            (none.score(), none.describe().as_str()),
            (1.0, "recall 100% (no facts to check)")
        );
    }

    #[test]
    fn facts_are_found_wherever_they_are_and_whatever_their_length() {
        let summary = "ls\nRan  `cargo test --all` — ok; then édité src/é.rs";
        let fact = |text: &str| Fact {
            kind: Kind::Command,
            text: text.into(),
        };
        let found = [
            "ls",
            "ls Ran",
            "cargo test --all",
            "src/é.rs",
            "édité",
            "é src/é.rs",
            "l",
        ];
        let missing = [
            "cargo test --allx",
            "cargo t3st",
            "lsx",
            "src/é.rs.",
            "ls  Ran",
        ];
        let facts: Vec<Fact> = found.iter().chain(&missing).map(|t| fact(t)).collect();
        let r = measure(&facts, summary);
        let left: Vec<&str> = r.missing.iter().map(|f| f.text.as_str()).collect();
        assert_eq!(left, missing);
        // As a plain search of the normalized summary finds them.
        let text = normalize(summary);
        for f in &facts {
            assert_eq!(
                text.contains(&f.text),
                !left.contains(&f.text.as_str()),
                "{}",
                f.text
            );
        }
    }

    #[test]
    fn facts_are_listed_once_in_the_order_found() {
        let mut all = msgs();
        all.extend(msgs());
        all.push(Message::new(
            Role::User,
            vec![Part::Text("Fix the   build\nagain".into())],
            Origin::Record(0),
        ));
        let found = facts(&all);
        let got: Vec<(Kind, &str)> = found.iter().map(|f| (f.kind, f.text.as_str())).collect();
        assert_eq!(
            got,
            [
                (Kind::Request, "Fix the build"),
                (Kind::Command, "cargo build && rm old.rs"),
                (Kind::Error, "error[E0308]: mismatched types"),
            ]
        );
        assert_eq!(facts_of(&collect(&all)), found);
    }

    #[test]
    fn the_offline_summary_mentions_every_fact_of_a_small_middle() {
        let msgs = msgs();
        let c = crate::tokens::Counter::new(
            crate::tokens::Tokenizer::new(crate::tokens::Encoding::Approx).unwrap(),
        );
        let s = super::super::offline::summarize(&super::super::Input::new(&msgs), &c, 2000);
        let r = measure(&facts(&msgs), &s);
        assert_eq!(r.score(), 1.0, "{:?}\n{s}", r.missing);
    }
}
