//! The o200k_base and cl100k_base vocabularies as static tables (read in place at run time
//! by src/tokens/bpe/vocab.rs, which describes the layout). The ranks come from
//! tiktoken-rs, the reference the tests compare counts with.

use std::path::Path;

#[path = "../src/tokens/bpe/hash.rs"]
mod hash;

pub fn write_all(out: &Path) {
    println!("cargo::rerun-if-changed=src/tokens/bpe/hash.rs");
    write(
        out,
        "o200k_base",
        &tiktoken_rs::o200k_base().expect("o200k_base"),
    );
    write(
        out,
        "cl100k_base",
        &tiktoken_rs::cl100k_base().expect("cl100k_base"),
    );
}

fn write(out: &Path, name: &str, bpe: &tiktoken_rs::CoreBPE) {
    // Every rank up to the first run of misses (the tiktoken encodings are dense), but not
    // the special tokens (`<|endoftext|>` …): ordinary text never encodes to those.
    let mut tokens: Vec<Vec<u8>> = Vec::new();
    let specials = bpe.special_tokens();
    let mut misses = 0;
    for rank in 0u32.. {
        match bpe.decode_bytes(&[rank]) {
            Ok(t) if !std::str::from_utf8(&t).is_ok_and(|t| specials.contains(t)) => {
                tokens.resize(rank as usize, Vec::new());
                tokens.push(t);
                misses = 0;
            }
            _ => {
                misses += 1;
                if misses > 1000 {
                    break;
                }
            }
        }
    }
    let bits = (tokens.len() * 5 / 2).next_power_of_two().trailing_zeros();
    let mask = (1usize << bits) - 1;
    let mut slots = vec![u64::MAX; 1 << bits];
    let mut starts = Vec::with_capacity(4 * (tokens.len() + 1));
    let mut bytes = Vec::new();
    let mut longest_probe = 0;
    for (rank, t) in tokens.iter().enumerate() {
        starts.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        bytes.extend_from_slice(t);
        if t.is_empty() {
            continue; // a gap in the ranks
        }
        let h = hash::hash(t);
        let mut i = (h >> (64 - bits)) as usize;
        let mut probe = 0;
        while slots[i] != u64::MAX {
            i = (i + 1) & mask;
            probe += 1;
        }
        longest_probe = longest_probe.max(probe);
        slots[i] = ((h >> 16) & 0xFFFF_FFFF) << 32 | rank as u64;
    }
    starts.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    assert!(
        tokens.len() > 50_000,
        "{name}: only {} tokens",
        tokens.len()
    );
    assert!(longest_probe < 64, "{name}: a probe run of {longest_probe}");
    let slots: Vec<u8> = slots.iter().flat_map(|s| s.to_le_bytes()).collect();
    for (ext, data) in [("slots", &slots), ("starts", &starts), ("bytes", &bytes)] {
        std::fs::write(out.join(format!("{name}.{ext}")), data).expect("write a vocabulary table");
    }
}
