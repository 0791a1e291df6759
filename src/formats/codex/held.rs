//! An item's value in a rollout parsed lean ([`Rollout::parse_lean`]): held, or read again
//! from its line.

use std::borrow::Cow;

use serde_json::Value;

use super::{ActiveItem, Rollout, Source};
use crate::session::{LinesDoc, ReadError};

impl Rollout {
    /// The value of `it`, an item of this rollout (parsed from `doc`): the one held, or,
    /// for an item a lean parse left without it, its line of `doc` parsed again (its
    /// `payload`, or the line itself in a legacy rollout, as the parse took it).
    pub fn value_of<'a>(
        &self,
        doc: &LinesDoc,
        it: &'a ActiveItem,
    ) -> Result<Cow<'a, Value>, ReadError> {
        if let Some(v) = it.value.as_deref() {
            return Ok(Cow::Borrowed(v));
        }
        // Only an item read from its own line is left without its value.
        let Source::Line(line) = it.source else {
            return Err(ReadError::shape(
                format!("line {}", it.source.line() + 1),
                "the item read before",
            ));
        };
        let mut v: Value =
            serde_json::from_str(doc.line(line)).map_err(|e| ReadError::json(&e, line))?;
        let item = match v.get_mut("payload") {
            Some(payload) => payload.take(),
            None => v,
        };
        if item.is_object() {
            Ok(Cow::Owned(item))
        } else {
            Err(ReadError::shape(
                format!("line {}", line + 1),
                "the item read before",
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lean_parse_reads_its_items_again_as_the_whole_parse_held_them() {
        let text = concat!(
            "{\"timestamp\":\"t\",\"type\":\"session_meta\",\"payload\":{\"id\":\"s\",\"instructions\":\"sys\"}}\n",
            "{\"timestamp\":\"t\",\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"a\"}]}}\n",
            "{\"timestamp\":\"t\",\"type\":\"response_item\",\"payload\":{\"type\":\"reasoning\",\"summary\":[],\"encrypted_content\":\"xyz\"}}\n",
            "{\"timestamp\":\"t\",\"type\":\"event_msg\",\"payload\":{\"type\":\"token_count\",\"info\":{\"last_token_usage\":{\"input_tokens\":5,\"output_tokens\":2,\"reasoning_output_tokens\":7}}}}\n",
            "{\"timestamp\":\"t\",\"type\":\"compacted\",\"payload\":{\"message\":\"\",\"replacement_history\":[{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"b\"}]}]}}\n",
            "{\"timestamp\":\"t\",\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":\"c\"}]}}\n",
        );
        let doc = LinesDoc::new(text.to_string());
        let whole = Rollout::parse(&doc).unwrap();
        let lean = Rollout::parse_lean(&doc).unwrap();
        assert_eq!(whole.items.len(), 2);
        assert_eq!(lean.items.len(), 2);
        assert!(lean.items[1].value.is_none());
        for (w, l) in whole.items.iter().zip(&lean.items) {
            assert_eq!(w.source, l.source);
            assert_eq!(w.billed(), l.billed());
            assert_eq!(
                lean.value_of(&doc, l).unwrap().as_ref(),
                w.value.as_deref().unwrap()
            );
        }
        // Before the compaction, the reasoning item was billed alike by both.
        let before = LinesDoc::new(text.lines().take(4).collect::<Vec<_>>().join("\n"));
        let (w, l) = (
            Rollout::parse(&before).unwrap(),
            Rollout::parse_lean(&before).unwrap(),
        );
        assert_eq!(w.items[1].billed(), Some(7));
        assert_eq!(l.items[1].billed(), Some(7));
        let held = w.items[1].value.as_deref();
        assert_eq!(
            l.value_of(&before, &l.items[1]).unwrap().as_ref(),
            held.unwrap()
        );
    }

    #[test]
    fn a_line_changed_since_the_parse_is_an_error() {
        let item = "{\"type\":\"message\",\"role\":\"user\",\"content\":[]}";
        let doc = LinesDoc::new(format!(
            "{{\"timestamp\":\"t\",\"type\":\"response_item\",\"payload\":{item}}}\n"
        ));
        let lean = Rollout::parse_lean(&doc).unwrap();
        let other = LinesDoc::new("[1]\n".to_string());
        assert!(lean.value_of(&other, &lean.items[0]).is_err());
    }
}
