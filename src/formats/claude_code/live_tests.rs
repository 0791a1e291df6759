//! The thread traced over the index, its parents kept as record indices, against the
//! whole reader's, on threads whose parents are near, far, named before they appear or
//! never in the file.

use super::*;
use crate::formats::claude_code::skel;
use crate::formats::claude_code::thread::Transcript;
use crate::session::LinesDoc;

fn rec(uuid: &str, parent: Option<&str>, body: &str) -> String {
    let parent = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
    format!(r#"{{"parentUuid":{parent},"uuid":"{uuid}",{body}}}"#)
}

fn user(uuid: &str, parent: Option<&str>) -> String {
    let body = format!(r#""type":"user","message":{{"role":"user","content":"{uuid}"}}"#);
    rec(uuid, parent, &body)
}

fn asst(uuid: &str, parent: &str, id: &str) -> String {
    let body = format!(
        r#""type":"assistant","message":{{"id":"{id}","role":"assistant","model":"claude-x","content":[{{"type":"tool_use","id":"t-{uuid}","name":"x","input":{{}}}}]}}"#
    );
    rec(uuid, Some(parent), &body)
}

fn result(uuid: &str, parent: &str, call: &str) -> String {
    let body = format!(
        r#""type":"user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t-{call}","content":"ok"}}]}}"#
    );
    rec(uuid, Some(parent), &body)
}

fn last_prompt(leaf: &str) -> String {
    format!(r#"{{"type":"last-prompt","leafUuid":"{leaf}"}}"#)
}

/// Asserts the index's trace of `lines` is the whole reader's: live records, order,
/// boundary and warnings (the index words a missing parent's later).
fn same_thread(lines: &[String]) -> Thread {
    let text = lines.join("\n") + "\n";
    let doc = LinesDoc::new(text);
    let whole = Transcript::parse(&doc).expect("read whole");
    // The uuids held in memory and resolved in one pass, then in a temp file and
    // resolved two at a time: the same thread.
    let traced = [(false, None), (true, Some(2))].map(|(file, slice)| {
        let file = file.then(|| tempfile::tempfile().expect("a temp file"));
        let mut index = Index::spilling(file, slice);
        let mut at = 0;
        for (line, l) in lines.iter().enumerate() {
            index
                .push(skel::node(l, line, at).expect("a node"))
                .unwrap();
            at += l.len() as u64 + 1;
        }
        index.resolve().expect("resolved");
        trace(&index)
    });
    let [t, spilled] = traced;
    assert_eq!(
        (&t.live, &t.order, t.boundary, &t.warnings, &t.missing),
        (
            &spilled.live,
            &spilled.order,
            spilled.boundary,
            &spilled.warnings,
            &spilled.missing
        ),
        "the same thread from a spill to a file"
    );
    assert_eq!(t.live.iter().collect::<Vec<_>>(), whole.live, "live");
    let order: Vec<usize> = t.order.iter().map(|i| i as usize).collect();
    assert_eq!(order, whole.order, "order");
    assert_eq!(t.boundary, whole.boundary, "boundary");
    assert_eq!(
        t.warnings.len(),
        whole.warnings.len(),
        "{:?}",
        whole.warnings
    );
    assert_eq!(t.missing.is_empty(), !whole.cut_short, "cut short");
    t
}

#[test]
fn a_thread_with_branches_and_parallel_results_is_traced_as_read_whole() {
    let lines = [
        user("u1", None),
        asst("a1", "u1", "m1"),
        asst("a2", "a1", "m1"),
        result("r1", "a1", "a1"),
        result("r2", "a2", "a2"),
        // A branch left behind from u1, then the thread going on from r2.
        asst("b1", "u1", "m9"),
        user("u2", Some("r2")),
        last_prompt("u2"),
    ];
    let t = same_thread(&lines);
    assert!(!t.live.get(5), "the branch is not live");
}

#[test]
fn a_compaction_boundary_with_a_logical_parent_starts_the_thread() {
    let boundary = r#"{"type":"system","subtype":"compact_boundary","uuid":"c1","parentUuid":null,"logicalParentUuid":"u2","content":"Conversation compacted"}"#;
    let lines = [
        user("u1", None),
        asst("a1", "u1", "m1"),
        user("u2", Some("a1")),
        boundary.to_string(),
        user("s1", Some("c1")),
        asst("a3", "s1", "m3"),
    ];
    let t = same_thread(&lines);
    assert_eq!(t.boundary, Some(3));
    assert!(
        !t.live.get(2),
        "the history before the boundary is not live"
    );
}

#[test]
fn parents_far_back_named_before_they_appear_or_never_seen_are_followed_as_read_whole() {
    let mut lines = vec![user("root", None), user("early", Some("late"))];
    lines.push(user("late", Some("root")));
    // More records than the index looks back over for a parent, off the thread.
    lines.extend((0..80).map(|k| user(&format!("x{k}"), Some("early"))));
    // The thread comes back to a record far behind, then to one named before it is seen.
    lines.push(user("back", Some("root")));
    lines.push(user("on", Some("back")));
    lines.push(last_prompt("on"));
    same_thread(&lines);
    // Without the prompt, the last record is the leaf: its thread starts at a record
    // whose parent is in no line.
    let mut lines = lines[..lines.len() - 1].to_vec();
    lines.extend([user("lost", Some("never-seen")), user("leaf", Some("lost"))]);
    let t = same_thread(&lines);
    assert_eq!(
        t.missing.len(),
        1,
        "the thread starts at the record whose parent is gone"
    );
}

#[test]
fn a_uuid_given_twice_names_its_last_record_as_read_whole() {
    let lines = [
        user("u1", None),
        asst("a1", "u1", "m1"),
        user("u2", Some("a1")),
        // a1 again, from another parent: its children hang from this one.
        asst("a1", "u2", "m2"),
        user("u3", Some("a1")),
    ];
    same_thread(&lines);
}
