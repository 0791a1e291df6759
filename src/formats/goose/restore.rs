//! Undoing a ctxctl compaction of a goose session (`archive restore`).
//!
//! A compaction deletes nothing: it sets `metadata.agentVisible: false` on the summarized
//! messages and adds a summary message before the kept tail. Restoring removes the summary
//! and gives each hidden message back its archived `metadata` (or none, if it had none),
//! so its line is again the original bytes (the archived line itself, where the archive
//! has its text). An archived message no longer in the file is put back verbatim where the
//! summary was.

use std::borrow::Cow;

use serde_json::Value;

use super::GooseFile;
use crate::formats::edit::same_messages;
use crate::formats::lines_out::{LineOut, LinePlan};
use crate::formats::raw::{remove_field, set_fields};
use crate::session::{LinesDoc, Session};
use crate::session::{Record, RestorePlan, WriteError};

pub fn restore(
    session: &Session,
    doc: &LinesDoc,
    plan: &RestorePlan,
) -> Result<Vec<u8>, WriteError> {
    let g = GooseFile::parse(doc)?;
    same_messages(g.visible.len(), session)?;
    let summary_line = g.visible[plan.at].0;
    let mut out = LinePlan::new(doc);
    out.set(summary_line, LineOut::Drop);
    // The compaction hid the archived messages right before the summary: match them from
    // there backwards, so older copies (goose's own compactions re-append prompts) stay hidden.
    let mut candidates: Vec<usize> = g
        .hidden
        .iter()
        .copied()
        .filter(|&l| l < summary_line)
        .collect();
    let values: Vec<Cow<Value>> = plan
        .records
        .iter()
        .map(|r| r.value())
        .collect::<Result<_, _>>()?;
    let mut found: Vec<Option<usize>> = vec![None; values.len()];
    for (k, v) in values.iter().enumerate().rev() {
        let hit = candidates.iter().rposition(|&l| {
            serde_json::from_str::<Value>(doc.line(l)).is_ok_and(|h| same_message(&h, v))
        });
        if let Some(p) = hit {
            found[k] = Some(candidates[p]);
            candidates.truncate(p);
        }
    }
    for ((r, v), line) in plan.records.iter().zip(&values).zip(found) {
        match line {
            Some(l) => out.set(l, LineOut::Rewrite(revealed(doc.line(l), r, v)?)),
            None => out.insert_before(summary_line, r.line()?.into_owned()),
        }
    }
    Ok(out.render())
}

/// The same message apart from its `metadata`.
fn same_message(a: &Value, b: &Value) -> bool {
    let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
        return false;
    };
    let rest = |o: &serde_json::Map<String, Value>| {
        o.iter()
            .filter(|(k, _)| *k != "metadata")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect::<serde_json::Map<String, Value>>()
    };
    rest(a) == rest(b)
}

/// The hidden line `line` as archived record `r` (whose value is `archived`) was: its
/// original text when the archive has it (the line differs from it only in `metadata`);
/// else the line with the archived metadata back (only that field changes, so the line is
/// the original again), or the archived value if that does not give it.
fn revealed(line: &str, r: &Record, archived: &Value) -> Result<String, WriteError> {
    if let Some(text) = r.original_line() {
        return Ok(text.to_string());
    }
    let text = match archived.get("metadata") {
        Some(m) => set_fields(line, &[("metadata", m.clone())])?,
        None => remove_field(line, "metadata")?,
    };
    let same = serde_json::from_str::<Value>(&text).is_ok_and(|v| v == *archived);
    Ok(if same {
        text
    } else {
        serde_json::to_string(archived)?
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::formats::restore_testkit::{restore_items, summary};
    use crate::formats::{read, write};
    use crate::session::Item;

    fn line(text: &str, created: i64, meta: Option<Value>) -> String {
        let mut v = json!({"id": null, "role": "user", "created": created,
            "content": [{"type": "text", "text": text}]});
        if let Some(m) = meta {
            v["metadata"] = m;
        }
        v.to_string()
    }

    #[test]
    fn hidden_messages_get_their_own_bytes_back() {
        let visible = json!({"userVisible": true, "agentVisible": true});
        let orig = [
            r#"{"working_dir":"/w","description":"d","message_count":4}"#.to_string(),
            // Hidden by an earlier goose compaction, and re-appended later: stays hidden.
            line(
                "same",
                1,
                Some(json!({"userVisible": true, "agentVisible": false})),
            ),
            line("same", 1, None),
            line("b", 2, Some(visible.clone())),
            line("c", 3, Some(visible)),
        ]
        .join("\n")
            + "\n";
        let s = read(orig.as_bytes(), None).unwrap();
        assert_eq!(s.messages.len(), 3);
        let out = write(&s, &[summary(), Item::Keep(2)]).unwrap();
        let c = read(&out, None).unwrap();
        assert_eq!(c.messages.len(), 2);
        let back = write(&c, &restore_items(&orig, 0..2, &out)).unwrap();
        assert_eq!(String::from_utf8(back).unwrap(), orig);
    }

    #[test]
    fn hidden_lines_come_back_as_archived_spaces_and_escapes_included() {
        let orig = concat!(
            "{\"working_dir\": \"/w\", \"description\": \"d\", \"message_count\": 3}\n",
            "{\"id\": null, \"role\": \"user\", \"created\": 1, \"content\": [{\"type\": \"text\", \"text\": \"caf\\u00e9 a\\/b\"}], \"metadata\": {\"userVisible\": true, \"agentVisible\": true}}\n",
            "{\"id\": null, \"role\": \"user\", \"created\": 2, \"content\": [{\"type\": \"text\", \"text\": \"b\"}]}\n",
            "{\"id\": null, \"role\": \"user\", \"created\": 3, \"content\": [{\"type\": \"text\", \"text\": \"c\"}]}\n",
        );
        let s = read(orig.as_bytes(), None).unwrap();
        assert_eq!(s.messages.len(), 3);
        let out = write(&s, &[summary(), Item::Keep(2)]).unwrap();
        let c = read(&out, None).unwrap();
        let back = write(&c, &restore_items(orig, 0..2, &out)).unwrap();
        assert_eq!(String::from_utf8(back).unwrap(), orig);
    }

    #[test]
    fn messages_no_longer_in_the_file_are_put_back() {
        let orig = [line("a", 1, None), line("b", 2, None), line("c", 3, None)].join("\n") + "\n";
        let s = read(orig.as_bytes(), None).unwrap();
        let out = String::from_utf8(write(&s, &[summary(), Item::Keep(2)]).unwrap()).unwrap();
        let items = restore_items(&orig, 0..2, out.as_bytes());
        // The hidden lines were deleted since.
        let text: String = out.lines().skip(2).map(|l| l.to_string() + "\n").collect();
        let c = read(text.as_bytes(), None).unwrap();
        let back = write(&c, &items).unwrap();
        assert_eq!(String::from_utf8(back).unwrap(), orig);
    }
}
