//! Summarizers turn the middle of a session into the text of one summary message.
//!
//! - [`offline`]: deterministic and extractive, no network (the default);
//! - [`llm`]: asks an OpenAI- or Anthropic-compatible server.

#[cfg(feature = "llm")]
pub mod llm;
pub mod offline;
#[doc(hidden)]
pub mod recall;
#[doc(hidden)]
pub mod redact;
mod render;
#[doc(hidden)]
pub mod requests;

#[cfg(feature = "llm")]
pub use llm::{LlmConfig, LlmError, LlmSummarizer, Provider};
pub use offline::{Facts, Gist, OfflineSummarizer};
pub use render::{render_transcript, TranscriptOptions};

use std::sync::OnceLock;

use crate::session::previous_summaries;
use crate::session::Message;
use crate::tokens::Counter;

/// What to summarize.
#[derive(Debug, Clone)]
pub struct Input<'a> {
    /// The messages being replaced. Earlier summaries among them are not summarized again
    /// as conversation: their text is in [`Input::previous`].
    pub messages: &'a [Message],
    /// Bodies of earlier compaction summaries found in `messages`, oldest first.
    pub previous: Vec<String>,
    /// What the user asked the summary to focus on (`--instructions`).
    pub instructions: Option<String>,
    /// `--redact`: take secrets out of everything sent to a summarizer model and out of the
    /// summary ([`redact`]).
    pub redact: bool,
    /// The facts of `messages`, collected once for the summary and its self-check
    /// ([`Input::facts`]).
    facts: OnceLock<Facts>,
}

impl<'a> Input<'a> {
    /// The input for `messages`, with earlier summaries picked out.
    pub fn new(messages: &'a [Message]) -> Input<'a> {
        Input {
            messages,
            previous: previous_summaries(messages),
            instructions: None,
            redact: false,
            facts: OnceLock::new(),
        }
    }

    /// The input for `messages` from their gists (`gists`: theirs, in the same order),
    /// taken while their text was at hand ([`Gist::of`]): the messages may have had their
    /// text dropped since. Only for a summarizer that does not read the text
    /// ([`Summarizer::reads_text`]), and without [`Input::redact`] (which reads it).
    pub fn from_gists<'g>(
        messages: &'a [Message],
        gists: impl Iterator<Item = &'g Gist> + Clone,
    ) -> Input<'a> {
        Input {
            messages,
            previous: gists
                .clone()
                .filter_map(|g| g.summary().map(str::to_string))
                .collect(),
            instructions: None,
            redact: false,
            facts: OnceLock::from(offline::fold(gists)),
        }
    }

    /// The facts of [`Input::messages`] ([`offline::collect`]), collected on first use:
    /// the offline summary and the recall check read the same facts, and collecting them
    /// walks every message of a middle that can be most of a large session.
    pub fn facts(&self) -> &Facts {
        self.facts.get_or_init(|| offline::collect(self.messages))
    }

    /// Asks for secrets to be removed ([`Input::redact`]).
    pub fn with_redaction(mut self, redact: bool) -> Input<'a> {
        self.redact = redact;
        self
    }

    /// Runs `f` on this input, or with [`Input::redact`] on a copy whose messages, earlier
    /// summaries and instructions have their secrets removed.
    pub fn with_secrets_removed<T>(&self, f: impl FnOnce(&Input<'_>) -> T) -> T {
        if !self.redact {
            return f(self);
        }
        let messages: Vec<Message> = self.messages.iter().map(redact::message).collect();
        let clean = Input {
            messages: &messages,
            previous: self
                .previous
                .iter()
                .map(|p| redact::redact_string(p))
                .collect(),
            instructions: self.instructions.as_deref().map(redact::redact_string),
            redact: true,
            facts: OnceLock::new(),
        };
        f(&clean)
    }

    /// Asks the summary to focus on `instructions` (`--instructions`); blank is none.
    pub fn with_instructions(mut self, instructions: Option<String>) -> Input<'a> {
        self.instructions = instructions.filter(|s| !s.trim().is_empty());
        self
    }
}

/// Why a summary could not be made.
#[derive(Debug, thiserror::Error)]
pub enum SummarizeError {
    /// The LLM summarizer failed.
    #[cfg(feature = "llm")]
    #[error(transparent)]
    Llm(#[from] LlmError),
    /// A summarizer of the embedding program failed; the text says why.
    #[error("{0}")]
    Other(String),
}

/// Something that writes a summary of an [`Input`].
pub trait Summarizer {
    /// The name recorded in archives and reports (`offline`, `llm`).
    fn name(&self) -> &'static str;

    /// Whether the summary reads the messages' text, rather than only their facts
    /// ([`Input::facts`]) and earlier summaries ([`Input::previous`]): one that does not
    /// can be given an input made from gists ([`Input::from_gists`]), so that a large
    /// session's text goes as it is read.
    fn reads_text(&self) -> bool {
        true
    }

    /// The summary text (without the note `compact` wraps around it).
    fn summarize(&self, input: &Input<'_>, counter: &Counter) -> Result<String, SummarizeError>;
}
