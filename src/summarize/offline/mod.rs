//! The offline summarizer: a structured, extractive summary with no network and no
//! randomness. The same messages always give the same text, byte for byte.
//!
//! Sections, in output order: earlier summaries carried forward (their body and specific
//! items first, [`carry`]), every request of the user verbatim (the oldest shortened first
//! when they outgrow half the cap), files read/created/modified/deleted, commands run and
//! their outcome, tool calls per tool with failures, errors and whether and how they were
//! resolved, decisions and the user's corrections, pending work, the next step (`state.rs`)
//! and the state at the cut (current task, last tool call, the assistant's last words).
//! When the text would exceed the cap, the least important sections are shortened first.

mod carry;
#[doc(hidden)]
pub mod facts;
pub(crate) mod fit;
mod patterns;
mod searches;
mod state;
#[doc(hidden)]
pub mod tools;

#[doc(hidden)]
pub use facts::{collect, fold, ErrorSeen, Facts, FileFate, Gist, Outcome};

use fit::Section;
use std::borrow::Cow;

use super::{Input, SummarizeError, Summarizer};
use crate::session::Role;
use crate::tokens::Counter;

/// The default cap on the summary, in tokens.
pub const DEFAULT_CAP: usize = 2000;

/// The offline summarizer, fitting its summary into `cap` tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OfflineSummarizer {
    /// The most tokens the summary may take.
    pub cap: usize,
}

impl Default for OfflineSummarizer {
    fn default() -> Self {
        OfflineSummarizer { cap: DEFAULT_CAP }
    }
}

impl Summarizer for OfflineSummarizer {
    fn name(&self) -> &'static str {
        "offline"
    }

    fn reads_text(&self) -> bool {
        false
    }

    fn summarize(&self, input: &Input<'_>, counter: &Counter) -> Result<String, SummarizeError> {
        let summary = input.with_secrets_removed(|i| summarize(i, counter, self.cap));
        Ok(if input.redact {
            super::redact::redact_string(&summary)
        } else {
            summary
        })
    }
}

/// The offline summary of `input` within `cap` tokens (as `counter` counts them).
pub fn summarize(input: &Input<'_>, counter: &Counter, cap: usize) -> String {
    let f = input.facts();
    let mut sections = Vec::new();
    let verbatim = |title, text: &Option<String>, share: usize| {
        text.as_ref()
            .map(|t| Section::text(title, fit::clamp(t, counter, cap / share)))
    };
    if !input.previous.is_empty() {
        let text = input.previous.join("\n\n---\n\n");
        sections.push(Section::text(
            EARLIER,
            carry::carried(&text, counter, cap / 2),
        ));
    }
    sections.push(Section::text(REQUESTS, requests(&f.requests, counter, cap)));
    sections.push(Section::list("Files", files(f), false));
    sections.push(Section::list("Commands run", commands(f), true));
    sections.push(Section::list("Tool calls", tool_stats(f), false));
    sections.push(Section::list(ERRORS, errors(f), true));
    // The assistant's decisions, then the user's corrections (kept last when shortened).
    let decisions =
        (f.decisions.iter().map(|d| fit::one_line(d, 300))).chain(state::corrections(&f.requests));
    sections.push(Section::list(DECISIONS, decisions, true));
    sections.push(Section::list(PENDING, state::pending(f), false));
    if let Some(next) = state::next_step(f) {
        sections.push(Section::text(NEXT, next));
    }
    sections.extend(verbatim(STATE, &state(f), 5));
    sections.retain(|s| !s.is_empty());
    // Least important first: the facts the next turn needs most (paths, commands, errors)
    // go after the assistant's last words, the user's requests last.
    let order = [
        "Tool calls",
        STATE,
        DECISIONS,
        PENDING,
        EARLIER,
        ERRORS,
        "Commands run",
        "Files",
        NEXT,
        REQUESTS,
    ];
    fit::fit(&header(f), &mut sections, &order, counter, cap)
}

/// A request cut to `limit` characters: its head and tail down to 400, its head alone
/// below (the words a request starts with say the most; the marker costs less).
fn shorten_request(text: &str, limit: usize) -> String {
    if limit >= 400 {
        return fit::shorten(text, limit);
    }
    format!("{} […]", fit::prefix_chars(text, limit).trim_end())
}

/// The title of the section on the work in progress at the cut.
pub const STATE: &str = "State at the cut";
/// The title of the section of earlier summaries carried forward.
const EARLIER: &str = "Earlier summary (carried forward)";
/// The title of the section of errors and how each ended.
const ERRORS: &str = "Errors and fixes";
/// The title of the section of the assistant's decisions and the user's corrections.
const DECISIONS: &str = "Decisions and corrections";
/// The title of the section of work still open.
const PENDING: &str = "Pending work";
/// The title of the section of what comes next.
const NEXT: &str = "Next step";

/// The current task, the last tool call and the assistant's last words.
fn state(f: &Facts) -> Option<String> {
    let mut out = Vec::new();
    out.extend(state::task_line(&f.requests));
    if let Some(c) = &f.last_call {
        out.push(format!("Last tool call: {c}"));
    }
    if let Some(s) = &f.status {
        out.push(format!("Last status from the assistant:\n{s}"));
    }
    (!out.is_empty()).then(|| out.join("\n"))
}

/// The title of the section of the user's requests.
pub const REQUESTS: &str = "User requests (verbatim, oldest first)";

/// Characters the oldest requests are shortened to, in turn, when the requests together
/// outgrow half the cap.
const REQUEST_LIMITS: [usize; 3] = [400, 160, 60];

/// The user's requests, numbered, each verbatim up to a quarter of `cap`; when together
/// they outgrow half of it, the oldest are shortened first (to 400, then 160, then 60
/// characters, head and tail kept), the latest only when all the others are at 60.
fn requests(reqs: &[String], counter: &Counter, cap: usize) -> String {
    let n = reqs.len();
    // Every request costs at least 2: with more than a quarter of the cap's requests the
    // total never gets down to half of it and every step is taken, whatever the counts
    // (thousands of requests in a large middle): each request goes to its shortest.
    if 2 * n > cap / 2 {
        return numbered(reqs.iter().map(|r| {
            if clamp_is_moot(r, counter, cap / 4) {
                shortest(r.trim())
            } else {
                shortest(&fit::clamp(r, counter, cap / 4))
            }
        }));
    }
    let texts: Vec<String> = reqs
        .iter()
        .map(|r| fit::clamp(r, counter, cap / 4))
        .collect();
    if never_half(&texts, counter, cap / 2) {
        return numbered(texts.iter().map(|t| shortest(t)));
    }
    numbered(stepped(texts, counter, cap))
}

/// Whether the requests `texts` (clamped) cost more than `half` tokens whatever shortening
/// steps are taken, so that every step is: each costs at least 2, one of no more than 60
/// characters (never shortened) what it counts, and every shortening of a longer one
/// starts with its first 60 characters (see [`shortest`]), which tell the fewest tokens
/// it can have ([`Counter::floor`]).
fn never_half(texts: &[String], counter: &Counter, half: usize) -> bool {
    let mut least = 2 * texts.len();
    for t in texts {
        if least > half {
            return true;
        }
        let head = fit::prefix_chars(t, REQUEST_LIMITS[2]);
        least += if head.len() == t.len() {
            counter.text(t)
        } else {
            counter.floor(head.trim_end())
        };
    }
    least > half
}

/// The requests `texts` (clamped) shortened step by step, the earlier through every limit
/// first, until together they cost no more than half of `cap`.
fn stepped(mut texts: Vec<String>, counter: &Counter, cap: usize) -> Vec<String> {
    let n = texts.len();
    let cost = |t: &str| counter.text(t) + 2;
    let mut total: usize = texts.iter().map(|t| cost(t)).sum();
    // The earlier requests through every limit first, then the latest.
    let steps = (REQUEST_LIMITS.iter())
        .flat_map(|&l| (0..n.saturating_sub(1)).map(move |i| (l, i)))
        .chain(REQUEST_LIMITS.iter().map(|&l| (l, n.saturating_sub(1))));
    for (limit, i) in steps {
        if total <= cap / 2 || n == 0 {
            break;
        }
        let t = &mut texts[i];
        if t.chars().count() > limit {
            let short = shorten_request(t, limit);
            total = total - cost(t) + cost(&short);
            *t = short;
        }
    }
    texts
}

/// The requests numbered from 1, a line each.
fn numbered<S: AsRef<str>>(texts: impl IntoIterator<Item = S>) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for (i, t) in texts.into_iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let _ = write!(out, "{}. {}", i + 1, t.as_ref());
    }
    out
}

/// What every shortening step makes of a request: past 160 characters its first 160
/// decide (shortened to 400 it keeps its first 266, to 160 its first 160, to 60 the first
/// 60 of those), so it need not be shortened to 400 first.
fn shortest(text: &str) -> String {
    let [_, mid, least] = REQUEST_LIMITS;
    let longer = |text: &str, limit| fit::prefix_chars(text, limit).len() < text.len();
    let text = if longer(text, mid) {
        Cow::Owned(shorten_request(text, mid))
    } else {
        Cow::Borrowed(text)
    };
    if longer(&text, least) {
        shorten_request(&text, least)
    } else {
        text.into_owned()
    }
}

/// Whether a request that goes through every shortening step ends the same clamped to
/// `tokens` as not, known without counting it. A request of over 160 characters ends as
/// its first 160 decide (see [`shortest`]), and a clamp keeps the first two thirds of
/// `chars * tokens / count` characters: 160 or more when that share is 240 or more, as it
/// is when even the most tokens the text can have ([`Counter::at_most`]) leave it there.
fn clamp_is_moot(request: &str, counter: &Counter, tokens: usize) -> bool {
    let text = request.trim();
    let chars = text.chars().count();
    chars > REQUEST_LIMITS[1] && chars * tokens >= 240 * counter.at_most(text)
}

fn header(f: &Facts) -> String {
    let n: usize = f.roles.values().sum();
    let by_role: Vec<String> = Role::ALL
        .iter()
        .filter_map(|r| f.roles.get(r).map(|c| format!("{c} {r}")))
        .collect();
    let mut h = format!(
        "Offline summary of {n} earlier message{}",
        if n == 1 { "" } else { "s" }
    );
    if !by_role.is_empty() {
        h.push_str(&format!(" ({})", by_role.join(", ")));
    }
    h.push('.');
    h
}

/// Paths this many to a line of the files section.
const PATHS_PER_LINE: usize = 8;

/// The files by fate (deleted, created, modified, read), a few paths to a line.
fn files(f: &Facts) -> Vec<String> {
    let mut out = Vec::new();
    for fate in [
        FileFate::Deleted,
        FileFate::Created,
        FileFate::Modified,
        FileFate::Read,
    ] {
        let paths: Vec<&str> = (f.files.iter())
            .filter(|(_, x)| *x == fate)
            .map(|(p, _)| p.as_str())
            .collect();
        for chunk in paths.chunks(PATHS_PER_LINE) {
            out.push(format!("{}: {}", fate.name(), chunk.join(", ")));
        }
    }
    out
}

fn commands(f: &Facts) -> Vec<String> {
    // Consecutive repeats with the same outcome are shown once.
    let mut out: Vec<(String, usize)> = Vec::new();
    for (cmd, outcome) in &f.commands {
        let line = format!("`{}` → {}", fit::one_line(cmd, 200), outcome.describe());
        match out.last_mut() {
            Some((last, n)) if *last == line => *n += 1,
            _ => out.push((line, 1)),
        }
    }
    out.into_iter()
        .map(|(l, n)| if n > 1 { format!("{l} (×{n})") } else { l })
        .collect()
}

fn tool_stats(f: &Facts) -> Vec<String> {
    let mut tools: Vec<(&String, &(usize, usize))> = f.tools.iter().collect();
    tools.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.0.cmp(b.0)));
    tools
        .into_iter()
        .map(|(name, (calls, failed))| {
            let s = if *calls == 1 { "" } else { "s" };
            match failed {
                0 => format!("{name}: {calls} call{s}"),
                n => format!("{name}: {calls} call{s}, {n} failed"),
            }
        })
        .collect()
}

fn errors(f: &Facts) -> Vec<String> {
    f.errors
        .iter()
        .map(|e| {
            let mut s = e.tool.clone();
            if let Some(t) = &e.target {
                s.push_str(&format!(" `{}`", fit::one_line(t, 120)));
            }
            s.push_str(&format!(": {}", fit::one_line(&e.line, 200)));
            if e.times > 1 {
                s.push_str(&format!(" (×{})", e.times));
            }
            if !e.resolved {
                s.push_str(" — not seen resolved");
            } else if let (Some(r), true) = (&e.retry, e.fixed_by.is_empty()) {
                s.push_str(&format!(
                    " — resolved: `{}` succeeded",
                    fit::one_line(r, 120)
                ));
            } else if e.fixed_by.is_empty() {
                s.push_str(" — resolved: succeeded on a later try");
            } else {
                s.push_str(&format!(
                    " — resolved: succeeded after changes to {}",
                    e.fixed_by.join(", ")
                ));
            }
            s
        })
        .collect()
}

#[cfg(test)]
mod tests;
