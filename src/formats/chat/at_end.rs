//! What a document read by [`crate::formats::stream`] is, told at its end from what lies
//! around its message list, exactly as [`super::read_detected`] tells it from the whole
//! text: the same layout, the same detection, the same model and request extras.

use serde_json::Value;

use super::{bom, layout, system_message, Entries};
use crate::formats::detect::{detect_layout, LayoutFacts};
use crate::formats::message::Notes;
use crate::formats::stream::{ListName, Outline};
use crate::session::{Format, ListKey, Message};

/// A streamed OpenAI or Anthropic document, apart from its records.
#[derive(Debug, Clone, PartialEq)]
pub struct Streamed {
    pub format: Format,
    pub model: Option<String>,
    /// What the request sends besides its messages (see [`crate::session::Session`]).
    pub request_extra: Option<String>,
    /// Anthropic's system prompt: message 0, though it may come after the list.
    pub system: Option<Message>,
    /// The system prompt comes after the list (it was not read before the records).
    pub system_after: bool,
    /// Where the system prompt's value is in the document.
    pub system_span: Option<std::ops::Range<usize>>,
    /// No system prompt follows the records: a grown version of the file can be read from
    /// where they end.
    pub resumable: bool,
}

/// What the streamed document `o` is (notes of a system prompt after the list go to
/// `notes`); `None` when it is not an OpenAI or Anthropic
/// document read this way (the whole-document reader then decides, and words errors).
pub fn outline(o: &Outline, notes: &mut Notes) -> Option<Streamed> {
    let text = &o.text;
    let layout = layout(text, bom(text)).ok()?;
    let key = o.key.map(ListName::key);
    let same_list = match (&layout.list, key) {
        (ListKey::Root, None) => true,
        (ListKey::Key(k), Some(name)) => k == name,
        _ => false,
    };
    if !same_list || layout.list_span != (o.list_at..o.list_at + 2) {
        return None;
    }
    let facts = LayoutFacts {
        root_array: layout.list == ListKey::Root,
        members: layout
            .members
            .iter()
            .map(|(k, r)| (k.as_str(), &text[r.clone()]))
            .collect(),
        list_key: key.unwrap_or(""),
        records: o.head.iter().map(String::as_str).collect(),
        one_line: o.one_line,
    };
    let format = detect_layout(&facts)?;
    let model = match &layout.model {
        Some(span) => serde_json::from_str::<Value>(&text[span.clone()])
            .ok()?
            .as_str()
            .map(str::to_string),
        None => None,
    };
    let (system, system_after) = match &layout.system {
        Some(span) if format == Format::Anthropic => {
            let v: Value = serde_json::from_str(&text[span.clone()]).ok()?;
            let after = span.end > o.list_at;
            // Notes of one before the list were taken when it was read, early.
            let mut early = Notes::default();
            let m = system_message(&v, if after { notes } else { &mut early }).ok()?;
            (m, after)
        }
        _ => (None, false),
    };
    // The outline's places past its emptied list, as the document's.
    let past = |p: usize| {
        if p <= o.list_at {
            p
        } else {
            p - (o.list_at + 2) + (o.list_end + 1)
        }
    };
    Some(Streamed {
        format,
        model,
        request_extra: super::request_extra(&layout, text),
        system,
        system_after,
        system_span: layout.system.as_ref().map(|r| past(r.start)..past(r.end)),
        resumable: layout.system.is_none_or(|s| s.end <= o.list_at),
    })
}

/// The system prompt a document whose list starts after `prefix` has, should it turn out
/// to be an Anthropic one: message 0, counted before the records. [`outline`] tells at the
/// end whether it was.
pub fn early_system(prefix: &[u8], key: Option<ListName>, notes: &mut Notes) -> Option<Message> {
    if key != Some(ListName::Messages) {
        return None;
    }
    let mut text = String::from_utf8(prefix.to_vec()).ok()?;
    text.push_str("[]}");
    let Entries(members) = serde_json::from_str(&text[bom(&text)..]).ok()?;
    let (_, raw) = members.iter().rev().find(|(k, _)| k == "system")?;
    let v: Value = serde_json::from_str(raw.get()).ok()?;
    system_message(&v, notes).ok()?
}

/// The model a document whose list starts after `prefix` names before its list.
pub fn early_model(prefix: &[u8], key: Option<ListName>) -> Option<String> {
    key?;
    let mut text = String::from_utf8(prefix.to_vec()).ok()?;
    text.push_str("[]}");
    let Entries(members) = serde_json::from_str(&text[bom(&text)..]).ok()?;
    let (_, raw) = members.iter().rev().find(|(k, _)| k == "model")?;
    serde_json::from_str::<Value>(raw.get())
        .ok()?
        .as_str()
        .map(str::to_string)
}
