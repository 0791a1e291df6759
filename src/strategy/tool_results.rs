//! `tool-results`: every tool result over `--max-result-tokens N` is cut to at most N
//! tokens, its head and tail kept around a note saying how much was removed
//! (`[... ctxctl removed about 7520 of 9500 tokens from this tool result ...]`). Only the result's
//! content changes; results of N tokens or fewer, results holding images or other non-text
//! parts, and pinned messages are left alone. Nothing is dropped, so the budget may still be
//! exceeded; [`super::plan`] then says so.

use super::view::{editable_results, Ctx, Entry, Framing, View};
use crate::session::{join_text, Part};
use crate::tokens::Counter;

pub(crate) fn apply<'a>(mut view: View<'a>, ctx: &Ctx) -> View<'a> {
    let max = ctx.opts.max_result_tokens;
    let mut framing = Framing::default();
    for e in &mut view.entries {
        // A result counts no more than its message: most messages need no closer look.
        if e.system || e.pinned || e.tokens <= max || !e.msg.has_tool_results() {
            continue;
        }
        for cut in cuts(e, max, ctx.counter, &mut framing) {
            e.edit_result(&cut.call_id, cut.text, cut.old, cut.new);
        }
    }
    view
}

/// The note between head and tail.
pub fn note(removed: usize, total: usize) -> String {
    format!("\n[... ctxctl removed about {removed} of {total} tokens from this tool result ...]\n")
}

/// A new text for one result: `old` and `new` are the token counts before and after.
struct Cut {
    call_id: String,
    text: String,
    old: usize,
    new: usize,
}

/// New texts for the results of `e` that are over `max` tokens.
fn cuts(e: &Entry, max: usize, counter: &Counter, framing: &mut Framing) -> Vec<Cut> {
    let mut out = Vec::new();
    for (call_id, content) in editable_results(&e.msg) {
        if !content.iter().all(|p| matches!(p, Part::Text(_))) {
            continue;
        }
        let tokens = e.content_tokens(content, counter, framing);
        if tokens <= max {
            continue;
        }
        if let Some((text, new)) = truncate(&join_text(content), tokens, max, counter) {
            out.push(Cut {
                call_id: call_id.to_string(),
                text,
                old: tokens,
                new,
            });
        }
    }
    out
}

/// `text` (of `total` tokens) cut to at most `max` tokens: head, note, tail, with its
/// count. `None` when that would not be shorter (a `max` smaller than the note itself).
/// The note's figure is estimated from the share of characters cut (one count per try).
fn truncate(text: &str, total: usize, max: usize, counter: &Counter) -> Option<(String, usize)> {
    let chars = text.chars().count().max(1);
    let room = max.saturating_sub(counter.text(&note(total, total)));
    let share = |n: usize, of: usize| (n as u128 * of as u128 / chars as u128) as usize;
    let mut keep =
        (chars as u128 * room as u128 / total.max(1) as u128).min(chars as u128) as usize;
    loop {
        let head_chars = keep.div_ceil(2);
        let head = &text[..byte_at(text, head_chars)];
        let tail = &text[byte_at(text, chars - (keep - head_chars))..];
        let removed = total.saturating_sub(share(keep, total));
        let out = format!("{head}{}{tail}", note(removed, total));
        let got = counter.text(&out);
        if got <= max || keep == 0 {
            return (got < total).then_some((out, got));
        }
        // Shrink in proportion to the overshoot, by at least 1%.
        let scaled = (keep as u128 * max as u128 / got as u128) as usize;
        keep = scaled.min(keep - (keep / 100).max(1));
    }
}

/// Byte offset of the `n`th character (the length when there are fewer).
fn byte_at(text: &str, n: usize) -> usize {
    text.char_indices().nth(n).map_or(text.len(), |(b, _)| b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::testkit::{run, B};
    use crate::strategy::{Options, StrategyKind};
    use crate::tokens::{Encoding, Tokenizer};

    fn max(n: usize) -> Options {
        Options {
            max_result_tokens: n,
            ..Options::default()
        }
    }

    #[test]
    fn results_under_the_limit_are_unchanged() {
        let s = B::new()
            .user(40)
            .calls(&["a"])
            .result("a", 400)
            .user(40)
            .openai();
        let p = run(&s, StrategyKind::ToolResults, &max(100), usize::MAX);
        assert!(p.plan.is_unchanged());
    }

    #[test]
    fn long_results_keep_head_and_tail_with_a_note() {
        let long: String = (0..2000).map(|i| format!("line {i}\n")).collect();
        for s in [
            B::new()
                .user(40)
                .calls(&["a"])
                .result_text("a", &long)
                .user(40)
                .openai(),
            B::new()
                .user(40)
                .calls(&["a"])
                .result_text("a", &long)
                .user(40)
                .anthropic(),
        ] {
            let p = run(&s, StrategyKind::ToolResults, &max(200), usize::MAX);
            assert_eq!(p.plan.edited, [2]);
            assert!(p.plan.removed.is_empty());
            let text = p.out.messages[2].text();
            assert!(text.starts_with("line 0\nline 1\n"), "{text}");
            assert!(text.ends_with("line 1999\n"), "{text}");
            assert!(text.contains("[... ctxctl removed "), "{text}");
            let tokens = s.counter.text(&text);
            assert!((150..=200).contains(&tokens), "{tokens}");
            // The result still answers its call.
            assert_eq!(p.out.messages[2].result_ids().collect::<Vec<_>>(), ["a"]);
            assert_eq!(
                p.plan.tokens,
                crate::tokens::Counter::total(&s.counter.messages(&p.out))
            );
        }
    }

    #[test]
    fn other_fields_and_pinned_results_are_untouched() {
        let long = "y".repeat(4000);
        let s = B::new()
            .user(40)
            .calls(&["a", "b"])
            .result_text("a", &long)
            .id("r-a")
            .result_text("b", &long)
            .pin()
            .user(40)
            .openai();
        let p = run(&s, StrategyKind::ToolResults, &max(100), usize::MAX);
        assert_eq!(p.plan.edited, [2]);
        assert_eq!(p.out.messages[2].id.as_deref(), Some("r-a"));
        assert_eq!(p.out.messages[3].text(), long);
    }

    #[test]
    fn truncation_is_bounded_and_utf8_safe() {
        let c = Counter::new(Tokenizer::new(Encoding::Approx).unwrap());
        let text = "é日本".repeat(3000);
        let total = c.text(&text);
        let note_tokens = c.text(&note(total, total));
        for max in [0, 10, 30, 100, 1000] {
            let (out, n) = truncate(&text, total, max, &c).expect("shorter than 2250 tokens");
            assert_eq!(n, c.text(&out));
            assert!(n <= max.max(note_tokens), "{max}: {n}");
            if max >= 100 {
                assert!(n + 5 >= max, "{max}: only {n}");
                assert!(out.starts_with("é日本") && out.ends_with("é日本"), "{out}");
            }
        }
        // A note longer than the text saves nothing.
        assert_eq!(truncate("abcdefgh", 2, 0, &c), None);
    }
}
