//! The hidden part an agent sends when the session gives nothing to learn it from: the
//! first request of a session, or the first after a rewrite whose calibration was not
//! kept. A documented prior, not a measurement of the user's set-up (tools, MCP servers
//! and memory files change it), so a prediction that uses it is an `estimate`.
//!
//! The figures come from the agents' own prompts and tools, as their captures and source
//! show them — never from the real users' sessions the accuracy benchmark scores
//! (`scripts/bench-accuracy.py`, docs/ACCURACY.md):
//!
//! **Per version** (Codex: `CODEX_BY_VERSION`): the hidden part depends
//! on the agent's version, which the file records (Claude Code's `version` on its records,
//! Codex's `session_meta.cli_version`; [`AgentLimits::agent_version`]). Each row was
//! measured by `scripts/measure-priors.py`: it installs that version from npm, runs it once
//! against the fake provider API of `../shared/realclients` (`claude -p "hi"` and a
//! subagent it spawns; `codex exec "hi"` with the version's default model), and counts the
//! recorded first request's hidden part with ctxctl (`check` of {system, tools, one
//! message} minus {one message}). Claude Code: the system prompt and tool schemas.
//! Codex: the tools (from 0.150 an `additional_tools` input item), plus the `instructions`
//! when the rollout does not store the base instructions (up to 0.80 here). The nearest
//! measured version at or below the session's wins (a pre-release counts as its release).
//! Claude Code was measured the same way (1.0.17 to 2.1.197, docs/ACCURACY.md), but from
//! 2.1.81 on its measured figures exceed what real users' first requests held, so its
//! capture-based constants stay until that gap is explained.
//!
//! | Claude Code | main | subagent | | Codex | instructions + tools | tools |
//! |---|---|---|---|---|---|---|
//! | 1.0.17 | 14,333 | 10,635 | | 0.44.0 (gpt-5-codex) | 2,525 | 291 |
//! | 1.0.50 | 14,504 | 10,875 | | 0.57.0 (gpt-5-codex) | 3,512 | 1,157 |
//! | 1.0.100 | 15,296 | 11,458 | | 0.63.0 (gpt-5.1-codex) | 3,483 | 1,182 |
//! | 2.0.0 | 15,160 | 11,010 | | 0.80.0 (gpt-5.1-codex-max) | 3,698 | 1,218 |
//! | 2.0.50 | 16,639 | 11,966 | | 0.100.0 (gpt-5.2-codex) | 3,923 | 2,014 |
//! | 2.1.12 | 19,802 | 11,474 | | 0.116.0 (gpt-5.3-codex) | 7,004 | 4,449 |
//! | 2.1.37 | 19,717 | 11,948 | | 0.118.0 (gpt-5.3-codex) | 7,006 | 4,451 |
//! | 2.1.39 | 19,638 | 11,868 | | 0.120.0 (gpt-5.3-codex) | 7,009 | 4,454 |
//! | 2.1.63 | 20,933 | 12,347 | | 0.130.0 (gpt-5.5) | 8,928 | 4,548 |
//! | 2.1.81 | 23,071 | 14,399 | | 0.140.0 (gpt-5.5) | 6,938 | 2,558 |
//! | 2.1.87 | 25,761 | 14,228 | | 0.150.0 (gpt-5.6-sol) | 4,794 | 4,794 |
//! | 2.1.90 | 26,054 | 14,271 | | 0.160.0 (gpt-6.1-sol) | 5,223 | 5,223 |
//! | 2.1.92 | 26,053 | 14,268 | | | | |
//! | 2.1.97 | 26,069 | 14,270 | | 0.169.0 (gpt-6.1-sol) | 6,048 | 6,048 |
//! | 2.1.122 | 27,346 | 15,764 | | | | |
//! | 2.1.150 | 27,736 | 14,903 | | | | |
//! | 2.1.197 | 20,758 | 11,968 | | | | |
//!
//! (From Codex 0.150 the base instructions travel as a developer input item that the
//! rollout stores, so both Codex columns are the tools.)
//!
//! **Unknown version** (not recorded, or older than every row): the constants below.
//!
//! | Agent | Where the figure comes from | Prior |
//! |---|---|---|
//! | Claude Code, main session | the 2.1.197 capture's first request: 19,226 reported (bytes/4 of the body) − 1,414 counted | 17,800 |
//! | Claude Code, subagent | the 2.1.197 subagent capture: 11,431 − 1,112 | 10,300 |
//! | Codex, base instructions in the file | the 0.169/0.171 captures' first request: tools and framing, 3,850 | 3,850 |
//! | Codex, base instructions not in the file (≤ 0.63) | `gpt_5_codex_prompt.md` of 0.63 (10,458 chars, ~2,400 tokens) + that build's four tools (~1,200) | 3,600 |
//! | Gemini CLI (no version kept) | the 0.61.0 e2e capture's first request (`scripts/e2e/gemini-cli.sh`): `systemInstruction` 4,759 + `tools` 5,522 counted | 10,300 |
//!
//! Claude Code 2.1.332 writes its system prompt and tool schemas into the transcript
//! (`prompt_snapshot`): there the hidden part is measured, not assumed.

use crate::ops::predict::Prior;
use crate::session::{AgentLimits, AgentVersion, Format};

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

/// Codex's hidden part per version, measured by `scripts/measure-priors.py` on the first
/// request of `codex exec` with the version's default model: `(instructions and tools,
/// tools)`; the first applies when the rollout does not store the base instructions. Ascending.
pub const CODEX_BY_VERSION: &[(AgentVersion, usize, usize)] = &[
    ([0, 44, 0], 2_525, 291),
    ([0, 57, 0], 3_512, 1_157),
    ([0, 63, 0], 3_483, 1_182),
    ([0, 80, 0], 3_698, 1_218),
    ([0, 100, 0], 3_923, 2_014),
    ([0, 116, 0], 7_004, 4_449),
    ([0, 118, 0], 7_006, 4_451),
    ([0, 120, 0], 7_009, 4_454),
    ([0, 130, 0], 8_928, 4_548),
    ([0, 140, 0], 6_938, 2_558),
    ([0, 150, 0], 4_794, 4_794),
    ([0, 160, 0], 5_223, 5_223),
    ([0, 169, 0], 6_048, 6_048),
];

/// The row of `table` for `version`: the nearest measured version at or below it; `None`
/// for a version older than every row, or not recorded.
fn row(
    table: &[(AgentVersion, usize, usize)],
    version: Option<AgentVersion>,
) -> Option<(usize, usize)> {
    let v = version?;
    table
        .iter()
        .rev()
        .find(|(at, _, _)| *at <= v)
        .map(|&(_, a, b)| (a, b))
}

/// The hidden part of a session in `format` that has no live usage: the one measured on
/// its reports before the agent's own compaction when there is one (the system prompt and
/// tools are still sent after it; [`AgentLimits::hidden_before_compaction`]), else the
/// prior ([`hidden`]). A file that holds the prompt it sent has none.
pub fn of(format: Format, agent: &AgentLimits) -> Prior {
    match agent.hidden_before_compaction {
        Some(h) if !agent.prompt_measured => Prior {
            tokens: usize::try_from(h).unwrap_or(usize::MAX),
            measured: true,
        },
        _ => Prior::assumed(hidden(format, agent)),
    }
}

/// The prior hidden part of a session in `format`; 0 for formats that hold their whole
/// request (request bodies, plain messages) or whose agent was not measured. The agent's
/// version picks the row of its table; an unknown version falls back to the constants.
pub fn hidden(format: Format, agent: &AgentLimits) -> usize {
    let v = agent.agent_version;
    match format {
        _ if agent.prompt_measured => 0,
        // Measured per version too (docs/ACCURACY.md), but the measured figures overshoot
        // real users' first requests from 2.1.81 on (23-27K where they sent 16-21K), for a
        // reason not yet found: the one capture-based constant stays.
        Format::ClaudeCode if agent.subagent => CLAUDE_CODE_SUBAGENT,
        Format::ClaudeCode => CLAUDE_CODE_MAIN,
        Format::Codex => match row(CODEX_BY_VERSION, v) {
            Some((_, tools)) if agent.instructions_read => tools,
            Some((all, _)) => all,
            None if agent.instructions_read => CODEX_TOOLS,
            None => CODEX,
        },
        Format::Gemini => GEMINI_CLI,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hidden_part_measured_before_a_compaction_stands_in_for_the_prior() {
        let mut agent = AgentLimits {
            hidden_before_compaction: Some(40_000),
            ..AgentLimits::default()
        };
        let p = of(Format::ClaudeCode, &agent);
        assert_eq!((p.tokens, p.measured), (40_000, true));
        // Without it, the prior; a file holding its prompt adds nothing either way.
        let none = of(Format::ClaudeCode, &AgentLimits::default());
        assert_eq!((none.tokens, none.measured), (CLAUDE_CODE_MAIN, false));
        agent.prompt_measured = true;
        assert_eq!(of(Format::ClaudeCode, &agent), Prior::assumed(0));
    }

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

    fn at(version: &str, subagent: bool, instructions_read: bool) -> AgentLimits {
        AgentLimits {
            agent_version: crate::session::parse_agent_version(version),
            subagent,
            instructions_read,
            ..AgentLimits::default()
        }
    }

    #[test]
    fn the_nearest_measured_version_at_or_below_wins() {
        let [first, second, ..] = CODEX_BY_VERSION else {
            panic!("Codex's table has fewer than two rows");
        };
        let v = |a: AgentVersion| format!("{}.{}.{}", a[0], a[1], a[2]);
        assert_eq!(
            hidden(Format::Codex, &at(&v(first.0), false, false)),
            first.1
        );
        assert_eq!(
            hidden(Format::Codex, &at(&v(first.0), false, true)),
            first.2
        );
        // Between two measured versions: the lower one.
        let below_second = [second.0[0], second.0[1], second.0[2].max(1) - 1];
        let below_second = if below_second < second.0 {
            below_second
        } else {
            first.0
        };
        assert_eq!(
            hidden(Format::Codex, &at(&v(below_second), false, false)),
            first.1
        );
        // Past the newest row: the newest.
        let last = CODEX_BY_VERSION.last().unwrap();
        assert_eq!(hidden(Format::Codex, &at("99.0.0", false, false)), last.1);
        // Claude Code's prior does not follow its version (see `hidden`).
        assert_eq!(
            hidden(Format::ClaudeCode, &at("2.1.97", false, false)),
            CLAUDE_CODE_MAIN
        );
    }

    #[test]
    fn codex_pre_releases_use_their_release_row_and_instructions_choose_the_column() {
        let row = |v: &str| {
            let v = crate::session::parse_agent_version(v).unwrap();
            *CODEX_BY_VERSION.iter().rev().find(|r| r.0 <= v).unwrap()
        };
        let r = row("0.116.0");
        assert_eq!(
            hidden(Format::Codex, &at("0.116.0-alpha.10", false, true)),
            r.2
        );
        assert_eq!(
            hidden(Format::Codex, &at("0.116.0-alpha.10", false, false)),
            r.1
        );
        let old = row("0.44.0");
        assert_eq!(hidden(Format::Codex, &at("0.44.0", false, false)), old.1);
        assert!(old.1 > old.2, "the instructions add to the tools");
    }

    #[test]
    fn versions_older_than_every_row_or_unrecorded_fall_back_to_the_constants() {
        assert_eq!(
            hidden(Format::ClaudeCode, &at("0.2.9", false, false)),
            CLAUDE_CODE_MAIN
        );
        assert_eq!(
            hidden(Format::ClaudeCode, &at("0.2.9", true, false)),
            CLAUDE_CODE_SUBAGENT
        );
        assert_eq!(hidden(Format::Codex, &at("0.1.0", false, false)), CODEX);
        assert_eq!(
            hidden(Format::Codex, &at("0.1.0", false, true)),
            CODEX_TOOLS
        );
        assert_eq!(hidden(Format::Codex, &AgentLimits::default()), CODEX);
        // The Claude Code 2.1.332 snapshot is measured whatever the version.
        let measured = AgentLimits {
            prompt_measured: true,
            ..at("2.1.332", false, false)
        };
        assert_eq!(hidden(Format::ClaudeCode, &measured), 0);
    }

    #[test]
    fn the_table_ascends() {
        assert!(CODEX_BY_VERSION.windows(2).all(|w| w[0].0 < w[1].0));
    }
}
