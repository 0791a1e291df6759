//! Limits, budgets and usage tracking for an embedded context manager.

use crate::models::{Limits, Registry, Resolution};

/// How many tokens a model takes and how much of that a conversation may use:
/// `effective_limit = context_window − max_output_tokens − reserved`.
///
/// ```
/// use ctxctl::ContextLimits;
///
/// let limits = ContextLimits::new(100_000, 4_096, 1_000);
/// assert_eq!(limits.effective_limit(), 94_904);
///
/// let opus = ContextLimits::for_model("claude-3-opus");
/// assert!(opus.is_known_model());
/// assert_eq!((opus.context_window(), opus.max_output_tokens()), (200_000, 4_096));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextLimits {
    model: Option<String>,
    known: bool,
    limits: Limits,
}

impl ContextLimits {
    /// Limits given directly: the window, the reply's reserve and extra tokens held back
    /// (tool definitions, a safety margin).
    pub fn new(context_window: u64, max_output_tokens: u64, reserved: u64) -> ContextLimits {
        ContextLimits {
            model: None,
            known: true,
            limits: Limits::new(context_window, None, Some(max_output_tokens), reserved),
        }
    }

    /// The limits of `model` from the built-in registry of current models (provider
    /// prefixes, dated snapshots and aliases are understood). The output reserve is the
    /// model's max output, capped at a fifth of the window. An unknown model gets
    /// conservative fallback limits and [`ContextLimits::is_known_model`] is `false`.
    pub fn for_model(model: &str) -> ContextLimits {
        ContextLimits::of(Registry::builtin().resolve(model))
    }

    /// The limits of a model the registry resolved (its fallback for an unknown one).
    pub(crate) fn of(resolution: Resolution) -> ContextLimits {
        ContextLimits {
            model: Some(resolution.spec.id.clone()),
            known: resolution.known,
            limits: Limits::for_model(&resolution.spec, None, 0),
        }
    }

    /// The same limits with `reserved` extra tokens held back.
    pub fn with_reserved(mut self, reserved: u64) -> ContextLimits {
        self.limits.reserved = reserved;
        self
    }

    /// The registry id these limits come from (`None` for [`ContextLimits::new`]).
    pub fn model(&self) -> Option<&str> {
        self.model.as_deref()
    }

    /// Whether the model was found in the registry (always `true` for limits given
    /// directly).
    pub fn is_known_model(&self) -> bool {
        self.known
    }

    /// The model's context window in tokens.
    pub fn context_window(&self) -> u64 {
        self.limits.context_window
    }

    /// Tokens kept free for the model's reply.
    pub fn max_output_tokens(&self) -> u64 {
        self.limits.max_output_tokens
    }

    /// Extra tokens held back.
    pub fn reserved(&self) -> u64 {
        self.limits.reserved
    }

    /// What the conversation (system prompt included) may use; never underflows.
    pub fn effective_limit(&self) -> u64 {
        self.limits.effective_limit()
    }
}

/// A window split between what every request carries and what is left for the
/// conversation.
///
/// ```
/// use ctxctl::ContextBudget;
///
/// let budget = ContextBudget::new(100_000)
///     .with_system_prompt(2_000)
///     .with_tools(5_000)
///     .with_response_reserve(4_000);
/// assert_eq!(budget.available(), 89_000);
/// assert_eq!(budget.allocated(), 11_000);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextBudget {
    total: u64,
    system_prompt: u64,
    tools: u64,
    response_reserve: u64,
}

impl ContextBudget {
    /// A budget of `total` tokens with nothing allocated yet.
    pub fn new(total: u64) -> ContextBudget {
        ContextBudget {
            total,
            system_prompt: 0,
            tools: 0,
            response_reserve: 0,
        }
    }

    /// The budget of a model's window, its reply reserve and reserved tokens allocated.
    pub fn for_limits(limits: &ContextLimits) -> ContextBudget {
        ContextBudget::new(limits.context_window())
            .with_response_reserve(limits.max_output_tokens())
            .with_tools(limits.reserved())
    }

    /// Allocates `tokens` to the system prompt.
    pub fn with_system_prompt(mut self, tokens: u64) -> ContextBudget {
        self.system_prompt = tokens;
        self
    }

    /// Allocates `tokens` to tool definitions.
    pub fn with_tools(mut self, tokens: u64) -> ContextBudget {
        self.tools = tokens;
        self
    }

    /// Keeps `tokens` free for the model's reply.
    pub fn with_response_reserve(mut self, tokens: u64) -> ContextBudget {
        self.response_reserve = tokens;
        self
    }

    /// The whole budget.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Tokens allocated to the system prompt, tools and the reply.
    pub fn allocated(&self) -> u64 {
        self.system_prompt + self.tools + self.response_reserve
    }

    /// What is left for the conversation (0 when the allocations exceed the total).
    pub fn available(&self) -> u64 {
        self.total.saturating_sub(self.allocated())
    }
}

/// A running count of tokens against a limit.
///
/// ```
/// use ctxctl::UsageTracker;
///
/// let mut t = UsageTracker::new(1_000);
/// t.add(800);
/// assert_eq!(t.usage_percent(), 80.0);
/// t.add(450);
/// assert!(t.is_over_limit());
/// assert_eq!(t.overflow(), 250);
/// t.remove(500);
/// assert_eq!((t.used(), t.remaining(), t.overflow()), (750, 250, 0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UsageTracker {
    limit: u64,
    used: u64,
}

impl UsageTracker {
    /// A tracker of nothing used yet against `limit`.
    pub fn new(limit: u64) -> UsageTracker {
        UsageTracker { limit, used: 0 }
    }

    /// Counts `tokens` more.
    pub fn add(&mut self, tokens: u64) {
        self.used = self.used.saturating_add(tokens);
    }

    /// Counts `tokens` fewer (never below 0).
    pub fn remove(&mut self, tokens: u64) {
        self.used = self.used.saturating_sub(tokens);
    }

    /// Forgets everything counted.
    pub fn reset(&mut self) {
        self.used = 0;
    }

    /// Tokens counted.
    pub fn used(&self) -> u64 {
        self.used
    }

    /// The limit.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Tokens left before the limit (0 when over it).
    pub fn remaining(&self) -> u64 {
        self.limit.saturating_sub(self.used)
    }

    /// By how many tokens the limit is exceeded (0 when within it).
    pub fn overflow(&self) -> u64 {
        self.used.saturating_sub(self.limit)
    }

    /// Whether more is used than the limit allows.
    pub fn is_over_limit(&self) -> bool {
        self.used > self.limit
    }

    /// Share of the limit used, in percent (0 for a zero limit with nothing used, infinite
    /// for a zero limit with something used).
    pub fn usage_percent(&self) -> f64 {
        match (self.used, self.limit) {
            (0, _) => 0.0,
            (_, 0) => f64::INFINITY,
            (u, l) => u as f64 * 100.0 / l as f64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_model_gets_fallback_limits() {
        let l = ContextLimits::for_model("no-such-model-xyz");
        assert!(!l.is_known_model());
        assert!(l.context_window() > 0);
        assert!(l.effective_limit() < l.context_window());
    }

    #[test]
    fn allocations_larger_than_the_budget_leave_nothing() {
        let b = ContextBudget::new(1_000)
            .with_tools(800)
            .with_response_reserve(400);
        assert_eq!(b.available(), 0);
    }

    #[test]
    fn budget_from_limits_allocates_reply_and_reserve() {
        let l = ContextLimits::new(100_000, 4_096, 1_000);
        assert_eq!(
            ContextBudget::for_limits(&l).available(),
            l.effective_limit()
        );
    }

    #[test]
    fn zero_limit_usage() {
        let mut t = UsageTracker::new(0);
        assert_eq!(t.usage_percent(), 0.0);
        t.add(1);
        assert!(t.usage_percent().is_infinite());
    }
}
