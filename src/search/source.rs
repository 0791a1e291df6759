//! Searching one source: a JSONL file a line at a time (a line is parsed only when its
//! raw bytes may hold a match, name a tool call, or mark a compaction), a JSON document
//! whole, or records already parsed (an archive's). Hits before the agent's last
//! compaction marker of a file are labelled [`Place::CompactedByAgent`].

use std::io::BufRead;
use std::path::Path;
use std::sync::OnceLock;

use regex::bytes::Regex;
use serde_json::Value;

use super::record::{self, Tools, CALL_MARKERS};
use super::{excerpt, Hit, Place, Query, SearchError};

/// What searching one source found.
#[derive(Debug, Default)]
pub struct FileHits {
    pub hits: Vec<Hit>,
    /// Records (lines) that are not JSON, skipped (a line an agent is still writing).
    pub bad_records: usize,
}

/// Raw bytes of a record that must be read whatever the pattern: tool calls (for the
/// tool's name) and the agents' compaction markers (capture 1).
fn must_read() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        let calls: Vec<String> = CALL_MARKERS.iter().map(|m| regex::escape(m)).collect();
        let markers = [
            regex::escape("\"compact_boundary\""),
            r#""type"\s*:\s*"compacted""#.to_string(),
        ];
        let re = format!("({})|{}", markers.join("|"), calls.join("|"));
        Regex::new(&re).expect("a valid regex")
    })
}

/// Collects hits, labelling those before the last compaction marker at the end.
pub(super) struct Collector<'q> {
    q: &'q Query,
    place: Place,
    tools: Tools,
    pub(super) out: FileHits,
    last_marker: Option<usize>,
    /// The call each hit answers, when its tool is not known yet.
    calls: Vec<Option<String>>,
}

impl<'q> Collector<'q> {
    pub(super) fn new(q: &'q Query, place: Place) -> Self {
        Collector {
            q,
            place,
            tools: Tools::default(),
            out: FileHits::default(),
            last_marker: None,
            calls: Vec::new(),
        }
    }

    /// The hits whose tool is not known yet: each one's record and the call it answers.
    pub(super) fn unnamed(&self) -> Vec<(usize, String)> {
        let hits = self.out.hits.iter().zip(&self.calls);
        hits.filter_map(|(h, call)| Some((h.record, call.clone()?)))
            .collect()
    }

    /// Names the hits' tools from `tools`.
    pub(super) fn name_calls(&mut self, tools: &Tools) {
        for (h, call) in self.out.hits.iter_mut().zip(&self.calls) {
            if h.tool.is_none() {
                h.tool = tools.name(call.as_deref());
            }
        }
    }

    pub(super) fn record(&mut self, n: usize, v: &Value) {
        let r = record::read(v, &mut self.tools);
        if r.marker {
            self.last_marker = Some(n);
        }
        self.pieces(n, r.when, r.pieces);
    }

    fn pieces(&mut self, n: usize, when: Option<String>, pieces: Vec<record::Piece>) {
        let r = record::Record {
            when,
            pieces,
            marker: false,
        };
        for p in r.pieces {
            if !self.q.keeps(&p) {
                continue;
            }
            let (matches, lines) = excerpt(&p.text, &self.q.matcher, self.q.context);
            if matches == 0 {
                continue;
            }
            self.calls.push(p.call.filter(|_| p.tool.is_none()));
            self.out.hits.push(Hit {
                record: n,
                when: r.when.clone(),
                role: p.role,
                tool: p.tool,
                place: self.place.clone(),
                matches,
                lines,
            });
        }
    }

    pub(super) fn finish(mut self) -> FileHits {
        if let Some(m) = self.last_marker {
            for h in &mut self.out.hits {
                if h.record < m && h.place == Place::Live {
                    h.place = Place::CompactedByAgent;
                }
            }
        }
        self.out
    }
}

/// Searches a session file read from `src`: JSONL a line at a time, or, when its first
/// line is not a whole JSON value, one JSON document.
pub fn search_lines(
    mut src: impl BufRead,
    path: &Path,
    q: &Query,
    place: Place,
) -> Result<FileHits, SearchError> {
    let io = |err| SearchError::Io {
        path: path.to_path_buf(),
        err,
    };
    let mut c = Collector::new(q, place);
    let mut buf: Vec<u8> = Vec::new();
    let mut n = 0usize;
    loop {
        buf.clear();
        if src.read_until(b'\n', &mut buf).map_err(io)? == 0 {
            break;
        }
        n += 1;
        let line = buf.trim_ascii();
        if line.is_empty() {
            continue;
        }
        if !q.matcher.may_match(line) {
            match must_read().captures(line) {
                None => continue,
                // A tool call whose name and id are read from its bytes.
                Some(m) if m.get(1).is_none() && record::calls_fast(line, &mut c.tools) => continue,
                Some(_) => {}
            }
        }
        match serde_json::from_slice::<Value>(line) {
            Ok(v) if n == 1 && is_document(&v) => {
                return search_document(line, path, q, c.place);
            }
            Ok(v) => c.record(n, &v),
            Err(_) if n == 1 && matches!(line.first(), Some(b'{' | b'[')) => {
                // A JSON document over several lines: read it whole.
                let mut rest = std::mem::take(&mut buf);
                src.read_to_end(&mut rest).map_err(io)?;
                return search_document(&rest, path, q, c.place);
            }
            Err(_) => c.out.bad_records += 1,
        }
    }
    Ok(c.finish())
}

/// Whether a file's first line is a whole document of messages rather than a record.
pub(super) fn is_document(v: &Value) -> bool {
    v.is_array() || v.get("messages").is_some_and(Value::is_array)
}

/// Searches a whole JSON document: a list of messages, an object with a `messages` list
/// (Gemini CLI, chat requests), or one record.
pub fn search_document(
    bytes: &[u8],
    path: &Path,
    q: &Query,
    place: Place,
) -> Result<FileHits, SearchError> {
    let v: Value = serde_json::from_slice(bytes).map_err(|err| SearchError::Json {
        path: path.to_path_buf(),
        err,
    })?;
    let list = match &v {
        Value::Array(a) => Some(a),
        Value::Object(o) => o.get("messages").and_then(Value::as_array),
        _ => None,
    };
    Ok(match list {
        Some(list) => search_values(list.iter().enumerate().map(|(i, v)| (i + 1, v)), q, place),
        None => search_values(std::iter::once((1, &v)), q, place),
    })
}

/// Searches the messages of a session read by its format (an agent's database), each
/// numbered from 1.
pub fn search_messages(messages: &[crate::session::Message], q: &Query, place: Place) -> FileHits {
    let mut c = Collector::new(q, place);
    for (i, m) in messages.iter().enumerate() {
        let pieces = record::of_message(m, &mut c.tools);
        c.pieces(i + 1, None, pieces);
    }
    c.finish()
}

/// Searches records already parsed, each with its number.
pub fn search_values<'a>(
    records: impl IntoIterator<Item = (usize, &'a Value)>,
    q: &Query,
    place: Place,
) -> FileHits {
    let mut c = Collector::new(q, place);
    for (n, v) in records {
        c.record(n, v);
    }
    c.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{MatchOptions, Matcher};

    fn query(p: &str) -> Query {
        Query {
            matcher: Matcher::new(p, MatchOptions::default()).unwrap(),
            roles: vec![],
            tools: vec![],
            context: 0,
        }
    }

    const CC: &str = r#"{"type":"user","message":{"role":"user","content":"first: the \"secret\"\nplan"}}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"echo"}}]}}
not json: secret
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"secret output"}]}}
{"type":"system","subtype":"compact_boundary","content":"Conversation compacted"}
{"type":"user","message":{"role":"user","content":"after: secret"}}
"#;

    #[test]
    fn jsonl_hits_before_the_boundary_are_compacted_by_the_agent() {
        let f = search_lines(CC.as_bytes(), Path::new("x"), &query("secret"), Place::Live).unwrap();
        let got: Vec<(usize, &str, Option<&str>, &str)> = f
            .hits
            .iter()
            .map(|h| (h.record, h.role, h.tool.as_deref(), h.place.name()))
            .collect();
        assert_eq!(
            got,
            vec![
                (1, "user", None, "compacted"),
                (4, "tool", Some("Bash"), "compacted"),
                (6, "user", None, "live")
            ]
        );
        assert_eq!(f.bad_records, 1);
    }

    #[test]
    fn escapes_in_the_file_are_the_characters_they_stand_for() {
        let f = search_lines(
            CC.as_bytes(),
            Path::new("x"),
            &query("\"secret\"\nplan"),
            Place::Live,
        )
        .unwrap();
        assert_eq!(f.hits.len(), 1);
        assert_eq!(f.hits[0].lines.len(), 2);
        // JSON syntax is not text: a key never matches.
        let f = search_lines(
            CC.as_bytes(),
            Path::new("x"),
            &query("tool_use_id"),
            Place::Live,
        )
        .unwrap();
        assert!(f.hits.is_empty());
    }

    #[test]
    fn a_pretty_document_is_read_whole() {
        let doc = "{\n \"messages\": [\n  {\"role\":\"user\",\"content\":\"find me\"}\n ]\n}\n";
        let f = search_lines(doc.as_bytes(), Path::new("x"), &query("find"), Place::Live).unwrap();
        assert_eq!(f.hits.len(), 1);
        assert!(matches!(
            search_lines(
                "{\n oops".as_bytes(),
                Path::new("x"),
                &query("a"),
                Place::Live
            ),
            Err(SearchError::Json { .. })
        ));
    }
}
