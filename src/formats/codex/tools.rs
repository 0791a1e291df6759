//! The tools a rollout records that Codex sends with every request: the `dynamic_tools`
//! of its `session_meta` (tools an app-server client such as Codex Desktop declared when
//! it started the thread; recorded from 0.119). Codex makes each one a Responses API
//! function tool (`dynamic_tool_to_openai_tool`: its name, description, `strict: false`
//! and its input schema as `parameters`) and leaves out the ones that load on demand
//! (`defer_loading`, found through tool search). Counted into the first request's hidden
//! part, like a request body's `tools` ([`crate::session::Session::request_extra`]); the
//! reports of a session that has them hold them already.

use serde_json::{json, Value};

/// The tools of `session_meta` payload `meta` as Codex sends them, a JSON array as text;
/// `None` when it records none that are sent.
pub fn sent(meta: &Value) -> Option<String> {
    listed(meta.get("dynamic_tools")?)
}

/// The tools of a `dynamic_tools` list as Codex sends them ([`sent`]).
pub fn listed(dynamic_tools: &Value) -> Option<String> {
    let tools: Vec<Value> = dynamic_tools
        .as_array()?
        .iter()
        .filter(|t| !deferred(t))
        .filter_map(function)
        .collect();
    (!tools.is_empty()).then(|| Value::Array(tools).to_string())
}

/// Whether the tool loads on demand (the rollout writes the app-server's camelCase).
fn deferred(t: &Value) -> bool {
    ["deferLoading", "defer_loading"]
        .iter()
        .any(|k| t.get(k).and_then(Value::as_bool) == Some(true))
}

/// The function tool Codex makes of dynamic tool `t`; `None` without a name.
fn function(t: &Value) -> Option<Value> {
    let name = t.get("name")?.as_str()?;
    let schema = (t.get("inputSchema").or_else(|| t.get("input_schema")))
        .cloned()
        .unwrap_or_else(|| json!({"type": "object", "properties": {}}));
    let description = t.get("description").and_then(Value::as_str).unwrap_or("");
    Some(
        json!({"type": "function", "name": name, "description": description,
        "strict": false, "parameters": schema}),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dynamic_tools_are_sent_as_function_tools_unless_deferred() {
        let meta = json!({"dynamic_tools": [
            {"name": "lookup", "description": "Find a record",
                "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}},
                "deferLoading": false},
            {"name": "later", "description": "Loaded on demand", "inputSchema": {},
                "deferLoading": true},
            {"name": "snake", "description": "d", "input_schema": {"type": "object"},
                "defer_loading": true},
            {"description": "no name"}]});
        let text = sent(&meta).unwrap();
        let tools: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            tools,
            json!([{"type": "function", "name": "lookup", "description": "Find a record",
                "strict": false,
                "parameters": {"type": "object", "properties": {"id": {"type": "string"}}}}])
        );
    }

    #[test]
    fn no_tools_sent_is_none() {
        assert_eq!(sent(&json!({"cli_version": "0.119.0"})), None);
        assert_eq!(sent(&json!({"dynamic_tools": []})), None);
        assert_eq!(sent(&json!({"dynamic_tools": null})), None);
        let deferred = json!({"dynamic_tools": [{"name": "x", "deferLoading": true}]});
        assert_eq!(sent(&deferred), None);
    }
}
