//! `ctxctl cache`: where the token-count cache lives, and clearing it.

use crate::support::{s, TestEnv};

#[test]
fn cache_path_and_clear() {
    let env = TestEnv::new();
    let run = env.run(&["cache", "path"]);
    assert_eq!(run.code, 0, "{run:?}");
    insta::assert_snapshot!("path", env.snap(&run));
    let run = env.run(&["cache", "clear"]);
    assert_eq!(run.code, 0, "{run:?}");
    insta::assert_snapshot!("clear_empty", env.snap(&run));
    let f = env.write("a.json", r#"[{"role":"user","content":"hello world"}]"#);
    assert_eq!(env.run(&["count", s(&f), "--model", "gpt-4o"]).code, 0);
    let dir = env.home().join(".cache/ctxctl");
    assert!(dir.exists(), "count wrote no cache");
    let run = env.run(&["cache", "clear"]);
    assert_eq!(run.code, 0, "{run:?}");
    insta::assert_snapshot!("clear", env.snap(&run));
    assert!(!dir.join("token-counts.log").exists());
}
