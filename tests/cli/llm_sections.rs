//! Issue #45: the LLM summarizer asks for the offline summary's structure (intent,
//! decisions and corrections, errors and their resolution, pending work, current work,
//! the next step), and what a provider writes in those sections is what `compact` writes.

use std::fs;

use crate::http::Server;
use crate::support::{s, sample, TestEnv};

#[test]
fn the_llm_prompt_asks_for_the_sections_and_they_are_written() {
    let server = Server::sections_stub();
    let env = TestEnv::new()
        .env("CTXCTL_LLM_PROVIDER", "openai")
        .env("CTXCTL_LLM_BASE_URL", &format!("{}/v1", server.url))
        .env("CTXCTL_LLM_MODEL", "summarizer-small")
        .env("CTXCTL_LLM_API_KEY", "sk-test-not-a-secret");
    let f = env.write("plain.jsonl", fs::read(sample("plain.jsonl")).unwrap());
    let run = env.run(&[
        "compact",
        "--model",
        "gpt-4o",
        s(&f),
        "--summarizer",
        "llm",
        "--tail-tokens",
        "300",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1, "{reqs:?}");
    for asked in [
        "1. Primary request and intent:",
        "2. Decisions and corrections: where the user redirected the work",
        "5. Errors and their resolution:",
        "A user declining or",
        "6. Pending work:",
        "7. Current work: the current task (the last real request",
        "8. Next step: the next step as the conversation states it",
    ] {
        assert!(
            reqs[0].contains(asked),
            "{asked:?} not asked in\n{}",
            reqs[0]
        );
    }
    let out = fs::read_to_string(env.data_dir().join("sessions/plain.jsonl")).unwrap();
    let summary = out
        .split("<summary>")
        .nth(1)
        .and_then(|x| x.split("</summary>").next())
        .expect("a summary was written");
    for heading in [
        "## Decisions and corrections",
        "## Errors and their resolution",
        "## Pending work",
        "## Next step",
    ] {
        assert!(
            summary.contains(heading),
            "{heading:?} not written:\n{summary}"
        );
    }
    // Every request the prompt carried is in what was written (the provider quoted them).
    let body = reqs[0].split("\r\n\r\n").nth(1).unwrap();
    let v: serde_json::Value = serde_json::from_str(body).unwrap();
    let user = v["messages"][1]["content"].as_str().unwrap();
    let lines: Vec<&str> = user.lines().collect();
    let asked: Vec<&str> = (lines.windows(2))
        .filter(|w| w[0] == "[user]")
        .map(|w| w[1])
        .collect();
    assert!(!asked.is_empty(), "{user}");
    for request in asked {
        let head: String = request.chars().take(60).collect();
        let escaped = serde_json::to_string(&head).unwrap();
        assert!(
            summary.contains(escaped.trim_matches('"')),
            "{head:?} lost:\n{summary}"
        );
    }
}
