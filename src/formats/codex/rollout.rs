//! A rollout parsed: its active history (the items the next request sends, a `compacted`
//! record replacing what came before), its base instructions, model, usage reports and
//! the lines a rewrite copies after its own `compacted` record.

use serde_json::{json, Value};

use super::items::{codex_compact, item_message, item_role};
use super::{reasoning, tools};
use crate::formats::jsonl::{records, Record};
use crate::formats::message::Notes;
use crate::session::parse_agent_version;
use crate::session::{AgentLimits, LinesDoc, Message, Origin, Part, ReadError, Role};

/// Where an item of the active history comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// A `response_item` line (or a bare item line in a legacy rollout).
    Line(usize),
    /// Element `index` of the `replacement_history` of the `compacted` record on `line`.
    History { line: usize, index: usize },
    /// The summary text of an older `compacted` record on this line.
    Summary(usize),
}

impl Source {
    pub fn line(&self) -> usize {
        match self {
            Source::Line(l) | Source::Summary(l) | Source::History { line: l, .. } => *l,
        }
    }
}

/// One Responses API item of the active history.
#[derive(Debug, Clone)]
pub struct ActiveItem {
    /// The item; `None` for an item read from its own line in a rollout parsed lean
    /// ([`Rollout::parse_lean`]): [`Rollout::value_of`] reads it again. Boxed, so that
    /// the list of a large rollout's items, which a lean parse mostly leaves without
    /// one, is not as wide as a value (80 bytes) an item.
    pub value: Option<Box<Value>>,
    pub source: Source,
    /// Reasoning tokens the provider billed for this item's `encrypted_content`
    /// ([`ActiveItem::billed`]; 4 bytes, not 16: a large rollout holds tens of thousands
    /// of items).
    billed: Option<u32>,
    /// What the parse reads of the item after it was added, kept apart so that a lean
    /// parse needs no value: whether it is a user message, and its `encrypted_content`'s
    /// length and hash.
    pub(super) user_message: bool,
    /// The role of its message ([`item_role`]), known before the message is made: a
    /// counting read closes the turns each message belongs to as it makes it.
    pub(super) role: Role,
    pub(super) encrypted: Option<Encrypted>,
}

/// An item's `encrypted_content`, as the parse keeps it: its length and its xxh3-128
/// hash, held in 4-byte words. A `u128` field would align the whole item to 16 bytes
/// (112 an item where 64 do; 7.6 MB for the 68k items of a 160 MB rollout).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Encrypted {
    /// The length in bytes, at most `u32::MAX` (it only weighs the item against the others
    /// of its response).
    len: u32,
    key: [u32; 4],
}

impl Encrypted {
    pub(super) fn new(len: usize, key: u128) -> Encrypted {
        let w = |i: u32| (key >> (32 * i)) as u32;
        Encrypted {
            len: u32::try_from(len).unwrap_or(u32::MAX),
            key: [w(0), w(1), w(2), w(3)],
        }
    }

    pub(super) fn len(self) -> usize {
        self.len as usize
    }

    /// The hash of the content.
    pub(super) fn key(self) -> u128 {
        (self.key.iter().rev()).fold(0, |k, &w| (k << 32) | u128::from(w))
    }
}

impl ActiveItem {
    fn new(value: Value, source: Source) -> ActiveItem {
        let mut it = ActiveItem::lean(&value, source);
        it.value = Some(Box::new(value));
        it
    }

    /// The item `value` without its value (see [`ActiveItem::value`]).
    fn lean(value: &Value, source: Source) -> ActiveItem {
        let enc = value.get("encrypted_content").and_then(Value::as_str);
        ActiveItem {
            value: None,
            source,
            billed: None,
            user_message: value.get("type").and_then(Value::as_str) == Some("message")
                && value.get("role").and_then(Value::as_str) == Some("user"),
            role: role_of(value),
            encrypted: enc
                .zip(reasoning::reasoning_key(value))
                .map(|(e, k)| Encrypted::new(e.len(), k)),
        }
    }

    /// Reasoning tokens the provider billed for this item's `encrypted_content`.
    pub fn billed(&self) -> Option<usize> {
        self.billed.map(|b| b as usize)
    }

    /// Sets [`ActiveItem::billed`] (a share beyond `u32::MAX` tokens held as that).
    pub(super) fn set_billed(&mut self, billed: Option<usize>) {
        self.billed = billed.map(|b| u32::try_from(b).unwrap_or(u32::MAX));
    }
}

/// Lines of the records a rewrite copies after its `compacted` record, as Codex 0.169
/// writes them after its own compaction.
#[derive(Debug, Default, Clone, Copy)]
pub struct Latest {
    /// The last `world_state` holding the whole state (`full: true`).
    pub world_state: Option<usize>,
    pub turn_context: Option<usize>,
    /// The last `token_count` event with usage.
    pub token_count: Option<usize>,
}

/// A parsed rollout.
#[derive(Debug, Default)]
pub struct Rollout {
    /// Base instructions and the line of the `session_meta` holding them.
    pub system: Option<(usize, String)>,
    /// The active history, one message each.
    pub items: Vec<ActiveItem>,
    pub model: Option<String>,
    /// `(input, output, line)` of the last `token_count` after the last compaction.
    pub usage: Option<(u64, u64, usize)>,
    /// Bare items without the `{timestamp, type, payload}` envelope.
    pub legacy: bool,
    pub truncated_tail: Option<usize>,
    pub warnings: Vec<String>,
    /// The last `timestamp` in the file, for records ctxctl appends.
    pub last_timestamp: Option<String>,
    /// The highest `ordinal` (Codex 0.169's paginated rollouts number every record).
    pub ordinal: Option<u64>,
    pub latest: Latest,
    /// The window Codex recorded (`model_context_window`) and whether its last request was
    /// refused as too large.
    pub limits: AgentLimits,
    /// The tools the first `session_meta` records that Codex sends besides its own
    /// ([`tools::sent`]), as JSON text.
    pub tools: Option<String>,
    /// Whether a `session_meta` was read (the first one's tools are the session's).
    pub(super) meta_seen: bool,
    /// Whether the items read from their own lines were parsed without their values
    /// ([`Rollout::parse_lean`]).
    pub(super) lean: bool,
    /// Reasoning items waiting for the usage report of their response.
    pub(super) unbilled: Vec<usize>,
    /// Call ids made in the same response as a reasoning item, per the file's own lines.
    pub(super) reasoned_calls: std::collections::HashSet<String>,
    /// Whether the response being read (the `response_item`s since the last input item)
    /// holds a reasoning item.
    pub(super) in_reasoned_response: bool,
    /// Billed reasoning items by their encrypted content's hash.
    pub(super) billed: std::collections::HashMap<u128, usize>,
    /// The session total of the last usage report: Codex repeats a report unchanged (a
    /// rate-limit update), and the first of them is where the response's report stands.
    pub(super) last_total: Option<Value>,
}

impl Rollout {
    pub fn parse(doc: &LinesDoc) -> Result<Rollout, ReadError> {
        Rollout::parse_with(doc, false, 0..0)
    }

    /// [`Rollout::parse`] without the values of the items read from their own lines (the
    /// bulk of a large rollout), for a writer that reads again only those it writes
    /// ([`Rollout::value_of`]). The items of a `replacement_history` keep theirs: a
    /// compaction's history is bounded by the model's window.
    pub fn parse_lean(doc: &LinesDoc) -> Result<Rollout, ReadError> {
        Rollout::parse_with(doc, true, 0..0)
    }

    /// [`Rollout::parse_lean`] of `doc` as if its lines `without` were not there (the
    /// rollout a restore would leave), its items' lines still `doc`'s.
    pub fn parse_lean_without(
        doc: &LinesDoc,
        without: std::ops::Range<usize>,
    ) -> Result<Rollout, ReadError> {
        Rollout::parse_with(doc, true, without)
    }

    fn parse_with(
        doc: &LinesDoc,
        lean: bool,
        without: std::ops::Range<usize>,
    ) -> Result<Rollout, ReadError> {
        let mut r = Rollout {
            lean,
            items: Vec::with_capacity(item_lines(doc)),
            ..Rollout::default()
        };
        let mut first = true;
        let mut enveloped = false;
        for record in records(doc) {
            let (i, v) = match record? {
                Record::Line(i, _) if without.contains(&i) => continue,
                Record::Line(i, v) => (i, v),
                Record::Truncated(i, w) => {
                    r.warnings.push(w);
                    r.truncated_tail = Some(i);
                    continue;
                }
            };
            if !v.is_object() {
                return Err(ReadError::shape(format!("line {}", i + 1), "a JSON object"));
            }
            if let Some(ts) = v.get("timestamp").and_then(Value::as_str) {
                r.last_timestamp = Some(ts.to_string());
            }
            if let Some(o) = v.get("ordinal").and_then(Value::as_u64) {
                r.ordinal = Some(r.ordinal.map_or(o, |p| p.max(o)));
            }
            let was_first = std::mem::replace(&mut first, false);
            let ty = v.get("type").and_then(Value::as_str).unwrap_or("");
            match v.get("payload") {
                Some(payload) => {
                    enveloped = true;
                    r.record(i, ty, payload)
                }
                None => r.legacy_record(i, &v, was_first),
            }
        }
        // One record without a payload (damaged, or of a kind not known yet) does not make
        // a rollout legacy: its rewrite would then delete lines, `compacted` ones included,
        // and bring back the history they replaced.
        r.legacy &= !enveloped;
        Ok(r)
    }

    fn record(&mut self, line: usize, ty: &str, payload: &Value) {
        match ty {
            "session_meta" => {
                // Codex sends the tools of the session's own (first) `session_meta`; a
                // forked rollout's later ones are its parent's.
                if !self.meta_seen {
                    self.meta_seen = true;
                    self.tools = tools::sent(payload);
                }
                if self.system.is_some() {
                    return;
                }
                self.limits.agent_version = payload
                    .get("cli_version")
                    .and_then(Value::as_str)
                    .and_then(parse_agent_version);
                self.limits.instructions_read = payload
                    .pointer("/base_instructions/text")
                    .and_then(Value::as_str)
                    .is_some_and(|s| !s.is_empty());
                let text = payload
                    .pointer("/base_instructions/text")
                    .or_else(|| payload.get("instructions"))
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty());
                if let Some(text) = text {
                    self.system = Some((line, text.to_string()));
                }
            }
            "response_item" if is_model_item(payload) => {
                self.response_item(payload);
                self.push_line_item(payload, line);
            }
            "compacted" => self.compacted(line, payload),
            "turn_context" => {
                self.latest.turn_context = Some(line);
                if let Some(m) = payload.get("model").and_then(Value::as_str) {
                    self.model = Some(m.to_string());
                }
            }
            "world_state" if payload.get("full").and_then(Value::as_bool) == Some(true) => {
                self.latest.world_state = Some(line);
            }
            "token_usage_record" => {
                if let Some(u) = payload.get("usage") {
                    self.bill(u);
                }
            }
            "event_msg" => self.event(line, payload),
            _ => {}
        }
    }

    fn event(&mut self, line: usize, payload: &Value) {
        let window = |v: Option<&Value>| v.and_then(Value::as_u64).filter(|&w| w > 0);
        match payload.get("type").and_then(Value::as_str) {
            Some("token_count") => {
                let Some(info) = payload.get("info").filter(|i| i.is_object()) else {
                    return;
                };
                self.latest.token_count = Some(line);
                if let Some(w) = window(info.get("model_context_window")) {
                    self.limits.window = Some(w);
                }
                let last = info.get("last_token_usage");
                if let Some(u) = last {
                    self.bill(u);
                }
                let n = |k: &str| last.and_then(|u| u.get(k)).and_then(Value::as_u64);
                let total = info.get("total_token_usage").cloned();
                let repeated = total.is_some() && total == self.last_total && self.usage.is_some();
                self.last_total = total;
                if let (Some(input), Some(output), false) =
                    (n("input_tokens"), n("output_tokens"), repeated)
                {
                    if input > 0 {
                        self.usage = Some((input, output, line));
                        self.limits.overflow = false;
                    }
                }
            }
            Some("task_started") => {
                if let Some(w) = window(payload.get("model_context_window")) {
                    self.limits.window = Some(w);
                }
            }
            Some("task_complete") => {
                let info = payload.pointer("/error/codex_error_info");
                if info.and_then(Value::as_str) == Some("context_window_exceeded") {
                    self.limits.overflow = true;
                }
            }
            _ => {}
        }
    }

    fn compacted(&mut self, line: usize, payload: &Value) {
        self.usage = None;
        self.limits.overflow = false;
        self.unbilled.clear();
        if let Some(history) = payload.get("replacement_history").and_then(Value::as_array) {
            let items = history
                .iter()
                .enumerate()
                .filter(|(_, v)| is_model_item(v))
                .map(|(index, v)| {
                    let mut it = ActiveItem::new(v.clone(), Source::History { line, index });
                    it.set_billed(self.billed_before(v));
                    it
                });
            // Into the list sized up front, which the items after it fill.
            let items: Vec<ActiveItem> = items.collect();
            self.items.clear();
            self.items.extend(items);
            return;
        }
        // Older builds: the history becomes the user messages so far plus the summary.
        let summary = payload.get("message").and_then(Value::as_str).unwrap_or("");
        self.items.retain(|it| it.user_message);
        self.items.push(ActiveItem::new(
            json!({"type": "message", "role": "user",
                "content": [{"type": "input_text", "text": summary}]}),
            Source::Summary(line),
        ));
    }

    fn legacy_record(&mut self, line: usize, v: &Value, first: bool) {
        self.legacy = true;
        if v.get("record_type").is_some() {
            return;
        }
        if first && v.get("type").is_none() {
            if let Some(text) = v.get("instructions").and_then(Value::as_str) {
                if !text.is_empty() {
                    self.system = Some((line, text.to_string()));
                }
            }
            return;
        }
        if is_model_item(v) {
            self.response_item(v);
            self.push_line_item(v, line);
        }
    }

    /// Item `v`, read from its own `line`: its value kept unless the parse is lean.
    fn push_line_item(&mut self, v: &Value, line: usize) {
        self.items.push(if self.lean {
            ActiveItem::lean(v, Source::Line(line))
        } else {
            ActiveItem::new(v.clone(), Source::Line(line))
        });
    }

    /// This parse reduced to what a writer reads of it ([`super::write`], the restore's
    /// check, [`super::embedded_items`]), to be kept beside the session until it is
    /// written: the bookkeeping of the reasoning items' billing goes, and the items' list
    /// loses the spare room it grew with.
    pub(super) fn for_writer(mut self) -> Rollout {
        self.items.shrink_to_fit();
        self.unbilled = Vec::new();
        self.reasoned_calls = Default::default();
        self.billed = Default::default();
        self.last_total = None;
        self.warnings = Vec::new();
        self
    }

    /// Whether the file holds Codex 0.169's paginated history: records ctxctl appends then
    /// carry the next ordinals.
    pub fn paginated(&self) -> bool {
        self.ordinal.is_some()
    }

    /// The session's messages: the instructions, then one per active item (read from
    /// `doc`, the rollout's text, when the parse did not hold it).
    pub fn messages(&self, doc: &LinesDoc, notes: &mut Notes) -> Result<Vec<Message>, ReadError> {
        self.messages_each(doc, notes, |_, _| {})
    }

    /// [`Rollout::messages`], each message given to `each` with its index as soon as it
    /// is made (before the next is), so that its text can go at once.
    pub fn messages_each(
        &self,
        doc: &LinesDoc,
        notes: &mut Notes,
        mut each: impl FnMut(usize, &mut Message),
    ) -> Result<Vec<Message>, ReadError> {
        let mut out = Vec::with_capacity(self.items.len() + 1);
        if let Some((line, text)) = &self.system {
            let mut m = Message::new(
                Role::System,
                vec![Part::Text(text.clone())],
                Origin::Record(*line),
            );
            each(0, &mut m);
            out.push(m);
        }
        for it in &self.items {
            let place = match &it.source {
                Source::History { line, index } => {
                    format!("line {}: replacement_history[{index}]", line + 1)
                }
                s => format!("line {}: payload", s.line() + 1),
            };
            let v = self.value_of(doc, it)?;
            let mut m = item_message(&v, &place, Origin::Record(it.source.line()), notes)?;
            if matches!(it.source, Source::Summary(_)) || self.is_codex_summary(it) {
                m.compact = Some(Box::new(codex_compact()));
            }
            reasoning::annotate(&mut m, &v, it, &self.reasoned_calls);
            debug_assert_eq!(m.role, it.role, "{place}");
            each(out.len(), &mut m);
            out.push(m);
        }
        Ok(out)
    }

    /// The first line and the role of each message [`Rollout::messages`] makes, in order,
    /// told without making them.
    pub fn heads(&self) -> (Vec<usize>, Vec<Role>) {
        let system = self.system.iter().map(|(line, _)| (*line, Role::System));
        let items = self.items.iter().map(|it| (it.source.line(), it.role));
        system.chain(items).unzip()
    }
}

/// How many lines may hold a `response_item` record: the item list is sized once, not
/// grown by doubling (its spare room and the copies of its growth were a large rollout's
/// peak beside the text and the messages). A legacy rollout's list (bare items, no
/// envelope) still grows as it goes.
fn item_lines(doc: &LinesDoc) -> usize {
    let finder = memchr::memmem::Finder::new(b"\"response_item\"");
    (0..doc.lines.len())
        .filter(|&i| finder.find(doc.line(i).as_bytes()).is_some())
        .count()
}

/// The role of item `v`'s message, as [`item_message`] gives it (an item it refuses has
/// none, and fails the read).
fn role_of(v: &Value) -> Role {
    let kind = v.get("type").and_then(Value::as_str).unwrap_or("");
    item_role(kind, v.get("role").and_then(Value::as_str)).unwrap_or(Role::User)
}

/// Items that are model history (`ghost_snapshot` is an undo point, not model input).
pub(super) fn is_model_item(v: &Value) -> bool {
    matches!(v.get("type").and_then(Value::as_str), Some(t) if t != "ghost_snapshot")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_encrypted_content_s_hash_and_length_come_back_as_given() {
        for (len, key) in [
            (0, 0),
            (4, u128::MAX),
            (77, 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210),
        ] {
            let e = Encrypted::new(len, key);
            assert_eq!((e.len(), e.key()), (len, key));
        }
        assert_eq!(Encrypted::new(usize::MAX, 1).len(), u32::MAX as usize);
        // No 16-byte alignment left: the list of a large rollout's items is what it holds.
        assert_eq!(std::mem::align_of::<ActiveItem>(), 8);
        assert!(std::mem::size_of::<ActiveItem>() <= 72);
    }

    #[test]
    fn a_billed_share_is_kept_as_set() {
        let mut it = ActiveItem::lean(&json!({"type": "reasoning"}), Source::Line(1));
        assert_eq!(it.billed(), None);
        it.set_billed(Some(12_345));
        assert_eq!(it.billed(), Some(12_345));
        it.set_billed(Some(usize::MAX));
        assert_eq!(it.billed(), Some(u32::MAX as usize));
    }

    #[test]
    fn the_item_list_is_sized_by_the_response_item_lines() {
        let text = concat!(
            "{\"timestamp\":\"t\",\"type\":\"session_meta\",\"payload\":{\"id\":\"s\"}}\n",
            "{\"timestamp\":\"t\",\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":\"user\",\"content\":[]}}\n",
            "{\"timestamp\":\"t\",\"type\":\"event_msg\",\"payload\":{\"type\":\"token_count\"}}\n",
            "{\"timestamp\":\"t\",\"type\":\"response_item\",\"payload\":{\"type\":\"ghost_snapshot\"}}\n",
        );
        let doc = LinesDoc::new(text.to_string());
        assert_eq!(item_lines(&doc), 2);
        let r = Rollout::parse_lean(&doc).unwrap();
        assert_eq!(r.items.len(), 1, "a ghost snapshot is no model item");
        assert_eq!(r.items.capacity(), 2, "sized once, not grown");
    }

    #[test]
    fn an_item_s_role_is_known_before_its_message_is_made() {
        let kinds = [
            json!({"type":"message","role":"user","content":[]}),
            json!({"type":"message","role":"assistant","content":[]}),
            json!({"type":"message","role":"developer","content":[]}),
            json!({"type":"message","role":"someone","content":[]}),
            json!({"type":"reasoning","summary":[],"encrypted_content":"e"}),
            json!({"type":"function_call","name":"f","arguments":"{}","call_id":"c"}),
            json!({"type":"function_call_output","call_id":"c","output":"x"}),
            json!({"type":"custom_tool_call_output","call_id":"c","output":"x"}),
            json!({"type":"tool_search_output","call_id":"c","tools":[]}),
            json!({"type":"web_search_call","action":{}}),
            json!({"type":"compaction","encrypted_content":"e"}),
            json!({"type":"agent_message","content":[]}),
            json!({"type":"something_new","role":"user"}),
            json!({"type":"something_new"}),
        ];
        for v in kinds {
            let m = item_message(&v, "here", Origin::Record(0), &mut Notes::default()).unwrap();
            assert_eq!(role_of(&v), m.role, "{v}");
        }
    }

    /// A rollout whose reported request held reasoning that a later user message closed.
    fn closing_rollout() -> String {
        let line = |ty: &str, payload: Value| {
            json!({"timestamp": "2026-01-01T00:00:00.000Z", "type": ty, "payload": payload})
                .to_string()
        };
        let text = |role: &str, t: &str| {
            let kind = if role == "assistant" {
                "output_text"
            } else {
                "input_text"
            };
            json!({"type":"message","role":role,"content":[{"type":kind,"text":t}]})
        };
        let rs = |n: usize| {
            json!({"type":"reasoning","summary":[{"type":"summary_text","text":"think"}],
                "encrypted_content":"e".repeat(n)})
        };
        let usage = json!({"input_tokens":100,"output_tokens":5,"reasoning_output_tokens":3});
        [
            line("session_meta", json!({"id":"s","base_instructions":{"text":"sys"}})),
            line("response_item", text("user", "a")),
            line("response_item", rs(40)),
            line(
                "response_item",
                json!({"type":"function_call","name":"f","arguments":"{}","call_id":"c"}),
            ),
            line(
                "response_item",
                json!({"type":"function_call_output","call_id":"c","output":"out"}),
            ),
            line("response_item", rs(12)),
            line("response_item", text("assistant", "done")),
            line(
                "event_msg",
                json!({"type":"token_count","info":{"last_token_usage":usage,"total_token_usage":usage}}),
            ),
            line("response_item", text("user", "b")),
            line("response_item", text("assistant", "x")),
        ]
        .join("\n")
            + "\n"
    }

    #[test]
    fn messages_made_one_by_one_close_their_turns_as_the_whole_list_did() {
        use crate::formats::codex::{reported, Codex};
        use crate::formats::Codec;
        use crate::session::{Document, Keep};
        let text = closing_rollout();
        // The reference: every message made, then the turns closed over the whole list.
        let doc = LinesDoc::new(text.clone());
        let r = Rollout::parse_lean(&doc).unwrap();
        let mut whole = r.messages(&doc, &mut Notes::default()).unwrap();
        let lines = whole.iter().map(|m| m.origin.records().first().copied());
        let roles: Vec<Role> = whole.iter().map(|m| m.role).collect();
        assert_eq!(
            r.heads(),
            (lines.clone().flatten().collect(), roles.clone())
        );
        let usage = reported(lines, &roles, r.usage.unwrap());
        let dropped = reasoning::drop_closed_turns(&mut whole, Some(&usage));
        assert!(dropped > 0, "the reported request held closed reasoning");

        let read = super::super::read_keeping(text.clone(), Keep::Document).unwrap();
        assert_eq!(read.messages, whole);
        assert_eq!(read.reported_usage.as_ref().unwrap().dropped, dropped);

        // Counted as made: each message once, in order, as closed; its text may go.
        let seen = std::sync::Mutex::new(Vec::new());
        let count = |k: usize, m: &mut Message| {
            seen.lock().unwrap().push((k, m.clone()));
            m.release_text();
            k * 10
        };
        let (counted, counts) = Codex.read_counting(text, &count).unwrap();
        let counts = counts.expect("a rollout counts as it reads");
        assert_eq!(counts, (0..whole.len()).map(|k| k * 10).collect::<Vec<_>>());
        let seen = seen.into_inner().unwrap();
        assert_eq!(
            seen.iter().map(|(_, m)| m.clone()).collect::<Vec<_>>(),
            whole
        );
        let released: Vec<Message> = (whole.iter().cloned())
            .map(|mut m| {
                m.release_text();
                m
            })
            .collect();
        assert_ne!(released, whole);
        assert_eq!(counted.messages, released);
        assert_eq!(counted.reported_usage, read.reported_usage);
        let Document::Lines(doc) = &counted.doc else {
            panic!("a rollout is a lines document")
        };
        assert!(super::super::kept(doc).is_some(), "kept for the writer");
    }
}
