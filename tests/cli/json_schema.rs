//! Every command's `--json` output against `docs/json-schema.json`: the documented
//! vocabulary is the one printed. The schema uses a small subset of JSON Schema (type,
//! enum, pattern-free strings, properties, required, additionalProperties, items, anyOf,
//! allOf, minimum and local `$ref`s), validated here by a few lines rather than a crate
//! with an HTTP client and a regex engine in its dependencies.

use std::fs;

use serde_json::Value;

use crate::support::{repo, s, sample, TestEnv};

fn schema() -> Value {
    let text = fs::read_to_string(repo().join("docs/json-schema.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The errors of `value` against `schema` (empty when it conforms), each with its JSON path.
fn validate(root: &Value, schema: &Value, value: &Value, at: &str, errors: &mut Vec<String>) {
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        let name = r.strip_prefix("#/$defs/").expect("only local $refs");
        let def = &root["$defs"][name];
        assert!(!def.is_null(), "{at}: $ref to a missing definition {r}");
        return validate(root, def, value, at, errors);
    }
    if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
        for s in all {
            validate(root, s, value, at, errors);
        }
    }
    if let Some(any) = schema.get("anyOf").and_then(Value::as_array) {
        let fits = any.iter().any(|s| {
            let mut e = Vec::new();
            validate(root, s, value, at, &mut e);
            e.is_empty()
        });
        if !fits {
            errors.push(format!("{at}: matches none of anyOf: {value}"));
        }
    }
    if let Some(t) = schema.get("type") {
        let types: Vec<&str> = match t {
            Value::String(one) => vec![one.as_str()],
            Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
            _ => panic!("{at}: bad type {t}"),
        };
        if !types.iter().any(|t| is_type(value, t)) {
            errors.push(format!("{at}: expected {types:?}, got {value}"));
            return;
        }
    }
    if let Some(options) = schema.get("enum").and_then(Value::as_array) {
        if !options.contains(value) {
            errors.push(format!("{at}: {value} is not one of {options:?}"));
        }
    }
    if let (Some(min), Some(n)) = (
        schema.get("minimum").and_then(Value::as_f64),
        value.as_f64(),
    ) {
        if n < min {
            errors.push(format!("{at}: {n} < minimum {min}"));
        }
    }
    if let Some(obj) = value.as_object() {
        for key in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let key = key.as_str().unwrap();
            if !obj.contains_key(key) {
                errors.push(format!("{at}: missing required {key:?}"));
            }
        }
        let props = schema.get("properties").and_then(Value::as_object);
        for (key, v) in obj {
            let path = format!("{at}.{key}");
            match (
                props.and_then(|p| p.get(key)),
                schema.get("additionalProperties"),
            ) {
                (Some(s), _) => validate(root, s, v, &path, errors),
                (None, Some(Value::Bool(false))) => {
                    errors.push(format!("{path}: not in the schema"))
                }
                (None, Some(extra @ Value::Object(_))) => validate(root, extra, v, &path, errors),
                (None, _) => {}
            }
        }
    }
    if let (Some(items), Some(arr)) = (schema.get("items"), value.as_array()) {
        for (i, v) in arr.iter().enumerate() {
            validate(root, items, v, &format!("{at}[{i}]"), errors);
        }
    }
}

fn is_type(value: &Value, t: &str) -> bool {
    match t {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "number" => value.is_number(),
        "integer" => value.is_i64() || value.is_u64(),
        _ => panic!("unknown type {t}"),
    }
}

/// Runs `args` with `--json` and checks the output against definition `def`.
/// The errors of `value` against the schema's definition `def` (empty when it conforms).
pub(crate) fn errors_against(def: &str, value: &Value) -> Vec<String> {
    let root = schema();
    let mut errors = Vec::new();
    let r = serde_json::json!({"$ref": format!("#/$defs/{def}")});
    validate(&root, &r, value, "$", &mut errors);
    errors
}

pub(crate) fn conforms(env: &TestEnv, def: &str, args: &[&str], code: i32) -> Value {
    let mut args = args.to_vec();
    args.push("--json");
    let run = env.run(&args);
    assert_eq!(run.code, code, "ctxctl {args:?}: {run:?}");
    let value = run.json();
    let root = schema();
    let mut errors = Vec::new();
    validate(
        &root,
        &serde_json::json!({"$ref": format!("#/$defs/{def}")}),
        &value,
        "$",
        &mut errors,
    );
    assert!(errors.is_empty(), "ctxctl {args:?}:\n{}", errors.join("\n"));
    value
}

#[test]
fn the_validator_rejects_what_the_schema_does_not_say() {
    let root = schema();
    let check = |v: Value| {
        let mut errors = Vec::new();
        validate(
            &root,
            &serde_json::json!({"$ref": "#/$defs/check"}),
            &v,
            "$",
            &mut errors,
        );
        errors
    };
    assert!(check(serde_json::json!({"files": []})).is_empty());
    // The old shape of one file, an unknown field, a wrong type, an unknown status.
    assert!(!check(serde_json::json!({"path": "a", "status": "ok"})).is_empty());
    assert!(!check(serde_json::json!({"files": [], "total": 1})).is_empty());
    assert!(!check(serde_json::json!({"files": [{"path": 1, "error": "x"}]})).is_empty());
    let mut file = serde_json::json!({"path": "a", "model": "m", "status": "fine", "tokens": 1,
        "next_request_tokens": 1, "next_request_source": "tokenizer", "context_window": 10,
        "context_window_source": "flag", "max_output_tokens": 1, "reserved": 0,
        "effective_limit": 9, "threshold": 0.8, "usage": 0.1, "remaining": 8, "problems": []});
    assert_eq!(check(serde_json::json!({"files": [file.clone()]})).len(), 1);
    file["status"] = "ok".into();
    assert!(check(serde_json::json!({"files": [file]})).is_empty());
}

#[test]
fn reading_commands_conform_with_one_file_many_and_a_failed_one() {
    let env = TestEnv::new();
    let chat = env.write("chat.json", fs::read(sample("openai-chat.json")).unwrap());
    let codex = env.write("codex.jsonl", fs::read(sample("codex.jsonl")).unwrap());
    let broken = env.write("broken.json", "{\"messages\": [");
    for def in ["count", "check", "stats"] {
        let cmd = def;
        let one = conforms(&env, def, &[cmd, s(&chat)], 0);
        assert_eq!(one["files"].as_array().unwrap().len(), 1, "{cmd}: {one}");
        let two = conforms(&env, def, &[cmd, s(&chat), s(&codex), s(&broken)], 2);
        let files = two["files"].as_array().unwrap();
        assert_eq!(files.len(), 3, "{cmd}: {two}");
        assert_eq!(files[2]["path"], s(&broken));
        assert!(
            files[2]["error"].as_str().unwrap().contains("broken.json"),
            "{cmd}: {two}"
        );
        // One file or many: the same entry for the same file.
        assert_eq!(one["files"][0], files[0], "{cmd}");
    }
    conforms(&env, "count", &["count", s(&chat), "--per-message"], 0);
    conforms(
        &env,
        "compact_files",
        &["compact", s(&chat), s(&codex), s(&broken), "--dry-run"],
        2,
    );
}

#[test]
fn tokens_mean_the_same_in_count_check_stats_and_diff() {
    let env = TestEnv::new();
    let codex = env.write("codex.jsonl", fs::read(sample("codex.jsonl")).unwrap());
    let count = conforms(&env, "count", &["count", s(&codex)], 0);
    let check = conforms(&env, "check", &["check", s(&codex)], 0);
    let stats = conforms(&env, "stats", &["stats", s(&codex)], 0);
    let diff = conforms(&env, "diff", &["diff", s(&codex), s(&codex)], 0);
    let tokens = &count["files"][0]["tokens"];
    assert_eq!(&check["files"][0]["tokens"], tokens);
    assert_eq!(&stats["files"][0]["tokens"], tokens);
    assert_eq!(&diff["a"]["tokens"], tokens);
    assert_eq!(count["files"][0]["by_role"], stats["files"][0]["by_role"]);
    // The figure checked is the next request, which the agent's usage makes larger here.
    let next = &count["files"][0]["next_request_tokens"];
    assert_ne!(next, tokens);
    assert_eq!(&check["files"][0]["next_request_tokens"], next);
    assert_eq!(&stats["files"][0]["next_request_tokens"], next);
}

#[test]
fn status_agrees_with_problems_and_the_exit_code() {
    let env = TestEnv::new();
    // A tool result without its call: within the window, but broken.
    let orphan = env.write(
        "orphan.json",
        r#"{"model":"gpt-4o","messages":[{"role":"user","content":"hi"},
        {"role":"tool","tool_call_id":"nope","content":"result"}]}"#,
    );
    let v = conforms(&env, "check", &["check", s(&orphan)], 1);
    let f = &v["files"][0];
    assert_eq!(f["status"], "broken", "{v}");
    assert!(!f["problems"].as_array().unwrap().is_empty());
    let chat = env.write("chat.json", fs::read(sample("openai-chat.json")).unwrap());
    let v = conforms(
        &env,
        "check",
        &["check", s(&chat), "--max-tokens", "2000"],
        1,
    );
    assert_eq!(v["files"][0]["status"], "compact");
    let v = conforms(&env, "check", &["check", s(&chat)], 0);
    assert_eq!(v["files"][0]["status"], "ok");
}

#[test]
fn rewriting_and_archive_commands_conform() {
    let env = TestEnv::new();
    let plain = env.write("plain.jsonl", fs::read(sample("plain.jsonl")).unwrap());
    let chat = env.write("chat.json", fs::read(sample("openai-chat.json")).unwrap());
    let gpt = ["--model", "gpt-4o"];
    let trim = |extra: &[&'static str]| {
        let mut a = vec![
            "trim",
            s(&chat),
            "--strategy",
            "fifo",
            "--max-tokens",
            "800",
        ];
        a.extend_from_slice(extra);
        a
    };
    conforms(&env, "trim", &trim(&["--dry-run"]), 1);
    conforms(&env, "trim", &trim(&["-o", "trimmed.json"]), 0);
    let compact = |extra: &[&'static str]| {
        let mut a = vec!["compact", s(&plain), "--tail-tokens", "300", gpt[0], gpt[1]];
        a.extend_from_slice(extra);
        a
    };
    conforms(&env, "compact", &compact(&["--dry-run"]), 1);
    conforms(&env, "compact", &compact(&["--if-needed"]), 0);
    let done = conforms(&env, "compact", &compact(&["--in-place"]), 0);
    let id = done["archive_id"].as_str().unwrap().to_string();
    conforms(&env, "diff", &["diff", s(&chat), "trimmed.json"], 1);
    let ls = conforms(&env, "archive_ls", &["archive", "ls"], 0);
    assert_eq!(ls[0]["id"], id.as_str());
    let show = conforms(&env, "archive_show", &["archive", "show", &id], 0);
    assert_eq!(show["timestamp"], ls[0]["timestamp"]);
    assert_eq!(show["tokens"], ls[0]["tokens"]);
    conforms(
        &env,
        "archive_restore",
        &["archive", "restore", &id, "--dry-run"],
        1,
    );
    conforms(
        &env,
        "archive_restore",
        &["archive", "restore", &id, gpt[0], gpt[1]],
        0,
    );
    let ls = conforms(&env, "archive_ls", &["archive", "ls"], 0);
    assert!(ls[0]["restored"]["timestamp"].is_string(), "{ls}");
    conforms(
        &env,
        "archive_removed",
        &["archive", "prune", "--keep", "0", "--dry-run"],
        1,
    );
    conforms(&env, "archive_removed", &["archive", "rm", &id], 0);
}

#[test]
fn the_other_commands_conform() {
    let env = TestEnv::new();
    conforms(&env, "models", &["models", "gpt-4o"], 0);
    conforms(&env, "config", &["config"], 0);
    conforms(&env, "config_path", &["config", "path"], 0);
    conforms(&env, "cache_path", &["cache", "path"], 0);
    conforms(&env, "cache_clear", &["cache", "clear"], 0);
    conforms(&env, "doctor", &["doctor"], 0);
    let dir = env.path().join("agents");
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["claude-code.jsonl", "codex.jsonl", "openai-chat.json"] {
        std::fs::copy(sample(name), dir.join(name)).unwrap();
    }
    std::fs::write(dir.join("broken.jsonl"), "{not json\n").unwrap();
    let v = conforms(&env, "sessions", &["sessions", dir.to_str().unwrap()], 2);
    assert_eq!(v["sessions"].as_array().unwrap().len(), 4, "{v}");
}

#[test]
fn every_definition_is_used_by_a_test() {
    let text = fs::read_to_string(repo().join("tests/cli/json_schema.rs")).unwrap();
    let root = schema();
    for name in root["$defs"].as_object().unwrap().keys() {
        let quoted = format!("\"{name}\"");
        let referenced = format!("#/$defs/{name}");
        let schema_text = fs::read_to_string(repo().join("docs/json-schema.json")).unwrap();
        assert!(
            text.contains(&quoted) || schema_text.contains(&referenced),
            "$defs/{name} is neither tested here nor referenced"
        );
    }
}

#[test]
fn grep_json_lines_conform() {
    let env = TestEnv::new();
    let f = sample("claude-code.jsonl");
    for args in [
        &["grep", "--json", "-i", "test", s(&f)][..],
        &["grep", "--json", "-c", "-i", "test", s(&f)][..],
    ] {
        let run = env.run(args);
        assert_eq!(run.code, 0, "{run:?}");
        for line in run.stdout.lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            let errors = errors_against("grep_line", &v);
            assert!(errors.is_empty(), "{line}:\n{}", errors.join("\n"));
        }
    }
}
