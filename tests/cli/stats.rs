//! `ctxctl stats`: messages by role, tool calls, the largest messages and usage.

use crate::support::{s, sample, TestEnv};

#[test]
fn stats_shows_roles_tools_largest_and_usage() {
    let env = TestEnv::new();
    let run = env.run(&["stats", s(&sample("openai-chat.json"))]);
    assert_eq!(run.code, 0, "{run:?}");
    insta::assert_snapshot!(env.snap(&run));
    let v = env
        .run(&["stats", s(&sample("openai-chat.json")), "--json"])
        .file();
    assert_eq!(v["tools"][0]["name"], "run_command");
    assert_eq!(v["tools"][0]["calls"], 4);
    assert_eq!(v["largest"].as_array().unwrap().len(), 5);
    let first = v["largest"][0]["tokens"].as_u64().unwrap();
    assert!(v["largest"]
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m["tokens"].as_u64().unwrap() <= first));
    assert_eq!(v["messages_by_role"]["tool"], 7);
}
