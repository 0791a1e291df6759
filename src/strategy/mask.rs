//! `mask-tool-results` (observation masking): the content of every tool result but the
//! `--keep-recent N` most recent is replaced by a placeholder naming the tool and the size
//! removed (`[read_file result masked by ctxctl: about 5200 tokens removed]`). Results already
//! masked, results no larger than their placeholder and pinned messages are left alone, so
//! masking twice changes nothing. Nothing is dropped; [`super::plan`] reports a result still
//! over budget.

use std::collections::HashMap;

use super::view::{editable_results, Ctx, Framing, View};
use crate::session::Part;

pub(crate) fn apply<'a>(mut view: View<'a>, ctx: &Ctx) -> View<'a> {
    // (entry, call id, placeholder, old tokens, new tokens), found first so the entries
    // can then be edited.
    let mut masks: Vec<(usize, String, String, usize, usize)> = Vec::new();
    {
        let mut names: HashMap<&str, &str> = HashMap::new();
        for e in &view.entries {
            for p in &e.msg.parts {
                if let Part::ToolCall { id, name, .. } = p {
                    names.insert(id, name);
                }
            }
        }
        let mut framing = Framing::default();
        let mut counted: HashMap<String, usize> = HashMap::new();
        let mut recent = 0;
        for (k, e) in view.entries.iter().enumerate().rev() {
            for (call_id, content) in editable_results(&e.msg).into_iter().rev() {
                if content.is_empty() {
                    continue;
                }
                recent += 1;
                if recent <= ctx.opts.keep_recent || e.system || e.pinned {
                    continue;
                }
                if let [Part::Text(t)] = content {
                    if is_placeholder(t) {
                        continue;
                    }
                }
                let tokens = e.content_tokens(content, ctx.counter, &mut framing);
                let name = names.get(call_id).copied().unwrap_or("tool");
                let text = placeholder(name, tokens);
                let new = match counted.get(&text) {
                    Some(&n) => n,
                    None => *counted
                        .entry(text.clone())
                        .or_insert(ctx.counter.text(&text)),
                };
                if new < tokens {
                    masks.push((k, call_id.to_string(), text, tokens, new));
                }
            }
        }
    }
    for (k, call_id, text, old, new) in masks {
        view.entries[k].edit_result(&call_id, text, old, new);
    }
    view
}

/// The text that replaces a masked result of tool `name` that held `tokens` tokens. Sizes
/// from 100 up are rounded to two significant digits (`about 5200 tokens`): as precise as
/// the model needs, and few enough distinct texts that each is tokenized once per plan.
pub fn placeholder(name: &str, tokens: usize) -> String {
    if tokens < 100 {
        return format!("[{name} result masked by ctxctl: {tokens} tokens removed]");
    }
    let mut unit = 1;
    while tokens / unit >= 100 {
        unit *= 10;
    }
    let rounded = (tokens + unit / 2) / unit * unit;
    format!("[{name} result masked by ctxctl: about {rounded} tokens removed]")
}

fn is_placeholder(t: &str) -> bool {
    t.starts_with('[')
        && t.contains(" result masked by ctxctl: ")
        && t.ends_with(" tokens removed]")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::testkit::{run, B, S};
    use crate::strategy::{Options, StrategyKind};

    fn recent(n: usize) -> Options {
        Options {
            keep_recent: n,
            ..Options::default()
        }
    }

    fn agent() -> B {
        let mut b = B::new().sys("rules").user(40);
        for i in 0..5 {
            let id = format!("c{i}");
            b = b.calls(&[&id]).result(&id, 400);
        }
        b.asst(40)
    }

    fn reread(s: &S, opts: &Options) -> crate::strategy::testkit::R {
        run(s, StrategyKind::MaskToolResults, opts, usize::MAX)
    }

    #[test]
    fn masks_all_but_the_most_recent_results() {
        for s in [agent().openai(), agent().anthropic()] {
            let p = reread(&s, &recent(2));
            assert_eq!(p.plan.edited, [3, 5, 7]);
            assert!(p.plan.removed.is_empty());
            assert_eq!(p.texts()[3], placeholder("tool_c0", 100));
            assert_eq!(p.texts()[9], s.session.messages[9].text());
            assert!(p.plan.tokens < s.total());
            assert_eq!(
                p.plan.tokens,
                crate::tokens::Counter::total(&s.counter.messages(&p.out))
            );
        }
    }

    #[test]
    fn masking_twice_changes_nothing_and_small_results_stay() {
        let s = agent().openai();
        let p = reread(&s, &recent(0));
        assert_eq!(p.plan.edited.len(), 5);
        let again = S {
            counts: s.counter.messages(&p.out),
            session: p.out,
            counter: s.counter,
        };
        assert!(reread(&again, &recent(0)).plan.is_unchanged());
        let tiny = B::new()
            .user(40)
            .calls(&["a"])
            .result("a", 8)
            .user(40)
            .openai();
        assert!(reread(&tiny, &recent(0)).plan.is_unchanged());
        assert!(is_placeholder(&placeholder("x", 3)));
        assert!(is_placeholder(&placeholder("x", 12345)));
    }

    #[test]
    fn sizes_are_rounded_to_two_digits() {
        let p = |n| placeholder("ls", n);
        assert_eq!(p(57), "[ls result masked by ctxctl: 57 tokens removed]");
        assert_eq!(
            p(100),
            "[ls result masked by ctxctl: about 100 tokens removed]"
        );
        assert_eq!(
            p(1149),
            "[ls result masked by ctxctl: about 1100 tokens removed]"
        );
        assert_eq!(
            p(1150),
            "[ls result masked by ctxctl: about 1200 tokens removed]"
        );
        assert_eq!(
            p(99_999),
            "[ls result masked by ctxctl: about 100000 tokens removed]"
        );
    }

    #[test]
    fn pinned_results_are_not_masked() {
        let s = B::new()
            .user(40)
            .calls(&["a"])
            .result("a", 400)
            .pin()
            .user(40)
            .openai();
        assert!(reread(&s, &recent(0)).plan.is_unchanged());
    }
}
