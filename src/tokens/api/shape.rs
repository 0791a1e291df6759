//! A session's messages in the request shape of each provider's token-counting endpoint.
//!
//! Parts a request cannot carry again are left out and returned apart, for the caller to
//! count locally: opaque parts (encrypted reasoning, redacted thinking), images (the file
//! keeps no data) and unknown parts. Visible thinking is left out too: Anthropic strips
//! earlier turns' thinking from the context and OpenAI and Gemini count reasoning
//! summaries as output, not input.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::Provider;
use crate::session::{Message, Part, Role};

/// A request body, and the parts it could not hold.
pub struct Shaped<'a> {
    pub body: Value,
    pub left_out: Vec<&'a Part>,
}

/// The body for counting `messages` of `model` with `provider`; `extra` is what a request
/// body file sends besides its messages (its `tools` and `tool_choice`, as JSON texts).
pub fn body<'a>(
    provider: Provider,
    model: &str,
    messages: &'a [Message],
    extra: Option<&str>,
) -> Shaped<'a> {
    let mut left_out = Vec::new();
    let tools = extra.map(tools_of).unwrap_or_default();
    let body = match provider {
        Provider::Anthropic => anthropic(model, messages, &tools, &mut left_out),
        Provider::OpenAi => openai(model, messages, &tools, &mut left_out),
        Provider::Gemini => gemini(model, messages, &tools, &mut left_out),
    };
    Shaped { body, left_out }
}

/// The tool definitions in a request body's extra members (an array among them).
fn tools_of(extra: &str) -> Vec<Value> {
    serde_json::Deserializer::from_str(extra)
        .into_iter::<Value>()
        .filter_map(Result::ok)
        .filter_map(|v| match v {
            Value::Array(items) => Some(items),
            _ => None,
        })
        .flatten()
        .collect()
}

/// A tool definition's name, description and parameter schema, whatever its shape
/// (Anthropic `input_schema`, OpenAI Chat `function: {…}` or Responses `parameters`).
fn tool_parts(t: &Value) -> (Value, Value, Value) {
    let f = t.get("function").unwrap_or(t);
    let name = f.get("name").cloned().unwrap_or(Value::Null);
    let description = f.get("description").cloned().unwrap_or(Value::Null);
    let schema = f
        .get("input_schema")
        .or_else(|| f.get("parameters"))
        .cloned()
        .unwrap_or_else(|| json!({"type": "object"}));
    (name, description, schema)
}

fn system_text(messages: &[Message]) -> String {
    messages
        .iter()
        .filter(|m| m.role.is_system())
        .map(Message::text)
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// A tool call's arguments as JSON (a text that is not JSON is sent as a string).
fn arguments(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string()))
}

/// The text of a tool result's content; images and the like are left out.
fn result_text<'a>(content: &'a [Part], left_out: &mut Vec<&'a Part>) -> String {
    let mut texts = Vec::new();
    for p in content {
        match p {
            Part::Text(t) => texts.push(t.as_str()),
            other => left_out.push(other),
        }
    }
    texts.join("\n")
}

fn anthropic<'a>(
    model: &str,
    messages: &'a [Message],
    tools: &[Value],
    left_out: &mut Vec<&'a Part>,
) -> Value {
    let mut turns: Vec<(&str, Vec<Value>)> = Vec::new();
    for m in messages.iter().filter(|m| !m.role.is_system()) {
        let role = if m.role == Role::Assistant {
            "assistant"
        } else {
            "user"
        };
        let mut blocks = Vec::new();
        for p in &m.parts {
            match p {
                Part::Text(t) if !t.is_empty() => blocks.push(json!({"type": "text", "text": t})),
                Part::Text(_) | Part::Thinking(_) => {}
                Part::ToolCall {
                    id,
                    name,
                    arguments: args,
                } => blocks.push(json!({
                    "type": "tool_use", "id": id, "name": name, "input": arguments(args),
                })),
                Part::ToolResult {
                    call_id,
                    content,
                    is_error,
                } => blocks.push(json!({
                    "type": "tool_result",
                    "tool_use_id": call_id,
                    "content": result_text(content, left_out),
                    "is_error": is_error,
                })),
                other => left_out.push(other),
            }
        }
        if blocks.is_empty() {
            continue;
        }
        // Consecutive turns of one role are one turn to the API.
        match turns.last_mut() {
            Some((r, b)) if *r == role => b.extend(blocks),
            _ => turns.push((role, blocks)),
        }
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    let system = system_text(messages);
    if !system.is_empty() {
        body.insert("system".into(), json!(system));
    }
    let msgs: Vec<Value> = turns
        .into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect();
    body.insert("messages".into(), Value::Array(msgs));
    if !tools.is_empty() {
        let tools: Vec<Value> = tools
            .iter()
            .map(|t| {
                let (name, description, schema) = tool_parts(t);
                let mut o = json!({"name": name, "input_schema": schema});
                if !description.is_null() {
                    o["description"] = description;
                }
                o
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    Value::Object(body)
}

fn openai<'a>(
    model: &str,
    messages: &'a [Message],
    tools: &[Value],
    left_out: &mut Vec<&'a Part>,
) -> Value {
    let mut input = Vec::new();
    for m in messages {
        let (role, kind) = match m.role {
            Role::Assistant => ("assistant", "output_text"),
            Role::System => ("system", "input_text"),
            Role::Developer => ("developer", "input_text"),
            Role::User | Role::Tool => ("user", "input_text"),
        };
        let mut texts = Vec::new();
        for p in &m.parts {
            match p {
                Part::Text(t) if !t.is_empty() => texts.push(json!({"type": kind, "text": t})),
                Part::Text(_) | Part::Thinking(_) => {}
                Part::ToolCall {
                    id,
                    name,
                    arguments,
                } => input.push(json!({
                    "type": "function_call", "call_id": id, "name": name, "arguments": arguments,
                })),
                Part::ToolResult {
                    call_id, content, ..
                } => input.push(json!({
                    "type": "function_call_output",
                    "call_id": call_id,
                    "output": result_text(content, left_out),
                })),
                other => left_out.push(other),
            }
        }
        if !texts.is_empty() {
            input.push(json!({"type": "message", "role": role, "content": texts}));
        }
    }
    let mut body = json!({"model": model, "input": input});
    if !tools.is_empty() {
        let tools: Vec<Value> = tools
            .iter()
            .map(|t| {
                let (name, description, schema) = tool_parts(t);
                json!({"type": "function", "name": name, "description": description, "parameters": schema})
            })
            .collect();
        body["tools"] = Value::Array(tools);
    }
    body
}

fn gemini<'a>(
    model: &str,
    messages: &'a [Message],
    tools: &[Value],
    left_out: &mut Vec<&'a Part>,
) -> Value {
    let mut names: HashMap<&str, &str> = HashMap::new();
    let mut contents: Vec<Value> = Vec::new();
    for m in messages.iter().filter(|m| !m.role.is_system()) {
        let role = if m.role == Role::Assistant {
            "model"
        } else {
            "user"
        };
        let mut parts = Vec::new();
        for p in &m.parts {
            match p {
                Part::Text(t) if !t.is_empty() => parts.push(json!({"text": t})),
                Part::Text(_) | Part::Thinking(_) => {}
                Part::ToolCall {
                    id,
                    name,
                    arguments: args,
                } => {
                    names.insert(id, name);
                    parts.push(json!({"functionCall": {"name": name, "args": arguments(args)}}));
                }
                Part::ToolResult {
                    call_id, content, ..
                } => {
                    let name = names.get(call_id.as_str()).copied().unwrap_or("tool");
                    let output = result_text(content, left_out);
                    parts.push(
                        json!({"functionResponse": {"name": name, "response": {"output": output}}}),
                    );
                }
                other => left_out.push(other),
            }
        }
        if parts.is_empty() {
            continue;
        }
        match contents.last_mut() {
            Some(last) if last["role"] == role => {
                if let Some(a) = last["parts"].as_array_mut() {
                    a.extend(parts);
                }
            }
            _ => contents.push(json!({"role": role, "parts": parts})),
        }
    }
    let system = system_text(messages);
    if system.is_empty() && tools.is_empty() {
        return json!({"contents": contents});
    }
    // System instructions and tools are counted only inside a whole request.
    let mut request = json!({"model": format!("models/{model}"), "contents": contents});
    if !system.is_empty() {
        request["systemInstruction"] = json!({"parts": [{"text": system}]});
    }
    if !tools.is_empty() {
        let decls: Vec<Value> = tools
            .iter()
            .map(|t| {
                let (name, description, schema) = tool_parts(t);
                json!({"name": name, "description": description, "parameters": schema})
            })
            .collect();
        request["tools"] = json!([{"functionDeclarations": decls}]);
    }
    json!({"generateContentRequest": request})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Origin;

    fn msg(role: Role, parts: Vec<Part>) -> Message {
        Message::new(role, parts, Origin::Record(0))
    }

    fn session() -> Vec<Message> {
        vec![
            msg(Role::System, vec![Part::Text("be brief".into())]),
            msg(Role::User, vec![Part::Text("list files".into())]),
            msg(
                Role::Assistant,
                vec![
                    Part::Thinking("hmm".into()),
                    Part::ToolCall {
                        id: "c1".into(),
                        name: "ls".into(),
                        arguments: "{\"dir\":\".\"}".into(),
                    },
                ],
            ),
            msg(
                Role::Tool,
                vec![Part::ToolResult {
                    call_id: "c1".into(),
                    content: vec![Part::Text("a.txt".into())],
                    is_error: false,
                }],
            ),
            msg(
                Role::Assistant,
                vec![
                    Part::Opaque {
                        kind: "reasoning".into(),
                        bytes: 400,
                        tokens: None,
                    },
                    Part::Text("one file".into()),
                ],
            ),
        ]
    }

    #[test]
    fn anthropic_bodies_hold_system_messages_and_tools() {
        let m = session();
        let extra = r#"[{"name":"ls","description":"list","input_schema":{"type":"object"}}]"#;
        let s = body(Provider::Anthropic, "claude-x", &m, Some(extra));
        assert_eq!(
            s.body,
            json!({
                "model": "claude-x",
                "system": "be brief",
                "messages": [
                    {"role": "user", "content": [{"type": "text", "text": "list files"}]},
                    {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "ls", "input": {"dir": "."}}]},
                    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "a.txt", "is_error": false}]},
                    {"role": "assistant", "content": [{"type": "text", "text": "one file"}]},
                ],
                "tools": [{"name": "ls", "input_schema": {"type": "object"}, "description": "list"}],
            })
        );
        assert_eq!(s.left_out.len(), 1, "the encrypted reasoning");
    }

    #[test]
    fn openai_bodies_are_responses_input_items() {
        let m = session();
        let extra = r#"[{"type":"function","function":{"name":"ls","parameters":{"type":"object"}}}]
"auto""#;
        let s = body(Provider::OpenAi, "gpt-5", &m, Some(extra));
        let input = s.body["input"].as_array().unwrap();
        assert_eq!(
            input[0],
            json!({"type": "message", "role": "system", "content": [{"type": "input_text", "text": "be brief"}]})
        );
        assert_eq!(
            input[2],
            json!({"type": "function_call", "call_id": "c1", "name": "ls", "arguments": "{\"dir\":\".\"}"})
        );
        assert_eq!(
            input[3],
            json!({"type": "function_call_output", "call_id": "c1", "output": "a.txt"})
        );
        assert_eq!(input[4]["content"][0]["type"], "output_text");
        assert_eq!(s.body["tools"][0]["name"], "ls");
    }

    #[test]
    fn gemini_bodies_are_contents_or_a_whole_request() {
        let m = session();
        let s = body(Provider::Gemini, "gemini-2.5-pro", &m[1..], None);
        let contents = s.body["contents"].as_array().unwrap();
        assert_eq!(contents.len(), 4);
        assert_eq!(contents[1]["role"], "model");
        assert_eq!(
            contents[2]["parts"][0]["functionResponse"]["name"], "ls",
            "a response is named after its call"
        );
        let s = body(Provider::Gemini, "gemini-2.5-pro", &m, None);
        let req = &s.body["generateContentRequest"];
        assert_eq!(req["model"], "models/gemini-2.5-pro");
        assert_eq!(req["systemInstruction"]["parts"][0]["text"], "be brief");
    }
}
