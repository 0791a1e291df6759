//! Property tests: every strategy keeps the invariants of [`super`] on generated sessions
//! (random roles, tool calls with one to three results, pinned and system messages, random
//! sizes) in OpenAI, Anthropic and JSONL files, and trimming its own output again changes
//! nothing. Each plan is written with `session::write` and read back before it is checked.

use proptest::prelude::*;

use super::testkit::{reread, text, Rec, Turn, B, S};
use super::{is_omission_marker, plan, Options, Plan, Selector, StrategyKind};
use crate::session::{pairs, Item, Message, Part, Role, Session};
use crate::tokens::{Counter, Encoding};

/// A generated piece of conversation; `usize`s are text lengths in characters.
#[derive(Debug, Clone)]
enum Block {
    Sys(usize),
    User(usize),
    Asst(usize),
    /// An assistant message calling one tool per length, then the results.
    Tools(Vec<usize>),
}

fn block() -> impl Strategy<Value = Block> {
    let len = 0usize..1200;
    prop_oneof![
        1 => len.clone().prop_map(Block::Sys),
        6 => len.clone().prop_map(Block::User),
        5 => len.clone().prop_map(Block::Asst),
        5 => prop::collection::vec(len, 1..=3).prop_map(Block::Tools),
    ]
}

/// Blocks, with a pinned flag per block (and which of its two turns, for tool blocks).
fn conversation() -> impl Strategy<Value = (Option<usize>, Vec<(Block, u8)>)> {
    (
        prop::option::of(0usize..600),
        prop::collection::vec((block(), 0u8..20), 1..30),
    )
}

fn build(system: Option<usize>, blocks: &[(Block, u8)]) -> B {
    let mut b = B::new();
    if let Some(n) = system {
        b = b.push(Turn::Sys(text(0, n)));
    }
    for (k, (block, pin)) in blocks.iter().enumerate() {
        let turns = match block {
            Block::Sys(n) => vec![Turn::Sys(text(b.recs.len(), *n))],
            Block::User(n) => vec![Turn::User(text(b.recs.len(), *n))],
            Block::Asst(n) => vec![Turn::Asst(text(b.recs.len(), *n))],
            Block::Tools(lens) => {
                let ids: Vec<String> = (0..lens.len()).map(|j| format!("c{k}_{j}")).collect();
                let results = ids
                    .iter()
                    .zip(lens)
                    .map(|(id, &n)| (id.clone(), text(b.recs.len() + 1, n)))
                    .collect();
                vec![Turn::Calls(ids), Turn::Results(results)]
            }
        };
        for (j, turn) in turns.into_iter().enumerate() {
            let id = Some(format!("t{}", b.recs.len()));
            // Pin 1 in 10 blocks: the first turn for 0, the second (results) for 1.
            let pinned = usize::from(*pin) == j;
            b.recs.push(Rec { turn, pinned, id });
        }
    }
    b
}

fn options() -> impl Strategy<Value = Options> {
    let chain = prop::collection::vec(
        prop::sample::select(
            StrategyKind::ALL
                .into_iter()
                .filter(|k| *k != StrategyKind::Composite)
                .collect::<Vec<_>>(),
        ),
        1..4,
    );
    let roles = prop::sample::subsequence(Role::ALL.to_vec(), 0..3);
    (
        (prop::option::of(0usize..20), 0usize..5, 0usize..8, roles),
        (
            prop::collection::vec(0usize..60, 0..3),
            chain,
            0usize..600,
            0usize..5,
        ),
    )
        .prop_map(
            |((window, keep_first, keep_last, keep_roles), (pins, chain, max, recent))| Options {
                window,
                keep_first,
                keep_last,
                keep_marked: true,
                keep_roles,
                pins: pins
                    .into_iter()
                    .map(|t| Selector::parse(&format!("t{t}")).unwrap())
                    .collect(),
                chain,
                max_result_tokens: max,
                keep_recent: recent,
            },
        )
}

/// The strategies `kind` runs (its chain for composite).
fn steps(kind: StrategyKind, opts: &Options) -> Vec<StrategyKind> {
    if kind == StrategyKind::Composite {
        opts.chain.clone()
    } else {
        vec![kind]
    }
}

fn same_message(a: &Message, b: &Message) -> bool {
    a.role == b.role
        && a.parts == b.parts
        && a.pinned == b.pinned
        && a.id == b.id
        && a.name == b.name
}

/// Checks one plan of `s` and returns a description of the first broken invariant.
fn check(
    s: &S,
    kind: StrategyKind,
    opts: &Options,
    budget: usize,
    p: &Plan,
    out: &Session,
) -> Result<(), TestCaseError> {
    let input = &s.session.messages;
    let steps = steps(kind, opts);
    let (pinned, _) = super::selector::resolve(&opts.pins, &s.session);
    prop_assert_eq!(out.messages.len(), p.items.len());
    // Invariant 4: order, unchanged kept records, only documented new texts.
    let indices: Vec<usize> = p.items.iter().filter_map(Item::index).collect();
    prop_assert!(
        indices.windows(2).all(|w| w[0] < w[1]),
        "order {:?}",
        indices
    );
    let mut present = vec![false; input.len()];
    for (item, m) in p.items.iter().zip(&out.messages) {
        match item {
            Item::Keep(i) => {
                present[*i] = true;
                prop_assert!(same_message(m, &input[*i]), "message {} changed", i);
            }
            Item::Edit { index, .. } => {
                present[*index] = true;
                let edits = steps.contains(&StrategyKind::ToolResults)
                    || steps.contains(&StrategyKind::MaskToolResults);
                prop_assert!(edits, "{} edited message {}", kind, index);
                let orig = &input[*index];
                prop_assert!(!pinned[*index] && !orig.is_instructions());
                prop_assert_eq!(
                    m.result_ids().collect::<Vec<_>>(),
                    orig.result_ids().collect::<Vec<_>>()
                );
                for part in &m.parts {
                    if let Part::ToolResult { content, .. } = part {
                        let t = crate::session::join_text(content);
                        let documented = t.contains("tokens from this tool result ...]")
                            || t.ends_with(" tokens removed]")
                            || orig.parts.contains(part);
                        prop_assert!(documented, "invented result text {:?}", t);
                    }
                }
            }
            Item::Insert(_) => {
                prop_assert!(
                    steps.contains(&StrategyKind::Smart),
                    "{} inserted a message",
                    kind
                );
                prop_assert!(is_omission_marker(m).is_some(), "invented {:?}", m.text());
            }
            Item::InsertRecord(_) => prop_assert!(false, "{} restored a record", kind),
        }
    }
    let removed: Vec<usize> = (0..input.len()).filter(|&i| !present[i]).collect();
    prop_assert_eq!(&p.removed, &removed);

    // Invariant 5: the plan's total is the output's, and `fits` says whether it fits.
    let recount = Counter::total(&s.counter.messages(out));
    prop_assert_eq!(p.tokens, recount, "tokens of the output");
    prop_assert_eq!(p.fits, p.tokens <= budget);
    prop_assert!(p.fits || !p.warnings.is_empty());

    // Invariant 1.
    let system: Vec<usize> = (0..input.len())
        .filter(|&i| input[i].is_instructions())
        .collect();
    prop_assert!(
        system.iter().all(|&i| present[i]),
        "a system message was dropped"
    );
    let system_total = Counter::total(&system.iter().map(|&i| s.counts[i]).collect::<Vec<_>>());
    if system_total > budget {
        // Only they and what must stay: the latest user message and pinned messages with
        // their units, what the agent kept, and the user turn the API wants first.
        let protected = protected_units(s, &pinned);
        for &i in &indices {
            let m = &input[i];
            prop_assert!(
                m.is_instructions() || protected[i] || m.agent_kept || m.role == Role::User,
                "message {} kept although the system messages alone are over the budget",
                i
            );
        }
        if let Some(last) = s.session.last_user_index() {
            prop_assert!(present[last], "last user message {} dropped", last);
        }
        prop_assert!(!p.fits);
        return Ok(());
    }

    // Invariant 2: units whole, no orphans, nothing left unanswered.
    for unit in pairs::units(input) {
        let kept: Vec<bool> = unit
            .clone()
            .filter(|&i| !input[i].is_instructions())
            .map(|i| present[i])
            .collect();
        prop_assert!(
            kept.iter().all(|k| *k) || !kept.iter().any(|k| *k),
            "unit {:?} split",
            unit
        );
    }
    prop_assert_eq!(pairs::problems(&out.messages), vec![]);

    // Invariants 3 and 6: the last user message and pinned messages survive.
    if let Some(last) = s.session.last_user_index() {
        prop_assert!(present[last], "last user message {} dropped", last);
    }
    for (i, pin) in pinned.iter().enumerate() {
        prop_assert!(!pin || present[i], "pinned message {} dropped", i);
    }

    // Budget-driven strategies stop only at what must stay.
    let protected = protected_units(s, &pinned);
    let auto = |k: &StrategyKind| {
        *k == StrategyKind::Fifo || (*k == StrategyKind::SlidingWindow && opts.window.is_none())
    };
    // The user turn put back in front of a protected first turn (Anthropic-bound sessions).
    let anthropic = s.session.format.anthropic_bound();
    let front = first_turn(&p.items, input).filter(|_| anthropic);
    // The user turn the repair puts back in front may alone push a plan that fitted over
    // the budget: what the strategy kept then was kept within it.
    let front_tokens: usize = front
        .and_then(|f| pairs::units(input).into_iter().find(|u| u.contains(&f)))
        .map_or(0, |u| u.map(|i| s.counts[i]).sum());
    let over_without_front = p.tokens.saturating_sub(front_tokens) > budget;
    if !p.fits && over_without_front && steps.iter().any(auto) {
        for (item, m) in p.items.iter().zip(&out.messages) {
            let ok = m.is_instructions()
                || item
                    .index()
                    .is_some_and(|i| protected[i] || Some(i) == front);
            prop_assert!(ok, "{} kept {:?} over budget", kind, item);
        }
    }
    let budget_driven = matches!(
        kind,
        StrategyKind::Fifo | StrategyKind::Selective | StrategyKind::Composite
    ) || (kind == StrategyKind::SlidingWindow && opts.window.is_none());
    if budget_driven && s.total() <= budget {
        prop_assert!(p.is_unchanged(), "{} changed a session that fits", kind);
    }
    // An Anthropic-bound session that starts with a user turn still does, whatever the
    // strategy (the API refuses anything else).
    let starts = |f: Option<usize>| f.is_none_or(|f| input[f].is_user_turn());
    let input_first = (0..input.len()).find(|&i| !input[i].role.is_system());
    if anthropic && starts(input_first) {
        let first = out.messages.iter().find(|m| !m.role.is_system());
        prop_assert!(
            first.is_none_or(|m| m.is_user_turn()),
            "{} left a {:?} message first",
            kind,
            first.map(|m| m.role)
        );
    }
    // A cut at the start of an Anthropic session leaves a user message first.
    let cuts_front = matches!(kind, StrategyKind::Fifo | StrategyKind::SlidingWindow);
    if cuts_front && s.session.format == crate::session::Format::Anthropic {
        let first = p
            .items
            .iter()
            .filter_map(Item::index)
            .find(|&i| !input[i].is_instructions());
        let first_input = (0..input.len()).find(|&i| !input[i].is_instructions());
        if let Some(f) = first.filter(|&f| Some(f) != first_input) {
            prop_assert!(
                input[f].role == Role::User || protected[f],
                "message {} first",
                f
            );
        }
    }
    // Structural strategies keep what they promise.
    let unprotected_kept = p
        .items
        .iter()
        .zip(&out.messages)
        .filter(|(item, m)| {
            // The user turn put back in front (Anthropic-bound) is the API's, not the window's.
            !m.is_instructions()
                && item
                    .index()
                    .is_some_and(|i| !protected[i] && Some(i) != front)
        })
        .count();
    if let (StrategyKind::SlidingWindow, Some(n)) = (kind, opts.window) {
        prop_assert!(
            unprotected_kept <= n,
            "window {} kept {}",
            n,
            unprotected_kept
        );
    }
    if kind == StrategyKind::Smart {
        let most = opts.keep_first + opts.keep_last;
        prop_assert!(
            unprotected_kept <= most,
            "smart kept {} > {}",
            unprotected_kept,
            most
        );
    }
    if kind == StrategyKind::ToolResults {
        let note = s.counter.text(&super::tool_results::note(9999, 9999));
        for (item, m) in p.items.iter().zip(&out.messages) {
            let Some(i) = item.index() else { continue };
            for part in &m.parts {
                if let Part::ToolResult { content, .. } = part {
                    let n = s.counter.parts(content);
                    prop_assert!(
                        pinned[i] || n <= opts.max_result_tokens.max(note),
                        "result of {} tokens",
                        n
                    );
                }
            }
        }
    }
    if kind == StrategyKind::MaskToolResults {
        let mut recent = 0;
        for (item, m) in p.items.iter().zip(&out.messages).rev() {
            let Some(i) = item.index() else { continue };
            for part in m.parts.iter().rev() {
                if let Part::ToolResult { content, .. } = part {
                    recent += 1;
                    let t = crate::session::join_text(content);
                    let small = s.counter.parts(content) <= 30;
                    let masked = t.ends_with(" tokens removed]");
                    let exempt = recent <= opts.keep_recent || pinned[i] || small;
                    prop_assert!(
                        masked || exempt,
                        "result {} of message {} not masked",
                        recent,
                        i
                    );
                }
            }
        }
    }
    if kind == StrategyKind::Smart {
        let markers: usize = out.messages.iter().filter_map(is_omission_marker).sum();
        let kept = out
            .messages
            .iter()
            .filter(|m| !m.is_instructions() && is_omission_marker(m).is_none())
            .count();
        let before = input.iter().filter(|m| !m.is_instructions()).count();
        prop_assert_eq!(
            markers + kept,
            before,
            "markers account for every dropped message"
        );
    }
    Ok(())
}

/// Which input messages are in a unit holding a pinned message or the last user message.
fn protected_units(s: &S, pinned: &[bool]) -> Vec<bool> {
    let last = s.session.last_user_index();
    let mut out = vec![false; pinned.len()];
    for unit in pairs::units(&s.session.messages) {
        let p = unit.clone().any(|i| pinned[i] || Some(i) == last);
        out[unit].fill(p);
    }
    out
}

/// Whether trimming the output again must change nothing.
fn idempotent(kind: StrategyKind, opts: &Options, p: &Plan) -> bool {
    match kind {
        StrategyKind::Composite => p.fits,
        // A limit below the size of the note itself cuts the note again.
        StrategyKind::ToolResults => opts.max_result_tokens >= 40,
        _ => true,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn every_strategy_keeps_the_invariants(
        (system, blocks) in conversation(),
        format in 0u8..3,
        encoding in prop::sample::select(vec![Encoding::Approx, Encoding::Words, Encoding::O200kBase]),
        opts in options(),
        budget_per_mille in 0usize..1100,
    ) {
        let b = build(system, &blocks);
        let s = match format { 0 => b.openai(), 1 => b.anthropic(), _ => b.jsonl() };
        let s = S::with(s.session, encoding);
        prop_assert_eq!(pairs::problems(&s.session.messages), vec![], "generated session is valid");
        let budget = s.total() * budget_per_mille / 1000;
        for kind in StrategyKind::ALL {
            let p = plan(&s.session, &s.counts, &s.counter, kind, &opts, budget).unwrap();
            let out = reread(&s, &p);
            check(&s, kind, &opts, budget, &p, &out)?;
            if idempotent(kind, &opts, &p) {
                let again = S::with(out, encoding);
                let q = plan(&again.session, &again.counts, &again.counter, kind, &opts, budget).unwrap();
                prop_assert!(q.is_unchanged(), "{} again: removed {:?} edited {:?} inserted {}", kind, q.removed, q.edited, q.inserted);
            }
        }
    }
}

/// A Codex rollout of user turns, each answered by responses: a reasoning item (or not),
/// a commentary message (or not) and one or two calls with their outputs, then a final
/// answer. `turns`: per turn, per response, (reasoning?, commentary?, calls, output size).
fn codex_rollout(turns: &[Vec<(bool, bool, usize, usize)>]) -> Vec<u8> {
    use serde_json::json;
    let mut lines = vec![json!({"type": "session_meta", "payload": {"id": "x",
        "base_instructions": {"text": "be brief"}}})];
    let mut item =
        |p: serde_json::Value| lines.push(json!({"type": "response_item", "payload": p}));
    let msg = |role: &str, kind: &str, t: String| json!({"type": "message", "role": role, "content": [{"type": kind, "text": t}]});
    for (t, responses) in turns.iter().enumerate() {
        item(msg("user", "input_text", format!("task {t}")));
        for (r, &(reasoning, commentary, calls, size)) in responses.iter().enumerate() {
            if reasoning {
                item(json!({"type": "reasoning", "summary": [],
                    "encrypted_content": "e".repeat(8 + size % 40)}));
            }
            if commentary {
                item(msg("assistant", "output_text", format!("step {t}.{r}")));
            }
            let ids: Vec<String> = (0..calls).map(|c| format!("c{t}_{r}_{c}")).collect();
            for id in &ids {
                item(json!({"type": "function_call", "name": "exec_command",
                    "arguments": "{}", "call_id": id}));
            }
            for id in &ids {
                item(json!({"type": "function_call_output", "call_id": id,
                    "output": "x".repeat(size)}));
            }
        }
        item(msg("assistant", "output_text", format!("done {t}")));
    }
    let text: Vec<String> = lines.iter().map(ToString::to_string).collect();
    (text.join("\n") + "\n").into_bytes()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// No strategy separates a reasoning item from the items of its response: the output
    /// has no reasoning item without its following item and no call without its reasoning.
    #[test]
    fn reasoning_units_are_never_split(
        turns in prop::collection::vec(
            prop::collection::vec((any::<bool>(), any::<bool>(), 1usize..3, 0usize..400), 0..4),
            1..5,
        ),
        opts in options(),
        budget_per_mille in 0usize..1100,
    ) {
        let s = S::read(codex_rollout(&turns), crate::session::Format::Codex);
        prop_assert_eq!(pairs::problems(&s.session.messages), vec![], "generated rollout is valid");
        let budget = s.total() * budget_per_mille / 1000;
        for kind in StrategyKind::ALL {
            let p = plan(&s.session, &s.counts, &s.counter, kind, &opts, budget).unwrap();
            let out = reread(&s, &p);
            let problems = pairs::problems(&out.messages);
            prop_assert!(
                problems.iter().all(|p| !matches!(p, pairs::Problem::LoneReasoning { .. }
                    | pairs::Problem::MissingReasoning { .. })),
                "{}: {:?}", kind, problems
            );
        }
    }
}

/// The first kept input message the API takes for a turn (not a system message).
fn first_turn(items: &[Item], input: &[Message]) -> Option<usize> {
    items
        .iter()
        .filter_map(Item::index)
        .find(|&i| !input[i].role.is_system())
}
