//! How many tokens a loaded session takes, reconciled with what its provider reported.

use crate::ops::load::Loaded;
use crate::render::json::Reported;
use crate::session::ReportedUsage;

/// The provider-reported usage beside ctxctl's count of the same messages.
pub fn reported(l: &Loaded) -> Option<Reported> {
    reported_of(l.live_usage(), &l.counts)
}

/// `usage` beside ctxctl's count of the same messages (`counts`: each message's tokens).
pub fn reported_of(usage: Option<&ReportedUsage>, counts: &[usize]) -> Option<Reported> {
    let r = usage?;
    let upto = r
        .after_message
        .map_or(counts.len(), |i| (i + 1).min(counts.len()));
    let ours = crate::tokens::Counter::total(&counts[..upto]) as i64;
    Some(Reported {
        input_tokens: r.input_tokens,
        output_tokens: r.output_tokens,
        difference: ours - r.input_tokens as i64,
    })
}
