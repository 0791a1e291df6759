use super::*;
use crate::session::Origin;

fn text(role: Role, t: &str) -> Message {
    Message::new(role, vec![Part::Text(t.into())], Origin::Record(0))
}
fn call(id: &str, name: &str, args: &str) -> Message {
    let p = Part::ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: args.into(),
    };
    Message::new(Role::Assistant, vec![p], Origin::Record(0))
}
fn result(id: &str, out: &str, is_error: bool) -> Message {
    let p = Part::ToolResult {
        call_id: id.into(),
        content: vec![Part::Text(out.into())],
        is_error,
    };
    Message::new(Role::Tool, vec![p], Origin::Record(0))
}

#[test]
fn a_step_ends_at_the_first_separator() {
    // What `step` did with a search for each separator.
    let searched = |t: &str| {
        let end = ["&&", "||", ";", "|", "\n"]
            .iter()
            .filter_map(|sep| t.find(sep))
            .min()
            .unwrap_or(t.len());
        t[..end].trim().to_string()
    };
    for t in [
        "",
        "cargo test",
        "python3 t.py && echo OK",
        "a & b && c",
        "a&",
        "a|b||c",
        "x; y",
        "one\ntwo",
        " pytest -q || true ",
        "é && ü",
        "&&",
        "&",
        "a &&& b",
    ] {
        assert_eq!(step(t), searched(t), "{t:?}");
    }
}

#[test]
fn collects_goal_files_commands_errors_and_status() {
    let msgs = vec![
        text(Role::User, "Fix the build"),
        call("1", "Read", r#"{"file_path":"src/a.rs"}"#),
        result("1", "fn main() {}", false),
        call("2", "Bash", r#"{"command":"cargo build"}"#),
        result("2", "error[E0308]: mismatched types\n --> src/a.rs:1", true),
        text(
            Role::Assistant,
            "I decided to change the return type. Let me edit.",
        ),
        call("3", "Edit", r#"{"file_path":"src/a.rs"}"#),
        result("3", "ok", false),
        call("4", "Write", r#"{"file_path":"src/b.rs"}"#),
        result("4", "denied", true),
        call("5", "Bash", r#"{"command":"cargo build"}"#),
        result("5", "Exit code: 0", false),
        text(Role::User, "Now run the tests"),
        call("6", "shell", r#"{"command":["bash","-lc","cargo test"]}"#),
        result("6", "Exit code: 101\nWall time: 1s\ntest failed", false),
        text(Role::Assistant, "Tests fail in b."),
    ];
    let f = collect(&msgs);
    assert_eq!(f.requests, ["Fix the build", "Now run the tests"]);
    // The failed Write created nothing.
    assert_eq!(f.files, [("src/a.rs".to_string(), FileFate::Modified)]);
    assert_eq!(
        f.commands,
        [
            ("cargo build".to_string(), Outcome::Failed(None)),
            ("cargo build".to_string(), Outcome::Ok),
            ("cargo test".to_string(), Outcome::Failed(Some(101))),
        ]
    );
    assert_eq!(f.tools["Bash"], (2, 1));
    assert_eq!(f.tools["Write"], (1, 1));
    assert_eq!(f.tools["shell"], (1, 1));
    let lines: Vec<(&str, bool)> = f
        .errors
        .iter()
        .map(|e| (e.line.as_str(), e.resolved))
        .collect();
    assert_eq!(
        lines,
        [
            ("error[E0308]: mismatched types", true),
            ("denied", false),
            ("test failed", false)
        ]
    );
    assert_eq!(f.decisions, ["I decided to change the return type."]);
    assert_eq!(f.status.as_deref(), Some("Tests fail in b."));
    assert_eq!(f.roles[&Role::Tool], 6);
}

#[test]
fn shell_output_reporting_failures_counts_as_failed_without_an_exit_code() {
    let msgs = vec![
        call("1", "run_command", r#"{"command":"pytest -q"}"#),
        result(
            "1",
            "tests/t.py ..F\n===== FAILURES =====\nE   assert 0 == 1\n1 failed, 2 passed",
            false,
        ),
        // Not a shell tool: its output is not judged.
        call("2", "read_file", r#"{"path":"log.txt"}"#),
        result("2", "1 failed earlier", false),
    ];
    let f = collect(&msgs);
    assert_eq!(
        f.commands,
        [("pytest -q".to_string(), Outcome::Failed(None))]
    );
    assert_eq!(f.errors.len(), 1);
    assert_eq!(f.errors[0].line, "1 failed, 2 passed");
    assert_eq!(f.files, [("log.txt".to_string(), FileFate::Read)]);
}

#[test]
fn a_failed_run_is_resolved_by_a_later_passing_run_of_the_same_program() {
    let msgs = vec![
        call(
            "1",
            "Bash",
            r#"{"command":"cd /w && pytest -q tests/t.py"}"#,
        ),
        result("1", "Exit code: 1\nE   assert 0 == 1", false),
        call("2", "Edit", r#"{"file_path":"src/t.py"}"#),
        result("2", "ok", false),
        call("3", "Bash", r#"{"command":"rm -rf .cache && pytest -q"}"#),
        result("3", "Exit code: 0\n15 passed", false),
        call("4", "Bash", r#"{"command":"git push"}"#),
        result("4", "Exit code: 1\nfatal: denied", false),
        call("5", "Bash", r#"{"command":"git status"}"#),
        result("5", "Exit code: 0", false),
    ];
    let f = collect(&msgs);
    let seen: Vec<(bool, Vec<String>)> = (f.errors.iter())
        .map(|e| (e.resolved, e.fixed_by.clone()))
        .collect();
    assert_eq!(
        seen,
        [
            (true, vec!["src/t.py".to_string(), ".cache".to_string()]),
            (false, vec![])
        ]
    );
    let progs = programs("A=1 python3 -m pytest -x; cd d && git commit -m x");
    let names: Vec<&str> = progs.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(names, ["python3 -m pytest", "git commit"]);
}

#[test]
fn file_fates_follow_the_calls() {
    let mut t = FileTracker::default();
    t.apply(FileOp::Write, "new");
    t.apply(FileOp::Edit, "new");
    t.apply(FileOp::Read, "old");
    t.apply(FileOp::Edit, "old");
    t.apply(FileOp::Read, "gone");
    t.apply(FileOp::Delete, "gone");
    t.apply(FileOp::Read, "seen");
    let fates = t.fates();
    assert_eq!(
        fates,
        [
            ("new".to_string(), FileFate::Created),
            ("old".to_string(), FileFate::Modified),
            ("gone".to_string(), FileFate::Deleted),
            ("seen".to_string(), FileFate::Read),
        ]
    );
}

#[test]
fn repeated_errors_fold_and_ends_respect_char_boundaries() {
    let msgs = vec![
        call("1", "Bash", r#"{"command":"make"}"#),
        result("1", "fatal: nope", true),
        call("2", "Bash", r#"{"command":"make"}"#),
        result("2", "fatal: nope", true),
    ];
    let f = collect(&msgs);
    assert_eq!(f.errors.len(), 1);
    assert_eq!(f.errors[0].tool, "Bash");
    assert_eq!(
        sentences("Use v1.2 here. Then a.rs! Ok"),
        ["Use v1.2 here.", " Then a.rs!", " Ok"]
    );
    assert_eq!((f.errors[0].times, f.errors[0].resolved), (2, false));
    let (a, b) = ends("ééé", 3);
    assert_eq!((a, b), ("é", "é"));
}
