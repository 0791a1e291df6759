//! ctxctl counts o200k_base and cl100k_base with its own byte-pair counter (src/tokens/bpe/),
//! for speed; these tests hold it to tiktoken-rs, the reference: the same count for every
//! text of every real session in `shared/fixtures/`, for each whole fixture file, for the
//! repo's samples, for special-token text, for long pieces and for every vocabulary entry.

mod support;

use ctxctl::formats;
use ctxctl::session::Part;
use ctxctl::tokens::{Encoding, Tokenizer};

const EXACT: [Encoding; 2] = [Encoding::O200kBase, Encoding::Cl100kBase];

fn texts(parts: &[Part], out: &mut Vec<String>) {
    for p in parts {
        match p {
            Part::Text(t) | Part::Thinking(t) => out.push(t.clone()),
            Part::ToolCall {
                name, arguments, ..
            } => {
                out.push(name.clone());
                out.push(arguments.clone());
            }
            Part::ToolResult { content, .. } => texts(content, out),
            _ => {}
        }
    }
}

#[test]
fn every_fixture_text_counts_as_tiktoken_counts_it() {
    let dir = support::fixtures_dir();
    let samples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions");
    let mut files = Vec::new();
    for root in [dir, samples] {
        let mut stack = vec![root];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    files.push(p);
                }
            }
        }
    }
    assert!(files.len() > 20, "only {} files", files.len());
    let mut compared = 0;
    for enc in EXACT {
        let fast = Tokenizer::new(enc).unwrap();
        let reference = Tokenizer::tiktoken(enc).unwrap();
        assert!(matches!(fast, Tokenizer::Fast(..)));
        assert!(matches!(reference, Tokenizer::Bpe(..)));
        for path in &files {
            let bytes = std::fs::read(path).unwrap();
            let mut all = Vec::new();
            if let Ok(text) = std::str::from_utf8(&bytes) {
                all.push(text.to_string());
            }
            if let Ok(s) = formats::read(&bytes, None) {
                for m in &s.messages {
                    texts(&m.parts, &mut all);
                }
            }
            for t in &all {
                assert_eq!(
                    fast.count(t),
                    reference.count(t),
                    "{enc}: {}: {:?}",
                    path.display(),
                    t.chars().take(200).collect::<String>()
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 1000, "only {compared} texts compared");
}

/// Special-token text (`<|endoftext|>` and the rest) is ordinary text to a counter, as in
/// tiktoken's `encode_ordinary`: alone, inside words, repeated and inside a session.
#[test]
fn special_token_text_counts_as_ordinary_text() {
    let specials = [
        "<|endoftext|>",
        "<|fim_prefix|>",
        "<|fim_middle|>",
        "<|fim_suffix|>",
        "<|endofprompt|>",
        "<|im_start|>",
        "<|im_end|>",
        "<|im_sep|>",
        "<|start|>",
        "<|end|>",
        "<|message|>",
        "<|channel|>",
        "<|return|>",
        "<|call|>",
        "<|constrain|>",
    ];
    let mut cases = Vec::new();
    for s in specials {
        cases.push(s.to_string());
        cases.push(format!("before{s}after"));
        cases.push(format!("Hello {s} world\n{s}{s}\n\n  {s}  "));
        cases.push(s.repeat(50));
    }
    for enc in EXACT {
        let fast = Tokenizer::new(enc).unwrap();
        let reference = Tokenizer::tiktoken(enc).unwrap();
        for t in &cases {
            assert_eq!(fast.count(t), reference.count(t), "{enc}: {t:?}");
        }
        // The same text as a message of a session, counted through the format reader.
        let doc = serde_json::json!({"messages": cases.iter().map(|t| {
            serde_json::json!({"role": "user", "content": t})
        }).collect::<Vec<_>>()});
        let s = formats::read(doc.to_string().as_bytes(), None).unwrap();
        let mut all = Vec::new();
        for m in &s.messages {
            texts(&m.parts, &mut all);
        }
        assert_eq!(all.len(), cases.len());
        for t in &all {
            assert_eq!(fast.count(t), reference.count(t), "{enc}: {t:?}");
        }
    }
}

/// Pieces of 100 bytes and more take tiktoken's other merge algorithm (a heap): long runs
/// of letters, digits, punctuation, whitespace and non-Latin scripts, as in minified code,
/// base64 blobs and logs.
#[test]
fn long_pieces_count_as_tiktoken_counts_them() {
    let units = [
        "a", "ab", "xyz", "Q", "é", "ж", "中", "🙂", "!", "=-", "/", " ", "\n", "\t", "1", "0x",
    ];
    let mut texts = Vec::new();
    for (i, u) in units.iter().enumerate() {
        for n in [40, 99, 100, 101, 257, 1500] {
            texts.push(u.repeat(n));
            // Mixed with the next unit, so merges meet at odd boundaries.
            let v = units[(i + 1) % units.len()];
            texts.push(format!(
                "{}{}{}",
                u.repeat(n / 2),
                v.repeat(n / 3),
                u.repeat(n / 5)
            ));
        }
    }
    let blob: String = (0..6000u32)
        .map(|i| {
            char::from(
                b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"[(i * 7919 % 52) as usize],
            )
        })
        .collect();
    texts.push(blob);
    for enc in EXACT {
        let fast = Tokenizer::new(enc).unwrap();
        let reference = Tokenizer::tiktoken(enc).unwrap();
        for t in &texts {
            assert_eq!(
                fast.count(t),
                reference.count(t),
                "{enc}: {:?}",
                &t[..t.len().min(80)]
            );
        }
    }
}

/// Every vocabulary entry that is valid UTF-8, alone and after a space: the static tables
/// built by build.rs hold every rank (a missing or misplaced entry would change counts).
#[test]
fn every_vocabulary_entry_counts_as_tiktoken_counts_it() {
    for enc in EXACT {
        let fast = Tokenizer::new(enc).unwrap();
        let reference = Tokenizer::tiktoken(enc).unwrap();
        let Tokenizer::Bpe(_, bpe) = reference else {
            unreachable!()
        };
        let mut compared = 0;
        for rank in 0..300_000u32 {
            let Ok(bytes) = bpe.decode_bytes(&[rank]) else {
                continue;
            };
            let Ok(text) = String::from_utf8(bytes) else {
                continue;
            };
            for t in [text.clone(), format!("x {text}")] {
                assert_eq!(
                    fast.count(&t),
                    reference.count(&t),
                    "{enc}: rank {rank}: {t:?}"
                );
            }
            compared += 1;
        }
        assert!(compared > 90_000, "{enc}: only {compared} entries");
    }
}
