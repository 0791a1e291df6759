//! `ctxctl cache`: the persistent token-count cache.

use clap::{Args, Subcommand};

use crate::cache::digest::DigestStore;
use crate::cache::CountStore;
use crate::context::Context;
use crate::exit::ExitStatus;

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
            if ctx.printer.json {
                ctx.printer
                    .json(&serde_json::json!({ "path": dir.display().to_string() }))?;
            } else {
                ctx.printer.line(&dir.display().to_string())?;
            }
        }
        CacheAction::Clear => {
            let mut removed = CountStore::clear(&path)
                .map_err(|e| anyhow::anyhow!("cannot remove {}: {e}", path.display()))?;
            if let Some(digests) = ctx.digests_dir().map(DigestStore::new) {
                removed |= digests.clear().map_err(|e| {
                    anyhow::anyhow!("cannot remove {}: {e}", digests.dir().display())
                })?;
            }
            if ctx.printer.json {
                ctx.printer
                    .json(&serde_json::json!({ "removed": removed }))?;
                return Ok(ExitStatus::Success);
            }
            ctx.printer.note(&if removed {
                let dir = path.parent().unwrap_or(&path);
                format!("removed the cache in {}", dir.display())
            } else {
                "the cache was already empty".to_string()
            });
        }
    }
    Ok(ExitStatus::Success)
}
