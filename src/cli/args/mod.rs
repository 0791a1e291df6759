//! Arguments several commands share: the input files, where a rewrite goes, and the
//! budget options. Each resolves into the plain values the `ops` services take.

pub mod budget;
pub mod duration;
pub mod filter;
pub mod here;

use std::path::PathBuf;

use clap::Args;

use crate::context::Context;
use crate::ops::write::OutputChoice;

#[derive(Debug, Clone, Args)]
pub struct InputArgs {
    /// Session files (`-` reads standard input); a directory, or an agent's database of
    /// several sessions without --session, is read as with -r; none: this project's newest
    /// session
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Also read every session below DIR (*.json, *.jsonl, each session of goose's sessions.db and OpenCode's opencode.db)
    #[arg(short = 'r', long = "recursive", value_name = "DIR")]
    pub recursive: Vec<PathBuf>,
    #[command(flatten)]
    pub filters: filter::FileFilterArgs,
    #[command(flatten)]
    pub here: here::PickArgs,
}

impl InputArgs {
    /// The files to process, in a stable order, filtered (see
    /// [`crate::ops::walk::collect`]).
    pub fn collect(
        &self,
        ctx: &Context,
        subagents: bool,
    ) -> anyhow::Result<Vec<crate::ops::walk::Input>> {
        let filter = self.filters.filter(None)?;
        crate::ops::walk::collect(ctx, &self.files, &self.recursive, subagents, &filter)
    }
}

#[derive(Debug, Clone, Default, Args)]
pub struct OutputArgs {
    /// Write the result to FILE (`-` for standard output); the input is left as it is, so
    /// nothing is archived
    #[arg(
        short = 'o',
        long = "output",
        value_name = "FILE",
        help_heading = "Output"
    )]
    pub output: Option<PathBuf>,
    /// Replace the input file (the removed messages are archived first: only a rewrite that
    /// replaces its input files an archive)
    #[arg(long, conflicts_with = "output", help_heading = "Output")]
    pub in_place: bool,
    /// Only show what would change; write nothing (exit 1 if something would change)
    #[arg(long, help_heading = "Output")]
    pub dry_run: bool,
}

impl OutputArgs {
    /// Where the user asked the result to go.
    pub fn choice(&self) -> OutputChoice {
        OutputChoice {
            output: self.output.clone(),
            in_place: self.in_place,
        }
    }
}
