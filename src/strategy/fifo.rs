//! `fifo`: drop the oldest messages (whole tool-call units) until the session fits.
//!
//! One pass over the units with a running total, so planning is linear in the session.

use super::view::{Ctx, Group, View};

pub(crate) fn apply<'a>(view: View<'a>, ctx: &Ctx) -> View<'a> {
    let groups = view.groups();
    drop_oldest(view, groups, ctx)
}

/// Drops removable `groups` oldest first until the view fits, then repairs the new start.
/// `selective` calls it with extra groups marked protected.
pub(crate) fn drop_oldest<'a>(view: View<'a>, groups: Vec<Group>, ctx: &Ctx) -> View<'a> {
    let mut tally = view.tally();
    let mut remove = vec![false; groups.len()];
    for (g, group) in groups.iter().enumerate() {
        if tally.total() <= ctx.budget {
            break;
        }
        if group.removable() {
            remove[g] = true;
            tally.sub(group);
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

    #[test]
    fn drops_oldest_until_it_fits() {
        let s = B::new()
            .sys("rules")
            .user(40)
            .asst(40)
            .user(40)
            .asst(40)
            .user(40)
            .openai();
        let all = run(&s, StrategyKind::Fifo, &Options::default(), s.total());
        assert!(all.plan.is_unchanged());
        let budget = s.total_without(&[1, 2]);
        let p = run(&s, StrategyKind::Fifo, &Options::default(), budget);
        assert_eq!(p.plan.removed, [1, 2]);
        assert!(p.plan.fits);
        assert_eq!(p.plan.tokens, budget);
        let p = run(&s, StrategyKind::Fifo, &Options::default(), budget - 1);
        assert_eq!(p.plan.removed, [1, 2, 3]);
        assert_eq!(p.roles(), [Role::System, Role::Assistant, Role::User]);
    }

    #[test]
    fn tool_units_go_together_and_the_last_user_turn_stays() {
        let s = B::new()
            .user(40)
            .calls(&["a", "b"])
            .result("a", 400)
            .result("b", 400)
            .asst(40)
            .user(40)
            .openai();
        let p = run(&s, StrategyKind::Fifo, &Options::default(), 10);
        assert_eq!(p.plan.removed, [0, 1, 2, 3, 4]);
        assert!(!p.plan.fits);
        assert!(
            p.plan.warnings[0].contains("must stay"),
            "{:?}",
            p.plan.warnings
        );
        assert_eq!(p.roles(), [Role::User]);
        let p = run(&s, StrategyKind::Fifo, &Options::default(), 60);
        assert_eq!(p.plan.removed, [0, 1, 2, 3]);
    }

    #[test]
    fn anthropic_output_starts_with_a_user_message() {
        let s = B::new()
            .sys("rules")
            .user(40)
            .asst(40)
            .user(40)
            .asst(40)
            .user(40)
            .anthropic();
        // Dropping the first user message alone would fit, but would leave an assistant first.
        let budget = s.total() - 14;
        let p = run(&s, StrategyKind::Fifo, &Options::default(), budget);
        assert_eq!(p.plan.removed, [1, 2]);
        assert_eq!(
            p.roles(),
            [Role::System, Role::User, Role::Assistant, Role::User]
        );
        let o = B::new()
            .user(40)
            .asst(40)
            .user(40)
            .asst(40)
            .user(40)
            .openai();
        let p = run(&o, StrategyKind::Fifo, &Options::default(), o.total() - 14);
        assert_eq!(p.plan.removed, [0]);
    }
}
