#!/usr/bin/env python3
"""`ctxctl sessions` over a big home (issue #43): times the release binary listing every
session of a home laid out by grow-home.py, against `count -r` over the same files.

usage: scripts/bench-home.py [--sessions 3000] [--gigabytes 3] [--runs 3] [--home DIR]
                             [--keep] [--compare OTHER_CTXCTL]

Rows: `sessions` cold (an empty cache directory each run), `sessions` warm (the cache
filled by an earlier run, the files unchanged), and `count -r` of the agents' stores (an
empty cache directory each run: what the cold listing is held to). Each is run --runs
times, interleaved; it prints the median wall time, the cold listing's median per-round
ratio to `count -r`, and the peak memory (max RSS) of all runs. The home is grown under
target/bench/ (about --gigabytes of disk) and deleted after the run unless --keep or
--home (a home grown before, kept as it is) is given. Also run by `scripts/bench.py
--commands sessions-home`. Nothing here asserts a time."""
import argparse, os, shutil, statistics, subprocess, sys

import importlib.util

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("bench", os.path.join(HERE, "bench.py"))
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

STORES = (".claude/projects", ".codex/sessions", ".gemini/tmp", ".copilot/session-state")


def main():
    doc = __doc__.split("\n\n")
    ap = argparse.ArgumentParser(prog="bench-home.py", description=doc[0],
                                 epilog="\n\n".join(doc[1:]),
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sessions", type=int, default=3000)
    ap.add_argument("--gigabytes", type=float, default=3.0)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--home", help="a home grown before by grow-home.py (kept)")
    ap.add_argument("--keep", action="store_true", help="keep the home grown for this run")
    ap.add_argument("--compare", help="another ctxctl binary to time in the same rounds")
    ap.add_argument("--no-build", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if not a.no_build:
        subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "ctxctl"],
                       cwd=bench.ROOT, check=True)
    work = os.path.join(bench.BENCH, f"home-bench-{os.getpid()}")
    home = a.home or os.path.join(work, "home")
    if not a.home:
        subprocess.run([sys.executable, os.path.join(HERE, "grow-home.py"), home,
                        "--sessions", str(a.sessions), "--gigabytes", str(a.gigabytes)],
                       check=True)
    try:
        measure(home, work, a.runs, a.compare)
    finally:
        if not a.home and not a.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            shutil.rmtree(os.path.join(work, "caches"), ignore_errors=True)


def env_for(home, cache):
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home,
            "XDG_CACHE_HOME": cache, "XDG_DATA_HOME": os.path.join(home, ".bench-data"),
            "XDG_CONFIG_HOME": os.path.join(home, ".bench-config"), "NO_COLOR": "1"}


def measure(home, work, runs, other=None):
    caches = os.path.join(work, "caches")
    stores = [os.path.join(home, s) for s in STORES if os.path.isdir(os.path.join(home, s))]
    binaries = {"": bench.BIN}
    if other:
        binaries["@other"] = other
    rows = {}
    for tag, binary in binaries.items():
        rows["sessions cold" + tag] = (binary, ["sessions"], "fresh")
        rows["sessions warm" + tag] = (binary, ["sessions"], "warm" + tag)
        rows["count -r" + tag] = (binary, ["count", "-r", *stores], "fresh")
    for tag, binary in binaries.items():  # fill each binary's warm cache
        bench.run([binary, "sessions"], env_for(home, os.path.join(caches, "warm" + tag)))
    times = {n: [] for n in rows}
    peak = {n: 0 for n in rows}
    for _ in range(runs):
        for name, (binary, args, cache) in rows.items():
            cache_dir = os.path.join(caches, cache)
            if cache == "fresh":
                shutil.rmtree(cache_dir, ignore_errors=True)
            t, rss, _ = bench.run([binary, *args], env_for(home, cache_dir))
            times[name].append(t)
            peak[name] = max(peak[name], rss)
    files = sum(len(f) for s in stores for _, _, f in os.walk(s))
    size = sum(os.path.getsize(os.path.join(d, n)) for s in stores for d, _, f in os.walk(s) for n in f)
    print(f"home: {files} files, {size / 1e9:.2f} GB; {runs} interleaved rounds, median")
    for name in rows:
        tag = name[name.index("@"):] if "@" in name else ""
        versus = ""
        if name.startswith("sessions cold"):
            r = statistics.median(a / b for a, b in zip(times[name], times["count -r" + tag]))
            versus = f"  {r:.2f}x count -r"
        print(f"{name:<22} {statistics.median(times[name]):>8.2f} s {peak[name] / 2**20:>7.0f} MiB{versus}")


if __name__ == "__main__":
    main()
