//! What a rollout says about its items beyond the items themselves: which response a
//! reasoning item came with and what the provider billed for it, which calls were made
//! with a reasoning item, which user messages Codex injected, and how a command ended.

use std::collections::HashSet;

use serde_json::Value;

use super::{ActiveItem, Rollout, Source};
use crate::session::{Message, Part, ReportedUsage, Role};

/// The start of the summary message Codex puts in the `replacement_history` of its own
/// compaction.
const CODEX_SUMMARY: &str = "Another language model started to solve this problem";

/// How the user messages Codex adds by itself begin: the environment, AGENTS.md and the
/// user instructions of older builds.
const INJECTED: [&str; 4] = [
    "<environment_context>",
    "# AGENTS.md instructions",
    "<user_instructions>",
    "<INSTRUCTIONS>",
];

fn kind(v: &Value) -> &str {
    v.get("type").and_then(Value::as_str).unwrap_or("")
}

/// Items the model produced (as opposed to input: user messages, tool outputs).
fn from_model(v: &Value) -> bool {
    produced(kind(v), v.get("role").and_then(Value::as_str))
}

/// Whether an item of type `kind` and `role` is one the model produced.
pub(super) fn produced(kind: &str, role: Option<&str>) -> bool {
    match kind {
        "message" => role == Some("assistant"),
        t => !t.ends_with("_output"),
    }
}

fn is_call(v: &Value) -> bool {
    is_call_kind(kind(v))
}

/// Whether items of type `kind` are tool calls.
pub(super) fn is_call_kind(kind: &str) -> bool {
    matches!(
        kind,
        "function_call" | "custom_tool_call" | "local_shell_call" | "tool_search_call"
    )
}

impl Rollout {
    /// Notes a `response_item` line of the file before it joins the history: reasoning
    /// items wait for their response's usage report, and calls made in the same response
    /// as a reasoning item are remembered.
    pub(super) fn response_item(&mut self, v: &Value) {
        if !from_model(v) {
            self.in_reasoned_response = false;
            return;
        }
        if kind(v) == "reasoning" {
            self.in_reasoned_response = true;
            self.unbilled.push(self.items.len());
        } else if is_call(v) && self.in_reasoned_response {
            if let Some(id) = v.get("call_id").and_then(Value::as_str) {
                self.reasoned_calls.insert(id.to_string());
            }
        }
    }

    /// A usage report (`token_usage_record.usage`, `token_count.info.last_token_usage`):
    /// the first one after a reasoning item is its response's (Codex 0.169 writes the
    /// report after the response's items, 0.5x before and again after them). Its
    /// `reasoning_output_tokens` is what the item costs when sent back; several items of
    /// one response share it by size.
    pub(super) fn bill(&mut self, usage: &Value) {
        let Some(reasoning) = usage.get("reasoning_output_tokens").and_then(Value::as_u64) else {
            return;
        };
        let pending = std::mem::take(&mut self.unbilled);
        let sizes: Vec<usize> = (pending.iter())
            .map(|&k| self.items[k].encrypted.map_or(0, |e| e.len()))
            .collect();
        for (&k, share) in pending.iter().zip(shares(reasoning, &sizes)) {
            self.items[k].set_billed(Some(share));
            if let Some(e) = self.items[k].encrypted {
                self.billed.insert(e.key(), share);
            }
        }
    }

    /// The billed size of a reasoning item of a `replacement_history`, when the file billed
    /// it on its own line before (a compaction keeps the item as it was).
    pub(super) fn billed_before(&self, v: &Value) -> Option<usize> {
        (kind(v) == "reasoning")
            .then(|| reasoning_key(v))
            .flatten()
            .and_then(|k| self.billed.get(&k).copied())
    }

    /// A user message of a `replacement_history` that is Codex's own summary.
    pub(super) fn is_codex_summary(&self, it: &ActiveItem) -> bool {
        matches!(it.source, Source::History { .. })
            && it.value.as_deref().is_some_and(is_summary_item)
    }
}

/// Whether an item of a `replacement_history` is Codex's own summary: a user message that
/// starts so.
pub(super) fn is_summary_item(v: &Value) -> bool {
    kind(v) == "message"
        && v.get("role").and_then(Value::as_str) == Some("user")
        && first_text(v).is_some_and(|t| t.starts_with(CODEX_SUMMARY))
}

/// `reasoning` tokens shared by reasoning items of encrypted contents of `sizes`, by
/// size (the last takes what is left); none when they hold no encrypted content.
pub fn shares(reasoning: u64, sizes: &[usize]) -> Vec<usize> {
    let total: usize = sizes.iter().sum();
    if total == 0 {
        return Vec::new();
    }
    let reasoning = reasoning as usize;
    let mut left = reasoning;
    let mut out = Vec::with_capacity(sizes.len());
    for (n, &size) in sizes.iter().enumerate() {
        let share = if n + 1 == sizes.len() {
            left
        } else {
            reasoning * size / total
        };
        left -= share.min(left);
        out.push(share);
    }
    out
}

/// What identifies a reasoning item across copies: its encrypted content.
pub fn reasoning_key(v: &Value) -> Option<u128> {
    let enc = v.get("encrypted_content").and_then(Value::as_str)?;
    Some(xxhash_rust::xxh3::xxh3_128(enc.as_bytes()))
}

fn first_text(v: &Value) -> Option<&str> {
    v.get("content")?
        .as_array()?
        .iter()
        .find_map(|c| c.get("text").and_then(Value::as_str))
}

/// Completes the message read from `it` (whose value is `v`): the billed size of its
/// encrypted reasoning, the reasoning item its calls need, whether Codex injected it, and
/// a failed command's result marked as an error.
pub fn annotate(m: &mut Message, v: &Value, it: &ActiveItem, reasoned_calls: &HashSet<String>) {
    annotate_value(m, v, it.billed(), &|id| reasoned_calls.contains(id));
}

/// [`annotate`] with the item's value `v`, its billed size, and whether a call id was made
/// with a reasoning item.
pub fn annotate_value(
    m: &mut Message,
    v: &Value,
    billed: Option<usize>,
    reasoned: &dyn Fn(&str) -> bool,
) {
    if let Some(n) = billed {
        for p in &mut m.parts {
            if let Part::Opaque { kind, tokens, .. } = p {
                if kind == "encrypted_content" {
                    *tokens = Some(n);
                }
            }
        }
    }
    if is_call(v) {
        m.needs_reasoning = v
            .get("call_id")
            .and_then(Value::as_str)
            .is_some_and(reasoned);
    }
    if m.role == Role::User && kind(v) == "message" {
        m.injected = first_text(v).is_some_and(|t| {
            let t = t.trim_start();
            INJECTED.iter().any(|p| t.starts_with(p))
        });
    }
    if kind(v).ends_with("_call_output") && exit_code(v.get("output")).is_some_and(|c| c != 0) {
        for p in &mut m.parts {
            if let Part::ToolResult { is_error, .. } = p {
                *is_error = true;
            }
        }
    }
}

/// Whether `m` was read from a reasoning item: only reasoning text and encrypted content.
fn is_reasoning(m: &Message) -> bool {
    m.role == Role::Assistant
        && !m.parts.is_empty()
        && m.parts
            .iter()
            .all(|p| matches!(p, Part::Thinking(_) | Part::Opaque { .. }))
}

/// The encrypted reasoning of every turn a later user message closed costs nothing in the
/// next request: Codex sends the items back, and the Responses API drops the reasoning
/// that precedes the latest user message from the model's input (what real rollouts'
/// reported inputs show). Such an item counts 0 (its summary too, no longer kept as
/// text); returns the tokens of encrypted reasoning
/// that the reported request `usage` still held (its turn was open then), which the next
/// request no longer sends. The reader applies it message by message as it makes them
/// ([`Closed`], told from the roles alone); this whole-list form is what it must equal.
#[cfg(test)]
pub fn drop_closed_turns(messages: &mut [Message], usage: Option<&ReportedUsage>) -> u64 {
    let roles: Vec<Role> = messages.iter().map(|m| m.role).collect();
    let closed = Closed::of(&roles, usage);
    let mut dropped = 0;
    for (k, m) in messages.iter_mut().enumerate() {
        dropped += closed.close(k, m);
    }
    dropped
}

/// Which messages [`drop_closed_turns`] changes, told from the messages' roles.
#[derive(Debug, Clone, PartialEq)]
pub struct Closed {
    /// The messages before this one (the last user message) are in closed turns.
    pub before: usize,
    /// The messages of the reported request's turn.
    pub held: std::ops::Range<usize>,
}

impl Closed {
    pub fn of(roles: &[Role], usage: Option<&ReportedUsage>) -> Closed {
        let Some(last_user) = roles.iter().rposition(|r| *r == Role::User) else {
            return Closed {
                before: 0,
                held: 0..0,
            };
        };
        // The reported request held the reasoning of its own turn (from the user message
        // before it); a user message since then closed that turn.
        let held = match usage.and_then(|u| u.request_end) {
            Some(end) if end <= last_user => {
                let start = roles[..end]
                    .iter()
                    .rposition(|r| *r == Role::User)
                    .unwrap_or(0);
                start..end
            }
            _ => 0..0,
        };
        Closed {
            before: last_user,
            held,
        }
    }

    /// Message `k` (`m`) changed as [`drop_closed_turns`] changes it: the tokens of
    /// encrypted reasoning it takes away from the reported request.
    pub fn close(&self, k: usize, m: &mut Message) -> u64 {
        if k >= self.before || !is_reasoning(m) {
            return 0;
        }
        let mut dropped = 0;
        for p in &mut m.parts {
            match p {
                Part::Opaque { bytes, tokens, .. } => {
                    if self.held.contains(&k) {
                        dropped += tokens.unwrap_or_else(|| bytes.div_ceil(4)) as u64;
                    }
                    *tokens = Some(0);
                }
                // The summary goes with its item: not input either.
                Part::Thinking(text) => {
                    *p = Part::Opaque {
                        kind: "reasoning_summary".into(),
                        bytes: text.len(),
                        tokens: Some(0),
                    };
                }
                _ => {}
            }
        }
        dropped
    }
}

/// The exit code a tool output reports in its header: Codex 0.169's `Process exited with
/// code N` (shell) and `Exit code: N` (apply_patch) lines before `Output:`, or 0.5x's JSON
/// `{"output", "metadata": {"exit_code"}}`.
pub fn exit_code(output: Option<&Value>) -> Option<i64> {
    let text = output?.as_str()?;
    if let Ok(wrapped) = serde_json::from_str::<Value>(text) {
        return wrapped
            .pointer("/metadata/exit_code")
            .and_then(Value::as_i64);
    }
    for line in text.lines().take_while(|l| *l != "Output:").take(8) {
        let code = line
            .strip_prefix("Process exited with code ")
            .or_else(|| line.strip_prefix("Exit code: "));
        if let Some(c) = code.and_then(|c| c.trim().parse().ok()) {
            return Some(c);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn reasoning(tokens: usize) -> Message {
        Message::new(
            Role::Assistant,
            vec![
                Part::Thinking("thought".into()),
                Part::Opaque {
                    kind: "encrypted_content".into(),
                    bytes: 4 * tokens,
                    tokens: Some(tokens),
                },
            ],
            crate::session::Origin::Record(0),
        )
    }

    fn billed(m: &Message) -> Option<usize> {
        m.parts.iter().find_map(|p| match p {
            Part::Opaque { tokens, .. } => *tokens,
            _ => None,
        })
    }

    fn text(role: Role) -> Message {
        Message::new(
            role,
            vec![Part::Text("x".into())],
            crate::session::Origin::Record(0),
        )
    }

    #[test]
    fn reasoning_of_closed_turns_is_not_sent_again() {
        // user, reasoning(100), answer, user, reasoning(50), call
        let mut msgs = vec![
            text(Role::User),
            reasoning(100),
            text(Role::Assistant),
            text(Role::User),
            reasoning(50),
            text(Role::Assistant),
        ];
        // The report was for the request before the answer (index 2): it held 100.
        let usage = ReportedUsage {
            input_tokens: 1_000,
            output_tokens: 10,
            after_message: Some(2),
            request_end: Some(2),
            earlier: vec![],
            dropped: 0,
        };
        assert_eq!(drop_closed_turns(&mut msgs, Some(&usage)), 100);
        assert_eq!(billed(&msgs[1]), Some(0));
        // The open turn's reasoning is sent and costs what was billed.
        assert_eq!(billed(&msgs[4]), Some(50));
        // A report made in the open turn held no closed reasoning.
        let mut again = msgs.clone();
        let later = ReportedUsage {
            request_end: Some(5),
            ..usage
        };
        assert_eq!(drop_closed_turns(&mut again, Some(&later)), 0);
    }

    #[test]
    fn exit_codes_come_from_the_header_only() {
        let shell = json!("Chunk ID: 1\nWall time: 0 s\nProcess exited with code 1\nOutput:\nx");
        assert_eq!(exit_code(Some(&shell)), Some(1));
        let patch = json!("Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess.");
        assert_eq!(exit_code(Some(&patch)), Some(0));
        let quoted = json!("Chunk ID: 1\nOutput:\nProcess exited with code 3");
        assert_eq!(exit_code(Some(&quoted)), None);
        let old = json!("{\"output\":\"\",\"metadata\":{\"exit_code\":2}}");
        assert_eq!(exit_code(Some(&old)), Some(2));
        assert_eq!(exit_code(None), None);
    }
}
