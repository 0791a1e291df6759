//! The hidden part an agent sends when the session gives nothing to learn it from: the
//! first request of a session, or the first after a rewrite whose calibration was not
//! kept. A documented prior, not a measurement of the user's set-up (tools, MCP servers
//! and memory files change it), so a prediction that uses it is an `estimate`.
//!
//! The figures come from the agents' own prompts and tools, as their captures and source
//! show them — never from the real users' sessions the accuracy benchmark scores
//! (`scripts/bench-accuracy.py`, docs/ACCURACY.md):
//!
//! | Agent | Where the figure comes from | Prior |
//! |---|---|---|
//! | Claude Code, main session | the 2.1.197 capture's first request: 19,226 reported (bytes/4 of the body) − 1,414 counted | 17,800 |
//! | Claude Code, subagent | the 2.1.197 subagent capture: 11,431 − 1,112 | 10,300 |
//! | Codex, base instructions in the file | the 0.169/0.171 captures' first request: tools and framing, 3,850 | 3,850 |
//! | Codex, base instructions not in the file (≤ 0.63) | `gpt_5_codex_prompt.md` of 0.63 (10,458 chars, ~2,400 tokens) + that build's four tools (~1,200) | 3,600 |
//! | Gemini CLI | the 0.61.0 e2e capture's first request (`scripts/e2e/gemini-cli.sh`): `systemInstruction` 4,759 + `tools` 5,522 counted | 10,300 |
//!
//! Claude Code 2.1.332 writes its system prompt and tool schemas into the transcript
//! (`prompt_snapshot`): there the hidden part is measured, not assumed.

use crate::session::{AgentLimits, Format};

/// Claude Code's system prompt and tool schemas in a main session.
pub const CLAUDE_CODE_MAIN: usize = 17_800;
/// Claude Code's prompt and tools for a subagent (the Agent/Task tool).
pub const CLAUDE_CODE_SUBAGENT: usize = 10_300;
/// Codex's tools and request framing, when the rollout stores the base instructions
/// (`session_meta.base_instructions`, counted by ctxctl as a system message).
pub const CODEX_TOOLS: usize = 3_850;
/// Codex's base instructions and tools, when the rollout does not store the instructions.
pub const CODEX: usize = 3_600;
/// Gemini CLI's system instruction and tool declarations; neither its JSONL log nor its
/// older `.json` chats store them.
pub const GEMINI_CLI: usize = 10_300;

/// The prior hidden part of a session in `format`; 0 for formats that hold their whole
/// request (request bodies, plain messages) or whose agent was not measured.
pub fn hidden(format: Format, agent: &AgentLimits) -> usize {
    match format {
        _ if agent.prompt_measured => 0,
        Format::ClaudeCode if agent.subagent => CLAUDE_CODE_SUBAGENT,
        Format::ClaudeCode => CLAUDE_CODE_MAIN,
        Format::Codex if agent.instructions_read => CODEX_TOOLS,
        Format::Codex => CODEX,
        Format::Gemini => GEMINI_CLI,
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
        let stored = AgentLimits {
            instructions_read: true,
            ..AgentLimits::default()
        };
        assert_eq!(hidden(Format::ClaudeCode, &main), CLAUDE_CODE_MAIN);
        assert_eq!(hidden(Format::ClaudeCode, &sub), CLAUDE_CODE_SUBAGENT);
        assert_eq!(hidden(Format::Codex, &main), CODEX);
        assert_eq!(hidden(Format::Codex, &stored), CODEX_TOOLS);
        assert_eq!(hidden(Format::Gemini, &main), GEMINI_CLI);
        assert_eq!(hidden(Format::OpenAi, &main), 0);
        assert_eq!(hidden(Format::Anthropic, &main), 0);
    }
}
