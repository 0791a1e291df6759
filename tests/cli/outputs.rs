//! Where a rewrite's output lands: a new file (staged beside it, written as it is made),
//! a device or a descriptor's name (`/dev/stdout`: written to, never replaced), a
//! symbolic link (its target written, the link kept). A result no smaller leaves nothing
//! (tests/cli/crash.rs).

use std::fs;

use crate::support::*;

const AGENTS: [&str; 2] = ["claude-code.jsonl", "codex.jsonl"];

fn compact_to(env: &TestEnv, input: &str, out: &str) -> Run {
    env.run(&["compact", input, "-o", out, "--tail-tokens", "300"])
}

#[test]
fn a_compaction_to_a_new_file_writes_what_it_writes_to_stdout() {
    for name in AGENTS {
        let env = TestEnv::new();
        let f = env.write(name, fs::read(sample(name)).unwrap());
        let out = env.path().join(format!("out-{name}"));
        let staged = compact_to(&env, s(&f), s(&out));
        assert_eq!(staged.code, 0, "{staged:?}");
        // /dev/stdout is the test's pipe: written to as it is, never staged.
        let piped = compact_to(&env, s(&f), "/dev/stdout");
        assert_eq!(piped.code, 0, "{piped:?}");
        let written = fs::read_to_string(&out).unwrap();
        assert!(written.lines().count() > 3, "{written}");
        assert_eq!(env.redact(&written), env.redact(&piped.stdout), "{name}");
        // Nothing left beside the output.
        let left: Vec<_> = fs::read_dir(env.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.starts_with(".ctxctl-tmp-"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }
}

#[cfg(unix)]
#[test]
fn an_output_through_a_link_writes_its_target_and_keeps_the_link() {
    for (cmd, extra) in [
        ("compact", &["--tail-tokens", "300"][..]),
        ("trim", &["--strategy", "fifo", "--max-tokens", "1000"][..]),
    ] {
        let env = TestEnv::new();
        let f = env.write("cc.jsonl", fs::read(sample("claude-code.jsonl")).unwrap());
        fs::create_dir(env.path().join("sub")).unwrap();
        let target = env.path().join("sub/target.jsonl");
        fs::write(&target, "old\n").unwrap();
        let link = env.path().join("link.jsonl");
        std::os::unix::fs::symlink("sub/target.jsonl", &link).unwrap();
        let run = env.run(&[&[cmd, s(&f), "-o", s(&link)][..], extra].concat());
        assert_eq!(run.code, 0, "{cmd}: {run:?}");
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink(),
            "{cmd} replaced the link"
        );
        let written = fs::read_to_string(&target).unwrap();
        assert!(
            written.lines().count() > 3 && !written.starts_with("old"),
            "{cmd}"
        );
    }
}
