//! The filters of `sessions` and of every recursive run, as flags; resolved into the plain
//! [`Filter`] the walk and the commands apply.

use clap::Args;

use super::duration::parse_secs;
use crate::ops::filter::{Filter, Pattern};

/// Filters deciding which files are read at all.
#[derive(Debug, Clone, Default, Args)]
pub struct FileFilterArgs {
    /// Only sessions of these agents (comma-separated)
    #[arg(
        long,
        value_name = "AGENT",
        value_delimiter = ',',
        help_heading = "Filters",
        value_parser = clap::builder::PossibleValuesParser::new(crate::formats::agents())
    )]
    pub agent: Vec<String>,
    /// Only sessions whose project directory contains TEXT (any case) or matches a glob
    #[arg(long, value_name = "TEXT|GLOB", help_heading = "Filters")]
    pub project: Option<String>,
    /// Only sessions active within DUR (e.g. 2d, 12h)
    #[arg(long, value_name = "DUR", value_parser = parse_secs, help_heading = "Filters")]
    pub since: Option<u64>,
    /// Only sessions not active for DUR (e.g. 30d)
    #[arg(long, value_name = "DUR", value_parser = parse_secs, help_heading = "Filters")]
    pub older_than: Option<u64>,
    /// Only files matching GLOB (a name like '*.jsonl', or a path like '2025/**'); repeatable
    #[arg(short = 'g', long, value_name = "GLOB", help_heading = "Filters")]
    pub glob: Vec<String>,
    /// Leave out files matching GLOB; repeatable
    #[arg(long, value_name = "GLOB", help_heading = "Filters")]
    pub exclude: Vec<String>,
}

/// Filters on a session's figure, once it is known.
#[derive(Debug, Clone, Default, Args)]
pub struct ResultFilterArgs {
    /// Only sessions whose next request is at least N tokens
    #[arg(long, value_name = "N", help_heading = "Filters")]
    pub min_tokens: Option<usize>,
    /// Only sessions with these statuses (comma-separated)
    #[arg(
        long,
        value_name = "STATUS",
        value_delimiter = ',',
        help_heading = "Filters",
        value_parser = ["ok", "compact", "over", "broken", "error"]
    )]
    pub status: Vec<String>,
}

impl FileFilterArgs {
    /// The filter these flags say, with `results`' when given.
    pub fn filter(&self, results: Option<&ResultFilterArgs>) -> anyhow::Result<Filter> {
        let globs = |list: &[String]| -> anyhow::Result<Vec<Pattern>> {
            list.iter()
                .map(|g| Pattern::glob(g).map_err(anyhow::Error::from))
                .collect()
        };
        Ok(Filter {
            agents: self.agent.clone(),
            project: self
                .project
                .as_deref()
                .map(Pattern::glob_or_substring)
                .transpose()?,
            since: self.since,
            older_than: self.older_than,
            globs: globs(&self.glob)?,
            excludes: globs(&self.exclude)?,
            min_tokens: results.and_then(|r| r.min_tokens),
            statuses: results.map(|r| r.status.clone()).unwrap_or_default(),
        })
    }
}
