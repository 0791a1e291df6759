//! Shell outputs as Codex sends them. Codex 0.4x–0.6x record a shell call's output as the
//! JSON text `{"output": "…", "metadata": {"exit_code": 0, "duration_seconds": 1.8}}`, but
//! when the request carries the freeform (`custom`) `apply_patch` tool, they send every
//! such output of the history as plain text instead (`reserialize_shell_outputs` in
//! `client_common.rs`):
//!
//! ```text
//! Exit code: 0
//! Wall time: 1.8 seconds
//! Total output lines: 3000      (only when the output began with that header)
//! Output:
//! …
//! ```
//!
//! The JSON escapes every newline and quote, so counting the recorded text over-counts a
//! long output by about a tenth (about 4,800 tokens over the 92 outputs of one real 0.57
//! session). Which builds do it was read off the real binaries from npm (0.45 to 0.63
//! against a local stand-in of the API: the recorded output against the one sent); they
//! send the freeform tool, and so reformat, for some models only, and the model tables
//! change from build to build, so ctxctl reformats only in a rollout whose model called the
//! freeform tool ([`super::skel::ItemFact::patch`]): a rollout that never patched is counted as
//! recorded. Later builds record the plain text already; this changes nothing there.

use std::collections::HashSet;

use serde::Deserialize;

use super::skel::Rec;
use crate::session::{LinesDoc, Message, Part};

/// The tool calls whose outputs Codex reformats (`is_shell_tool_name`, `apply_patch`,
/// and the `local_shell_call` items, which ctxctl names `local_shell`).
fn reformatted(name: &str) -> bool {
    matches!(
        name,
        "shell" | "container.exec" | "apply_patch" | "local_shell"
    )
}

#[derive(Deserialize)]
struct Structured {
    output: String,
    metadata: Metadata,
}

#[derive(Deserialize)]
struct Metadata {
    exit_code: i32,
    duration_seconds: f32,
}

/// The plain text Codex sends for a recorded structured output `raw`; `None` when `raw` is
/// not one (then it is sent as it is).
pub fn plain(raw: &str) -> Option<String> {
    let s: Structured = serde_json::from_str(raw).ok()?;
    let mut sections = vec![
        format!("Exit code: {}", s.metadata.exit_code),
        format!("Wall time: {} seconds", s.metadata.duration_seconds),
    ];
    let mut output = s.output.as_str();
    if let Some((rest, total)) = total_header(output) {
        sections.push(format!("Total output lines: {total}"));
        output = rest;
    }
    sections.push("Output:".to_string());
    sections.push(output.to_string());
    Some(sections.join("\n"))
}

/// `output` without its `Total output lines: N` header, and N.
fn total_header(output: &str) -> Option<(&str, u32)> {
    let after = output.strip_prefix("Total output lines: ")?;
    let (total, rest) = after.split_once('\n')?;
    let total = total.parse::<u32>().ok()?;
    Some((rest.strip_prefix('\n').unwrap_or(rest), total))
}

/// The output a text of [`plain`]'s shape holds (what goes back inside a structured
/// record when a rewrite edits it); `None` for any other text.
pub fn output_of_plain(text: &str) -> Option<&str> {
    if !text.starts_with("Exit code: ") {
        return None;
    }
    let (head, output) = text.split_once("\nOutput:\n")?;
    let mut lines = head.lines();
    let known = lines.next()?.starts_with("Exit code: ")
        && lines.next()?.starts_with("Wall time: ")
        && lines.all(|l| l.starts_with("Total output lines: "));
    known.then_some(output)
}

/// Reformats the outputs of a session's messages, in order, as Codex does for a request
/// carrying the freeform `apply_patch` tool: each call's first output only.
#[derive(Debug, Default)]
pub struct Reformat {
    on: bool,
    calls: HashSet<String>,
}

impl Reformat {
    /// Reformatting when `on` (the rollout's model called the freeform tool).
    pub fn new(on: bool) -> Reformat {
        Reformat {
            on,
            calls: HashSet::new(),
        }
    }

    /// Message `m`, the next, with its structured outputs as Codex sends them.
    pub fn message(&mut self, m: &mut Message) {
        if !self.on {
            return;
        }
        for p in &mut m.parts {
            match p {
                Part::ToolCall { id, name, .. } if reformatted(name) => {
                    self.calls.insert(id.clone());
                }
                Part::ToolResult {
                    call_id, content, ..
                } if self.calls.remove(call_id.as_str()) => {
                    if let [Part::Text(text)] = content.as_mut_slice() {
                        if let Some(sent) = plain(text) {
                            *text = sent;
                        }
                    }
                }
                _ => {}
            }
        }
    }
}

/// Whether a line of the rollout holds a call of the freeform `apply_patch` tool (as an
/// item of its own or in a compaction's history), read as the streamed reader's first pass
/// reads it ([`super::stream`]).
fn patched(line: &str) -> bool {
    if memchr::memmem::find(line.as_bytes(), b"apply_patch").is_none() {
        return false;
    }
    match super::skel::rec(line) {
        Some(Rec::Item(f)) => f.patch,
        Some(Rec::Bare { item: Some(f), .. }) => f.patch,
        Some(Rec::Compacted(Some(history))) => history.iter().any(|(_, f)| f.patch),
        _ => false,
    }
}

impl Reformat {
    /// The reformatting of the rollout `doc`'s messages (the whole reader's side; the
    /// streamed one learns the same from its first pass, [`super::stream::Planned::patch`]).
    pub fn of_doc(doc: &LinesDoc) -> Reformat {
        Reformat::new((0..doc.lines.len()).any(|i| patched(doc.line(i))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{Origin, Role};

    #[test]
    fn a_structured_output_is_sent_as_text_its_total_header_moved() {
        let raw = r#"{"output":"Total output lines: 3000\n\nline 1\nline 3000\n","metadata":{"exit_code":0,"duration_seconds":0.0}}"#;
        assert_eq!(
            plain(raw).as_deref(),
            Some("Exit code: 0\nWall time: 0 seconds\nTotal output lines: 3000\nOutput:\nline 1\nline 3000\n")
        );
        let raw =
            r#"{"output":"boom","metadata":{"exit_code":2,"duration_seconds":1.8},"extra":1}"#;
        assert_eq!(
            plain(raw).as_deref(),
            Some("Exit code: 2\nWall time: 1.8 seconds\nOutput:\nboom")
        );
        // Anything else is sent as it is.
        for raw in [
            "plain text",
            r#"{"output":"x"}"#,
            r#"{"output":1,"metadata":{"exit_code":0,"duration_seconds":0}}"#,
            r#"{"output":"x","metadata":{"exit_code":"0","duration_seconds":0}}"#,
        ] {
            assert_eq!(plain(raw), None, "{raw}");
        }
    }

    #[test]
    fn the_output_of_a_plain_text_is_found_again() {
        let raw = r#"{"output":"Total output lines: 9\n\na\nb","metadata":{"exit_code":1,"duration_seconds":2.5}}"#;
        assert_eq!(output_of_plain(&plain(raw).unwrap()), Some("a\nb"));
        assert_eq!(output_of_plain("Exit code: 0\nOutput:\nx"), None);
        assert_eq!(output_of_plain("[ctxctl masked this result]"), None);
    }

    fn call(id: &str, name: &str) -> Message {
        let part = Part::ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: "{}".into(),
        };
        Message::new(Role::Assistant, vec![part], Origin::Record(0))
    }

    fn result(id: &str, text: &str) -> Message {
        let part = Part::ToolResult {
            call_id: id.into(),
            content: vec![Part::Text(text.into())],
            is_error: false,
        };
        Message::new(Role::Tool, vec![part], Origin::Record(0))
    }

    fn text(m: &Message) -> &str {
        match &m.parts[0] {
            Part::ToolResult { content, .. } => match &content[0] {
                Part::Text(t) => t,
                _ => unreachable!(),
            },
            _ => unreachable!(),
        }
    }

    #[test]
    fn only_shell_and_patch_outputs_are_reformatted_once_and_only_when_on() {
        let raw = r#"{"output":"ok","metadata":{"exit_code":0,"duration_seconds":0.5}}"#;
        let sent = "Exit code: 0\nWall time: 0.5 seconds\nOutput:\nok";
        let mut msgs = vec![
            call("a", "shell"),
            result("a", raw),
            result("a", raw), // a second output of the same call: as recorded
            call("b", "update_plan"),
            result("b", raw),
            call("c", "apply_patch"),
            result("c", raw),
            result("z", raw), // no call before it
        ];
        let mut on = Reformat::new(true);
        for m in &mut msgs {
            on.message(m);
        }
        let texts: Vec<&str> = [1, 2, 4, 6, 7].iter().map(|&i| text(&msgs[i])).collect();
        assert_eq!(texts, [sent, raw, raw, sent, raw]);

        let mut msgs = vec![call("a", "shell"), result("a", raw)];
        let mut off = Reformat::new(false);
        for m in &mut msgs {
            off.message(m);
        }
        assert_eq!(text(&msgs[1]), raw);
    }
}
