#!/usr/bin/env python3
"""How well ctxctl predicts an agent's next request (issue #16).

For every real transcript that records provider usage (Claude Code transcripts, Codex
rollouts), for each response k: cut the file just before response k, run
`ctxctl count --json` on the cut, and compare its `next_request_tokens` with the prompt the
provider reported for response k (input + cache reads + cache writes for Anthropic; input,
cached included, for OpenAI). Prints the median and p90 absolute error per agent, over all
turns and over the turns that follow an earlier report in the same live thread (the first
turn of a session, or the first after a compaction, has no report to learn the agent's
hidden part from: ctxctl adds its documented prior for the agent, see src/ops/prior.rs).

Usage: scripts/bench-predict.py [--ctxctl PATH] [--verbose] [FIXTURE_DIR ...]
(default fixture dirs: ../shared/fixtures/{claude-code,realclients/claude-code,codex}
relative to the repository, as laid out on the team machine).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DIRS = [
    "/work/shared/fixtures/claude-code",
    "/work/shared/fixtures/realclients/claude-code",
    "/work/shared/fixtures/codex",
]


def claude_turns(lines):
    """(cut line index, reported prompt) per API response of a Claude Code transcript."""
    seen = set()
    for i, line in enumerate(lines):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("type") != "assistant":
            continue
        m = r.get("message") or {}
        u = m.get("usage")
        if not u or m.get("model") in (None, "<synthetic>"):
            continue
        mid = m.get("id")
        if mid in seen:
            continue
        seen.add(mid)
        prompt = sum(
            u.get(k) or 0
            for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
        )
        yield i, prompt


RESPONSE_TYPES = {"reasoning", "function_call", "custom_tool_call", "web_search_call",
                  "local_shell_call", "tool_search_call", "image_generation_call"}


def codex_turns(lines):
    """(cut line index, reported prompt) per response of a Codex rollout. Recent builds
    write a response's `token_count` after its items (the cut is at the first of them);
    0.58 writes it before them (the cut is at the report itself)."""
    first_response = None  # first response item since the last input item
    last_usage = None
    for i, line in enumerate(lines):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        p = r.get("payload") or {}
        if r.get("type") == "response_item":
            t = p.get("type")
            if t in RESPONSE_TYPES or (t == "message" and p.get("role") == "assistant"):
                if first_response is None:
                    first_response = i
            elif t != "ghost_snapshot":
                first_response = None
        elif r.get("type") == "compacted":
            first_response = None
        elif r.get("type") == "event_msg" and p.get("type") == "token_count":
            u = ((p.get("info") or {}).get("last_token_usage")) or None
            if not u:
                continue
            key = json.dumps(u, sort_keys=True)
            if key == last_usage:
                continue
            last_usage = key
            yield (i if first_response is None else first_response), u.get("input_tokens") or 0
            first_response = None


def agent_of(text):
    for line in text.splitlines()[:50]:
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("type") in ("session_meta", "response_item", "turn_context", "event_msg"):
            return "codex"
        if r.get("type") in ("assistant", "user") and "sessionId" in r:
            return "claude-code"
    return None


def predict(ctxctl, text, workdir, env):
    cut = Path(workdir) / "cut.jsonl"
    cut.write_text(text)
    out = subprocess.run(
        [ctxctl, "count", "--json", "--no-config", str(cut)],
        capture_output=True, text=True, env=env,
    )
    if out.returncode != 0:
        return None, None
    f = json.loads(out.stdout)["files"][0]
    return f["next_request_tokens"], f["next_request_source"]


def pct(values, q):
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ctxctl", default=str(REPO / "target" / "release" / "ctxctl"))
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("dirs", nargs="*", default=DEFAULT_DIRS)
    a = ap.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as work:
        env = dict(os.environ)
        env["CTXCTL_CACHE_DIR"] = str(Path(work) / "cache")
        env["CTXCTL_DATA_DIR"] = str(Path(work) / "data")
        env.pop("CTXCTL_MODEL", None)
        for d in a.dirs:
            for path in sorted(Path(d).glob("*.jsonl")):
                text = path.read_text()
                agent = agent_of(text)
                # Not a coherent session (one line per record shape; see PROVENANCE.md).
                if agent is None or "schema_coverage" in path.name:
                    continue
                lines = text.splitlines(keepends=True)
                turns = claude_turns(lines) if agent == "claude-code" else codex_turns(lines)
                for cut, reported in turns:
                    if reported <= 0 or cut == 0:
                        continue
                    predicted, source = predict(a.ctxctl, "".join(lines[:cut]), work, env)
                    if predicted is None:
                        continue
                    err = abs(predicted - reported) / reported
                    learned = source in ("reported", "calibrated")
                    results.setdefault(agent, []).append((err, learned))
                    if a.verbose:
                        print(f"{path.name}:{cut + 1}: reported {reported}, predicted "
                              f"{predicted} ({source}), error {err:.1%}")
    print(f"{'agent':<12} {'turns':>5} {'median':>7} {'p90':>7}   "
          f"{'after a report':>14} {'median':>7} {'p90':>7}")
    for agent, rows in sorted(results.items()):
        every = [e for e, _ in rows]
        later = [e for e, learned in rows if learned]
        print(f"{agent:<12} {len(every):>5} {pct(every, .5):>7.1%} {pct(every, .9):>7.1%}   "
              f"{len(later):>14} {pct(later, .5):>7.1%} {pct(later, .9):>7.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
