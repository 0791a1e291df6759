//! The user goes first: a session sent to the Anthropic Messages API (Claude Code, Anthropic
//! request bodies) must start, after system messages, with a user turn, or the API refuses
//! every request ("first message must use the \"user\" role"). A cut at the start may leave
//! a message that must stay in front (Claude Code's preserved turn, a pinned or
//! `--keep-roles` message); then the user turn it followed comes back with it. Nothing is
//! done when the input itself does not start with a user turn.

use std::ops::Range;

use super::view::{Entry, View};
use crate::session::{pairs, Session};

/// Index of the first message of `session` the API takes for a turn that is not a system
/// message, among `present`.
fn first_turn(session: &Session, present: impl Iterator<Item = usize>) -> Option<usize> {
    present
        .into_iter()
        .find(|&i| !session.messages[i].role.is_system())
}

/// Whether the input starts, after system messages, with a user turn.
fn input_starts_with_user(session: &Session) -> bool {
    first_turn(session, 0..session.messages.len())
        .is_some_and(|i| session.messages[i].is_user_turn())
}

/// The unit of the user turn closest before input message `first`, to put back in front
/// of it.
pub(crate) fn unit_before(session: &Session, first: usize) -> Option<Range<usize>> {
    let j = (0..first)
        .rev()
        .find(|&j| session.messages[j].is_user_turn())?;
    pairs::units(&session.messages)
        .into_iter()
        .find(|r| r.contains(&j))
}

/// The indices to keep besides `kept` (ascending) so that the first turn is the user's.
pub(crate) fn missing_before(session: &Session, kept: &[usize]) -> Vec<usize> {
    if !input_starts_with_user(session) {
        return Vec::new();
    }
    let Some(first) = first_turn(session, kept.iter().copied()) else {
        return Vec::new();
    };
    if session.messages[first].is_user_turn() {
        return Vec::new();
    }
    unit_before(session, first)
        .map(|r| r.filter(|i| !kept.contains(i)).collect())
        .unwrap_or_default()
}

impl<'a> View<'a> {
    /// Puts back the user turn the view's first turn followed, when that turn is not the
    /// user's (see the module notes). The view was made by [`View::new`] of `session`,
    /// `counts` and `pinned`.
    pub(crate) fn user_first(
        mut self,
        session: &'a Session,
        counts: &[usize],
        pinned: &[bool],
    ) -> View<'a> {
        let first = self.entries.iter().find(|e| !e.msg.role.is_system());
        match first {
            None => return self,
            Some(e) if e.msg.is_user_turn() => return self,
            Some(e) if e.index.is_none() => return self,
            Some(_) => {}
        }
        let kept: Vec<usize> = self.entries.iter().filter_map(|e| e.index).collect();
        let back = missing_before(session, &kept);
        if back.is_empty() {
            return self;
        }
        let full = View::new(session, counts, pinned);
        let restored: Vec<Entry<'a>> = full
            .entries
            .into_iter()
            .filter(|e| e.index.is_some_and(|i| back.contains(&i)))
            .map(|mut e| {
                e.protected = true;
                e
            })
            .collect();
        let at = self
            .entries
            .iter()
            .position(|e| e.index.is_some_and(|i| i > back[0]))
            .unwrap_or(self.entries.len());
        self.entries.splice(at..at, restored);
        self
    }
}

#[cfg(test)]
mod tests {
    use crate::session::Role;
    use crate::strategy::testkit::{run, B};
    use crate::strategy::{Options, StrategyKind};

    /// A pinned assistant message must stay; fifo's cut before it brings back the user turn
    /// it answered (Anthropic), where an OpenAI session may start with it.
    #[test]
    fn a_kept_assistant_turn_comes_back_with_its_user_turn() {
        let b = B::new().sys("rules").user(400).asst(40).pin().user(40);
        let s = b.anthropic();
        let p = run(&s, StrategyKind::Fifo, &Options::default(), 60);
        assert_eq!(
            p.roles(),
            [Role::System, Role::User, Role::Assistant, Role::User]
        );
        assert!(p.plan.removed.is_empty(), "{:?}", p.plan.removed);
        assert!(!p.plan.fits);
        let s = b.openai();
        let p = run(&s, StrategyKind::Fifo, &Options::default(), 60);
        assert_eq!(p.roles(), [Role::System, Role::Assistant, Role::User]);
    }

    #[test]
    fn selective_keeping_the_assistant_keeps_the_first_user_turn() {
        let s = B::new()
            .user(40)
            .asst(40)
            .user(40)
            .asst(40)
            .user(40)
            .anthropic();
        let opts = Options {
            keep_roles: vec![Role::Assistant],
            ..Options::default()
        };
        let p = run(&s, StrategyKind::Selective, &opts, 0);
        assert_eq!(p.roles()[0], Role::User);
        assert_eq!(p.plan.removed, [2]);
    }
}
