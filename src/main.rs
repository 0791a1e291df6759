use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = ctxctl::cli::Cli::parse();
    ctxctl::cli::main(cli)
}
