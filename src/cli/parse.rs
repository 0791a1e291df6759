//! Parsing the command line without building all of clap's tree for the commands an agent
//! runs on every turn.
//!
//! clap's derive builds every subcommand, with every global option copied into each,
//! before it looks at the first argument: 0.6-0.7 ms of a one-message `count` (the small
//! tree below takes under 0.3), all spent before the tokenizer can start building (issue
//! #19), and 0.56 ms of a small session's ~20 ms compaction. `count`, `check`, `stats`,
//! `trim` and `compact` are parsed first on a tree of the global options and that one
//! subcommand. A command line that tree does not accept — a typo, `--help`, `--version`,
//! another subcommand — is parsed again on the whole tree, so that every message and
//! every help text is clap's as before.

use std::ffi::OsString;

use clap::{Args, FromArgMatches, Parser};

use super::{check, compact, count, stats, trim, Cli, GlobalArgs};

/// A subcommand parsed on its own tree: its name and its arguments' clap definition.
struct Quick {
    name: &'static str,
    augment: fn(clap::Command) -> clap::Command,
}

/// The commands run on every turn of an agent loop (and from its hooks: `compact
/// --if-needed`), where start-up time counts. Their variants of `Command` carry no
/// `#[command(...)]` that changes parsing (aliases, settings): the small tree gets nothing
/// from the variant but its name.
const QUICK: [Quick; 5] = [
    Quick {
        name: "count",
        augment: count::CountArgs::augment_args,
    },
    Quick {
        name: "check",
        augment: check::CheckArgs::augment_args,
    },
    Quick {
        name: "stats",
        augment: stats::StatsArgs::augment_args,
    },
    Quick {
        name: "trim",
        augment: trim::TrimArgs::augment_args,
    },
    Quick {
        name: "compact",
        augment: compact::CompactArgs::augment_args,
    },
];

/// The command line of this process, parsed as `Cli::parse` would (exiting with clap's
/// message on an error, or after printing help or the version).
pub fn parse() -> Cli {
    let args: Vec<OsString> = std::env::args_os().collect();
    quick(&args).unwrap_or_else(|| Cli::parse_from(args))
}

/// `args` parsed on a tree of the global options and the quick subcommand they name, or
/// `None` when they name none or that tree does not accept them.
///
/// The small tree accepts a subset of what the whole one does, and the same way: the
/// top level has no positional arguments, so the first word that is not an option or an
/// option's value must be the subcommand; another subcommand's name there is an error
/// in the small tree. What follows is parsed by the same subcommand definition, with the
/// same global options and version flags.
fn quick(args: &[OsString]) -> Option<Cli> {
    let quick = args
        .iter()
        .skip(1)
        .find_map(|a| QUICK.iter().find(|q| a.as_os_str() == q.name))?;
    let top = GlobalArgs::augment_args(clap::Command::new("ctxctl"))
        .version(env!("CARGO_PKG_VERSION"))
        .propagate_version(true)
        .subcommand((quick.augment)(clap::Command::new(quick.name)));
    let matches = top.try_get_matches_from(args).ok()?;
    Cli::from_arg_matches(&matches).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses `line` both ways: the quick parse, when it accepts the line, gives what the
    /// whole tree does.
    fn both(line: &str) -> (Option<String>, Result<String, clap::error::ErrorKind>) {
        let args: Vec<OsString> = line.split_whitespace().map(OsString::from).collect();
        let quick = quick(&args).map(|c| format!("{c:?}"));
        let whole = Cli::try_parse_from(&args)
            .map(|c| format!("{c:?}"))
            .map_err(|e| e.kind());
        (quick, whole)
    }

    #[test]
    fn quick_parses_agree_with_the_whole_tree() {
        for line in [
            "ctxctl count s.json",
            "ctxctl count s.json --no-cache --model gpt-4o",
            "ctxctl --model gpt-4o count --by-role s.json t.jsonl --json",
            "ctxctl --model count count s.json",
            "ctxctl check -r dir --model claude-sonnet-4-5 --tsv -q",
            "ctxctl stats s.json --color never -vv",
            "ctxctl count -",
            "ctxctl count -- --json",
            "ctxctl check s.json --threshold 0.5",
            "ctxctl stats --format claude-code s.json",
            "ctxctl trim s.json --strategy fifo --max-tokens 5000 -o out.json",
            "ctxctl trim s.json --strategy composite --chain tool-results,fifo --pin 0 --dry-run",
            "ctxctl --model gpt-4o trim --strategy smart --in-place s.jsonl --json",
            "ctxctl compact s.json --no-cache -o out.json",
            "ctxctl compact s.json --tail-tokens 2000 --summarizer offline --min-recall 0.5",
            "ctxctl compact --name work --if-needed --threshold 0.8 --json",
            "ctxctl compact -r dir --dry-run --summary-tokens 500 -q",
            "ctxctl --session abc compact db.sqlite --in-place",
        ] {
            let (quick, whole) = both(line);
            assert_eq!(quick.as_ref(), whole.as_ref().ok(), "{line}");
            assert!(quick.is_some(), "{line}");
        }
    }

    #[test]
    fn other_lines_are_left_to_the_whole_tree() {
        for line in [
            "ctxctl count --help",
            "ctxctl --help count",
            "ctxctl count --version",
            "ctxctl -V count",
            "ctxctl help count",
            "ctxctl trim count --budget 5",
            "ctxctl --model gpt-4o check count",
            // The first quick name is the subcommand tried: here an option's value.
            "ctxctl --session check count s.json",
            "ctxctl count --no-such-flag s.json",
            "ctxctl count --json --tsv s.json",
            "ctxctl models count",
            "ctxctl ls count",
            "ctxctl compact --help",
            "ctxctl compact",
            "ctxctl compact s.json --tail-tokens many",
            "ctxctl compact s.json --summarizer cloud",
            "ctxctl trim s.json --strategy nope",
            "ctxctl trim --version",
            "ctxctl",
        ] {
            let (quick, whole) = both(line);
            match whole {
                Ok(whole) => assert!(quick.is_none() || quick == Some(whole), "{line}"),
                Err(_) => assert_eq!(quick, None, "{line}"),
            }
        }
    }
}
