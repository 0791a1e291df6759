//! What Claude Code re-attaches after its own compaction without writing it to the file.
//!
//! Right after a compaction Claude Code sends, besides the summary, the files the session
//! read or wrote last before it (its `readFileState`, cleared by every compaction), read
//! again from disk: at most [`FILES`] of them, the most recent first; a file over
//! [`per_file_limit`] tokens becomes a note that it was too large, and the files stop
//! where their attachments would pass [`TOTAL_LIMIT`] tokens (the bundles 2.0.0–2.1.96:
//! `tengu_post_compact_file_restore_success`, `compact_file_reference`). The project's and
//! user's `CLAUDE.md` and the plan file are never among them. Builds from 2.1.97 write
//! these attachments to the transcript (counted as the other records); earlier ones keep
//! them only in memory, so ctxctl rebuilds them here from the `Read`, `Write`, `Edit` and
//! `MultiEdit` calls before the boundary ([`Reattach::observe`]) and renders them as
//! Claude Code does ([`Reattach::texts`]): a file as a `Read` call and its result, each a
//! `<system-reminder>`, the result's text (numbered lines) as a JSON string.

use std::collections::HashMap;

use serde_json::Value;

use crate::session::AgentVersion;

/// How many files Claude Code restores after a compaction.
pub const FILES: usize = 5;
/// The tokens all restored files may take together (their attachments' JSON, by bytes/4).
pub const TOTAL_LIMIT: usize = 50_000;
/// The first build that writes the re-attached files to the transcript.
pub const RECORDED_FROM: AgentVersion = [2, 1, 97];
/// The first build that restores files after a compaction with the limits modelled here.
pub const MODELLED_FROM: AgentVersion = [1, 0, 50];

/// The tokens one restored file may take (Claude Code's token count of its content):
/// 10,000 in 1.0.x, 5,000 from 2.0.0.
pub fn per_file_limit(version: AgentVersion) -> usize {
    if version < [2, 0, 0] {
        10_000
    } else {
        5_000
    }
}

/// Whether a transcript written by `version` holds no record of what its compactions
/// re-attach, so ctxctl models it.
pub fn modelled(version: Option<AgentVersion>) -> bool {
    version.is_some_and(|v| (MODELLED_FROM..RECORDED_FROM).contains(&v))
}

/// A file as the session last left it.
#[derive(Debug, Clone)]
struct File {
    /// Its content as far as the transcript shows it.
    content: String,
    /// The transcript shows only part of it (a `Read` with an offset or a limit): the
    /// whole is about `scale` times the part.
    scale: f64,
    /// When it was last read or written (the order of the records).
    seq: usize,
}

/// The files a session's `Read`, `Write`, `Edit` and `MultiEdit` calls left in Claude
/// Code's `readFileState`, fed the thread's records in order.
#[derive(Debug, Default)]
pub struct Reattach {
    files: HashMap<String, File>,
    /// Tool calls not answered yet: id → (tool, input).
    calls: HashMap<String, (String, Value)>,
    /// The session's working directory (its `CLAUDE.md` is not restored).
    cwd: Option<String>,
    seq: usize,
}

impl Reattach {
    pub fn new() -> Reattach {
        Reattach::default()
    }

    /// Takes one record of the thread (in file order).
    pub fn observe(&mut self, rec: &Value) {
        if let Some(cwd) = rec.get("cwd").and_then(Value::as_str) {
            self.cwd = Some(cwd.to_string());
        }
        let Some(content) = rec.pointer("/message/content").and_then(Value::as_array) else {
            return;
        };
        match rec.get("type").and_then(Value::as_str) {
            Some("assistant") => {
                for b in content {
                    if b.get("type").and_then(Value::as_str) != Some("tool_use") {
                        continue;
                    }
                    let (Some(id), Some(name)) = (
                        b.get("id").and_then(Value::as_str),
                        b.get("name").and_then(Value::as_str),
                    ) else {
                        continue;
                    };
                    let input = b.get("input").cloned().unwrap_or(Value::Null);
                    self.calls.insert(id.to_string(), (name.to_string(), input));
                }
            }
            Some("user") => {
                for b in content {
                    if b.get("type").and_then(Value::as_str) != Some("tool_result")
                        || b.get("is_error").and_then(Value::as_bool) == Some(true)
                    {
                        continue;
                    }
                    let Some(id) = b.get("tool_use_id").and_then(Value::as_str) else {
                        continue;
                    };
                    if let Some((name, input)) = self.calls.remove(id) {
                        self.result(&name, &input, b, rec.get("toolUseResult"));
                    }
                }
            }
            _ => {}
        }
    }

    /// A tool call's successful result: what it left of the file.
    fn result(&mut self, name: &str, input: &Value, block: &Value, outcome: Option<&Value>) {
        let Some(path) = input.get("file_path").and_then(Value::as_str) else {
            return;
        };
        self.seq += 1;
        let seq = self.seq;
        let known = self.files.get(path).map(|f| f.content.clone());
        let file = match name {
            "Read" => read(input, block, outcome),
            "Write" => input
                .get("content")
                .and_then(Value::as_str)
                .map(|c| (c.to_string(), 1.0)),
            "Edit" | "MultiEdit" => {
                let before = outcome
                    .and_then(|o| o.get("originalFile"))
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .or(known);
                let edits: Vec<&Value> = match input.get("edits").and_then(Value::as_array) {
                    Some(list) => list.iter().collect(),
                    None => vec![input],
                };
                before.map(|b| (edits.iter().fold(b, |text, e| edit(&text, e)), 1.0))
            }
            _ => return,
        };
        match file {
            Some((content, scale)) => {
                self.files.insert(
                    path.to_string(),
                    File {
                        content,
                        scale,
                        seq,
                    },
                );
            }
            // Changed in a way the file does not show: still among the recent ones.
            None => {
                if let Some(f) = self.files.get_mut(path) {
                    f.seq = seq;
                }
            }
        }
    }

    /// The texts Claude Code sends for the files it restores, in order, each the text of
    /// one user message; `tokens` is Claude's count of a file's content (for the limits).
    pub fn texts(&self, version: AgentVersion, tokens: &dyn Fn(&str) -> usize) -> Vec<String> {
        let mut recent: Vec<(&String, &File)> = self
            .files
            .iter()
            .filter(|(p, _)| !self.never_restored(p))
            .collect();
        recent.sort_by_key(|f| std::cmp::Reverse(f.1.seq));
        let mut out = Vec::new();
        let mut total = 0;
        for (path, f) in recent.into_iter().take(FILES) {
            let whole = (tokens(&f.content) as f64 * f.scale).round() as usize;
            if whole > per_file_limit(version) {
                out.push(reminder(&format!(
                    "Note: {path} was read before the last conversation was summarized, but \
                     the contents are too large to include. Use Read tool if you need to \
                     access it."
                )));
                continue;
            }
            let result = serde_json::to_string(&format!("{}{MALWARE}", numbered(&f.content)))
                .unwrap_or_default();
            // Claude Code weighs each attachment by its JSON's bytes / 4.
            let weight = (result.len() as f64 * f.scale / 4.0).round() as usize + 60;
            if total + weight > TOTAL_LIMIT {
                continue;
            }
            total += weight;
            out.push(reminder(&format!(
                "Called the Read tool with the following input: {}",
                serde_json::json!({ "file_path": path })
            )));
            out.push(reminder(&format!(
                "Result of calling the Read tool: {result}"
            )));
        }
        out
    }

    /// The memory files Claude Code loads itself (`CLAUDE.md`, `CLAUDE.local.md` in the
    /// working directory or `~/.claude`) and plan files.
    fn never_restored(&self, path: &str) -> bool {
        let (dir, name) = path.rsplit_once(['/', '\\']).unwrap_or(("", path));
        let memory = matches!(name, "CLAUDE.md" | "CLAUDE.local.md")
            && (self.cwd.as_deref() == Some(dir) || dir.ends_with(".claude"));
        memory || path.contains("/.claude/plans/")
    }
}

/// The reminder Claude Code appends to a file's content in a `Read` result.
const MALWARE: &str = "\n\n<system-reminder>\nWhenever you read a file, you should consider \
whether it would be considered malware. You CAN and SHOULD provide analysis of malware, what \
it is doing. But you MUST refuse to improve or augment the code. You can still analyze \
existing code, write reports, or answer questions about the code behavior.\n</system-reminder>\n";

fn reminder(text: &str) -> String {
    format!("<system-reminder>\n{text}\n</system-reminder>")
}

/// A file's lines as Claude Code's `Read` numbers them (`     1→…`).
fn numbered(content: &str) -> String {
    content
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .enumerate()
        .map(|(i, l)| format!("{:>6}→{l}", i + 1))
        .collect::<Vec<_>>()
        .join("\n")
}

/// What a `Read` showed of the file: its content, and how much larger the whole is.
fn read(input: &Value, block: &Value, outcome: Option<&Value>) -> Option<(String, f64)> {
    if let Some(file) = outcome.and_then(|o| o.get("file")) {
        let content = file.get("content").and_then(Value::as_str)?;
        let num = |k: &str| file.get(k).and_then(Value::as_u64);
        let scale = match (num("numLines"), num("totalLines")) {
            (Some(n), Some(t)) if n > 0 && t > n => t as f64 / n as f64,
            _ => 1.0,
        };
        return Some((content.to_string(), scale));
    }
    // No structured result: the numbered text, reminders taken out (as Claude Code's
    // SDK rebuilds its `readFileState` from a transcript).
    let text = match block.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => return None,
    };
    let text = strip_reminders(&text);
    let content: Vec<&str> = text
        .split('\n')
        .map(|l| match l.split_once('→') {
            Some((n, rest))
                if !n.trim().is_empty() && n.trim().chars().all(|c| c.is_ascii_digit()) =>
            {
                rest
            }
            _ => l,
        })
        .collect();
    // A part of unknown size is taken as the whole: the best the file shows.
    let _ = input;
    Some((content.join("\n").trim().to_string(), 1.0))
}

fn strip_reminders(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("<system-reminder>") {
        out.push_str(&rest[..start]);
        match rest[start..].find("</system-reminder>") {
            Some(end) => rest = &rest[start + end + "</system-reminder>".len()..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// `text` after one `Edit` (`old_string` → `new_string`, every occurrence with
/// `replace_all`).
fn edit(text: &str, e: &Value) -> String {
    let s = |k: &str| e.get(k).and_then(Value::as_str);
    let (Some(old), Some(new)) = (s("old_string"), s("new_string")) else {
        return text.to_string();
    };
    if old.is_empty() {
        return text.to_string();
    }
    if e.get("replace_all").and_then(Value::as_bool) == Some(true) {
        text.replace(old, new)
    } else {
        text.replacen(old, new, 1)
    }
}

#[cfg(test)]
#[path = "reattach_tests.rs"]
mod tests;
