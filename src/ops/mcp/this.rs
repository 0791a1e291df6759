//! Which project and which session are "this" for `ctxctl mcp`: what the agent that
//! started the server tells it. A stdio server gets only what a child process gets; no
//! session id travels in the protocol's `initialize` or `tools/call`. Claude Code (checked
//! with 2.1.197 by `scripts/e2e/claude-mcp.sh`) starts it in the project directory and sets
//! `CLAUDE_PROJECT_DIR` (the project) and `CLAUDE_CODE_SESSION_ID` (the session the
//! conversation is in, the resumed one's id after `--resume`). Codex and Gemini CLI give
//! the working directory only. See docs/MCP.md.

use std::path::{Path, PathBuf};

use crate::context::Context;

/// Set by Claude Code for the servers it starts: the project directory.
pub const CLAUDE_PROJECT_DIR: &str = "CLAUDE_PROJECT_DIR";
/// Set by Claude Code for the servers it starts: the id of the calling session.
pub const CLAUDE_CODE_SESSION_ID: &str = "CLAUDE_CODE_SESSION_ID";

/// What one `ctxctl mcp` serves.
#[derive(Debug, Clone)]
pub struct Server {
    /// "This project": `--project`, else `CLAUDE_PROJECT_DIR`, else the working directory.
    pub project: PathBuf,
    /// The calling agent's own session, when it says (`CLAUDE_CODE_SESSION_ID`).
    pub own_session: Option<String>,
    /// Whether `compact_session` is offered (`ctxctl mcp --allow-compact`).
    pub allow_compact: bool,
}

impl Server {
    /// The server for a run: `project` given by the user wins over what the agent says,
    /// which wins over `cwd`.
    pub fn new(ctx: &Context, project: Option<&Path>, cwd: &Path, allow_compact: bool) -> Server {
        let project = project
            .map(Path::to_path_buf)
            .or_else(|| ctx.env.get(CLAUDE_PROJECT_DIR).map(PathBuf::from))
            .unwrap_or_else(|| cwd.to_path_buf());
        Server {
            project,
            own_session: ctx.env.get(CLAUDE_CODE_SESSION_ID).map(str::to_string),
            allow_compact,
        }
    }

    /// Whether `path` is the calling agent's own session (its file is named by the id).
    pub fn is_own(&self, path: &Path) -> bool {
        let id = crate::ops::live::session_id(path);
        matches!((id, &self.own_session), (Some(a), Some(b)) if a.eq_ignore_ascii_case(b))
    }
}
