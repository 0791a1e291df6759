//! `smart`: keep the first `--keep-first` and the last `--keep-last` non-system messages
//! (whole units), drop the unprotected ones in between and put an omission marker
//! (`[K messages omitted]`, a user message) where each run of dropped messages was. When
//! nothing lies between, the session is unchanged. A run that is only an earlier marker is
//! kept as it is, and earlier markers in a dropped run add their counts to the new one, so
//! `smart` on its own output changes nothing. The budget does not shape the result; when it
//! is still over, [`super::plan`] says so.

use super::marker::{is_omission_marker, marker_message};
use super::view::{Ctx, Entry, Msg, View};

pub(crate) fn apply<'a>(view: View<'a>, ctx: &Ctx) -> View<'a> {
    let groups = view.groups();
    let n = groups.len();
    let (mut head_end, mut seen) = (0, 0);
    while head_end < n && seen + groups[head_end].msgs <= ctx.opts.keep_first {
        seen += groups[head_end].msgs;
        head_end += 1;
    }
    let (mut tail_start, mut seen) = (n, 0);
    while tail_start > head_end && seen + groups[tail_start - 1].msgs <= ctx.opts.keep_last {
        seen += groups[tail_start - 1].msgs;
        tail_start -= 1;
    }
    let mut remove = vec![false; n];
    for g in head_end..tail_start {
        remove[g] = groups[g].removable();
    }
    if !remove.contains(&true) {
        return view;
    }
    view.fix_start(&groups, &mut remove, false);

    let View {
        entries,
        mut next_unit,
    } = view;
    let mut out = Vec::with_capacity(entries.len());
    let mut run: Vec<Entry> = Vec::new();
    let mut entries = entries.into_iter();
    for (g, group) in groups.iter().enumerate() {
        for e in entries.by_ref().take(group.range.len()) {
            if remove[g] && !e.system {
                run.push(e);
            } else {
                flush(&mut run, &mut out, &mut next_unit, ctx);
                out.push(e);
            }
        }
    }
    flush(&mut run, &mut out, &mut next_unit, ctx);
    View {
        entries: out,
        next_unit,
    }
}

/// Ends a run of dropped entries: one marker in its place (or the run itself when it is a
/// single earlier marker).
fn flush<'a>(run: &mut Vec<Entry<'a>>, out: &mut Vec<Entry<'a>>, next_unit: &mut usize, ctx: &Ctx) {
    if run.is_empty() {
        return;
    }
    if run.len() == 1 && is_omission_marker(&run[0].msg).is_some() {
        out.append(run);
        return;
    }
    let k: usize = run
        .drain(..)
        .map(|e| is_omission_marker(&e.msg).unwrap_or(1))
        .sum();
    let msg = marker_message(k);
    out.push(Entry {
        index: None,
        tokens: ctx.counter.message(&msg),
        msg: Msg::Made(Box::new(msg)),
        edits: Vec::new(),
        unit: *next_unit,
        system: false,
        protected: false,
        pinned: false,
    });
    *next_unit += 1;
}

#[cfg(test)]
mod tests {
    use crate::session::Role;
    use crate::strategy::testkit::{run, B};
    use crate::strategy::{Options, StrategyKind};

    fn chat(n: usize) -> B {
        let mut b = B::new();
        for i in 0..n {
            b = if i % 2 == 0 { b.user(40) } else { b.asst(40) };
        }
        b
    }

    #[test]
    fn hundred_messages_keep_two_and_five_around_one_marker() {
        let s = chat(100).openai();
        let p = run(&s, StrategyKind::Smart, &Options::default(), usize::MAX);
        assert_eq!(p.plan.removed, (2..95).collect::<Vec<_>>());
        assert_eq!(p.plan.inserted, 1);
        assert_eq!(p.out.messages.len(), 8);
        assert_eq!(p.texts()[2], "[93 messages omitted]");
        assert_eq!(p.out.messages[2].role, Role::User);
        // The marker is counted: the plan's total matches a recount of the output.
        let counts = s.counter.messages(&p.out);
        assert_eq!(p.plan.tokens, crate::tokens::Counter::total(&counts));
    }

    #[test]
    fn five_messages_with_two_and_five_are_unchanged_without_marker() {
        let s = chat(5).openai();
        let p = run(&s, StrategyKind::Smart, &Options::default(), usize::MAX);
        assert!(p.plan.is_unchanged());
        assert!(!p.texts().iter().any(|t| t.contains("omitted")));
    }

    #[test]
    fn still_over_budget_says_so() {
        let s = chat(100).openai();
        let p = run(&s, StrategyKind::Smart, &Options::default(), 50);
        assert!(!p.plan.fits);
        assert!(p
            .plan
            .warnings
            .iter()
            .any(|w| w.contains("--chain smart,fifo")));
    }

    #[test]
    fn pinned_messages_split_the_gap_and_markers_merge_on_a_second_pass() {
        let s = B::new()
            .sys("rules")
            .user(40)
            .asst(40)
            .user(40)
            .asst(40)
            .pin()
            .user(40)
            .asst(40)
            .user(40)
            .asst(40)
            .user(40)
            .openai();
        let opts = Options {
            keep_first: 1,
            keep_last: 2,
            ..Options::default()
        };
        let p = run(&s, StrategyKind::Smart, &opts, usize::MAX);
        assert_eq!(
            p.texts()[2..]
                .iter()
                .map(String::as_str)
                .take(3)
                .collect::<Vec<_>>(),
            [
                "[2 messages omitted]",
                p.texts()[3].as_str(),
                "[3 messages omitted]"
            ]
        );
        assert!(p.out.messages[3].pinned);
        // Smart on its own output changes nothing.
        let again = crate::strategy::testkit::S {
            counts: s.counter.messages(&p.out),
            session: p.out,
            counter: crate::tokens::Counter::new(
                crate::tokens::Tokenizer::new(crate::tokens::Encoding::Approx).unwrap(),
            ),
        };
        let q = run(&again, StrategyKind::Smart, &opts, usize::MAX);
        assert!(q.plan.is_unchanged());
        // With a smaller head, the old marker is dropped and its count carried over.
        let opts0 = Options {
            keep_first: 0,
            ..opts
        };
        let q = run(&again, StrategyKind::Smart, &opts0, usize::MAX);
        assert_eq!(q.texts()[1], "[3 messages omitted]");
    }
}
