//! Drift: what a newer agent release wrote that ctxctl was not made for. Every record is
//! kept byte for byte and counted conservatively whatever its type; this module makes the
//! unknown ones visible (`check -v`, `doctor`), with the agent version each file records
//! (Claude Code's `version`, Codex's `session_meta.payload.cli_version`), against the
//! versions ctxctl was verified with ([`VERIFIED`]).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::session::Format;

/// Versions of an agent, each with the day it was verified.
pub type Versions = &'static [(&'static str, &'static str)];

/// The agent versions each format was verified against with the real agent (its e2e
/// script resumes every rewrite), and when (see docs/AGENTS.md).
pub const VERIFIED: [(Format, &str, Versions); 2] = [
    (
        Format::ClaudeCode,
        "Claude Code",
        &[("2.1.197", "2026-11-23"), ("2.1.332", "2026-11-27")],
    ),
    (
        Format::Codex,
        "Codex",
        &[("0.169.0", "2026-11-27"), ("0.171.0", "2026-11-27")],
    ),
];

/// Claude Code record types ctxctl knows (read, kept, or knowingly passed over).
const CLAUDE_RECORDS: [&str; 20] = [
    "user",
    "assistant",
    "system",
    "attachment",
    "summary",
    "file-history-snapshot",
    "queue-operation",
    "last-prompt",
    "progress",
    "mode",
    "permission-mode",
    "ai-title",
    "custom-title",
    "agent-name",
    // 2.1.332: a journal of the requests (Claude Code resumes from the conversation
    // records, not from it), and session bookkeeping.
    "api-request",
    "api-request-blob",
    "api-request-shape",
    "atis-latch",
    "tools-used",
    "cost-state",
];

/// Claude Code attachment types ctxctl knows.
const CLAUDE_ATTACHMENTS: [&str; 16] = [
    "task_reminder",
    "file",
    "skill_listing",
    "agent_listing_delta",
    "compact_file_reference",
    "edited_text_file",
    "mcp_instructions_delta",
    "companion_intro",
    // 2.1.332
    "prompt_snapshot",
    "deferred_tools_delta",
    "environment",
    "model",
    "session_context",
    "date",
    "remote_session_change",
    "silent_turn_reminder",
];

/// Codex rollout record types ctxctl knows.
const CODEX_RECORDS: [&str; 8] = [
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "compacted",
    "token_usage_record",
    "world_state",
    "inter_agent_communication_metadata",
];

/// What one session file shows of its agent's release.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Drift {
    /// Versions the file records, with how many records name each.
    pub versions: BTreeMap<String, usize>,
    /// Record types ctxctl does not know.
    pub records: BTreeSet<String>,
    /// Attachment types ctxctl does not know (Claude Code).
    pub attachments: BTreeSet<String>,
}

impl Drift {
    /// The newest version the file records.
    pub fn version(&self) -> Option<&str> {
        self.versions
            .keys()
            .max_by(|a, b| compare(a, b))
            .map(String::as_str)
    }

    /// The sentence `check -v` and `doctor` print, when something is unknown.
    pub fn describe(&self, agent: &str) -> Option<String> {
        if self.records.is_empty() && self.attachments.is_empty() {
            return None;
        }
        let who = match self.version() {
            Some(v) => format!("{agent} {v}"),
            None => agent.to_string(),
        };
        let list = |s: &BTreeSet<String>| s.iter().cloned().collect::<Vec<_>>().join(", ");
        let mut parts = Vec::new();
        if !self.records.is_empty() {
            parts.push(format!(
                "{who} wrote record types ctxctl does not know: {} (kept byte for byte, not \
                 counted)",
                list(&self.records)
            ));
        }
        if !self.attachments.is_empty() {
            parts.push(format!(
                "{who} wrote attachment types ctxctl does not know: {} (kept byte for byte, \
                 counted as text)",
                list(&self.attachments)
            ));
        }
        Some(parts.join("; "))
    }

    pub fn merge(&mut self, other: Drift) {
        for (v, n) in other.versions {
            *self.versions.entry(v).or_default() += n;
        }
        self.records.extend(other.records);
        self.attachments.extend(other.attachments);
    }
}

/// The agent name and verified versions of `format`, if ctxctl tracks its releases.
pub fn verified(format: Format) -> Option<(&'static str, Versions)> {
    VERIFIED
        .iter()
        .find(|(f, _, _)| *f == format)
        .map(|(_, name, v)| (*name, *v))
}

/// The drift of a Claude Code transcript or Codex rollout `text` (other formats: none).
/// Lines that are not JSON objects are skipped (the reader words those errors).
pub fn scan(format: Format, text: &str) -> Drift {
    let mut d = Drift::default();
    if verified(format).is_none() {
        return d;
    }
    for line in text.lines() {
        let Ok(Value::Object(r)) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let ty = r.get("type").and_then(Value::as_str).unwrap_or("");
        match format {
            Format::ClaudeCode => {
                if let Some(v) = r.get("version").and_then(Value::as_str) {
                    *d.versions.entry(v.to_string()).or_default() += 1;
                }
                if !ty.is_empty() && !CLAUDE_RECORDS.contains(&ty) {
                    d.records.insert(ty.to_string());
                }
                let kind = r.get("attachment").and_then(|a| a.get("type"));
                if let Some(k) = kind.and_then(Value::as_str) {
                    if ty == "attachment" && !CLAUDE_ATTACHMENTS.contains(&k) {
                        d.attachments.insert(k.to_string());
                    }
                }
            }
            _ => {
                let v = r.get("payload").and_then(|p| p.get("cli_version"));
                if let Some(v) = v.and_then(Value::as_str) {
                    *d.versions.entry(v.to_string()).or_default() += 1;
                }
                if !ty.is_empty() && !CODEX_RECORDS.contains(&ty) {
                    d.records.insert(ty.to_string());
                }
            }
        }
    }
    d
}

/// Orders dotted versions numerically (`2.1.97` < `2.1.197`); pre-release tails compare
/// as text after the numbers.
pub fn compare(a: &str, b: &str) -> std::cmp::Ordering {
    let key = |v: &str| {
        let nums: Vec<u64> = v
            .split(|c: char| !c.is_ascii_digit())
            .take(3)
            .map(|n| n.parse().unwrap_or(0))
            .collect();
        (nums, v.to_string())
    };
    key(a).cmp(&key(b))
}

/// Where `version` stands against the verified ones of `format`: `None` when within the
/// verified range, else a note.
pub fn against_verified(format: Format, version: &str) -> Option<&'static str> {
    let (_, vs) = verified(format)?;
    let oldest = vs.first()?.0;
    let newest = vs.last()?.0;
    if compare(version, newest).is_gt() {
        Some("newer than verified")
    } else if compare(version, oldest).is_lt() {
        Some("older than verified (read by the fixtures' rules)")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_types_are_named_with_the_version() {
        let text = [
            r#"{"type":"user","version":"2.1.332","uuid":"u"}"#,
            r#"{"type":"api-request","requestRef":"r"}"#,
            r#"{"type":"brand-new","version":"2.1.400"}"#,
            r#"{"type":"attachment","attachment":{"type":"prompt_snapshot"}}"#,
            r#"{"type":"attachment","attachment":{"type":"hologram"}}"#,
            "not json",
        ]
        .join("\n");
        let d = scan(Format::ClaudeCode, &text);
        assert_eq!(d.version(), Some("2.1.400"));
        assert_eq!(d.records.iter().collect::<Vec<_>>(), ["brand-new"]);
        assert_eq!(d.attachments.iter().collect::<Vec<_>>(), ["hologram"]);
        let said = d.describe("Claude Code").unwrap();
        assert!(
            said.starts_with(
                "Claude Code 2.1.400 wrote record types ctxctl does not know: brand-new"
            ),
            "{said}"
        );
        assert!(said.contains("attachment types ctxctl does not know: hologram"));
        assert_eq!(scan(Format::OpenAi, &text), Drift::default());
    }

    #[test]
    fn codex_versions_and_records() {
        let text = r#"{"type":"session_meta","payload":{"cli_version":"0.171.0"}}
{"type":"response_item","payload":{}}
{"type":"mystery","payload":{}}"#;
        let d = scan(Format::Codex, text);
        assert_eq!(d.version(), Some("0.171.0"));
        assert_eq!(d.records.iter().collect::<Vec<_>>(), ["mystery"]);
        assert_eq!(against_verified(Format::Codex, "0.171.0"), None);
        assert_eq!(
            against_verified(Format::Codex, "0.180.0"),
            Some("newer than verified")
        );
        assert!(compare("2.1.97", "2.1.197").is_lt());
    }
}
