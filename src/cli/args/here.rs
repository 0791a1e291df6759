//! `--pick` (choose among this project's sessions) and `--resume` / `--print-resume`
//! (hand over to the agent after a rewrite): the options of a command run with no path,
//! in a project directory (see `crate::cli::here`).

use clap::Args;

#[derive(Debug, Clone, Default, Args)]
pub struct PickArgs {
    /// With no FILE: choose among this project's sessions on the terminal (newest first)
    /// instead of taking the newest
    #[arg(long, help_heading = "This project's session")]
    pub pick: bool,
}

#[derive(Debug, Clone, Default, Args)]
pub struct ResumeArgs {
    /// After the rewrite, resume the session in its agent (`claude --resume ID`, `codex
    /// resume ID`, …), in the session's project directory; implies --in-place
    #[arg(
        long,
        conflicts_with_all = ["output", "dry_run", "print_resume"],
        help_heading = "This project's session"
    )]
    pub resume: bool,
    /// Print the command that resumes the session in its agent (shell-quoted) after the
    /// rewrite, instead of running it
    #[arg(long, help_heading = "This project's session")]
    pub print_resume: bool,
    /// Words added to the agent's resume command (after `--`), e.g. `-- -p "go on"`
    #[arg(
        last = true,
        value_name = "AGENT ARGS",
        help_heading = "This project's session"
    )]
    pub agent_args: Vec<String>,
}

impl ResumeArgs {
    /// Whether the run ends by resuming (or printing how to resume) the session.
    pub fn wanted(&self) -> bool {
        self.resume || self.print_resume
    }
}
