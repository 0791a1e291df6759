//! Reading one session for a check, with its digest (see [`crate::cache::digest`]): an
//! unchanged session is answered from the digest, a grown one read from where the digest
//! ends, any other read whole; the digest is then brought up to date. `check` and
//! `sessions` share it, and [`status`], the verdict on the figure.

use std::path::{Path, PathBuf};

use crate::cache::digest::{Digest, Resumable, Seen, DIGEST_VERSION};
use crate::context::{Context, ResolvedModel};
use crate::ops::counted::{self, Counted};
use crate::ops::figures::Wants;
use crate::ops::grown;
use crate::ops::load;
use crate::ops::predict::{self, Prediction};
use crate::ops::read_only;
use crate::ops::window::{self, Window};
use crate::session::order;
use crate::session::pairing::Pairing;
use crate::session::pairs::Shapes;
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
    /// The hidden part a rewrite measured and carried over to exactly these bytes (see
    /// [`crate::cache::carried`]); used where the file records no live usage.
    pub carried: Option<usize>,
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
        if let (None, Some(overhead)) = (&self.usage, self.carried) {
            return Prediction::carried(crate::tokens::Counter::total(&self.counts), overhead);
        }
        predict::predict(
            self.usage.as_ref(),
            &self.counts,
            self.extra_tokens,
            self.model.exact,
            self.model.factor,
            crate::ops::prior::of(self.format, &self.agent),
        )
    }

    /// The context window the session's agent uses.
    pub fn window(&self) -> Window {
        window::of(&self.model, self.format, &self.agent, self.usage.as_ref())
    }
}

/// What a check keeps of each message.
const WANTS: Wants = Wants {
    shapes: true,
    tools: false,
    previews: false,
    resume: true,
};

/// What a check reads of a session it does not keep a digest of (an agent's database, a
/// count by the provider's API).
const WANTS_NO_DIGEST: Wants = Wants {
    resume: false,
    ..WANTS
};

/// Reads one input for a check: a file, or session `session` of the agent's database
/// `path` (as `load` reads the one `--session` names).
pub fn load_session(ctx: &Context, path: &Path, session: Option<&str>) -> anyhow::Result<Checked> {
    let Some(id) = session else {
        return load(ctx, path);
    };
    let mut t = read_only::load_session(ctx, path, Some(id), WANTS_NO_DIGEST)?;
    let next = t.api.take();
    let mut checked = finish(ctx, path, Slot::NONE, t, None)?;
    checked.api = next.filter(|p| p.source == predict::NextSource::Api);
    Ok(checked)
}

/// Reads one session for a check.
pub fn load(ctx: &Context, path: &Path) -> anyhow::Result<Checked> {
    load_noting(ctx, path, &|_| {})
}

/// `load`, handing `note` the digest that describes the file as it was read (stored
/// anew, or found still true), for the listing index ([`crate::cache::listing`]).
pub fn load_noting(ctx: &Context, path: &Path, note: &dyn Fn(&Digest)) -> anyhow::Result<Checked> {
    if crate::ops::count_api::enabled(ctx)? {
        // The provider counts the messages themselves: read them all (its answers are
        // cached by request, so an unchanged session sends nothing again).
        let mut t = read_only::load(ctx, path, WANTS_NO_DIGEST)?;
        let next = t.api.take();
        let mut checked = finish(ctx, path, Slot::NONE, t, None)?;
        checked.api = next.filter(|p| p.source == predict::NextSource::Api);
        return Ok(checked);
    }
    if load::is_database(path) {
        // One session of an agent's database: no digest (it is not a file of its own).
        let t = read_only::load(ctx, path, WANTS_NO_DIGEST)?;
        return finish(ctx, path, Slot::NONE, t, None);
    }
    let digests = ctx.digests();
    let key = digests.and_then(|d| d.key(path, ctx.settings.format));
    // Taken before the file is read: the digest stored after reading it keeps it.
    let slot = Slot {
        key,
        seen: key.and_then(|_| Seen::now(path)),
    };
    let previous = digests.zip(key).and_then(|(d, key)| d.get(key));
    let Some(d) = previous else {
        return fresh(ctx, path, slot, note);
    };
    // A session that did not change is answered from its digest (unread when its stat
    // identity vouches for it, else hashed in blocks, never held, and only when its length
    // is the digest's); one that grew is read from where its digest ends.
    if let Some(checked) = unchanged(ctx, path, slot, &d, note) {
        return Ok(checked);
    }
    match &d.resume {
        Some(_) => resumed(ctx, path, slot, d, note),
        None => fresh(ctx, path, slot, note),
    }
}

/// Where a session's digest goes (`key`, `None`: it keeps none), and the file's stat
/// identity taken before it was read.
#[derive(Clone, Copy)]
struct Slot {
    key: Option<u128>,
    seen: Option<Seen>,
}

impl Slot {
    const NONE: Slot = Slot {
        key: None,
        seen: None,
    };
}

/// Reads `path` from the start (streamed when it can be), and brings the digest up to
/// date.
fn fresh(
    ctx: &Context,
    path: &Path,
    slot: Slot,
    note: &dyn Fn(&Digest),
) -> anyhow::Result<Checked> {
    let t = read_only::load(ctx, path, WANTS)?;
    finish_noting(ctx, path, slot, t, None, note)
}

/// Reads `path`, which its digest `d` may describe the start of, from where `d` ends: once,
/// parsing only the new records (see `grown`), when the file starts with the bytes `d`
/// describes, goes on, and reads as before; and brings the digest up to date. Any other
/// file is read from the start, as a first check reads it.
fn resumed(
    ctx: &Context,
    path: &Path,
    slot: Slot,
    d: Digest,
    note: &dyn Fn(&Digest),
) -> anyhow::Result<Checked> {
    let (Some(r), Some(format)) = (&d.resume, Format::from_name(&d.format)) else {
        return fresh(ctx, path, slot, note);
    };
    let Ok(Some(mut grown)) = grown::read(path, &r.point, format) else {
        return fresh(ctx, path, slot, note);
    };
    let (point, fingerprint, added) = (grown.point, grown.fingerprint, grown.added());
    let text = std::mem::take(&mut grown.text);
    let parsed = text.len();
    let session = load::parse_session(ctx, path, text, Keep::After(Some(point)));
    // Read from the point as the same format, or else (detection saw the new part, the new
    // part does not start a record, it does not parse): read it all.
    let mut session = match session {
        Ok(s) if s.skipped && s.format.name() == d.format => s,
        _ => return full(ctx, path, slot, note),
    };
    session.resume = session.resume.and_then(|p| grown.real(p, &added));
    // A file that names its model in its first records only keeps the earlier read's.
    if session.format.codec().model_in_first_records() && d.model.is_some() {
        session.model.clone_from(&d.model);
    }
    // The file may now name another model (another tokenizer or scale): read it all.
    let model = ctx.resolve_model_quietly(session.model.as_deref());
    if d.counts_for(model.encoding, model.factor).is_none() {
        return full(ctx, path, slot, note);
    }
    ctx.printer.debug(&format!(
        "{}: grown since its last check; read from record {} on ({} new messages; {parsed} of its {} bytes held)",
        load::display(path),
        r.point.records,
        session.messages.len(),
        fingerprint.len
    ));
    load::warn_session(ctx, path, &session);
    let l = load::count_session(ctx, path, session, fingerprint)?;
    let t = counted::of_loaded(ctx, l, WANTS, None);
    finish_noting(ctx, path, slot, t, Some(d), note)
}

/// The check of a regular file still as its digest `d` describes it. Unread when the
/// digest's stat identity vouches for the file (see [`crate::cache::digest`]); else found
/// by hashing the file in chunks: an unchanged session is never held in memory (a fresh
/// buffer the size of the file costs more than the hash). Only a file of the digest's
/// length is hashed; `None` (read it) for a file that changed, or anything but a regular
/// file. A file found unchanged by its hash gets its digest re-stamped with its identity
/// now, once its times are old enough to vouch for it, so that the next check reads
/// nothing.
fn unchanged(
    ctx: &Context,
    path: &Path,
    slot: Slot,
    d: &Digest,
    note: &dyn Fn(&Digest),
) -> Option<Checked> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() != d.len as u64 {
        return None;
    }
    if let (Some(was), Some(now)) = (d.seen, slot.seen) {
        if was.vouches_for(&now.stat) {
            let checked = from_digest(
                ctx,
                path,
                d,
                "its size, times and inode as the digest saw them; not read",
            )?;
            note(d);
            return Some(checked);
        }
    }
    let now = load::Fingerprint::of_file(path).ok()?;
    if !d.describes(now.len, now.hash) {
        return None;
    }
    let checked = from_digest(ctx, path, d, "the same bytes, hashed")?;
    if let (Some(key), Some(seen)) = (slot.key, slot.seen) {
        if seen.can_vouch() {
            let stamped = Digest {
                seen: Some(seen),
                ..d.clone()
            };
            ctx.remember_digest(key, &stamped);
            note(&stamped);
        }
    }
    Some(checked)
}

/// Reads session `id` of the agent database at `path` (goose's `sessions.db`) for a check.
pub fn load_db(ctx: &Context, path: &Path, id: &str) -> anyhow::Result<Checked> {
    let l = load::load_selected(ctx, path, Some(id))?;
    finish(
        ctx,
        path,
        Slot::NONE,
        counted::of_loaded(ctx, l, WANTS, None),
        None,
    )
}

/// Reads `path` whole, without its digest's help, and brings the digest up to date.
fn full(ctx: &Context, path: &Path, slot: Slot, note: &dyn Fn(&Digest)) -> anyhow::Result<Checked> {
    let (bytes, fingerprint) = load::read(path)?;
    let l = load::load_bytes(ctx, path, bytes, fingerprint, Keep::After(None))?;
    let t = counted::of_loaded(ctx, l, WANTS, None);
    finish_noting(ctx, path, slot, t, None, note)
}

/// The check of a read session `l`, whose first messages are those of the digest
/// `before` when reading resumed after them; stores the new digest in `slot`.
fn finish(
    ctx: &Context,
    path: &Path,
    slot: Slot,
    l: Counted,
    before: Option<Digest>,
) -> anyhow::Result<Checked> {
    finish_noting(ctx, path, slot, l, before, &|_| {})
}

/// [`finish`], handing `note` the digest stored.
fn finish_noting(
    ctx: &Context,
    path: &Path,
    slot: Slot,
    mut l: Counted,
    mut before: Option<Digest>,
    note: &dyn Fn(&Digest),
) -> anyhow::Result<Checked> {
    let fingerprint = l.fingerprint;
    let mut counts: Vec<usize> = before
        .as_ref()
        .map(|d| d.counts.iter().map(|&n| n as usize).collect())
        .unwrap_or_default();
    if counts.is_empty() {
        counts = std::mem::take(&mut l.tally.counts);
    } else {
        counts.extend_from_slice(l.counts());
    }
    // Checked as the messages were read (a streamed read: no earlier messages, no resume
    // point; the Anthropic ordering rules only by a check made to keep them), or from
    // every message's shape. A read that checked as it went kept no shapes, so any other
    // case is a route's mistake: refused, not answered from the empty shapes as "no
    // problems".
    let paired = l.tally.pairing.take();
    let unordered = |p: &Pairing| l.format.anthropic_bound() && !p.orders();
    if paired
        .as_ref()
        .is_some_and(|p| before.is_some() || unordered(p))
    {
        anyhow::bail!(
            "{}: internal error: the pairing was checked as the file was read, which this read cannot use",
            load::display(path)
        );
    }
    let mut all = Shapes::default();
    if paired.is_none() {
        if let Some(r) = before
            .as_ref()
            .and_then(|d| Some((d.resume.as_ref()?, d.messages)))
        {
            r.0.push_shapes(r.1, &mut all);
        }
        all.append(std::mem::take(&mut l.tally.shapes));
    } else {
        l.resume = None;
    }
    let shapes = all.turns();
    let problems = match paired {
        Some(p) => p.finish(),
        None => order::problems(l.format, &shapes),
    };
    let mut problems: Vec<String> = problems.iter().map(ToString::to_string).collect();
    if let Some(p) = crate::formats::surrogates::problem(l.format, &l.agent_limits) {
        problems.push(p);
    }
    if let (Some(key), true) = (slot.key, l.keeps_counts) {
        let usage = l.usage.as_ref().map(Into::into);
        let warnings = l.warnings.clone();
        // Resuming needs the whole file to have been read cleanly: notes about unknown
        // parts or roles are totals, which a later read of the new records alone cannot
        // add to.
        // A grown session's digest is extended: its earlier messages' ids are not copied.
        let known = before
            .as_mut()
            .and_then(|d| Some((d.resume.take()?, d.messages)));
        let resume = l
            .resume
            .filter(|_| warnings.is_empty() && usage.is_none())
            .and_then(|point| match known {
                Some((r, n)) => r.extend(point, &shapes, n),
                None => Resumable::new(point, &shapes),
            });
        let digest = Digest {
            version: DIGEST_VERSION,
            len: fingerprint.len,
            hash: fingerprint.hash,
            format: l.format.name().to_string(),
            model: l.session_model.clone(),
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
            agent_limits: l.agent_limits,
            extra_tokens: l.extra_tokens,
            seen: slot.seen,
        };
        ctx.remember_digest(key, &digest);
        note(&digest);
    }
    let carried = load::carried(ctx, l.usage.is_none(), fingerprint.len, fingerprint.hash);
    Ok(Checked {
        path: path.to_path_buf(),
        usage: l.usage.clone(),
        model: l.model.clone(),
        counts,
        problems,
        agent: l.agent_limits,
        format: l.format,
        extra_tokens: l.extra_tokens,
        api: None,
        carried,
    })
}

/// The check of `path` from the digest `d` the listing index kept of it (the index has
/// made sure `d` still describes the file), if its counts fit the model resolved now.
pub fn from_listed(ctx: &Context, path: &Path, d: &Digest) -> Option<Checked> {
    from_digest(
        ctx,
        path,
        d,
        "its size, times and inode as the listing index saw them; not read",
    )
}

/// The check of `path` from its digest, if the digest's counts fit the model resolved now;
/// `how` says (in the debug line) how the file was found unchanged.
fn from_digest(ctx: &Context, path: &Path, d: &Digest, how: &str) -> Option<Checked> {
    let shown = load::display(path);
    let format = Format::from_name(&d.format)?;
    let model = ctx.resolve_model_quietly(d.model.as_deref());
    let counts = d.counts_for(model.encoding, model.factor)?;
    // In the order a fresh read gives them: the file's warnings, then the model's.
    for w in &d.warnings {
        ctx.printer.warn(&format!("{shown}: {w}"));
    }
    let model = ctx.resolve_model(&shown, d.model.as_deref());
    ctx.printer.debug(&format!(
        "{shown}: unchanged since its last check ({how}; {} format, {} messages); model {} (from {}), {} counts from its digest",
        d.format, d.messages, model.name, model.source, model.encoding
    ));
    Some(Checked {
        path: path.to_path_buf(),
        model,
        counts,
        carried: load::carried(ctx, d.usage.is_none(), d.len, d.hash),
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
