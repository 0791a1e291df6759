//! What `compact` prints: the report, the dry-run partition and summary.

use serde::Serialize;

use std::collections::BTreeMap;

use super::ratio;
use super::Loaded;
use crate::compact::Partition;
use crate::context::Context;
use crate::exit::ExitStatus;
use crate::render::table::{table, thousands};
use crate::summarize::recall::{Kind, Recall, Tally};

/// `compact --json`.
#[derive(Debug, Serialize)]
pub struct Report {
    pub compacted: bool,
    pub original_tokens: usize,
    pub compacted_tokens: usize,
    pub compaction_ratio: f64,
    pub compacted_messages: usize,
    pub retained_messages: usize,
    pub archive: Option<String>,
    pub output: Option<String>,
    pub archive_id: Option<String>,
    pub summarizer: &'static str,
    /// Why nothing was compacted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The predicted input of the next request after the rewrite: the agent's hidden part
    /// (from the reported usage) plus the compacted messages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_request_tokens: Option<usize>,
    pub dry_run: bool,
    /// The share of the replaced messages' facts the summary mentions.
    #[serde(flatten)]
    pub recall: Option<RecallFigures>,
}

/// `recall` (a share) and `recall_facts` (mentioned / facts per kind) in `--json`.
#[derive(Debug, Serialize)]
pub struct RecallFigures {
    pub recall: f64,
    pub recall_facts: BTreeMap<&'static str, Tally>,
    /// Facts the summary did not mention (listed after a model's summary).
    pub unmentioned: usize,
}

impl RecallFigures {
    pub fn of(r: &Recall) -> RecallFigures {
        RecallFigures {
            recall: r.score(),
            recall_facts: Kind::ALL.iter().map(|k| (k.name(), r.tally(*k))).collect(),
            unmentioned: r.missing.len(),
        }
    }
}

/// The human report's recall line.
pub fn recall_line(shown: &str, r: &Recall, summarizer: &str) -> String {
    let mut line = format!("{shown}: summary {}", r.describe());
    if summarizer != "offline" && !r.missing.is_empty() {
        let n = r.missing.len();
        line.push_str(&format!(
            "; the {n} fact{} it did not mention {} listed after it",
            if n == 1 { "" } else { "s" },
            if n == 1 { "is" } else { "are" }
        ));
    }
    line
}

impl Report {
    pub fn unchanged(summarizer: &'static str, reason: String, dry_run: bool) -> Report {
        Report {
            compacted: false,
            original_tokens: 0,
            compacted_tokens: 0,
            compaction_ratio: 0.0,
            compacted_messages: 0,
            retained_messages: 0,
            archive: None,
            output: None,
            archive_id: None,
            summarizer,
            reason: Some(reason),
            next_request_tokens: None,
            dry_run,
            recall: None,
        }
    }
}

/// What compacting one file gave: its exit status and, with `--json`, the document to
/// print (none when the session itself went to stdout).
pub struct Done {
    pub status: ExitStatus,
    pub doc: Option<Doc>,
    /// The archive a compaction filed, when it was written (for a batch's summary line).
    pub archived: Option<std::path::PathBuf>,
    /// Whether the session was rewritten.
    pub compacted: bool,
}

impl Done {
    pub fn of(status: ExitStatus, doc: Option<Doc>) -> Done {
        Done {
            status,
            doc,
            archived: None,
            compacted: false,
        }
    }
}

/// One file's `--json` document.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Doc {
    Report(Report),
    DryRun(DryRun),
}

/// `compact --dry-run --json`: the report, the partition and the summary.
#[derive(Debug, Serialize)]
pub struct DryRun {
    #[serde(flatten)]
    report: Report,
    partition: Parts,
    summary: String,
}

#[derive(Debug, Serialize)]
struct Parts {
    head: Span,
    middle: Span,
    tail: Span,
}

/// Nothing compacted, for `reason`: a note, or the report with `--json`.
/// In a batch the note is only shown with `-v`: one line per healthy session is noise for
/// cron, whose summary line counts them.
pub fn unchanged(
    ctx: &Context,
    shown: &str,
    summarizer: &'static str,
    reason: String,
    dry_run: bool,
    batch: bool,
) -> Done {
    let doc = if ctx.printer.json {
        Some(Doc::Report(Report::unchanged(summarizer, reason, dry_run)))
    } else {
        let note = format!("{shown}: {reason}; nothing written");
        match batch {
            true => ctx.printer.debug(&note),
            false => ctx.printer.note(&note),
        }
        None
    };
    Done::of(ExitStatus::Success, doc)
}

/// Why a compaction whose result would be `after` tokens of `total` is not written.
pub fn not_smaller(total: usize, after: usize, summarized: usize) -> String {
    format!(
        "not compacted: the result would not be smaller ({} → {} tokens; the summary \
         outweighs the {summarized} messages it replaces)",
        thousands(total as u64),
        thousands(after as u64),
    )
}

#[allow(clippy::too_many_arguments)]
pub fn dry_run(
    ctx: &Context,
    l: &Loaded,
    part: &Partition,
    summary: &str,
    tokens: usize,
    summarizer: &'static str,
    recall: &Recall,
    archives: bool,
) -> anyhow::Result<Done> {
    // What the real run would decide: a result no smaller is not written.
    if tokens >= l.total {
        let reason = not_smaller(l.total, tokens, part.summarized().count());
        return Ok(unchanged(
            ctx,
            &l.display(),
            summarizer,
            reason,
            true,
            false,
        ));
    }
    let span = |r: &std::ops::Range<usize>| Span {
        start: r.start,
        end: r.end,
        messages: r.len(),
        tokens: l.counts[r.clone()].iter().sum(),
    };
    let (head, middle, tail) = (span(&part.head), span(&part.middle), span(&part.tail));
    if ctx.printer.json {
        let report = Report {
            compacted: true,
            original_tokens: l.total,
            compacted_tokens: tokens,
            compaction_ratio: ratio(tokens, l.total),
            compacted_messages: part.summarized().count(),
            retained_messages: l.session.messages.len() - part.summarized().count(),
            archive: None,
            output: None,
            archive_id: None,
            summarizer,
            reason: None,
            next_request_tokens: None,
            dry_run: true,
            recall: Some(RecallFigures::of(recall)),
        };
        let doc = Doc::DryRun(DryRun {
            report,
            partition: Parts { head, middle, tail },
            summary: summary.to_string(),
        });
        return Ok(Done::of(ExitStatus::Failure, Some(doc)));
    }
    let row = |name: &str, s: &Span, action: &str| {
        vec![
            name.to_string(),
            format!("{}..{}", s.start, s.end),
            s.messages.to_string(),
            thousands(s.tokens as u64),
            action.to_string(),
        ]
    };
    let mut rows = vec![
        row("head", &head, "keep"),
        row(
            "middle",
            &middle,
            match archives {
                true => "summarize and archive",
                false => "summarize",
            },
        ),
        row("tail", &tail, "keep"),
    ];
    if !part.kept.is_empty() {
        let kept = vec![
            "pinned".to_string(),
            "in middle".to_string(),
            part.kept.len().to_string(),
            thousands(part.kept.iter().map(|&i| l.counts[i]).sum::<usize>() as u64),
            "keep".to_string(),
        ];
        rows.insert(2, kept);
    }
    let p = &ctx.printer;
    p.line(&table(
        &["part", "range", "messages", "tokens", "action"],
        &rows,
        &[2, 3],
    ))?;
    p.line(&format!(
        "would compact {}: {} → {} tokens ({:.0}%), summary {}\n\nsummary ({summarizer}):\n{summary}",
        l.display(),
        thousands(l.total as u64),
        thousands(tokens as u64),
        ratio(tokens, l.total) * 100.0,
        recall.describe()
    ))?;
    Ok(Done::of(ExitStatus::Failure, None))
}

/// One part of the partition in `--dry-run` output.
#[derive(Debug, Serialize)]
struct Span {
    start: usize,
    end: usize,
    messages: usize,
    tokens: usize,
}
