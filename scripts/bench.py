#!/usr/bin/env python3
"""End-to-end benchmark: times the release binary against a bare tiktoken-rs program
(examples/bare_count.rs) built in the same run, on generated sessions.

usage: scripts/bench.py [--sizes 200k,2m,10m] [--runs N] [--commands count,check,...]

For each session size it reports the median wall time of N runs, throughput (tokens/s),
peak memory (max RSS) relative to the file size, and the ratio to the bare program.
Nothing here asserts a time: it prints figures for people to read and compare."""
import argparse, os, statistics, subprocess, sys, time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BENCH = os.path.join(ROOT, "target", "bench")
BIN = os.path.join(ROOT, "target", "release", "ctxctl")
BARE = os.path.join(ROOT, "target", "release", "examples", "bare_count")


def parse_size(s):
    s = s.lower()
    mult = {"k": 1_000, "m": 1_000_000}.get(s[-1], 1)
    return int(float(s.rstrip("km")) * mult)


def run(cmd, env):
    """Runs cmd once; returns (seconds, max RSS in bytes, stdout)."""
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    out = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    elapsed = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        sys.exit(f"{' '.join(cmd)} exited {code}")
    return elapsed, usage.ru_maxrss * 1024, out


def measure(cmd, runs, env):
    times, rss, out = [], 0, b""
    for _ in range(runs):
        t, r, out = run(cmd, env)
        times.append(t)
        rss = max(rss, r)
    return statistics.median(times), rss, out


def appended(path, salt):
    """A copy of the session at `path` with 10 new messages at the end, never seen before
    (the process id is part of their text, so no earlier run's cache knows them)."""
    import json
    with open(path) as f:
        doc = json.load(f)
    for k in range(10):
        role = "user" if k % 2 == 0 else "assistant"
        doc["messages"].append({"role": role, "content": f"appended message {os.getpid()}-{salt}-{k}: " + "more words here " * 20})
    out = path + f".appended-{salt}.json"
    with open(out, "w") as f:
        json.dump(doc, f)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="200k,2m")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--commands", default="count,check,check-warm,check-append,trim,compact")
    args = ap.parse_args()
    subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "ctxctl", "--example", "bare_count"],
                   cwd=ROOT, check=True)
    os.makedirs(BENCH, exist_ok=True)
    home = os.path.join(BENCH, "home")
    env = dict(os.environ, HOME=home, XDG_DATA_HOME=os.path.join(home, "data"),
               XDG_CACHE_HOME=os.path.join(home, "cache"), XDG_CONFIG_HOME=os.path.join(home, "config"),
               NO_COLOR="1")
    print(f"machine: {os.cpu_count()} cores; median of {args.runs} runs\n")
    print(f"{'session':>8} {'command':<12} {'time':>9} {'vs bare':>8} {'Mtok/s':>7} {'peak RSS':>10} {'RSS/file':>8}")
    for size in args.sizes.split(","):
        path = os.path.join(BENCH, f"session-{size}.json")
        if not os.path.exists(path):
            subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen-session.py"), str(parse_size(size)), path], check=True)
        fsize = os.path.getsize(path)
        bare_t, bare_rss, out = measure([BARE, path, "o200k_base"], args.runs, env)
        text_tokens = int(out.decode().strip() or 0)
        _, _, out = run([BIN, "count", path, "--model", "gpt-4o", "--json", "--no-cache"], env)
        import json
        tokens = json.loads(out)["total_tokens"]
        def row(name, t, rss):
            print(f"{size:>8} {name:<12} {t*1000:>7.0f}ms {t/bare_t:>7.2f}x {tokens/t/1e6:>7.2f} {rss/1e6:>8.1f}MB {rss/fsize:>7.2f}x")
        row("bare", bare_t, bare_rss)
        cmds = {
            "count": [BIN, "count", path, "--model", "gpt-4o", "--no-cache"],
            "check": [BIN, "check", path, "--model", "gpt-4o", "--no-cache"],
            "check-warm": [BIN, "check", path, "--model", "gpt-4o"],
            "trim": [BIN, "trim", path, "--model", "gpt-4o", "--no-cache", "--strategy", "fifo",
                     "--max-tokens", str(tokens // 2), "-o", "-"],
            "compact": [BIN, "compact", path, "--model", "gpt-4o", "--no-cache", "-o", "-"],
        }
        for name in args.commands.split(","):
            if name == "check-append":
                # A session that grows between runs: checked as it was (its counts and
                # digest warm), then again with 10 new messages appended.
                import shutil
                grown_path = path + ".growing.json"
                times, rss = [], 0
                for i in range(args.runs):
                    shutil.copyfile(path, grown_path)
                    run([BIN, "check", grown_path, "--model", "gpt-4o"], env)
                    grown = appended(path, f"{size}-{i}")
                    os.replace(grown, grown_path)
                    t, r, _ = run([BIN, "check", grown_path, "--model", "gpt-4o"], env)
                    times.append(t)
                    rss = max(rss, r)
                os.remove(grown_path)
                row(name, statistics.median(times), rss)
                continue
            if name == "check-warm":
                run(cmds["check-warm"], env)  # fill the cache
            t, rss, _ = measure(cmds[name], args.runs, env)
            row(name, t, rss)
        print(f"{size:>8} file {fsize/1e6:.1f} MB, {tokens} tokens (bare counts {text_tokens} text tokens)\n")


if __name__ == "__main__":
    main()
