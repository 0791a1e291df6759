//! Unit tests of the re-attachment model on synthetic transcripts.

use serde_json::{json, Value};

use super::*;

fn call(id: &str, name: &str, input: Value) -> Value {
    json!({"type": "assistant", "cwd": "/p", "message": {"role": "assistant",
        "content": [{"type": "tool_use", "id": id, "name": name, "input": input}]}})
}

fn result(id: &str, text: &str, outcome: Value) -> Value {
    json!({"type": "user", "message": {"role": "user",
        "content": [{"type": "tool_result", "tool_use_id": id, "content": text}]},
        "toolUseResult": outcome})
}

/// Claude's count of a text as these tests take it: bytes / 4.
fn quarter(text: &str) -> usize {
    text.len() / 4
}

fn session(records: &[Value]) -> Reattach {
    let mut r = Reattach::new();
    for v in records {
        r.observe(v);
    }
    r
}

fn read(id: &str, path: &str, content: &str) -> [Value; 2] {
    [
        call(id, "Read", json!({"file_path": path})),
        result(
            id,
            "(numbered)",
            json!({"type": "text", "file": {"filePath": path, "content": content,
                "numLines": 1, "startLine": 1, "totalLines": 1}}),
        ),
    ]
}

#[test]
fn a_read_file_is_sent_as_a_read_call_and_its_result() {
    let r = session(&read("t1", "/p/a.rs", "fn main() {}\nx"));
    let texts = r.texts([2, 1, 63], &quarter);
    assert_eq!(texts.len(), 2);
    assert_eq!(
        texts[0],
        "<system-reminder>\nCalled the Read tool with the following input: \
         {\"file_path\":\"/p/a.rs\"}\n</system-reminder>"
    );
    assert!(texts[1].starts_with(
        "<system-reminder>\nResult of calling the Read tool: \"     1→fn main() {}\\n     2→x"
    ));
    assert!(texts[1].ends_with("</system-reminder>\\n\"\n</system-reminder>"));
}

#[test]
fn the_five_latest_files_most_recent_first_memory_and_plans_left_out() {
    let mut recs = Vec::new();
    for k in 0..7 {
        recs.extend(read(&format!("t{k}"), &format!("/p/f{k}.rs"), "x"));
    }
    recs.extend(read("m", "/p/CLAUDE.md", "memory"));
    recs.extend(read("u", "/home/u/.claude/CLAUDE.md", "memory"));
    recs.extend(read("pl", "/home/u/.claude/plans/slug.md", "plan"));
    let texts = session(&recs).texts([2, 1, 63], &quarter);
    let files: Vec<&str> = texts
        .iter()
        .filter_map(|t| t.split("\"file_path\":\"").nth(1))
        .map(|t| t.split('"').next().unwrap())
        .collect();
    assert_eq!(
        files,
        ["/p/f6.rs", "/p/f5.rs", "/p/f4.rs", "/p/f3.rs", "/p/f2.rs"]
    );
}

#[test]
fn edits_and_writes_leave_the_files_latest_content() {
    let mut recs = vec![call(
        "w",
        "Write",
        json!({"file_path": "/p/a.py", "content": "a = 1\n"}),
    )];
    recs.push(result("w", "File created", json!({"type": "create"})));
    // No structured result: the edit is applied to what the file showed.
    recs.push(call(
        "e",
        "Edit",
        json!({"file_path": "/p/a.py", "old_string": "a = 1", "new_string": "a = 2"}),
    ));
    recs.push(result("e", "updated", Value::Null));
    let texts = session(&recs).texts([2, 1, 63], &quarter);
    assert!(texts[1].contains("a = 2"), "{}", texts[1]);
    // With one, the edit is applied to the file as it was before it.
    let recs = [
        call(
            "e",
            "Edit",
            json!({"file_path": "/p/b.py", "old_string": "x", "new_string": "y",
                "replace_all": true}),
        ),
        result("e", "updated", json!({"originalFile": "x x"})),
    ];
    assert!(session(&recs).texts([2, 1, 63], &quarter)[1].contains("y y"));
}

#[test]
fn a_failed_call_leaves_nothing() {
    let recs = [
        call("r", "Read", json!({"file_path": "/p/none.rs"})),
        json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result",
            "tool_use_id": "r", "is_error": true, "content": "File does not exist."}]}}),
    ];
    assert!(session(&recs).texts([2, 1, 63], &quarter).is_empty());
}

#[test]
fn a_file_over_the_limit_is_a_note_and_the_files_stop_at_the_total() {
    let big = "y".repeat(4 * 5_001);
    let recs = read("r", "/p/big.txt", &big);
    let texts = session(&recs).texts([2, 1, 63], &quarter);
    assert_eq!(
        texts,
        [
            "<system-reminder>\nNote: /p/big.txt was read before the last conversation was \
          summarized, but the contents are too large to include. Use Read tool if you need \
          to access it.\n</system-reminder>"
        ]
    );
    // 1.0.x allowed 10,000 tokens a file.
    assert_eq!(session(&recs).texts([1, 0, 50], &quarter).len(), 2);
    // A part read with a limit: the whole is as many times larger as it has lines.
    let part = [
        call(
            "p",
            "Read",
            json!({"file_path": "/p/part.txt", "limit": 10}),
        ),
        result(
            "p",
            "(numbered)",
            json!({"type": "text", "file": {"content": "z".repeat(4_000), "numLines": 10,
                "startLine": 1, "totalLines": 100}}),
        ),
    ];
    assert!(session(&part).texts([2, 1, 63], &quarter)[0].contains("too large"));
    // Five files of 4,875 tokens each (6,500 short lines) weigh about 19,000 each by JSON
    // bytes / 4 once numbered: two fit under 50,000, the rest are left out.
    let mut recs = Vec::new();
    for k in 0..5 {
        recs.extend(read(
            &format!("t{k}"),
            &format!("/p/{k}"),
            &"ab\n".repeat(6_500),
        ));
    }
    assert_eq!(session(&recs).texts([2, 1, 63], &quarter).len(), 4);
}

#[test]
fn only_the_builds_that_keep_it_in_memory_are_modelled() {
    assert!(modelled(Some([2, 1, 63])));
    assert!(modelled(Some([2, 1, 96])));
    assert!(!modelled(Some([2, 1, 97])));
    assert!(!modelled(Some([2, 1, 122])));
    assert!(!modelled(None));
}
