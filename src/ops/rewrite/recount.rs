//! After the write step of the [rewrite transaction](super): what was written, counted back
//! from the file as `count` reads it, where the plan of the rewrite cannot say it (a format
//! that adds records the plan does not count).

use std::path::Path;

use crate::context::Context;
use crate::ops::load::Loaded;

/// `loaded`'s session as written to `path`, counted: streamed as `count` reads a file (the
/// file is never held whole) when that counts with the session's tokenizer and scale, else
/// read whole ([`Loaded::recount_file`]).
pub fn streamed(ctx: &Context, loaded: &Loaded, path: &Path) -> Option<usize> {
    let wants = crate::ops::figures::Wants::default();
    match crate::ops::json_stream::tally(ctx, path, wants) {
        Ok(Some(c))
            if c.model.encoding == loaded.model.encoding
                && c.model.factor == loaded.model.factor =>
        {
            Some(c.total)
        }
        _ => loaded.recount_file(path),
    }
}

/// `loaded`'s session as a rewrite that only appends `suffix` to its document writes it,
/// counted before it is written (the figure [`Loaded::recount`] gives of the whole bytes):
/// a Codex rollout streamed from the document and the suffix without the two being put
/// together, else read from a copy of them. `None` without the document, or when the
/// bytes do not read back.
pub fn appended(ctx: &Context, loaded: &Loaded, suffix: &[u8]) -> Option<usize> {
    let text = loaded.session.doc.text()?.as_bytes();
    let whole = || {
        let mut whole = Vec::with_capacity(text.len() + suffix.len());
        whole.extend_from_slice(text);
        whole.extend_from_slice(suffix);
        loaded.recount_owned(whole)
    };
    let streams = loaded.session.format == crate::session::Format::Codex
        && !crate::ops::count_api::enabled(ctx).unwrap_or(true);
    let streamed = streams
        .then(|| crate::ops::codex_stream::total_appended(ctx, text, suffix, &loaded.model))
        .flatten();
    match streamed {
        Some(n) => {
            debug_assert_eq!(Some(n), whole(), "{}", loaded.display());
            Some(n)
        }
        None => whole(),
    }
}

/// Outputs from this size on are counted back by [`of_bytes`] through a temp file rather
/// than from a copy of them; below it the copy costs less than the file.
pub const THROUGH_FILE_BYTES: usize = 1 << 20;

/// `bytes`, `loaded`'s session rewritten and held whole (a rewrite that replaces its
/// input), counted as `count` will read them once written: a large output is written to a
/// temp file beside the session and [`streamed`] from there, so that neither a copy of it
/// nor its messages are held beside it (a copy read whole weighed as much as the file
/// again, and its transcript half as much more). Smaller ones, a database's session and
/// an output no temp file can be made for are counted from a copy ([`Loaded::recount`]).
pub fn of_bytes(ctx: &Context, loaded: &Loaded, bytes: &[u8]) -> Option<usize> {
    if bytes.len() < THROUGH_FILE_BYTES || loaded.db_session.is_some() {
        return loaded.recount(bytes);
    }
    match through_file(ctx, loaded, bytes) {
        Some(n) => n,
        None => loaded.recount(bytes),
    }
}

/// [`of_bytes`] through a temp file; `None` when none can be written.
fn through_file(ctx: &Context, loaded: &Loaded, bytes: &[u8]) -> Option<Option<usize>> {
    use std::io::Write as _;
    let mut tmp = crate::fsutil::temp_beside(&loaded.path).ok()?;
    tmp.write_all(bytes).and_then(|()| tmp.flush()).ok()?;
    Some(streamed(ctx, loaded, tmp.path()))
}

#[cfg(test)]
mod tests {
    use super::through_file;
    use crate::config::Env;
    use crate::context::Context;
    use crate::render::Printer;

    #[test]
    fn bytes_counted_through_a_file_give_what_a_copy_of_them_gives() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        let env = Env::from_pairs([("CTXCTL_CACHE_DIR", cache.to_str().unwrap())]);
        let globals = crate::config::Globals {
            no_config: true,
            ..Default::default()
        };
        let settings = crate::config::Settings::resolve(&globals, &env).unwrap();
        let ctx = Context::new(settings, env, Printer::plain()).unwrap();
        let text = include_str!("../../../tests/formats/claude-code/input.jsonl");
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, text).unwrap();
        let loaded = crate::ops::load::load(&ctx, &path).unwrap();
        let kept = crate::formats::write(&loaded.session, &loaded.session.keep_all()[1..]).unwrap();
        let copied = loaded.recount(&kept);
        assert!(copied.is_some_and(|n| n > 0 && n < loaded.total));
        assert_eq!(through_file(&ctx, &loaded, &kept), Some(copied));
        // The temp file went with the count.
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.starts_with(crate::fsutil::TEMP_PREFIX))
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }
}
