//! The benchmark's baseline: the least a program can do to count a session's tokens —
//! parse the file with serde_json and encode every text with tiktoken-rs on one thread.
//! `scripts/bench.sh` times ctxctl against it side by side.
//!
//! Usage: bare_count FILE [o200k_base|cl100k_base]

#![allow(clippy::print_stdout)] // a stand-alone benchmark program, not part of the CLI

use serde_json::Value;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: bare_count FILE [ENCODING]");
    let bpe = match args.next().as_deref() {
        Some("cl100k_base") => tiktoken_rs::cl100k_base().expect("cl100k_base"),
        _ => tiktoken_rs::o200k_base().expect("o200k_base"),
    };
    let text = std::fs::read_to_string(&path).expect("read");
    let messages: Vec<Value> = if path.ends_with(".jsonl") {
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).expect("json line"))
            .collect()
    } else {
        match serde_json::from_str::<Value>(&text).expect("json") {
            Value::Array(a) => a,
            Value::Object(mut o) => match o.remove("messages") {
                Some(Value::Array(a)) => a,
                _ => panic!("no messages"),
            },
            _ => panic!("not a session"),
        }
    };
    let mut total = 0usize;
    let mut count = |s: &str| total += bpe.encode_ordinary(s).len();
    for m in &messages {
        count(m["role"].as_str().unwrap_or(""));
        match &m["content"] {
            Value::String(s) => count(s),
            Value::Array(parts) => {
                for p in parts {
                    if let Some(t) = p["text"].as_str() {
                        count(t);
                    }
                }
            }
            _ => {}
        }
        if let Some(calls) = m["tool_calls"].as_array() {
            for c in calls {
                count(c["function"]["name"].as_str().unwrap_or(""));
                count(c["function"]["arguments"].as_str().unwrap_or(""));
            }
        }
    }
    println!("{total}");
}
