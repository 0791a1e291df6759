//! What the fuzz targets check, as plain functions that panic when a property fails.
//!
//! Shared by the cargo-fuzz targets (`fuzz_targets/*.rs`) and by the main crate's stable
//! test `tests/fuzz_regressions.rs` (which includes this file with `#[path]`), so a crash
//! input committed under `fuzz/regressions/` fails CI the same way it failed the fuzzer.

use ctxctl::formats;
use ctxctl::session::{
    pairs, Format, Item, Message, NewMessage, Origin, Part, PartEdit, Role, Session,
};
use ctxctl::strategy::{self, Options, Selector, StrategyKind};
use ctxctl::tokens::{Counter, Encoding, Tokenizer};
use serde_json::{json, Value};

/// The fuzz targets, by name (the directory names under `corpus/` and `regressions/`).
pub const TARGETS: [&str; 4] = ["read", "round_trip", "rewrite", "trim"];

/// Runs the check of fuzz target `name` on `data`.
pub fn run(name: &str, data: &[u8]) {
    match name {
        "read" => read_all(data),
        "round_trip" => round_trip(data),
        "rewrite" => rewrite(data),
        "trim" => trim(data),
        other => panic!("no fuzz target {other:?}"),
    }
}

/// The inputs a whole session file gives target `name`: itself, or for `rewrite` the file
/// behind a few plans (keep all; insert, shorten, drop; summarise, keep).
pub fn seed_inputs(name: &str, session: &[u8]) -> Vec<Vec<u8>> {
    match name {
        "rewrite" => {
            let plans: [&[u8]; 3] = [&[0], &[3, 5, 6, 4], &[2, 7, 0]];
            plans.iter().map(|p| [*p, session].concat()).collect()
        }
        "trim" => TRIM_SEED_HEADERS
            .iter()
            .map(|h| [h.as_slice(), session].concat())
            .collect(),
        _ => vec![session.to_vec()],
    }
}

/// `None` (detect) and then every format forced, as `--format` would.
fn formats() -> impl Iterator<Item = Option<Format>> {
    std::iter::once(None).chain(Format::all().map(Some))
}

/// Format detection and every reader on `data`: errors are fine, panics are not. What a
/// reader accepts also goes through the pure code every command runs on a session.
pub fn read_all(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let body = text.trim_start_matches('\u{feff}');
        if !body.trim().is_empty() {
            let _ = formats::detect(body);
        }
    }
    for format in formats() {
        if let Ok(s) = formats::read(data, format) {
            inspect(&s);
        }
    }
}

/// What `count`, `check` and `stats` do with a session once read.
fn inspect(s: &Session) {
    let units = pairs::units(&s.messages);
    let covered: usize = units.iter().map(|u| u.len()).sum();
    assert_eq!(
        covered,
        s.messages.len(),
        "pairing units must cover every message"
    );
    let _ = pairs::problems(&s.messages);
    let tokenizer = Tokenizer::new(Encoding::Approx).expect("the approx tokenizer always builds");
    let counts = Counter::new(tokenizer).messages(s);
    assert_eq!(counts.len(), s.messages.len());
    let _ = Counter::total(&counts);
    for m in &s.messages {
        let _ = m.text();
    }
}

/// Read, write back keeping every message, read again: the rewrite must be readable as the
/// same format with the same messages, and a JSONL rewrite must be byte-identical.
pub fn round_trip(data: &[u8]) {
    for format in formats() {
        let Ok(s) = formats::read(data, format) else {
            continue;
        };
        // A format read for counting only (a Gemini CLI `.json` chat) refuses to be written.
        if matches!(s.doc, ctxctl::session::Document::Released) {
            continue;
        }
        let out = match formats::write(&s, &s.keep_all()) {
            Ok(out) => out,
            Err(e) => panic!("{}: writing back every message failed: {e}", s.format),
        };
        if s.format.is_lines() {
            assert!(
                out == data,
                "{}: a keep-everything rewrite changed the bytes",
                s.format
            );
            continue;
        }
        let again = match formats::read(&out, Some(s.format)) {
            Ok(again) => again,
            Err(e) => panic!("{}: the rewrite cannot be read back: {e}", s.format),
        };
        assert_eq!(
            again.messages, s.messages,
            "{}: the rewrite holds different messages",
            s.format
        );
        let out2 = formats::write(&again, &again.keep_all())
            .unwrap_or_else(|e| panic!("{}: second rewrite failed: {e}", s.format));
        assert!(out2 == out, "{}: rewriting is not stable", s.format);
    }
}

/// A write plan for `s` driven by `ops` (one byte per message, cycled): keep, drop, insert
/// a note before, shorten its tool results, or replace it with a summary.
fn plan(s: &Session, ops: &[u8]) -> Vec<Item> {
    let note = |role: Role, text: &str| {
        Item::Insert(NewMessage {
            role,
            text: text.to_string(),
            meta: serde_json::Map::new(),
        })
    };
    let mut items = Vec::new();
    for (i, m) in s.messages.iter().enumerate() {
        let op = if ops.is_empty() {
            0
        } else {
            ops[i % ops.len()] % 8
        };
        match op {
            4 => {}
            5 => {
                items.push(note(Role::User, "[note]"));
                items.push(Item::Keep(i));
            }
            6 => {
                let edits: Vec<PartEdit> = m
                    .result_ids()
                    .map(|id| PartEdit::ResultText {
                        call_id: id.to_string(),
                        text: "[trimmed]".to_string(),
                    })
                    .collect();
                items.push(if edits.is_empty() {
                    Item::Keep(i)
                } else {
                    Item::Edit { index: i, edits }
                });
            }
            7 => items.push(note(Role::Assistant, "[summary]")),
            _ => items.push(Item::Keep(i)),
        }
    }
    items
}

/// Any rewrite the writer accepts must be readable again as the same format. The first
/// byte says how many of the following bytes are the plan; the rest is the session.
pub fn rewrite(data: &[u8]) {
    let Some((&n, rest)) = data.split_first() else {
        return;
    };
    let n = usize::from(n % 32).min(rest.len());
    let (ops, bytes) = rest.split_at(n);
    for format in formats() {
        let Ok(s) = formats::read(bytes, format) else {
            continue;
        };
        let Ok(out) = formats::write(&s, &plan(&s, ops)) else {
            continue;
        };
        if let Err(e) = formats::read(&out, Some(s.format)) {
            panic!(
                "{}: a rewrite cannot be read back: {e}\n{}",
                s.format,
                String::from_utf8_lossy(&out)
            );
        }
    }
}

/// Length of the `trim` target's header (see [`trim`]).
pub const TRIM_HEADER: usize = 8;

/// Headers that run each strategy once over a seed file (mode bit clear: the rest is a
/// session file): half the budget, a quarter, and variations of the options.
pub const TRIM_SEED_HEADERS: [[u8; TRIM_HEADER]; 7] = [
    [0, 64, 0, 2, 3, 4, 0, 0],        // fifo, budget 1/2
    [1, 32, 3, 2, 3, 4, 0, 0],        // sliding-window --window 3, 1/4
    [2, 64, 0, 1, 2, 4, 0, 0x85],     // smart --keep-first 1 --keep-last 2, pin 5
    [3, 48, 0, 2, 3, 4, 0b1_0100, 0], // selective --keep-roles user --keep-marked
    [4, 16, 0, 2, 3, 1, 0, 0x05],     // composite --chain mask-tool-results,fifo,fifo, 1/8
    [5, 96, 0, 2, 3, 2, 0, 0],        // tool-results --max-result-tokens 9
    [6, 64, 0, 2, 3, 1, 0, 0],        // mask-tool-results --keep-recent 1
];

/// Trim planning. The input is an 8-byte header, then either a session file (header bit
/// 0x80 of byte 0 clear) or a recipe for a generated session (set; see [`generate`]).
///
/// Header: byte 0 the strategy (low 3 bits, mod 7) and, for generated sessions, the format
/// (bits 3–4); byte 1 the budget as a share of the session's tokens (n/128); byte 2
/// `--window` (0 = none); bytes 3, 4 `--keep-first`/`--keep-last`; byte 5 `--keep-recent`
/// and `--max-result-tokens`; byte 6 `--keep-roles` (bits 0–4, `Role::ALL`) and
/// `--keep-marked` (bit 5); byte 7 the composite chain (bits 0–5) and a pin (bit 7: pin the
/// message whose index is bits 0–6).
///
/// Every strategy's plan of every format must write, read back, keep system messages, keep
/// tool calls with their results (units whole, and no pairing problem that the input did
/// not have), keep the last user message and pinned ones, and say truly whether it fits.
pub fn trim(data: &[u8]) {
    if data.len() < TRIM_HEADER {
        return;
    }
    let (h, rest) = data.split_at(TRIM_HEADER);
    let generated;
    let (bytes, formats): (&[u8], Vec<Option<Format>>) = if h[0] & 0x80 != 0 {
        generated = generate(rest, (h[0] >> 3) & 3);
        (&generated, vec![None])
    } else {
        (rest, formats().collect())
    };
    let kind = StrategyKind::ALL[usize::from(h[0] & 7) % StrategyKind::ALL.len()];
    let opts = trim_options(h);
    let tokenizer = Tokenizer::new(Encoding::Approx).expect("the approx tokenizer always builds");
    let counter = Counter::new(tokenizer);
    for format in formats {
        let Ok(s) = formats::read(bytes, format) else {
            continue;
        };
        // A format read for counting only (a Gemini CLI `.json` chat) refuses to be written.
        if matches!(s.doc, ctxctl::session::Document::Released) {
            continue;
        }
        let counts = counter.messages(&s);
        let budget = Counter::total(&counts) * usize::from(h[1]) / 128;
        let Ok(plan) = strategy::plan(&s, &counts, &counter, kind, &opts, budget) else {
            continue; // invalid options (selective without criteria …)
        };
        check_plan(&s, &plan, kind, budget);
    }
}

fn trim_options(h: &[u8]) -> Options {
    let pick = |b: u8| {
        let others: Vec<StrategyKind> = StrategyKind::ALL
            .into_iter()
            .filter(|k| *k != StrategyKind::Composite)
            .collect();
        others[usize::from(b) % others.len()]
    };
    let mut chain = vec![pick(h[7] & 7), pick((h[7] >> 3) & 7)];
    if h[7] & 0x40 == 0 {
        chain.push(StrategyKind::Fifo);
    }
    let pins = if h[7] & 0x80 != 0 {
        vec![Selector::parse(&(h[7] & 0x7f).to_string()).expect("an index is a selector")]
    } else {
        Vec::new()
    };
    Options {
        window: (h[2] != 0).then_some(usize::from(h[2] % 32)),
        keep_first: usize::from(h[3] % 8),
        keep_last: usize::from(h[4] % 8),
        keep_roles: (0..5)
            .filter(|b| h[6] & (1 << b) != 0)
            .map(|b| Role::ALL[b])
            .collect(),
        keep_marked: h[6] & 0x20 != 0,
        pins,
        chain,
        max_result_tokens: usize::from(h[5]) * 4 + 1,
        keep_recent: usize::from(h[5] % 8),
    }
}

/// The invariants of a plan of `s` (see [`trim`]).
fn check_plan(s: &Session, plan: &strategy::Plan, kind: StrategyKind, budget: usize) {
    let n = s.messages.len();
    let what = format!("{} {kind} (budget {budget})", s.format);
    let indices: Vec<usize> = plan.items.iter().filter_map(Item::index).collect();
    assert!(
        indices.windows(2).all(|w| w[0] < w[1]) && indices.iter().all(|&i| i < n),
        "{what}: items out of order or range: {indices:?}"
    );
    let mut kept = vec![false; n];
    for &i in &indices {
        kept[i] = true;
    }
    let removed: Vec<usize> = (0..n).filter(|&i| !kept[i]).collect();
    assert_eq!(plan.removed, removed, "{what}: removed");
    assert_eq!(plan.fits, plan.tokens <= budget, "{what}: fits");
    for (i, m) in s.messages.iter().enumerate() {
        assert!(
            !m.is_instructions() || kept[i],
            "{what}: system message or injected context {i} dropped"
        );
    }
    // When the instructions alone are over the budget, only they (and what the agent's own
    // compaction kept verbatim beside its summary) are kept.
    // For the Anthropic API the user goes first: the user turn before the agent's kept
    // messages comes back with them.
    let front = indices
        .iter()
        .copied()
        .find(|&i| !s.messages[i].role.is_system())
        .filter(|&i| s.format.anthropic_bound() && s.messages[i].is_user_turn());
    let system_only = indices
        .iter()
        .all(|&i| s.messages[i].is_instructions() || s.messages[i].agent_kept || Some(i) == front)
        && plan
            .warnings
            .iter()
            .any(|w| w.contains("system messages alone"));
    if !system_only {
        // Units whole: a tool call and its results are kept or dropped together.
        for unit in pairs::units(&s.messages) {
            let members: Vec<bool> = unit
                .clone()
                .filter(|&i| !s.messages[i].is_instructions())
                .map(|i| kept[i])
                .collect();
            assert!(
                members.iter().all(|k| *k) || !members.iter().any(|k| *k),
                "{what}: unit {unit:?} split"
            );
        }
        if let Some(last) = s.last_user_index() {
            assert!(kept[last], "{what}: last user message {last} dropped");
        }
        for (i, m) in s.messages.iter().enumerate() {
            assert!(!m.pinned || kept[i], "{what}: pinned message {i} dropped");
        }
    }
    if plan.items.is_empty() {
        return; // `trim` refuses to write a session with no message left
    }
    let out = match formats::write(s, &plan.items) {
        Ok(out) => out,
        Err(e) => panic!("{what}: the plan cannot be written: {e}"),
    };
    let back = match formats::read(&out, Some(s.format)) {
        Ok(back) => back,
        Err(e) => panic!(
            "{what}: the trimmed session cannot be read back: {e}\n{}",
            String::from_utf8_lossy(&out)
        ),
    };
    if pairs::problems(&s.messages).is_empty() {
        let pending = pending_calls(&s.messages);
        let extra = extra_results(&s.messages);
        let problems: Vec<pairs::Problem> = pairs::problems(&back.messages)
            .into_iter()
            .filter(|p| match p {
                pairs::Problem::MissingResult { call_id, .. } => !pending.contains(call_id),
                pairs::Problem::OrphanResult { call_id, .. } => !extra.contains(call_id),
                // A trim never separates a reasoning item from its response's items.
                pairs::Problem::LoneReasoning { .. } | pairs::Problem::MissingReasoning { .. } => {
                    true
                }
                // Only the Anthropic ordering rules (`session::order`) name these.
                pairs::Problem::FirstNotUser { .. }
                | pairs::Problem::ResultNotAfterCall { .. }
                | pairs::Problem::CallNotAnsweredNext { .. } => true,
            })
            .collect();
        assert!(
            problems.is_empty(),
            "{what}: trimming broke tool pairing: {problems:?}\n{}",
            String::from_utf8_lossy(&out)
        );
    }
}

/// Ids of the calls still waiting for their results at the end of `messages`, which
/// `pairs::problems` does not report. A trim may put its marker (a user message) after such
/// calls when they sit among the first messages kept, and then they are reported; such a
/// session is one the APIs refuse anyway unless only their results follow.
fn pending_calls(messages: &[Message]) -> Vec<String> {
    let mut with_turn = messages.to_vec();
    with_turn.push(Message::new(
        Role::User,
        vec![Part::Text("next".into())],
        Origin::Record(0),
    ));
    pairs::problems(&with_turn)
        .into_iter()
        .filter_map(|p| match p {
            pairs::Problem::MissingResult { call_id, .. } => Some(call_id),
            _ => None,
        })
        .collect()
}

/// Ids of results that answer no open call (the call was answered already), which
/// `pairs::problems` does not report when the id was called before. A trim that drops
/// every call with that id makes them orphans; such a session is one the APIs refuse
/// anyway.
fn extra_results(messages: &[Message]) -> Vec<String> {
    let mut open = std::collections::HashSet::new();
    let mut extra = Vec::new();
    for m in messages {
        for id in m.result_ids() {
            if !open.remove(id) {
                extra.push(id.to_string());
            }
        }
        open.extend(m.call_ids());
    }
    extra
}

/// A session generated from `recipe`, one message per byte, in format `format` (0 OpenAI,
/// 1 Anthropic, 2 plain JSONL, 3 OpenAI with `{"messages": …}`). Byte `b`: `b % 8` is the
/// kind (system, user, assistant, assistant calling tools, tool result, pinned user,
/// assistant text and a call, failed tool result); the upper bits pick call ids from a
/// pool of four (so ids repeat and results can be orphans), how many calls, and lengths.
pub fn generate(recipe: &[u8], format: u8) -> Vec<u8> {
    let anthropic = format == 1;
    let mut msgs: Vec<Value> = Vec::new();
    let mut system = Vec::new();
    for (i, &b) in recipe.iter().take(256).enumerate() {
        let id = |k: u8| format!("call_{}", (b >> 3).wrapping_add(k) % 4);
        let words = "word ".repeat(1 + usize::from(b >> 4) * 3);
        let text = format!("m{i} {words}");
        let calls = |n: u8| -> Vec<(String, String)> {
            (0..n)
                .map(|k| (id(k), json!({"path": format!("f{k}.rs")}).to_string()))
                .collect()
        };
        let m = match b % 8 {
            0 if anthropic => {
                system.push(text);
                continue;
            }
            0 => json!({"role": "system", "content": text}),
            1 => json!({"role": "user", "content": text}),
            2 => json!({"role": "assistant", "content": text}),
            3 => assistant_calls(anthropic, None, &calls(1 + (b >> 6))),
            4 | 7 => tool_result(anthropic, &id(0), &text, b % 8 == 7),
            5 => json!({"role": "user", "content": text, "_preserve": true}),
            _ => assistant_calls(anthropic, Some(&text), &calls(1)),
        };
        msgs.push(m);
    }
    let doc = match format {
        1 => json!({"model": "claude-sonnet-4-5", "system": system.join("\n"), "messages": msgs}),
        2 => {
            let lines: Vec<String> = msgs.iter().map(Value::to_string).collect();
            return format!("{}\n", lines.join("\n")).into_bytes();
        }
        3 => json!({"model": "gpt-4o", "messages": msgs}),
        _ => Value::Array(msgs),
    };
    doc.to_string().into_bytes()
}

fn assistant_calls(anthropic: bool, text: Option<&str>, calls: &[(String, String)]) -> Value {
    if anthropic {
        let mut content: Vec<Value> = text
            .map(|t| json!({"type": "text", "text": t}))
            .into_iter()
            .collect();
        for (id, args) in calls {
            let input: Value = serde_json::from_str(args).expect("generated arguments are JSON");
            content.push(json!({"type": "tool_use", "id": id, "name": "read", "input": input}));
        }
        return json!({"role": "assistant", "content": content});
    }
    let calls: Vec<Value> = calls
        .iter()
        .map(|(id, args)| {
            json!({"id": id, "type": "function", "function": {"name": "read", "arguments": args}})
        })
        .collect();
    json!({"role": "assistant", "content": text, "tool_calls": calls})
}

fn tool_result(anthropic: bool, id: &str, text: &str, is_error: bool) -> Value {
    if anthropic {
        let block = json!({"type": "tool_result", "tool_use_id": id, "content": text, "is_error": is_error});
        return json!({"role": "user", "content": [block]});
    }
    json!({"role": "tool", "tool_call_id": id, "content": text})
}
