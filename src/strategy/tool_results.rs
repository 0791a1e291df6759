//! `tool-results`: every tool result over `--max-result-tokens N` is cut to at most N
//! tokens, its head and tail kept around a note saying how much was removed
//! (`[... ctxctl removed 7520 of 9500 tokens from this tool result ...]`). Only the result's
//! content changes; results of N tokens or fewer, results holding images or other non-text
//! parts, and pinned messages are left alone. Nothing is dropped, so the budget may still be
//! exceeded; [`super::plan`] then says so.

use super::view::{editable_results, Ctx, View};
use crate::session::{join_text, Message, Part};
use crate::tokens::Counter;

pub(crate) fn apply<'a>(mut view: View<'a>, ctx: &Ctx) -> View<'a> {
    let max = ctx.opts.max_result_tokens;
    for e in &mut view.entries {
        if e.system || e.pinned || !e.msg.has_tool_results() {
            continue;
        }
        for (call_id, text) in cuts(&e.msg, max, ctx.counter) {
            e.edit_result(&call_id, text, ctx.counter);
        }
    }
    view
}

/// The note between head and tail.
pub fn note(removed: usize, total: usize) -> String {
    format!("\n[... ctxctl removed {removed} of {total} tokens from this tool result ...]\n")
}

/// New texts for the results of `m` that are over `max` tokens.
fn cuts(m: &Message, max: usize, counter: &Counter) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (call_id, content) in editable_results(m) {
        if !content.iter().all(|p| matches!(p, Part::Text(_))) {
            continue;
        }
        let tokens = counter.parts(content);
        if tokens <= max {
            continue;
        }
        if let Some(cut) = truncate(&join_text(content), tokens, max, counter) {
            out.push((call_id.to_string(), cut));
        }
    }
    out
}

/// `text` (of `total` tokens) cut to at most `max` tokens: head, note, tail. `None` when
/// that would not be shorter (a `max` smaller than the note itself).
fn truncate(text: &str, total: usize, max: usize, counter: &Counter) -> Option<String> {
    let chars = text.chars().count();
    let room = max.saturating_sub(counter.text(&note(total, total)));
    let mut keep =
        (chars as u128 * room as u128 / total.max(1) as u128).min(chars as u128) as usize;
    loop {
        let head_chars = keep.div_ceil(2);
        let head = &text[..byte_at(text, head_chars)];
        let tail = &text[byte_at(text, chars - (keep - head_chars))..];
        let kept = counter.text(head) + counter.text(tail);
        let out = format!("{head}{}{tail}", note(total.saturating_sub(kept), total));
        let got = counter.text(&out);
        if got <= max || keep == 0 {
            return (got < total).then_some(out);
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
        for max in [0, 10, 30, 100, 1000] {
            match truncate(&text, total, max, &c) {
                Some(out) => assert!(
                    c.text(&out) <= max.max(c.text(&note(total, total))),
                    "{max}"
                ),
                None => assert!(max < 30, "{max}"),
            }
        }
    }
}
