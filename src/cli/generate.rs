//! Generated artefacts kept in the repository: shell completions (`completions/`) and man
//! pages (`man/`), rendered in-process from the clap definition. A test compares them with
//! the checked-in files and rewrites them when `CTXCTL_UPDATE_GENERATED=1`.

use clap_complete::Shell;

/// Every generated file as (path relative to the repository root, content).
pub fn all() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for (shell, file) in [
        (Shell::Bash, "ctxctl.bash"),
        (Shell::Zsh, "_ctxctl"),
        (Shell::Fish, "ctxctl.fish"),
        (Shell::Elvish, "ctxctl.elv"),
        (Shell::PowerShell, "_ctxctl.ps1"),
    ] {
        out.push((
            format!("completions/{file}"),
            super::completions::script(shell),
        ));
    }
    out.extend(man_pages());
    out
}

/// `man/ctxctl.1` and `man/ctxctl-<subcommand>.1` for each subcommand (nested ones too).
pub fn man_pages() -> Vec<(String, Vec<u8>)> {
    let mut cmd = super::command();
    cmd.build();
    let mut out = Vec::new();
    render(&cmd, "ctxctl", &mut out);
    out
}

fn render(cmd: &clap::Command, name: &str, out: &mut Vec<(String, Vec<u8>)>) {
    let page = cmd.clone().name(name.to_string());
    let mut buf = Vec::new();
    // Rendering into a Vec cannot fail.
    let _ = clap_mangen::Man::new(page).render(&mut buf);
    out.push((format!("man/{name}.1"), buf));
    for sub in cmd.get_subcommands() {
        if sub.get_name() == "help" {
            continue;
        }
        render(sub, &format!("{name}-{}", sub.get_name()), out);
    }
}
