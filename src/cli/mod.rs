//! The shell around the engine: the only place that knows clap, argv, terminals and exit
//! codes. Each subcommand lives in its own file with an args struct and a `run` function.

mod archive;
pub mod args;
mod cache;
mod check;
mod compact;
mod completion_values;
pub mod completions;
mod config_cmd;
mod count;
mod diff;
mod doctor;
pub mod generate;
pub mod grep;
mod here;
mod mcp;
mod models_cmd;
mod parse;
mod sessions;
mod stats;
mod trim;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::config::{Globals, Settings};
use crate::context::Context;
use crate::exit::{is_broken_pipe, ExitStatus};
use crate::render::{ColorChoice, Printer};
use crate::session::Format;

pub use args::InputArgs;
pub use parse::parse;

const AFTER_HELP: &str = "\
Examples:
  ctxctl count session.json --by-role
  ctxctl check -r ~/.claude/projects --model claude-sonnet-4-5
  ctxctl trim session.json --strategy smart --keep-first 2 --keep-last 20 -o trimmed.json

Exit codes: 0 ok · 1 check found a session over its threshold / dry-run found changes ·
2 usage, input or I/O error · 3 the summarizer failed";

/// Keep LLM conversation sessions inside their model's context window.
#[derive(Debug, Parser)]
#[command(name = "ctxctl", version, about, long_about = None, after_help = AFTER_HELP)]
#[command(propagate_version = true, max_term_width = 100)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// Options every subcommand accepts, before or after its name.
#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]
    #[arg(
        long,
        global = true,
        value_name = "ID",
        value_parser = clap::builder::NonEmptyStringValueParser::new(),
        help_heading = "Global options"
    )]
    pub model: Option<String>,
    /// Tokenizer: auto (the model's), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]
    #[arg(
        long,
        global = true,
        value_name = "NAME",
        help_heading = "Global options"
    )]
    pub tokenizer: Option<String>,
    /// Session format, instead of detecting it from the content
    #[arg(long, global = true, value_enum, help_heading = "Global options")]
    pub format: Option<Format>,
    /// Config file [env: CTXCTL_CONFIG]
    #[arg(
        long,
        global = true,
        value_name = "FILE",
        help_heading = "Global options"
    )]
    pub config: Option<PathBuf>,
    /// Ignore the config file
    #[arg(long, global = true, help_heading = "Global options")]
    pub no_config: bool,
    /// Machine-readable JSON on stdout
    #[arg(long, global = true, help_heading = "Global options")]
    pub json: bool,
    /// Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)
    #[arg(
        long,
        global = true,
        conflicts_with = "json",
        help_heading = "Global options"
    )]
    pub tsv: bool,
    /// Print nothing but errors
    #[arg(short, long, global = true, help_heading = "Global options")]
    pub quiet: bool,
    /// More logging on stderr (-vv for trace) [env: CTXCTL_LOG]
    #[arg(short, long, global = true, action = clap::ArgAction::Count, help_heading = "Global options")]
    pub verbose: u8,
    /// When to use colour
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN", help_heading = "Global options")]
    pub color: ColorChoice,
    /// Never draw progress bars
    #[arg(long, global = true, help_heading = "Global options")]
    pub no_progress: bool,
    /// Do not read or write the token-count cache
    #[arg(long, global = true, help_heading = "Global options")]
    pub no_cache: bool,
    /// The session to use inside an agent's database (goose's sessions.db): its id or name
    #[arg(
        long,
        global = true,
        value_name = "ID|NAME",
        help_heading = "Global options"
    )]
    pub session: Option<String>,
    /// Rewrite a session even when its agent is using it: held open for writing, named by a
    /// running agent or its live marker, a database session active less than 2 min ago, or
    /// (batch runs) a file modified less than 2 min ago
    #[arg(long, global = true, help_heading = "Global options")]
    pub include_live: bool,
    /// Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]
    #[arg(long, global = true, value_name = "HOW", value_parser = ["zstd", "none"], help_heading = "Global options")]
    pub compress: Option<String>,
    /// Count the next request locally or with the provider's token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]
    #[arg(long, global = true, value_name = "WHERE", value_parser = ["local", "api"], help_heading = "Global options")]
    pub count_with: Option<String>,
}

/// `--format` takes the names of the codecs' table, in its order.
impl clap::ValueEnum for Format {
    fn value_variants<'a>() -> &'a [Self] {
        static ALL: std::sync::OnceLock<Vec<Format>> = std::sync::OnceLock::new();
        ALL.get_or_init(|| Format::all().collect())
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.name()))
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Count tokens per file, per role and per message
    Count(count::CountArgs),
    /// Check sessions against their model's window (exit 1 when one needs attention)
    Check(check::CheckArgs),
    /// Trim a session to fit a token budget (strategies: fifo, sliding-window, smart, …)
    Trim(trim::TrimArgs),
    /// Summarize the middle of a session, keeping its head and recent tail
    Compact(compact::CompactArgs),
    /// Show where the tokens go: roles, tools, largest messages, window usage
    Stats(stats::StatsArgs),
    /// List every agent session on the machine: tokens, share of the window, status
    #[command(visible_alias = "ls")]
    Sessions(sessions::SessionsArgs),
    /// Compare two sessions: what a rewrite removed, edited and added
    Diff(diff::DiffArgs),
    /// Search every session's messages, the parts compacted away and the archives
    Grep(grep::GrepArgs),
    /// Serve `recall` and `context_status` to an agent (Model Context Protocol on stdio)
    Mcp(mcp::McpArgs),
    /// Check the setup: config, directories, model, agent stores, LLM endpoint
    Doctor(doctor::DoctorArgs),
    /// List, show and restore the originals removed by compaction
    #[command(subcommand)]
    Archive(archive::ArchiveCommand),
    /// List the built-in model registry
    Models(models_cmd::ModelsArgs),
    /// Print the effective settings and where each came from
    Config(config_cmd::ConfigArgs),
    /// Manage the token-count cache
    Cache(cache::CacheArgs),
    /// Print a shell completion script
    Completions(completions::CompletionsArgs),
}

/// Runs the parsed command line and maps the outcome to an exit code.
pub fn main(cli: Cli) -> ExitCode {
    execute(cli, crate::config::Env::from_process()).into()
}

/// What the binary does for `args` (the arguments after the program name) in `env`, run
/// in this process with everything it prints held back, as the binary's exit status and
/// output: the same code path as `main`, without starting a process (tests that need
/// thousands of runs). A command line clap rejects is its error.
pub fn run_captured<I, T>(
    args: I,
    env: crate::config::Env,
) -> Result<(ExitStatus, crate::render::capture::Captured), clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let argv =
        std::iter::once(std::ffi::OsString::from("ctxctl")).chain(args.into_iter().map(Into::into));
    let cli = <Cli as Parser>::try_parse_from(argv)?;
    Ok(crate::render::capture::capture(move || execute(cli, env)))
}

/// Resolves the settings, runs the command and reports its error, if any. A command given
/// no path works on this project's session ([`here`]), and may hand over to its agent.
fn execute(cli: Cli, env: crate::config::Env) -> ExitStatus {
    let g = &cli.global;
    let mut printer = Printer::new(
        g.quiet,
        g.verbose,
        g.json,
        g.color,
        env.get(crate::config::env::NO_COLOR).is_some(),
        g.no_progress,
        env.get(crate::config::env::CTXCTL_LOG),
    );
    printer.tsv = g.tsv;
    printer.fit_to_terminal(env.get(crate::config::env::COLUMNS));
    let settings = Settings::resolve(&g.globals(), &env);
    let result = settings
        .map_err(anyhow::Error::from)
        .and_then(|settings| Context::new(settings, env, printer.clone()))
        .and_then(|mut ctx| {
            let mut command = cli.command;
            let plan = here::fill(&mut ctx, &mut command)?;
            let status = run(&ctx, &command);
            ctx.finish();
            here::hand_over(&ctx, plan, status?)
        });
    match result {
        Ok(status) => status,
        Err(err) if is_broken_pipe(&err) => ExitStatus::Success,
        Err(err) => {
            printer.error(&err);
            for hint in crate::render::hints::for_error(&err) {
                printer.hint(&hint);
            }
            ExitStatus::Error
        }
    }
}

impl GlobalArgs {
    /// The global flags as the plain values settings are resolved from.
    pub fn globals(&self) -> Globals {
        Globals {
            model: self.model.clone(),
            tokenizer: self.tokenizer.clone(),
            format: self.format,
            config: self.config.clone(),
            no_config: self.no_config,
            no_cache: self.no_cache,
            session: self.session.clone(),
            include_live: self.include_live,
            count_with: self
                .count_with
                .as_deref()
                .and_then(crate::config::CountWith::from_name),
            compress: self
                .compress
                .as_deref()
                .and_then(crate::archive::Compression::from_name),
        }
    }
}

/// Dispatches one subcommand.
pub fn run(ctx: &Context, command: &Command) -> anyhow::Result<ExitStatus> {
    match command {
        Command::Count(a) => count::run(ctx, a),
        Command::Check(a) => check::run(ctx, a),
        Command::Trim(a) => trim::run(ctx, a),
        Command::Compact(a) => compact::run(ctx, a),
        Command::Stats(a) => stats::run(ctx, a),
        Command::Sessions(a) => sessions::run(ctx, a),
        Command::Diff(a) => diff::run(ctx, a),
        Command::Grep(a) => grep::run(ctx, a),
        Command::Mcp(a) => mcp::run(ctx, a),
        Command::Doctor(a) => doctor::run(ctx, a),
        Command::Archive(a) => archive::run(ctx, a),
        Command::Models(a) => models_cmd::run(ctx, a),
        Command::Config(a) => config_cmd::run(ctx, a),
        Command::Cache(a) => cache::run(ctx, a),
        Command::Completions(a) => completions::run(ctx, a),
    }
}

/// The clap command, for completions and man pages.
pub fn command() -> clap::Command {
    <Cli as clap::CommandFactory>::command()
}

#[cfg(test)]
mod tests {
    #[test]
    fn clap_definition_is_consistent() {
        super::command().debug_assert();
    }
}
