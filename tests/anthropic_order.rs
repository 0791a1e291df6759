//! No rewrite breaks the Anthropic API's ordering rules: on every captured and wild Claude
//! Code transcript (and the Anthropic request bodies), every trim strategy at several budgets
//! and a compaction at several tail sizes write a session that, read again, starts with a
//! user turn and has no ordering fault the input did not have (see
//! `ctxctl::session::order`). Claude Code sends the live thread as written, so such a fault
//! is a 400 on every resume.

mod support;

use ctxctl::compact::{assemble, partition, CompactInfo};
use ctxctl::session::{order, pairs::Problem, Item, Session};
use ctxctl::strategy::{self, Options, StrategyKind};
use ctxctl::{formats, Counter, Encoding};
use support::fixtures_in;

/// The directories of Anthropic-bound sessions.
const DIRS: [&str; 5] = [
    "claude-code",
    "realclients/claude-code",
    "realclients/claude-code-2.1.332",
    "wild/claude-code",
    "anthropic-messages",
];

fn ordering(p: &Problem) -> bool {
    matches!(
        p,
        Problem::FirstNotUser { .. }
            | Problem::ResultNotAfterCall { .. }
            | Problem::CallNotAnsweredNext { .. }
    )
}

/// The ordering faults of `s`, as strings.
fn faults(s: &Session) -> Vec<String> {
    order::problems(s.format, &s.messages)
        .iter()
        .filter(|p| ordering(p))
        .map(ToString::to_string)
        .collect()
}

fn starts_with_user(s: &Session) -> bool {
    s.messages
        .iter()
        .find(|m| !m.role.is_system())
        .is_none_or(|m| m.is_user_turn())
}

/// Writes `items` over `s`, reads the output again and checks it against the input.
fn check_output(what: &str, s: &Session, before: &[String], items: &[Item]) {
    let out = formats::write(s, items).unwrap_or_else(|e| panic!("{what}: write: {e}"));
    let again = formats::read(&out, Some(s.format)).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        starts_with_user(&again),
        "{what}: the output starts with a {} message",
        again
            .messages
            .iter()
            .find(|m| !m.role.is_system())
            .map_or("no", |m| m.role.name())
    );
    let after = faults(&again);
    let new: Vec<&String> = after.iter().filter(|p| !before.contains(p)).collect();
    assert!(new.is_empty() || !before.is_empty(), "{what}: {new:?}");
}

fn options(kind: StrategyKind) -> Options {
    let mut o = Options::default();
    match kind {
        StrategyKind::Selective => o.keep_roles = vec![ctxctl::Role::Assistant],
        StrategyKind::Composite => {
            o.chain = vec![StrategyKind::MaskToolResults, StrategyKind::Fifo];
        }
        StrategyKind::SlidingWindow => o.window = Some(3),
        StrategyKind::Smart => {
            o.keep_first = 1;
            o.keep_last = 3;
        }
        _ => {}
    }
    o
}

#[test]
fn no_rewrite_of_an_anthropic_bound_session_breaks_the_api_order() {
    let counter = Counter::new(ctxctl::tokens::Tokenizer::new(Encoding::Approx).unwrap());
    let mut files = 0;
    let mut rewrites = 0;
    for dir in DIRS {
        for path in fixtures_in(dir) {
            let bytes = std::fs::read(&path).unwrap();
            let Ok(s) = formats::read(&bytes, None) else {
                continue; // metadata beside a transcript (`.meta.json`)
            };
            if !s.format.anthropic_bound() || s.messages.is_empty() {
                continue;
            }
            let before = faults(&s);
            if !starts_with_user(&s) {
                continue; // nothing a rewrite could keep
            }
            files += 1;
            let counts = counter.messages(&s);
            let total = Counter::total(&counts);
            for kind in StrategyKind::ALL {
                for budget in [0, total / 4, total * 2 / 3] {
                    let what = format!("{}: {kind} to {budget}", path.display());
                    let plan = strategy::plan(&s, &counts, &counter, kind, &options(kind), budget)
                        .unwrap_or_else(|e| panic!("{what}: {e}"));
                    check_output(&what, &s, &before, &plan.items);
                    rewrites += 1;
                }
            }
            for tail in [0, total / 10, total / 2] {
                let what = format!("{}: compact with a tail of {tail}", path.display());
                let part = partition(&s, &counts, tail);
                if !part.has_middle() {
                    continue;
                }
                let info = CompactInfo {
                    id: "00000000-0000-4000-8000-000000000000".into(),
                    timestamp: "2026-11-27T00:00:00Z".into(),
                    seq: 1,
                    archive: None,
                };
                let items = assemble(&s, &part, "Summary.", &info);
                check_output(&what, &s, &before, &items);
                rewrites += 1;
            }
        }
    }
    assert!(files >= 20, "only {files} sessions");
    assert!(rewrites > 500, "only {rewrites} rewrites");
}
