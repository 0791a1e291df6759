//! The hidden part an agent sends when the session gives nothing to learn it from: the
//! first request of a session, or the first after a rewrite whose calibration was not
//! kept. A documented prior, not a measurement of the user's set-up (tools, MCP servers
//! and memory files change it), so a prediction that uses it is an `estimate`.
//!
//! The figures come from the agents' own prompts and tools, as their captures and source
//! show them — never from the real users' sessions the accuracy benchmark scores
//! (`scripts/bench-accuracy.py`, docs/ACCURACY.md):
//!
//! **Per version** (`CLAUDE_CODE_BY_VERSION`, `CODEX_BY_VERSION`): the hidden part depends
//! on the agent's version, which the file records (Claude Code's `version` on its records,
//! Codex's `session_meta.cli_version`; [`AgentLimits::agent_version`]). Each row was
//! measured by `scripts/measure-priors.py`: it installs that version from npm, runs it once
//! against the fake provider API of `../shared/realclients` (`claude -p "hi"` and a
//! subagent it spawns; `codex exec "hi"` with the version's default model), and counts the
//! recorded first request's hidden part with ctxctl (`check` of {system, tools, one
//! message} minus {one message}). Codex: the tools (from 0.150 an `additional_tools` input
//! item), plus the `instructions` when the rollout does not store the base instructions
//! (up to 0.80 here). The nearest measured version at or below the session's wins (a
//! pre-release counts as its release).
//!
//! Claude Code: the system prompt and the tool schemas **as the provider bills them with
//! tool search on**, as users of api.anthropic.com get it (`--tool-search`). From 2.1.69
//! Claude Code defers most of its tools (`shouldDefer`: WebFetch, WebSearch, TodoWrite,
//! NotebookEdit, the cron, plan-mode and worktree tools …, and every MCP tool): it sends
//! their names in an `<available-deferred-tools>` message and a `ToolSearch` tool instead
//! of their schemas. It does so only for a first-party base URL unless
//! `ENABLE_TOOL_SEARCH` is set (its bundle logs "`[ToolSearch:optimistic] disabled:
//! ANTHROPIC_BASE_URL=… is not a first-party Anthropic host`"), so a run against a local
//! fake API sends every schema in full: measured that way, 2.1.81–2.1.150 came to
//! 23–28K where their users' first requests held far less. The measurement sets
//! `ENABLE_TOOL_SEARCH=true` and counts the tools not sent with `defer_loading` plus the
//! deferred-tools message (which the transcript does not store). 2.1.69–2.1.81 also
//! read a rollout flag (`tengu_defer_all_bn4`, default on in the bundle) that defers every
//! tool, `Bash` and `Read` included; 2.1.87 on defer only the `shouldDefer` tools whatever
//! the flag, so the rows take it off (`--flag tengu_defer_all_bn4=false`), which is what
//! the later builds do. 2.1.69's subagent ran with `ToolSearch` alone even so: its
//! subagent column is 2.1.78's.
//!
//! | Claude Code | main | subagent | | Codex | instructions + tools | tools |
//! |---|---|---|---|---|---|---|
//! | 1.0.17 | 14,333 | 10,635 | | 0.44.0 (gpt-5-codex) | 2,525 | 291 |
//! | 1.0.50 | 14,504 | 10,875 | | 0.57.0 (gpt-5-codex) | 3,512 | 1,157 |
//! | 1.0.100 | 15,296 | 11,458 | | 0.63.0 (gpt-5.1-codex) | 3,483 | 1,182 |
//! | 2.0.0 | 15,160 | 11,010 | | 0.80.0 (gpt-5.1-codex-max) | 3,698 | 1,218 |
//! | 2.0.50 | 16,639 | 11,966 | | 0.100.0 (gpt-5.2-codex) | 3,923 | 2,014 |
//! | 2.1.12 | 20,503 | 12,174 | | 0.116.0 (gpt-5.3-codex) | 7,004 | 4,449 |
//! | 2.1.37 | 19,717 | 11,948 | | 0.118.0 (gpt-5.3-codex) | 7,006 | 4,451 |
//! | 2.1.39 | 19,638 | 11,868 | | 0.120.0 (gpt-5.3-codex) | 7,009 | 4,454 |
//! | 2.1.63 | 20,933 | 12,347 | | 0.130.0 (gpt-5.5) | 8,928 | 4,548 |
//! | 2.1.69 (tool search) | 13,750 | 8,059 | | 0.140.0 (gpt-5.5) | 6,938 | 2,558 |
//! | 2.1.78 | 13,248 | 8,059 | | 0.150.0 (gpt-5.6-sol) | 4,794 | 4,794 |
//! | 2.1.81 | 13,247 | 8,059 | | 0.160.0 (gpt-6.1-sol) | 5,223 | 5,223 |
//! | 2.1.87 | 15,749 | 7,769 | | 0.169.0 (gpt-6.1-sol) | 6,048 | 6,048 |
//! | 2.1.90 | 16,042 | 7,812 | | | | |
//! | 2.1.92 | 16,041 | 7,809 | | | | |
//! | 2.1.97 | 16,057 | 7,811 | | | | |
//! | 2.1.122 | 15,840 | 7,763 | | | | |
//! | 2.1.150 | 17,321 | 7,928 | | | | |
//! | 2.1.197 | 12,120 | 4,915 | | | | |
//!
//! **Claude Haiku** (`CLAUDE_CODE_FULL_SCHEMAS`): Claude Code never uses tool search with a
//! Haiku model, whatever the base URL (its bundle, 2.1.92: "Tool search disabled for model
//! '…': model does not support tool_reference blocks", a name test for `haiku`), so a
//! Haiku session — the Explore subagent's usual model — sends every tool schema in full,
//! every MCP tool's included. The rows from 2.1.69 were measured the same way without
//! `--tool-search` (and without `ENABLE_TOOL_SEARCH`, which a local base URL turns off):
//! 2.1.69 deferred every tool through its rollout flag even then, so its row is 2.1.78's.
//! Before 2.1.69 there is no tool search and the columns above are already in full.
//!
//! | Claude Code, full schemas | main | subagent |
//! |---|---|---|
//! | 2.1.78 | 23,027 | 14,354 |
//! | 2.1.81 | 23,071 | 14,399 |
//! | 2.1.87 | 25,761 | 14,228 |
//! | 2.1.90 | 26,054 | 14,271 |
//! | 2.1.92 | 26,053 | 14,268 |
//! | 2.1.97 | 26,069 | 14,270 |
//! | 2.1.122 | 27,347 | 15,763 |
//! | 2.1.150 | 27,735 | 14,900 |
//! | 2.1.197 | 20,758 | 11,968 |
//!
//! The model is known only once the file holds a response, so a transcript's very first
//! request keeps the tool-search row (Claude Code's default model takes deferred tools).
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

/// Claude Code's hidden part per version, measured by `scripts/measure-priors.py
/// --tool-search` on the first request of `claude -p` and of a subagent it spawns: `(main
/// session, subagent)`, as the provider bills them with tool search on. Ascending.
pub const CLAUDE_CODE_BY_VERSION: &[(AgentVersion, usize, usize)] = &[
    ([1, 0, 17], 14_333, 10_635),
    ([1, 0, 50], 14_504, 10_875),
    ([1, 0, 100], 15_296, 11_458),
    ([2, 0, 0], 15_160, 11_010),
    ([2, 0, 50], 16_639, 11_966),
    ([2, 1, 12], 20_503, 12_174),
    ([2, 1, 37], 19_717, 11_948),
    ([2, 1, 39], 19_638, 11_868),
    ([2, 1, 63], 20_933, 12_347),
    ([2, 1, 69], 13_750, 8_059),
    ([2, 1, 78], 13_248, 8_059),
    ([2, 1, 81], 13_247, 8_059),
    ([2, 1, 87], 15_749, 7_769),
    ([2, 1, 90], 16_042, 7_812),
    ([2, 1, 92], 16_041, 7_809),
    ([2, 1, 97], 16_057, 7_811),
    ([2, 1, 122], 15_840, 7_763),
    ([2, 1, 150], 17_321, 7_928),
    ([2, 1, 197], 12_120, 4_915),
];

/// Claude Code's hidden part per version for a model that takes no deferred tools (Claude
/// Haiku): `(main session, subagent)` with every tool schema in full, measured by
/// `scripts/measure-priors.py` without `--tool-search`. From 2.1.69, the first version with
/// tool search; earlier versions send their schemas in full in every row. Ascending.
pub const CLAUDE_CODE_FULL_SCHEMAS: &[(AgentVersion, usize, usize)] = &[
    ([2, 1, 69], 23_027, 14_354),
    ([2, 1, 78], 23_027, 14_354),
    ([2, 1, 81], 23_071, 14_399),
    ([2, 1, 87], 25_761, 14_228),
    ([2, 1, 90], 26_054, 14_271),
    ([2, 1, 92], 26_053, 14_268),
    ([2, 1, 97], 26_069, 14_270),
    ([2, 1, 122], 27_347, 15_763),
    ([2, 1, 150], 27_735, 14_900),
    ([2, 1, 197], 20_758, 11_968),
];

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
            ratio: (agent.ratio_before_compaction).map(|r| f64::from(r) / 1e6),
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
        Format::ClaudeCode => match (agent.full_tool_schemas)
            .then(|| row(CLAUDE_CODE_FULL_SCHEMAS, v))
            .flatten()
            .or_else(|| row(CLAUDE_CODE_BY_VERSION, v))
        {
            Some((_, sub)) if agent.subagent => sub,
            Some((main, _)) => main,
            None if agent.subagent => CLAUDE_CODE_SUBAGENT,
            None => CLAUDE_CODE_MAIN,
        },
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
        assert_eq!((p.tokens, p.measured, p.ratio), (40_000, true, None));
        // With the session's ratio calibrated there (in millionths).
        let calibrated = AgentLimits {
            ratio_before_compaction: Some(1_410_000),
            ..agent
        };
        assert_eq!(of(Format::ClaudeCode, &calibrated).ratio, Some(1.41));
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
        // Claude Code's follows its version the same way, main and subagent.
        let cc = |v: &str, sub: bool| hidden(Format::ClaudeCode, &at(v, sub, false));
        let r = |v: AgentVersion| *CLAUDE_CODE_BY_VERSION.iter().find(|r| r.0 == v).unwrap();
        assert_eq!(cc("2.1.97", false), r([2, 1, 97]).1);
        assert_eq!(cc("2.1.98", true), r([2, 1, 97]).2);
        assert_eq!(cc("2.1.64", false), r([2, 1, 63]).1);
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
    fn a_haiku_session_sends_its_tool_schemas_in_full_from_tool_search_on() {
        assert!(!crate::formats::claude_code::defers_tools(
            "claude-haiku-4-5-20251001"
        ));
        assert!(crate::formats::claude_code::defers_tools(
            "claude-sonnet-4-6"
        ));
        let haiku = |v: &str, sub: bool| AgentLimits {
            full_tool_schemas: true,
            ..at(v, sub, false)
        };
        let full = |v: AgentVersion| *CLAUDE_CODE_FULL_SCHEMAS.iter().find(|r| r.0 == v).unwrap();
        let deferred = |v: AgentVersion| *CLAUDE_CODE_BY_VERSION.iter().find(|r| r.0 == v).unwrap();
        assert_eq!(
            hidden(Format::ClaudeCode, &haiku("2.1.92", true)),
            full([2, 1, 92]).2
        );
        assert_eq!(
            hidden(Format::ClaudeCode, &haiku("2.1.93", false)),
            full([2, 1, 92]).1
        );
        assert!(full([2, 1, 92]).2 > deferred([2, 1, 92]).2);
        // Before tool search the version's own row holds every schema already.
        assert_eq!(
            hidden(Format::ClaudeCode, &haiku("2.1.39", true)),
            deferred([2, 1, 39]).2
        );
        // An unknown version keeps the constants.
        assert_eq!(
            hidden(Format::ClaudeCode, &haiku("0.2.9", true)),
            CLAUDE_CODE_SUBAGENT
        );
    }

    #[test]
    fn the_table_ascends() {
        assert!(CLAUDE_CODE_FULL_SCHEMAS.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(CODEX_BY_VERSION.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(CLAUDE_CODE_BY_VERSION.windows(2).all(|w| w[0].0 < w[1].0));
    }
}
