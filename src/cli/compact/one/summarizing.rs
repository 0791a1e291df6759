//! A compaction's summary: made from the middle (or from its messages' gists), a failed
//! model's replaced by the offline one when `--fallback` says so, and checked for the facts
//! of the replaced messages it mentions (`--min-recall`).

use super::{settings, Done, Job};
use crate::exit::ExitStatus;
use crate::ops::load::Loaded;
use crate::session::Message;
use crate::summarize::{recall, Gist, Input, Summarizer};

/// A summary made and checked.
pub(super) struct Made {
    pub(super) summary: String,
    pub(super) used: &'static str,
    pub(super) recall: Recalled,
}

/// A summary's recall: measured, or, when nothing but the report needs it (an offline
/// summary, no `--min-recall`), the facts to look for, measured while the compaction is
/// written.
pub(super) enum Recalled {
    Measured(recall::Recall),
    Facts(Vec<recall::Fact>),
}

impl Recalled {
    /// The recall of `summary`, measured now if it was not yet.
    pub(super) fn measured(self, summary: &str) -> recall::Recall {
        match self {
            Recalled::Measured(r) => r,
            Recalled::Facts(facts) => recall::measure(&facts, summary),
        }
    }

    /// [`Recalled::measured`], kept as a `Recalled`.
    pub(super) fn now(self, summary: &str) -> Recalled {
        Recalled::Measured(self.measured(summary))
    }
}

impl Job<'_> {
    /// Summarizes the middle (from `gists` when given: each message's, in order) and checks
    /// the summary's recall; `Err` is the run's outcome when no summary is to be used.
    pub(super) fn summarize(
        &self,
        loaded: &Loaded,
        summarizer: &dyn Summarizer,
        gists: Option<Vec<(Gist, bool)>>,
    ) -> anyhow::Result<Result<Made, Done>> {
        let (ctx, args, shown) = (self.ctx, self.args, self.shown);
        let part = self.part;
        // The messages the summary replaces: the middle, less those it keeps verbatim.
        let picked: Vec<Message>;
        let middle = if part.kept.is_empty() {
            &loaded.session.messages[part.middle.clone()]
        } else {
            picked = (self.summarized.iter())
                .map(|&i| loaded.session.messages[i].clone())
                .collect();
            &picked[..]
        };
        // The gists are borrowed, and freed once the summary is checked: freeing a large
        // session's gists while it is made, on any thread, slows it down as much.
        let input = match &gists {
            Some(g) => Input::from_gists(middle, self.summarized.iter().map(|&i| &g[i].0)),
            None => Input::new(middle).with_redaction(args.redact),
        }
        .with_instructions(args.instructions.clone());
        let spinner = ctx
            .printer
            .spinner(&format!("summarizing {} messages", middle.len()));
        let summary = summarizer.summarize(&input, &loaded.counter);
        spinner.finish_and_clear();
        let mut used = summarizer.name();
        let summary = match summary {
            Ok(s) => s,
            Err(e) if args.fallback.is_some() => {
                let fallback = settings::offline(ctx, args);
                ctx.printer.warn(&format!(
                    "{shown}: the {used} summarizer failed ({e}); using the offline summary (--fallback)"
                ));
                used = fallback.name();
                fallback.summarize(&input, &loaded.counter)?
            }
            Err(e) => {
                let err = anyhow::Error::new(e).context(format!("{shown}: the summarizer failed"));
                ctx.printer.error(&err);
                ctx.printer.hint(
                    "nothing was changed; check the llm settings with `ctxctl config`, or pass \
                     --fallback offline",
                );
                return Ok(Err(Done::of(ExitStatus::SummarizerFailed, None)));
            }
        };
        // The self-check: which facts of the replaced messages the summary mentions. A
        // model's summary gets the list of those it left out.
        let facts = input.with_secrets_removed(|i| recall::facts_of(i.facts()));
        // Freeing a large session's gists here took longer than everything after the
        // summary (~100 ms at 362K messages, then as long again in glibc merging their
        // freed chunks at the next large free): another thread frees them, and a one-file
        // run exits meanwhile.
        drop(input);
        if let Some(gists) = gists {
            crate::mem::free_soon(gists);
        }
        let min_recall = settings::min_recall(args)?;
        if used == "offline" && min_recall.is_none() {
            return Ok(Ok(Made {
                summary,
                used,
                recall: Recalled::Facts(facts),
            }));
        }
        let recall = recall::measure(&facts, &summary);
        let summary = if used != "offline" && !recall.missing.is_empty() {
            format!(
                "{}\n\n{}",
                summary.trim_end(),
                recall::appendix(&recall.missing)
            )
        } else {
            summary
        };
        if let Some(min) = min_recall.filter(|&m| recall.score() < m) {
            ctx.printer.error(&anyhow::anyhow!(
                "{shown}: the summary's {} is below --min-recall {min}",
                recall.describe()
            ));
            ctx.printer.hint(
                "nothing was changed; keep a longer tail (--tail-tokens), allow a longer summary \
                 (--summary-tokens) or lower --min-recall",
            );
            return Ok(Err(Done::of(ExitStatus::SummarizerFailed, None)));
        }
        Ok(Ok(Made {
            summary,
            used,
            recall: Recalled::Measured(recall),
        }))
    }
}
