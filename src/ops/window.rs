//! The context window a session's agent uses: recorded in the file (Codex
//! `model_context_window`), else the agent's own rule for the model (Claude Code's 200K /
//! 1M), else the registry, else a `[models]` entry of the config file; an unknown model
//! gets the fallback limits.

use crate::context::ResolvedModel;
use crate::models::{self, WindowSource};
use crate::session::{AgentLimits, Format, ReportedUsage};

/// A window and where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub tokens: u64,
    pub source: WindowSource,
}

/// The window of a session in `format` measured against `model`.
pub fn of(
    model: &ResolvedModel,
    format: Format,
    agent: &AgentLimits,
    usage: Option<&ReportedUsage>,
) -> Window {
    if let Some(tokens) = agent.window {
        return Window {
            tokens,
            source: WindowSource::Recorded,
        };
    }
    let registry = model.spec.context_window;
    let claude = model.spec.id.to_ascii_lowercase().contains("claude");
    if format == Format::ClaudeCode && claude {
        let largest = usage.map(|u| {
            u.earlier
                .iter()
                .map(|&(_, n)| n)
                .fold(u.input_tokens, u64::max)
        });
        return Window {
            tokens: models::claude_code_window(&model.spec.id, registry, model.one_m, largest),
            source: WindowSource::Agent,
        };
    }
    if model.one_m && claude {
        return Window {
            tokens: models::CLAUDE_CODE_1M_WINDOW,
            source: WindowSource::Agent,
        };
    }
    Window {
        tokens: registry,
        source: if !model.known {
            WindowSource::Default
        } else if model.window_from_config {
            WindowSource::Config
        } else {
            WindowSource::Registry
        },
    }
}
