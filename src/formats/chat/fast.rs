//! A fast path for the most common record, an OpenAI chat message made only of `role`,
//! `content` (a string or null), `tool_calls`, `tool_call_id`, `name` and `id`: its members
//! are read borrowed from the text, without building a JSON tree of the record, and the
//! content string is unescaped once, straight into the message. Any other record — another
//! member, an unknown role, a content list, a value of an unexpected type, a duplicate key —
//! returns `None`, and the caller parses it the general way ([`crate::formats::message::parse`]),
//! which also gives the errors. Both ways give the same message (tested).

use std::borrow::Cow;

use serde_json::value::RawValue;
use serde_json::Value;

use super::Entries;
use crate::formats::message::tool_call;
use crate::session::{Message, Origin, Part, Role};

/// The message in `raw` (one record's JSON text), when it has the simple shape.
pub fn simple_message(raw: &str, origin: &Origin) -> Option<Message> {
    let Entries(members) = serde_json::from_str(raw).ok()?;
    let mut fields: [Option<&RawValue>; 6] = [None; 6];
    for (key, value) in members {
        let slot = match &*key {
            "role" => 0,
            "content" => 1,
            "tool_calls" => 2,
            "tool_call_id" => 3,
            "name" => 4,
            "id" => 5,
            _ => return None,
        };
        if fields[slot].replace(value).is_some() {
            return None;
        }
    }
    let [role, content, tool_calls, call_id, name, id] = fields;
    let role = string(role?)?;
    let role = match &*role {
        "function" => return None,
        r => Role::parse(r)?,
    };
    let content = match content.map(RawValue::get) {
        None | Some("null") => Vec::new(),
        Some(raw) if raw.starts_with('"') => vec![Part::Text(string(content?)?.into_owned())],
        Some(_) => return None,
    };
    let mut parts = if role == Role::Tool {
        let call_id = string(call_id?)?.into_owned();
        vec![Part::ToolResult {
            call_id,
            content,
            is_error: false,
        }]
    } else {
        content
    };
    if let Some(calls) = tool_calls.filter(|c| c.get() != "null") {
        let calls: Vec<Value> = serde_json::from_str(calls.get()).ok()?;
        for c in &calls {
            parts.push(tool_call(c, "").ok()?);
        }
    }
    let mut m = Message::new(role, parts, origin.clone());
    m.name = name.and_then(string).map(Cow::into_owned);
    m.id = id.and_then(string).map(Cow::into_owned);
    Some(m)
}

/// A JSON string member, unescaped (borrowed when it has no escapes).
fn string(raw: &RawValue) -> Option<Cow<'_, str>> {
    if !raw.get().starts_with('"') {
        return None;
    }
    serde_json::from_str(raw.get()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::message::{self, Notes};
    use proptest::prelude::*;

    fn general(raw: &str) -> Option<Message> {
        let v: Value = serde_json::from_str(raw).ok()?;
        message::parse(v, "m", Origin::Record(0), &mut Notes::default()).ok()
    }

    #[test]
    fn common_records_take_the_fast_path_and_match() {
        for raw in [
            r#"{"role":"user","content":"hi \"there\"\n\u00e9"}"#,
            r#"{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"ls","arguments":"{\"a\":1}"}}]}"#,
            r#"{"role":"tool","tool_call_id":"c1","content":"out","name":"ls"}"#,
            r#"{"content":"sys","role":"system","id":"m1"}"#,
            r#"{"role":"assistant"}"#,
        ] {
            let fast = simple_message(raw, &Origin::Record(0));
            assert!(fast.is_some(), "{raw}");
            assert_eq!(fast, general(raw), "{raw}");
        }
    }

    #[test]
    fn other_shapes_fall_back() {
        for raw in [
            r#"{"role":"user","content":[{"type":"text","text":"a"}]}"#,
            r#"{"role":"user","content":"a","_preserve":true}"#,
            r#"{"role":"wizard","content":"a"}"#,
            r#"{"role":"function","name":"f","content":"a"}"#,
            r#"{"role":"tool","content":"a"}"#,
            r#"{"role":"user","content":"a","content":"b"}"#,
            r#"{"role":7,"content":"a"}"#,
            r#"{"role":"assistant","tool_calls":{}}"#,
            r#"[1]"#,
        ] {
            assert_eq!(simple_message(raw, &Origin::Record(0)), None, "{raw}");
        }
    }

    fn value() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("null".to_string()),
            Just("3".to_string()),
            Just("true".to_string()),
            Just("{}".to_string()),
            Just("[]".to_string()),
            "[a-z \\\\\"é\\n]{0,12}".prop_map(|s| serde_json::to_string(&s).unwrap()),
            prop::sample::select(vec![
                "user",
                "assistant",
                "tool",
                "system",
                "developer",
                "x"
            ])
            .prop_map(|s| format!("\"{s}\"")),
            Just(r#"[{"id":"c","function":{"name":"f","arguments":"{}"}}]"#.to_string()),
            Just(r#"[{"id":"c"}]"#.to_string()),
            Just(r#"[{"type":"text","text":"t"}]"#.to_string()),
        ]
    }

    proptest! {
        /// Whenever the fast path answers, it answers as the general parser does.
        #[test]
        fn fast_path_equals_the_general_parser(
            members in prop::collection::vec(
                (prop::sample::select(vec!["role", "content", "tool_calls", "tool_call_id", "name", "id", "refusal"]), value()),
                0..6,
            )
        ) {
            let body: Vec<String> = members.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
            let raw = format!("{{{}}}", body.join(","));
            if let Some(fast) = simple_message(&raw, &Origin::Record(0)) {
                prop_assert_eq!(Some(fast), general(&raw), "{}", raw);
            }
        }
    }
}
