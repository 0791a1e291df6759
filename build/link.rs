//! How the programs are linked. On Linux with glibc the executables (`ctxctl` and the
//! benchmark's reference, `bare_count`) are linked as position-dependent (`-no-pie`): a
//! position-independent one makes the loader apply ~25,000 relocations at every start,
//! writing ~120 pages of tables (vtables, panic locations, the model registry's rows) that
//! then each cost a copy-on-write fault. That was ~0.5 ms of a 2 ms `ctxctl --version` and
//! of every command, which matters where start-up is most of the run (small sessions, warm
//! checks). Go links its Linux programs the same way by default; the shared libraries,
//! stack and heap stay randomized. `CTXCTL_PIE=1` at build time keeps the default (PIE),
//! for a packager whose policy requires it. The library and the test binaries are not
//! touched.

pub fn emit() {
    println!("cargo::rerun-if-env-changed=CTXCTL_PIE");
    // Cargo tells a build script the target through its environment.
    #[allow(clippy::disallowed_methods)]
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let keep_pie = !matches!(var("CTXCTL_PIE").as_str(), "" | "0");
    if var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu" && !keep_pie {
        println!("cargo::rustc-link-arg-bins=-no-pie");
        println!("cargo::rustc-link-arg-examples=-no-pie");
    }
}
