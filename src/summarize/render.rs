//! Messages rendered as a readable transcript for a summarizer model.

use std::fmt::Write;

use crate::session::{Message, Part};

/// How to render a transcript.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TranscriptOptions {
    /// Tool results (numbered in order of appearance, from 0) whose content is left out.
    pub stripped_results: Vec<usize>,
}

/// What a removed tool result's content becomes.
pub const STRIPPED: &str = "[content removed to fit the summarizer's input window]";

#[cfg_attr(not(feature = "llm"), allow(dead_code))]
/// Number of tool results in `messages` (earlier summaries skipped), the units
/// [`TranscriptOptions::stripped_results`] counts.
pub fn count_results(messages: &[Message]) -> usize {
    conversation(messages)
        .flat_map(|m| &m.parts)
        .filter(|p| matches!(p, Part::ToolResult { .. }))
        .count()
}

/// Renders `messages` as `[role]` blocks: text as is, `tool_call name(args)`,
/// `tool_result: …`, `[image: type]`, `thinking: …`. Earlier compaction summaries are left
/// out (the prompt carries them separately).
pub fn render_transcript(messages: &[Message], opts: &TranscriptOptions) -> String {
    let mut stripped = opts.stripped_results.clone();
    stripped.sort_unstable();
    let mut out = String::new();
    let mut result_no = 0;
    for m in conversation(messages) {
        if !out.is_empty() {
            out.push('\n');
        }
        let _ = write!(out, "[{}", m.role);
        if let Some(name) = &m.name {
            let _ = write!(out, " {name}");
        }
        out.push_str("]\n");
        for p in &m.parts {
            let strip = matches!(p, Part::ToolResult { .. }) && {
                let s = stripped.binary_search(&result_no).is_ok();
                result_no += 1;
                s
            };
            part(&mut out, p, strip);
        }
    }
    out
}

fn conversation(messages: &[Message]) -> impl Iterator<Item = &Message> {
    messages.iter().filter(|m| m.compact.is_none())
}

fn part(out: &mut String, p: &Part, strip: bool) {
    match p {
        Part::Text(t) => line(out, "", t),
        Part::Thinking(t) => line(out, "thinking: ", t),
        Part::ToolCall {
            name, arguments, ..
        } => {
            let _ = writeln!(out, "tool_call {name}({arguments})");
        }
        Part::ToolResult {
            content, is_error, ..
        } => {
            let label = if *is_error {
                "tool_result (error): "
            } else {
                "tool_result: "
            };
            if strip {
                line(out, label, STRIPPED);
                return;
            }
            let mut body = String::new();
            for c in content {
                part(&mut body, c, false);
            }
            line(out, label, body.trim_end());
        }
        Part::Image { media_type } => match media_type {
            Some(t) => line(out, "", &format!("[image: {t}]")),
            None => line(out, "", "[image]"),
        },
        Part::Opaque { kind, .. } => line(out, "", &format!("[{kind}]")),
        Part::Other { kind } => line(out, "", &format!("[{kind}]")),
    }
}

fn line(out: &mut String, label: &str, text: &str) {
    out.push_str(label);
    out.push_str(text);
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{CompactMeta, Origin, Role};

    fn m(role: Role, parts: Vec<Part>) -> Message {
        Message::new(role, parts, Origin::Record(0))
    }

    #[test]
    fn renders_every_part_kind_and_strips_chosen_results() {
        let result = |id: &str, t: &str| Part::ToolResult {
            call_id: id.into(),
            content: vec![Part::Text(t.into()), Part::Image { media_type: None }],
            is_error: id == "2",
        };
        let mut summary = m(Role::User, vec![Part::Text("old summary".into())]);
        summary.compact = Some(Box::new(CompactMeta {
            id: None,
            seq: None,
            timestamp: None,
            by: "ctxctl",
        }));
        let msgs = vec![
            summary,
            m(Role::User, vec![Part::Text("hello".into())]),
            m(
                Role::Assistant,
                vec![
                    Part::Thinking("hmm".into()),
                    Part::ToolCall {
                        id: "1".into(),
                        name: "ls".into(),
                        arguments: "{\"a\":1}".into(),
                    },
                    Part::Image {
                        media_type: Some("image/png".into()),
                    },
                ],
            ),
            m(Role::Tool, vec![result("1", "out1")]),
            m(Role::Tool, vec![result("2", "out2")]),
        ];
        assert_eq!(count_results(&msgs), 2);
        let text = render_transcript(&msgs, &TranscriptOptions::default());
        assert_eq!(
            text,
            "[user]\nhello\n\n[assistant]\nthinking: hmm\ntool_call ls({\"a\":1})\n[image: image/png]\n\n\
             [tool]\ntool_result: out1\n[image]\n\n[tool]\ntool_result (error): out2\n[image]\n"
        );
        let opts = TranscriptOptions {
            stripped_results: vec![1],
        };
        let text = render_transcript(&msgs, &opts);
        assert!(text.contains("out1") && !text.contains("out2"), "{text}");
        assert!(text.contains(&format!("tool_result (error): {STRIPPED}")));
    }
}
