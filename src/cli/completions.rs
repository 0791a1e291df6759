//! `ctxctl completions SHELL`.

use clap::Args;
use clap_complete::Shell;

use crate::context::Context;
use crate::exit::ExitStatus;

/// Print a shell completion script to stdout.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  ctxctl completions bash > ~/.local/share/bash-completion/completions/ctxctl\n  ctxctl completions zsh > ~/.zfunc/_ctxctl"
)]
pub struct CompletionsArgs {
    /// bash, zsh, fish, elvish or powershell
    pub shell: Shell,
}

pub fn run(ctx: &Context, args: &CompletionsArgs) -> anyhow::Result<ExitStatus> {
    ctx.printer.data(&script(args.shell))?;
    Ok(ExitStatus::Success)
}

/// The completion script for `shell`. clap_complete's elvish and PowerShell scripts do not
/// complete option values; [`completion_values`](super::completion_values) adds them.
pub fn script(shell: Shell) -> Vec<u8> {
    let mut cmd = super::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "ctxctl", &mut out);
    let text = || String::from_utf8_lossy(&out).into_owned();
    match shell {
        Shell::Elvish => super::completion_values::elvish(text(), &cmd).into_bytes(),
        Shell::PowerShell => super::completion_values::powershell(text(), &cmd).into_bytes(),
        _ => out,
    }
}
