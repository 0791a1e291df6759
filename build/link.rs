//! How the programs are linked. By default as the toolchain does: position-independent
//! executables, so the program image is randomized like its libraries, stack and heap.
//!
//! `CTXCTL_NO_PIE=1` at build time links the executables (`ctxctl` and the benchmark's
//! reference, `bare_count`) position-dependent (`-no-pie`) on Linux with glibc, for a
//! packager who prefers start-up time to the image's address randomization: a PIE makes
//! the loader apply ~25,000 relocations at every start, ~0.5 ms of a 2 ms
//! `ctxctl --version` (docs/HARDENING.md). The library and the test binaries are never
//! touched.

pub fn emit() {
    println!("cargo::rerun-if-env-changed=CTXCTL_NO_PIE");
    // Cargo tells a build script the target through its environment.
    #[allow(clippy::disallowed_methods)]
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let no_pie = !matches!(var("CTXCTL_NO_PIE").as_str(), "" | "0");
    if var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu" && no_pie {
        println!("cargo::rustc-link-arg-bins=-no-pie");
        println!("cargo::rustc-link-arg-examples=-no-pie");
    }
}
