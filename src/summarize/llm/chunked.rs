//! Middles too large for the summarizer's window even with every tool result left out:
//! summarized in chunks, each request within the window, and the chunks' summaries merged
//! (map-reduce), in groups that fit when they do not all fit at once.

use super::{prompt, LlmError, LlmSummarizer};
use crate::session::{pairs, Message};
use crate::summarize::offline::fit;
use crate::summarize::Input;
use crate::tokens::Counter;

/// Room a chunk's messages need at least besides the fixed part of its request.
const MIN_ROOM: usize = 64;

impl LlmSummarizer {
    /// The summary of `input`: one request when it fits the window, else map-reduce.
    pub(super) fn any_size(
        &self,
        input: &Input<'_>,
        counter: &Counter,
    ) -> Result<String, LlmError> {
        let limit = self.config.max_input_tokens;
        match prompt::build(input, counter, limit) {
            Ok(p) => return self.complete(&p).0,
            Err(LlmError::TooLarge { .. }) => {}
            Err(e) => return Err(e),
        }
        let chunk = |messages| Input {
            messages,
            previous: Vec::new(),
            instructions: input.instructions.clone(),
            redact: false,
            facts: Default::default(),
        };
        let fixed = prompt::overhead(&chunk(&[]), counter).max(prompt::overhead(input, counter));
        if fixed + MIN_ROOM > limit {
            return Err(LlmError::TooLarge {
                tokens: fixed + MIN_ROOM,
                limit,
            });
        }
        let mut partials = Vec::new();
        self.map(input.messages, &chunk, counter, &mut partials)?;
        self.reduce(partials, input, counter)
    }

    /// Summarizes `messages` into `out`, halving them at a tool-pair boundary until each
    /// part's request fits; a single message too large alone is shortened (head and tail
    /// kept) until it does.
    fn map<'m>(
        &self,
        messages: &'m [Message],
        chunk: &dyn Fn(&'m [Message]) -> Input<'m>,
        counter: &Counter,
        out: &mut Vec<String>,
    ) -> Result<(), LlmError> {
        let limit = self.config.max_input_tokens;
        match prompt::build(&chunk(messages), counter, limit) {
            Ok(p) => {
                out.push(self.complete(&p).0?);
                return Ok(());
            }
            Err(LlmError::TooLarge { .. }) => {}
            Err(e) => return Err(e),
        }
        if messages.len() > 1 {
            let at = split_point(messages);
            self.map(&messages[..at], chunk, counter, out)?;
            return self.map(&messages[at..], chunk, counter, out);
        }
        let mut chars = limit.saturating_mul(3);
        while chars >= 16 {
            let m = &messages[0];
            let mut short = m.clone();
            short.parts = m
                .parts
                .iter()
                .map(|p| p.map_text(&|t| fit::shorten(t, chars)))
                .collect();
            let one = [short];
            let input = Input {
                messages: &one,
                facts: Default::default(),
                ..chunk(&[])
            };
            if let Ok(p) = prompt::build(&input, counter, limit) {
                out.push(self.complete(&p).0?);
                return Ok(());
            }
            chars /= 2;
        }
        Err(LlmError::TooLarge {
            tokens: counter.text(&messages[0].text()),
            limit,
        })
    }

    /// Merges the chunks' summaries (and earlier summaries) into one, in rounds of groups
    /// that fit the window, each part shortened to half the room when even two do not.
    fn reduce(
        &self,
        mut partials: Vec<String>,
        input: &Input<'_>,
        counter: &Counter,
    ) -> Result<String, LlmError> {
        let limit = self.config.max_input_tokens;
        let bare = Input {
            previous: Vec::new(),
            ..input.clone()
        };
        // Earlier summaries are merged as the oldest parts.
        let mut all_parts = input.previous.clone();
        all_parts.append(&mut partials);
        let mut partials = all_parts;
        for _ in 0..64 {
            let all = prompt::merge(&partials, &bare);
            if prompt::tokens(&all, counter) <= limit {
                return self.complete(&all).0;
            }
            let fixed = prompt::tokens(&prompt::merge(&[], &bare), counter) + 8;
            let room = limit.saturating_sub(fixed).max(1);
            let mut groups: Vec<Vec<String>> = Vec::new();
            let mut used = 0;
            for p in partials {
                let p = fit::clamp(&p, counter, room / 2);
                let n = counter.text(&p) + 8;
                match groups.last_mut() {
                    Some(g) if used + n <= room => {
                        g.push(p);
                        used += n;
                    }
                    _ => {
                        groups.push(vec![p]);
                        used = n;
                    }
                }
            }
            if groups.len() == 1 {
                // Shortened to half the room each: they fit together now.
                partials = groups.pop().unwrap_or_default();
                continue;
            }
            let mut next = Vec::new();
            for g in groups {
                if g.len() == 1 {
                    next.extend(g);
                } else {
                    next.push(self.complete(&prompt::merge(&g, &bare)).0?);
                }
            }
            partials = next;
        }
        Err(LlmError::TooLarge {
            tokens: partials.iter().map(|p| counter.text(p)).sum(),
            limit,
        })
    }
}

/// Where to halve `messages`: the start of the pairing unit nearest the middle (never 0),
/// or the middle itself when one unit spans them all.
fn split_point(messages: &[Message]) -> usize {
    let half = messages.len() / 2;
    pairs::units(messages)
        .iter()
        .map(|u| u.start)
        .filter(|&s| s > 0)
        .min_by_key(|&s| (s.abs_diff(half), s))
        .unwrap_or(half.max(1))
}
