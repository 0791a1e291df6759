//! `selective`: keep every unit holding a message of a `--keep-roles` role (besides what
//! always stays: system messages, marked and pinned messages, the last user turn) and drop
//! the other units oldest first until the session fits. A user message holding only tool
//! results counts as a `tool` message, so `--keep-roles user` keeps the human turns in
//! OpenAI and Anthropic sessions alike.

use super::fifo::drop_oldest;
use super::view::{Ctx, View};
use crate::session::{Message, Part, Role};

pub(crate) fn apply<'a>(view: View<'a>, ctx: &Ctx) -> View<'a> {
    let mut groups = view.groups();
    for g in &mut groups {
        let kept_role = view.entries[g.range.clone()]
            .iter()
            .any(|e| !e.system && ctx.opts.keep_roles.contains(&effective_role(&e.msg)));
        g.protected |= kept_role;
    }
    drop_oldest(view, groups, ctx)
}

/// The role for `--keep-roles`: tool results count as `tool` whichever message holds them.
fn effective_role(m: &Message) -> Role {
    let only_results =
        !m.parts.is_empty() && m.parts.iter().all(|p| matches!(p, Part::ToolResult { .. }));
    if m.role == Role::User && only_results {
        Role::Tool
    } else {
        m.role
    }
}

#[cfg(test)]
mod tests {
    use crate::session::Role;
    use crate::strategy::testkit::{run, B};
    use crate::strategy::{Options, Selector, StrategyError, StrategyKind};

    fn keep(roles: &[Role]) -> Options {
        Options {
            keep_roles: roles.to_vec(),
            ..Options::default()
        }
    }

    fn session() -> B {
        B::new()
            .sys("rules")
            .user(40)
            .calls(&["a"])
            .result("a", 400)
            .asst(40)
            .user(40)
            .asst(40)
            .user(40)
    }

    #[test]
    fn keeps_the_roles_and_drops_others_oldest_first() {
        for s in [session().openai(), session().anthropic()] {
            let system_only = s.total_without(&[1, 2, 3, 4, 5, 6, 7]);
            let p = run(
                &s,
                StrategyKind::Selective,
                &keep(&[Role::System, Role::User]),
                system_only,
            );
            assert_eq!(
                p.roles(),
                [Role::System, Role::User, Role::User, Role::User],
                "{:?}",
                s.session.format
            );
            assert!(!p.plan.fits);
            // With room for one more message, the most recent assistant message stays.
            let p = run(
                &s,
                StrategyKind::Selective,
                &keep(&[Role::User]),
                s.total_without(&[2, 3, 4]),
            );
            assert_eq!(p.plan.removed, [2, 3, 4]);
            assert!(p.plan.fits);
        }
    }

    #[test]
    fn marked_and_pinned_messages_are_never_dropped() {
        let s = B::new()
            .user(40)
            .asst(40)
            .pin()
            .asst(40)
            .id("keep-me")
            .asst(40)
            .user(40)
            .openai();
        let opts = Options {
            keep_marked: true,
            pins: vec![Selector::parse("keep-me").unwrap()],
            ..Options::default()
        };
        let p = run(&s, StrategyKind::Selective, &opts, 0);
        assert_eq!(p.plan.removed, [0, 3]);
    }

    #[test]
    fn needs_a_criterion() {
        let s = session().openai();
        let e = crate::strategy::plan(
            &s.session,
            &s.counts,
            &s.counter,
            StrategyKind::Selective,
            &Options::default(),
            0,
        )
        .unwrap_err();
        assert!(matches!(e, StrategyError::SelectiveWithoutCriteria));
    }
}
