#!/usr/bin/env python3
"""End-to-end benchmark: times the release binary against a reference program
(examples/bare_count.rs: two counting threads, streaming, ctxctl's tokenizer with the
whole-token shortcut, the same totals as `ctxctl count`) built in the same run, on
generated sessions.

usage: scripts/bench.py [--sizes 200k,2m,10m] [--runs N] [--commands count,check,...]
                        [--compare OTHER_CTXCTL]

Commands: count, check, stats, trim (fifo to half the tokens), compact (offline), all with
--no-cache; trim and compact write their output to a file beside the sessions (deleted after
each run: what `-o FILE` costs, not how fast this script could read a pipe); check-warm (check, the count cache warm, the file unchanged); check-append (the
JSON session checked, then checked again with 10 messages appended); check-append-jsonl
(the same for the session as JSONL, one message per line, grown by 10 lines; the JSONL
copy is kept next to the JSON one, as target/bench/session-SIZE.jsonl); check-append-aged
(check-append-jsonl with a count cache of its own whose log holds ~60,000 counts of
other texts, as a cache in daily use holds up to 65,536 before they are merged into its
sorted file). sessions-home (not among the defaults: it grows a 3 GB home) runs
scripts/bench-home.py: `sessions` cold and warm over 3,000 sessions, against `count -r`.

--compare times another ctxctl binary (an older build, say) in the same rounds; its rows
are marked with `@other`.

Runs are interleaved: each round runs the reference and then every command once, so
that a noisy machine slows them alike. For each session size it reports the median wall
time, the median of the per-round ratios to the reference, throughput (tokens/s), peak
memory (max RSS) and, for trim and compact, the median of the per-round ratios to count
(when count is among the commands). Before the sessions it prints the start-up floor: the
median time of `ctxctl --version` and of `/bin/true` (starting any process), which bounds
the warm cases of small sessions. Sessions of 100M tokens and more (and their JSONL copies) are generated
for the run and deleted after it. Nothing here asserts a time: it prints figures for
people to read and compare."""
import argparse, json, os, random, shutil, statistics, struct, subprocess, sys, time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BENCH = os.path.join(ROOT, "target", "bench")
BIN = os.path.join(ROOT, "target", "release", "ctxctl")
REF = os.path.join(ROOT, "target", "release", "examples", "bare_count")
ALL = "count,check,stats,trim,compact,check-warm,check-append,check-append-jsonl,check-append-aged"
# The counts check-append-aged fills its cache's log with (the log is merged at 65,536).
AGED_LOG = 60_000
LOG_ENTRY = 24


def parse_size(s):
    s = s.lower()
    mult = {"k": 1_000, "m": 1_000_000}.get(s[-1], 1)
    return int(float(s.rstrip("km")) * mult)


def run(cmd, env):
    """Runs cmd once; returns (seconds, max RSS in bytes, the first MiB of stdout)."""
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    # Read in chunks, keeping the head only: a trimmed session written to stdout must not
    # grow this process (see in_child).
    out = b""
    while chunk := p.stdout.read(1 << 16):
        if len(out) < 1 << 20:
            out += chunk
    _, status, usage = os.wait4(p.pid, 0)
    elapsed = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        sys.exit(f"{' '.join(cmd)} exited {code}")
    return elapsed, usage.ru_maxrss * 1024, out


def in_child(f, *args):
    """Runs f(*args) in a forked child. Sessions are loaded as JSON only there: a process
    starts with its parent's peak RSS (Linux keeps ru_maxrss across fork and exec), so a
    bench process grown by a loaded session would inflate every later peak it reports."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            f(*args)
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{f.__name__}{args} failed")


def appended(path, salt):
    """A copy of the session at `path` with 10 new messages at the end, never seen before
    (the process id is part of their text, so no earlier run's cache knows them)."""
    out = path + f".appended-{salt}.json"

    def write():
        with open(path) as f:
            doc = json.load(f)
        doc["messages"].extend(new_messages(salt))
        with open(out, "w") as f:
            json.dump(doc, f)
    in_child(write)
    return out


def check_append(path, size, i, env):
    """A session that grows between runs: checked as it was (its counts and digest warm),
    then timed checking it again with 10 new messages appended."""
    grown_path = path + ".growing.json"
    shutil.copyfile(path, grown_path)
    run([BIN, "check", grown_path, "--model", "gpt-4o"], env)
    os.replace(appended(path, f"{size}-{i}"), grown_path)
    t, rss, _ = run([BIN, "check", grown_path, "--model", "gpt-4o"], env)
    os.remove(grown_path)
    return t, rss


def new_messages(salt):
    """10 messages never seen before (the process id is part of their text, so no earlier
    run's cache knows them)."""
    return [{"role": "user" if k % 2 == 0 else "assistant",
             "content": f"appended message {os.getpid()}-{salt}-{k}: " + "more words here " * 20}
            for k in range(10)]


def jsonl_of(path):
    """The session at `path` as JSONL (one message per line), made once next to it."""
    out = path[:-len(".json")] + ".jsonl"

    def write():
        with open(path) as f:
            doc = json.load(f)
        with open(out + ".tmp", "w") as f:
            for m in doc["messages"]:
                f.write(json.dumps(m) + "\n")
        os.replace(out + ".tmp", out)
    if not os.path.exists(out):
        in_child(write)
    return out


def check_append_jsonl(path, size, i, env, aged=False):
    """Like check_append, for a JSONL session: checked as it was, then timed checking it
    again with 10 new lines appended in place (as an agent appends). `aged`: with a cache
    of its own, made anew, whose log is then filled up to AGED_LOG counts of other texts."""
    grown_path = path + ".growing.jsonl"
    shutil.copyfile(path, grown_path)
    if aged:
        cache = os.path.join(env["HOME"], "cache-aged")
        shutil.rmtree(cache, ignore_errors=True)
        env = dict(env, XDG_CACHE_HOME=cache)
    run([BIN, "check", grown_path, "--model", "gpt-4o"], env)
    if aged:
        log = os.path.join(env["XDG_CACHE_HOME"], "ctxctl", "token-counts.log")
        have = os.path.getsize(log) // LOG_ENTRY if os.path.exists(log) else 0
        rnd = random.Random(i)
        with open(log, "ab") as f:
            for _ in range(max(0, AGED_LOG - have)):
                # Key (16 bytes), count, generation: all little-endian.
                f.write(rnd.randbytes(16) + struct.pack("<II", rnd.randrange(1, 500), 1))
    with open(grown_path, "a") as f:
        for m in new_messages(f"{size}-{i}"):
            f.write(json.dumps(m) + "\n")
    t, rss, _ = run([BIN, "check", grown_path, "--model", "gpt-4o"], env)
    os.remove(grown_path)
    return t, rss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="200k,2m")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--commands", default=ALL)
    ap.add_argument("--compare", help="another ctxctl binary to time in the same rounds")
    args = ap.parse_args()
    subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "ctxctl", "--example", "bare_count"],
                   cwd=ROOT, check=True)
    os.makedirs(BENCH, exist_ok=True)
    home = os.path.join(BENCH, "home")
    env = dict(os.environ, HOME=home, XDG_DATA_HOME=os.path.join(home, "data"),
               XDG_CACHE_HOME=os.path.join(home, "cache"), XDG_CONFIG_HOME=os.path.join(home, "config"),
               NO_COLOR="1")
    names = args.commands.split(",")
    if "sessions-home" in names:
        names.remove("sessions-home")
        home = [sys.executable, os.path.join(ROOT, "scripts", "bench-home.py"), "--no-build",
                "--runs", str(args.runs)] + (["--compare", args.compare] if args.compare else [])
        subprocess.run(home, check=True)
        if not names:
            return
    print(f"machine: {os.cpu_count()} cores; {args.runs} interleaved rounds; median time, median per-round ratio\n")
    print(start_up(env))
    print(f"{'session':>8} {'command':<13} {'time':>9} {'vs ref':>7} {'Mtok/s':>7} {'peak RSS':>10} {'vs count':>8}")
    for size in args.sizes.split(","):
        path = os.path.join(BENCH, f"session-{size}.json")
        temporary = parse_size(size) >= 100_000_000 and not os.path.exists(path)
        if not os.path.exists(path):
            subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen-session.py"), str(parse_size(size)), path], check=True)
        try:
            bench_size(size, path, names, args.runs, env, args.compare)
        finally:
            if temporary:
                os.remove(path)
                jsonl = path[:-len(".json")] + ".jsonl"
                if os.path.exists(jsonl):
                    os.remove(jsonl)


def start_up(env, rounds=41):
    """The start-up floor, as a line: `ctxctl --version` and `/bin/true` (any process),
    median of interleaved rounds."""
    cmds = {"ctxctl --version": [BIN, "--version"], "/bin/true": ["/bin/true"]}
    times = {name: [] for name in cmds}
    for _ in range(rounds):
        for name, cmd in cmds.items():
            times[name].append(run(cmd, env)[0])
    figures = ", ".join(f"{name} {statistics.median(t) * 1000:.1f} ms" for name, t in times.items())
    return f"start-up ({rounds} rounds): {figures}\n"


def bench_size(size, path, names, runs, env, other=None):
    fsize = os.path.getsize(path)
    _, _, out = run([REF, path, "o200k_base"], env)
    ref_tokens = int(out.decode().strip() or 0)
    _, _, out = run([BIN, "count", path, "--model", "gpt-4o", "--json", "--no-cache"], env)
    tokens = json.loads(out)["total_tokens"]
    if tokens != ref_tokens:
        print(f"  !! totals differ: ctxctl {tokens}, reference {ref_tokens}")
    out = os.path.join(BENCH, f"out-{os.getpid()}.json")
    cmds = {
        "ref": [REF, path, "o200k_base"],
        "count": [BIN, "count", path, "--model", "gpt-4o", "--no-cache"],
        "check": [BIN, "check", path, "--model", "gpt-4o", "--no-cache"],
        "stats": [BIN, "stats", path, "--model", "gpt-4o", "--no-cache"],
        "check-warm": [BIN, "check", path, "--model", "gpt-4o"],
        "trim": [BIN, "trim", path, "--model", "gpt-4o", "--no-cache", "--strategy", "fifo",
                 "--max-tokens", str(tokens // 2), "-o", out],
        "compact": [BIN, "compact", path, "--model", "gpt-4o", "--no-cache", "-o", out],
    }
    order = ["ref"] + names
    if other:
        for name in names:
            if name in cmds and name != "check-warm":
                cmds[name + "@other"] = [other] + cmds[name][1:]
                order.append(name + "@other")
    if "check-warm" in names:
        run(cmds["check-warm"], env)  # fill the cache
    times = {n: [] for n in order}
    rss = {n: 0 for n in order}
    for i in range(runs):
        for name in order:
            if name == "check-append":
                t, r = check_append(path, size, i, env)
            elif name == "check-append-jsonl":
                t, r = check_append_jsonl(jsonl_of(path), size, i, env)
            elif name == "check-append-aged":
                t, r = check_append_jsonl(jsonl_of(path), size, i, env, aged=True)
            else:
                t, r, _ = run(cmds[name], env)
                if os.path.exists(out):
                    os.remove(out)
                # compact archives the messages it replaces: gone after the run, so that
                # rounds at 100M tokens do not fill the disk.
                shutil.rmtree(os.path.join(env["XDG_DATA_HOME"], "ctxctl", "archives"), ignore_errors=True)
            times[name].append(t)
            rss[name] = max(rss[name], r)
    for name in order:
        t = statistics.median(times[name])
        ratio = statistics.median(a / b for a, b in zip(times[name], times["ref"]))
        # Rewrites are held to `count` of the same file: the median of the per-round
        # ratios, as steady on a noisy machine as the ratio to the reference.
        count = "count@other" if name.endswith("@other") else "count"
        versus = ""
        if name in ("trim", "compact", "trim@other", "compact@other") and count in times:
            versus = f" {statistics.median(a / b for a, b in zip(times[name], times[count])):>6.2f}x"
        label = "reference" if name == "ref" else name
        print(f"{size:>8} {label:<13} {t*1000:>7.0f}ms {ratio:>6.2f}x {tokens/t/1e6:>7.2f} {rss[name]/2**20:>7.0f} MiB{versus}")
    print(f"{size:>8} file {fsize/1e6:.1f} MB, {tokens} tokens (reference {ref_tokens})\n")


if __name__ == "__main__":
    main()
