//! A simulated agent loop driven through `ContextManager` for a few thousand turns: every
//! turn the "user" asks, the "model" calls a tool or two, the tool results come back, the
//! model answers. The request handed to the model always fits the window, tool calls and
//! their results always travel together, and the system prompt always leads.
//!
//! Run it: `cargo run --release --example agent_loop -- [TURNS] [sliding-window|smart|summarize]`
//! (works with `--no-default-features` too: the engine alone).

#![allow(clippy::print_stdout)]

use std::time::Instant;

use ctxctl::{ContextLimits, ContextManager, Message, Mode, Role};

fn main() {
    let mut args = std::env::args().skip(1);
    let turns: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(2_000);
    let mode = match args.next().as_deref() {
        Some("smart") => Mode::Smart,
        Some("summarize") => Mode::Summarize,
        _ => Mode::SlidingWindow,
    };
    let mut cm = ContextManager::for_model("gpt-4o")
        .with_mode(mode)
        // A small window, so that a few thousand turns overflow it many times.
        .with_limits(ContextLimits::new(16_000, 2_000, 1_000));
    cm.set_system_prompt("You are a coding agent. Use the tools to read and change files.");

    let mut latencies = Vec::with_capacity(turns * 4);
    let started = Instant::now();
    for turn in 0..turns {
        let mut add = |m: Message| {
            let t = Instant::now();
            cm.add_message(m);
            latencies.push(t.elapsed());
        };
        add(Message::user(format!(
            "Turn {turn}: the test `case_{turn}` fails with `assertion failed: left == right`; \
             find out why and fix it."
        )));
        let calls = 1 + turn % 2;
        let ids: Vec<String> = (0..calls).map(|k| format!("call_{turn}_{k}")).collect();
        add(Message::tool_calls(ids.iter().map(|id| {
            (
                id.as_str(),
                "read_file",
                format!(r#"{{"path":"src/case_{turn}.rs"}}"#),
            )
        })));
        for id in &ids {
            let body: String = (0..40)
                .map(|l| format!("{l:>4}: let value_{l} = compute({turn}, {l});\n"))
                .collect();
            add(Message::tool_result(id.as_str(), body));
        }
        add(Message::assistant(format!(
            "Fixed case_{turn}: the expected value was off by one."
        )));

        let request = cm.context_for_request();
        assert_eq!(request[0].role, Role::System, "the system prompt leads");
        let calls: Vec<&str> = request.iter().flat_map(Message::call_ids).collect();
        let results: Vec<&str> = request.iter().flat_map(Message::result_ids).collect();
        assert_eq!(calls, results, "tool calls and results travel together");
        assert!(
            cm.tokens_used() <= cm.limit(),
            "the request fits the window"
        );
    }
    let elapsed = started.elapsed();

    latencies.sort();
    let pct = |p: f64| latencies[((latencies.len() - 1) as f64 * p) as usize];
    let stats = cm.stats();
    println!(
        "{turns} turns in {mode} mode: {} messages held, {} / {} tokens ({:.1}%), room made {} times",
        stats.message_count,
        stats.tokens_used,
        stats.limit,
        stats.usage_percent,
        stats.times_made_room
    );
    println!(
        "add_message: median {:?}, p99 {:?}, max {:?}; {:?} in all",
        pct(0.5),
        pct(0.99),
        pct(1.0),
        elapsed
    );
}
