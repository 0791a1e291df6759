//! The pre-tokenizers' regexes (src/tokens/bpe/patterns.rs) as dense DFAs, serialized for
//! the target's byte order: the binary reads them in place (src/tokens/bpe/pretok.rs), so no
//! regex is compiled at start-up. Anchored searches only, leftmost-first, one pattern id
//! per pattern: what the pre-tokenizer asks of them.

use std::path::Path;

use regex_automata::dfa::{dense, StartKind};
use regex_automata::MatchKind;

#[path = "../src/tokens/bpe/patterns.rs"]
mod patterns;

pub fn write_all(out: &Path) {
    println!("cargo::rerun-if-changed=src/tokens/bpe/patterns.rs");
    write(out, "o200k_base", &patterns::O200K);
    write(out, "cl100k_base", &patterns::CL100K);
}

fn write(out: &Path, name: &str, patterns: &[(&str, bool); 3]) {
    let pats: Vec<&str> = patterns.iter().map(|p| p.0).collect();
    let dfa = dense::Builder::new()
        .configure(
            dense::Config::new()
                .start_kind(StartKind::Anchored)
                .match_kind(MatchKind::LeftmostFirst),
        )
        .build_many(&pats)
        .unwrap_or_else(|e| panic!("the {name} pre-tokenizer DFA: {e}"));
    write_dfa(out, name, &dfa);
}

/// Writes `dfa` to `out/{name}.dfa` in the target's byte order (which may not be the build
/// machine's).
pub fn write_dfa(out: &Path, name: &str, dfa: &dense::DFA<Vec<u32>>) {
    #[allow(clippy::disallowed_methods)]
    let big = std::env::var("CARGO_CFG_TARGET_ENDIAN").is_ok_and(|e| e == "big");
    let (bytes, pad) = if big {
        dfa.to_bytes_big_endian()
    } else {
        dfa.to_bytes_little_endian()
    };
    std::fs::write(out.join(format!("{name}.dfa")), &bytes[pad..]).expect("writing a DFA");
}
