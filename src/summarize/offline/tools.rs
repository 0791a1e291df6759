//! What a tool call did, read from its name and arguments: files read, written, edited or
//! deleted, and shell commands. Knows Claude Code (`Read`, `Write`, `Edit`, `Bash` …),
//! Codex (`shell`, `exec_command`, `apply_patch`), Anthropic's text editor, goose and
//! OpenHands tools, MCP names (`mcp__server__tool`) and plain OpenAI function calls.

use std::sync::{LazyLock, OnceLock};

use regex::Regex;
use serde_json::Value;

/// What a call did to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum FileOp {
    Read,
    /// Written whole (created, or overwritten).
    Write,
    Edit,
    Delete,
}

/// The facts of one tool call.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct CallFacts {
    pub files: Vec<(FileOp, String)>,
    /// The shell command, for shell tools.
    pub command: Option<String>,
}

impl CallFacts {
    /// What identifies "the same step" when deciding whether an error was resolved later.
    pub fn target(&self) -> Option<&str> {
        self.command
            .as_deref()
            .or_else(|| self.files.first().map(|(_, p)| p.as_str()))
    }
}

/// Keys under which tools put one file path.
const PATH_KEYS: [&str; 9] = [
    "file_path",
    "filePath",
    "filepath",
    "path",
    "notebook_path",
    "target_file",
    "absolute_path",
    "filename",
    "file",
];
/// Keys under which tools put several.
const PATHS_KEYS: [&str; 3] = ["paths", "file_paths", "files"];

/// The tool's name, lowercased, without an MCP or extension prefix (`mcp__fs__read_file`,
/// `developer__shell`, `container.exec`).
pub fn base_name(name: &str) -> String {
    let last = name.rsplit("__").next().unwrap_or(name);
    let last = last.rsplit('.').next().unwrap_or(last);
    last.to_ascii_lowercase()
}

/// Reads the facts of a call to `name` with JSON `arguments` (anything unparseable counts as
/// no arguments).
pub fn facts(name: &str, arguments: &str) -> CallFacts {
    let base = base_name(name);
    let editor = matches!(
        base.as_str(),
        "str_replace_editor"
            | "str_replace_based_edit_tool"
            | "text_editor"
            | "editor"
            | "file_editor"
    );
    let op = file_op(&base);
    // A call to a tool of none of the kinds read here names files only in a patch, which
    // its arguments can hold only if their text has the patch's first line or an escape
    // (that could spell it): most calls of a large session (searches, fetches, other MCP
    // tools) are not parsed at all.
    let other = op.is_none() && !editor && !is_shell(&base);
    if other && !arguments.contains(PATCH_BEGIN) && !arguments.contains('\\') {
        return CallFacts::default();
    }
    parsed(&base, editor, op, arguments)
}

/// [`facts`] of a call to the tool `base`, its arguments parsed.
fn parsed(base: &str, editor: bool, op: Option<FileOp>, arguments: &str) -> CallFacts {
    // Free-form tools (Codex's `apply_patch` custom tool) take plain text, not JSON.
    let args: Value =
        serde_json::from_str(arguments).unwrap_or_else(|_| Value::String(arguments.to_string()));
    let mut out = CallFacts::default();
    if let Some(patch) = patch_text(&args) {
        out.files = patch_files(patch);
        return out;
    }
    let op = if editor { editor_op(&args) } else { op };
    if let Some(op) = op {
        out.files = paths(&args).into_iter().map(|p| (op, p)).collect();
        return out;
    }
    if let Some(cmd) = command(&args).filter(|_| is_shell(base)) {
        out.files = shell_files(&cmd);
        out.command = Some(cmd);
    }
    out
}

/// What a tool of one of the file tools' names does to the files it names.
fn file_op(base: &str) -> Option<FileOp> {
    match base {
        "read" | "read_file" | "readfile" | "view" | "view_file" | "cat" | "open_file"
        | "notebookread" | "read_many_files" | "get_file_contents" => Some(FileOp::Read),
        "write" | "write_file" | "writefile" | "create" | "create_file" | "new_file"
        | "save_file" | "write_to_file" => Some(FileOp::Write),
        "edit" | "multiedit" | "edit_file" | "str_replace" | "replace" | "insert"
        | "notebookedit" | "patch" | "replace_in_file" | "search_replace" | "apply_diff" => {
            Some(FileOp::Edit)
        }
        "delete" | "delete_file" | "remove" | "remove_file" | "rm" => Some(FileOp::Delete),
        _ => None,
    }
}

fn is_shell(base: &str) -> bool {
    matches!(
        base,
        "bash"
            | "shell"
            | "sh"
            | "zsh"
            | "execute_bash"
            | "run_terminal_cmd"
            | "run_command"
            | "run_shell_command"
            | "shell_command"
            | "terminal"
            | "exec"
            | "exec_command"
            | "local_shell"
            | "execute_command"
            | "command"
            | "powershell"
            | "cmd"
    )
}

/// The text editor tools dispatch on a `command` argument.
fn editor_op(args: &Value) -> Option<FileOp> {
    match args.get("command").and_then(Value::as_str)? {
        "view" | "read" => Some(FileOp::Read),
        "create" | "write" => Some(FileOp::Write),
        "str_replace" | "insert" | "undo_edit" | "edit" | "replace" => Some(FileOp::Edit),
        "delete" => Some(FileOp::Delete),
        _ => None,
    }
}

fn paths(args: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(p) = PATH_KEYS
        .iter()
        .find_map(|k| args.get(*k).and_then(Value::as_str))
    {
        out.push(p.to_string());
    }
    for k in PATHS_KEYS {
        if let Some(list) = args.get(k).and_then(Value::as_array) {
            out.extend(list.iter().filter_map(Value::as_str).map(str::to_string));
        }
    }
    out.retain(|p| !p.trim().is_empty());
    out
}

/// The shell command of a call: `command` or `cmd`, a string or an argv list
/// (`["bash", "-lc", "…"]` is unwrapped to the script).
fn command(args: &Value) -> Option<String> {
    let v = args.get("command").or_else(|| args.get("cmd"))?;
    let text = match v {
        Value::String(s) => s.clone(),
        Value::Array(argv) => {
            let argv: Vec<&str> = argv.iter().filter_map(Value::as_str).collect();
            match argv.as_slice() {
                [sh, flag, script, ..]
                    if sh.ends_with("sh") && matches!(*flag, "-c" | "-lc" | "-l" | "-ic") =>
                {
                    script.to_string()
                }
                _ => argv.join(" "),
            }
        }
        _ => return None,
    };
    let text = text.trim().to_string();
    (!text.is_empty()).then_some(text)
}

/// The first line of a patch in Codex's format.
const PATCH_BEGIN: &str = "*** Begin Patch";

/// Codex's `apply_patch` text, wherever it sits (`input`, `patch`, a command argv).
fn patch_text(args: &Value) -> Option<&str> {
    match args {
        Value::String(s) if s.contains(PATCH_BEGIN) => Some(s),
        Value::Object(o) => o.values().find_map(patch_text),
        Value::Array(a) => a.iter().find_map(patch_text),
        _ => None,
    }
}

/// Files named by `*** Add File:`, `*** Update File:` and `*** Delete File:` headers.
fn patch_files(patch: &str) -> Vec<(FileOp, String)> {
    patch
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let (op, rest) = if let Some(r) = l.strip_prefix("*** Add File:") {
                (FileOp::Write, r)
            } else if let Some(r) = l.strip_prefix("*** Update File:") {
                (FileOp::Edit, r)
            } else if let Some(r) = l.strip_prefix("*** Delete File:") {
                (FileOp::Delete, r)
            } else {
                return None;
            };
            Some((op, rest.trim().to_string()))
        })
        .filter(|(_, p)| !p.is_empty())
        .collect()
}

/// Files a simple shell command touches: removed (`rm`, `git rm`), moved (`mv`: the source
/// deleted, the target written), copied (`cp`), created (`touch`), edited in place
/// (`sed -i`), written by a redirection (`> f`, `>> f`) and read (`cat`, `head`, `tail`,
/// `wc`, `nl`, `less`).
fn shell_files(cmd: &str) -> Vec<(FileOp, String)> {
    use FileOp::*;
    let mut out = Vec::new();
    for segment in cmd.split(['\n', ';', '|', '&']) {
        let words: Vec<&str> = segment.split_whitespace().collect();
        let mut words: &[&str] = &words;
        while let [w, rest @ ..] = words {
            if *w == "sudo" || (w.contains('=') && !w.starts_with('-')) {
                words = rest;
            } else {
                break;
            }
        }
        let (plain, redirects) = redirections(words);
        out.extend(redirects);
        let args = |from: usize| -> Vec<String> {
            plain
                .iter()
                .skip(from)
                .filter(|w| !w.starts_with('-'))
                .map(|w| w.trim_matches(['"', '\'']).to_string())
                .filter(|w| is_path(w))
                .collect()
        };
        let first = plain.first().copied().unwrap_or_default();
        let git = first == "git";
        let verb = if git {
            plain.get(1).copied().unwrap_or_default()
        } else {
            first
        };
        let skip = if git { 2 } else { 1 };
        match verb {
            "rm" if git || first == "rm" => {
                out.extend(args(skip).into_iter().map(|p| (Delete, p)));
            }
            "mv" | "cp" if git || first == verb => {
                if let [from, to] = args(skip).as_slice() {
                    let op = if verb == "mv" { Delete } else { Read };
                    out.push((op, from.clone()));
                    out.push((Write, to.clone()));
                }
            }
            "touch" if !git => out.extend(args(1).into_iter().map(|p| (Write, p))),
            "sed" if !git => {
                let edit = plain.iter().any(|w| w.starts_with("-i"));
                // The script is the first plain argument, the file the last.
                let files = args(1);
                if files.len() >= 2 || plain.contains(&"-e") {
                    if let Some(p) = files.last() {
                        out.push((if edit { Edit } else { Read }, p.clone()));
                    }
                }
            }
            "cat" | "head" | "tail" | "wc" | "nl" | "less" if !git => {
                out.extend(args(1).into_iter().map(|p| (Read, p)));
            }
            _ => {}
        }
    }
    out
}

/// The words of a command without its redirections, and the files those write.
fn redirections<'a>(words: &[&'a str]) -> (Vec<&'a str>, Vec<(FileOp, String)>) {
    let mut plain = Vec::new();
    let mut files = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        let op = w.trim_start_matches(|c: char| c.is_ascii_digit());
        let (append, rest) = match (op.strip_prefix(">>"), op.strip_prefix('>')) {
            (Some(r), _) => (true, r),
            (None, Some(r)) => (false, r),
            _ => {
                if w == "<<" || w == "<<-" {
                    // A here-document: the next word is its end marker (`EOF`).
                    i += 1;
                } else if !w.starts_with('<') {
                    plain.push(w);
                }
                i += 1;
                continue;
            }
        };
        let target = if rest.is_empty() {
            i += 1;
            words.get(i).copied().unwrap_or_default()
        } else {
            rest
        };
        let target = target.trim_matches(['"', '\'']);
        if is_path(target) && !target.starts_with('&') && target != "/dev/null" {
            let op = if append { FileOp::Edit } else { FileOp::Write };
            files.push((op, target.to_string()));
        }
        i += 1;
    }
    (plain, files)
}

/// A word that names a file: no variables, globs or options, some letter or digit (`=`
/// is none), not a here-document's end marker (`EOF`), and not empty.
fn is_path(w: &str) -> bool {
    !w.is_empty()
        && w.bytes().any(|b| b.is_ascii_alphanumeric())
        && !HEREDOC_MARKERS.contains(&w)
        && !w.bytes().all(|b| b.is_ascii_digit())
        && !w.starts_with('-')
        && !w.contains(['$', '*', '?', '`', '(', ')', '{', '}', '<', '>'])
}

/// The end markers here-documents use, never files.
const HEREDOC_MARKERS: [&str; 4] = ["EOF", "EOL", "EOM", "END"];

/// The exit code a shell tool's output reports (`Exit code: 1`, `"exit_code": 1`,
/// `Process exited with code 1`), if any.
pub fn exit_code(output: &str) -> Option<i64> {
    // Every report names a `code` (in any case): texts without one (most) are passed over
    // by a scan several times faster than the pattern's search.
    if !mentions_code(output.as_bytes()) {
        return None;
    }
    let found = &output[super::searches::EXIT_CODE.find(output)?];
    // The code: what follows the last character that the rest of the report can end with.
    let at = (found.char_indices().rev())
        .find(|&(_, c)| c.is_whitespace() || matches!(c, ':' | '=' | '"' | 'e' | 'E'))
        .map_or(0, |(i, c)| i + c.len_utf8());
    found[at..].parse().ok()
}

/// Whether `text` has `code` in any case: what `(?i)code` finds, as no character beyond
/// ASCII folds into these letters. Looked at 64 places at a time, without branching, so
/// that the compiler makes vector instructions of it.
fn mentions_code(text: &[u8]) -> bool {
    // `| 0x20` makes an ASCII capital its small letter, and nothing else these four.
    let Some(n) = text.len().checked_sub(3) else {
        return false;
    };
    let (c, o, d, e) = (
        &text[..n],
        &text[1..][..n],
        &text[2..][..n],
        &text[3..][..n],
    );
    let mut at = 0;
    while at < n {
        let to = (at + 64).min(n);
        let (c, o, d, e) = (&c[at..to], &o[at..to], &d[at..to], &e[at..to]);
        let hit = (c.iter().zip(o).zip(d).zip(e)).fold(false, |hit, (((c, o), d), e)| {
            hit | ((c | 0x20 == b'c')
                & (o | 0x20 == b'o')
                & (d | 0x20 == b'd')
                & (e | 0x20 == b'e'))
        });
        if hit {
            return true;
        }
        at = to;
    }
    false
}

/// Whether a command's output shows a failure by itself: test runners' failure reports,
/// compiler errors, tracebacks, panics, a missing command.
pub fn shows_failure(output: &str) -> bool {
    if output.is_ascii() {
        return shows_failure_ascii(output.as_bytes());
    }
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| Regex::new(&format!("(?m){FAILURE}")).expect("valid regex"));
    re.is_match(output)
}

/// What [`shows_failure`] looks for, as a pattern (multi-line: `^` and `$` at every line).
const FAILURE: &str = r"(^=+ FAILURES =+$|\b[1-9]\d* failed\b|test result: FAILED|^FAIL\b|^error(\[E\d+\])?: |Traceback \(most recent call last\)|panicked at|command not found|^npm ERR!)";

/// [`FAILURE`] searched in ASCII text by hand, as `(?m-u)` reads it: its literals found with
/// `memmem`, its anchored branches tried at each line's start (the text's, and after each
/// `\n`), a word character one of `[0-9A-Za-z_]`. The pattern has branches without a
/// literal to start from (`\b[1-9]\d* failed`), so a regex runs its automaton over every
/// byte: several times slower on the outputs of a large session.
fn shows_failure_ascii(text: &[u8]) -> bool {
    use memchr::memmem::Finder;
    // Searchers built once: building one costs more than searching most outputs.
    static FINDERS: LazyLock<[Finder<'static>; 5]> = LazyLock::new(|| {
        [
            "test result: FAILED",
            "Traceback (most recent call last)",
            "panicked at",
            "command not found",
            " failed",
        ]
        .map(Finder::new)
    });
    let [literals @ .., failed] = &*FINDERS;
    if literals.iter().any(|l| l.find(text).is_some()) {
        return true;
    }
    // `\b[1-9]\d* failed\b`: the run of digits before ` failed` starts after a non-word
    // character, with a digit other than 0 (a boundary falls nowhere inside the run).
    for at in failed.find_iter(text) {
        if text.get(at + 7).is_some_and(is_word) {
            continue;
        }
        let digits = text[..at]
            .iter()
            .rev()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let first = at - digits;
        if digits > 0 && text[first] != b'0' && (first == 0 || !is_word(&text[first - 1])) {
            return true;
        }
    }
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', text) {
        if fails_at_line_start(&text[start..end]) {
            return true;
        }
        start = end + 1;
    }
    fails_at_line_start(&text[start..])
}

/// A word character, as `(?-u)\b` reads it.
fn is_word(b: &u8) -> bool {
    b.is_ascii_alphanumeric() || *b == b'_'
}

/// Whether one line (without its `\n`) starts as [`FAILURE`]'s anchored branches do:
/// `=+ FAILURES =+$`, `FAIL\b`, `error(\[E\d+\])?: `, `npm ERR!`.
fn fails_at_line_start(line: &[u8]) -> bool {
    let equals = |s: &[u8]| s.iter().take_while(|&&b| b == b'=').count();
    let lead = equals(line);
    if lead > 0 {
        if let Some(rest) = line[lead..].strip_prefix(b" FAILURES ") {
            return !rest.is_empty() && equals(rest) == rest.len();
        }
        return false;
    }
    if let Some(rest) = line.strip_prefix(b"FAIL") {
        if !rest.first().is_some_and(is_word) {
            return true;
        }
    }
    if let Some(rest) = line.strip_prefix(b"error") {
        if rest.starts_with(b": ") {
            return true;
        }
        if let Some(code) = rest.strip_prefix(b"[E") {
            let digits = code.iter().take_while(|b| b.is_ascii_digit()).count();
            return digits > 0 && code[digits..].starts_with(b"]: ");
        }
        return false;
    }
    line.starts_with(b"npm ERR!")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(name: &str, args: &str) -> Vec<(FileOp, String)> {
        facts(name, args).files
    }

    #[test]
    fn claude_code_tools() {
        use FileOp::*;
        assert_eq!(
            files("Read", r#"{"file_path":"/a.rs"}"#),
            [(Read, "/a.rs".into())]
        );
        assert_eq!(
            files("Write", r#"{"file_path":"b","content":"x"}"#),
            [(Write, "b".into())]
        );
        assert_eq!(
            files("MultiEdit", r#"{"file_path":"c","edits":[]}"#),
            [(Edit, "c".into())]
        );
        let f = facts(
            "Bash",
            r#"{"command":"cargo test && rm -rf target/tmp old.txt"}"#,
        );
        assert_eq!(
            f.command.as_deref(),
            Some("cargo test && rm -rf target/tmp old.txt")
        );
        assert_eq!(
            f.files,
            [(Delete, "target/tmp".into()), (Delete, "old.txt".into())]
        );
    }

    #[test]
    fn shell_commands_that_touch_files() {
        use FileOp::*;
        let f = |cmd: &str| shell_files(cmd);
        assert_eq!(
            f("mv notes.txt NOTES.md && ls"),
            [(Delete, "notes.txt".into()), (Write, "NOTES.md".into())]
        );
        assert_eq!(
            f("cat calc.py | wc -l; echo hi > out.txt 2>&1"),
            [(Read, "calc.py".into()), (Write, "out.txt".into())]
        );
        assert_eq!(f("sed -i 's/a/b/' src/x.rs"), [(Edit, "src/x.rs".into())]);
        assert_eq!(
            f("sed -n '1,200p' shop/inv.py"),
            [(Read, "shop/inv.py".into())]
        );
        assert_eq!(
            f("cd /w && python3 gen.py >> data.csv"),
            [(Edit, "data.csv".into())]
        );
        assert_eq!(
            f("make 2>/dev/null >&2; touch a.txt"),
            [(Write, "a.txt".into())]
        );
        assert_eq!(
            f("git mv a.rs b.rs"),
            [(Delete, "a.rs".into()), (Write, "b.rs".into())]
        );
        assert_eq!(f("head -n 5 $FILE; ls *.rs"), []);
    }

    #[test]
    fn codex_shell_and_apply_patch() {
        use FileOp::*;
        let f = facts(
            "shell",
            r#"{"command":["bash","-lc","ls -la"],"workdir":"/w"}"#,
        );
        assert_eq!(f.command.as_deref(), Some("ls -la"));
        let f = facts("exec_command", r#"{"cmd":"git status"}"#);
        assert_eq!(f.command.as_deref(), Some("git status"));
        let patch = "*** Begin Patch\n*** Add File: new.rs\n+x\n*** Update File: src/lib.rs\n@@\n*** Delete File: gone.rs\n*** End Patch";
        let args = serde_json::json!({"command": ["apply_patch", patch]}).to_string();
        let f = facts("shell", &args);
        assert_eq!(f.command, None);
        assert_eq!(
            f.files,
            [
                (Write, "new.rs".into()),
                (Edit, "src/lib.rs".into()),
                (Delete, "gone.rs".into())
            ]
        );
        let args = serde_json::json!({ "input": patch }).to_string();
        assert_eq!(facts("apply_patch", &args).files.len(), 3);
        // Codex 0.169's apply_patch is a custom tool: its input is the patch itself.
        assert_eq!(facts("apply_patch", patch).files.len(), 3);
        assert_eq!(facts("apply_patch", "not a patch"), CallFacts::default());
    }

    #[test]
    fn editors_mcp_and_plain_functions() {
        use FileOp::*;
        let e = r#"{"command":"view","path":"/repo/x.py"}"#;
        assert_eq!(
            files("str_replace_based_edit_tool", e),
            [(Read, "/repo/x.py".into())]
        );
        let e = r#"{"command":"create","path":"y.py","file_text":""}"#;
        assert_eq!(files("str_replace_editor", e), [(Write, "y.py".into())]);
        assert_eq!(
            files("mcp__filesystem__read_file", r#"{"path":"z"}"#),
            [(Read, "z".into())]
        );
        assert_eq!(
            files("read_many_files", r#"{"paths":["a","b"]}"#),
            [(Read, "a".into()), (Read, "b".into())]
        );
        let f = facts("developer__shell", r#"{"command":"make"}"#);
        assert_eq!(f.command.as_deref(), Some("make"));
        assert_eq!(
            facts("edit_file", r#"{"filePath":"q"}"#).target(),
            Some("q")
        );
        // Unknown tools and broken arguments give nothing.
        assert_eq!(facts("Glob", r#"{"path":"src"}"#), CallFacts::default());
        assert_eq!(facts("Read", "{not json"), CallFacts::default());
    }

    #[test]
    fn exit_codes() {
        assert_eq!(exit_code("Exit code: 1\nWall time: 2s"), Some(1));
        assert_eq!(
            exit_code(r#"{"output":"","metadata":{"exit_code":0}}"#),
            Some(0)
        );
        assert_eq!(exit_code("Process exited with code -9"), Some(-9));
        assert_eq!(exit_code("RETURN CODE= \u{a0}7"), Some(7));
        assert_eq!(exit_code("exit code: \u{663}"), None);
        assert_eq!(exit_code("all fine"), None);
        assert_eq!(exit_code("the code is 3"), None);
    }

    /// What `exit_code` read with a regex's capture group before the DFA.
    fn exit_code_captured(output: &str) -> Option<i64> {
        let re = Regex::new(r#"(?i)(?:exit(?:ed with)?|return)[ _]?code"?\s*[:=]?\s*(-?\d+)"#);
        let c = re.unwrap().captures(output)?;
        c.get(1)?.as_str().parse().ok()
    }

    #[test]
    fn failures_shown_in_output() {
        for out in [
            "===== FAILURES =====\n...\n1 failed, 13 passed in 0.2s",
            "error[E0308]: mismatched types",
            "test result: FAILED. 3 passed; 1 failed",
            "Traceback (most recent call last):\n  File",
            "bash: foo: command not found",
            "thread 'main' panicked at src/main.rs:3:5",
            "npm ERR! missing script: test",
            // Not ASCII: the Unicode pattern.
            "“bad” — 2 failed, 1 passed",
            "ünïcode\nerror: could not compile",
        ] {
            assert!(shows_failure(out), "{out}");
        }
        for out in [
            "14 passed in 0.1s",
            "src/a.rs:3: // no error: here",
            "0 failed",
            "x1 failed",
            "é1 failed",
            "„2 failedé”",
        ] {
            assert!(!shows_failure(out), "{out}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1000))]
        #[test]
        fn the_exit_code_is_the_capture_group_s(
            text in "((?i)exit(ed with)?|return|code|[ _\"]|\\s|[:=]|-|\\d|\\PC|\n){0,4}\
                     ((?i)(exit(ed with)?|return)[ _]?code\"?[ \t\u{a0}\u{2003}:=\"]{0,3}\
                     -?(\\d|[0-9]){0,3}[0-9]{0,20})?\
                     ((?i)code|[ _\"]|\\s|[:=]|-|\\d|[0-9]{1,20}|\\PC|\n){0,4}"
        ) {
            proptest::prop_assert_eq!(exit_code(&text), exit_code_captured(&text));
        }

        #[test]
        fn code_is_mentioned_where_the_regex_finds_it(
            text in "([cC][oO][dD][eE]|[cCoOdDeE#\\x23\\x43\\x63]|\\PC){0,80}"
        ) {
            let re = Regex::new("(?i)code").unwrap();
            proptest::prop_assert_eq!(mentions_code(text.as_bytes()), re.is_match(&text));
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// The search by hand finds a failure in ASCII text exactly where the pattern does:
        /// short texts of the pieces its branches turn on (one literal in ten).
        #[test]
        fn failures_are_found_by_hand_as_the_pattern_finds_them(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![
                    "=", " FAILURES ", "FAIL", "URES", "error", "[E", "]", ": ", " ", "1", "0",
                    " failed", "x", "_", "\n", "\r", "npm ERR!", "-", "d", "E",
                    "error[E", "]: ",
                ]),
                0..12,
            ),
            literal in proptest::option::weighted(0.1, proptest::sample::select(vec![
                "test result: FAILED", "Traceback (most recent call last)", "panicked at",
                "command not found",
            ])),
        ) {
            let text = pieces.concat() + literal.unwrap_or_default();
            let re = Regex::new(&format!("(?m-u){FAILURE}")).unwrap();
            proptest::prop_assert_eq!(shows_failure(&text), re.is_match(&text), "{:?}", text);
        }
    }

    proptest::proptest! {
        /// A call that is not parsed has the facts it would have parsed: arguments as
        /// JSON whose text may spell a patch with escapes, or as plain text.
        #[test]
        fn calls_skipped_unparsed_name_nothing(
            name in proptest::sample::select(vec![
                "search", "web_fetch", "mcp__x__lookup", "grep", "apply_patch", "custom",
            ]),
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![
                    "*** Begin Patch", "\\n", "*** Add File: x.py", "*** Update File: a.rs",
                    "\\u002a", "\\u002a\\u002a\\u002a Begin Patch", "\\u002A** Begin Patch",
                    " ", "a.rs", "\\\"", "\\\\",
                ]),
                0..8,
            ),
            json in proptest::bool::ANY,
        ) {
            let text = pieces.concat();
            let arguments = if json { format!("{{\"input\": \"{text}\"}}") } else { text };
            let base = base_name(name);
            proptest::prop_assert_eq!(
                facts(name, &arguments),
                parsed(&base, false, None, &arguments),
                "{}", arguments
            );
        }
    }
}
