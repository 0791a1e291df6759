//! Issue #21: summaries that keep what the next turn needs — pinned messages kept around
//! the summary, the recall self-check and `--min-recall`, LLM summaries of middles larger
//! than the summarizer's window, and `--fallback offline`.

use std::fs;

use crate::http::{openai_answer, Server};
use crate::support::{s, sample, TestEnv};

/// A plain JSONL session of `turns` user/assistant turns of plain text (no tool output to
/// leave out), the user asking in `[uN]`-tagged words, the third assistant message pinned.
fn long_chat(turns: usize) -> String {
    let mut out = String::from("{\"role\":\"system\",\"content\":\"You help.\"}\n");
    for i in 0..turns {
        let ask = format!("[u{i}] please look at module{i} and tell me what it does ")
            + &"with care and detail ".repeat(12);
        let answer = format!("module{i} parses the input and writes a report ")
            + &"about the inventory totals ".repeat(12);
        out.push_str(&serde_json::json!({"role": "user", "content": ask}).to_string());
        out.push('\n');
        let mut a = serde_json::json!({"role": "assistant", "content": answer});
        if i == 2 {
            a["_preserve"] = true.into();
        }
        out.push_str(&a.to_string());
        out.push('\n');
    }
    out
}

#[test]
fn pinned_messages_in_the_middle_stay_verbatim_and_restore_gives_the_original_back() {
    let env = TestEnv::new();
    let text = long_chat(12);
    let f = env.write("chat.jsonl", &text);
    let run = env.run(&[
        "compact",
        s(&f),
        "--model",
        "gpt-4o",
        "--tail-tokens",
        "400",
        "--in-place",
        "--json",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let v = run.json();
    let pinned = text.lines().find(|l| l.contains("_preserve")).unwrap();
    let out = fs::read_to_string(&f).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    // system, summary, the pinned message byte for byte, then the tail.
    assert_eq!(lines[2], pinned);
    assert_eq!(
        v["compacted_messages"].as_u64().unwrap() + v["retained_messages"].as_u64().unwrap(),
        25
    );
    // The summary does not summarize the pinned message (module2's answer).
    insta::assert_snapshot!("summary", env.redact(lines[1]));
    let restored = env.run(&["archive", "restore", "chat/1", s(&f)]);
    assert_eq!(restored.code, 0, "{restored:?}");
    assert_eq!(fs::read_to_string(&f).unwrap(), text);
}

#[test]
fn the_report_gives_the_summarys_recall_and_min_recall_refuses_a_poor_one() {
    let env = TestEnv::new();
    let f = env.write("s.json", fs::read(sample("openai-chat.json")).unwrap());
    let before = fs::read(&f).unwrap();
    let args = ["compact", s(&f), "--tail-tokens", "300", "--in-place"];
    let dry = env.run(&[&args[..], &["--dry-run", "--json"]].concat());
    let v = dry.json();
    assert_eq!(v["recall"], 1.0, "{v}");
    assert_eq!(v["recall_facts"]["requests"]["facts"], 2, "{v}");
    assert!(
        v["recall_facts"]["paths"]["facts"].as_u64().unwrap() > 0,
        "{v}"
    );
    // A summary cut to 60 tokens cannot mention everything: refused, nothing written.
    let run = env.run(
        &[
            &args[..],
            &["--summary-tokens", "60", "--min-recall", "0.9"],
        ]
        .concat(),
    );
    assert_eq!(run.code, 3, "{run:?}");
    insta::assert_snapshot!("min_recall", env.snap(&run));
    assert_eq!(fs::read(&f).unwrap(), before);
    assert!(
        !env.data_dir().join("archives").exists()
            || env.run(&["archive", "ls", "--json"]).stdout.trim() == "[]"
    );
    let bad = env.run(&[&args[..], &["--min-recall", "2"]].concat());
    assert_eq!(bad.code, 2, "{bad:?}");
    // A compaction written reports what its dry run did (measured while it is written).
    let out = env.path().join("out.json");
    let real = env.run(&[
        "compact",
        s(&f),
        "--tail-tokens",
        "300",
        "--json",
        "-o",
        s(&out),
    ]);
    assert_eq!(real.code, 0, "{real:?}");
    let r = real.json();
    for key in ["recall", "recall_facts", "unmentioned"] {
        assert_eq!(r[key], v[key], "{key}: {r}");
    }
    // The human report says it.
    let run = env.run(&args);
    assert_eq!(run.code, 0, "{run:?}");
    insta::assert_snapshot!("human", env.snap(&run));
}

#[test]
fn an_llm_summary_of_a_middle_larger_than_its_window_is_made_in_chunks() {
    let replies = (0..40)
        .map(|i| openai_answer(&format!("PART {i}: they discussed modules.")))
        .collect();
    let server = Server::start(replies);
    let env = TestEnv::new();
    let config = env.write("config.toml", "[llm]\ncontext_window = 5000\n");
    let env = env
        .env("CTXCTL_CONFIG", s(&config))
        .env("CTXCTL_LLM_BASE_URL", &format!("{}/v1", server.url))
        .env("CTXCTL_LLM_MODEL", "summarizer-small");
    let f = env.write("chat.jsonl", long_chat(30));
    let run = env.run(&[
        "compact",
        s(&f),
        "--model",
        "gpt-4o",
        "--summarizer",
        "llm",
        "--tail-tokens",
        "300",
        "--in-place",
        "--json",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let reqs = server.requests();
    assert!(reqs.len() >= 4, "{} requests", reqs.len());
    for r in &reqs {
        let body = r.split("\r\n\r\n").nth(1).unwrap_or_default();
        // 1,024 tokens of input at most (5,000 less 4,096 for the answer, at least 1,024).
        assert!(body.len() < 1024 * 6, "a request of {} bytes", body.len());
    }
    let sent: String = reqs.concat();
    for i in 0..27 {
        assert!(
            sent.contains(&format!("[u{i}] please")),
            "request {i} never sent"
        );
    }
    assert!(
        reqs.last().unwrap().contains("<part n=\\\"2\\\">"),
        "the last request merges"
    );
    // The last request's answer is the summary. The stub's summary names no request: the
    // appendix lists them, and the report says so.
    let out = fs::read_to_string(&f).unwrap();
    let summary = out.lines().nth(1).unwrap();
    let last = format!("PART {}: they discussed modules.", reqs.len() - 1);
    insta::assert_snapshot!(env.redact(summary).replace(&last, "[LAST PART]"));
    let v = run.json();
    assert!(v["recall"].as_f64().unwrap() < 0.5, "{v}");
    assert!(v["unmentioned"].as_u64().unwrap() > 20, "{v}");
}

#[test]
fn fallback_offline_replaces_a_failed_llm_summary() {
    let server = Server::start(vec![(500, "{}".into()), (500, "{}".into())]);
    let env = TestEnv::new()
        .env("CTXCTL_LLM_BASE_URL", &format!("{}/v1", server.url))
        .env("CTXCTL_LLM_MODEL", "summarizer-small");
    let f = env.write("s.json", fs::read(sample("openai-chat.json")).unwrap());
    let before = fs::read(&f).unwrap();
    let args = [
        "compact",
        s(&f),
        "--summarizer",
        "llm",
        "--retries",
        "0",
        "--tail-tokens",
        "300",
        "--in-place",
    ];
    let failed = env.run(&args);
    assert_eq!(failed.code, 3, "{failed:?}");
    insta::assert_snapshot!("failed", env.snap(&failed));
    assert_eq!(fs::read(&f).unwrap(), before);
    let run = env.run(&[&args[..], &["--fallback", "offline", "--json"]].concat());
    assert_eq!(run.code, 0, "{run:?}");
    insta::assert_snapshot!("fell_back", env.redact(&run.stderr));
    assert_eq!(run.json()["summarizer"], "offline");
    let out: serde_json::Value = serde_json::from_str(&fs::read_to_string(&f).unwrap()).unwrap();
    let summary = out["messages"][1]["content"].as_str().unwrap();
    insta::assert_snapshot!("offline_summary", env.redact(summary));
}
