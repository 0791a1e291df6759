//! `--count-with api`: the next request counted by the provider's token-counting endpoint,
//! against a stub on 127.0.0.1 that answers 1000 + 100 × the messages of each request.

use crate::http::{split_request, Server};
use crate::support::{s, sample, TestEnv};

const KEY: &str = "sk-test-count-4f9a1c";

fn env(server: &Server) -> TestEnv {
    TestEnv::new()
        .env("CTXCTL_COUNT_API_BASE_URL", &server.url)
        .env("CTXCTL_COUNT_WITH", "api")
}

fn assert_no_key(run: &crate::support::Run) {
    assert!(
        !run.stdout.contains(KEY) && !run.stderr.contains(KEY),
        "{run:?}"
    );
}

#[test]
fn anthropic_request_bodies_are_counted_with_their_system_and_tools() {
    let server = Server::count_stub();
    let t = env(&server).env("ANTHROPIC_API_KEY", KEY);
    let path = sample("anthropic-messages.json");
    let run = t.run(&["count", "--json", s(&path)]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_no_key(&run);
    let requests = server.requests();
    assert_eq!(requests.len(), 1, "{requests:?}");
    let (head, body) = split_request(&requests[0]);
    insta::assert_snapshot!("anthropic_head", head);
    assert_eq!(body["model"], "claude-sonnet-4-5");
    insta::assert_snapshot!("system", body["system"].as_str().unwrap());
    assert!(body["tools"].as_array().is_some_and(|t| !t.is_empty()));
    let turns = body["messages"].as_array().unwrap();
    assert_eq!(turns[0]["role"], "user");
    let f = &run.json()["files"][0];
    assert_eq!(f["next_request_source"], "api");
    assert_eq!(f["next_request_tokens"], 1000 + 100 * turns.len());
}

#[test]
fn openai_sessions_are_counted_as_responses_input_items() {
    let server = Server::count_stub();
    let t = env(&server).env("OPENAI_API_KEY", KEY);
    let run = t.run(&["check", "--json", s(&sample("openai-chat.json"))]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_no_key(&run);
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let (head, body) = split_request(&requests[0]);
    insta::assert_snapshot!("openai_head", head);
    assert_eq!(body["model"], "gpt-4o");
    let input = body["input"].as_array().unwrap();
    // Tool calls and their outputs as input items of their own.
    let kinds: Vec<&str> = input.iter().filter_map(|i| i["type"].as_str()).collect();
    insta::assert_snapshot!("kinds", kinds.join("\n"));
    assert_eq!(input[0]["role"], "system");
    let f = run.file();
    assert_eq!(f["next_request_source"], "api");
    assert_eq!(f["next_request_tokens"], 1000 + 100 * input.len());
}

#[test]
fn gemini_models_are_counted_by_count_tokens() {
    let server = Server::count_stub();
    let t = env(&server).env("GEMINI_API_KEY", KEY);
    let path = sample("plain.jsonl");
    let run = t.run(&["stats", "--json", "--model", "gemini-2.5-pro", s(&path)]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_no_key(&run);
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let (head, body) = split_request(&requests[0]);
    insta::assert_snapshot!("gemini_head", head);
    // The system message makes it a whole request (system instructions are counted only so).
    let req = &body["generateContentRequest"];
    assert_eq!(req["model"], "models/gemini-2.5-pro");
    assert!(req["systemInstruction"]["parts"][0]["text"].is_string());
    let roles: Vec<&str> = req["contents"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["role"].as_str())
        .collect();
    assert!(
        roles.iter().all(|r| *r == "user" || *r == "model"),
        "{roles:?}"
    );
    assert_eq!(run.file()["next_request_source"], "api", "{run:?}");
}

#[test]
fn agent_transcripts_learn_the_hidden_part_in_the_providers_tokens() {
    // The Claude Code sample records usage: the provider counts the live thread and the
    // messages the latest reported request held; the hidden part is the report minus the
    // latter.
    let server = Server::count_stub();
    let t = env(&server).env("ANTHROPIC_API_KEY", KEY);
    let path = sample("claude-code.jsonl");
    let run = t.run(&["count", "--json", s(&path)]);
    assert_eq!(run.code, 0, "{run:?}");
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    let count =
        |r: &str| 1000 + 100 * split_request(r).1["messages"].as_array().unwrap().len() as u64;
    let (all, held) = (count(&requests[0]), count(&requests[1]));
    assert!(held < all);
    let f = &run.json()["files"][0];
    let reported = f["reported"]["input_tokens"].as_u64().unwrap();
    assert_eq!(f["next_request_source"], "api");
    assert_eq!(
        f["next_request_tokens"].as_u64().unwrap(),
        reported - held + all
    );
}

#[test]
fn a_second_check_of_an_unchanged_session_sends_nothing() {
    let server = Server::count_stub();
    let t = env(&server).env("OPENAI_API_KEY", KEY);
    let path = sample("openai-chat.json");
    let first = t.run(&["check", s(&path)]);
    assert_eq!(first.code, 0, "{first:?}");
    assert_eq!(server.requests().len(), 1);
    let second = t.run(&["check", s(&path)]);
    assert_eq!(second.stdout, first.stdout);
    assert_eq!(server.requests().len(), 1, "answered from the cache");
    // Without the cache, it asks again.
    let third = t.run(&["check", "--no-cache", s(&path)]);
    assert_eq!(third.stdout, first.stdout);
    assert_eq!(server.requests().len(), 2);
}

/// The local figure and one warning naming the file, whatever went wrong.
fn falls_back(t: &TestEnv, what: &str) {
    let path = sample("openai-chat.json");
    let local = TestEnv::new().run(&["count", "--json", s(&path)]).json();
    let run = t.run(&["count", "--json", s(&path)]);
    assert_eq!(run.code, 0, "{what}: {run:?}");
    assert_no_key(&run);
    let f = &run.json()["files"][0];
    assert_eq!(f, &local["files"][0], "{what}");
    let warnings: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(warnings.len(), 1, "{what}: {run:?}");
    assert!(
        warnings[0].starts_with(&format!(
            "ctxctl: warning: {}: counting with the openai API failed: ",
            s(&path)
        )) && warnings[0].ends_with("; using the local figure"),
        "{what}: {}",
        warnings[0]
    );
}

#[test]
fn failures_fall_back_to_the_local_figure_with_a_warning() {
    let error = Server::start(vec![(500, r#"{"error":{"message":"overloaded"}}"#.into())]);
    let t = env(&error).env("OPENAI_API_KEY", KEY);
    falls_back(&t, "HTTP 500");
    let garbage = Server::start(vec![(200, "<html>hello</html>".into())]);
    falls_back(&env(&garbage).env("OPENAI_API_KEY", KEY), "garbage");
    let silent = Server::silent();
    let t = env(&silent).env("OPENAI_API_KEY", KEY);
    let config = t.write("config.toml", "[count_api]\ntimeout_secs = 1\n");
    falls_back(&t.env("CTXCTL_CONFIG", s(&config)), "timeout");
    // Nothing listening at all.
    let t = TestEnv::new()
        .env("CTXCTL_COUNT_API_BASE_URL", "http://127.0.0.1:9")
        .env("CTXCTL_COUNT_WITH", "api")
        .env("OPENAI_API_KEY", KEY);
    falls_back(&t, "refused");
}

#[test]
fn a_key_echoed_by_the_server_is_redacted() {
    let body = format!(r#"{{"error":{{"message":"bad key {KEY}"}}}}"#);
    let server = Server::start(vec![(401, body)]);
    let t = env(&server).env("OPENAI_API_KEY", KEY);
    let run = t.run(&["count", s(&sample("openai-chat.json"))]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_no_key(&run);
    insta::assert_snapshot!(t.redact(&run.stderr));
}

#[test]
fn the_flag_config_and_environment_choose_the_mode() {
    let server = Server::count_stub();
    let path = sample("openai-chat.json");
    let t = TestEnv::new()
        .env("CTXCTL_COUNT_API_BASE_URL", &server.url)
        .env("OPENAI_API_KEY", KEY);
    let local = t.run(&["count", "--json", s(&path)]).json();
    assert_eq!(local["files"][0]["next_request_source"], "tokenizer");
    assert!(server.requests().is_empty(), "local unless asked");
    let flag = t.run(&["count", "--count-with", "api", "--json", s(&path)]);
    assert_eq!(flag.json()["files"][0]["next_request_source"], "api");
    let config = t.write("config.toml", "count_with = \"api\"\n");
    let t = t.env("CTXCTL_CONFIG", s(&config));
    let file = t.run(&["count", "--json", s(&path)]);
    assert_eq!(file.json()["files"][0]["next_request_source"], "api");
    let off = t.run(&["count", "--count-with", "local", "--json", s(&path)]);
    assert_eq!(off.json()["files"][0]["next_request_source"], "tokenizer");
    let t = t.env("CTXCTL_COUNT_WITH", "remote");
    let bad = t.run(&["count", s(&path)]);
    assert_eq!(bad.code, 2, "{bad:?}");
    insta::assert_snapshot!(t.snap(&bad));
}

#[test]
fn check_and_compact_if_needed_decide_on_the_providers_figure() {
    // The stub counts 3,700 (27 input items), the local figure is 1,594: with a
    // 4,000-token window the provider's figure needs compacting (92%), the local one not
    // (40%).
    let server = Server::count_stub();
    let t = env(&server).env("OPENAI_API_KEY", KEY);
    let path = t.write("s.json", std::fs::read(sample("openai-chat.json")).unwrap());
    let check = t.run(&[
        "check",
        "--json",
        "--max-tokens",
        "4000",
        "--reserve-output",
        "0",
        s(&path),
    ]);
    let c = check.file();
    assert_eq!(c["next_request_source"], "api");
    assert_eq!(c["next_request_tokens"], 3700, "{c}");
    assert_eq!((check.code, c["status"].as_str()), (1, Some("compact")));
    let compact = t.run(&[
        "compact",
        "--if-needed",
        "--max-tokens",
        "4000",
        "--reserve-output",
        "0",
        "--tail-tokens",
        "300",
        "-o",
        "out.json",
        s(&path),
    ]);
    assert_eq!(compact.code, 0, "{compact:?}");
    assert!(compact.stderr.starts_with("compacted "), "{compact:?}");
}
