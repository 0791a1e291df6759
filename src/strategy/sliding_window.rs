//! `sliding-window`: keep the last `--window N` non-system messages. Without a window, N is
//! the largest that fits the budget (after what must stay: system messages, pinned units,
//! the last user turn). A tool-call unit only partly inside the window is dropped whole, so
//! the window is an upper bound; protected units before it are kept too.

use super::view::{Ctx, View};

pub(crate) fn apply<'a>(view: View<'a>, ctx: &Ctx) -> View<'a> {
    let groups = view.groups();
    let mut remove = vec![false; groups.len()];
    match ctx.opts.window {
        Some(n) => {
            let mut seen = 0;
            for (g, group) in groups.iter().enumerate().rev() {
                seen += group.msgs;
                remove[g] = seen > n && group.removable();
            }
        }
        None => {
            let mut tally = view.fixed_tally(&groups);
            let mut inside = true;
            for (g, group) in groups.iter().enumerate().rev() {
                if !group.removable() {
                    continue;
                }
                let mut with = tally;
                with.add(group);
                inside &= with.total() <= ctx.budget;
                if inside {
                    tally = with;
                } else {
                    remove[g] = true;
                }
            }
        }
    }
    view.fix_start(&groups, &mut remove, ctx.user_first);
    view.remove(&groups, &remove)
}

#[cfg(test)]
mod tests {
    use crate::session::Role;
    use crate::strategy::testkit::{run, B};
    use crate::strategy::{Options, StrategyKind};

    fn window(n: usize) -> Options {
        Options {
            window: Some(n),
            ..Options::default()
        }
    }

    #[test]
    fn five_messages_with_a_window_of_ten_are_unchanged() {
        let s = B::new()
            .user(40)
            .asst(40)
            .user(40)
            .asst(40)
            .user(40)
            .openai();
        let p = run(&s, StrategyKind::SlidingWindow, &window(10), usize::MAX);
        assert!(p.plan.is_unchanged());
        assert_eq!(p.out.messages.len(), 5);
    }

    #[test]
    fn keeps_the_last_n_and_the_system_prompt() {
        let mut b = B::new().sys("rules");
        for _ in 0..10 {
            b = b.user(40).asst(40);
        }
        let s = b.openai();
        let p = run(&s, StrategyKind::SlidingWindow, &window(4), usize::MAX);
        assert_eq!(p.plan.removed, (1..=16).collect::<Vec<_>>());
        assert_eq!(p.out.messages.len(), 5);
        assert_eq!(p.out.messages[0].role, Role::System);
        assert!(p.plan.fits);
        // Over budget with an explicit window: say so, keep the window.
        let p = run(&s, StrategyKind::SlidingWindow, &window(4), 20);
        assert!(!p.plan.fits);
        assert!(p.plan.warnings[0].contains("composite --chain sliding-window,fifo"));
    }

    #[test]
    fn a_unit_straddling_the_window_is_dropped_whole() {
        let s = B::new()
            .user(40)
            .calls(&["a", "b"])
            .results(&["a", "b"], 40)
            .asst(40)
            .user(40)
            .openai();
        // Messages: user, call, result a, result b, asst, user. Window 4 would cut the unit.
        let p = run(&s, StrategyKind::SlidingWindow, &window(4), usize::MAX);
        assert_eq!(p.plan.removed, [0, 1, 2, 3]);
        let p = run(&s, StrategyKind::SlidingWindow, &window(5), usize::MAX);
        assert_eq!(p.plan.removed, [0]);
    }

    #[test]
    fn without_a_window_keeps_as_many_recent_messages_as_fit() {
        let mut b = B::new().sys("rules").user(40).pin();
        for _ in 0..10 {
            b = b.asst(40).user(40);
        }
        let s = b.openai();
        let n = s.counts.len();
        // Room for the system prompt, the pinned message and the last 4 messages.
        let keep = [0, 1, n - 4, n - 3, n - 2, n - 1];
        let budget: usize = keep.iter().map(|&i| s.counts[i]).sum::<usize>() + 3;
        let p = run(&s, StrategyKind::SlidingWindow, &Options::default(), budget);
        assert_eq!(p.plan.removed, (2..n - 4).collect::<Vec<_>>());
        assert!(p.plan.fits);
        let p = run(
            &s,
            StrategyKind::SlidingWindow,
            &Options::default(),
            budget - 1,
        );
        assert_eq!(p.plan.removed, (2..n - 3).collect::<Vec<_>>());
    }
}
