//! How many tokens a loaded session takes, reconciled with what its provider reported.

use crate::ops::load::Loaded;
use crate::render::json::Reported;
use crate::session::ReportedUsage;
use crate::tokens::Counter;

/// The tokens the model will see: the latest provider-reported usage plus ctxctl's count
/// of what came after it, when the file records usage; ctxctl's own count otherwise.
pub fn context_tokens(usage: Option<&ReportedUsage>, counts: &[usize]) -> usize {
    match usage {
        Some(r) => {
            let after = r.after_message.map_or(counts.len(), |i| i + 1);
            let rest: usize = counts.get(after..).map_or(0, |c| c.iter().sum());
            (r.input_tokens + r.output_tokens) as usize + rest
        }
        None => Counter::total(counts),
    }
}

/// The provider-reported usage beside ctxctl's count of the same messages.
pub fn reported(l: &Loaded) -> Option<Reported> {
    let r = l.live_usage()?;
    let upto = r
        .after_message
        .map_or(l.counts.len(), |i| (i + 1).min(l.counts.len()));
    let ours = crate::tokens::Counter::total(&l.counts[..upto]) as i64;
    Some(Reported {
        input_tokens: r.input_tokens,
        output_tokens: r.output_tokens,
        difference: ours - r.input_tokens as i64,
    })
}
