//! A progress bar for one large file on a terminal: drawn while the file is read, cleared
//! before the command's output, and never drawn when stderr is not a terminal or with
//! `--no-progress`. The terminal is a real pseudo-terminal from script(1).

use std::process::{Command, Stdio};

use crate::support::TestEnv;

/// A JSON chat document of about 40 MiB that is quick to count: 200 short messages with
/// whitespace between them (the bar follows the bytes read, not the tokens).
fn large_document(env: &TestEnv) -> std::path::PathBuf {
    let pad = " ".repeat(210 * 1024);
    let messages: Vec<String> = (0..200)
        .map(|i| {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            format!(r#"{{"role":"{role}","content":"hello there {i}"}}"#)
        })
        .collect();
    let doc = format!(
        r#"{{"model":"gpt-4o","messages":[{}]}}"#,
        messages.join(&format!(",{pad}"))
    );
    assert!(doc.len() > 32 << 20);
    env.write("large.json", doc)
}

/// Runs `ctxctl ARGS` on a pseudo-terminal: everything the terminal showed. script(1) is
/// part of util-linux (bsdutils, essential on Debian and Ubuntu).
fn on_a_terminal(env: &TestEnv, args: &str) -> String {
    let bin = env!("CARGO_BIN_EXE_ctxctl");
    let mut cmd = Command::new("script");
    cmd.env_clear();
    for (k, v) in env.vars() {
        cmd.env(k, v);
    }
    let out = cmd
        .env("TERM", "xterm")
        .args(["-qfec", &format!("{bin} {args}"), "/dev/null"])
        .current_dir(env.path())
        .stdin(Stdio::null())
        .output()
        .expect("script(1) runs");
    assert!(out.status.success(), "script: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_large_file_shows_a_bar_on_a_terminal_that_is_cleared_before_the_output() {
    let env = TestEnv::new();
    let path = large_document(&env);
    let shown = on_a_terminal(&env, &format!("count {}", path.display()));
    let bar = shown
        .find("] 0 B/40.")
        .unwrap_or_else(|| panic!("no bar drawn on a terminal: {shown:?}"));
    assert!(
        shown[..bar].contains("large.json"),
        "the bar names the file"
    );
    let total = shown
        .rfind("/40.")
        .expect("the file's size as the bar's total");
    let result = shown.find("1,603").expect("the count");
    assert!(bar < total && total < result, "{shown:?}");
    // The bar's line is erased before the result is printed.
    let cleared = shown[..result].rfind("\x1b[2K").expect("the bar cleared");
    assert!(cleared > total, "{shown:?}");
}

#[test]
fn no_bar_off_a_terminal_or_with_no_progress() {
    let env = TestEnv::new();
    let path = large_document(&env);
    let run = env.run(&["count", path.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stderr, "");
    insta::assert_snapshot!(env.snap(&run));
    let shown = on_a_terminal(&env, &format!("count --no-progress {}", path.display()));
    assert!(!shown.contains(" B/40."), "{shown:?}");
    assert!(shown.contains("1,603"));
}

#[test]
fn trim_of_a_large_file_names_its_steps_on_a_terminal_and_clears_them() {
    let env = TestEnv::new();
    let path = large_document(&env);
    let out = env.path().join("out.json");
    let shown = on_a_terminal(
        &env,
        &format!(
            "trim {} --strategy fifo --max-tokens 400 -o {}",
            path.display(),
            out.display()
        ),
    );
    let step = shown
        .find("trimming large.json: ")
        .unwrap_or_else(|| panic!("no step shown on a terminal: {shown:?}"));
    let result = shown.find("large.json with fifo").expect("the trim's line");
    assert!(step < result, "{shown:?}");
    let cleared = shown[..result]
        .rfind("\x1b[2K")
        .expect("the spinner cleared");
    assert!(cleared > step, "{shown:?}");
    assert!(out.exists());
    // Off a terminal: nothing but the result line.
    let run = env.run(&[
        "trim",
        path.to_str().unwrap(),
        "--strategy",
        "fifo",
        "--max-tokens",
        "400",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        !run.stderr.contains("trimming large.json"),
        "{}",
        run.stderr
    );
}
