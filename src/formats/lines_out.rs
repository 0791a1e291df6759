//! Rendering a rewritten JSONL document: every line is kept byte for byte, dropped or
//! replaced, and new records are inserted before a given line or appended. Appended records
//! go before a truncated last line (an agent still writing), which stays last and untouched.

use std::io::Write;

use crate::session::LinesDoc;

/// What happens to one line.
#[derive(Debug, Clone, PartialEq)]
pub enum LineOut {
    Keep,
    Drop,
    /// New content for the line (its terminator is kept).
    Rewrite(String),
}

/// What a line format's writer makes of a document: the document unchanged, new bytes, or
/// a line plan rendered as it is written ([`Rendered::write_to`]).
#[derive(Debug)]
pub enum Rendered<'a> {
    Same(&'a LinesDoc),
    Bytes(Vec<u8>),
    Plan(LinePlan<'a>),
}

impl Rendered<'_> {
    /// What is added at the end of the document when the rewrite only appends records to
    /// it (the output is the document byte for byte, then these bytes); `None` otherwise.
    pub fn appended(&self) -> Option<Vec<u8>> {
        match self {
            Rendered::Plan(p) => p.appended(),
            Rendered::Same(_) | Rendered::Bytes(_) => None,
        }
    }

    /// The bytes, whole.
    pub fn into_bytes(self) -> Vec<u8> {
        match self {
            Rendered::Same(doc) => doc.text.as_bytes().to_vec(),
            Rendered::Bytes(b) => b,
            Rendered::Plan(p) => p.render(),
        }
    }

    /// The bytes written to `out`, a line plan line by line (never held whole).
    pub fn write_to(self, out: &mut dyn Write) -> std::io::Result<()> {
        match self {
            Rendered::Same(doc) => out.write_all(doc.text.as_bytes()),
            Rendered::Bytes(b) => out.write_all(&b),
            Rendered::Plan(p) => p.render_to(out),
        }
    }
}

/// A rewrite of a JSONL document, line by line.
#[derive(Debug)]
pub struct LinePlan<'a> {
    doc: &'a LinesDoc,
    /// What becomes of the lines that do not stay as they are, by line: a rewrite that
    /// appends changes none of a large rollout's lines, and a slot for each would weigh
    /// 24 bytes a line beside the document.
    actions: std::collections::BTreeMap<usize, LineOut>,
    /// `(line, record)`: `record` goes right before `line`; `line == lines.len()` appends.
    inserts: Vec<(usize, String)>,
}

impl<'a> LinePlan<'a> {
    /// A plan that keeps every line.
    pub fn new(doc: &'a LinesDoc) -> LinePlan<'a> {
        LinePlan {
            doc,
            actions: Default::default(),
            inserts: Vec::new(),
        }
    }

    pub fn set(&mut self, line: usize, action: LineOut) {
        let lines = self.doc.lines.len();
        assert!(line < lines, "line {line} of a document of {lines}");
        match action {
            LineOut::Keep => self.actions.remove(&line),
            action => self.actions.insert(line, action),
        };
    }

    /// Inserts `record` (one JSON line, no terminator) before `line`, after any record
    /// already inserted there.
    pub fn insert_before(&mut self, line: usize, record: String) {
        self.inserts.push((line, record));
    }

    /// Appends `record` after the last complete line.
    pub fn append(&mut self, record: String) {
        let at = self.doc.truncated_tail.unwrap_or(self.doc.lines.len());
        self.inserts.push((at, record));
    }

    /// The bytes [`LinePlan::render`] writes after the document when the plan keeps every
    /// line and only appends records (none before a truncated tail): a rewrite that can
    /// then be applied by appending them, without the document being copied. `None` for
    /// any other plan, or one that adds nothing.
    pub fn appended(&self) -> Option<Vec<u8>> {
        let end = self.doc.lines.len();
        let only_appends = self.doc.truncated_tail.is_none()
            && !self.inserts.is_empty()
            && self.inserts.iter().all(|(at, _)| *at == end)
            && self.actions.is_empty();
        if !only_appends {
            return None;
        }
        // As `render_to` writes them: the first on a line of its own. Sized up front: a
        // compaction's record can be megabytes, and a buffer grown to it by doubling
        // kept up to as much again spare beside the document.
        let eol = self.doc.eol();
        let mut last = self.doc.text.as_bytes().last().copied();
        let lead = usize::from(last.is_some_and(|b| b != b'\n')) * eol.len();
        let size = lead
            + (self.inserts.iter())
                .map(|(_, t)| t.len() + eol.len())
                .sum::<usize>();
        let mut out = Vec::with_capacity(size);
        for (_, text) in &self.inserts {
            if last.is_some_and(|b| b != b'\n') {
                out.extend_from_slice(eol.as_bytes());
            }
            out.extend_from_slice(text.as_bytes());
            out.extend_from_slice(eol.as_bytes());
            last = Some(b'\n');
        }
        debug_assert_eq!(out.len(), size);
        Some(out)
    }

    /// The rewritten document, in a buffer of exactly its size: sized by the document,
    /// a rewrite that adds records (a compaction's boundary, summary and marker) grew it
    /// to twice the file, and the growing copy held the old buffer and the new at once.
    pub fn render(mut self) -> Vec<u8> {
        self.order_inserts();
        let mut size = Measured(0);
        self.emit(&mut size)
            .expect("measuring the output does not fail");
        let mut out = Vec::with_capacity(size.0);
        self.emit(&mut out)
            .expect("writing to memory does not fail");
        debug_assert_eq!(out.len(), size.0);
        out
    }

    /// [`LinePlan::render`] into `out`, line by line: a large output is never held whole
    /// when `out` is a file or a pipe.
    pub fn render_to(mut self, out: &mut dyn Write) -> std::io::Result<()> {
        self.order_inserts();
        self.emit(out)
    }

    /// Puts the inserted records in output order: appended ones before a truncated tail.
    fn order_inserts(&mut self) {
        let tail = self.doc.truncated_tail;
        for (at, _) in &mut self.inserts {
            if let Some(t) = tail {
                *at = (*at).min(t);
            }
        }
        // Stable: records inserted at the same line keep their order.
        self.inserts.sort_by_key(|(at, _)| *at);
    }

    /// Writes the output to `out`, the inserts in order ([`LinePlan::order_inserts`]).
    fn emit(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let doc = self.doc;
        let eol = doc.eol();
        let mut out = Tracked { out, last: None };
        let first_start = doc.lines.first().map_or(doc.text.len(), |s| s.start);
        out.put(&doc.text[..first_start])?;
        let mut inserts = self.inserts.iter().peekable();
        let push_record = |out: &mut Tracked, text: &str| {
            if out.last.is_some_and(|b| b != b'\n') {
                out.put(eol)?;
            }
            out.put(text)?;
            out.put(eol)
        };
        for (i, span) in doc.lines.iter().enumerate() {
            doc.text.passing(span.start);
            while let Some((_, text)) = inserts.next_if(|(at, _)| *at == i) {
                push_record(&mut out, text)?;
            }
            match self.actions.get(&i).unwrap_or(&LineOut::Keep) {
                LineOut::Keep => out.put(&doc.text[span.start..span.end_with_eol])?,
                LineOut::Drop => {}
                LineOut::Rewrite(text) => {
                    out.put(text)?;
                    out.put(&doc.text[span.end..span.end_with_eol])?;
                }
            }
        }
        for (_, text) in inserts {
            push_record(&mut out, text)?;
        }
        Ok(())
    }
}

/// An output that only adds up how many bytes it is given.
struct Measured(usize);

impl Write for Measured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// An output that remembers the last byte written (a record goes on a line of its own).
struct Tracked<'a> {
    out: &'a mut dyn Write,
    last: Option<u8>,
}

impl Tracked<'_> {
    fn put(&mut self, text: &str) -> std::io::Result<()> {
        if let Some(&b) = text.as_bytes().last() {
            self.out.write_all(text.as_bytes())?;
            self.last = Some(b);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keep_all_is_identity() {
        let doc = LinesDoc::new("a\r\nb\n\nc".to_string());
        assert_eq!(LinePlan::new(&doc).render(), doc.text.as_bytes());
    }

    #[test]
    fn inserts_drops_and_rewrites() {
        let doc = LinesDoc::new("a\nb\nc\n".to_string());
        let mut plan = LinePlan::new(&doc);
        plan.set(0, LineOut::Drop);
        plan.set(2, LineOut::Rewrite("C".into()));
        plan.insert_before(1, "x".into());
        plan.append("z".into());
        plan.insert_before(1, "y".into());
        assert_eq!(plan.render(), b"x\ny\nb\nC\nz\n");
    }

    #[test]
    fn a_plan_holds_only_the_lines_it_changes() {
        let doc = LinesDoc::new("a\nb\nc\n".to_string());
        let mut plan = LinePlan::new(&doc);
        plan.append("z".into());
        assert!(plan.actions.is_empty());
        plan.set(1, LineOut::Drop);
        assert_eq!(plan.actions.len(), 1);
        assert_eq!(plan.appended(), None, "a line is dropped");
        // Set back to kept, the line is no change any more: the plan only appends again.
        plan.set(1, LineOut::Keep);
        assert!(plan.actions.is_empty());
        assert_eq!(plan.appended().as_deref(), Some(&b"z\n"[..]));
        assert_eq!(plan.render(), b"a\nb\nc\nz\n");
    }

    #[test]
    #[should_panic(expected = "line 3 of a document of 3")]
    fn a_line_past_the_document_is_refused() {
        let doc = LinesDoc::new("a\nb\nc\n".to_string());
        LinePlan::new(&doc).set(3, LineOut::Drop);
    }

    #[test]
    fn a_rendered_buffer_is_exactly_the_output() {
        let doc = LinesDoc::new("a\nb\n".to_string());
        let mut plan = LinePlan::new(&doc);
        plan.append("a much longer record than the whole document".into());
        let out = plan.render();
        assert_eq!(out.len(), out.capacity());
        assert_eq!(out, b"a\nb\na much longer record than the whole document\n");
    }

    #[test]
    fn appends_go_before_a_truncated_tail_and_after_an_unterminated_line() {
        let mut doc = LinesDoc::new("a\n{\"b\":".to_string());
        doc.truncated_tail = Some(1);
        let mut plan = LinePlan::new(&doc);
        plan.append("z".into());
        assert_eq!(plan.render(), b"a\nz\n{\"b\":");
        let doc = LinesDoc::new("a".to_string());
        let mut plan = LinePlan::new(&doc);
        plan.append("z".into());
        assert_eq!(plan.render(), b"a\nz\n");
    }

    #[test]
    fn a_plan_that_only_appends_gives_what_it_adds() {
        for text in ["a\nb\n", "a\r\nb", "a", "", "\u{feff}a\n\n"] {
            let doc = LinesDoc::new(text.to_string());
            let mut plan = LinePlan::new(&doc);
            plan.append("y".into());
            plan.append("z".into());
            let suffix = plan.appended().unwrap();
            assert_eq!(suffix.len(), suffix.capacity(), "{text:?}: sized exactly");
            let whole = plan.render();
            assert_eq!(whole[..text.len()], *text.as_bytes(), "{text:?}");
            assert_eq!(whole[text.len()..], suffix, "{text:?}");
        }
    }

    #[test]
    fn a_plan_that_changes_a_line_does_not_only_append() {
        let doc = LinesDoc::new("a\nb\n".to_string());
        let mut plan = LinePlan::new(&doc);
        assert_eq!(plan.appended(), None, "nothing added");
        plan.append("z".into());
        plan.set(0, LineOut::Drop);
        assert_eq!(plan.appended(), None);
        let mut plan = LinePlan::new(&doc);
        plan.insert_before(1, "x".into());
        assert_eq!(plan.appended(), None);
        let mut doc = LinesDoc::new("a\n{\"b\":".to_string());
        doc.truncated_tail = Some(1);
        let mut plan = LinePlan::new(&doc);
        plan.append("z".into());
        assert_eq!(
            plan.appended(),
            None,
            "appends go before the truncated tail"
        );
    }
}
