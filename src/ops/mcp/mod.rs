//! The Model Context Protocol server's requests (`ctxctl mcp`): the JSON-RPC subset an
//! agent uses (`initialize`, `notifications/initialized`, `ping`, `tools/list`,
//! `tools/call`) and the tools, `recall` and `context_status`, and `compact_session` when
//! the user allowed it (`compact.rs`), over "this project" as [`this`] finds it: the
//! sessions whose project is the one the agent started the server in.

mod compact;
pub mod this;

use std::path::Path;

use serde_json::{json, Value};

use crate::context::Context;
use crate::ops::filter::{Filter, Pattern};
use crate::ops::search::{self, Source};
use crate::ops::sessions;
use crate::search::{Hit, MatchOptions, Matcher, Place, Query};
pub use this::Server;

/// The protocol version answered when the client asks for none.
const PROTOCOL: &str = "2025-06-18";
/// `recall`'s default budget, in tokens.
const DEFAULT_BUDGET: usize = 2000;

/// The answer to one JSON-RPC message (`None` for a notification).
pub fn handle(ctx: &Context, server: &Server, msg: &Value) -> Option<Value> {
    let id = msg.get("id").cloned();
    let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
    let params = msg.get("params").cloned().unwrap_or(Value::Null);
    let result = match method {
        "initialize" => Ok(json!({
            "protocolVersion": params.get("protocolVersion").and_then(Value::as_str).unwrap_or(PROTOCOL),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "ctxctl", "version": env!("CARGO_PKG_VERSION")},
        })),
        "ping" => Ok(json!({})),
        "tools/list" => Ok(json!({"tools": tools(server)})),
        "tools/call" => Ok(call(ctx, server, &params)),
        _ if id.is_none() => return None,
        _ => Err((-32601, format!("method not found: {method}"))),
    };
    let id = id?;
    Some(match result {
        Ok(r) => json!({"jsonrpc": "2.0", "id": id, "result": r}),
        Err((code, message)) => {
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
        }
    })
}

/// The answer to a line that is not JSON.
pub fn parse_error(err: &serde_json::Error) -> Value {
    json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": format!("parse error: {err}")}})
}

fn tools(server: &Server) -> Value {
    let mut tools = json!([
        {
            "name": "recall",
            "description": "Search this project's agent sessions, including what was compacted away (by the agent or by ctxctl, whose archives keep the originals), for text you no longer have in context. Returns the matching messages with where each came from, within a token budget.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "Text to find (a literal, any case, unless regex is true)"},
                    "regex": {"type": "boolean", "description": "Read query as a regular expression"},
                    "max_tokens": {"type": "integer", "description": "Budget for the answer, in tokens (default 2000)"},
                    "context": {"type": "integer", "description": "Lines around each matching line (default 2)"}
                },
                "required": ["query"]
            }
        },
        {
            "name": "context_status",
            "description": "How full a session is (default: your own when the agent says which it is, else this project's most recently active one): the predicted tokens of the next request, the context window, usage and status as `ctxctl check` computes them, and how many tokens must go to get below the compaction threshold.",
            "inputSchema": {"type": "object", "properties": {
                "session": {"type": "string", "description": "A session file; default: yours, or this project's most recently active one"}
            }}
        }
    ]);
    if server.allow_compact {
        if let Some(list) = tools.as_array_mut() {
            list.push(compact::tool());
        }
    }
    tools
}

fn call(ctx: &Context, server: &Server, params: &Value) -> Value {
    let args = params.get("arguments").cloned().unwrap_or(json!({}));
    let cwd = &server.project;
    let out = match params.get("name").and_then(Value::as_str) {
        Some("recall") => recall(ctx, cwd, &args),
        Some("context_status") => status(ctx, server, &args),
        Some("compact_session") if server.allow_compact => compact::call(ctx, server, &args),
        Some("compact_session") => Err(anyhow::anyhow!(
            "compact_session is off: the user allows it by starting the server as `ctxctl mcp --allow-compact`"
        )),
        other => Err(anyhow::anyhow!("no tool {}", other.unwrap_or("(none)"))),
    };
    match out {
        Ok(text) => json!({"content": [{"type": "text", "text": text}], "isError": false}),
        Err(e) => json!({"content": [{"type": "text", "text": format!("{e:#}")}], "isError": true}),
    }
}

/// The filter for "this project": sessions whose project directory is `cwd`.
fn project(cwd: &Path) -> anyhow::Result<Filter> {
    Ok(Filter {
        project: Some(Pattern::glob(&cwd.display().to_string())?),
        ..Filter::default()
    })
}

fn recall(ctx: &Context, cwd: &Path, args: &Value) -> anyhow::Result<String> {
    let q = args
        .get("query")
        .and_then(Value::as_str)
        .filter(|q| !q.is_empty())
        .ok_or_else(|| anyhow::anyhow!("recall needs a non-empty \"query\""))?;
    let opts = MatchOptions {
        ignore_case: true,
        word: false,
        fixed: !args.get("regex").and_then(Value::as_bool).unwrap_or(false),
    };
    let budget = args
        .get("max_tokens")
        .and_then(Value::as_u64)
        .map_or(DEFAULT_BUDGET, |n| n as usize);
    let query = Query {
        matcher: Matcher::new(q, opts)?,
        roles: Vec::new(),
        tools: Vec::new(),
        context: args.get("context").and_then(Value::as_u64).unwrap_or(2) as usize,
    };
    let mut found: Vec<(Source, Hit)> = Vec::new();
    for src in search::sources(ctx, &[], &project(cwd)?)? {
        match search::search(ctx, &src, &query) {
            Ok(f) => found.extend(f.hits.into_iter().map(|h| (src.clone(), h))),
            Err(e) => ctx.printer.debug(&format!("{e:#}")),
        }
    }
    // What the agent no longer has first, then the newest.
    found.sort_by(|(_, a), (_, b)| {
        (a.place == Place::Live)
            .cmp(&(b.place == Place::Live))
            .then(b.when.cmp(&a.when))
    });
    Ok(render(ctx, q, &found, budget))
}

/// Roughly 4 characters a token: the answer's size, not a count anybody is billed by.
fn tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

fn render(ctx: &Context, q: &str, found: &[(Source, Hit)], budget: usize) -> String {
    if found.is_empty() {
        return format!("No message of this project's sessions or archives mentions {q:?}.");
    }
    let mut out = format!("{} message(s) mention {q:?}.\n", found.len());
    let mut shown = 0;
    for (src, h) in found {
        let place = match &h.place {
            Place::Live => "live".to_string(),
            Place::CompactedByAgent => "compacted away (still in the session file)".to_string(),
            Place::Archived { id } => {
                format!("archived by ctxctl as {id} (`ctxctl archive restore {id}`)")
            }
        };
        let mut block = format!(
            "\n--- {} · {} · record {} · {}{} · {}\n",
            src.path.display(),
            src.agent(ctx),
            h.record,
            h.role,
            h.tool
                .as_deref()
                .map(|t| format!(" ({t})"))
                .unwrap_or_default(),
            h.when.as_deref().unwrap_or("no time"),
        );
        block.push_str(&format!("[{place}]\n"));
        for l in &h.lines {
            block.push_str(&l.text);
            block.push('\n');
        }
        if tokens(&out) + tokens(&block) > budget {
            break;
        }
        out.push_str(&block);
        shown += 1;
    }
    if shown < found.len() {
        out.push_str(&format!(
            "\n({} more not shown: over the budget; raise max_tokens or narrow the query)\n",
            found.len() - shown
        ));
    }
    out
}

fn status(ctx: &Context, server: &Server, args: &Value) -> anyhow::Result<String> {
    let cwd = &server.project;
    let given: Vec<std::path::PathBuf> = args
        .get("session")
        .and_then(Value::as_str)
        .map(|s| vec![s.into()])
        .unwrap_or_default();
    let filter = if given.is_empty() {
        project(cwd)?
    } else {
        Filter::default()
    };
    let roots = sessions::roots(ctx, &given);
    let mut candidates = sessions::discover(ctx, &roots, &filter)?;
    // The caller's own session first, then the newest.
    candidates.sort_by_key(|c| (!server.is_own(&c.path), std::cmp::Reverse(c.modified)));
    let c = candidates
        .first()
        .ok_or_else(|| anyhow::anyhow!("no session of the project {} found", cwd.display()))?;
    let m = sessions::measure(ctx, c)?;
    let threshold = ctx.settings.threshold(None)?.value;
    let at = (threshold * m.effective_limit as f64) as usize;
    let over = m.next_request_tokens.saturating_sub(at);
    Ok(serde_json::to_string_pretty(&json!({
        "path": c.path.display().to_string(),
        "agent": m.format.codec().agent(),
        "model": m.model,
        "messages": m.messages,
        "next_request_tokens": m.next_request_tokens,
        "context_window": m.context_window,
        "effective_limit": m.effective_limit,
        "usage": m.usage,
        "status": m.status,
        "threshold": threshold,
        "tokens_to_free_for_threshold": over,
        "compact_command": format!("ctxctl compact {}", c.path.display()),
    }))?)
}
