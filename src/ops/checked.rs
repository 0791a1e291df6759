//! Reading one session for a check, with its digest (see [`crate::cache::digest`]): an
//! unchanged session is answered from the digest, a grown one read from where the digest
//! ends, any other read whole; the digest is then brought up to date. `check` and
//! `sessions` share it, and [`status`], the verdict on the figure.

use std::path::{Path, PathBuf};

use crate::cache::digest::{Digest, Resumable, DIGEST_VERSION};
use crate::context::{Context, ResolvedModel};
use crate::ops::load;
use crate::ops::predict::{self, Prediction};
use crate::ops::window::{self, Window};
use crate::session::pairs::{self, Shape};
use crate::session::{AgentLimits, Format, Keep, ReportedUsage};

/// What a check needs of one session.
pub struct Checked {
    pub path: PathBuf,
    pub model: ResolvedModel,
    /// Tokens of each message (scaled like the session's count).
    pub counts: Vec<usize>,
    /// The provider-reported usage that still describes the session.
    pub usage: Option<ReportedUsage>,
    /// Structural problems, as printed.
    pub problems: Vec<String>,
    /// The window and refusals the agent recorded.
    pub agent: AgentLimits,
    pub format: Format,
    /// Tokens the request sends besides the messages (a request body's tools).
    pub extra_tokens: usize,
    /// The provider's figure (`--count-with api`), when it counted the session.
    pub api: Option<Prediction>,
}

impl Checked {
    /// The status `check` gives this session when its next request is `tokens`: the
    /// agent's own record of a refused request outweighs any count, and a session within
    /// its limit but with structural problems is `broken`.
    pub fn status(&self, tokens: usize, effective_limit: u64, threshold: f64) -> &'static str {
        match status(tokens, effective_limit, threshold) {
            _ if self.agent.overflow => "over",
            "ok" if !self.problems.is_empty() => "broken",
            s => s,
        }
    }

    /// The predicted input tokens of the session's next request.
    pub fn prediction(&self) -> Prediction {
        if let Some(p) = self.api {
            return p;
        }
        predict::predict(
            self.usage.as_ref(),
            &self.counts,
            self.extra_tokens,
            self.model.exact,
            self.model.factor,
            crate::ops::prior::hidden(self.format, &self.agent),
        )
    }

    /// The context window the session's agent uses.
    pub fn window(&self) -> Window {
        window::of(&self.model, self.format, &self.agent, self.usage.as_ref())
    }
}

/// Reads one session for a check.
pub fn load(ctx: &Context, path: &Path) -> anyhow::Result<Checked> {
    if crate::ops::exact::enabled(ctx)? {
        // The provider counts the messages themselves: read them all (its answers are
        // cached by request, so an unchanged session sends nothing again).
        let l = load::load_for_reading(ctx, path)?;
        let next = crate::ops::exact::prediction(ctx, &l)?;
        let mut checked = finish(ctx, path, None, l, None)?;
        checked.api = (next.source == predict::NextSource::Api).then_some(next);
        return Ok(checked);
    }
    if load::is_database(path) {
        // One session of an agent's database: no digest (it is not a file of its own).
        let l = load::load_for_reading(ctx, path)?;
        return finish(ctx, path, None, l, None);
    }
    let digests = ctx.digests();
    let key = digests.and_then(|d| d.key(path, ctx.settings.format));
    let previous = digests.zip(key).and_then(|(d, key)| d.get(key));
    if let Some(checked) = previous.as_ref().and_then(|d| unchanged(ctx, path, d)) {
        return Ok(checked);
    }
    let (bytes, fingerprint) = load::read(path)?;
    let mut before = None;
    if let Some(d) = previous {
        if d.describes(fingerprint.len, fingerprint.hash) {
            if let Some(checked) = from_digest(ctx, path, &d) {
                return Ok(checked);
            }
        } else if d.resume.as_ref().is_some_and(|r| r.continues(&bytes)) {
            before = Some(d);
        }
    }
    let point = before
        .as_ref()
        .and_then(|d| d.resume.as_ref())
        .map(|r| r.point);
    let mut session = load::parse_session(ctx, path, bytes, Keep::After(point))?;
    // The messages before the point, when reading started there as the same format.
    let before = before.filter(|d| session.skipped && d.format == session.format.name());
    if session.skipped && before.is_none() {
        // Read as another format than before (detection saw the new part): read it all.
        return full(ctx, path, key);
    }
    if let Some(d) = &before {
        // A file that names its model in its first records only keeps the earlier read's.
        if session.format.codec().model_in_first_records() && d.model.is_some() {
            session.model.clone_from(&d.model);
        }
        // The file may now name another model (another tokenizer or scale): read it all.
        let model = ctx.resolve_model_quietly(session.model.as_deref());
        if d.counts_for(model.encoding, model.factor).is_none() {
            return full(ctx, path, key);
        }
        ctx.printer.debug(&format!(
            "{}: grown since its last check; read from record {} on ({} new messages)",
            load::display(path),
            d.resume.as_ref().map_or(0, |r| r.point.records),
            session.messages.len()
        ));
    }
    load::warn_session(ctx, path, &session);
    let l = load::count_session(ctx, path, session, fingerprint)?;
    finish(ctx, path, key, l, before)
}

/// The check of a regular file still as its digest `d` describes it, found by hashing the
/// file in chunks: an unchanged session is never held in memory (a fresh buffer the size
/// of the file costs more than the hash). Only a file of the digest's length is hashed;
/// `None` (read it) for a file that changed, or anything but a regular file.
fn unchanged(ctx: &Context, path: &Path, d: &Digest) -> Option<Checked> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() != d.len as u64 {
        return None;
    }
    let now = load::Fingerprint::of_file(path).ok()?;
    d.describes(now.len, now.hash)
        .then(|| from_digest(ctx, path, d))
        .flatten()
}

/// Reads session `id` of the agent database at `path` (goose's `sessions.db`) for a check.
pub fn load_db(ctx: &Context, path: &Path, id: &str) -> anyhow::Result<Checked> {
    let l = load::load_selected(ctx, path, Some(id))?;
    finish(ctx, path, None, l, None)
}

/// Reads `path` whole, without its digest's help, and brings the digest up to date.
fn full(ctx: &Context, path: &Path, key: Option<u128>) -> anyhow::Result<Checked> {
    let (bytes, fingerprint) = load::read(path)?;
    let l = load::load_bytes(ctx, path, bytes, fingerprint, Keep::After(None))?;
    finish(ctx, path, key, l, None)
}

/// The check of a read session `l`, whose first messages are those of the digest
/// `before` when reading resumed after them; stores the new digest under `key`.
fn finish(
    ctx: &Context,
    path: &Path,
    key: Option<u128>,
    l: load::Loaded,
    before: Option<Digest>,
) -> anyhow::Result<Checked> {
    let fingerprint = l.fingerprint;
    let mut counts: Vec<usize> = before
        .as_ref()
        .map(|d| d.counts.iter().map(|&n| n as usize).collect())
        .unwrap_or_default();
    counts.extend_from_slice(&l.counts);
    let mut shapes = match &before {
        Some(d) => d
            .resume
            .as_ref()
            .map_or_else(Vec::new, |r| r.shapes(d.messages)),
        None => Vec::new(),
    };
    shapes.extend(l.session.messages.iter().map(Shape::of));
    let problems: Vec<String> = pairs::problems(&shapes)
        .iter()
        .map(ToString::to_string)
        .collect();
    let model = l.session.model.clone();
    if let (Some(key), true) = (key, l.counter.keeps_counts()) {
        let usage = l.live_usage().map(Into::into);
        let warnings = l.session.warnings.clone();
        // Resuming needs the whole file to have been read cleanly: notes about unknown
        // parts or roles are totals, which a later read of the new records alone cannot
        // add to.
        let resume = l
            .session
            .resume
            .filter(|_| warnings.is_empty() && usage.is_none())
            .and_then(|point| Resumable::new(point, &shapes));
        let digest = Digest {
            version: DIGEST_VERSION,
            len: fingerprint.len,
            hash: fingerprint.hash,
            format: l.session.format.name().to_string(),
            model,
            messages: counts.len(),
            warnings,
            usage,
            problems: problems.clone(),
            encoding: l.model.encoding.name().to_string(),
            factor: l.model.factor,
            counts: counts
                .iter()
                .map(|&n| u32::try_from(n).unwrap_or(u32::MAX))
                .collect(),
            resume,
            agent_limits: l.session.agent_limits,
            extra_tokens: l.extra_tokens,
        };
        ctx.remember_digest(key, &digest);
    }
    Ok(Checked {
        path: path.to_path_buf(),
        usage: l.live_usage().cloned(),
        model: l.model.clone(),
        counts,
        problems,
        agent: l.session.agent_limits,
        format: l.session.format,
        extra_tokens: l.extra_tokens,
        api: None,
    })
}

/// The check of `path` from its digest, if the digest's counts fit the model resolved now.
fn from_digest(ctx: &Context, path: &Path, d: &Digest) -> Option<Checked> {
    let shown = load::display(path);
    let format = Format::from_name(&d.format)?;
    let model = ctx.resolve_model_quietly(d.model.as_deref());
    let counts = d.counts_for(model.encoding, model.factor)?;
    // In the order a fresh read gives them: the file's warnings, then the model's.
    for w in &d.warnings {
        ctx.printer.warn(&format!("{shown}: {w}"));
    }
    let model = ctx.resolve_model(d.model.as_deref());
    ctx.printer.debug(&format!(
        "{shown}: unchanged since its last check ({} format, {} messages); model {} (from {}), {} counts from its digest",
        d.format, d.messages, model.name, model.source, model.encoding
    ));
    Some(Checked {
        path: path.to_path_buf(),
        model,
        counts,
        usage: d.usage.as_ref().map(Into::into),
        problems: d.problems.clone(),
        agent: d.agent_limits,
        format,
        extra_tokens: d.extra_tokens,
        api: None,
    })
}

/// Classifies `tokens` against the limits: `ok`, `compact` (at or over `threshold` of the
/// effective limit) or `over` (above it).
pub fn status(tokens: usize, effective_limit: u64, threshold: f64) -> &'static str {
    let tokens = tokens as f64;
    let limit = effective_limit as f64;
    if tokens > limit {
        "over"
    } else if tokens >= threshold * limit && tokens > 0.0 {
        "compact"
    } else {
        "ok"
    }
}

#[cfg(test)]
mod tests {
    use super::status;

    #[test]
    fn statuses() {
        assert_eq!(status(0, 100, 0.8), "ok");
        assert_eq!(status(79, 100, 0.8), "ok");
        assert_eq!(status(80, 100, 0.8), "compact");
        assert_eq!(status(100, 100, 0.8), "compact");
        assert_eq!(status(101, 100, 0.8), "over");
    }
}
