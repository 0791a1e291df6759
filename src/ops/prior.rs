//! The hidden part an agent sends when the session gives nothing to learn it from: the
//! first request of a session, or the first after ctxctl rewrote it. A documented prior,
//! not a measurement of the user's set-up (tools and MCP servers change it), so a
//! prediction that uses it is an `estimate`.
//!
//! The figures are what the agents' first responses reported on the real transcripts in
//! the shared fixtures, minus ctxctl's count of the messages they held (see
//! docs/NEXT-REQUEST.md for every measurement):
//!
//! | Agent | Measured hidden parts | Prior |
//! |---|---|---|
//! | Claude Code, main session | 25,272 · 25,338 · 25,791 (2.1.38), 4,093 (2.1.152, SDK with its own prompt) | 25,300 |
//! | Claude Code, subagent | 13,700 (2.1.39) | 13,700 |
//! | Codex | 9,991 (0.58 CLI), 22,433 (0.135 exec), 42,606 (0.104 Desktop) | 22,400 |
//!
//! The median of each row; the realclients captures are left out (their usage came from a
//! fake provider, not a real tokenizer).

use crate::session::{AgentLimits, Format};

/// Claude Code's system prompt and tool schemas in a main session.
pub const CLAUDE_CODE_MAIN: usize = 25_300;
/// Claude Code's prompt and tools for a subagent (the Agent/Task tool).
pub const CLAUDE_CODE_SUBAGENT: usize = 13_700;
/// Codex's base instructions and tools. Recent rollouts store the base instructions
/// (`session_meta`), which ctxctl counts as a system message: for them the prior counts
/// the instructions twice, erring on the side of compacting early.
pub const CODEX: usize = 22_400;

/// The prior hidden part of a session in `format`; 0 for formats that hold their whole
/// request (request bodies, plain messages) or whose agent was not measured.
pub fn hidden(format: Format, agent: &AgentLimits) -> usize {
    match format {
        Format::ClaudeCode if agent.subagent => CLAUDE_CODE_SUBAGENT,
        Format::ClaudeCode => CLAUDE_CODE_MAIN,
        Format::Codex => CODEX,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_agents_that_hide_part_of_their_request_have_a_prior() {
        let main = AgentLimits::default();
        let sub = AgentLimits {
            subagent: true,
            ..AgentLimits::default()
        };
        assert_eq!(hidden(Format::ClaudeCode, &main), CLAUDE_CODE_MAIN);
        assert_eq!(hidden(Format::ClaudeCode, &sub), CLAUDE_CODE_SUBAGENT);
        assert_eq!(hidden(Format::Codex, &main), CODEX);
        assert_eq!(hidden(Format::OpenAi, &main), 0);
        assert_eq!(hidden(Format::Anthropic, &main), 0);
    }
}
