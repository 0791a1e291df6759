//! `archive restore` gives back the original bytes of sessions that are not in serde_json's
//! compact form: JSONL written by Python's `json.dumps` (spaces after `:` and `,`), escapes
//! like `\u00e9` and `\/`, numbers like `1.0` and `1e3`, and an indented chat document.
//! Archives written before ctxctl kept the records' text still restore.

use std::fs;
use std::path::Path;

use crate::support::{s, TestEnv};

/// A JSONL session as Python writes it, with escapes and number forms serde_json would
/// write otherwise.
fn spaced_jsonl(n: usize) -> String {
    (0..n)
        .map(|i| {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            format!(
                "{{\"role\": \"{role}\", \"content\": \"message {i}: caf\\u00e9 and a\\/b {}\", \
                 \"meta\": {{\"score\": 1.0, \"limit\": 1e3, \"ratio\": -0.50}}}}\n",
                "word ".repeat(40)
            )
        })
        .collect()
}

/// An OpenAI chat document indented by four spaces, with the same escapes and numbers.
fn indented_chat(n: usize) -> String {
    let messages: Vec<String> = (0..n)
        .map(|i| {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            format!(
                "        {{\n            \"role\" : \"{role}\",\n            \"content\": \
                 \"message {i}: na\\u00efve \\/ {}\",\n            \"n\": 1e3\n        }}",
                "word ".repeat(40)
            )
        })
        .collect();
    format!(
        "{{\n    \"model\": \"gpt-4o\",\n    \"temperature\": 1.0,\n    \"messages\": [\n{}\n    ]\n}}\n",
        messages.join(",\n")
    )
}

fn compact_in_place(env: &TestEnv, f: &Path) {
    let run = env.run(&[
        "compact",
        s(f),
        "--in-place",
        "--model",
        "gpt-4o",
        "--tail-tokens",
        "300",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
}

fn trim_in_place(env: &TestEnv, f: &Path) {
    let run = env.run(&[
        "trim",
        s(f),
        "--in-place",
        "--strategy",
        "smart",
        "--keep-last",
        "4",
        "--max-tokens",
        "900",
        "--tokenizer",
        "approx",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
}

fn restore(env: &TestEnv, id: &str) {
    let run = env.run(&["archive", "restore", id, "--tokenizer", "approx"]);
    assert_eq!(run.code, 0, "{run:?}");
}

/// The session's bytes after `rewrite` and `archive restore` of what it archived are the
/// original's, plain and compressed.
fn round_trip(name: &str, original: &str, rewrite: fn(&TestEnv, &Path)) {
    for compress in ["none", "zstd"] {
        let env = TestEnv::new().env("CTXCTL_ARCHIVE_COMPRESS", compress);
        let f = env.write(name, original);
        rewrite(&env, &f);
        let rewritten = fs::read(&f).unwrap();
        assert_ne!(rewritten, original.as_bytes(), "{name} ({compress})");
        let id = format!("{}/1", name.split('.').next().unwrap());
        restore(&env, &id);
        let back = fs::read_to_string(&f).unwrap();
        assert!(back == original, "{name} ({compress}): restored\n{back}");
    }
}

#[test]
fn restoring_a_compaction_of_spaced_jsonl_gives_back_its_bytes() {
    round_trip("spaced.jsonl", &spaced_jsonl(40), compact_in_place);
}

#[test]
fn restoring_a_trim_of_spaced_jsonl_gives_back_its_bytes() {
    round_trip("spaced.jsonl", &spaced_jsonl(40), trim_in_place);
}

#[test]
fn restoring_a_compaction_of_an_indented_chat_document_gives_back_its_bytes() {
    round_trip("indented.json", &indented_chat(40), compact_in_place);
}

#[test]
fn restoring_a_trim_of_an_indented_chat_document_gives_back_its_bytes() {
    round_trip("indented.json", &indented_chat(40), trim_in_place);
}

/// The archive as ctxctl wrote it before it kept records' text: the same JSON, every
/// record a pretty-printed value nested in the document.
fn as_old_archive(path: &Path) {
    let v: serde_json::Value = crate::support::read_archive(path);
    let mut text = serde_json::to_string_pretty(&v).unwrap();
    text.push('\n');
    fs::write(path, text).unwrap();
}

fn only_archive(env: &TestEnv, session: &str) -> std::path::PathBuf {
    let dir = env.data_dir().join("archives").join(session);
    let files: Vec<_> = fs::read_dir(dir).unwrap().flatten().collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].path()
}

#[test]
fn archives_written_before_records_kept_their_text_still_restore() {
    // Compact JSONL: an old archive gives back the same bytes too.
    let env = TestEnv::new();
    let original = crate::support::jsonl_chat(60);
    let f = env.write("old.jsonl", &original);
    compact_in_place(&env, &f);
    let archive = only_archive(&env, "old");
    as_old_archive(&archive);
    assert!(fs::read_to_string(&archive)
        .unwrap()
        .contains("\n      \"role\": \"user\",\n"));
    restore(&env, "old/1");
    assert_eq!(fs::read_to_string(&f).unwrap(), original);

    // An indented document: the same messages back, in the document's own indentation.
    let env = TestEnv::new();
    let original = indented_chat(40);
    let f = env.write("indented.json", &original);
    compact_in_place(&env, &f);
    as_old_archive(&only_archive(&env, "indented"));
    restore(&env, "indented/1");
    let back = fs::read_to_string(&f).unwrap();
    let value = |t: &str| serde_json::from_str::<serde_json::Value>(t).unwrap();
    assert_eq!(value(&back), value(&original));
    assert!(
        back.contains("\n        {\n            \"role\": \"user\",\n"),
        "{back}"
    );
}
