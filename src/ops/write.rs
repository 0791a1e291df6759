//! Where a rewritten session goes: `-o FILE`, `-o -` (stdout), `--in-place`, or the store
//! (`sessions/<name>.<ext>` under the data directory), and the names it is filed under.
//! Every file write is atomic; replacing the input is the
//! [rewrite transaction](crate::ops::rewrite)'s.

use std::path::{Path, PathBuf};

use anyhow::Context as _;

use crate::context::Context;
use crate::fsutil;
use crate::ops::load::Loaded;

/// What the user asked for: `-o FILE` (`-` for standard output) or `--in-place`; neither
/// means the store.
#[derive(Debug, Clone, Default)]
pub struct OutputChoice {
    pub output: Option<PathBuf>,
    pub in_place: bool,
}

/// A resolved destination.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    Stdout,
    File(PathBuf),
    /// Replace the input.
    InPlace(PathBuf),
    /// The store: `sessions/<name>.<ext>`.
    Store {
        name: String,
        path: PathBuf,
    },
}

impl Destination {
    /// How the destination is shown in reports (`-` for stdout).
    pub fn display(&self) -> String {
        match self {
            Destination::Stdout => "-".to_string(),
            Destination::File(p) | Destination::InPlace(p) | Destination::Store { path: p, .. } => {
                p.display().to_string()
            }
        }
    }

    /// Whether writing here replaces the input file.
    pub fn replaces_input(&self) -> bool {
        matches!(self, Destination::InPlace(_))
    }
}

/// The session name for the store: `--name`, else the input file's stem.
pub fn session_name(name: Option<&str>, input: &Path) -> anyhow::Result<String> {
    let name = match name {
        Some(n) => n.to_string(),
        None if input == Path::new("-") => {
            anyhow::bail!(
                "reading standard input: give --name NAME or -o FILE to say where the result goes"
            )
        }
        None => input
            .file_stem()
            .and_then(|s| s.to_str())
            .map(|s| s.strip_suffix(".traj").unwrap_or(s).to_string())
            .unwrap_or_default(),
    };
    if !crate::config::paths::is_valid_name(&name) {
        anyhow::bail!(
            "invalid session name {name:?}: use letters, digits, '.', '_' and '-', not starting with '.' (pass --name)"
        );
    }
    Ok(name)
}

/// The session name a rewrite of `input` files its archives under: `--name` (checked),
/// else the file's stem when it is a valid name, else the stem made valid with a short
/// digest of it so that `my chat.json`, `my+chat.json` and `mý chat.json` stay apart, else
/// (standard input) `stdin`.
pub fn archive_name(name: Option<&str>, input: &Path) -> anyhow::Result<String> {
    if name.is_some() {
        return session_name(name, input);
    }
    if input == Path::new("-") {
        return Ok("stdin".to_string());
    }
    if let Ok(n) = session_name(None, input) {
        return Ok(n);
    }
    let stem = input
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut clean: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .take(160)
        .collect();
    while clean.starts_with('.') {
        clean.remove(0);
    }
    let digest = xxhash_rust::xxh3::xxh3_64(stem.as_bytes());
    let name = if clean.is_empty() {
        format!("session-{digest:016x}")
    } else {
        format!("{clean}-{:08x}", digest >> 32)
    };
    Ok(name)
}

/// Whether `a` and `b` name the same existing file (through links, `..` and the like).
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
        false
    }
    #[cfg(not(unix))]
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

impl OutputChoice {
    /// Whether writing as asked replaces `input` itself (`--in-place`, or `-o` naming it).
    pub fn replaces(&self, input: &Path) -> bool {
        if input == Path::new("-") {
            return false;
        }
        self.in_place
            || (self.output.as_deref()).is_some_and(|o| o != Path::new("-") && same_file(o, input))
    }
}

/// Decides where the result of rewriting `loaded` goes. `-o` naming the input itself is
/// an in-place rewrite (archived first, checked for changes), not a plain overwrite.
pub fn destination(
    ctx: &Context,
    args: &OutputChoice,
    name: Option<&str>,
    loaded: &Loaded,
) -> anyhow::Result<Destination> {
    if args.in_place {
        if loaded.path == Path::new("-") {
            anyhow::bail!("--in-place cannot replace standard input; use -o FILE");
        }
        return Ok(Destination::InPlace(loaded.path.clone()));
    }
    match &args.output {
        Some(p) if p == Path::new("-") => Ok(Destination::Stdout),
        Some(p) if loaded.path != Path::new("-") && same_file(p, &loaded.path) => {
            Ok(Destination::InPlace(loaded.path.clone()))
        }
        Some(p) => Ok(Destination::File(p.clone())),
        None => {
            let name = session_name(name, &loaded.path)?;
            let dir = crate::config::paths::sessions_dir(&ctx.data_dir()?.value);
            let path = dir.join(format!("{name}.{}", loaded.session.format.extension()));
            Ok(Destination::Store { name, path })
        }
    }
}

/// Writes a session into the store under `data_dir` (0600, in 0700 directories), refusing
/// when `sessions/` or the target is a symlink that leads out of the data directory.
pub fn write_store(data_dir: &Path, path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    write_store_by(data_dir, path, &mut |f| f.write_all(bytes))
}

/// [`write_store`] of what `produce` writes.
pub fn write_store_by(
    data_dir: &Path,
    path: &Path,
    produce: &mut dyn FnMut(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    store_dir(data_dir, path)?;
    fsutil::write_atomic_by(path, true, produce)
        .with_context(|| format!("writing {}", path.display()))
}

/// Makes the directory a store session `path` goes in, refusing when it or `path` is a
/// symlink leading out of `data_dir`; the temp files an interrupted run left there go.
fn store_dir(data_dir: &Path, path: &Path) -> anyhow::Result<()> {
    let dir = path
        .parent()
        .with_context(|| format!("{}: not inside a directory", path.display()))?;
    fsutil::create_private_dir(dir).map_err(|e| crate::ops::data_dir::DataDirError {
        doing: format!("cannot store {}", path.display()),
        detail: format!("creating {}: {e}", dir.display()),
    })?;
    ensure_inside(data_dir, dir)?;
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        ensure_inside(data_dir, path)?;
    }
    fsutil::clean_stale_temps(dir);
    Ok(())
}

/// The first half of [`write`] for a destination that is a new file beside the input
/// (`-o FILE`, the store): `bytes` written to a synced temp file, to be renamed into place
/// by the [transaction](crate::ops::rewrite::Transaction::commit) once the archive is filed. `None` where the write cannot be
/// split: standard output, a device, the input itself (replacing it watches what an agent
/// appends meanwhile, see [`carry`](crate::ops::carry)), a database.
pub fn stage(
    ctx: &Context,
    dest: &Destination,
    bytes: &[u8],
) -> anyhow::Result<Option<fsutil::Staged>> {
    let Some((path, private)) = staged_at(ctx, dest)? else {
        return Ok(None);
    };
    fsutil::stage(path, private, bytes).with_context(|| format!("writing {}", path.display()))
}

/// Where [`stage`] writes for `dest`, and whether privately (the store, made here); `None`
/// where the write is not split.
fn staged_at<'d>(
    ctx: &Context,
    dest: &'d Destination,
) -> anyhow::Result<Option<(&'d std::path::Path, bool)>> {
    Ok(match dest {
        _ if !stages(dest) => None,
        Destination::Store { path, .. } => {
            store_dir(&ctx.data_dir()?.value, path)?;
            Some((path, true))
        }
        Destination::File(p) => Some((p, false)),
        Destination::Stdout | Destination::InPlace(_) => None,
    })
}

/// [`stage`] of what `produce` writes, piece by piece, never holding it whole.
pub fn stage_by(
    ctx: &Context,
    dest: &Destination,
    produce: &mut dyn FnMut(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> anyhow::Result<Option<fsutil::Staged>> {
    let Some((path, private)) = staged_at(ctx, dest)? else {
        return Ok(None);
    };
    fsutil::stage_by(path, private, produce).with_context(|| format!("writing {}", path.display()))
}

/// Whether [`stage`] splits a write to `dest`: `-o FILE`, and the store once its
/// directory is there (made when a result is written, so that a result found no smaller
/// leaves none behind).
pub fn stages(dest: &Destination) -> bool {
    match dest {
        Destination::File(_) => true,
        Destination::Store { path, .. } => path.parent().is_some_and(Path::is_dir),
        Destination::Stdout | Destination::InPlace(_) => false,
    }
}

/// Errors unless `path`, with every symlink resolved, is inside `data_dir`.
fn ensure_inside(data_dir: &Path, path: &Path) -> anyhow::Result<()> {
    let root = std::fs::canonicalize(data_dir)
        .with_context(|| format!("resolving the data directory {}", data_dir.display()))?;
    let real = std::fs::canonicalize(path).ok();
    match real {
        Some(real) if real.starts_with(&root) => Ok(()),
        Some(real) => anyhow::bail!(
            "{} leads to {}, outside the data directory {}; refusing to write there (remove the symlink)",
            path.display(),
            real.display(),
            root.display()
        ),
        None => anyhow::bail!(
            "{} is a symlink that leads nowhere; refusing to write through it (remove the symlink)",
            path.display()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::load::{ensure_unchanged, is_changed, Changed, Fingerprint};

    #[test]
    fn names_come_from_the_stem_or_the_flag() {
        assert_eq!(
            session_name(None, Path::new("/x/my-chat.json")).unwrap(),
            "my-chat"
        );
        assert_eq!(
            session_name(None, Path::new("run.traj.json")).unwrap(),
            "run"
        );
        assert_eq!(session_name(Some("keep"), Path::new("-")).unwrap(), "keep");
        assert!(session_name(None, Path::new("-")).is_err());
        assert!(session_name(Some("../etc"), Path::new("a.json")).is_err());
        assert!(session_name(None, Path::new("my chat.json")).is_err());
    }

    #[test]
    fn archive_names_of_odd_file_names_are_valid_and_distinct() {
        let names: Vec<String> = [
            "my chat.json",
            "my+chat.json",
            "mý chat.json",
            "my_chat.json",
            "..x.json",
            "日本.json",
        ]
        .iter()
        .map(|f| archive_name(None, Path::new(f)).unwrap())
        .collect();
        for n in &names {
            assert!(crate::config::paths::is_valid_name(n), "{n}");
        }
        let mut uniq = names.clone();
        uniq.sort();
        uniq.dedup();
        assert_eq!(uniq.len(), names.len(), "{names:?}");
        assert_eq!(names[3], "my_chat");
        assert_eq!(archive_name(None, Path::new("-")).unwrap(), "stdin");
        assert!(archive_name(Some("a b"), Path::new("x.json")).is_err());
    }

    #[test]
    fn names_cannot_leave_the_sessions_dir() {
        let bad = [
            "../x",
            "..",
            ".",
            "/etc/passwd",
            "a/../../b",
            "a\\b",
            "sub/name",
            "~",
            "x\0y",
            "",
            ".hidden",
            "na\nme",
        ];
        for name in bad {
            assert!(
                session_name(Some(name), Path::new("a.json")).is_err(),
                "{name:?}"
            );
        }
        // A stem that would escape is refused too; the flag then has to name it.
        assert!(session_name(None, Path::new("/x/.. .json")).is_err());
        assert!(session_name(None, Path::new("/x/..json")).is_err());
    }

    #[test]
    fn a_changed_input_is_a_typed_error() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("s.jsonl");
        let body = "x".repeat(3 << 20);
        std::fs::write(&p, &body).unwrap();
        let fp = Fingerprint::of(body.as_bytes());
        ensure_unchanged(&p, fp).unwrap();
        // Same length, one byte different, past the first chunk.
        let mut other = body.clone().into_bytes();
        other[(2 << 20) + 5] = b'y';
        std::fs::write(&p, &other).unwrap();
        let e = ensure_unchanged(&p, fp).unwrap_err();
        assert!(is_changed(&e), "{e}");
        assert!(e.downcast_ref::<Changed>().is_some());
        assert!(is_changed(&e.context("replacing it")));
        // Longer.
        std::fs::write(&p, format!("{body}\n")).unwrap();
        assert!(is_changed(&ensure_unchanged(&p, fp).unwrap_err()));
        // Gone: an error, but not "changed".
        std::fs::remove_file(&p).unwrap();
        assert!(!is_changed(&ensure_unchanged(&p, fp).unwrap_err()));
    }

    #[cfg(unix)]
    fn mode(p: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[cfg(unix)]
    #[test]
    fn stored_sessions_are_private() {
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("data");
        let path = crate::config::paths::sessions_dir(&data).join("s.json");
        write_store(&data, &path, b"[]").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"[]");
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(path.parent().unwrap()), 0o700);
        assert_eq!(mode(&data), 0o700);
        write_store(&data, &path, b"[1]").unwrap();
        assert_eq!(mode(&path), 0o600);
    }

    #[cfg(unix)]
    #[test]
    fn a_symlinked_sessions_dir_leading_out_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("data");
        let outside = tmp.path().join("elsewhere");
        std::fs::create_dir_all(&data).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        let sessions = crate::config::paths::sessions_dir(&data);
        std::os::unix::fs::symlink(&outside, &sessions).unwrap();
        let e = write_store(&data, &sessions.join("s.json"), b"[]").unwrap_err();
        assert!(e.to_string().contains("outside the data directory"), "{e}");
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
        // A symlink that stays inside the data directory is fine.
        std::fs::remove_file(&sessions).unwrap();
        std::fs::create_dir_all(data.join("real")).unwrap();
        std::os::unix::fs::symlink(data.join("real"), &sessions).unwrap();
        write_store(&data, &sessions.join("s.json"), b"[]").unwrap();
        assert!(data.join("real/s.json").is_file());
    }

    #[cfg(unix)]
    #[test]
    fn a_symlinked_target_leading_out_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("data");
        let sessions = crate::config::paths::sessions_dir(&data);
        std::fs::create_dir_all(&sessions).unwrap();
        let victim = tmp.path().join("victim.json");
        std::fs::write(&victim, b"precious").unwrap();
        let target = sessions.join("s.json");
        std::os::unix::fs::symlink(&victim, &target).unwrap();
        let e = write_store(&data, &target, b"[]").unwrap_err();
        assert!(e.to_string().contains("outside the data directory"), "{e}");
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        // A dangling link is refused too.
        let dangling = sessions.join("d.json");
        std::os::unix::fs::symlink(tmp.path().join("nothing"), &dangling).unwrap();
        let e = write_store(&data, &dangling, b"[]").unwrap_err();
        assert!(e.to_string().contains("leads nowhere"), "{e}");
        assert!(!tmp.path().join("nothing").exists());
    }
}
