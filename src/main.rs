use std::process::ExitCode;

fn main() -> ExitCode {
    ctxctl::cli::main(ctxctl::cli::parse())
}
