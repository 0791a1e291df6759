#!/usr/bin/env python3
"""What a first request's prediction would be if it learned the hidden part from the same
project's earlier session (docs/ACCURACY.md, sixteenth session).

usage: first-from-sibling.py POINTS.json [--wild DIR]

POINTS.json is `scripts/bench-accuracy.py --json` output. For each `first` point, an
earlier sibling is another fixture of the same agent and repository whose records share a
`cwd` with the point's and whose first record is older; the prediction is moved by the
nearest such sibling's first-point error in tokens (its report less its prediction: the
set-up its prior missed). Prints, per agent, median and p90 of |error| without and with."""
import argparse, glob, json, os, statistics

HERE = os.path.dirname(os.path.abspath(__file__))


def meta(path):
    cwds, first = set(), None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if not isinstance(r, dict):
                continue
            p = r.get("payload") if isinstance(r.get("payload"), dict) else {}
            c = r.get("cwd") or p.get("cwd")
            if isinstance(c, str):
                cwds.add(c)
            t = r.get("timestamp")
            if isinstance(t, str) and (first is None or t < first):
                first = t
    agent, name = path.split(os.sep)[-2:]
    repo = "__".join(name.split("__")[:2])
    return agent, repo, frozenset(cwds), first or ""


def quantile(v, q):
    v = sorted(v)
    k = q * (len(v) - 1)
    i = int(k)
    j = min(i + 1, len(v) - 1)
    return v[i] + (v[j] - v[i]) * (k - i)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("points")
    ap.add_argument("--wild", default=os.path.join(HERE, "..", "..", "shared", "fixtures", "wild"))
    a = ap.parse_args()
    info = {os.path.basename(f): meta(f) for f in glob.glob(os.path.join(a.wild, "*", "*.jsonl"))}
    firsts = [p for p in json.load(open(a.points)) if p["kind"] == "first" and p["file"] in info]
    rows = {}
    for p in firsts:
        ag, repo, cwds, t = info[p["file"]]
        sibs = [q for q in firsts if q is not p and info[q["file"]][:2] == (ag, repo)
                and info[q["file"]][2] & cwds and info[q["file"]][3] < t]
        moved = p["predicted"]
        if sibs:
            s = max(sibs, key=lambda q: info[q["file"]][3])
            moved += s["reported"] - s["predicted"]
        rows.setdefault(p["agent"], []).append(
            (abs(p["error"]), abs(moved - p["reported"]) / p["reported"], bool(sibs)))
    for agent, v in sorted(rows.items()):
        now, moved = [r[0] for r in v], [r[1] for r in v]
        print(f"{agent}: {len(v)} first points, {sum(r[2] for r in v)} with an earlier sibling; "
              f"now {100 * statistics.median(now):.1f}% / {100 * quantile(now, .9):.1f}%, "
              f"with the sibling's hidden part {100 * statistics.median(moved):.1f}% / "
              f"{100 * quantile(moved, .9):.1f}%")


if __name__ == "__main__":
    main()
