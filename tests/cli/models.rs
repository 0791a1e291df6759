//! `ctxctl models`: the model table, filtered by a name.

use crate::support::TestEnv;

#[test]
fn models_lists_and_filters() {
    let env = TestEnv::new();
    let run = env.run(&["models", "claude-3-opus", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    let rows = run.json();
    let opus = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"].as_str().unwrap().starts_with("claude-3-opus"))
        .unwrap()
        .clone();
    assert_eq!(opus["context_window"], 200000);
    assert_eq!(opus["max_output_tokens"], 4096);
    let all = env.run(&["models", "--json"]).json();
    assert!(all.as_array().unwrap().len() > 200);
    let human = env.run(&["models", "claude-3-opus"]);
    assert_eq!(human.code, 0, "{human:?}");
    insta::assert_snapshot!("models_claude_3_opus", env.snap(&human));
    let none = env.run(&["models", "no-such-model-xyz"]);
    assert_eq!(none.code, 1);
    insta::assert_snapshot!("models_none", env.snap(&none));
}
