//! The resolved run: settings (flag > env > file > built-in), the printer, the model
//! registry and the token counters shared by every file of the run.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

use anyhow::Context as _;

use crate::cache::digest::DigestStore;
use crate::cache::CountStore;
use crate::config::{Env, Settings, Source, Sourced};
use crate::models::{self, ModelSpec, Registry};
use crate::render::Printer;
use crate::tokens::{Counter, Encoding, Tokenizer};

/// Everything a command needs besides its own arguments.
pub struct Context {
    pub printer: Printer,
    /// The environment snapshot (test hooks and the LLM key are read from it by name).
    pub env: Env,
    /// Every setting of the run, resolved once.
    pub settings: Settings,
    pub registry: &'static Registry,
    counters: Mutex<HashMap<Encoding, Arc<Counter>>>,
    store: Mutex<Option<CountStore>>,
    digests: OnceLock<Option<DigestStore>>,
    /// Digests this run stored (the store is then trimmed, at the end).
    digests_added: AtomicUsize,
    /// Files being worked on right now (batch runs).
    in_flight: AtomicUsize,
}

/// A file being worked on; see [`Context::file_in_flight`].
pub struct InFlight<'a>(&'a AtomicUsize);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The model a session is measured against.
#[derive(Debug, Clone)]
pub struct ResolvedModel {
    pub name: String,
    pub source: Source,
    /// The registry's entry, or fallback limits when the model is unknown.
    pub spec: ModelSpec,
    /// Whether the model is in the registry.
    pub known: bool,
    pub encoding: Encoding,
    /// Whether counts are exact for this model (a public tokenizer is used).
    pub exact: bool,
    /// Factor applied to estimated counts (see [`CLAUDE_FACTOR`]); 1.0 for exact counts.
    pub factor: f64,
    /// The name asked for a 1M-context session (Claude Code's `[1m]` suffix).
    pub one_m: bool,
    /// Whether a `[models]` entry of the config file sets this model's window.
    pub window_from_config: bool,
}

/// Claude has no public tokenizer; cl100k_base undercounts it. On the Claude Code fixtures
/// the provider-reported prompt growth between calls was 1.22× to 2.17× ctxctl's cl100k
/// count of the same messages (1.39× overall), so every estimate is scaled by the lowest
/// ratio seen: closer on every sample, and never above what was reported.
pub const CLAUDE_FACTOR: f64 = 1.2;

impl ResolvedModel {
    pub fn context_window(&self) -> u64 {
        self.spec.context_window
    }

    pub fn max_output_tokens(&self) -> Option<u64> {
        self.spec.max_output_tokens
    }
}

impl Context {
    /// The run's context: `settings` resolved at start-up, the model registry (with the
    /// config file's `[models]`), and empty counters and caches.
    pub fn new(settings: Settings, env: Env, printer: Printer) -> anyhow::Result<Context> {
        match &settings.config_path {
            Some((p, source)) if p.exists() => {
                printer.debug(&format!("config file {} (from {source})", p.display()))
            }
            Some((p, _)) => printer.debug(&format!("no config file at {}", p.display())),
            None => printer.debug("config file disabled (--no-config)"),
        }
        let registry = if settings.file.models.is_empty() {
            Registry::builtin()
        } else {
            let r = Registry::builtin()
                .with_overrides(&settings.file.models)
                .context("invalid [models] in the config file")?;
            // One registry per process: leaking it gives the run a 'static borrow.
            Box::leak(Box::new(r))
        };
        Ok(Context {
            printer,
            env,
            settings,
            registry,
            counters: Mutex::new(HashMap::new()),
            store: Mutex::new(None),
            digests: OnceLock::new(),
            digests_added: AtomicUsize::new(0),
            in_flight: AtomicUsize::new(0),
        })
    }

    /// Reports an error (and hints at its likely fix) without ending the run.
    pub fn report(&self, err: &anyhow::Error) {
        self.printer.error(err);
        for hint in crate::render::hints::for_error(err) {
            self.printer.hint(&hint);
        }
    }

    /// Prints a warning once per run (the same fallback would otherwise repeat per file).
    pub fn warn_once(&self, text: String) {
        self.printer.warn_once(&text, &text);
    }

    /// Resolves the model for a session: `--model` > `CTXCTL_MODEL` > the session's own >
    /// `default_model` > built-in default, warning when a default or fallback is used. The
    /// warning names `shown`, the session it was first needed for (once per run: the same
    /// fallback would otherwise repeat per file of a batch).
    pub fn resolve_model(&self, shown: &str, session_model: Option<&str>) -> ResolvedModel {
        self.resolve(session_model, &|w| {
            self.printer.warn_once(&w, &format!("{shown}: {w}"))
        })
    }

    /// [`Context::resolve_model`] without its warnings (for a look before reading on).
    pub fn resolve_model_quietly(&self, session_model: Option<&str>) -> ResolvedModel {
        self.resolve(session_model, &|_| {})
    }

    fn resolve(&self, session_model: Option<&str>, warn: &dyn Fn(String)) -> ResolvedModel {
        let (name, source) = if let Some(m) = &self.settings.model {
            (m.value.clone(), m.source)
        } else if let Some(m) = session_model {
            (m.to_string(), Source::Session)
        } else if let Some(m) = &self.settings.file.default_model {
            (m.clone(), Source::File)
        } else {
            warn(format!(
                "no model given (--model, CTXCTL_MODEL or default_model); assuming {}",
                models::DEFAULT_MODEL
            ));
            (models::DEFAULT_MODEL.to_string(), Source::Default)
        };
        // Agents' aliases (`opus`) and Claude Code's `[1m]` suffix.
        let agent = models::agent_name(&name);
        let found = self.registry.lookup(&agent.model);
        let known = found.is_some();
        let spec = found.unwrap_or_else(|| ModelSpec::fallback(&agent.model));
        let window_from_config = known
            && self.settings.file.models.iter().any(|(key, o)| {
                o.context_window.is_some()
                    && self.registry.find(key).is_some_and(|s| s.id == spec.id)
            });
        if !known {
            let close = self.registry.suggest(&name, 3);
            let hint = if close.is_empty() {
                String::new()
            } else {
                format!("; did you mean {}?", close.join(", "))
            };
            warn(format!(
                "unknown model {name:?}: using default limits ({} window, {} output){hint}",
                spec.context_window,
                spec.max_output_tokens
                    .unwrap_or(models::UNKNOWN_OUTPUT_RESERVE)
            ));
        }
        let (model_encoding, model_exact) = (spec.encoding, spec.exact);
        let (encoding, exact) = match self.settings.tokenizer.value {
            Some(e) => (e, e.is_exact() && model_exact && e == model_encoding),
            None => (model_encoding, model_exact),
        };
        let factor = if self.settings.tokenizer.value.is_none() && !exact && is_claude(&agent.model)
        {
            CLAUDE_FACTOR
        } else {
            1.0
        };
        ResolvedModel {
            name,
            source,
            spec,
            known,
            encoding,
            exact,
            factor,
            one_m: agent.one_m,
            window_from_config,
        }
    }

    /// The counter for `encoding`, one per run; its tokenizer is built on first use.
    pub fn counter(&self, encoding: Encoding) -> Arc<Counter> {
        let mut map = self.counters.lock().unwrap_or_else(|e| e.into_inner());
        Arc::clone(
            map.entry(encoding)
                .or_insert_with(|| Arc::new(Counter::lazy(encoding))),
        )
    }

    /// Per-message counts of `session`, reusing counts remembered from earlier runs (unless
    /// `--no-cache`). A tokenizer that cannot be built falls back to `approx` with a warning.
    ///
    /// Files counted in parallel do not wait for each other: the cache is locked only to
    /// look up known counts and to record new ones, never while tokenizing.
    pub fn count(&self, counter: &Counter, session: &crate::session::Session) -> Vec<usize> {
        self.count_messages(counter, &session.messages, self.counting_threads())
    }

    /// Per-message counts of `messages` on up to `threads` threads, through the persistent
    /// cache like [`Context::count`] (a streamed session is counted a block at a time).
    pub fn count_messages(
        &self,
        counter: &Counter,
        messages: &[crate::session::Message],
        threads: usize,
    ) -> Vec<usize> {
        self.cached(
            counter,
            messages.len(),
            || counter.keys_of(messages, threads),
            |known| counter.fill_of(messages, known, threads),
        )
    }

    /// Per-message counts of `messages` on this thread, through the persistent cache like
    /// [`Context::count`], the parts `given` knows the tokens of not counted again.
    pub fn count_messages_given(
        &self,
        counter: &Counter,
        messages: &[crate::session::Message],
        given: &dyn Fn(&crate::session::Part) -> Option<usize>,
    ) -> Vec<usize> {
        self.cached(
            counter,
            messages.len(),
            || counter.keys_of(messages, 1),
            |known| counter.fill_given(messages, known, given),
        )
    }

    /// Tokens of each of `parts` (unscaled), reusing and remembering counts across runs like
    /// [`Context::count`]: a warm `stats` does not tokenize its tool calls and results again.
    pub fn count_parts(&self, counter: &Counter, parts: &[&crate::session::Part]) -> Vec<usize> {
        self.count_parts_on(counter, parts, self.counting_threads())
    }

    /// [`Context::count_parts`] on up to `threads` threads.
    pub fn count_parts_on(
        &self,
        counter: &Counter,
        parts: &[&crate::session::Part],
        threads: usize,
    ) -> Vec<usize> {
        let keys = || {
            parts
                .iter()
                .map(|p| crate::tokens::key::part_key(p, counter.encoding()))
                .collect()
        };
        self.cached(counter, parts.len(), keys, |known| {
            counter.fill_parts(parts, known, threads)
        })
    }

    /// `len` counts: looked up by `keys` in the persistent cache (unless `--no-cache`),
    /// the rest counted by `fill` and remembered.
    fn cached(
        &self,
        counter: &Counter,
        len: usize,
        keys: impl FnOnce() -> Vec<u128>,
        fill: impl FnOnce(Vec<Option<usize>>) -> Vec<usize>,
    ) -> Vec<usize> {
        let cached = !self.settings.no_cache && self.with_store(|s| s.is_enabled());
        let counts = if cached {
            let keys = keys();
            let known = self.with_store(|s| s.lookup(&keys));
            let counts = fill(known);
            if counter.keeps_counts() {
                self.with_store(|s| s.record_all(&keys, &counts));
            }
            counts
        } else {
            fill(vec![None; len])
        };
        if let Some(e) = counter.fallback() {
            self.warn_once(format!("{e}; falling back to approx"));
        }
        counts
    }

    /// A provider's count remembered under `key` (see [`crate::tokens::api::cache_key`]),
    /// unless `--no-cache`.
    pub fn api_count(&self, key: u128) -> Option<usize> {
        if self.settings.no_cache {
            return None;
        }
        self.with_store(|s| s.get(key)).map(|n| n as usize)
    }

    /// Remembers a provider's count, so that asking again sends nothing.
    pub fn remember_api_count(&self, key: u128, count: usize) {
        if !self.settings.no_cache {
            let n = u32::try_from(count).unwrap_or(u32::MAX);
            self.with_store(|s| s.record(key, n));
        }
    }

    /// Runs `f` on the persistent cache (opened on first use), under its lock.
    fn with_store<T>(&self, f: impl FnOnce(&mut CountStore) -> T) -> T {
        let mut guard = self.store.lock().unwrap_or_else(|e| e.into_inner());
        let store = guard.get_or_insert_with(|| match self.cache_file() {
            Some(p) => CountStore::open(p),
            None => CountStore::disabled(),
        });
        f(store)
    }

    /// Marks one file as being worked on until the guard is dropped, so that counting
    /// shares the cores with the other files in flight (see [`Context::counting_threads`]).
    pub fn file_in_flight(&self) -> InFlight<'_> {
        self.in_flight.fetch_add(1, Ordering::Relaxed);
        InFlight(&self.in_flight)
    }

    /// Threads one file's counting may use: every core when it is the only file being
    /// worked on, and one core less for each other file in flight (at least one), so that
    /// a batch run does not start more threads than there are cores.
    pub fn counting_threads(&self) -> usize {
        let others = self.in_flight.load(Ordering::Relaxed).saturating_sub(1);
        self.cores().saturating_sub(others).max(1)
    }

    /// Cores available to the process, asked on first need (not in `Context::new`: reading
    /// the cgroup's CPU quota is not worth delaying the tokenizer's start for).
    fn cores(&self) -> usize {
        crate::tokens::parallel::available()
    }

    /// The persistent token-count cache file.
    pub fn cache_file(&self) -> Option<PathBuf> {
        crate::config::paths::cache_dir(&self.env).map(|d| d.join("token-counts.bin"))
    }

    /// The session digests (see [`crate::cache::digest`]), unless `--no-cache` or there is
    /// no cache directory.
    pub fn digests(&self) -> Option<&DigestStore> {
        self.digests
            .get_or_init(|| {
                let dir = self.digests_dir()?;
                (!self.settings.no_cache).then(|| DigestStore::new(dir))
            })
            .as_ref()
    }

    /// Where session digests are kept.
    pub fn digests_dir(&self) -> Option<PathBuf> {
        crate::config::paths::cache_dir(&self.env).map(|d| d.join("digests"))
    }

    /// Stores the digest of a session (failures are logged, never fatal).
    pub fn remember_digest(&self, key: u128, digest: &crate::cache::digest::Digest) {
        let Some(store) = self.digests() else { return };
        match store.put(key, digest) {
            Ok(()) => {
                self.digests_added.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => self
                .printer
                .debug(&format!("session digest not saved: {e}")),
        }
    }

    /// Saves what this run learned (cache failures are logged, never fatal).
    pub fn finish(&self) {
        let added = self.digests_added.load(Ordering::Relaxed);
        if added > 0 {
            if let Some(Err(e)) = self.digests().map(|d| d.evict(added)) {
                self.printer
                    .debug(&format!("session digests not trimmed: {e}"));
            }
        }
        for (encoding, c) in self
            .counters
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
        {
            let state = if c.is_built() {
                "built"
            } else {
                "not needed (all counts cached)"
            };
            self.printer.debug(&format!("{encoding} tokenizer {state}"));
        }
        let mut guard = self.store.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(store) = guard.as_mut() {
            match store.save() {
                Ok(true) => self.printer.debug(&format!(
                    "token-count cache saved ({} entries)",
                    store.len()
                )),
                Ok(false) => {}
                Err(e) => self
                    .printer
                    .debug(&format!("token-count cache not saved: {e}")),
            }
        }
    }

    /// Starts building the tokenizer the run will most likely need on another thread, so
    /// that it is ready when `session` has been read and parsed. Not when its counts are
    /// likely to come from the persistent cache — the cache was written after the session
    /// last changed: a warm run builds no tokenizer at all (and spends neither the other
    /// core nor ~70 MB of tables on one). A session changed since (an agent appended to it)
    /// or a new one gets the tokenizer built while it is parsed.
    pub fn prewarm(&self, session: &Path) {
        let modified = |p: &Path| {
            std::fs::metadata(p)
                .ok()
                .filter(|m| m.len() > 0)
                .and_then(|m| m.modified().ok())
        };
        // The cache last learned something when its sorted file or its log last changed.
        let cache = (!self.settings.no_cache)
            .then(|| self.cache_file())
            .flatten()
            .and_then(|p| modified(&p).max(modified(&p.with_extension("log"))));
        if cached_since(modified(session), cache) {
            return;
        }
        let encoding = match self.settings.tokenizer.value {
            Some(e) => e,
            None => {
                let name = self
                    .settings
                    .model
                    .as_ref()
                    .map(|m| m.value.clone())
                    .or_else(|| self.settings.file.default_model.clone())
                    .unwrap_or_else(|| models::DEFAULT_MODEL.to_string());
                match self.registry.lookup(&name) {
                    Some(s) => s.encoding,
                    None => models::encoding_for_model(&name).0,
                }
            }
        };
        if encoding.is_exact() {
            std::thread::spawn(move || {
                let _ = Tokenizer::new(encoding);
            });
        }
    }

    /// The data directory (sessions and archives), from the environment or config.
    pub fn data_dir(&self) -> anyhow::Result<Sourced<PathBuf>> {
        self.settings
            .data_dir
            .clone()
            .context("cannot find a data directory; set CTXCTL_DATA_DIR")
    }

    /// The archive store in the data directory, writing new archives compressed as
    /// `[archive] compress` / `CTXCTL_ARCHIVE_COMPRESS` say.
    pub fn archive_store(&self) -> anyhow::Result<crate::archive::ArchiveStore> {
        let compression = self.settings.archive_compress.clone()?.value;
        Ok(crate::archive::ArchiveStore::new(self.data_dir()?.value).with_compression(compression))
    }
}

/// Whether the count cache last changed after the session did (both known), so that the
/// session's counts are likely in it. Equal times say nothing of which came first (a file
/// times its writes by a clock tick of a few milliseconds: an agent's append right after a
/// check can carry the check's time), so they do not count as cached.
fn cached_since(session: Option<SystemTime>, cache: Option<SystemTime>) -> bool {
    matches!((session, cache), (Some(session), Some(cache)) if session < cache)
}

fn is_claude(model: &str) -> bool {
    model.to_ascii_lowercase().contains("claude")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counting_shares_the_cores_with_the_files_in_flight() {
        let g = crate::config::Globals {
            no_config: true,
            ..Default::default()
        };
        let settings = Settings::resolve(&g, &Env::default()).unwrap();
        let ctx = Context::new(settings, Env::default(), Printer::plain()).unwrap();
        let all = ctx.cores();
        assert_eq!(ctx.counting_threads(), all, "a lone file uses every core");
        let a = ctx.file_in_flight();
        assert_eq!(ctx.counting_threads(), all);
        let b = ctx.file_in_flight();
        assert_eq!(ctx.counting_threads(), (all - 1).max(1));
        let c = ctx.file_in_flight();
        assert_eq!(ctx.counting_threads(), all.saturating_sub(2).max(1));
        drop((a, b, c));
        assert_eq!(ctx.counting_threads(), all);
    }

    #[test]
    fn a_session_is_taken_as_cached_only_when_the_cache_changed_after_it() {
        let t = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        let later = t + std::time::Duration::from_millis(4);
        assert!(cached_since(Some(t), Some(later)));
        assert!(
            !cached_since(Some(later), Some(t)),
            "appended after the cache changed"
        );
        assert!(
            !cached_since(Some(t), Some(t)),
            "the same clock tick: order unknown"
        );
        assert!(!cached_since(None, Some(t)) && !cached_since(Some(t), None));
    }
}
