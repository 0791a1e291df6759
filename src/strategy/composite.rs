//! `composite`: apply the strategies of `--chain` in order, each to the previous one's
//! output, and stop as soon as the session fits; a session that fits from the start is
//! returned unchanged.

use super::view::{Ctx, View};

pub(crate) fn apply<'a>(mut view: View<'a>, ctx: &Ctx) -> View<'a> {
    for &step in &ctx.opts.chain {
        if view.total() <= ctx.budget {
            break;
        }
        view = super::run(step, view, ctx);
    }
    view
}

#[cfg(test)]
mod tests {
    use crate::strategy::testkit::{run, B};
    use crate::strategy::{plan, Options, StrategyError, StrategyKind};

    fn chain(kinds: &[StrategyKind]) -> Options {
        Options {
            chain: kinds.to_vec(),
            ..Options::default()
        }
    }

    fn chat(n: usize) -> B {
        let mut b = B::new().sys("rules");
        for i in 0..n {
            b = if i % 2 == 0 { b.user(40) } else { b.asst(40) };
        }
        b
    }

    #[test]
    fn stops_as_soon_as_it_fits() {
        let s = chat(100).openai();
        let opts = chain(&[StrategyKind::Smart, StrategyKind::Fifo]);
        // Smart alone fits: fifo is not applied (it would have dropped the head).
        let smart = run(&s, StrategyKind::Smart, &opts, usize::MAX);
        let p = run(&s, StrategyKind::Composite, &opts, smart.plan.tokens);
        assert_eq!(p.plan, smart.plan);
        // Smart is not enough: fifo continues from smart's output.
        let p = run(&s, StrategyKind::Composite, &opts, smart.plan.tokens - 1);
        assert!(p.plan.fits);
        let mut want = vec![1];
        want.extend(3..96);
        assert_eq!(p.plan.removed, want);
        assert!(p.texts().contains(&"[93 messages omitted]".to_string()));
        // A session that fits is left alone.
        let p = run(&s, StrategyKind::Composite, &opts, s.total());
        assert!(p.plan.is_unchanged());
    }

    #[test]
    fn chains_are_validated() {
        let s = chat(4).openai();
        let go = |o: &Options| {
            plan(
                &s.session,
                &s.counts,
                &s.counter,
                StrategyKind::Composite,
                o,
                0,
            )
            .unwrap_err()
        };
        assert!(matches!(go(&chain(&[])), StrategyError::EmptyChain));
        assert!(matches!(
            go(&chain(&[StrategyKind::Fifo, StrategyKind::Composite])),
            StrategyError::NestedComposite
        ));
        assert!(matches!(
            go(&chain(&[StrategyKind::Selective])),
            StrategyError::SelectiveWithoutCriteria
        ));
    }
}
