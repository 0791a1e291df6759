//! Every subcommand's `--help` has a one-line summary and at least two examples, and each
//! example parses with the real command-line definition (so help cannot rot either).

use clap::Command;

/// `ctxctl …` examples from an after-help text, as argument lists.
fn examples(after_help: &str) -> Vec<Vec<String>> {
    let Some((_, tail)) = after_help.split_once("Examples:") else {
        return Vec::new();
    };
    tail.lines()
        .take_while(|l| l.starts_with("  ") || l.is_empty())
        .filter_map(|l| {
            // The ctxctl part of a pipeline or redirection.
            let w = words(l);
            let start = w.iter().position(|w| w == "ctxctl")?;
            let end = w[start..]
                .iter()
                .position(|w| ["|", ">", ">>"].contains(&w.as_str()))
                .map_or(w.len(), |n| start + n);
            Some(w[start..end].to_vec())
        })
        .collect()
}

/// Splits on spaces, keeping '…' quoted words together.
fn words(cmd: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in cmd.trim().chars() {
        match c {
            '\'' => quoted = !quoted,
            ' ' if !quoted => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn check(cmd: &Command, path: &str, seen: &mut usize) {
    for sub in cmd.get_subcommands() {
        if sub.get_name() == "help" {
            continue;
        }
        let name = format!("{path} {}", sub.get_name());
        *seen += 1;
        let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
        assert!(
            !about.is_empty() && !about.contains('\n'),
            "`{name}` needs a one-line summary, got {about:?}"
        );
        let after = sub
            .get_after_help()
            .map(|a| a.to_string())
            .unwrap_or_default();
        let found = examples(&after);
        assert!(
            found.len() >= 2,
            "`{name} --help` needs at least two examples, has {found:?}"
        );
        for args in found {
            if let Err(e) = ctxctl::cli::command().try_get_matches_from(&args) {
                panic!("`{name} --help` example {args:?} does not parse:\n{e}");
            }
        }
        check(sub, &name, seen);
    }
}

#[test]
fn every_subcommand_has_a_summary_and_two_examples_that_parse() {
    let mut cmd = ctxctl::cli::command();
    cmd.build();
    let mut seen = 0;
    check(&cmd, "ctxctl", &mut seen);
    assert!(seen >= 15, "only {seen} subcommands checked");
    let root = cmd
        .get_after_help()
        .map(|a| a.to_string())
        .unwrap_or_default();
    assert!(examples(&root).len() >= 2, "`ctxctl --help` needs examples");
    for args in examples(&root) {
        if let Err(e) = ctxctl::cli::command().try_get_matches_from(&args) {
            panic!("`ctxctl --help` example {args:?} does not parse:\n{e}");
        }
    }
}

/// The first thing a new user tries: every example of `ctxctl --help` runs, on the files
/// it names (a session.json and a Claude Code projects directory).
#[test]
fn the_top_level_help_examples_run() {
    use crate::support::{sample, TestEnv};
    let env = TestEnv::new();
    env.write(
        "session.json",
        std::fs::read(sample("openai-chat.json")).unwrap(),
    );
    let project = env.home().join(".claude/projects/-home-dev-shop/s.jsonl");
    std::fs::create_dir_all(project.parent().unwrap()).unwrap();
    std::fs::copy(sample("claude-code.jsonl"), &project).unwrap();
    let help = env.run(&["--help"]);
    assert_eq!(help.code, 0, "{help:?}");
    let lines: Vec<&str> = help
        .stdout
        .split_once("Examples:")
        .expect("examples in --help")
        .1
        .lines()
        .take_while(|l| l.starts_with("  ") || l.is_empty())
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert!(lines.len() >= 3, "{help:?}");
    for line in lines {
        let run = env.shell(line.trim());
        assert_eq!(run.code, 0, "`{}`: {run:?}", line.trim());
    }
}
