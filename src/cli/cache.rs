//! `ctxctl cache`: the persistent token-count cache.

use clap::{Args, Subcommand};

use serde::Serialize;

use crate::cache::digest::DigestStore;
use crate::cache::CountStore;
use crate::context::Context;
use crate::exit::ExitStatus;
use crate::render::{Printer, Report};

/// Manage the token-count cache (counts remembered across runs).
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  ctxctl cache path\n  ctxctl cache clear")]
pub struct CacheArgs {
    #[command(subcommand)]
    pub action: CacheAction,
}

#[derive(Debug, Subcommand)]
pub enum CacheAction {
    /// Print the cache directory (counts and session digests)
    #[command(
        after_help = "Examples:\n  ctxctl cache path\n  CTXCTL_CACHE_DIR=/tmp/ctxctl ctxctl cache path"
    )]
    Path,
    /// Delete the cache: remembered counts and session digests (recomputed on the next run)
    #[command(after_help = "Examples:\n  ctxctl cache clear\n  ctxctl cache clear --quiet")]
    Clear,
}

pub fn run(ctx: &Context, args: &CacheArgs) -> anyhow::Result<ExitStatus> {
    let Some(path) = ctx.cache_file() else {
        anyhow::bail!("cannot find a cache directory; set CTXCTL_CACHE_DIR");
    };
    match args.action {
        CacheAction::Path => {
            let dir = path.parent().unwrap_or(&path);
            ctx.printer.report(&CachePath {
                path: dir.display().to_string(),
            })?;
        }
        CacheAction::Clear => {
            let mut removed = CountStore::clear(&path)
                .map_err(|e| anyhow::anyhow!("cannot remove {}: {e}", path.display()))?;
            if let Some(digests) = ctx.digests_dir().map(DigestStore::new) {
                removed |= digests.clear().map_err(|e| {
                    anyhow::anyhow!("cannot remove {}: {e}", digests.dir().display())
                })?;
            }
            let dir = path.parent().unwrap_or(&path);
            ctx.printer.report(&Cleared {
                removed,
                dir: dir.display().to_string(),
            })?;
        }
    }
    Ok(ExitStatus::Success)
}

/// `cache path`: the cache's directory.
#[derive(Serialize)]
struct CachePath {
    path: String,
}

impl Report for CachePath {
    fn human(&self, p: &Printer) -> anyhow::Result<()> {
        Ok(p.line(&self.path)?)
    }
}

/// `cache clear`: whether there was anything to remove.
#[derive(Serialize)]
struct Cleared {
    removed: bool,
    /// Where it was (said to a person only).
    #[serde(skip)]
    dir: String,
}

impl Report for Cleared {
    fn human(&self, p: &Printer) -> anyhow::Result<()> {
        p.note(&if self.removed {
            format!("removed the cache in {}", self.dir)
        } else {
            "the cache was already empty".to_string()
        });
        Ok(())
    }
}
