//! A session read for a read-only command: its figures ([`Tally`]) without its text.
//! JSON documents are streamed ([`crate::ops::json_stream`]) in flat memory; every other input
//! is read whole ([`load::load_for_reading`]) and folded the same way.

use std::path::{Path, PathBuf};

use crate::context::{Context, ResolvedModel};
use crate::ops::figures::{Chunk, Tally, Wants};
use crate::ops::load::{self, Fingerprint, Loaded};
use crate::ops::predict::{self, Prediction};
use crate::ops::window::{self, Window};
use crate::render::json::{ByRole, Reported};
use crate::session::{AgentLimits, Format, ReportedUsage, Resume, Role};
use crate::tokens::Counter;

/// A session read and counted, its text gone.
pub struct Counted {
    /// The path as given (`-` for stdin).
    pub path: PathBuf,
    pub fingerprint: Fingerprint,
    pub format: Format,
    /// The model the file names.
    pub session_model: Option<String>,
    pub model: ResolvedModel,
    /// Whether the counts may be remembered (no fallback tokenizer counted them).
    pub keeps_counts: bool,
    /// The session's total (messages + reply priming).
    pub total: usize,
    /// The provider-reported usage that still describes the session.
    pub usage: Option<ReportedUsage>,
    pub agent_limits: AgentLimits,
    /// Tokens the request sends besides the messages (a request body's tools).
    pub extra_tokens: usize,
    /// Problems tolerated while reading (already reported).
    pub warnings: Vec<String>,
    /// Where the records end, for reading a grown version of the file from there on.
    pub resume: Option<Resume>,
    /// Whether reading skipped the records before an earlier read's resume point.
    pub skipped: bool,
    pub tally: Tally,
    /// The next request as `--count-with api` had it counted.
    pub api: Option<Prediction>,
}

impl Counted {
    /// A streamed read's figures: what every streamed route shares (the messages' total from
    /// the tally; no usage, agent limits, extra tokens, warnings or resume point), for the
    /// route to fill in what it read with struct update syntax.
    pub fn streamed(
        path: &Path,
        fingerprint: Fingerprint,
        format: Format,
        model: ResolvedModel,
        keeps_counts: bool,
        tally: Tally,
    ) -> Counted {
        Counted {
            path: path.to_path_buf(),
            fingerprint,
            format,
            session_model: None,
            keeps_counts,
            total: Counter::total(&tally.counts),
            usage: None,
            agent_limits: AgentLimits::default(),
            extra_tokens: 0,
            warnings: Vec::new(),
            resume: None,
            skipped: false,
            model,
            tally,
            api: None,
        }
    }

    pub fn display(&self) -> String {
        load::display(&self.path)
    }

    /// Tokens of each message.
    pub fn counts(&self) -> &[usize] {
        &self.tally.counts
    }

    /// The predicted input tokens of the session's next request.
    pub fn prediction(&self) -> Prediction {
        if let Some(p) = self.api {
            return p;
        }
        predict::predict(
            self.usage.as_ref(),
            &self.tally.counts,
            self.extra_tokens,
            self.model.exact,
            self.model.factor,
            crate::ops::prior::of(self.format, &self.agent_limits),
        )
    }

    /// The context window the session's agent uses.
    pub fn window(&self) -> Window {
        window::of(
            &self.model,
            self.format,
            &self.agent_limits,
            self.usage.as_ref(),
        )
    }

    /// The provider-reported usage beside ctxctl's count of the same messages.
    pub fn reported(&self) -> Option<Reported> {
        crate::ops::usage::reported_of(self.usage.as_ref(), &self.tally.counts)
    }

    /// Whether every count is exact (no part counted by its size, an exact tokenizer).
    pub fn exact(&self) -> bool {
        self.model.exact && self.tally.estimated == 0
    }

    /// `values` (one per message) summed by role.
    pub fn by_role(&self, values: impl IntoIterator<Item = usize>) -> ByRole {
        let mut out = ByRole::default();
        for (r, n) in self.tally.roles.iter().zip(values) {
            out.add(*r, n);
        }
        out
    }

    /// The roles of the messages, in order.
    pub fn roles(&self) -> &[Role] {
        &self.tally.roles
    }
}

/// The figures of a session read whole.
pub fn of_loaded(ctx: &Context, l: Loaded, wants: Wants, api: Option<Prediction>) -> Counted {
    let threads = ctx.counting_threads();
    let chunk = Chunk::of(
        ctx,
        &l.counter,
        &l.session.messages,
        &l.counts,
        0,
        (l.model.factor, threads),
        wants,
        None,
    );
    let mut tally = Tally::default();
    tally.add(chunk);
    Counted {
        path: l.path.clone(),
        fingerprint: l.fingerprint,
        format: l.session.format,
        session_model: l.session.model.clone(),
        model: l.model.clone(),
        keeps_counts: l.counter.keeps_counts(),
        total: l.total,
        usage: l.live_usage().cloned(),
        agent_limits: l.session.agent_limits,
        extra_tokens: l.extra_tokens,
        warnings: l.session.warnings.clone(),
        resume: l.session.resume,
        skipped: l.session.skipped,
        tally,
        api,
    }
}
