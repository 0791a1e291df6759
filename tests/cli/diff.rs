//! `ctxctl diff`: what a rewrite changed, message by message.

use crate::support::{s, sample, TestEnv};

#[test]
fn a_trim_shows_removals_and_its_marker_and_exits_1() {
    let env = TestEnv::new();
    let out = env.path().join("t.json");
    let f = sample("openai-chat.json");
    let run = env.run(&[
        "trim",
        s(&f),
        "--strategy",
        "smart",
        "--keep-first",
        "1",
        "--keep-last",
        "8",
        "-o",
        s(&out),
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let run = env.run(&["diff", s(&f), s(&out)]);
    assert_eq!(run.code, 1, "{run:?}");
    insta::assert_snapshot!(env.snap(&run));
    let v = env.run(&["diff", s(&f), s(&out), "--json"]).json();
    assert_eq!(v["same"], false);
    assert_eq!(v["removed"], 17);
    assert_eq!(v["added"], 1);
    assert_eq!(v["kept"], 10);
    // The figures add up: A's messages are kept, removed or edited; B's kept, added or edited.
    let n = |k: &str| v[k].as_u64().unwrap();
    assert_eq!(
        n("kept") + n("removed") + n("edited"),
        v["a"]["messages"].as_u64().unwrap()
    );
    assert_eq!(
        n("kept") + n("added") + n("edited"),
        v["b"]["messages"].as_u64().unwrap()
    );
    assert_eq!(v["changes"].as_array().unwrap().len(), 18);
    let all = env.run(&["diff", s(&f), s(&out), "--json", "--all"]).json();
    assert_eq!(all["changes"].as_array().unwrap().len(), 28);
}

#[test]
fn a_shortened_tool_result_is_an_edit() {
    let env = TestEnv::new();
    let out = env.path().join("cc.jsonl");
    let f = sample("claude-code.jsonl");
    let run = env.run(&[
        "trim",
        s(&f),
        "--strategy",
        "tool-results",
        "--max-result-tokens",
        "20",
        "-o",
        s(&out),
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let v = env.run(&["diff", s(&f), s(&out), "--json"]).json();
    assert_eq!(v["removed"], 0);
    assert_eq!(v["added"], 0);
    assert!(v["edited"].as_u64().unwrap() >= 1, "{v}");
    let e = &v["changes"][0];
    assert_eq!(e["op"], "edited");
    assert!(
        e["tokens_after"].as_u64() < e["tokens_before"].as_u64(),
        "{e}"
    );
}

#[test]
fn the_same_session_exits_0_and_bad_input_exits_2() {
    let env = TestEnv::new();
    let f = sample("plain.jsonl");
    let run = env.run(&["diff", s(&f), s(&f), "--model", "gpt-4o"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains("same 27 messages"), "{}", run.stderr);
    let bad = env.write("bad.json", "{not json");
    let run = env.run(&["diff", s(&f), s(&bad), "--model", "gpt-4o"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("bad.json"), "{}", run.stderr);
}
