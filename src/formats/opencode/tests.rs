use super::*;

fn rendering() -> String {
    [
        r#"{"session":"ses_1","title":"t","slug":"s","model":"m","time_updated":1}"#,
        r#"{"id":"msg_00000000000a","time_created":10,"data":{"role":"user","agent":"build","model":{"providerID":"p","modelID":"m"}},"parts":[{"id":"prt_a","time_created":10,"data":{"type":"text","text":"read it"}}]}"#,
        r#"{"id":"msg_00000000000b","time_created":20,"data":{"role":"assistant","modelID":"m","providerID":"p","path":{"cwd":"/w","root":"/"},"tokens":{"input":90,"output":5,"cache":{"read":10,"write":0}},"finish":"tool-calls"},"parts":[{"id":"prt_b1","time_created":20,"data":{"type":"step-start"}},{"id":"prt_b2","time_created":21,"data":{"type":"tool","tool":"read","callID":"c1","state":{"status":"completed","input":{"filePath":"x"},"output":"OUT"}}}]}"#,
        r#"{"id":"msg_00000000000c","time_created":30,"data":{"role":"user"},"parts":[{"id":"prt_c","time_created":30,"data":{"type":"text","text":"thanks"}}]}"#,
    ]
    .join("\n")
        + "\n"
}

#[test]
fn a_rendering_reads_as_opencode_sends_it() {
    let s = read(rendering()).unwrap();
    let roles: Vec<&str> = s.messages.iter().map(|m| m.role.name()).collect();
    assert_eq!(roles, ["user", "assistant", "tool", "user"]);
    assert_eq!(s.messages[2].text(), "OUT");
    assert_eq!(s.messages[1].origin, s.messages[2].origin);
    let u = s.reported_usage.unwrap();
    assert_eq!((u.input_tokens, u.request_end), (100, Some(1)));
    assert_eq!(s.model.as_deref(), Some("m"));
}

#[test]
fn a_compaction_is_appended_with_the_kept_tail_named() {
    let s = read(rendering()).unwrap();
    let mut meta = Map::new();
    meta.insert("compact_boundary".into(), json!(true));
    meta.insert("compact_id".into(), json!("cid"));
    let items = vec![
        Item::Insert(crate::session::NewMessage {
            role: crate::session::Role::User,
            text: "SUM".into(),
            meta,
        }),
        Item::Keep(3),
    ];
    let out = String::from_utf8(OpenCode.write(&s, &items).unwrap()).unwrap();
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(
        lines[1]["parts"][0]["data"]["tail_start_id"],
        "msg_00000000000c"
    );
    assert_eq!(lines[2]["data"]["parentID"], lines[1]["id"]);
    assert_eq!(lines[2]["data"]["summary"], true);
    assert!(lines[1]["id"].as_str().unwrap() > "msg_00000000000c");
    assert_eq!(lines[1]["time_created"], 31);
    assert_eq!(lines[3]["id"], "msg_00000000000c");
    let back = read(out).unwrap();
    assert_eq!(back.messages[0].text(), view::COMPACTION_PROMPT);
    assert_eq!(back.messages[1].text(), "SUM");
    assert_eq!(
        back.messages[1].compact.as_ref().unwrap().id.as_deref(),
        Some("cid")
    );
    // A tail starting at a tool result (its call removed) cannot be expressed.
    let items = vec![Item::Keep(2), Item::Keep(3)];
    assert!(OpenCode.write(&s, &items).is_err());
    // Nor a plan keeping the first message and dropping the middle.
    let items = vec![Item::Keep(0), Item::Keep(3)];
    assert!(OpenCode.write(&s, &items).is_err());
}
