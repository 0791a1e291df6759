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

/// The tools of a `dynamic_tools` list as Codex sends them ([`sent`]). A group of tools
/// under one name (an entry with `tools` of its own; a lone group stands for the list) is
/// sent as a Responses `namespace` holding its functions.
pub fn listed(dynamic_tools: &Value) -> Option<String> {
    let entries = match dynamic_tools {
        Value::Array(a) => a.as_slice(),
        group @ Value::Object(_) => std::slice::from_ref(group),
        _ => return None,
    };
    let tools: Vec<Value> = entries.iter().filter_map(tool).collect();
    (!tools.is_empty()).then(|| Value::Array(tools).to_string())
}

/// What Codex sends of entry `t`: a function, or a namespace of the functions it groups;
/// `None` when nothing of it is sent.
fn tool(t: &Value) -> Option<Value> {
    let Some(group) = t.get("tools").and_then(Value::as_array) else {
        return (!deferred(t)).then(|| function(t)).flatten();
    };
    let inner: Vec<Value> = (group.iter())
        .filter(|t| !deferred(t))
        .filter_map(function)
        .collect();
    let name = t.get("name").and_then(Value::as_str)?;
    (!inner.is_empty()).then(|| {
        json!({"type": "namespace", "name": name,
            "description": t.get("description").and_then(Value::as_str).unwrap_or(""),
            "tools": inner})
    })
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
    fn a_group_of_tools_is_sent_as_a_namespace() {
        let fun = |name: &str, deferred: bool| {
            json!({"type": "function", "name": name, "description": "d",
                "inputSchema": {"type": "object"}, "deferLoading": deferred})
        };
        let group = json!({"type": "dynamic", "name": "app", "description": "An app",
            "tools": [fun("one", false), fun("two", true)]});
        let tools: Value = serde_json::from_str(&listed(&group).unwrap()).unwrap();
        assert_eq!(tools[0]["type"], "namespace");
        assert_eq!(tools[0]["name"], "app");
        assert_eq!(tools[0]["tools"].as_array().unwrap().len(), 1);
        assert_eq!(tools[0]["tools"][0]["name"], "one");
        // The same group in a list; one whose tools all load on demand sends nothing.
        let listed_group = listed(&json!([group])).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&listed_group).unwrap(), tools);
        let lazy = json!([{"name": "app", "tools": [fun("two", true)]}]);
        assert_eq!(listed(&lazy), None);
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
