//! Budget options shared by `check`, `trim` and `compact`: flags over the run's settings.

use clap::Args;

use crate::config::Sourced;
use crate::context::{Context, ResolvedModel};
use crate::models::{Limits, WindowSource};
use crate::ops::window::Window;

/// The largest token figure a budget flag accepts: a hundred times the largest window
/// any model has; more is a typo (an extra digit or two), not a budget.
pub const MAX_TOKENS: u64 = 1_000_000_000;

#[derive(Debug, Clone, Default, Args)]
pub struct LimitArgs {
    /// Use this context window instead of the model's
    #[arg(long, allow_negative_numbers = true, value_name = "N", help_heading = "Budget", value_parser = clap::value_parser!(u64).range(1..=MAX_TOKENS))]
    pub max_tokens: Option<u64>,
    #[command(flatten)]
    pub reserve: ReserveArgs,
}

/// The reserves subtracted from the window.
#[derive(Debug, Clone, Default, Args)]
pub struct ReserveArgs {
    /// Tokens reserved for the reply (default: the model's max output, at most 20% of the window) [env: CTXCTL_RESERVE_OUTPUT]
    #[arg(long, allow_negative_numbers = true, value_name = "N", help_heading = "Budget", value_parser = clap::value_parser!(u64).range(..=MAX_TOKENS))]
    pub reserve_output: Option<u64>,
    /// Tokens reserved besides the output (system prompt, tool schemas) [env: CTXCTL_RESERVED]
    #[arg(long, allow_negative_numbers = true, value_name = "N", help_heading = "Budget", value_parser = clap::value_parser!(u64).range(..=MAX_TOKENS))]
    pub reserved: Option<u64>,
}

impl LimitArgs {
    /// The limits for a loaded session: `--max-tokens`, else the window its agent uses
    /// (see [`crate::ops::window`]).
    pub fn limits(
        &self,
        ctx: &Context,
        model: &ResolvedModel,
        window: &Window,
    ) -> anyhow::Result<Limits> {
        self.reserve
            .limits(ctx, model, Some(self.max_tokens.unwrap_or(window.tokens)))
    }

    /// Where the window [`LimitArgs::limits`] uses came from.
    pub fn source(&self, window: &Window) -> WindowSource {
        if self.max_tokens.is_some() {
            WindowSource::Flag
        } else {
            window.source
        }
    }
}

impl ReserveArgs {
    /// The limits for a session measured against `model`, with `window` replacing the
    /// model's if given.
    pub fn limits(
        &self,
        ctx: &Context,
        model: &ResolvedModel,
        window: Option<u64>,
    ) -> anyhow::Result<Limits> {
        let reserve_output = ctx
            .settings
            .reserve_output(self.reserve_output)?
            .map(|s| s.value);
        let reserved = ctx.settings.reserved(self.reserved)?.value;
        let window = window.unwrap_or_else(|| model.context_window());
        let limits = Limits::new(window, model.max_output_tokens(), reserve_output, reserved);
        if limits.effective_limit() == 0 {
            anyhow::bail!(
                "the reserves leave nothing of the {window}-token window: {} for the reply \
                 (--reserve-output) and {reserved} reserved (--reserved); lower them or raise \
                 --max-tokens",
                limits.max_output_tokens
            );
        }
        Ok(limits)
    }
}

/// `--threshold`, `CTXCTL_THRESHOLD`, `threshold` in the config, or 0.8.
pub fn threshold(ctx: &Context, flag: Option<f64>) -> anyhow::Result<Sourced<f64>> {
    Ok(ctx.settings.threshold(flag)?)
}
