//! The summarization prompt, fitted into the summarizer model's input window by leaving
//! out tool-result contents from the middle of the conversation outward.

use super::LlmError;
use crate::summarize::render::{count_results, render_transcript, TranscriptOptions};
use crate::summarize::Input;
use crate::tokens::Counter;

/// The system and user text of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    pub system: String,
    pub user: String,
    /// How many tool results were left out to fit.
    pub stripped: usize,
}

/// Framing tokens of a two-message request.
const OVERHEAD: usize = 16;

/// Shares of tool results left out, tried in turn.
const STRIP_STEPS: [usize; 5] = [0, 10, 20, 50, 100];

pub const SYSTEM: &str = "You summarize the earlier part of a conversation between a user and \
an AI assistant. The assistant will continue the work with only your summary and the most recent \
messages, so the summary is its only memory of what came before. Be factual and specific: keep \
file paths, commands, identifiers, error messages and numbers exactly as written. Do not invent \
anything; if something is unclear, say so. Answer with the summary only, in Markdown, without a \
preamble.";

/// The sections asked for: those of the offline summary, in the spirit of the nine an
/// agent's own compaction writes (intent, decisions and corrections, files, errors and
/// their fixes, pending work, current work, the next step). Kept as titles for tests.
pub const SECTION_TITLES: [&str; 8] = [
    "Primary request and intent",
    "Decisions and corrections",
    "Files",
    "Commands and tool calls",
    "Errors and their resolution",
    "Pending work",
    "Current work",
    "Next step",
];

const SECTIONS: &str = "Summarize the conversation below in these sections, each a Markdown \
heading with its title:
1. Primary request and intent: the user's goal (quote the first request), constraints and \
preferences, and every later request in a line (its first words verbatim).
2. Decisions and corrections: where the user redirected the work (\"no, use X\", \"don't touch \
Y\", \"actually …\", \"… instead\") and what the assistant decided, and why, each with where it \
happened (which request).
3. Files: every file read, created, modified or deleted, with what changed.
4. Commands and tool calls: the commands and tools run, and what came of them.
5. Errors and their resolution: each error with its key line; if a later retry or change fixed \
it, say resolved and name the fix; otherwise say it is unresolved. A user declining or \
interrupting a tool call is not an error.
6. Pending work: open items of a todo list if one was kept, otherwise open requests and \
unresolved errors. Say \"none\" if nothing is open.
7. Current work: the current task (the last real request, not a one-word \"ok\" or \"done\"; \
quote it verbatim) and what was in progress when the conversation was cut.
8. Next step: the next step as the conversation states it (the assistant's \"next I will …\"); \
if it states none, say so.";

/// The prompt for `input`, leaving out 0, 10, 20, 50 and then 100% of the tool results'
/// contents (those nearest the middle of the conversation first) until it fits
/// `max_input_tokens`.
pub fn build(
    input: &Input<'_>,
    counter: &Counter,
    max_input_tokens: usize,
) -> Result<Prompt, LlmError> {
    let results = count_results(input.messages);
    let mut tokens = 0;
    for pct in STRIP_STEPS {
        let k = (results * pct).div_ceil(100);
        let opts = TranscriptOptions {
            stripped_results: middle_out(results, k),
        };
        let user = user_text(input, &render_transcript(input.messages, &opts));
        tokens = counter.text(SYSTEM) + counter.text(&user) + OVERHEAD;
        if tokens <= max_input_tokens {
            return Ok(Prompt {
                system: SYSTEM.to_string(),
                user,
                stripped: k,
            });
        }
        if results == 0 {
            break;
        }
    }
    Err(LlmError::TooLarge {
        tokens,
        limit: max_input_tokens,
    })
}

/// Tokens of the request for `input` with an empty conversation: what every chunk's
/// request carries besides its messages.
pub(super) fn overhead(input: &Input<'_>, counter: &Counter) -> usize {
    counter.text(SYSTEM) + counter.text(&user_text(input, "")) + OVERHEAD
}

/// Tokens of `prompt` as sent.
pub(super) fn tokens(prompt: &Prompt, counter: &Counter) -> usize {
    counter.text(&prompt.system) + counter.text(&prompt.user) + OVERHEAD
}

/// The request merging `partials`, summaries of consecutive parts of one conversation
/// (oldest first), into one summary in the usual sections.
pub(super) fn merge(partials: &[String], input: &Input<'_>) -> Prompt {
    let mut parts = String::new();
    for (i, p) in partials.iter().enumerate() {
        parts.push_str(&format!("<part n=\"{}\">\n{}\n</part>\n", i + 1, p.trim()));
    }
    let mut user = String::from(
        "The conversation was too long to summarize at once. Below are summaries of its \
         consecutive parts, oldest first: merge them into one summary, keeping every file path, \
         command, error and user request they mention.\n\n",
    );
    let rest = user_text(input, "");
    // The sections, instructions and earlier summary, without the empty conversation.
    user.push_str(
        rest.trim_end()
            .trim_end_matches("<conversation>\n</conversation>")
            .trim_end(),
    );
    user.push_str("\n\n<parts>\n");
    user.push_str(&parts);
    user.push_str("</parts>");
    Prompt {
        system: SYSTEM.to_string(),
        user,
        stripped: 0,
    }
}

/// The `k` indices of `0..n` nearest its middle (ties: the earlier one first).
pub fn middle_out(n: usize, k: usize) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..n).collect();
    // Distance from the centre, doubled to stay in integers.
    idx.sort_by_key(|&i| ((2 * i).abs_diff(n.saturating_sub(1)), i));
    idx.truncate(k);
    idx.sort_unstable();
    idx
}

fn user_text(input: &Input<'_>, transcript: &str) -> String {
    let mut out = String::from(SECTIONS);
    if let Some(extra) = &input.instructions {
        out.push_str("\n\nAdditional instructions from the user:\n");
        out.push_str(extra.trim());
    }
    if !input.previous.is_empty() {
        out.push_str(
            "\n\nThe conversation was summarized before. Carry the earlier summary forward \
             first, before new details: its intent, decisions and pending work, and every file \
             path and `code` span it names that is still relevant:\n<earlier_summary>\n",
        );
        out.push_str(&input.previous.join("\n\n---\n\n"));
        out.push_str("\n</earlier_summary>");
    }
    out.push_str("\n\n<conversation>\n");
    out.push_str(transcript);
    out.push_str("</conversation>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{Message, Origin, Part, Role};
    use crate::summarize::render::STRIPPED;
    use crate::tokens::{Encoding, Tokenizer};

    #[test]
    fn middle_out_starts_at_the_centre() {
        assert_eq!(middle_out(10, 2), [4, 5]);
        assert_eq!(middle_out(10, 1), [4]);
        assert_eq!(middle_out(5, 3), [1, 2, 3]);
        assert_eq!(middle_out(3, 0), Vec::<usize>::new());
        assert_eq!(middle_out(4, 4), [0, 1, 2, 3]);
    }

    fn session(results: usize) -> Vec<Message> {
        let mut msgs = vec![Message::new(
            Role::User,
            vec![Part::Text("the goal".into())],
            Origin::Record(0),
        )];
        for i in 0..results {
            let call = Part::ToolCall {
                id: format!("c{i}"),
                name: "read".into(),
                arguments: "{}".into(),
            };
            let result = Part::ToolResult {
                call_id: format!("c{i}"),
                content: vec![Part::Text(format!("result{i} ").repeat(100))],
                is_error: false,
            };
            msgs.push(Message::new(Role::Assistant, vec![call], Origin::Record(0)));
            msgs.push(Message::new(Role::Tool, vec![result], Origin::Record(0)));
        }
        msgs
    }

    #[test]
    fn strips_results_from_the_middle_until_it_fits() {
        let c = Counter::new(Tokenizer::new(Encoding::Approx).unwrap());
        let msgs = session(10);
        let input = Input::new(&msgs).with_instructions(Some("focus on X".into()));
        let whole = build(&input, &c, usize::MAX).unwrap();
        assert_eq!(whole.stripped, 0);
        assert!(whole
            .user
            .contains("Additional instructions from the user:\nfocus on X"));
        let full = c.text(&whole.user) + c.text(SYSTEM) + OVERHEAD;
        // Each result is ~200 tokens: 20% left out saves too little, 50% (the middle ones) fits.
        let p = build(&input, &c, full - 800).unwrap();
        assert_eq!(p.stripped, 5);
        for i in [0, 1, 7, 8, 9] {
            assert!(p.user.contains(&format!("result{i} ")), "result{i} kept");
        }
        for i in 2..7 {
            assert!(
                !p.user.contains(&format!("result{i} ")),
                "result{i} removed"
            );
        }
        assert_eq!(p.user.matches(STRIPPED).count(), 5);
        let e = build(&input, &c, 50).unwrap_err();
        assert!(matches!(e, LlmError::TooLarge { limit: 50, .. }), "{e}");
    }
}
