//! An earlier summary carried forward into a new one (compaction after compaction): its
//! body first, its specific items (paths, `code` spans) kept before its prose. When it
//! does not fit its share of the cap, its lines that carry no item and sit under no
//! heading on intent, decisions, pending work or the next step go first, long lines are
//! cut to their head and the items they name, and only then is the text clamped.

use std::sync::OnceLock;

use regex::Regex;

use super::fit;
use crate::tokens::Counter;

/// A `code` span or a path-like word (`src/a.rs`, `C:\x\y.txt`, `dir/sub/`).
const ITEM: &str = r"`[^`\n]{1,200}`|(?:[\w.~-]*/)+[\w.-]+|[A-Za-z]:\\[^\s`'\x22]+";

/// Headings whose sections are the summary's body: kept whole where possible.
const BODY: &str =
    r"(?i)request|intent|decision|correction|pending|current|next|todo|state|feedback|user";

/// Lines longer than this are cut to their head and the items they name.
const LONG: usize = 240;

fn item_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(ITEM).expect("valid regex"))
}

/// Whether a line is a heading (`## X`, `1. Primary Request:`, `**Files**`, `State:`).
fn is_heading(line: &str) -> bool {
    let t = line.trim();
    t.starts_with('#')
        || (t.starts_with("**") && t.ends_with("**"))
        || (t.ends_with(':') && t.chars().count() <= 80 && !t.starts_with(['-', '*']))
}

/// `text` within `tokens`, its items kept first (see the module doc).
pub fn carried(text: &str, counter: &Counter, tokens: usize) -> String {
    let text = text.trim();
    if counter.at_most(text) <= tokens || counter.text(text) <= tokens {
        return text.to_string();
    }
    static BODY_RE: OnceLock<Regex> = OnceLock::new();
    let body = BODY_RE.get_or_init(|| Regex::new(BODY).expect("valid regex"));
    let mut out = Vec::new();
    let mut in_body = false;
    for line in text.lines() {
        if line.trim().is_empty() {
            continue;
        }
        if is_heading(line) {
            in_body = body.is_match(line);
            out.push(fit::one_line(line, 120));
        } else if in_body || item_re().is_match(line) {
            out.push(condensed(line));
        }
    }
    let lines = out.join("\n");
    if counter.text(&lines) <= tokens {
        return lines;
    }
    // Still too long: the items alone, in order, each once.
    let mut seen = std::collections::BTreeSet::new();
    let items: Vec<&str> = (item_re().find_iter(text))
        .map(|m| m.as_str())
        .filter(|i| seen.insert(*i))
        .collect();
    let items = format!("Items it named: {}", items.join(", "));
    fit::clamp(&items, counter, tokens)
}

/// A line cut to `LONG` characters, the items past the cut appended.
fn condensed(line: &str) -> String {
    let line = line.trim();
    if line.chars().count() <= LONG {
        return line.to_string();
    }
    let head = fit::prefix_chars(line, LONG / 2);
    let rest: Vec<&str> = (item_re().find_iter(&line[head.len()..]))
        .map(|m| m.as_str())
        .collect();
    if rest.is_empty() {
        format!("{} …", head.trim_end())
    } else {
        format!("{} … {}", head.trim_end(), rest.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::{Encoding, Tokenizer};

    #[test]
    fn items_survive_where_prose_goes() {
        let counter = Counter::new(Tokenizer::new(Encoding::O200kBase).unwrap());
        let mut text = String::from("## Primary request\nPort the cache to `lru`.\n## Notes\n");
        for i in 0..200 {
            text.push_str(&format!(
                "Some prose about the design, round {i}, nothing specific.\n"
            ));
        }
        text.push_str("Touched src/cache/mod.rs and ran `cargo test -q`.\n");
        let out = carried(&text, &counter, 200);
        assert!(counter.text(&out) <= 200, "{out}");
        for item in [
            "`lru`",
            "src/cache/mod.rs",
            "`cargo test -q`",
            "Port the cache",
        ] {
            assert!(out.contains(item), "{item} lost: {out}");
        }
        assert!(!out.contains("round 7,"), "{out}");
        // What fits is kept as it is.
        assert_eq!(carried("short `x`", &counter, 200), "short `x`");
    }
}
