//! Loading a session file into a counted session: read, fingerprinted, parsed, resolved
//! against its model and counted.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context as _;

use crate::context::{Context, ResolvedModel};
use crate::formats;
use crate::ops::agentdb::{self, DbSession};
use crate::session::{self, Keep, Session};
use crate::tokens::Counter;

/// A session read, resolved against its model and counted.
pub struct Loaded {
    /// The path as given (`-` for stdin).
    pub path: PathBuf,
    /// What the file held when read, to detect concurrent changes before replacing it.
    pub fingerprint: Fingerprint,
    pub session: Session,
    pub model: ResolvedModel,
    pub counter: Arc<Counter>,
    /// Tokens of each message.
    pub counts: Vec<usize>,
    /// The session's total (messages + reply priming).
    pub total: usize,
    /// The session inside an agent's database (`path`) this is; `None` for a file.
    pub db_session: Option<DbSession>,
    /// Tokens the request sends besides the messages (a request body's tools).
    pub extra_tokens: usize,
    /// The file `path` led to when it was read, every symlink resolved: an in-place
    /// rewrite refuses to go on when the path leads elsewhere by then.
    pub target: Option<PathBuf>,
    /// Read as `count` reads a file, its document's text left in the file (see
    /// [`crate::ops::json_reread`]).
    pub streamed: bool,
    /// The hidden part of the next request the rewrite under way leaves, when it knows
    /// where it cuts ([`Loaded::hidden_after_rewrite`]); reported and carried over.
    pub hidden_after: Option<usize>,
    /// The hidden part an earlier rewrite carried over to exactly these bytes, when the
    /// session records no live usage ([`carried`]): a rewrite of a rewritten file keeps
    /// that figure, as `check` of it does, rather than falling back to a prior.
    pub carried: Option<usize>,
}

impl Loaded {
    pub fn display(&self) -> String {
        display(&self.path)
    }

    /// The provider-reported usage that still describes this session. Each reader keeps
    /// only usage ctxctl has not made stale: Claude Code and Codex files say where ctxctl
    /// last rewrote them (a `last-prompt` marker, a `compacted` record) and usage reported
    /// after that counts again; goose's metadata line has no such place, so any ctxctl
    /// summary or omission marker makes it stale.
    pub fn live_usage(&self) -> Option<&crate::session::ReportedUsage> {
        self.session.reported_usage.as_ref()
    }

    /// The predicted input tokens of the session's next request (see [`crate::ops::predict`]).
    pub fn prediction(&self) -> crate::ops::predict::Prediction {
        if let (None, Some(overhead)) = (self.live_usage(), self.carried) {
            return crate::ops::predict::Prediction::carried(self.total, overhead);
        }
        crate::ops::predict::predict(
            self.live_usage(),
            &self.counts,
            self.extra_tokens,
            self.model.exact,
            self.model.factor,
            crate::ops::prior::of(self.session.format, &self.session.agent_limits),
        )
    }

    /// The hidden part of the next request once a rewrite has replaced part of the
    /// messages, the messages from `kept_from` on staying after its summary: what the
    /// rewrite reports and carries to the file it wrote, so that the next `check` of that
    /// file gives the same figure with or without the cache. A Claude Code transcript that
    /// ctxctl compacts gets a `compact_boundary` before the kept messages, and `check`
    /// measures its hidden part on the earliest report before that boundary, calibrated on
    /// the reports before it ([`crate::ops::compacted`]): the same figure here. Not the
    /// latest report's, which also holds what ctxctl's count of the long history missed
    /// (and, calibrated, the ratio over that history), none of which is sent any more: on
    /// a 160 MB transcript the two were 3.2M and 16K. Otherwise the prediction's own.
    pub fn hidden_after_rewrite(&self, kept_from: Option<usize>) -> usize {
        let p = self.prediction();
        let agent = &self.session.agent_limits;
        let (Some(u), Some(cut)) = (self.live_usage(), kept_from) else {
            return self.hidden_after.unwrap_or(p.overhead);
        };
        if self.session.format != session::Format::ClaudeCode || agent.prompt_measured {
            return p.overhead;
        }
        let before = u.before(cut);
        before
            .and_then(|u| {
                crate::ops::predict::first_hidden_part(&u, &self.counts, self.model.factor)
            })
            .unwrap_or_else(|| crate::ops::prior::hidden(self.session.format, agent))
    }

    /// The context window the session's agent uses (see [`crate::ops::window`]).
    pub fn window(&self) -> crate::ops::window::Window {
        crate::ops::window::of(
            &self.model,
            self.session.format,
            &self.session.agent_limits,
            self.live_usage(),
        )
    }

    /// Makes a session loaded with [`load_for_rewrite`] writable: when its text was released
    /// (a large file), drops its messages' text (the plan is made) and reads the file's
    /// text again. A file that changed since it
    /// was read is an [`output::Changed`](Changed) error. A session whose document was
    /// kept loses its messages' text too when its format's writer does not read it
    /// ([`Codec::writes_from_document`](crate::formats::Codec::writes_from_document)): the
    /// output is then made beside the document alone.
    pub fn reattach(&mut self) -> anyhow::Result<()> {
        if !self.session.doc.is_detached() {
            if self.session.format.codec().writes_from_document() {
                // Cleared in place, not copied small as for a detached document: the
                // document stays, and a copy of the messages beside it would be the
                // rewrite's peak.
                let messages = self.session.messages.iter_mut();
                messages.for_each(session::Message::release_text);
                crate::mem::give_back();
            }
            return Ok(());
        }
        self.session.release_text();
        let (bytes, now) = read(&self.path)?;
        if now != self.fingerprint {
            return Err(Changed {
                path: self.path.clone(),
            }
            .into());
        }
        self.session
            .reattach(bytes)
            .with_context(|| self.display())?;
        if let (true, session::Document::Json(doc)) = (self.streamed, &mut self.session.doc) {
            // A streamed read never saw the document's text whole.
            doc.style = session::JsonStyle::of(&doc.text);
        }
        Ok(())
    }

    /// Drops the document's text once nothing more is written or archived from it (the
    /// messages and their origins stay): a large session's text weighs as much as the
    /// file.
    pub fn release_document(&mut self) {
        if self.session.doc.text().is_some() {
            self.session.doc = session::Document::Released;
        }
    }

    /// Errors with [`Changed`] if the session no longer is what was read (for a database
    /// session, its rows; see [`ensure_unchanged`]).
    pub fn ensure_unchanged(&self) -> anyhow::Result<()> {
        match &self.db_session {
            Some(s) => {
                let now = agentdb::read(&self.path, Some(&s.id))?;
                if Fingerprint::of(now.text.as_bytes()) != self.fingerprint {
                    return Err(s.changed(&self.path).into());
                }
                Ok(())
            }
            None => ensure_unchanged(&self.path, self.fingerprint),
        }
    }

    /// The total of `bytes`, this session rewritten, counted as this session was: the
    /// figure a later `count` of the written file gives. `None` when the bytes do not read
    /// back (the caller then reports its plan's own figure).
    pub fn recount(&self, bytes: &[u8]) -> Option<usize> {
        self.recount_owned(bytes.to_vec())
    }

    /// Whether `items` written in this session's format count exactly what a plan counted
    /// them at: the format writes nothing but the items, and every item is a kept message
    /// or the counts are not scaled (a plan counts new text unscaled; see
    /// [`Loaded::scaled`]). The strategy property tests hold plans to this.
    pub fn plan_is_exact(&self, items: &[session::Item]) -> bool {
        self.new_items_are_exact()
            || (self.session.format.codec().writes_only_items()
                && items.iter().all(|i| matches!(i, session::Item::Keep(_))))
    }

    /// Whether any plan is exact ([`Loaded::plan_is_exact`]), whatever new items it has:
    /// the format writes nothing but the items and the counts are not scaled.
    pub fn new_items_are_exact(&self) -> bool {
        self.session.format.codec().writes_only_items() && self.model.factor == 1.0
    }

    /// [`Loaded::recount`] of bytes the caller no longer needs: they are read as `count`
    /// reads a file, their text going as the records are read, and never copied.
    pub fn recount_owned(&self, bytes: Vec<u8>) -> Option<usize> {
        let s =
            crate::formats::read_keeping(bytes, Some(self.session.format), session::Keep::Messages)
                .ok()?;
        let counts = self.counter.messages(&s);
        Some(Counter::total(
            &counts
                .into_iter()
                .map(|n| self.scaled(n))
                .collect::<Vec<_>>(),
        ))
    }

    /// [`Loaded::recount`] of the file at `path`, this session rewritten and written there
    /// as it was made (so never held whole before); read once the caller released the
    /// document ([`Loaded::release_document`]).
    pub fn recount_file(&self, path: &Path) -> Option<usize> {
        self.recount_owned(std::fs::read(path).ok()?)
    }

    /// `n` counted tokens as this session's model would see them (estimates are scaled).
    pub fn scaled(&self, n: usize) -> usize {
        scale(n, self.model.factor)
    }
}

impl Drop for Loaded {
    /// A large session is freed on another thread: freeing a few million strings takes as
    /// long as reading them, and nobody waits for it (a one-file run exits meanwhile).
    fn drop(&mut self) {
        if self.session.messages.len() < crate::mem::BACKGROUND_FREE {
            return;
        }
        let messages = std::mem::take(&mut self.session.messages);
        let doc = std::mem::replace(
            &mut self.session.doc,
            session::Document::Lines(session::LinesDoc::new(String::new())),
        );
        let counts = std::mem::take(&mut self.counts);
        crate::mem::free_later((messages, doc, counts));
    }
}

/// `n` counted tokens scaled by an estimate's `factor`.
pub fn scale(n: usize, factor: f64) -> usize {
    if factor == 1.0 {
        n
    } else {
        (n as f64 * factor).ceil() as usize
    }
}

/// How a path is shown in output (`<stdin>` for `-`).
pub fn display(path: &Path) -> String {
    if path == Path::new("-") {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}

/// Reads, parses and counts one input, keeping its document for a rewrite.
pub fn load(ctx: &Context, path: &Path) -> anyhow::Result<Loaded> {
    load_keeping(ctx, path, Keep::Document)
}

/// Files from this size on are read for a rewrite so that their text and their messages'
/// text are never held at once (see [`load_for_rewrite`]); below it, less than the
/// tokenizer's tables is at stake.
const REREAD_BYTES: u64 = 1 << 20;

/// Whether a rewrite's plan reads its messages' text, or only their roles, ids, tool calls
/// and counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanReads {
    Text,
    Structure,
}

/// Reads, parses and counts one input for a rewrite that plans before it writes, never
/// holding a large file's text and its messages' text at once:
/// - a plan that reads only the structure: each message is counted as it is parsed (on the
///   parsing thread) and its text dropped there (an omission marker's excepted); the
///   file's text stays for writing;
/// - otherwise the text is released as it is read and read again for writing
///   ([`Loaded::reattach`]); should it change in between, the rewrite starts again.
///
/// Smaller files, standard input and pipes (which cannot be read twice) are kept whole.
pub fn load_for_rewrite(ctx: &Context, path: &Path, reads: PlanReads) -> anyhow::Result<Loaded> {
    if !large_file(ctx, path) {
        return load_keeping(ctx, path, Keep::Document);
    }
    if reads == PlanReads::Structure {
        if let Some((l, _)) = load_counting(ctx, path, None)? {
            return Ok(l);
        }
    }
    load_keeping(ctx, path, Keep::Layout)
}

/// [`load_for_rewrite`] for a plan that reads no text ([`PlanReads::Structure`]) but wants
/// something of every message's text: `observe` sees each message while its text is at
/// hand (in a large file, on the thread that parsed it, just before its text goes), and
/// what it gives comes back in message order.
pub fn load_observing<T: Send>(
    ctx: &Context,
    path: &Path,
    observe: &(dyn Fn(&session::Message) -> T + Sync),
) -> anyhow::Result<(Loaded, Vec<T>)> {
    let seen = std::sync::Mutex::new(Vec::new());
    let look = |place: usize, m: &session::Message| {
        let t = observe(m);
        seen.lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((place, t));
    };
    let counted = if large_file(ctx, path) {
        load_counting(ctx, path, Some(&look))?
    } else {
        None
    };
    let l = match counted {
        Some((l, true)) => {
            let mut seen = seen.into_inner().unwrap_or_else(|e| e.into_inner());
            // Grown by doubling as the messages came, it may hold as much room again
            // spare (12 MB on a 68k-message rollout), kept by the list made in place
            // from it and held until the summary is made.
            seen.shrink_to_fit();
            seen.sort_unstable_by_key(|(place, _)| *place);
            debug_assert_eq!(seen.len(), l.session.messages.len());
            let seen = seen.into_iter().map(|(_, t)| t).collect();
            return Ok((l, seen));
        }
        // A format that does not count as it parses: its messages are whole.
        Some((l, false)) => l,
        // A small file, or one read again with the tokenizer it names.
        None => load_for_rewrite(ctx, path, PlanReads::Text)?,
    };
    let mut l = l;
    let seen = l.session.messages.iter().map(observe).collect();
    // Looked at, the texts are read no more (the plan reads the structure): a format
    // writing from its document alone lets them go now, not once the summary is made,
    // which they would outlive beside the document's text.
    if l.session.format.codec().writes_from_document() && !l.session.doc.is_detached() {
        l.session.messages.iter_mut().for_each(release_for_plan);
        crate::mem::give_back();
    }
    Ok((l, seen))
}

/// Whether `path` is a file large enough to be read for a rewrite so that its text and its
/// messages' text are never held at once ([`REREAD_BYTES`]).
fn large_file(ctx: &Context, path: &Path) -> bool {
    // A test mapping small files (`CTXCTL_TEST_MAP_FROM`) takes them this way too: only
    // this way maps them.
    let from = crate::ops::testhook::map_from(ctx).map_or(REREAD_BYTES, |m| m.min(REREAD_BYTES));
    path != Path::new("-")
        && !is_database(path)
        && ctx.settings.session.is_none()
        && std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() >= from)
}

/// A look at each message of a counting read, with its place in the file, just before its
/// text goes.
type Look<'a> = &'a (dyn Fn(usize, &session::Message) + Sync);

/// [`load_for_rewrite`] of a file whose messages are counted as they are parsed, their text
/// dropped once counted (and `look`ed at with their place just before). `None` when the
/// model the file names counts with another tokenizer (or scale) than the one its first
/// bytes suggested: the caller reads it again. The flag tells whether the messages were
/// counted as parsed: a format that does not keeps them whole, unlooked at.
fn load_counting(
    ctx: &Context,
    path: &Path,
    look: Option<Look>,
) -> anyhow::Result<Option<(Loaded, bool)>> {
    // A large agent transcript is mapped, not read (see `ops::mapped_input`).
    let map_from =
        crate::ops::testhook::map_from(ctx).unwrap_or(crate::ops::mapped_input::MAP_BYTES);
    let (input, fingerprint) =
        match crate::ops::mapped_input::transcript(path, ctx.settings.format, map_from) {
            Some(m) => {
                let (len, hash) = (m.text.len(), m.hash);
                ctx.printer.debug(&format!(
                    "{}: mapped from the file for the rewrite ({len} bytes), not read",
                    display(path)
                ));
                (Err(m), Fingerprint { len, hash })
            }
            None => read(path).map(|(bytes, f)| (Ok(bytes), f))?,
        };
    let head = match &input {
        Ok(bytes) => bytes.as_slice(),
        Err(m) => m.text.as_bytes(),
    };
    let guess = ctx.resolve_model_quietly(crate::ops::model_hint::model_hint(head).as_deref());
    let counter = ctx.counter(guess.encoding);
    let count = |place: usize, m: &mut session::Message| {
        let n = ctx.count_messages(&counter, std::slice::from_ref(m), 1)[0];
        if let Some(look) = look {
            look(place, m);
        }
        release_for_plan(m);
        n
    };
    let (session, counts) = match input {
        Ok(bytes) => formats::read_counting(bytes, ctx.settings.format, &count),
        Err(m) => m.read_counting(&count),
    }
    .with_context(|| display(path))?;
    let Some(counts) = counts else {
        // A format that does not count as it parses keeps its messages whole.
        warn_session(ctx, path, &session);
        return count_session(ctx, path, session, fingerprint).map(|l| Some((l, false)));
    };
    let model = ctx.resolve_model_quietly(session.model.as_deref());
    if model.encoding != guess.encoding || model.factor != guess.factor {
        return Ok(None);
    }
    warn_session(ctx, path, &session);
    ctx.printer.debug(&format!(
        "{}: counted as parsed, each message's text dropped once counted (the plan reads none)",
        display(path)
    ));
    counted_session(ctx, path, session, fingerprint, Some((counter, counts)))
        .map(|l| Some((l, true)))
}

/// Drops the text of a message a plan no longer reads, but an omission marker's few words:
/// plans tell markers by their text.
pub(crate) fn release_for_plan(m: &mut session::Message) {
    if formats::message::is_omission_marker(m).is_none() {
        m.release_text();
    }
}

/// Reads, parses and counts one input for a read-only command: the document's text is
/// released as it is read (peak memory near the file's size), so it cannot be rewritten.
pub fn load_for_reading(ctx: &Context, path: &Path) -> anyhow::Result<Loaded> {
    load_keeping(ctx, path, Keep::Messages)
}

fn load_keeping(ctx: &Context, path: &Path, keep: Keep) -> anyhow::Result<Loaded> {
    load_source(ctx, path, keep, ctx.settings.session.as_deref())
}

/// Like [`load`], choosing session `wanted` (an id or a name) when `path` is an agent's
/// database (`None`: `--session`, else its only user session).
pub fn load_selected(ctx: &Context, path: &Path, wanted: Option<&str>) -> anyhow::Result<Loaded> {
    load_source(
        ctx,
        path,
        Keep::Document,
        wanted.or(ctx.settings.session.as_deref()),
    )
}

fn load_source(
    ctx: &Context,
    path: &Path,
    keep: Keep,
    wanted: Option<&str>,
) -> anyhow::Result<Loaded> {
    if is_database(path) {
        return load_db(ctx, path, wanted);
    }
    if let Some(w) = wanted {
        anyhow::bail!(
            "{}: --session {w} selects a session inside an agent's database (goose's \
             sessions.db, OpenCode's opencode.db), and this is not one",
            display(path)
        );
    }
    let (bytes, fingerprint) = read(path)?;
    load_bytes(ctx, path, bytes, fingerprint, keep)
}

/// Whether `err` says its file is no session at all (JSON no format reads, or JSON that is
/// something else: a recording, an event stream), rather than a broken one.
pub fn is_not_a_session(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        matches!(
            e.downcast_ref::<crate::session::ReadError>(),
            Some(
                crate::session::ReadError::Detect(_) | crate::session::ReadError::NotSession { .. }
            )
        )
    })
}

/// Whether `path` is an agent's database (goose's `sessions.db`, OpenCode's `opencode.db`)
/// rather than a session file.
pub fn is_database(path: &Path) -> bool {
    path != Path::new("-") && crate::formats::sqlite::is_database(path)
}

/// Loads one session of an agent's database, rendered as its codec reads it; the
/// fingerprint is the rendering's, so that a rewrite notices rows changed meanwhile.
fn load_db(ctx: &Context, path: &Path, wanted: Option<&str>) -> anyhow::Result<Loaded> {
    let selected = agentdb::read(path, wanted)?;
    let s = &selected.session;
    let shown = format!("{} ({} session {})", display(path), s.agent_name(), s.id);
    let format = s.format();
    ctx.printer.debug(&format!("{shown}: selected"));
    let bytes = selected.text.into_bytes();
    let fingerprint = Fingerprint::of(&bytes);
    let session = formats::read_keeping(bytes, Some(format), Keep::Document)
        .with_context(|| shown.clone())?;
    warn_session(ctx, path, &session);
    let mut loaded = count_session(ctx, path, session, fingerprint)?;
    loaded.db_session = Some(selected.session);
    Ok(loaded)
}

/// The bytes of one input and their fingerprint.
pub fn read(path: &Path) -> anyhow::Result<(Vec<u8>, Fingerprint)> {
    let bytes = crate::fsutil::read_input(path).with_context(|| display(path))?;
    let fingerprint = Fingerprint::of(&bytes);
    Ok((bytes, fingerprint))
}

/// Parses and counts the `bytes` read from `path`.
pub fn load_bytes(
    ctx: &Context,
    path: &Path,
    bytes: Vec<u8>,
    fingerprint: Fingerprint,
    keep: Keep,
) -> anyhow::Result<Loaded> {
    let session = parse_session(ctx, path, bytes, keep)?;
    warn_session(ctx, path, &session);
    count_session(ctx, path, session, fingerprint)
}

/// Parses the `bytes` read from `path`, keeping its warnings for [`warn_session`].
pub fn parse_session(
    ctx: &Context,
    path: &Path,
    bytes: Vec<u8>,
    keep: Keep,
) -> anyhow::Result<Session> {
    formats::read_keeping(bytes, ctx.settings.format, keep).with_context(|| display(path))
}

/// Gives the warnings reading `session` gave.
pub fn warn_session(ctx: &Context, path: &Path, session: &Session) {
    let shown = display(path);
    for w in &session.warnings {
        ctx.printer.warn(&format!("{shown}: {w}"));
    }
}

/// Resolves the model of a `session` read from `path` and counts it.
pub fn count_session(
    ctx: &Context,
    path: &Path,
    session: Session,
    fingerprint: Fingerprint,
) -> anyhow::Result<Loaded> {
    counted_session(ctx, path, session, fingerprint, None)
}

/// [`count_session`], the messages' unscaled counts taken from `counted` (with the counter
/// that took them) when it is given.
pub(crate) fn counted_session(
    ctx: &Context,
    path: &Path,
    mut session: Session,
    fingerprint: Fingerprint,
    counted: Option<(Arc<Counter>, Vec<usize>)>,
) -> anyhow::Result<Loaded> {
    let shown = display(path);
    let model = ctx.resolve_model(&shown, session.model.as_deref());
    ctx.printer.debug(&format!(
        "{shown}: {} bytes, {} format, {} messages; model {} (from {}), {} tokenizer",
        fingerprint.len,
        session.format,
        session.messages.len(),
        model.name,
        model.source,
        model.encoding
    ));
    let (counter, mut counts) = match counted {
        Some(c) => c,
        None => {
            let counter = ctx.counter(model.encoding);
            let counts = ctx.count(&counter, &session);
            (counter, counts)
        }
    };
    if model.factor != 1.0 {
        for n in &mut counts {
            *n = scale(*n, model.factor);
        }
    }
    let total = Counter::total(&counts);
    crate::ops::compacted::whole(
        ctx,
        &counter,
        model.factor,
        &session.doc,
        &mut session.agent_limits,
    );
    // Counted through the cache like the messages: a warm run builds no tokenizer.
    let extra_tokens = session.request_extra.as_ref().map_or(0, |t| {
        let part = session::Part::Text(t.clone());
        let n = ctx.count_parts(&counter, &[&part]);
        scale(n.first().copied().unwrap_or(0), model.factor)
    });
    let carried = carried(
        ctx,
        session.reported_usage.is_none(),
        fingerprint.len,
        fingerprint.hash,
    );
    Ok(Loaded {
        target: std::fs::canonicalize(path).ok(),
        path: path.to_path_buf(),
        fingerprint,
        session,
        model,
        counter,
        counts,
        total,
        db_session: None,
        extra_tokens,
        streamed: false,
        hidden_after: None,
        carried,
    })
}

/// The hidden part a rewrite carried over to the `len`/`hash` bytes
/// ([`crate::cache::carried`]), when the file has no live usage of its own (`no_usage`)
/// and the cache may be read.
pub fn carried(ctx: &Context, no_usage: bool, len: usize, hash: u128) -> Option<usize> {
    if !no_usage || ctx.digests().is_none() {
        return None;
    }
    let c = crate::cache::carried::get(&ctx.digests_dir()?, len, hash)?;
    Some(c.overhead)
}

/// Length and 128-bit hash of a file's content: enough to notice that an agent appended to
/// or rewrote a session while ctxctl worked on it, without keeping a second copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fingerprint {
    pub len: usize,
    pub hash: u128,
}

impl Fingerprint {
    pub fn of(bytes: &[u8]) -> Fingerprint {
        Fingerprint {
            len: bytes.len(),
            hash: xxhash_rust::xxh3::xxh3_128(bytes),
        }
    }

    /// The fingerprint of `parts` put together, without putting them together.
    pub fn of_parts(parts: &[&[u8]]) -> Fingerprint {
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        parts.iter().for_each(|p| hasher.update(p));
        Fingerprint {
            len: parts.iter().map(|p| p.len()).sum(),
            hash: hasher.digest128(),
        }
    }

    /// The fingerprint of a file's current content, read in chunks (a second copy of a
    /// huge session is never held).
    pub fn of_file(path: &Path) -> std::io::Result<Fingerprint> {
        Fingerprint::of_reader(&mut std::fs::File::open(path)?)
    }

    /// The fingerprint of what is left to read from `r`, read in 1 MiB chunks.
    pub fn of_reader(r: &mut impl std::io::Read) -> std::io::Result<Fingerprint> {
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        let mut buf = vec![0; 1 << 20];
        let mut len = 0;
        loop {
            let n = r.read(&mut buf)?;
            if n == 0 {
                break;
            }
            hasher.update(&buf[..n]);
            len += n;
        }
        Ok(Fingerprint {
            len,
            hash: hasher.digest128(),
        })
    }
}

/// The input changed between reading it and replacing it: an agent is probably still
/// appending to the session. Nothing was replaced.
#[derive(Debug, thiserror::Error)]
#[error("{} changed while ctxctl was working on it (is an agent still writing to it?); nothing was replaced", .path.display())]
pub struct Changed {
    pub path: PathBuf,
}

/// Whether `err` (or one of its causes) is [`Changed`].
pub fn is_changed(err: &anyhow::Error) -> bool {
    err.chain().any(|e| e.is::<Changed>())
}

/// Errors with [`Changed`] if `path` no longer holds what was read.
pub fn ensure_unchanged(path: &Path, original: Fingerprint) -> anyhow::Result<()> {
    let now =
        Fingerprint::of_file(path).with_context(|| format!("re-reading {}", path.display()))?;
    if now != original {
        return Err(Changed {
            path: path.to_path_buf(),
        }
        .into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{is_changed, load_keeping, Fingerprint};
    use crate::config::Env;
    use crate::context::Context;
    use crate::render::Printer;
    use crate::session::Keep;

    fn context(cache: &std::path::Path) -> Context {
        let globals = crate::config::Globals {
            no_config: true,
            model: Some("gpt-4o".into()),
            ..Default::default()
        };
        let env = Env::from_pairs([("CTXCTL_CACHE_DIR", cache.to_str().unwrap())]);
        let settings = crate::config::Settings::resolve(&globals, &env).unwrap();
        Context::new(settings, env, Printer::plain()).unwrap()
    }

    #[test]
    fn a_fingerprint_of_parts_is_the_fingerprint_of_them_put_together() {
        let whole = b"{\"a\":1}\n{\"b\":2}\n".repeat(1000);
        for cut in [0, 1, 9, whole.len() / 2, whole.len()] {
            let (a, b) = whole.split_at(cut);
            assert_eq!(
                Fingerprint::of_parts(&[a, b]),
                Fingerprint::of(&whole),
                "{cut}"
            );
        }
        assert_ne!(
            Fingerprint::of_parts(&[b"ab", b"c"]),
            Fingerprint::of(b"abd")
        );
    }

    #[test]
    fn a_rewrite_load_gets_its_text_back_unless_the_file_changed() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = context(dir.path());
        let path = dir.path().join("s.jsonl");
        let text = "{\"role\":\"user\",\"content\":\"hello\"}\n{\"role\":\"assistant\",\"content\":\"hi\"}\n";
        std::fs::write(&path, text).unwrap();
        let mut l = load_keeping(&ctx, &path, Keep::Layout).unwrap();
        assert!(l.session.doc.is_detached());
        l.reattach().unwrap();
        let out = crate::formats::write(&l.session, &l.session.keep_all()).unwrap();
        assert_eq!(out, text.as_bytes());

        let mut l = load_keeping(&ctx, &path, Keep::Layout).unwrap();
        std::fs::write(
            &path,
            format!("{text}{{\"role\":\"user\",\"content\":\"more\"}}\n"),
        )
        .unwrap();
        let err = l.reattach().unwrap_err();
        assert!(is_changed(&err), "{err:#}");
        assert!(l.session.doc.is_detached(), "nothing was put back");
    }

    #[test]
    fn a_codex_rewrite_drops_its_messages_text_and_writes_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = context(dir.path());
        let path = dir.path().join("rollout.jsonl");
        let line = |ty: &str, payload: serde_json::Value| {
            serde_json::json!({"timestamp": "t", "type": ty, "payload": payload}).to_string()
        };
        let user = |t: &str| serde_json::json!({"type":"message","role":"user","content":[{"type":"input_text","text":t}]});
        let text = [
            line("session_meta", serde_json::json!({"id": "x"})),
            line("response_item", user("first words")),
            line("response_item", user("second words")),
        ]
        .join("\n")
            + "\n";
        std::fs::write(&path, &text).unwrap();
        let mut l = load_keeping(&ctx, &path, Keep::Document).unwrap();
        let items = [crate::session::Item::Keep(1)];
        let before = crate::formats::write(&l.session, &items).unwrap();
        assert_eq!(l.session.messages[0].text(), "first words");
        l.reattach().unwrap();
        assert!(l.session.messages.iter().all(|m| m.text().is_empty()));
        assert_eq!(crate::formats::write(&l.session, &items).unwrap(), before);
    }

    #[test]
    fn a_released_document_still_recounts_bytes_given_or_lent() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = context(dir.path());
        let path = dir.path().join("s.json");
        let text = r#"{"messages":[{"role":"user","content":"hello there"},{"role":"assistant","content":"hi"}]}"#;
        std::fs::write(&path, text).unwrap();
        let mut l = load_keeping(&ctx, &path, Keep::Document).unwrap();
        let out = crate::formats::write(&l.session, &[crate::session::Item::Keep(1)]).unwrap();
        let lent = l.recount(&out).unwrap();
        l.release_document();
        assert!(l.session.doc.text().is_none());
        assert_eq!(l.recount_owned(out).unwrap(), lent);
        assert_eq!(lent, l.counts[1] + crate::tokens::REPLY_PRIMING);
        assert_eq!(l.recount_owned(b"not a session".to_vec()), None);
    }

    #[test]
    fn a_file_fingerprint_equals_the_fingerprint_of_its_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        // Over one read chunk, so the streaming hash sees several pieces.
        let bytes: Vec<u8> = (0..(3 << 20) + 17).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(
            Fingerprint::of_file(&path).unwrap(),
            Fingerprint::of(&bytes)
        );
        std::fs::write(&path, &bytes[1..]).unwrap();
        assert_ne!(
            Fingerprint::of_file(&path).unwrap(),
            Fingerprint::of(&bytes)
        );
    }
}
