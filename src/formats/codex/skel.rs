//! One line of a Codex rollout reduced to what [`super::Rollout::parse`] reads of it
//! ([`Rec`]): the envelope's type and the few payload fields the history, the model, the
//! usage and the agent's limits depend on. Item text, tool output and encrypted reasoning
//! are skipped without being copied (an item's encrypted content leaves only its size and
//! hash), so that a rollout of any size is read in memory proportional to its active
//! history (see [`super::stream`]).
//!
//! Every field is read as the whole reader reads it from a parsed value: a field of
//! another JSON type than the one asked for counts as absent. A line the skeleton cannot
//! take (not an object, a key given twice) gives `None`: the caller reads the file whole.

use serde::Deserialize;
use serde_json::Value;

use crate::formats::stream::loose::{Loose, Obj, Seq};
use crate::session::Role;

/// What the reading of the history takes from one Responses item.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemFact {
    /// Its `type` (a model item has one, and it is not `ghost_snapshot`).
    pub kind: String,
    /// Its `role`, when a string.
    pub role: Option<String>,
    /// The hash of its `call_id`, when a string.
    pub call_id: Option<u64>,
    /// The size and hash of its `encrypted_content`, when a string.
    pub encrypted: Option<(usize, u128)>,
    /// A call of the freeform `apply_patch` tool (a `custom_tool_call` of that name): the
    /// request it answered carried that tool, so Codex sends shell outputs as plain text
    /// ([`super::shell_output`]).
    pub patch: bool,
}

impl ItemFact {
    /// The role of the message [`super::items::item_message`] makes of it; `None` where
    /// that gives an error (a message without a role).
    pub fn role(&self) -> Option<Role> {
        super::items::item_role(&self.kind, self.role.as_deref())
    }

    /// A user `message` (what an older compaction keeps).
    pub fn is_user_message(&self) -> bool {
        self.kind == "message" && self.role.as_deref() == Some("user")
    }
}

/// The hash a call id is known by.
pub fn call_hash(id: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(id.as_bytes())
}

/// What one usage report (`token_count`'s `info`) says.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Report {
    pub window: Option<u64>,
    /// `last_token_usage.reasoning_output_tokens`, when `last_token_usage` is there.
    pub reasoning: Option<Option<u64>>,
    pub input: Option<u64>,
    pub output: Option<u64>,
    pub total: Option<Value>,
}

/// One record of a rollout, as the whole reader takes it.
#[derive(Debug, Clone, PartialEq)]
pub enum Rec {
    /// `session_meta`: its `cli_version`, whether `base_instructions.text` is a string that
    /// is not empty, the instructions' text (not empty), and the tools it records that
    /// Codex sends ([`super::tools::sent`]).
    Meta {
        version: Option<String>,
        base_read: bool,
        text: Option<String>,
        tools: Option<String>,
    },
    /// A model item (`response_item`).
    Item(ItemFact),
    /// `compacted`: its `replacement_history`'s model items (with their place in it) when
    /// it is an array (else an older compaction's, whose summary is read again later).
    Compacted(Option<Vec<(usize, ItemFact)>>),
    TurnContext(Option<String>),
    /// `token_usage_record` with a `usage`: its `reasoning_output_tokens`.
    Billing(Option<u64>),
    /// `event_msg` `token_count` with an `info` object.
    TokenCount(Report),
    /// `event_msg` `task_started`: its window.
    TaskStarted(Option<u64>),
    /// `event_msg` `task_complete`: whether the context window was exceeded.
    TaskComplete(bool),
    /// A record without a payload (a legacy rollout's): whether it has a `record_type`,
    /// whether it has no `type`, its `instructions` (a string), and its item.
    Bare {
        record_type: bool,
        untyped: bool,
        instructions: Option<String>,
        item: Option<ItemFact>,
    },
    /// Anything else the history does not depend on.
    Other,
}

/// `text` (one line) as the whole reader takes it; `None` when the skeleton cannot read
/// it.
pub fn rec(text: &str) -> Option<Rec> {
    // Serde would take an array for the skeleton's fields in order: a record is an object.
    if crate::formats::stream::loose::too_deep(text)
        || !text
            .trim_start_matches([' ', '\t', '\r', '\n'])
            .starts_with('{')
    {
        return None;
    }
    let s: Line = serde_json::from_str(text).ok()?;
    let ty = s.ty.as_str().unwrap_or("");
    let p = match s.payload {
        Loose::Absent => {
            return Some(Rec::Bare {
                record_type: !matches!(s.record_type, Loose::Absent),
                untyped: matches!(s.ty, Loose::Absent),
                instructions: s.instructions.as_str().map(str::to_string),
                item: item_fact(&s.ty, &s.role, &s.call_id, &s.encrypted_content, &s.name),
            })
        }
        // A payload that is no object has none of the fields.
        Loose::Object(p) => p,
        _ => Payload::default(),
    };
    Some(match ty {
        "session_meta" => {
            let base = p.base_instructions.0.map(|b| b.text);
            let base_read = base
                .as_ref()
                .and_then(|t| t.as_str())
                .is_some_and(|t| !t.is_empty());
            let text = match &base {
                // `pointer("/base_instructions/text")` finds it, whatever its type.
                Some(t) if !matches!(t, Loose::Absent) => t.as_str(),
                _ => p.instructions.as_str(),
            };
            Rec::Meta {
                version: p.cli_version.as_str().map(str::to_string),
                base_read,
                text: text.filter(|t| !t.is_empty()).map(str::to_string),
                tools: p.dynamic_tools.as_ref().and_then(super::tools::listed),
            }
        }
        "response_item" => {
            match item_fact(&p.ty, &p.role, &p.call_id, &p.encrypted_content, &p.name) {
                Some(f) => Rec::Item(f),
                None => Rec::Other,
            }
        }
        "compacted" => Rec::Compacted(p.replacement_history.0.map(|h| {
            (h.into_iter().enumerate())
                .filter_map(|(k, o)| {
                    let i = o.0?;
                    Some((
                        k,
                        item_fact(&i.ty, &i.role, &i.call_id, &i.encrypted_content, &i.name)?,
                    ))
                })
                .collect()
        })),
        "turn_context" => Rec::TurnContext(p.model.as_str().map(str::to_string)),
        "token_usage_record" => match p.usage {
            Some(u) => Rec::Billing(u.get("reasoning_output_tokens").and_then(Value::as_u64)),
            None => Rec::Other,
        },
        "event_msg" => event(&p),
        _ => Rec::Other,
    })
}

fn event(p: &Payload) -> Rec {
    let window = |v: Option<&Value>| v.and_then(Value::as_u64).filter(|&w| w > 0);
    match p.ty.as_str() {
        Some("token_count") => match p.info.as_ref().filter(|i| i.is_object()) {
            Some(info) => {
                let last = info.get("last_token_usage");
                let n = |k: &str| last.and_then(|u| u.get(k)).and_then(Value::as_u64);
                Rec::TokenCount(Report {
                    window: window(info.get("model_context_window")),
                    reasoning: last
                        .map(|u| u.get("reasoning_output_tokens").and_then(Value::as_u64)),
                    input: n("input_tokens"),
                    output: n("output_tokens"),
                    total: info.get("total_token_usage").cloned(),
                })
            }
            None => Rec::Other,
        },
        Some("task_started") => Rec::TaskStarted(window(p.model_context_window.as_ref())),
        Some("task_complete") => Rec::TaskComplete(
            (p.error.0.as_ref()).and_then(|e| e.codex_error_info.as_str())
                == Some("context_window_exceeded"),
        ),
        _ => Rec::Other,
    }
}

/// The fact of a model item of this `type`, `role`, `call_id`, `encrypted_content` and
/// `name` (`None`: not a model item).
fn item_fact(
    ty: &Loose,
    role: &Loose,
    call_id: &Loose,
    encrypted: &Loose,
    name: &Loose,
) -> Option<ItemFact> {
    let kind = ty.as_str().filter(|t| *t != "ghost_snapshot")?;
    Some(ItemFact {
        patch: kind == "custom_tool_call" && name.as_str() == Some("apply_patch"),
        kind: kind.to_string(),
        role: role.as_str().map(str::to_string),
        call_id: call_id.as_str().map(call_hash),
        encrypted: (encrypted.as_str())
            .map(|e| (e.len(), xxhash_rust::xxh3::xxh3_128(e.as_bytes()))),
    })
}

/// The fields of a Responses item the history reads.
#[derive(Deserialize, Default)]
struct Item<'a> {
    #[serde(rename = "type", default, borrow)]
    ty: Loose<'a>,
    #[serde(default, borrow)]
    role: Loose<'a>,
    #[serde(default, borrow)]
    call_id: Loose<'a>,
    #[serde(default, borrow)]
    name: Loose<'a>,
    #[serde(default, borrow)]
    encrypted_content: Loose<'a>,
}

/// A line: an envelope, or a legacy rollout's bare item.
#[derive(Deserialize)]
struct Line<'a> {
    #[serde(rename = "type", default, borrow)]
    ty: Loose<'a>,
    #[serde(default, borrow)]
    role: Loose<'a>,
    #[serde(default, borrow)]
    call_id: Loose<'a>,
    #[serde(default, borrow)]
    name: Loose<'a>,
    #[serde(default, borrow)]
    encrypted_content: Loose<'a>,
    #[serde(default, borrow)]
    payload: Loose<'a, Payload<'a>>,
    #[serde(default, borrow)]
    record_type: Loose<'a>,
    #[serde(default, borrow)]
    instructions: Loose<'a>,
}

/// The payload fields of every record type the history reads.
#[derive(Deserialize, Default)]
struct Payload<'a> {
    #[serde(rename = "type", default, borrow)]
    ty: Loose<'a>,
    #[serde(default, borrow)]
    role: Loose<'a>,
    #[serde(default, borrow)]
    call_id: Loose<'a>,
    #[serde(default, borrow)]
    name: Loose<'a>,
    #[serde(default, borrow)]
    encrypted_content: Loose<'a>,
    #[serde(default, borrow)]
    cli_version: Loose<'a>,
    #[serde(default, borrow)]
    base_instructions: Obj<Text<'a>>,
    #[serde(default, borrow)]
    instructions: Loose<'a>,
    #[serde(default, borrow)]
    replacement_history: Seq<Obj<Item<'a>>>,
    #[serde(default, borrow)]
    model: Loose<'a>,
    #[serde(default)]
    usage: Option<Value>,
    #[serde(default)]
    dynamic_tools: Option<Value>,
    #[serde(default)]
    info: Option<Value>,
    #[serde(default)]
    model_context_window: Option<Value>,
    #[serde(default, borrow)]
    error: Obj<Error<'a>>,
}

#[derive(Deserialize, Default)]
struct Text<'a> {
    #[serde(default, borrow)]
    text: Loose<'a>,
}

#[derive(Deserialize, Default)]
struct Error<'a> {
    #[serde(default, borrow)]
    codex_error_info: Loose<'a>,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn line(ty: &str, payload: Value) -> String {
        json!({"timestamp": "t", "type": ty, "payload": payload}).to_string()
    }

    #[test]
    fn a_payload_that_is_no_object_has_none_of_the_fields() {
        let none = Rec::Meta {
            version: None,
            base_read: false,
            text: None,
            tools: None,
        };
        assert_eq!(rec(&line("session_meta", json!(null))), Some(none.clone()));
        assert_eq!(rec(&line("session_meta", json!(12))), Some(none.clone()));
        assert_eq!(rec(&line("session_meta", json!([1]))), Some(none));
        // Without a payload, a line is a legacy rollout's.
        assert_eq!(
            rec(r#"{"id":"x","instructions":"rules"}"#),
            Some(Rec::Bare {
                record_type: false,
                untyped: true,
                instructions: Some("rules".into()),
                item: None
            })
        );
    }

    #[test]
    fn instructions_are_read_as_the_whole_reader_points_at_them() {
        let text = |p: Value| match rec(&line("session_meta", p)) {
            Some(Rec::Meta {
                text, base_read, ..
            }) => (text, base_read),
            other => panic!("{other:?}"),
        };
        let base = json!({"base_instructions": {"text": "base"}, "instructions": "old"});
        assert_eq!(text(base), (Some("base".into()), true));
        // A `text` that is there but no string hides `instructions`; no `text` does not.
        let null = json!({"base_instructions": {"text": null}, "instructions": "old"});
        assert_eq!(text(null), (None, false));
        let absent = json!({"base_instructions": {}, "instructions": "old"});
        assert_eq!(text(absent), (Some("old".into()), false));
        let listed = json!({"base_instructions": ["text"], "instructions": ""});
        assert_eq!(text(listed), (None, false));
    }

    #[test]
    fn items_keep_their_role_call_and_encrypted_size() {
        let item = json!({"type": "reasoning", "role": 3, "call_id": "c", "encrypted_content": "abcd", "summary": [{"text": "x"}]});
        let Some(Rec::Item(f)) = rec(&line("response_item", item)) else {
            panic!()
        };
        assert_eq!((f.kind.as_str(), f.role.as_deref()), ("reasoning", None));
        assert_eq!(f.call_id, Some(call_hash("c")));
        assert_eq!(f.encrypted.map(|e| e.0), Some(4));
        assert_eq!(f.role(), Some(Role::Assistant));
        let ghost = json!({"type": "ghost_snapshot"});
        assert_eq!(rec(&line("response_item", ghost)), Some(Rec::Other));
        let history = json!({"replacement_history": [json!({"type": "message", "role": "user"}), 5, {"type": "ghost_snapshot"}, {"type": "compaction"}]});
        let Some(Rec::Compacted(Some(h))) = rec(&line("compacted", history)) else {
            panic!()
        };
        let kept: Vec<(usize, &str)> = h.iter().map(|(k, f)| (*k, f.kind.as_str())).collect();
        assert_eq!(kept, [(0, "message"), (3, "compaction")]);
        assert!(h[0].1.is_user_message());
    }

    #[test]
    fn reports_are_read_as_unsigned_integers() {
        let info = json!({"type": "token_count", "info": {"last_token_usage": {"input_tokens": 1.0, "output_tokens": 2, "reasoning_output_tokens": -1}, "total_token_usage": {"total_tokens": 3}, "model_context_window": 0}});
        let Some(Rec::TokenCount(r)) = rec(&line("event_msg", info)) else {
            panic!()
        };
        assert_eq!(
            (r.input, r.output, r.reasoning, r.window),
            (None, Some(2), Some(None), None)
        );
        assert_eq!(r.total, Some(json!({"total_tokens": 3})));
        let no_info = json!({"type": "token_count", "info": null});
        assert_eq!(rec(&line("event_msg", no_info)), Some(Rec::Other));
    }

    #[test]
    fn what_the_skeleton_cannot_take_is_left_to_the_whole_reader() {
        for text in [
            "[1]",
            "7",
            r#"{"type":"a","type":"b"}"#,
            r#"{"payload":{"model":1,"model":2}}"#,
        ] {
            assert_eq!(rec(text), None, "{text}");
        }
    }
}
