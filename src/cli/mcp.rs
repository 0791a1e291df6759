//! `ctxctl mcp`: a Model Context Protocol server on stdio, one JSON-RPC message a line,
//! offering `recall` and `context_status` (and `compact_session` with `--allow-compact`)
//! over the sessions of the project it is started in. The protocol's handful of requests is answered by
//! [`crate::ops::mcp`]; stdout carries only protocol messages, logs go to stderr.

use std::io::BufRead;

use anyhow::Context as _;
use clap::Args;

use crate::context::Context;
use crate::exit::ExitStatus;

const AFTER_HELP: &str = "\
Examples:
  ctxctl mcp
  ctxctl mcp --project ~/src/app
  ctxctl mcp --allow-compact

Register it with the agent, which starts it in the project's directory:
  claude mcp add ctxctl -- ctxctl mcp
  codex mcp add ctxctl -- ctxctl mcp
  gemini mcp add ctxctl ctxctl mcp
See docs/MCP.md.";

/// Serve `recall` and `context_status` to an agent over the Model Context Protocol
#[derive(Debug, Args)]
#[command(after_help = AFTER_HELP)]
pub struct McpArgs {
    /// The project whose sessions are searched (default: $CLAUDE_PROJECT_DIR, else the
    /// working directory)
    #[arg(long, value_name = "DIR")]
    pub project: Option<std::path::PathBuf>,
    /// Also offer `compact_session`: compact a session no agent is using (never the
    /// caller's own, which is live), archiving it first as `ctxctl compact --in-place` does
    #[arg(long)]
    pub allow_compact: bool,
}

pub fn run(ctx: &Context, args: &McpArgs) -> anyhow::Result<ExitStatus> {
    let cwd = std::env::current_dir().context("reading the working directory")?;
    let server =
        crate::ops::mcp::Server::new(ctx, args.project.as_deref(), &cwd, args.allow_compact);
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let line = line.context("reading standard input")?;
        if line.trim().is_empty() {
            continue;
        }
        let answer = match serde_json::from_str(&line) {
            Ok(msg) => crate::ops::mcp::handle(ctx, &server, &msg),
            Err(e) => Some(crate::ops::mcp::parse_error(&e)),
        };
        if let Some(a) = answer {
            let mut text = serde_json::to_string(&a)?;
            text.push('\n');
            ctx.printer.data(text.as_bytes())?;
        }
    }
    Ok(ExitStatus::Success)
}
