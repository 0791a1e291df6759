//! One-line previews of message text for tables.

/// The first `max` characters of `text` on one line.
pub fn preview(text: &str, max: usize) -> String {
    // Only as many words as the preview can show are looked at (a message can be 100 MB).
    let mut one_line = String::new();
    let mut chars = 0;
    for word in text.split_whitespace() {
        if chars > max {
            break;
        }
        if !one_line.is_empty() {
            one_line.push(' ');
            chars += 1;
        }
        one_line.push_str(word);
        chars += word.chars().count();
    }
    if chars <= max {
        one_line
    } else {
        let cut: String = one_line.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests {
    use super::preview;

    /// The plain definition: every word joined, then cut.
    fn reference(text: &str, max: usize) -> String {
        let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if one_line.chars().count() <= max {
            one_line
        } else {
            let cut: String = one_line.chars().take(max.saturating_sub(1)).collect();
            format!("{cut}…")
        }
    }

    #[test]
    fn previews_equal_the_plain_definition() {
        let long = "word ".repeat(100);
        for text in [
            "",
            "  ",
            "one",
            "a  b\n\tc",
            "exactly ten",
            "éèê ünïcödé wörds and more words to pass sixty characters in total, surely",
            long.as_str(),
            "x".repeat(200).as_str(),
        ] {
            for max in [0, 1, 5, 10, 11, 60] {
                assert_eq!(preview(text, max), reference(text, max), "{text:?} {max}");
            }
        }
    }
}
