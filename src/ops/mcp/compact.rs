//! `compact_session`, the MCP tool offered only with `ctxctl mcp --allow-compact`: compacts
//! a session that is not live, by running `ctxctl compact FILE --in-place --json` (the same
//! path as the command: live checks, archive first, temp file, rename). It refuses the
//! calling agent's own session, which is live by definition (the agent is writing it), and
//! any session the live rule of [`crate::ops::live`] calls live or recent.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::Context as _;
use serde_json::{json, Value};

use super::this::Server;
use crate::config::Source;
use crate::context::Context;
use crate::ops::live::{self, Refused, Scope};
use crate::ops::sessions;

/// The tool's description for `tools/list`.
pub fn tool() -> Value {
    json!({
        "name": "compact_session",
        "description": "Compact one of this project's sessions that no agent is using (not your own: it is live), as `ctxctl compact FILE --in-place`: the middle is replaced by a summary and the originals are archived first, so `recall` still finds them and `ctxctl archive restore` puts them back.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "session": {"type": "string", "description": "The session file, or its session id"},
                "tail_tokens": {"type": "integer", "description": "Tokens kept verbatim at the end (default: as configured)"}
            },
            "required": ["session"]
        }
    })
}

/// Runs the tool; an `Err` is the tool's error result (a refusal or a failed compaction).
pub fn call(ctx: &Context, server: &Server, args: &Value) -> anyhow::Result<String> {
    let given = args
        .get("session")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| {
            anyhow::anyhow!("compact_session needs a \"session\": a file or a session id")
        })?;
    let path = resolve(ctx, server, given)?;
    if server.is_own(&path) {
        anyhow::bail!(
            "{}: this is your own session, the one this conversation is in: it is live (your \
             agent is writing it) and ctxctl never rewrites a live session; nothing was written. \
             Use the agent's own compaction (/compact), or quit it and run `ctxctl compact {} --in-place`.",
            path.display(),
            path.display()
        );
    }
    live::guard(ctx, &path, Scope::Batch).map_err(|live| Refused {
        path: path.clone(),
        live,
    })?;
    let mut cmd = Command::new(std::env::current_exe().context("finding the ctxctl executable")?);
    match &ctx.settings.config_path {
        None => {
            cmd.arg("--no-config");
        }
        Some((p, Source::Flag)) => {
            cmd.arg("--config").arg(p);
        }
        Some(_) => {}
    }
    cmd.arg("compact").arg(&path).args(["--in-place", "--json"]);
    if let Some(n) = args.get("tail_tokens").and_then(Value::as_u64) {
        cmd.arg("--tail-tokens").arg(n.to_string());
    }
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .context("running ctxctl compact")?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        anyhow::bail!("{}", stderr.trim());
    }
    Ok(format!(
        "Compacted {} in place; the originals are archived (`ctxctl archive ls`).\n{}{}",
        path.display(),
        stdout.trim_end(),
        if stderr.trim().is_empty() {
            String::new()
        } else {
            format!("\n{}", stderr.trim_end())
        }
    ))
}

/// The session file `given` names: an existing file (relative to the project), or the
/// session of this project whose file is named by that id.
fn resolve(ctx: &Context, server: &Server, given: &str) -> anyhow::Result<PathBuf> {
    let p = server.project.join(given);
    if p.is_file() {
        return Ok(p);
    }
    let roots = sessions::roots(ctx, &[]);
    let found = sessions::discover(ctx, &roots, &super::project(&server.project)?)?
        .into_iter()
        .filter(|c| c.db_session.is_none())
        .map(|c| c.path)
        .find(|path: &PathBuf| {
            live::session_id(Path::new(path)).is_some_and(|id| id.eq_ignore_ascii_case(given))
        });
    found.ok_or_else(|| {
        anyhow::anyhow!(
            "no session file {given:?} and no session of the project {} with that id",
            server.project.display()
        )
    })
}
