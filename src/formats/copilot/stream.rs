//! A Copilot CLI event log planned over an index of offsets, for counting it in memory
//! independent of its size ([`crate::ops::copilot_stream`]).
//!
//! The first pass reduces each line to its [`Rec`] (its type, whether it is a subagent's
//! or ctxctl's, and the few small fields [`super::events::Log::parse`] reads: models,
//! the tool call id, the usage record's numbers; message text and tool output are
//! skipped unparsed) and replays the log on those into a [`Plan`]: where the system
//! prompt, the last compaction and each message after it are. The second pass reads
//! those lines at their offsets and makes the messages with the whole reader's own
//! functions, in the order it gives them.
//!
//! A line the skeleton cannot take, or one the whole reader would refuse, gives `None`:
//! the caller reads the file whole and words any error.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

use crate::formats::stream::loose::{too_deep, Loose, Obj};
use crate::session::ReportedUsage;

/// What an event is, as far as the conversation goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Start,
    ModelChange,
    System,
    User,
    Assistant,
    ToolStart,
    ToolDone,
    Compaction,
    Usage,
    Other,
}

impl Kind {
    fn of(ty: &str) -> Kind {
        match ty {
            "session.start" => Kind::Start,
            "session.model_change" => Kind::ModelChange,
            "system.message" => Kind::System,
            "user.message" => Kind::User,
            "assistant.message" => Kind::Assistant,
            "tool.execution_start" => Kind::ToolStart,
            "tool.execution_complete" => Kind::ToolDone,
            "session.compaction_complete" => Kind::Compaction,
            "session.usage_record" => Kind::Usage,
            _ => Kind::Other,
        }
    }

    /// The event type a line of this kind holds (what the second pass checks it fetched).
    pub fn ty(self) -> &'static str {
        match self {
            Kind::Start => "session.start",
            Kind::ModelChange => "session.model_change",
            Kind::System => "system.message",
            Kind::User => "user.message",
            Kind::Assistant => "assistant.message",
            Kind::ToolStart => "tool.execution_start",
            Kind::ToolDone => "tool.execution_complete",
            Kind::Compaction => "session.compaction_complete",
            Kind::Usage => "session.usage_record",
            Kind::Other => "",
        }
    }
}

/// One line's skeleton.
#[derive(Debug, PartialEq, Eq)]
pub struct Rec {
    pub kind: Kind,
    /// A subagent's event (`agentId`): not the main conversation.
    pub agent: bool,
    /// A record ctxctl wrote (`ctxctl`): the usage recorded before it was of another history.
    pub ours: bool,
    /// The model it names (`selectedModel`, `newModel` or an answer's `model`).
    pub model: Option<String>,
    pub call: Option<String>,
    /// A compaction that succeeded with a summary.
    pub compacted: bool,
    /// A usage record's prompt-token limit, input and output tokens.
    pub usage: Option<(Option<u64>, u64, u64)>,
}

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(rename = "type", borrow, default)]
    ty: Loose<'a>,
    #[serde(borrow, default)]
    data: Obj<Data<'a>>,
    #[serde(borrow, default)]
    id: Loose<'a>,
    #[serde(borrow, rename = "parentId", default)]
    parent: Loose<'a>,
    #[serde(borrow, rename = "agentId", default)]
    agent: Loose<'a>,
    #[serde(borrow, default)]
    ctxctl: Loose<'a>,
}

#[derive(Deserialize, Default)]
struct Data<'a> {
    #[serde(rename = "selectedModel", borrow, default)]
    selected_model: Loose<'a>,
    #[serde(rename = "newModel", borrow, default)]
    new_model: Loose<'a>,
    #[serde(borrow, default)]
    model: Loose<'a>,
    #[serde(rename = "toolCallId", borrow, default)]
    call: Loose<'a>,
    #[serde(borrow, default)]
    success: Loose<'a>,
    #[serde(rename = "summaryContent", borrow, default)]
    summary: Loose<'a>,
    #[serde(default)]
    usage: Obj<Usage>,
}

#[derive(Deserialize, Default)]
struct Usage {
    #[serde(rename = "maxPromptTokens", default)]
    max_prompt: Option<Value>,
    #[serde(rename = "inputTokens", default)]
    input: Option<Value>,
    #[serde(rename = "cacheReadTokens", default)]
    cache_read: Option<Value>,
    #[serde(rename = "cacheWriteTokens", default)]
    cache_write: Option<Value>,
    #[serde(rename = "outputTokens", default)]
    output: Option<Value>,
}

fn owned(l: &Loose) -> Option<String> {
    l.as_str().map(str::to_string)
}

fn present(l: &Loose) -> bool {
    !matches!(l, Loose::Absent)
}

/// The skeleton of one line, or `None` when it is no Copilot CLI event (the whole reader
/// refuses it) or not one the skeleton reads as the whole reader does.
pub fn rec(text: &str) -> Option<Rec> {
    if too_deep(text) {
        return None;
    }
    let Loose::Object(line) = serde_json::from_str::<Loose<Line>>(text).ok()? else {
        return None;
    };
    // As `is_event` asks.
    let ty = line.ty.as_str()?;
    let data = line.data.0?;
    if !present(&line.id) || !present(&line.parent) {
        return None;
    }
    let kind = Kind::of(ty);
    let model = match kind {
        Kind::Start => owned(&data.selected_model),
        Kind::ModelChange => owned(&data.new_model),
        Kind::Assistant => owned(&data.model),
        _ => None,
    };
    let call = matches!(kind, Kind::ToolStart | Kind::ToolDone)
        .then(|| owned(&data.call))
        .flatten();
    let compacted = kind == Kind::Compaction
        && data.success.as_bool() == Some(true)
        && data.summary.as_str().is_some();
    let usage = (kind == Kind::Usage).then(|| {
        let u = data.usage.0.unwrap_or_default();
        let n = |v: &Option<Value>| v.as_ref().and_then(Value::as_u64);
        let input = n(&u.input).unwrap_or(0)
            + n(&u.cache_read).unwrap_or(0)
            + n(&u.cache_write).unwrap_or(0);
        (n(&u.max_prompt), input, n(&u.output).unwrap_or(0))
    });
    Some(Rec {
        kind,
        agent: present(&line.agent),
        ours: present(&line.ctxctl),
        model,
        call,
        compacted,
        usage,
    })
}

/// Where a line is: its index, offset and length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    pub line: usize,
    pub at: u64,
    pub len: u32,
}

/// A message the log leaves after its last compaction: its line, its kind and (a tool
/// result) the line of its `tool.execution_start`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Live {
    pub place: Place,
    pub kind: Kind,
    pub start: Option<usize>,
}

/// The log replayed on its skeletons, as [`super::events::Log::parse`] replays the events.
#[derive(Default, Debug)]
pub struct Plan {
    pub model: Option<String>,
    pub window: Option<u64>,
    /// The last system prompt.
    pub system: Option<Place>,
    /// Every user message (a compaction lists those before it).
    pub users: Vec<Place>,
    /// The last successful compaction, and how many user messages came before it.
    pub compaction: Option<(Place, usize)>,
    /// The messages after it (after the start without one).
    pub live: Vec<Live>,
    started: HashMap<String, usize>,
    usages: Vec<(usize, u64, u64)>,
}

impl Plan {
    /// Messages so far, the system prompt aside.
    fn messages(&self) -> usize {
        self.live.len() + usize::from(self.compaction.is_some())
    }

    pub fn record(&mut self, place: Place, r: Rec) {
        if r.agent {
            return;
        }
        if r.ours {
            self.usages.clear();
        }
        let live = |start| Live {
            place,
            kind: r.kind,
            start,
        };
        match r.kind {
            Kind::Start | Kind::ModelChange => {
                if r.model.is_some() {
                    self.model = r.model;
                }
            }
            Kind::System => self.system = Some(place),
            Kind::User => {
                self.users.push(place);
                self.live.push(live(None));
            }
            Kind::Assistant => {
                if r.model.is_some() {
                    self.model = r.model;
                }
                self.live.push(live(None));
            }
            Kind::ToolStart => {
                if let Some(c) = r.call {
                    self.started.insert(c, place.line);
                }
            }
            Kind::ToolDone => {
                let start = self.started.remove(r.call.as_deref().unwrap_or_default());
                self.live.push(live(start));
            }
            Kind::Compaction if r.compacted => {
                self.live.clear();
                self.usages.clear();
                self.compaction = Some((place, self.users.len()));
            }
            Kind::Usage => {
                let (window, input, output) = r.usage.unwrap_or_default();
                if window.is_some() {
                    self.window = window;
                }
                if input > 0 {
                    self.usages.push((self.messages(), input, output));
                }
            }
            Kind::Compaction | Kind::Other => {}
        }
    }

    /// How many messages the log makes (the system prompt first), and the usage reported.
    pub fn finish(&mut self) -> (usize, Option<ReportedUsage>) {
        let first = usize::from(self.system.is_some());
        let total = first + self.messages();
        let mut usages = std::mem::take(&mut self.usages);
        for u in &mut usages {
            u.0 += first;
        }
        let usage = usages.pop().map(|(end, input, output)| ReportedUsage {
            input_tokens: input,
            output_tokens: output,
            after_message: total.checked_sub(1).filter(|&a| a >= end),
            request_end: Some(end),
            earlier: usages.iter().map(|&(e, i, _)| (e, i)).collect(),
            dropped: 0,
        });
        (total, usage)
    }
}
