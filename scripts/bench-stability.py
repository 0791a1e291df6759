#!/usr/bin/env python3
"""Whether the next request is the same figure before and after every rewrite (issue #41).

For every session file in the fixture directories (by default the real users' sessions in
shared/fixtures/wild and the real agents' captures in shared/fixtures/realclients, see
PROVENANCE.md), on a copy in a temporary HOME:

  1. `check --json` gives the next request before;
  2. each rewrite below runs with `--json`, once `--in-place` and once `-o OUT`, and
     reports its own next request;
  3. `check --json` on what it wrote gives the next request after.

A rewrite *agrees* when the figure it reported is within 1% of the next check's, and
*grows* the session when that check says more than the one before it. Both properties are
what issue #41 asks of every rewrite; tests/cli/stable_next.rs holds them on eight of these
sessions, this script on all of them.

Rewrites: every `trim` strategy with options that make it remove or shorten something, and
`compact --tail-tokens 300`. A rewrite that leaves nothing to do (exit 0 and no
next request, or a compaction that declines) is counted as "nothing to do"; a format
ctxctl reads but does not rewrite (Gemini CLI's `.json` chats) as "read-only format".

Usage: scripts/bench-stability.py [--ctxctl PATH] [--jobs N] [--verbose] [DIR ...]
"""

import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
DEFAULT_DIRS = [SHARED / "fixtures" / "wild", SHARED / "fixtures" / "realclients"]

REWRITES = [
    ("fifo", ["trim", "--strategy", "fifo"]),
    ("sliding-window", ["trim", "--strategy", "sliding-window", "--window", "4"]),
    ("smart", ["trim", "--strategy", "smart", "--keep-first", "1", "--keep-last", "4"]),
    ("selective", ["trim", "--strategy", "selective", "--keep-roles", "user"]),
    ("tool-results", ["trim", "--strategy", "tool-results", "--max-result-tokens", "40"]),
    ("mask-tool-results", ["trim", "--strategy", "mask-tool-results", "--keep-recent", "1"]),
    ("composite", ["trim", "--strategy", "composite", "--chain", "mask-tool-results,smart,fifo"]),
    ("compact", ["compact", "--tail-tokens", "300"]),
]


def sessions(dirs):
    for d in dirs:
        for p in sorted(Path(d).rglob("*")):
            names_a_session = "baseline" not in p.name and not p.name.endswith(".meta.json")
            if p.is_file() and p.suffix in (".jsonl", ".json") and names_a_session:
                yield p


def run(ctxctl, env, args):
    r = subprocess.run([ctxctl, *args, "--json"], env=env, capture_output=True, text=True)
    try:
        doc = json.loads(r.stdout) if r.stdout.strip() else None
    except ValueError:
        doc = None
    return r.returncode, doc, r.stderr.strip()


def next_request(doc):
    """The next request of a `check --json` or rewrite report (one file's object)."""
    if not isinstance(doc, dict):
        return None
    if "files" in doc and doc["files"]:
        doc = doc["files"][0]
    return doc.get("next_request_tokens")


def one(ctxctl, path):
    """Every rewrite of `path`: a list of (rewrite, mode, outcome, before, reported, after)."""
    out = []
    with tempfile.TemporaryDirectory(prefix="ctxctl-stability-") as tmp:
        tmp = Path(tmp)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(tmp / "home"),
            "XDG_CONFIG_HOME": str(tmp / "config"),
            "XDG_CACHE_HOME": str(tmp / "cache"),
            "XDG_DATA_HOME": str(tmp / "data"),
            "XDG_STATE_HOME": str(tmp / "state"),
            "NO_COLOR": "1",
        }
        copy = tmp / ("s" + path.suffix)
        for name, args in REWRITES:
            for mode in ("in-place", "output"):
                shutil.copyfile(path, copy)
                code, doc, err = run(ctxctl, env, ["check", str(copy)])
                before = next_request(doc)
                if code not in (0, 1) or before is None:
                    out.append((name, mode, "unreadable", None, None, None, err))
                    break
                target = copy if mode == "in-place" else tmp / ("out" + path.suffix)
                where = ["--in-place"] if mode == "in-place" else ["-o", str(target)]
                code, doc, err = run(ctxctl, env, [*args, str(copy), *where])
                reported = next_request(doc)
                if code != 0 or reported is None or not target.exists():
                    outcome = "nothing to do" if code == 0 else f"exit {code}"
                    if "is read, not rewritten" in err:
                        # A format ctxctl reads but does not write (Gemini CLI .json chats).
                        outcome = "read-only format"
                    out.append((name, mode, outcome, before, None, None, err))
                    continue
                code, doc, err = run(ctxctl, env, ["check", str(target)])
                after = next_request(doc)
                if after is None:
                    out.append((name, mode, "unreadable after", before, reported, None, err))
                    continue
                agree = abs(after - reported) <= 0.01 * reported
                grew = after > before
                outcome = ("agrees" if agree else "disagrees") + (", grew" if grew else "")
                out.append((name, mode, outcome, before, reported, after, ""))
                if mode == "output":
                    target.unlink()
    return path, out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ctxctl", default=str(REPO / "target" / "release" / "ctxctl"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("dirs", nargs="*", default=DEFAULT_DIRS)
    a = ap.parse_args()
    files = list(sessions(a.dirs))
    if not files:
        sys.exit(f"no session files under {', '.join(map(str, a.dirs))}")
    totals = {}
    bad = []
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        for path, rows in pool.map(lambda p: one(a.ctxctl, p), files):
            for name, mode, outcome, before, reported, after, err in rows:
                key = outcome.split(",")[0]
                totals[key] = totals.get(key, 0) + 1
                if "grew" in outcome:
                    totals["grew"] = totals.get("grew", 0) + 1
                line = f"{path.name} {name} {mode}: {outcome} (before {before}, reported {reported}, after {after})"
                if outcome not in ("agrees", "nothing to do", "read-only format"):
                    bad.append(line + (f": {err.splitlines()[-1]}" if err else ""))
                elif a.verbose:
                    print(line)
    rewrites = sum(v for k, v in totals.items() if k != "grew")
    print(f"{len(files)} sessions, {rewrites} rewrites:")
    for k in ("agrees", "disagrees", "nothing to do", "read-only format", "unreadable",
              "unreadable after"):
        if totals.get(k):
            print(f"  {k}: {totals[k]}")
    for k, v in sorted(totals.items()):
        if k.startswith("exit"):
            print(f"  {k}: {v}")
    print(f"  check said more after than before: {totals.get('grew', 0)}")
    for line in bad:
        print("  " + line)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
