//! ctxctl counts o200k_base and cl100k_base with GitHub's `bpe-openai`, for speed; these
//! tests hold it to tiktoken-rs, the reference: the same count for every text of every real
//! session in `shared/fixtures/`, for each whole fixture file, and for the repo's samples.

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
