//! The context manager of an agent loop: feed it the conversation message by message, ask
//! it for what to send, and it keeps the request inside the model's window.
//!
//! ```
//! use ctxctl::{ContextManager, Message, Mode};
//!
//! let mut cm = ContextManager::for_model("gpt-4o").with_mode(Mode::Smart);
//! cm.set_system_prompt("You are a careful coding agent.");
//! cm.add_message(Message::user("Fix the failing test in src/lib.rs"));
//! cm.add_message(Message::tool_calls([("c1", "read_file", r#"{"path":"src/lib.rs"}"#)]));
//! cm.add_message(Message::tool_result("c1", "pub fn add(a: i32, b: i32) -> i32 { a - b }"));
//!
//! let request = cm.context_for_request();
//! assert_eq!(request.len(), 4); // the system prompt first, then the conversation
//! assert!(!cm.is_near_limit());
//! println!("{:.2}% of the window used", cm.stats().usage_percent);
//! ```

mod apply;
mod build;
mod limits;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::fmt;
use std::time::SystemTime;

pub use limits::{ContextBudget, ContextLimits, UsageTracker};

use crate::archive::Timestamp;
use crate::compact::{self, CompactInfo};
use crate::session::{Message, Role};
use crate::strategy::{self, Options, StrategyKind};
use crate::summarize::{Input, OfflineSummarizer, Summarizer};
use crate::tokens::{Counter, Encoding};

/// The share of the limit at which [`ContextManager::is_near_limit`] says yes.
pub const DEFAULT_NEAR_LIMIT: f64 = 0.8;

/// The share of the limit an automatic trim brings the conversation down to, so that the
/// next messages fit without trimming again at once.
pub const DEFAULT_TRIM_TARGET: f64 = 0.8;

/// The share of the limit a compaction keeps verbatim as the recent tail (as
/// `ctxctl compact`'s default `--tail-ratio`).
pub const DEFAULT_TAIL_RATIO: f64 = 0.2;

/// How the manager makes room when the window would overflow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Keep the most recent messages that fit (oldest dropped first, tool calls and their
    /// results together).
    #[default]
    SlidingWindow,
    /// Keep the first and last messages with a `[N messages omitted]` marker between
    /// them, then drop the oldest if that is not enough.
    Smart,
    /// Summarize the middle of the conversation (the system prompt and a recent tail kept
    /// verbatim), then drop the oldest if that is not enough.
    Summarize,
}

impl Mode {
    /// `sliding-window`, `smart` or `summarize`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::SlidingWindow => "sliding-window",
            Mode::Smart => "smart",
            Mode::Summarize => "summarize",
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What [`ContextManager::add_message`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct Added {
    /// Tokens of the message added.
    pub tokens: usize,
    /// The trim or compaction that made room for it, if one ran.
    pub made_room: Option<Room>,
}

/// How room was made in the window.
#[derive(Debug, Clone, PartialEq)]
pub struct Room {
    /// Messages before and after.
    pub messages_before: usize,
    /// Messages after making room.
    pub messages_after: usize,
    /// Tokens before making room.
    pub tokens_before: usize,
    /// Tokens after making room.
    pub tokens_after: usize,
    /// Whether the conversation now fits its limit (`false` when the system prompt and
    /// pinned messages alone do not).
    pub fits: bool,
    /// A summary replaced part of the conversation.
    pub summarized: bool,
}

/// The outcome of [`ContextManager::compact_if_needed`].
#[derive(Debug, Clone, PartialEq)]
pub enum Compaction {
    /// Nothing was done: usage is below the threshold, or nothing can be summarized.
    Skipped {
        /// Why, in a few words.
        reason: &'static str,
    },
    /// The middle of the conversation was replaced by a summary.
    Compacted {
        /// The size change.
        room: Room,
        /// Messages the summary replaced.
        summarized_messages: usize,
        /// The summarizer that wrote it (`offline` when the configured one failed).
        summarizer: &'static str,
        /// Why the configured summarizer failed, when the offline one stood in.
        fallback: Option<String>,
    },
}

/// Why the manager could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum ManagerError {
    /// The summarizer failed and falling back to the offline one was turned off.
    #[error("the {summarizer} summarizer failed: {message}")]
    Summarizer {
        /// Its name.
        summarizer: &'static str,
        /// What went wrong.
        message: String,
    },
    /// A threshold outside 0..=1.
    #[error("threshold {0} is outside 0..=1")]
    Threshold(f64),
}

/// A snapshot of the manager's state.
#[derive(Debug, Clone, PartialEq)]
pub struct Stats {
    /// The model the limits are for (as given).
    pub model: String,
    /// The mode.
    pub mode: Mode,
    /// The tokenizer counting the messages.
    pub encoding: Encoding,
    /// Messages held, the system prompt included.
    pub message_count: usize,
    /// Tokens of the request as it stands: the system prompt, the messages and the
    /// reply priming.
    pub tokens_used: usize,
    /// The effective limit.
    pub limit: usize,
    /// Tokens left under the limit.
    pub available: usize,
    /// `tokens_used` as a percentage of the limit.
    pub usage_percent: f64,
    /// Times room was made (trims and compactions).
    pub times_made_room: usize,
}

/// Keeps an agent loop's conversation inside a model's window. See the
/// [module documentation](self) for an example.
pub struct ContextManager {
    model: String,
    limits: ContextLimits,
    counter: Counter,
    mode: Mode,
    auto_truncate: bool,
    trim_target: f64,
    near_limit: f64,
    tail_ratio: f64,
    fallback: bool,
    summarizer: Box<dyn Summarizer + Send + Sync>,
    /// The system prompt (when set) first, then the conversation.
    messages: Vec<Message>,
    counts: Vec<usize>,
    has_system: bool,
    sum: usize,
    times_made_room: usize,
}

impl fmt::Debug for ContextManager {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ContextManager")
            .field("model", &self.model)
            .field("limits", &self.limits)
            .field("mode", &self.mode)
            .field("messages", &self.messages.len())
            .field("tokens", &self.tokens_used())
            .finish_non_exhaustive()
    }
}

impl ContextManager {
    /// A manager for `model`: its limits from the registry (fallback limits for an unknown
    /// model: check [`ContextLimits::is_known_model`] on [`ContextManager::limits`]), its
    /// tokenizer (exact for OpenAI models, `cl100k_base` as an estimate for others), the
    /// sliding-window mode, automatic truncation on, the offline summarizer.
    ///
    /// ```
    /// use ctxctl::ContextManager;
    /// let cm = ContextManager::for_model("gpt-4o");
    /// assert_eq!(cm.limits().context_window(), 128_000);
    /// assert_eq!(cm.stats().encoding, ctxctl::Encoding::O200kBase);
    /// ```
    pub fn for_model(model: &str) -> ContextManager {
        let resolution = crate::models::Registry::builtin().resolve(model);
        let encoding = resolution.spec.encoding;
        ContextManager::new(model, ContextLimits::of(resolution), encoding)
    }

    /// A manager with the given limits and tokenizer.
    ///
    /// ```
    /// use ctxctl::{ContextLimits, ContextManager, Encoding};
    /// let cm = ContextManager::new("my-model", ContextLimits::new(32_000, 4_000, 0), Encoding::Cl100kBase);
    /// assert_eq!(cm.limit(), 28_000);
    /// ```
    pub fn new(model: &str, limits: ContextLimits, encoding: Encoding) -> ContextManager {
        ContextManager {
            model: model.to_string(),
            limits,
            counter: Counter::lazy(encoding),
            mode: Mode::default(),
            auto_truncate: true,
            trim_target: DEFAULT_TRIM_TARGET,
            near_limit: DEFAULT_NEAR_LIMIT,
            tail_ratio: DEFAULT_TAIL_RATIO,
            fallback: true,
            summarizer: Box::new(OfflineSummarizer::default()),
            messages: Vec::new(),
            counts: Vec::new(),
            has_system: false,
            sum: 0,
            times_made_room: 0,
        }
    }

    /// How room is made when the window would overflow.
    pub fn with_mode(mut self, mode: Mode) -> ContextManager {
        self.mode = mode;
        self
    }

    /// Whether [`ContextManager::add_message`] makes room by itself (default on). Off, the
    /// conversation grows past the limit and [`ContextManager::context_for_request`]
    /// trims a copy.
    pub fn with_auto_truncate(mut self, on: bool) -> ContextManager {
        self.auto_truncate = on;
        self
    }

    /// Other limits (a smaller window, a reserve for tool definitions).
    pub fn with_limits(mut self, limits: ContextLimits) -> ContextManager {
        self.limits = limits;
        self
    }

    /// The share of the limit (0..=1) that making room brings the conversation down to
    /// (default [`DEFAULT_TRIM_TARGET`]).
    pub fn with_trim_target(mut self, share: f64) -> ContextManager {
        self.trim_target = share.clamp(0.0, 1.0);
        self
    }

    /// The share of the limit (0..=1) from which [`ContextManager::is_near_limit`] is true
    /// (default [`DEFAULT_NEAR_LIMIT`]).
    pub fn with_near_limit(mut self, share: f64) -> ContextManager {
        self.near_limit = share.clamp(0.0, 1.0);
        self
    }

    /// The summarizer compactions use (default: the offline one, which needs no network).
    /// The `llm` feature's `LlmSummarizer` implements [`Summarizer`] too.
    pub fn with_summarizer(
        mut self,
        summarizer: impl Summarizer + Send + Sync + 'static,
    ) -> ContextManager {
        self.summarizer = Box::new(summarizer);
        self
    }

    /// Whether a failed summarizer is replaced by the offline one (default on); off, the
    /// failure is an error of [`ContextManager::compact_if_needed`] and automatic
    /// compaction falls back to dropping the oldest messages.
    pub fn with_offline_fallback(mut self, on: bool) -> ContextManager {
        self.fallback = on;
        self
    }

    /// Sets (or replaces) the system prompt, always first in the request and never trimmed.
    ///
    /// ```
    /// use ctxctl::{ContextManager, Role};
    /// let mut cm = ContextManager::for_model("gpt-4o");
    /// cm.set_system_prompt("Be brief.");
    /// cm.set_system_prompt("Be thorough."); // replaces it
    /// assert_eq!(cm.messages().len(), 1);
    /// assert_eq!(cm.messages()[0].role, Role::System);
    /// ```
    pub fn set_system_prompt(&mut self, text: impl Into<String>) {
        let m = Message::system(text);
        let n = self.counter.message(&m);
        if self.has_system {
            self.sum -= self.counts[0];
            self.messages[0] = m;
            self.counts[0] = n;
        } else {
            self.messages.insert(0, m);
            self.counts.insert(0, n);
            self.has_system = true;
        }
        self.sum += n;
    }

    /// Adds a message to the conversation, counting only it. With automatic truncation on,
    /// when the conversation would go over the limit, room is made first by the mode
    /// (down to the trim target), never separating a tool call from its result.
    ///
    /// ```
    /// use ctxctl::{ContextLimits, ContextManager, Message};
    /// let mut cm = ContextManager::for_model("gpt-4o").with_limits(ContextLimits::new(600, 100, 0));
    /// let added = cm.add_message(Message::user("hello"));
    /// assert!(added.tokens > 0 && added.made_room.is_none());
    /// for i in 0..50 {
    ///     cm.add_message(Message::user(format!("message {i} with a few more words in it")));
    /// }
    /// assert!(cm.tokens_used() <= cm.limit()); // room was made along the way
    /// ```
    pub fn add_message(&mut self, message: Message) -> Added {
        let tokens = self.counter.message(&message);
        self.messages.push(message);
        self.counts.push(tokens);
        self.sum += tokens;
        let made_room = if self.auto_truncate && self.tokens_used() > self.limit() {
            Some(self.make_room())
        } else {
            None
        };
        Added { tokens, made_room }
    }

    /// What to send: the system prompt first, then the conversation, within the limit.
    /// Borrowed as it is when it fits; otherwise a copy trimmed by the mode (possible only
    /// with automatic truncation off, or when the system prompt alone is too large).
    ///
    /// ```
    /// use ctxctl::{ContextLimits, ContextManager, Message};
    /// let mut cm = ContextManager::for_model("gpt-4o")
    ///     .with_limits(ContextLimits::new(400, 100, 0))
    ///     .with_auto_truncate(false);
    /// cm.set_system_prompt("sys");
    /// for i in 0..100 {
    ///     cm.add_message(Message::user(format!("message {i}")));
    /// }
    /// assert!(cm.tokens_used() > cm.limit()); // kept whole...
    /// let request = cm.context_for_request(); // ...but what is sent fits
    /// assert!(request.len() < cm.messages().len());
    /// assert_eq!(request[0].text(), "sys");
    /// ```
    pub fn context_for_request(&self) -> Cow<'_, [Message]> {
        if self.tokens_used() <= self.limit() {
            return Cow::Borrowed(&self.messages);
        }
        let kind = match self.mode {
            Mode::SlidingWindow | Mode::Summarize => StrategyKind::SlidingWindow,
            Mode::Smart => StrategyKind::Composite,
        };
        let session = apply::session_of(self.messages.clone());
        match strategy::plan(
            &session,
            &self.counts,
            &self.counter,
            kind,
            &self.options(),
            self.limit(),
        ) {
            Ok(plan) => {
                let (msgs, _) = apply::apply(
                    session.messages,
                    &self.counts,
                    &plan.items,
                    &self.counter,
                    None,
                );
                Cow::Owned(msgs)
            }
            Err(_) => Cow::Borrowed(&self.messages),
        }
    }

    /// Compacts the conversation when its usage is at or over `threshold` (0..=1) of the
    /// limit: the system prompt and a recent tail stay verbatim, the middle becomes one
    /// summary message. A failing summarizer is replaced by the offline one unless that
    /// was turned off ([`ContextManager::with_offline_fallback`]).
    ///
    /// ```
    /// use ctxctl::{Compaction, ContextLimits, ContextManager, Message};
    /// let mut cm = ContextManager::for_model("gpt-4o")
    ///     .with_limits(ContextLimits::new(2_000, 200, 0))
    ///     .with_auto_truncate(false);
    /// cm.add_message(Message::user("short"));
    /// assert!(matches!(cm.compact_if_needed(0.8)?, Compaction::Skipped { .. }));
    /// for i in 0..60 {
    ///     cm.add_message(Message::user(format!("request {i}: please look at src/file_{i}.rs")));
    ///     cm.add_message(Message::assistant(format!("done with file {i}")));
    /// }
    /// let Compaction::Compacted { summarized_messages, .. } = cm.compact_if_needed(0.8)? else {
    ///     panic!("expected a compaction");
    /// };
    /// assert!(summarized_messages > 0 && cm.tokens_used() <= cm.limit());
    /// # Ok::<(), ctxctl::ManagerError>(())
    /// ```
    pub fn compact_if_needed(&mut self, threshold: f64) -> Result<Compaction, ManagerError> {
        if !(0.0..=1.0).contains(&threshold) {
            return Err(ManagerError::Threshold(threshold));
        }
        if !compact::needs_compaction(self.tokens_used(), self.limit(), threshold) {
            return Ok(Compaction::Skipped {
                reason: "below the threshold",
            });
        }
        self.compact()
    }

    /// Model, mode, message count and token usage.
    ///
    /// ```
    /// use ctxctl::{ContextManager, Message, Mode};
    /// let mut cm = ContextManager::for_model("gpt-4o").with_mode(Mode::Smart);
    /// cm.add_message(Message::user("hello"));
    /// let s = cm.stats();
    /// assert_eq!((s.model.as_str(), s.mode, s.message_count), ("gpt-4o", Mode::Smart, 1));
    /// assert_eq!(s.available, s.limit - s.tokens_used);
    /// ```
    pub fn stats(&self) -> Stats {
        let used = self.tokens_used();
        let limit = self.limit();
        let mut tracker = UsageTracker::new(limit as u64);
        tracker.add(used as u64);
        Stats {
            model: self.model.clone(),
            mode: self.mode,
            encoding: self.counter.encoding(),
            message_count: self.messages.len(),
            tokens_used: used,
            limit,
            available: tracker.remaining() as usize,
            usage_percent: tracker.usage_percent(),
            times_made_room: self.times_made_room,
        }
    }

    /// Whether usage is at or over the near-limit share (default 80%).
    ///
    /// ```
    /// use ctxctl::{ContextLimits, ContextManager, Message};
    /// let mut cm = ContextManager::for_model("gpt-4o")
    ///     .with_limits(ContextLimits::new(1_000, 100, 0))
    ///     .with_auto_truncate(false)
    ///     .with_near_limit(0.5);
    /// assert!(!cm.is_near_limit());
    /// while !cm.is_near_limit() {
    ///     cm.add_message(Message::user("more words for the window"));
    /// }
    /// assert!(cm.stats().usage_percent >= 50.0);
    /// ```
    pub fn is_near_limit(&self) -> bool {
        compact::needs_compaction(self.tokens_used(), self.limit(), self.near_limit)
    }

    /// Forgets the conversation, keeping the system prompt.
    ///
    /// ```
    /// use ctxctl::{ContextManager, Message};
    /// let mut cm = ContextManager::for_model("gpt-4o");
    /// cm.set_system_prompt("sys");
    /// cm.add_message(Message::user("hello"));
    /// cm.reset();
    /// assert_eq!(cm.messages().len(), 1); // the system prompt stays
    /// ```
    pub fn reset(&mut self) {
        let keep = usize::from(self.has_system);
        self.messages.truncate(keep);
        self.counts.truncate(keep);
        self.sum = self.counts.iter().sum();
    }

    /// Tokens of the request as it stands (system prompt, messages, reply priming).
    pub fn tokens_used(&self) -> usize {
        if self.messages.is_empty() {
            0
        } else {
            self.sum + crate::tokens::REPLY_PRIMING
        }
    }

    /// The messages held, the system prompt first.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// The limits in force.
    pub fn limits(&self) -> &ContextLimits {
        &self.limits
    }

    /// The effective limit, as a token count.
    pub fn limit(&self) -> usize {
        usize::try_from(self.limits.effective_limit()).unwrap_or(usize::MAX)
    }

    fn target(&self) -> usize {
        (self.limit() as f64 * self.trim_target) as usize
    }

    fn options(&self) -> Options {
        Options {
            chain: vec![StrategyKind::Smart, StrategyKind::Fifo],
            ..Options::default()
        }
    }

    /// Makes room by the mode, down to the trim target.
    fn make_room(&mut self) -> Room {
        if self.mode == Mode::Summarize {
            if let Ok(Compaction::Compacted { room, .. }) = self.compact() {
                if room.tokens_after <= self.target() {
                    return room;
                }
            }
        }
        let kind = match self.mode {
            Mode::Smart => StrategyKind::Composite,
            Mode::SlidingWindow => StrategyKind::SlidingWindow,
            Mode::Summarize => StrategyKind::Fifo,
        };
        self.trim(kind)
    }

    fn trim(&mut self, kind: StrategyKind) -> Room {
        let (messages_before, tokens_before) = (self.messages.len(), self.tokens_used());
        let target = self.target();
        let session = apply::session_of(std::mem::take(&mut self.messages));
        let plan = strategy::plan(
            &session,
            &self.counts,
            &self.counter,
            kind,
            &self.options(),
            target,
        );
        match plan {
            Ok(plan) => {
                let (msgs, counts) = apply::apply(
                    session.messages,
                    &self.counts,
                    &plan.items,
                    &self.counter,
                    None,
                );
                self.replace(msgs, counts);
            }
            // The options above are valid for every kind used here; keep the conversation
            // untouched should that ever change.
            Err(_) => self.messages = session.messages,
        }
        self.times_made_room += 1;
        self.room(messages_before, tokens_before, false)
    }

    fn compact(&mut self) -> Result<Compaction, ManagerError> {
        let (messages_before, tokens_before) = (self.messages.len(), self.tokens_used());
        let tail = (self.limit() as f64 * self.tail_ratio) as usize;
        let session = apply::session_of(std::mem::take(&mut self.messages));
        let partition = compact::partition(&session, &self.counts, tail);
        if !partition.has_middle() {
            self.messages = session.messages;
            return Ok(Compaction::Skipped {
                reason: "nothing to summarize",
            });
        }
        let middle: Vec<Message> = partition
            .summarized()
            .map(|i| session.messages[i].clone())
            .collect();
        let input = Input::new(&middle);
        let (summary, summarizer, fallback) = match self.summarizer.summarize(&input, &self.counter)
        {
            Ok(s) => (s, self.summarizer.name(), None),
            Err(e) if self.fallback => {
                let offline = OfflineSummarizer::default();
                let s = offline.summarize(&input, &self.counter).unwrap_or_default();
                (s, offline.name(), Some(e.to_string()))
            }
            Err(e) => {
                let name = self.summarizer.name();
                self.messages = session.messages;
                return Err(ManagerError::Summarizer {
                    summarizer: name,
                    message: e.to_string(),
                });
            }
        };
        self.times_made_room += 1;
        let info = CompactInfo {
            id: CompactInfo::new_id(),
            timestamp: Timestamp::from_system(SystemTime::now()).rfc3339(),
            seq: self.times_made_room as u64,
            archive: None,
        };
        let items = compact::assemble(&session, &partition, &summary, &info);
        let (msgs, counts) = apply::apply(
            session.messages,
            &self.counts,
            &items,
            &self.counter,
            Some(&info),
        );
        self.replace(msgs, counts);
        Ok(Compaction::Compacted {
            room: self.room(messages_before, tokens_before, true),
            summarized_messages: middle.len(),
            summarizer,
            fallback,
        })
    }

    fn replace(&mut self, messages: Vec<Message>, counts: Vec<usize>) {
        self.has_system = messages.first().is_some_and(|m| m.role == Role::System);
        self.sum = counts.iter().sum();
        self.messages = messages;
        self.counts = counts;
    }

    fn room(&self, messages_before: usize, tokens_before: usize, summarized: bool) -> Room {
        Room {
            messages_before,
            messages_after: self.messages.len(),
            tokens_before,
            tokens_after: self.tokens_used(),
            fits: self.tokens_used() <= self.limit(),
            summarized,
        }
    }
}
