//! The Anthropic ordering rules of [`order::anthropic`](super::order::anthropic) taken a
//! message at a time ([`Ordering`]), in memory that follows the turn being read rather
//! than the session's length: a streamed read of a multi-GB Claude Code transcript checks
//! them as the messages go by instead of keeping every message's
//! [`Shape`](super::pairs::Shape) until the end.
//!
//! The rules look at two merged turns at a time (consecutive messages of one role, system
//! messages left out): an assistant turn's calls must be answered in the turn after it,
//! and that turn's results must answer its calls. So the check holds the calls of the
//! last assistant turn and the results of the turn after it, and the faults found. A fault
//! the pairing check already names (an orphan result, a call with no result before the
//! next user turn) is left to it, as [`order::anthropic`](super::order::anthropic) leaves
//! it: the pairing problems are known only at the end, so the faults are filtered then.
//! The faults come out as the whole check gives them, held equal by the tests below.

use super::pairs::{Problem, Turn};
use crate::fasthash::FastSet;

/// The Anthropic ordering check of the messages taken so far.
#[derive(Debug, Default)]
pub struct Ordering {
    /// Messages taken.
    taken: usize,
    /// The role of the turn being read (`None`: no turn yet): assistant or not.
    assistant: Option<bool>,
    /// The calls of the last assistant turn (the one being read, or the one before the
    /// turn being read): message index and id.
    calls: Vec<(usize, Box<str>)>,
    /// The results of the turn after that assistant turn, so far.
    answered: FastSet<Box<str>>,
    /// The faults found, in the order the whole check finds each message's.
    found: Vec<Problem>,
}

impl Ordering {
    /// Takes the next message.
    pub fn take<T: Turn>(&mut self, m: &T) {
        let i = self.taken;
        self.taken += 1;
        if m.is_system() {
            return;
        }
        let assistant = m.is_assistant();
        match self.assistant {
            None => {
                if assistant {
                    self.found.push(Problem::FirstNotUser { index: i });
                }
            }
            Some(was) if was != assistant && assistant => {
                // The turn after an assistant turn is over: its calls are judged.
                self.unanswered();
                self.calls.clear();
                self.answered.clear();
            }
            Some(_) => {}
        }
        self.assistant = Some(assistant);
        if assistant {
            self.calls.extend(m.calls().map(|id| (i, Box::from(id))));
            return;
        }
        for id in m.results() {
            if !self.calls.iter().any(|(_, c)| **c == *id) {
                self.found.push(Problem::ResultNotAfterCall {
                    index: i,
                    call_id: id.to_string(),
                });
            }
            if !self.answered.contains(id) {
                self.answered.insert(Box::from(id));
            }
        }
    }

    /// The calls of the last assistant turn its next turn does not answer, as faults.
    fn unanswered(&mut self) {
        for (index, id) in &self.calls {
            if !self.answered.contains(id) {
                self.found.push(Problem::CallNotAnsweredNext {
                    index: *index,
                    call_id: id.to_string(),
                });
            }
        }
    }

    /// The faults of every message taken that the pairing problems `known` do not already
    /// name, as [`order::anthropic`](super::order::anthropic) gives them (in message order).
    pub fn finish(mut self, known: &[Problem]) -> Vec<Problem> {
        // Calls still waiting for their turn at the very end are no fault.
        if self.assistant == Some(false) {
            self.unanswered();
        }
        let named: FastSet<(bool, usize, &str)> = (known.iter())
            .filter_map(|p| match p {
                Problem::MissingResult { index, call_id } => Some((true, *index, &**call_id)),
                Problem::OrphanResult { index, call_id } => Some((false, *index, &**call_id)),
                _ => None,
            })
            .collect();
        let mut out: Vec<Problem> = (self.found.into_iter())
            .filter(|p| match p {
                Problem::CallNotAnsweredNext { index, call_id } => {
                    !named.contains(&(true, *index, &**call_id))
                }
                Problem::ResultNotAfterCall { index, call_id } => {
                    !named.contains(&(false, *index, &**call_id))
                }
                _ => true,
            })
            .collect();
        out.sort_by_key(Problem::index);
        out
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::session::order;
    use crate::session::pairs::{self, Shape};

    /// A message of a generated session: `kind` 0 a user turn, 1 tool results, 2 an
    /// assistant message, 3 a system message.
    fn shape(kind: u8, calls: Vec<String>, results: Vec<String>) -> Shape {
        Shape {
            user_turn: kind == 0,
            assistant: kind == 2,
            system: kind == 3,
            calls,
            results,
            ..Shape::default()
        }
    }

    fn streamed(all: &[Shape]) -> Vec<Problem> {
        let known = pairs::problems(all);
        let mut o = Ordering::default();
        all.iter().for_each(|s| o.take(s));
        o.finish(&known)
    }

    /// A small deterministic generator (xorshift), so that failures repeat.
    pub(in crate::session) struct Gen(pub u64);

    impl Gen {
        fn next(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }

        /// A few ids from a small alphabet, so that ids repeat and collide.
        fn ids(&mut self) -> Vec<String> {
            (0..self.next(3))
                .map(|_| self.next(5).to_string())
                .collect()
        }

        /// A session of up to 11 messages that break the rules in every way.
        pub fn session(&mut self) -> Vec<Shape> {
            (0..self.next(12))
                .map(|_| {
                    let kind = self.next(4) as u8;
                    // Calls and results mostly where they belong, sometimes anywhere.
                    let calls = match kind == 2 || self.next(6) == 0 {
                        true => self.ids(),
                        false => Vec::new(),
                    };
                    let results = match kind != 2 || self.next(6) == 0 {
                        true => self.ids(),
                        false => Vec::new(),
                    };
                    shape(kind, calls, results)
                })
                .collect()
        }
    }

    #[test]
    fn streamed_ordering_flags_what_the_whole_check_flags_on_generated_sessions() {
        let mut g = Gen(0x9e37_79b9_7f4a_7c15);
        let mut flagged = 0;
        for _ in 0..20_000 {
            let session = g.session();
            let known = pairs::problems(&session);
            let whole = order::anthropic(&session, &known);
            flagged += whole.len();
            // The whole check's faults, in message order as `order::problems` sorts them.
            let mut sorted = whole.clone();
            sorted.sort_by_key(Problem::index);
            assert_eq!(streamed(&session), sorted, "{session:?}");
        }
        // The sessions generated do break the rules, every way.
        assert!(flagged > 10_000, "{flagged}");
    }

    #[test]
    fn each_rule_is_flagged_and_pairing_faults_are_left_to_pairing() {
        let s = |k, c: &[&str], r: &[&str]| {
            let v = |x: &[&str]| x.iter().map(|s| s.to_string()).collect();
            shape(k, v(c), v(r))
        };
        let session = [
            s(3, &[], &[]),
            s(2, &["a", "b"], &[]),
            s(1, &[], &["a"]),
            s(2, &["c"], &[]),
            s(1, &[], &["b", "c"]),
            s(0, &[], &[]),
            s(1, &[], &["z"]),
        ];
        assert_eq!(
            streamed(&session),
            [
                Problem::FirstNotUser { index: 1 },
                Problem::CallNotAnsweredNext {
                    index: 1,
                    call_id: "b".into()
                },
                Problem::ResultNotAfterCall {
                    index: 4,
                    call_id: "b".into()
                },
            ]
        );
        // "z" answers no call at all: the pairing check names it, and only it.
        assert!(pairs::problems(&session)
            .iter()
            .any(|p| matches!(p, Problem::OrphanResult { index: 6, .. })));
    }
}
