//! Build-time tables, so that start-up decodes and parses nothing: the tokenizers'
//! vocabularies (vocab.rs), their pre-tokenizers' DFAs (pretok.rs), the offline summary's
//! regexes as DFAs (regexes.rs) and the built-in model registry (models.rs), written to OUT_DIR;
//! and how the executables are linked (link.rs).

// Cargo reads a build script's directives (`cargo::rerun-if-changed=…`) from its stdout.
#![allow(clippy::print_stdout)]

use std::path::Path;

mod link;
mod models;
mod pretok;
mod regexes;
mod vocab;

fn main() {
    println!("cargo::rerun-if-changed=build");
    // A build script learns where to write from cargo's environment, not the user's.
    #[allow(clippy::disallowed_methods)]
    let out = std::env::var("OUT_DIR").expect("OUT_DIR is set for build scripts");
    let out = Path::new(&out);
    vocab::write_all(out);
    pretok::write_all(out);
    regexes::write_all(out);
    models::write(out);
    link::emit();
}
