//! Planning a trim of a 10,000-message session (issue 3: under 10 ms, excluding parsing and
//! counting). The session is synthetic: a system prompt, then user turns, assistant answers
//! and tool calls with one to three results each. Selective is left out: it is fifo with
//! more units protected.

#![allow(clippy::print_stderr)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use ctxctl::formats;
use ctxctl::session::{Format, Session};
use ctxctl::strategy::{plan, Options, StrategyKind};
use ctxctl::tokens::{Counter, Encoding, Tokenizer};
use serde_json::{json, Value};

const MESSAGES: usize = 10_000;

fn text(i: usize, words: usize) -> String {
    (0..words)
        .map(|w| format!("w{} ", (i * 31 + w) % 997))
        .collect()
}

fn session() -> Session {
    let mut msgs: Vec<Value> = vec![json!({"role": "system", "content": text(0, 200)})];
    let mut i = 0;
    while msgs.len() < MESSAGES {
        i += 1;
        match i % 4 {
            0 | 2 => msgs.push(json!({"role": "user", "content": text(i, 40)})),
            1 => msgs.push(json!({"role": "assistant", "content": text(i, 60)})),
            _ => {
                let n = 1 + i % 3;
                let calls: Vec<Value> = (0..n)
                    .map(|j| json!({"id": format!("c{i}_{j}"), "type": "function",
                        "function": {"name": "read_file", "arguments": format!("{{\"path\":\"f{j}\"}}")}}))
                    .collect();
                msgs.push(json!({"role": "assistant", "content": null, "tool_calls": calls}));
                for j in 0..n {
                    msgs.push(json!({"role": "tool", "tool_call_id": format!("c{i}_{j}"),
                        "content": text(i + j, 150 + 400 * (j % 2))}));
                }
            }
        }
    }
    msgs.truncate(MESSAGES);
    // Don't leave a call without its results at the end.
    while msgs.last().is_some_and(|m| m["role"] != "user") {
        msgs.pop();
    }
    let bytes = serde_json::to_vec(&json!({"messages": msgs})).unwrap();
    formats::read(&bytes, Some(Format::OpenAi)).unwrap()
}

fn bench(c: &mut Criterion) {
    let s = session();
    // o200k_base is exact; approx shows the planning cost apart from tokenizing the texts
    // a plan adds (markers, notes, placeholders).
    for encoding in [Encoding::O200kBase, Encoding::Approx] {
        let counter = Counter::new(Tokenizer::new(encoding).unwrap());
        let counts = counter.messages(&s);
        let total = Counter::total(&counts);
        let budget = total / 2;
        let opts = Options {
            chain: vec![StrategyKind::Smart, StrategyKind::Fifo],
            keep_first: 2,
            keep_last: s.messages.len() / 2,
            max_result_tokens: 500,
            ..Options::default()
        };
        eprintln!(
            "session: {} messages, {total} tokens ({encoding}); budget {budget}",
            s.messages.len()
        );
        for kind in StrategyKind::ALL {
            if kind == StrategyKind::Selective {
                continue;
            }
            let p = plan(&s, &counts, &counter, kind, &opts, budget).unwrap();
            eprintln!(
                "{kind}: removes {}, edits {}, {} tokens, fits {}",
                p.removed.len(),
                p.edited.len(),
                p.tokens,
                p.fits
            );
            c.bench_function(&format!("plan/{kind}/10k/{encoding}"), |b| {
                b.iter(|| plan(black_box(&s), &counts, &counter, kind, &opts, budget).unwrap())
            });
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
