//! The offline summary of a whole session file at the default cap, for
//! `scripts/compaction-bench.py` (issue #45): the benchmark rebuilds the segment an agent's
//! own compaction summarised as a session file of its own and asks for ctxctl's summary of
//! it. Earlier summaries at the segment's start are carried forward as `compact` does.
//!
//! Usage: cargo run --example segment_summary -- SESSION [CAP]
//! Prints the summary, then on stderr its tokens (o200k_base).
//! `segment_summary --count FILE` prints the tokens of a text file instead.

#![allow(clippy::print_stdout, clippy::print_stderr)] // a stand-alone benchmark helper
#![allow(clippy::disallowed_methods)] // reads its own arguments and paths

use ctxctl::formats;
use ctxctl::summarize::offline::{self, DEFAULT_CAP};
use ctxctl::summarize::Input;
use ctxctl::tokens::{Counter, Encoding, Tokenizer};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: segment_summary SESSION [CAP]");
        std::process::exit(2);
    };
    let counter = Counter::new(Tokenizer::new(Encoding::O200kBase).expect("o200k_base"));
    if path == "--count" {
        let file = args.next().unwrap_or_default();
        match std::fs::read_to_string(&file) {
            Ok(t) => println!("{}", counter.text(&t)),
            Err(e) => {
                eprintln!("{file}: {e}");
                std::process::exit(2);
            }
        }
        return;
    }
    let cap = args
        .next()
        .and_then(|c| c.parse().ok())
        .unwrap_or(DEFAULT_CAP);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    };
    let session = match formats::read(&bytes, None) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    };
    let summary = offline::summarize(&Input::new(&session.messages), &counter, cap);
    println!("{summary}");
    eprintln!("{}", counter.text(&summary));
}
