//! The LLM summarizer against a real HTTP server on 127.0.0.1.

use std::time::Duration;

use super::test_server::{Reply, TestServer};
use super::*;
use crate::formats::read;
use crate::session::{Format, Session};
use crate::tokens::{Encoding, Tokenizer};

const KEY: &str = "sk-test-SECRET-0123456789";

fn counter() -> Counter {
    Counter::new(Tokenizer::new(Encoding::Approx).unwrap())
}

fn session() -> Session {
    let json = r#"[
      {"role": "user", "content": "Rename foo to bar everywhere."},
      {"role": "assistant", "content": null, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\":\"grep -rn foo\"}"}}]},
      {"role": "tool", "tool_call_id": "c1", "content": "src/a.rs:1:foo()"},
      {"role": "assistant", "content": "Found one use in src/a.rs."}
    ]"#;
    read(json.as_bytes(), Some(Format::OpenAi)).unwrap()
}

fn config(provider: Provider, server: &TestServer) -> LlmConfig {
    let mut c = LlmConfig::new(provider, "summarizer-1", KEY);
    c.base_url = match provider {
        Provider::OpenAi => format!("{}/v1", server.url),
        Provider::Anthropic => server.url.clone(),
    };
    c.backoff = Duration::from_millis(5);
    c.timeout = Duration::from_secs(10);
    c
}

fn openai_ok(text: &str) -> Reply {
    let body = serde_json::json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]});
    Reply::new(200, body.to_string())
}

fn run(config: LlmConfig) -> Result<String, SummarizeError> {
    let s = session();
    let input = Input::new(&s.messages).with_instructions(Some("Mention renames.".into()));
    LlmSummarizer::new(config).summarize(&input, &counter())
}

/// The key must not appear in the error's message, its Debug form or the chain.
fn assert_no_key(e: &SummarizeError) {
    let shown = format!("{e} / {e:?}");
    assert!(!shown.contains(KEY), "key leaked: {shown}");
    assert!(!shown.contains("SECRET"), "key leaked: {shown}");
}

#[test]
fn openai_success_sends_the_expected_request() {
    let server = TestServer::start(vec![openai_ok("  The summary.  ")]);
    let summary = run(config(Provider::OpenAi, &server)).unwrap();
    assert_eq!(summary, "The summary.");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    let r = &reqs[0];
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("POST", "/v1/chat/completions")
    );
    assert_eq!(
        r.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.header("x-api-key"), None);
    let body = r.json();
    assert_eq!(body["model"], "summarizer-1");
    assert_eq!(body["messages"][0]["role"], "system");
    assert_eq!(body["messages"][0]["content"], SYSTEM);
    assert_eq!(body["messages"][1]["role"], "user");
    let user = body["messages"][1]["content"].as_str().unwrap();
    for needle in [
        "[user]\nRename foo to bar everywhere.\n",
        "tool_call bash({\"command\":\"grep -rn foo\"})",
        "tool_result: src/a.rs:1:foo()",
        "Additional instructions from the user:\nMention renames.",
        "5. Errors and their resolution",
    ] {
        assert!(user.contains(needle), "{needle:?} missing from\n{user}");
    }
}

#[test]
fn anthropic_success_sends_the_expected_request() {
    let reply = r#"{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"Part one."},{"type":"text","text":"Part two."}],"stop_reason":"end_turn"}"#;
    let server = TestServer::start(vec![Reply::new(200, reply)]);
    let summary = run(config(Provider::Anthropic, &server)).unwrap();
    assert_eq!(summary, "Part one.\nPart two.");
    let r = &server.requests()[0];
    assert_eq!(r.path, "/v1/messages");
    assert_eq!(r.header("x-api-key"), Some(KEY));
    assert_eq!(r.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(r.header("authorization"), None);
    let body = r.json();
    assert_eq!(body["model"], "summarizer-1");
    assert_eq!(body["max_tokens"], 4096);
    assert_eq!(body["system"], SYSTEM);
    assert_eq!(body["messages"].as_array().unwrap().len(), 1);
    assert_eq!(body["messages"][0]["role"], "user");
    assert!(body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .contains("<conversation>"));
}

#[test]
fn a_server_error_is_retried_with_backoff() {
    let server = TestServer::start(vec![
        Reply::new(503, r#"{"error":{"message":"overloaded"}}"#),
        Reply::new(500, "oops"),
        openai_ok("ok"),
    ]);
    let c = config(Provider::OpenAi, &server);
    let prompt = prompt::build(&Input::new(&session().messages), &counter(), 10_000).unwrap();
    let (result, delays) = LlmSummarizer::new(c).complete(&prompt);
    assert_eq!(result, Ok("ok".into()));
    assert_eq!(
        delays,
        [Duration::from_millis(5), Duration::from_millis(10)]
    );
    assert_eq!(server.requests().len(), 3);
}

#[test]
fn retry_after_is_honoured_on_429() {
    let server = TestServer::start(vec![
        Reply::new(429, r#"{"error":{"message":"slow down"}}"#).header("retry-after", "1"),
        openai_ok("ok"),
    ]);
    let c = config(Provider::OpenAi, &server);
    let prompt = prompt::build(&Input::new(&session().messages), &counter(), 10_000).unwrap();
    let (result, delays) = LlmSummarizer::new(c).complete(&prompt);
    assert_eq!(result, Ok("ok".into()));
    assert_eq!(delays, [Duration::from_secs(1)]);
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn retries_run_out_with_the_last_status_in_the_error() {
    let server = TestServer::start(vec![
        Reply::new(500, "a"),
        Reply::new(502, format!("bad gateway for {KEY}")),
    ]);
    let mut c = config(Provider::OpenAi, &server);
    c.retries = 1;
    let e = run(c).unwrap_err();
    assert_no_key(&e);
    let SummarizeError::Llm(LlmError::Status {
        status,
        detail,
        attempts,
        ..
    }) = &e
    else {
        panic!("{e:?}")
    };
    assert_eq!((*status, *attempts), (502, 2));
    assert_eq!(detail, "bad gateway for [redacted]");
}

#[test]
fn a_timeout_is_retried_then_reported() {
    let slow = || openai_ok("late").delay(Duration::from_secs(3));
    let server = TestServer::start(vec![slow(), openai_ok("in time")]);
    let mut c = config(Provider::OpenAi, &server);
    c.timeout = Duration::from_millis(300);
    c.retries = 1;
    assert_eq!(run(c.clone()).unwrap(), "in time");

    let server = TestServer::start(vec![slow(), slow()]);
    c.base_url = format!("{}/v1", server.url);
    let e = run(c).unwrap_err();
    assert_no_key(&e);
    assert!(
        matches!(
            e,
            SummarizeError::Llm(LlmError::Timeout { attempts: 2, .. })
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("did not answer within 1s"), "{e}");
}

#[test]
fn empty_answers_are_retried_then_reported() {
    let server = TestServer::start(vec![openai_ok(""), openai_ok("   "), openai_ok("")]);
    let e = run(config(Provider::OpenAi, &server)).unwrap_err();
    assert!(
        matches!(e, SummarizeError::Llm(LlmError::Empty { attempts: 3, .. })),
        "{e:?}"
    );
    assert_eq!(server.requests().len(), 3);
}

#[test]
fn a_malformed_body_is_not_retried() {
    let server = TestServer::start(vec![
        Reply::new(200, "<html>gateway</html>"),
        openai_ok("x"),
    ]);
    let e = run(config(Provider::OpenAi, &server)).unwrap_err();
    assert_no_key(&e);
    let text = e.to_string();
    assert!(text.contains("cannot read: not JSON"), "{text}");
    assert!(text.contains("<html>gateway</html>"), "{text}");
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn a_wrong_key_is_not_retried_and_never_shown() {
    let echo = format!(
        r#"{{"error":{{"message":"Incorrect API key provided: {KEY}.","type":"invalid_request_error"}}}}"#
    );
    for provider in [Provider::OpenAi, Provider::Anthropic] {
        let server = TestServer::start(vec![Reply::new(401, echo.clone()), openai_ok("x")]);
        let e = run(config(provider, &server)).unwrap_err();
        assert_no_key(&e);
        assert!(
            matches!(&e, SummarizeError::Llm(LlmError::Auth { status: 401, .. })),
            "{e:?}"
        );
        assert!(
            e.to_string()
                .contains("Incorrect API key provided: [redacted]."),
            "{e}"
        );
        assert_eq!(server.requests().len(), 1);
    }
    let server = TestServer::start(vec![Reply::new(403, "forbidden")]);
    let e = run(config(Provider::Anthropic, &server)).unwrap_err();
    assert!(matches!(
        e,
        SummarizeError::Llm(LlmError::Auth { status: 403, .. })
    ));
}

#[test]
fn an_unreachable_server_is_a_network_error() {
    // Bind and drop to get a port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut c = LlmConfig::new(Provider::OpenAi, "m", KEY);
    c.base_url = format!("http://127.0.0.1:{port}/v1");
    c.backoff = Duration::from_millis(1);
    c.retries = 2;
    let e = run(c).unwrap_err();
    assert_no_key(&e);
    assert!(
        matches!(
            &e,
            SummarizeError::Llm(LlmError::Network { attempts: 3, .. })
        ),
        "{e:?}"
    );
    assert!(
        e.to_string().starts_with(&format!(
            "cannot reach the summarizer at http://127.0.0.1:{port}/v1/chat/completions"
        )),
        "{e}"
    );
}

#[test]
fn too_large_inputs_fail_before_any_request() {
    let server = TestServer::start(vec![openai_ok("x")]);
    let mut c = config(Provider::OpenAi, &server);
    c.max_input_tokens = 20;
    let e = run(c).unwrap_err();
    assert!(
        matches!(e, SummarizeError::Llm(LlmError::TooLarge { limit: 20, .. })),
        "{e:?}"
    );
    assert!(server.requests().is_empty());
}

#[test]
fn the_key_never_shows_in_debug_or_bad_urls() {
    let mut c = LlmConfig::new(Provider::OpenAi, "m", KEY);
    assert!(!format!("{c:?}").contains(KEY));
    c.base_url = format!("ftp://host/{KEY}");
    let e = run(c).unwrap_err();
    assert_no_key(&e);
    assert!(
        matches!(e, SummarizeError::Llm(LlmError::BadUrl { .. })),
        "{e:?}"
    );
}

#[test]
fn with_redact_no_secret_reaches_the_server_or_the_summary() {
    use crate::summarize::redact::tests::{leaky_session, LEAKED};
    let echo = format!("Deployed; the key {} still works.", LEAKED[0]);
    let server = TestServer::start(vec![openai_ok(&echo), openai_ok(&echo)]);
    let s = leaky_session();
    let summarizer = LlmSummarizer::new(config(Provider::OpenAi, &server));
    let plain = summarizer
        .summarize(&Input::new(&s.messages), &counter())
        .unwrap();
    assert_eq!(plain, echo, "without --redact the answer is kept as it is");
    let input = Input::new(&s.messages).with_redaction(true);
    let summary = summarizer.summarize(&input, &counter()).unwrap();
    assert_eq!(
        summary,
        "Deployed; the key [REDACTED:openai-key] still works."
    );
    let reqs = server.requests();
    let (sent_plain, sent) = (&reqs[0].body, &reqs[1].body);
    assert!(
        LEAKED.iter().all(|k| sent_plain.contains(k)),
        "{sent_plain}"
    );
    for k in LEAKED {
        assert!(!sent.contains(k), "{k} sent:\n{sent}");
    }
    assert!(sent.contains("[REDACTED:private-key]"), "{sent}");
}

#[test]
fn a_middle_larger_than_the_window_is_summarized_in_chunks_each_within_it() {
    // 40 turns of ~60 tokens of plain conversation: no tool result to leave out.
    let mut msgs = Vec::new();
    for i in 0..40 {
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        let text = format!(
            "turn {i}: {}",
            "we talk about the parser and its tests ".repeat(6)
        );
        msgs.push(serde_json::json!({"role": role, "content": text}));
    }
    let s = read(
        serde_json::Value::Array(msgs).to_string().as_bytes(),
        Some(Format::OpenAi),
    )
    .unwrap();
    let replies = (0..64)
        .map(|i| openai_ok(&format!("PART {i} summary")))
        .collect();
    let server = TestServer::start(replies);
    let mut c = config(Provider::OpenAi, &server);
    c.max_input_tokens = 900;
    let input = Input::new(&s.messages);
    let summary = LlmSummarizer::new(c).summarize(&input, &counter()).unwrap();
    let requests = server.requests();
    assert!(requests.len() >= 4, "{} requests", requests.len());
    // The last request merges the parts; the answer to it is the summary.
    assert_eq!(summary, format!("PART {} summary", requests.len() - 1));
    let last: serde_json::Value = serde_json::from_str(&requests.last().unwrap().body).unwrap();
    let merge = last["messages"][1]["content"].as_str().unwrap();
    assert!(
        merge.contains("<part n=\"2\">\nPART 1 summary\n</part>"),
        "{merge}"
    );
    let mut seen = String::new();
    for r in &requests {
        let v: serde_json::Value = serde_json::from_str(&r.body).unwrap();
        let sent: usize = (v["messages"].as_array().unwrap().iter())
            .map(|m| counter().text(m["content"].as_str().unwrap()))
            .sum();
        assert!(sent + 16 <= 900, "a request of {sent} tokens");
        seen.push_str(v["messages"][1]["content"].as_str().unwrap());
    }
    // Every turn went to the server in some chunk.
    for i in 0..40 {
        assert!(seen.contains(&format!("turn {i}: ")), "turn {i} never sent");
    }
    // A window too small for the instructions alone fails before any request.
    let server = TestServer::start(vec![openai_ok("x")]);
    let mut c = config(Provider::OpenAi, &server);
    c.max_input_tokens = 100;
    let e = LlmSummarizer::new(c)
        .summarize(&input, &counter())
        .unwrap_err();
    assert!(
        matches!(e, SummarizeError::Llm(LlmError::TooLarge { .. })),
        "{e:?}"
    );
    assert!(server.requests().is_empty());
}
