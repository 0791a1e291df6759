#!/usr/bin/env python3
"""Lays out a big multi-agent home for benchmarks of `ctxctl sessions`: thousands of
sessions of Claude Code, Codex, Gemini CLI and Copilot CLI where each agent keeps them,
grown from real transcripts by grow-agent.py (fresh ids, texts that do not repeat) taken
from shared/fixtures (found above the checkout; $CTXCTL_FIXTURES names another).

usage: grow-home.py HOME_DIR [--sessions 3000] [--gigabytes 3] [--seed N] [--jobs 2]

HOME_DIR (made if missing, and must not hold the stores already) gets:
- ~/.claude/projects/<project>/<uuid>.jsonl, a sixth of them with 1-3 subagent
  transcripts in <uuid>/subagents/agent-<id>.jsonl;
- ~/.codex/sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<uuid>.jsonl;
- ~/.gemini/tmp/<project>/chats/session-YYYY-MM-DDThh-mm-<id8>.jsonl;
- ~/.copilot/session-state/<uuid>/events.jsonl.
About 55% of the sessions are Claude Code's, 30% Codex's, 8% Gemini CLI's and 7% Copilot
CLI's, spread over 40 projects. Sizes are log-normal (most sessions some hundred KB, a few
tens of MB, none above 200 MB), scaled so that all files together hold GIGABYTES (10^9
bytes). Every file's mtime is between 2 and 120 days old, so no session is live. The same
seed lays out the same home."""
import argparse, datetime, importlib.util, json, math, os, random, sys, uuid
from multiprocessing import Pool

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# shared/fixtures in the nearest directory above the checkout that has one (as the tests
# find it); CTXCTL_FIXTURES overrides.
FIXTURES = os.environ.get("CTXCTL_FIXTURES") or next(
    (os.path.join(d, "shared", "fixtures") for d in (ROOT, *(os.path.dirname(ROOT),
     os.path.dirname(os.path.dirname(ROOT)), "/"))
     if os.path.isdir(os.path.join(d, "shared", "fixtures"))), os.path.join(ROOT, "..", "shared", "fixtures"))
_spec = importlib.util.spec_from_file_location("grow_agent", os.path.join(HERE, "grow-agent.py"))
grow_agent = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(grow_agent)

REAL = os.path.join(FIXTURES, "realclients")
SOURCES = {
    "claude": [os.path.join(REAL, p) for p in (
        "claude-code-2.1.332/session.jsonl", "claude-code-2.1.332/cc-self-compacted.jsonl",
        "claude-code-2.1.332/auto-compacted-twice.jsonl",
        "claude-code/realclient_v2.1.197_session.jsonl",
        "claude-code/realclient_v2.1.197_self_compacted.jsonl")],
    "subagent": [os.path.join(REAL, p) for p in (
        "claude-code-2.1.332/subagent-agent-ac586f91522ca1bec.jsonl",
        "claude-code/realclient_v2.1.197_subagent.jsonl")],
    "codex": [os.path.join(REAL, p) for p in (
        "codex-0.171.0/rollout-tasks-abc.jsonl", "codex-0.171.0/rollout-self-compacted.jsonl",
        "codex/realclient_v0.169_rollout_tasks.jsonl")],
    "gemini": [os.path.join(FIXTURES, "gemini-cli", p) for p in (
        "run-a/session-2026-11-23T20-14-f3111096.jsonl",
        "run-0-title-and-headless-compress/session-2026-11-23T20-13-3e7d6094.jsonl")],
    # Copilot CLI logs captured from the real program (tests/formats/copilot-cli/).
    "copilot": [os.path.join(ROOT, "tests", "formats", "copilot-cli", p) for p in (
        "input.jsonl", "compacted-by-copilot/input.jsonl")],
}
MIX = [("claude", 0.55), ("codex", 0.30), ("gemini", 0.08), ("copilot", 0.07)]
PROJECTS = 40
MAX_BYTES = 200_000_000
DAY = 86_400


def plan(n, total, rng):
    """(agent, bytes, age in seconds, subagent sizes) of each of `n` sessions holding
    `total` bytes together."""
    raw = [min(rng.lognormvariate(0, 1.6), 1e9) for _ in range(n)]
    scale = total / sum(raw)
    sizes = [min(max(int(r * scale), 20_000), MAX_BYTES) for r in raw]
    agents = rng.choices([a for a, _ in MIX], weights=[w for _, w in MIX], k=n)
    out = []
    for agent, size in zip(agents, sizes):
        subs = []
        if agent == "claude" and rng.random() < 1 / 6:
            subs = [max(4_000, int(size * rng.uniform(0.02, 0.15)))
                    for _ in range(rng.randint(1, 3))]
            size = max(4_000, size - sum(subs))
        out.append((agent, size, rng.randint(2 * DAY, 120 * DAY), subs))
    return out


def records_of(path):
    return [json.loads(l) for l in open(path, encoding="utf-8") if l.strip()]


_records = {}


def cached(path):
    if path not in _records:
        _records[path] = records_of(path)
    return _records[path]


def write(path, source, size, rng, texts, renamed, edit, mtime):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as out:
        written, _ = grow_agent.grow(cached(source), size, out, texts, renamed, edit)
    os.utime(path, (mtime, mtime))
    return written


def session_id(records, kind):
    """The id the source session names itself by, as the agent writes it."""
    first = records[0]
    if kind == "codex":
        return first["payload"]["id"]
    if kind == "copilot":
        return first["data"]["sessionId"]
    return first.get("sessionId") or next(r["sessionId"] for r in records if "sessionId" in r)


def cwd_edit(kind, cwd):
    """Sets the working directory each agent records to `cwd` (the session's project)."""
    def edit(r):
        if kind == "claude" and "cwd" in r:
            r["cwd"] = cwd
        elif kind == "codex" and r.get("type") in ("session_meta", "turn_context"):
            r["payload"]["cwd"] = cwd
        elif kind == "copilot" and r.get("type") == "session.start":
            r["data"]["context"]["cwd"] = cwd
    return edit


def lay_out(job):
    """Writes session `i` of the plan; returns the bytes written."""
    home, seed, i, (agent, size, age, subs), now = job
    rng = random.Random(seed * 1_000_003 + i)
    grow_agent.seeded(rng)
    texts = worker_texts(rng)
    mtime = now - age
    when = datetime.datetime.fromtimestamp(mtime, datetime.timezone.utc)
    project = rng.randrange(PROJECTS)
    cwd = f"/home/dev/project-{project:02d}"
    sid = str(uuid.uuid4())
    source = rng.choice(SOURCES[agent])
    renamed = {session_id(cached(source), agent): sid}
    edit = cwd_edit(agent, cwd)
    if agent == "claude":
        place = os.path.join(home, ".claude", "projects", cwd.replace("/", "-"))
        path = os.path.join(place, sid + ".jsonl")
    elif agent == "codex":
        path = os.path.join(home, ".codex", "sessions", when.strftime("%Y/%m/%d"),
                            f"rollout-{when.strftime('%Y-%m-%dT%H-%M-%S')}-{sid}.jsonl")
    elif agent == "gemini":
        path = os.path.join(home, ".gemini", "tmp", f"project-{project:02d}", "chats",
                            f"session-{when.strftime('%Y-%m-%dT%H-%M')}-{sid[:8]}.jsonl")
    else:
        path = os.path.join(home, ".copilot", "session-state", sid, "events.jsonl")
    written = write(path, source, size, rng, texts, renamed, edit, mtime)
    for k, sub in enumerate(subs):
        src = rng.choice(SOURCES["subagent"])
        sub_path = os.path.join(place, sid, "subagents", f"agent-a{uuid.uuid4().hex[:16]}.jsonl")
        written += write(sub_path, src, sub, rng, texts, {session_id(cached(src), "claude"): sid},
                         edit, mtime - k)
    return written


_texts = None


def worker_texts(rng):
    """One vocabulary per worker process (building it is the slow part), drawn from `rng`
    each time so that texts do not repeat across sessions."""
    global _texts
    if _texts is None:
        _texts = grow_agent.Texts(random.Random(0))
    _texts.rng = rng
    return _texts


def main():
    doc = __doc__.split("\n\n")
    p = argparse.ArgumentParser(prog="grow-home.py", description=doc[0],
                                epilog="\n\n".join(doc[1:]),
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("home")
    p.add_argument("--sessions", type=int, default=3000)
    p.add_argument("--gigabytes", type=float, default=3.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    a = p.parse_args()
    for store in (".claude", ".codex", ".gemini", ".copilot"):
        if os.path.exists(os.path.join(a.home, store)):
            sys.exit(f"grow-home.py: {a.home} already holds {store}; give an empty directory")
    rng = random.Random(a.seed)
    sessions = plan(a.sessions, a.gigabytes * 1e9, rng)
    now = int(datetime.datetime.now(datetime.timezone.utc).timestamp())
    jobs = [(a.home, a.seed, i, s, now) for i, s in enumerate(sessions)]
    # The largest first, so that the pool does not end waiting on one big file.
    jobs.sort(key=lambda j: -j[3][1])
    total = 0
    with Pool(a.jobs) as pool:
        for k, written in enumerate(pool.imap_unordered(lay_out, jobs), 1):
            total += written
            if k % 100 == 0 or k == len(jobs):
                print(f"\r{k}/{len(jobs)} sessions, {total / 1e9:.2f} GB", end="",
                      file=sys.stderr, flush=True)
    print(file=sys.stderr)
    counts = {a: sum(1 for s in sessions if s[0] == a) for a, _ in MIX}
    subs = sum(len(s[3]) for s in sessions)
    print(f"{a.home}: {len(sessions)} sessions ({', '.join(f'{n} {a}' for a, n in counts.items())};"
          f" {subs} subagent transcripts), {total} bytes, the largest {max(s[1] for s in sessions)}")


if __name__ == "__main__":
    main()
