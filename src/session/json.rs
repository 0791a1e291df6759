//! JSON documents: OpenAI Chat Completions (`[...]`, `{"messages": [...]}`, SWE-agent
//! `{"history": [...]}`) and Anthropic Messages request bodies (`system` + `messages`).

use serde_json::Value;

use super::message::{self, Notes};
use super::{
    Document, Format, JsonDoc, JsonStyle, ListKey, Message, Origin, ReadError, Role, Session,
};

pub fn read(text: &str, format: Format) -> Result<Session, ReadError> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let root: Value = serde_json::from_str(body).map_err(|e| ReadError::json(&e, 0))?;
    let list = match &root {
        Value::Array(_) => ListKey::Root,
        Value::Object(o) if o.get("messages").is_some() => ListKey::Key("messages".into()),
        Value::Object(o) if o.get("history").is_some() => ListKey::Key("history".into()),
        Value::Object(_) => {
            return Err(ReadError::shape(
                "top level",
                "a list of messages, or an object with a \"messages\" or \"history\" list",
            ))
        }
        _ => return Err(ReadError::shape("top level", "a JSON array or object")),
    };
    let key = match &list {
        ListKey::Root => String::new(),
        ListKey::Key(k) => k.clone(),
    };
    let items = match &list {
        ListKey::Root => root.as_array(),
        ListKey::Key(k) => root.get(k).and_then(Value::as_array),
    }
    .ok_or_else(|| ReadError::shape(key.clone(), "a list of messages"))?;

    let mut notes = Notes::default();
    let mut messages = Vec::with_capacity(items.len() + 1);
    if format == Format::Anthropic {
        if let Some(sys) = system_message(&root, &mut notes)? {
            messages.push(sys);
        }
    }
    for (i, v) in items.iter().enumerate() {
        let place = if key.is_empty() {
            format!("[{i}]")
        } else {
            format!("{key}[{i}]")
        };
        messages.push(message::parse(v, &place, Origin::Record(i), &mut notes)?);
    }
    let model = root
        .get("model")
        .and_then(Value::as_str)
        .map(str::to_string);
    Ok(Session {
        format,
        doc: Document::Json(JsonDoc {
            root,
            list,
            style: JsonStyle::of(text),
        }),
        messages,
        model,
        warnings: notes.into_warnings(),
        reported_usage: None,
    })
}

/// Anthropic's top-level `system`: a string or a list of text blocks.
fn system_message(root: &Value, notes: &mut Notes) -> Result<Option<Message>, ReadError> {
    match root.get("system") {
        None | Some(Value::Null) => Ok(None),
        Some(v @ (Value::String(_) | Value::Array(_))) => {
            let parts = message::content_parts(Some(v), "system", notes)?;
            Ok(Some(Message::new(Role::System, parts, Origin::SystemField)))
        }
        Some(_) => Err(ReadError::shape(
            "system",
            "a string or a list of text blocks",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anthropic_system_field_is_a_message() {
        let s = read(
            r#"{"model":"claude-3-opus","system":[{"type":"text","text":"be brief"}],"messages":[{"role":"user","content":"hi"}]}"#,
            Format::Anthropic,
        )
        .unwrap();
        assert_eq!(s.messages.len(), 2);
        assert_eq!(s.messages[0].origin, Origin::SystemField);
        assert_eq!(s.model.as_deref(), Some("claude-3-opus"));
    }

    #[test]
    fn numbers_beyond_f64_and_i64_keep_every_digit_on_rewrite() {
        let compact = r#"{"seed":123456789012345678901234567890,"t":1e999999,"messages":[{"role":"user","content":"hi","n":-0.100000000000000000000000000001e-400,"m":18446744073709551616}]}"#;
        let pretty = "[\n  {\n    \"role\": \"user\",\n    \"content\": \"hi\",\n    \"n\": 1.000000000000000000001,\n    \"i\": -9223372036854775809\n  }\n]\n";
        for (text, format) in [(compact, Format::OpenAi), (pretty, Format::OpenAi)] {
            let s = read(text, format).unwrap();
            let out = crate::session::write(&s, &s.keep_all()).unwrap();
            // serde_json writes an exponent with its sign (`1e999999` as `1e+999999`); the
            // digits and the value are kept.
            let expected = text.replace("1e999999", "1e+999999");
            assert_eq!(String::from_utf8(out).unwrap(), expected);
        }
    }

    #[test]
    fn duplicate_keys_keep_the_last_value_and_its_first_place() {
        let s = read(
            r#"[{"role":"user","content":"a","role":"assistant"}]"#,
            Format::OpenAi,
        )
        .unwrap();
        assert_eq!(s.messages[0].role, Role::Assistant);
        let out = crate::session::write(&s, &s.keep_all()).unwrap();
        assert_eq!(out, br#"[{"role":"assistant","content":"a"}]"#);
    }

    #[test]
    fn errors_name_the_message() {
        let e = read(
            r#"{"messages":[{"role":"user","content":"a"},{"content":"b"}]}"#,
            Format::OpenAi,
        )
        .unwrap_err();
        assert!(e.to_string().starts_with("messages[1]:"), "{e}");
        let e = read("[1]", Format::OpenAi).unwrap_err();
        assert_eq!(e.to_string(), "[0]: expected a message object");
        let e = read("{\"messages\":[", Format::OpenAi).unwrap_err();
        assert!(matches!(e, ReadError::Json { line: 1, .. }), "{e}");
    }
}
