//! Benchmark of the embedded context manager (issue figures, not a test): `add_message`
//! latency on a session growing to 10,000 messages, `context_for_request` over 10,000
//! messages (fitting, and over the limit so that a trimmed copy is made), and the memory
//! held per message (resident set growth, Linux only).
//!
//! `cargo run --release --example manager_bench -- [MESSAGES]`

#![allow(clippy::print_stdout)]

use std::time::{Duration, Instant};

use ctxctl::{ContextLimits, ContextManager, Encoding, Message, Mode};

fn message(i: usize) -> Message {
    // A typical agent message: a few sentences, or a tool result of ~40 lines.
    match i % 4 {
        0 => Message::user(format!(
            "Step {i}: the test case_{i} fails with `assertion failed: left == right`. \
             Please find out why and fix it without touching the public API."
        )),
        1 => Message::tool_calls([(
            format!("call_{i}"),
            "read_file".to_string(),
            format!(r#"{{"path":"src/case_{i}.rs"}}"#),
        )]),
        2 => Message::tool_result(
            format!("call_{}", i - 1),
            (0..40)
                .map(|l| format!("{l:>4}: let value_{l} = compute({i}, {l});\n"))
                .collect::<String>(),
        ),
        _ => Message::assistant(format!(
            "Fixed case_{i}: the expected value was off by one in the loop bound."
        )),
    }
}

fn pct(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn rss_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000);
    let msgs: Vec<Message> = (0..n).map(message).collect();

    // A window large enough that nothing is trimmed: add_message is counting alone.
    let mut cm = ContextManager::new(
        "gpt-4o",
        ContextLimits::new(100_000_000, 16_000, 0),
        Encoding::O200kBase,
    );
    cm.set_system_prompt("You are a coding agent.");
    cm.add_message(Message::user("warm up the tokenizer"));
    cm.reset();
    let before = rss_bytes();
    let mut lat = Vec::with_capacity(n);
    for m in msgs.iter().cloned() {
        let t = Instant::now();
        cm.add_message(m);
        lat.push(t.elapsed());
    }
    let after = rss_bytes();
    lat.sort();
    println!(
        "add_message ({n} messages, {} tokens): median {:?}, p99 {:?}, max {:?}",
        cm.tokens_used(),
        pct(&lat, 0.5),
        pct(&lat, 0.99),
        pct(&lat, 1.0)
    );
    if let (Some(b), Some(a)) = (before, after) {
        let text: usize = msgs.iter().map(|m| m.text().len()).sum();
        println!(
            "memory held: {:.0} bytes per message (resident growth; the texts average {:.0} bytes)",
            a.saturating_sub(b) as f64 / n as f64,
            text as f64 / n as f64
        );
    }

    let mut times = Vec::new();
    for _ in 0..50 {
        let t = Instant::now();
        let request = cm.context_for_request();
        std::hint::black_box(request.len());
        times.push(t.elapsed());
    }
    times.sort();
    println!(
        "context_for_request, {n} messages that fit: median {:?}",
        pct(&times, 0.5)
    );

    // The same messages over a small limit with automatic truncation off: every request is
    // a trimmed copy.
    for mode in [Mode::SlidingWindow, Mode::Smart] {
        let mut over = ContextManager::new(
            "gpt-4o",
            ContextLimits::new(128_000, 16_000, 0),
            Encoding::O200kBase,
        )
        .with_mode(mode)
        .with_auto_truncate(false);
        over.set_system_prompt("You are a coding agent.");
        for m in msgs.iter().cloned() {
            over.add_message(m);
        }
        let mut times = Vec::new();
        for _ in 0..20 {
            let t = Instant::now();
            let request = over.context_for_request();
            std::hint::black_box(request.len());
            times.push(t.elapsed());
        }
        times.sort();
        println!(
            "context_for_request, {n} messages over the limit ({mode}, trimmed copy of {} → {} tokens): median {:?}",
            over.tokens_used(),
            over.limit(),
            pct(&times, 0.5)
        );
    }
}
