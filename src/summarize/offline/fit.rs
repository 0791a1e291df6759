//! Fitting sections into a token cap by shortening the least important ones first.

use std::borrow::Cow;

use crate::tokens::Counter;

/// A list keeps at least this many items, a text this many characters, before any section
/// is shortened further.
const LIST_FLOOR: usize = 3;
const TEXT_FLOOR: usize = 400;

/// A titled part of the summary.
#[derive(Debug, Clone)]
pub struct Section {
    pub title: &'static str,
    pub body: Body,
}

#[derive(Debug, Clone)]
pub enum Body {
    /// Text shown up to `limit` characters (head and tail kept).
    Text { text: String, limit: usize },
    /// Bullets; `keep` of them are shown, the first ones, or the last when `from_end`.
    List {
        items: Vec<String>,
        keep: usize,
        from_end: bool,
    },
}

impl Section {
    pub fn text(title: &'static str, text: String) -> Section {
        let limit = text.chars().count();
        Section {
            title,
            body: Body::Text { text, limit },
        }
    }

    pub fn list(
        title: &'static str,
        items: impl IntoIterator<Item = String>,
        from_end: bool,
    ) -> Section {
        let items: Vec<String> = items.into_iter().collect();
        Section {
            title,
            body: Body::List {
                keep: items.len(),
                items,
                from_end,
            },
        }
    }

    pub fn is_empty(&self) -> bool {
        match &self.body {
            Body::Text { text, .. } => text.trim().is_empty(),
            Body::List { items, .. } => items.is_empty(),
        }
    }

    fn render(&self, out: &mut String) {
        out.push_str("## ");
        out.push_str(self.title);
        out.push('\n');
        match &self.body {
            Body::Text { text, limit } => {
                out.push_str(&shortened(text, *limit));
                out.push('\n');
            }
            Body::List {
                items,
                keep,
                from_end,
            } => {
                let hidden = items.len() - keep;
                let shown = if *from_end {
                    &items[hidden..]
                } else {
                    &items[..*keep]
                };
                if *from_end && hidden > 0 {
                    out.push_str(&format!("- ({hidden} earlier omitted)\n"));
                }
                for item in shown {
                    out.push_str("- ");
                    out.push_str(item);
                    out.push('\n');
                }
                if !*from_end && hidden > 0 {
                    out.push_str(&format!("- ({hidden} more omitted)\n"));
                }
            }
        }
    }

    /// Shortens one step (halving) without going below `floor`; false if it cannot.
    fn shrink(&mut self, list_floor: usize, text_floor: usize) -> bool {
        match &mut self.body {
            Body::Text { limit, .. } if *limit > text_floor => {
                *limit = (*limit / 2).max(text_floor);
                true
            }
            Body::List { keep, .. } if *keep > list_floor => {
                *keep = (*keep / 2).max(list_floor);
                true
            }
            _ => false,
        }
    }
}

/// Renders `header` and `sections`, shortening sections in `order` (least important first)
/// until the text fits `cap` tokens: first each down to a floor, then each down to nothing.
/// The most important (the last in `order`) is only shortened in the second round: it is
/// one the caller already fitted to its own share of the cap (the user's requests).
pub fn fit(
    header: &str,
    sections: &mut [Section],
    order: &[&str],
    counter: &Counter,
    cap: usize,
) -> String {
    let mut over = Over::default();
    fit_checking(header, sections, order, cap, |text| {
        over.exceeds(counter, text, cap)
    })
}

/// [`fit`], with `exceeds` telling whether a draft has more than `cap` tokens.
fn fit_checking(
    header: &str,
    sections: &mut [Section],
    order: &[&str],
    cap: usize,
    mut exceeds: impl FnMut(&str) -> bool,
) -> String {
    // Rendered again and again into the same buffer: a large summary's first drafts are
    // hundreds of KB, and a fresh buffer each time is fresh pages to fault in.
    let render = |out: &mut String, sections: &[Section]| {
        out.clear();
        out.push_str(header);
        out.push('\n');
        for s in sections {
            out.push('\n');
            s.render(out);
        }
    };
    // Lists start at what could possibly fit: every bullet costs a few tokens.
    for s in sections.iter_mut() {
        if let Body::List { keep, .. } = &mut s.body {
            *keep = (*keep).min(cap / 4 + 1);
        }
    }
    let mut text = String::new();
    render(&mut text, sections);
    for (round, (list_floor, text_floor)) in [(LIST_FLOOR, TEXT_FLOOR), (0, 0)].iter().enumerate() {
        let (list_floor, text_floor) = (*list_floor, *text_floor);
        let titles = if round == 0 {
            &order[..order.len().saturating_sub(1)]
        } else {
            order
        };
        for title in titles {
            let Some(i) = sections.iter().position(|s| s.title == *title) else {
                continue;
            };
            while exceeds(&text) && sections[i].shrink(list_floor, text_floor) {
                render(&mut text, sections);
            }
        }
    }
    text
}

/// What the counts so far showed. A section shortened leaves the summary's first sections
/// as they were, and those are where the count passes the cap until the first one is
/// shortened in turn: they need not be counted again at every step. And once the text
/// fits, every section left is checked against the same text.
#[derive(Default)]
struct Over {
    /// A prefix the texts starting with pass the cap, and whether it is all of the text
    /// counted (which a text must then be).
    passes: Option<(String, bool)>,
    /// The last text that fit.
    fits: Option<String>,
}

impl Over {
    /// Whether `text` has more than `cap` tokens.
    fn exceeds(&mut self, counter: &Counter, text: &str, cap: usize) -> bool {
        if let Some((prefix, whole)) = &self.passes {
            if text.starts_with(prefix.as_str()) && (!whole || text.len() == prefix.len()) {
                return true;
            }
        }
        if self.fits.as_deref() == Some(text) {
            return false;
        }
        let Some(decided) = counter.passes(text, cap) else {
            self.fits = Some(text.to_string());
            return false;
        };
        self.passes = Some((text[..decided].to_string(), decided == text.len()));
        true
    }
}

/// `text` shortened to about `tokens` tokens (head and tail kept), or unchanged if it fits.
pub fn clamp(text: &str, counter: &Counter, tokens: usize) -> String {
    let text = text.trim();
    // Most texts are too short to need counting (a large middle's thousands of requests).
    if counter.at_most(text) <= tokens {
        return text.to_string();
    }
    let have = counter.text(text);
    if have <= tokens {
        return text.to_string();
    }
    let chars = text.chars().count();
    shorten(text, chars * tokens / have.max(1))
}

/// The first line of `text`, at most `max` characters, marked when anything was cut.
pub fn one_line(text: &str, max: usize) -> String {
    let mut lines = text.trim().lines();
    let first = lines.next().unwrap_or_default().trim();
    let more = lines.next().is_some();
    let head = prefix_chars(first, max);
    let mut out = head.to_string();
    if more || head.len() < first.len() {
        out.push_str(" …");
    }
    out
}

/// The first `n` characters of `text` (all of it when it has no more), sliced in place.
pub fn prefix_chars(text: &str, n: usize) -> &str {
    // No more bytes than `n` is no more characters; `n` ASCII bytes are `n` characters.
    if n >= text.len() {
        return text;
    }
    if text.as_bytes()[..n].is_ascii() {
        return &text[..n];
    }
    match text.char_indices().nth(n) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}

/// The last `n` characters of `text` (all of it when it has no more), sliced in place and
/// found from the end: a long text's head and tail cost what they keep.
pub fn suffix_chars(text: &str, n: usize) -> &str {
    if n >= text.len() {
        return text;
    }
    // `n` ASCII bytes at the end are `n` characters (none continues another).
    let start = text.len() - n;
    if text.as_bytes()[start..].is_ascii() {
        return &text[start..];
    }
    match text.char_indices().nth_back(n - 1) {
        Some((i, _)) => &text[i..],
        None => text,
    }
}

/// `text` cut to about `limit` characters: two thirds from the start, one third from the
/// end, and a marker saying how much was left out.
pub fn shorten(text: &str, limit: usize) -> String {
    shortened(text, limit).into_owned()
}

/// [`shorten`], borrowing a text that is not cut.
fn shortened(text: &str, limit: usize) -> Cow<'_, str> {
    let chars = text.chars().count();
    if chars <= limit {
        return Cow::Borrowed(text);
    }
    let head = limit * 2 / 3;
    let tail = limit - head;
    let omitted = chars - head - tail;
    let start = prefix_chars(text, head);
    let end = suffix_chars(text, tail);
    Cow::Owned(match (head, tail) {
        (0, 0) => format!("[… {omitted} characters omitted …]"),
        _ => format!("{start}\n[… {omitted} characters omitted …]\n{end}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::{Encoding, Tokenizer};

    fn counter() -> Counter {
        Counter::new(Tokenizer::new(Encoding::Approx).unwrap())
    }

    #[test]
    fn shorten_keeps_head_and_tail() {
        assert_eq!(shorten("abcdef", 6), "abcdef");
        assert_eq!(
            shorten("abcdefghij", 3),
            "ab\n[… 7 characters omitted …]\nj"
        );
        assert_eq!(shorten("éééé", 0), "[… 4 characters omitted …]");
        assert_eq!(one_line("  first\nsecond", 100), "first …");
        assert_eq!(one_line("abcdef", 3), "abc …");
        assert_eq!(one_line("abc", 3), "abc");
        assert_eq!(one_line("ééé\n", 2), "éé …");
        assert_eq!(shorten("ééééééé", 3), "éé\n[… 4 characters omitted …]\né");
        assert_eq!(prefix_chars("aé🙂b", 3), "aé🙂");
        assert_eq!(prefix_chars("aé", 5), "aé");
        assert_eq!(prefix_chars("aé", 0), "");
        assert_eq!(prefix_chars("abcé", 3), "abc");
        assert_eq!(prefix_chars("abcé", 4), "abcé");
        assert_eq!(prefix_chars("abé", 2), "ab");
        for text in ["", "abc", "aé🙂b", "ééé", "🙂a", "xyzé"] {
            let chars = text.chars().count();
            for n in 0..=chars + 2 {
                let want = &text[prefix_chars(text, chars.saturating_sub(n)).len()..];
                assert_eq!(suffix_chars(text, n), want, "{text:?} {n}");
            }
        }
    }

    #[test]
    fn least_important_sections_shrink_first() {
        let items = |p: &'static str| (0..50).map(move |i| format!("{p} item number {i}"));
        let mut sections = vec![
            Section::text("Goal", "g".repeat(400)),
            Section::list("Important", items("imp"), false),
            Section::list("Minor", items("min"), true),
        ];
        let c = counter();
        let text = fit(
            "Header",
            &mut sections,
            &["Minor", "Important", "Goal"],
            &c,
            400,
        );
        assert!(c.text(&text) <= 400, "{}", c.text(&text));
        assert!(text.contains(&"g".repeat(400)), "goal untouched");
        // Minor went down to its floor before Important lost anything below it.
        let keep = |s: &Section| match &s.body {
            Body::List { keep, .. } => *keep,
            Body::Text { .. } => unreachable!(),
        };
        assert_eq!(keep(&sections[2]), LIST_FLOOR);
        assert_eq!(
            keep(&sections[1]),
            50,
            "the next section is untouched once it fits"
        );
        assert!(
            text.contains("- (47 earlier omitted)\n- min item number 47\n"),
            "{text}"
        );
        // A smaller cap shortens the important list too, halving only until the text fits.
        let text = fit(
            "Header",
            &mut sections,
            &["Minor", "Important", "Goal"],
            &c,
            200,
        );
        assert!(c.text(&text) <= 200);
        assert_eq!(keep(&sections[2]), LIST_FLOOR);
        assert!((LIST_FLOOR..50).contains(&keep(&sections[1])));
        assert!(text.contains("more omitted)"), "{text}");
    }

    #[test]
    fn tiny_caps_empty_every_section() {
        let mut sections = vec![Section::text("Goal", "word ".repeat(200))];
        let c = counter();
        let text = fit("H", &mut sections, &["Goal"], &c, 10);
        assert_eq!(text, "H\n\n## Goal\n[… 1000 characters omitted …]\n");
        assert_eq!(
            clamp("abcdefgh", &c, 1),
            "ab\n[… 4 characters omitted …]\ngh"
        );
    }

    proptest::proptest! {
        /// Counting only what changed fits the sections exactly as counting every step.
        #[test]
        fn fitting_counts_only_what_changed(
            words in proptest::collection::vec(
                proptest::sample::select(vec![
                    "fix", "the", "parser", "'ll", "\n", " ", "  ", "src/a.rs", "É", "🙂", "42",
                    "`cargo test`", "!", ")\n",
                ]),
                1..400,
            ),
            items in 0usize..60,
            cap in 1usize..300,
        ) {
            let text = words.concat();
            let make = || vec![
                Section::text("Requests", text.clone()),
                Section::list("Files", (0..items).map(|i| format!("src/{i}/{}.rs", words[i % words.len()])), false),
                Section::text("State", text.chars().rev().collect()),
                Section::list("Calls", (0..items).map(|i| format!("read `{i}` → ok")), true),
            ];
            let order = ["Calls", "State", "Files", "Requests"];
            for e in [Encoding::O200kBase, Encoding::Cl100kBase, Encoding::Approx] {
                let c = Counter::new(Tokenizer::new(e).unwrap());
                let (mut a, mut b) = (make(), make());
                // Every step counted afresh, as before [`Over`].
                let every_step = fit_checking("Header", &mut b, &order, cap, |t| c.exceeds(t, cap));
                proptest::prop_assert_eq!(fit("Header", &mut a, &order, &c, cap), every_step);
            }
        }
    }
}
