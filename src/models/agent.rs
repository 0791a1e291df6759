//! What the agents themselves do with model names and windows: the aliases they accept
//! (`opus`, `sonnet[1m]`, …) and Claude Code's own window rule.
//!
//! Claude Code sizes a session's window (its context meter and auto-compaction) at 200K
//! tokens unless the session is a 1M-context one. Evidence: the `claude-opus-4-6`
//! transcripts in the shared fixtures auto-compact at `preTokens: 167094` (200K − 20K
//! output − 13K buffer), although Anthropic serves that model with 1M; Claude Code's model
//! configuration docs make 1M opt-in with the `[1m]` suffix (`sonnet[1m]`,
//! `claude-opus-4-6[1m]`), which sends the `context-1m-2025-08-07` beta. Claude Code
//! 2.1.197 runs its default `claude-opus-4-8` as `claude-opus-4-8[1m]` (1M window, see the
//! realclient harness), as for the other models Anthropic serves with 1M natively. A
//! transcript records the API's model id without the suffix, so a session whose reported
//! prompt ever exceeded 200K tokens must have been a 1M one.

/// Claude Code's window for a session that is not a 1M-context one.
pub const CLAUDE_CODE_WINDOW: u64 = 200_000;
/// The window of a 1M-context Claude Code session.
pub const CLAUDE_CODE_1M_WINDOW: u64 = 1_000_000;

/// The suffix Claude Code accepts on a model name to ask for the 1M window.
const ONE_M_SUFFIX: &str = "[1m]";
/// The same, as a dashed suffix of the model id.
const ONE_M_DASHED: &str = "-1m";

/// Claude Code's model aliases, as its `--model`, `/model` and `ANTHROPIC_MODEL` accept
/// them, and the model each stands for in Claude Code 2.1.197.
const ALIASES: &[(&str, &str)] = &[
    ("opus", "claude-opus-4-8"),
    ("opusplan", "claude-opus-4-8"),
    ("best", "claude-opus-4-8"),
    ("default", "claude-opus-4-8"),
    ("sonnet", "claude-sonnet-4-6"),
    ("haiku", "claude-haiku-4-5"),
];

/// Models Anthropic serves with 1M that Claude Code runs at 200K unless asked for 1M
/// (`[1m]`): Claude Code's 1M-context opt-in covered these.
const OPT_IN_1M: &[&str] = &["claude-sonnet-4", "claude-opus-4-6", "claude-sonnet-4-6"];

/// A model name as an agent accepts it, taken apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentName {
    /// The name to look up in the registry (an alias resolved, the suffix removed).
    pub model: String,
    /// The name asked for the 1M window (`[1m]`).
    pub one_m: bool,
}

/// `name` with Claude Code's `[1m]` suffix and aliases resolved: `opus[1m]` →
/// `claude-opus-4-8` with the 1M window. Other names are returned as given.
pub fn agent_name(name: &str) -> AgentName {
    let trimmed = name.trim();
    let lower = trimmed.to_ascii_lowercase();
    // `[1m]` as Claude Code accepts it; `-1m` as some set-ups record it
    // (`claude-opus-4.6-1m`).
    let (base, one_m) = match lower
        .strip_suffix(ONE_M_SUFFIX)
        .or_else(|| lower.strip_suffix(ONE_M_DASHED))
        .filter(|b| !b.is_empty())
    {
        Some(base) => (&trimmed[..base.len()], true),
        None => (trimmed, false),
    };
    let model = ALIASES
        .iter()
        .find(|(alias, _)| alias.eq_ignore_ascii_case(base))
        .map_or_else(|| base.to_string(), |(_, id)| (*id).to_string());
    AgentName { model, one_m }
}

/// The window Claude Code uses for a session of `model` (a registry id), given the
/// registry's window for it, whether the name asked for 1M, and the largest prompt the
/// transcript reports.
pub fn claude_code_window(
    model: &str,
    registry_window: u64,
    one_m: bool,
    reported_input: Option<u64>,
) -> u64 {
    if one_m || reported_input.is_some_and(|n| n > CLAUDE_CODE_WINDOW) {
        return CLAUDE_CODE_1M_WINDOW;
    }
    let bare = model.trim().to_ascii_lowercase();
    let opt_in = OPT_IN_1M
        .iter()
        .any(|m| bare == *m || bare.strip_prefix(m).is_some_and(|r| r.starts_with("-20")));
    if opt_in {
        CLAUDE_CODE_WINDOW.min(registry_window)
    } else {
        // Served with 1M natively (or at most 200K anyway).
        registry_window
    }
}

/// Where a session's context window came from, most trusted first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowSource {
    /// `--max-tokens`.
    Flag,
    /// Recorded in the session file by its agent (Codex `model_context_window`).
    Recorded,
    /// The agent's own rule for the model (Claude Code's 200K / 1M).
    Agent,
    /// The built-in model registry.
    Registry,
    /// A `[models]` entry in the config file.
    Config,
    /// An unknown model: the fallback limits.
    Default,
}

impl WindowSource {
    pub fn name(self) -> &'static str {
        match self {
            WindowSource::Flag => "flag",
            WindowSource::Recorded => "recorded",
            WindowSource::Agent => "agent",
            WindowSource::Registry => "registry",
            WindowSource::Config => "config",
            WindowSource::Default => "default",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_and_the_1m_suffix_resolve() {
        let n = agent_name("opus");
        assert_eq!((n.model.as_str(), n.one_m), ("claude-opus-4-8", false));
        let n = agent_name("Sonnet[1M]");
        assert_eq!((n.model.as_str(), n.one_m), ("claude-sonnet-4-6", true));
        let n = agent_name("claude-opus-4-6[1m]");
        assert_eq!((n.model.as_str(), n.one_m), ("claude-opus-4-6", true));
        assert_eq!(agent_name("haiku").model, "claude-haiku-4-5");
        let n = agent_name("claude-opus-4.6-1m");
        assert_eq!((n.model.as_str(), n.one_m), ("claude-opus-4.6", true));
        let n = agent_name("gpt-4o");
        assert_eq!((n.model.as_str(), n.one_m), ("gpt-4o", false));
    }

    #[test]
    fn claude_code_runs_opt_in_models_at_200k() {
        // The fixtures' opus-4-6 sessions auto-compacted at preTokens 167094.
        assert_eq!(
            claude_code_window("claude-opus-4-6", 1_000_000, false, Some(38_769)),
            200_000
        );
        assert_eq!(
            claude_code_window("claude-sonnet-4-5-20250929", 200_000, false, None),
            200_000
        );
        assert_eq!(
            claude_code_window("claude-sonnet-4-20250514", 200_000, false, None),
            200_000
        );
        assert_eq!(
            claude_code_window("claude-haiku-4-5", 200_000, false, None),
            200_000
        );
    }

    #[test]
    fn a_1m_session_is_recognised() {
        assert_eq!(
            claude_code_window("claude-opus-4-6", 1_000_000, true, None),
            1_000_000
        );
        assert_eq!(
            claude_code_window("claude-opus-4-6", 1_000_000, false, Some(250_000)),
            1_000_000
        );
        // Served with 1M natively: Claude Code's default opus-4-8 runs as [1m].
        assert_eq!(
            claude_code_window("claude-opus-4-8", 1_000_000, false, None),
            1_000_000
        );
    }
}
