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
    // No `help` subcommand on the pages: it has no page of its own to refer to.
    let mut cmd = super::command().disable_help_subcommand(true);
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
    let text = String::from_utf8_lossy(&buf);
    // ENVIRONMENT, FILES and EXIT STATUS before the VERSION section (every page has one).
    let extra = if name == "ctxctl" {
        format!("{}{FILES}{EXIT_STATUS}", environment())
    } else {
        EXIT_STATUS.to_string()
    };
    let text = match text.find(".SH VERSION") {
        Some(at) => format!("{}{extra}{}", &text[..at], &text[at..]),
        None => format!("{text}{extra}"),
    };
    out.push((format!("man/{name}.1"), text.into_bytes()));
    for sub in cmd.get_subcommands() {
        if sub.get_name() == "help" {
            continue;
        }
        render(sub, &format!("{name}-{}", sub.get_name()), out);
    }
}

/// The ENVIRONMENT section: every documented variable (`config::env::DOCUMENTED`, the
/// table `ctxctl config` and the README use) and the standard ones ctxctl honours.
fn environment() -> String {
    let roff = |t: &str| t.replace('\\', r"\\").replace('-', r"\-");
    let mut out = String::from(
        ".SH ENVIRONMENT\nFlags win over the environment, which wins over the config file. \
         An empty value counts as unset.\n",
    );
    let standard = [
        ("NO_COLOR", "turns colour off unless --color always"),
        (
            "XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_CACHE_HOME",
            "base directories of the config file, the data directory and the cache",
        ),
    ];
    for (name, meaning) in crate::config::env::DOCUMENTED.iter().chain(&standard) {
        out.push_str(&format!(".TP\n\\fB{}\\fR\n{}\n", roff(name), roff(meaning)));
    }
    out
}

/// Where ctxctl reads and writes, as roff.
const FILES: &str = r".SH FILES
.TP
\fI$XDG_CONFIG_HOME/ctxctl/config.toml\fR
The config file (\fBctxctl config path\fR prints where it is looked for).
.TP
\fI$XDG_DATA_HOME/ctxctl/sessions/\fR
Sessions rewritten into ctxctl's store (\fB\-\-name\fR).
.TP
\fI$XDG_DATA_HOME/ctxctl/archives/NAME/compact\-TIME\-SEQ.json\fR
The originals every rewrite removed (0600 files in 0700 directories), for \fBctxctl archive restore\fR.
.TP
\fI$XDG_CACHE_HOME/ctxctl/\fR
Token counts and check digests (\fBctxctl cache path\fR, \fBctxctl cache clear\fR).
";

/// Exit codes, as roff.
const EXIT_STATUS: &str = r".SH EXIT STATUS
.TP
\fB0\fR
Success; check: every session is below its threshold and structurally valid.
.TP
\fB1\fR
check: a session is at or over its threshold, over its limit, or broken; \fB\-\-dry\-run\fR: changes would be made.
.TP
\fB2\fR
Usage error, unreadable or malformed input, I/O error: nothing was written.
.TP
\fB3\fR
The summarizer failed after its retries: nothing was changed.
";
