#!/usr/bin/env python3
"""How close `check`'s next request comes to what the provider reported (issue #41).

For every session file in the fixture directories (by default the real users' sessions in
../shared/fixtures/wild, see its PROVENANCE.md), cut the file just before every request
whose usage the provider reported, give `ctxctl check --json` only the part before the cut,
and compare its `next_request_tokens` with the reported input:

  * Claude Code: input_tokens + cache_creation_input_tokens + cache_read_input_tokens of
    each assistant message (one per `message.id`; `<synthetic>` ones are no request);
  * Codex: `last_token_usage.input_tokens` of each `token_count` event (cached included);
  * Gemini CLI `.json` chats: `tokens.input` of each `gemini` message (cached included).

error = (predicted − reported) / reported. Each cut point is one of:

  * after-compaction: the first request after a Claude Code `compact_boundary` or a Codex
    `compacted` record;
  * later: an earlier reported usage exists in the prefix;
  * first: none does.

Gemini CLI masks old tool outputs in a batch once they pass its protected window and then
rewrites its chat file to match (`updateMessagesFromHistory`), so a cut of the final file
can hold masked text (`<tool_output_masked>`) where the file held, and the request sent,
the whole output. Later points whose turn shows such an output are kept in `later` and
also left out of one more column, `later, cut as the file was`, so that both figures show.

Prints, per agent and version, the median and p90 |error| of each kind, and per agent the
number of fixture files `check` cannot read. The whole file is checked too (unreadable =
exit status 2 or an `error` in the report). With --resume, also compares the prediction for
Claude Code 2.1.332's `session.jsonl` with ctxctl's count of the request that agent sent
when resuming it (`resume-request-baseline.json`: system, tools and messages).

Usage: scripts/bench-accuracy.py [--ctxctl PATH] [--jobs N] [--verbose] [--json OUT]
                                 [--resume DIR] [DIR ...]
"""

import argparse
import concurrent.futures
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# The shared directory sits beside the checkout (see the README).
SHARED = REPO.parent / "shared"
DEFAULT_DIRS = [str(SHARED / "fixtures" / "wild")]
DEFAULT_RESUME = str(SHARED / "fixtures" / "realclients" / "claude-code-2.1.332")


def records(lines):
    for i, line in enumerate(lines):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if isinstance(r, dict):
            yield i, r


# --- Claude Code -------------------------------------------------------------------------

def claude_cuts(lines):
    """(cut line, reported input, kind) per API response of a Claude Code transcript. The
    records of one response (one `message.id`) repeat its usage, and some builds (2.1.6x)
    write an input of 0 on the early ones: the response's input is the largest its records
    report, and the cut is at its first record."""
    main = None  # whether the file is a main session (its sidechain records are a subagent's)
    responses = {}  # message id -> [first line, input, kind]
    earlier = False
    compacted = False
    for i, r in records(lines):
        if main is None and "isSidechain" in r:
            main = not r["isSidechain"]
        if r.get("type") == "system" and r.get("subtype") == "compact_boundary":
            compacted = True
            continue
        if r.get("type") != "assistant":
            continue
        if main and r.get("isSidechain"):
            continue
        m = r.get("message") or {}
        u = m.get("usage")
        if not u or m.get("model") in (None, "<synthetic>"):
            continue
        mid = m.get("id") or r.get("uuid")
        prompt = sum(
            u.get(k) or 0
            for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
        )
        if mid in responses:
            responses[mid][1] = max(responses[mid][1], prompt)
            continue
        kind = "after-compaction" if compacted else ("later" if earlier else "first")
        compacted = False
        earlier = True
        responses[mid] = [i, prompt, kind]
    for i, prompt, kind in responses.values():
        yield i, prompt, kind


def claude_version(lines):
    for _, r in records(lines):
        if r.get("version"):
            return r["version"]
    return "-"


# --- Codex -------------------------------------------------------------------------------

RESPONSE_TYPES = {"reasoning", "function_call", "custom_tool_call", "web_search_call",
                  "local_shell_call", "tool_search_call", "image_generation_call"}


def codex_cuts(lines):
    """(cut line, reported input, kind) per response of a Codex rollout. Recent builds
    write a response's `token_count` after its items (the cut is at the first of them);
    0.58 writes it before them (the cut is at the report itself)."""
    first_response = None  # first response item since the last input item
    last_usage = None
    earlier = False
    compacted = False
    for i, r in records(lines):
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
            compacted = True
        elif r.get("type") == "event_msg" and p.get("type") == "token_count":
            u = ((p.get("info") or {}).get("last_token_usage")) or None
            if not u:
                continue
            key = json.dumps(u, sort_keys=True)
            if key == last_usage:
                continue
            last_usage = key
            kind = "after-compaction" if compacted else ("later" if earlier else "first")
            compacted = False
            earlier = True
            yield (i if first_response is None else first_response), u.get("input_tokens") or 0, kind
            first_response = None


def codex_version(lines):
    for _, r in records(lines):
        if r.get("type") == "session_meta":
            return (r.get("payload") or {}).get("cli_version") or "-"
    return "-"


# --- Gemini CLI .json chats --------------------------------------------------------------

MASKED = "<tool_output_masked>"


def gemini_cuts(doc):
    """(message index, reported input, kind) per `gemini` message of a `.json` chat: kind
    `later-masked` for a later point whose turn (the tool calls of the last reported
    message, and anything after it) holds an output masked since."""
    earlier = False
    masked = False
    for k, m in enumerate(doc.get("messages") or []):
        t = m.get("tokens") if isinstance(m, dict) else None
        if m.get("type") != "gemini" or not isinstance(t, dict) or not t.get("input"):
            masked = masked or MASKED in json.dumps(m)
            continue
        yield k, t["input"], ("first" if not earlier else "later-masked" if masked else "later")
        earlier = True
        # This message's own tool calls ran after its request: their outputs go with the next.
        masked = MASKED in json.dumps(m.get("toolCalls") or [])


# --- running ctxctl ----------------------------------------------------------------------

def run_check(ctxctl, path, env):
    out = subprocess.run([ctxctl, "check", "--json", "--no-config", str(path)],
                         capture_output=True, text=True, env=env)
    try:
        f = json.loads(out.stdout)["files"][0]
    except (ValueError, KeyError, IndexError):
        return None, out.stderr.strip() or f"exit {out.returncode}"
    if f.get("error") or out.returncode == 2:
        return None, f.get("error") or out.stderr.strip()
    return f, None


def cut_jobs(path, agent):
    """(name, text) of each prefix and its (reported, kind), for one fixture file."""
    if agent == "gemini-cli" and path.suffix == ".json":
        doc = json.loads(path.read_text())
        for k, reported, kind in gemini_cuts(doc):
            cut = dict(doc)
            cut["messages"] = doc["messages"][:k]
            yield f"{k}", json.dumps(cut, indent=2), reported, kind
        return
    lines = path.read_text().splitlines(keepends=True)
    cuts = claude_cuts(lines) if agent == "claude-code" else codex_cuts(lines)
    for i, reported, kind in cuts:
        if reported > 0 and i > 0:
            yield f"{i + 1}", "".join(lines[:i]), reported, kind


def version_of(path, agent):
    if agent == "claude-code":
        return claude_version(path.read_text().splitlines())
    if agent == "codex":
        return codex_version(path.read_text().splitlines())
    return "-"


def one_cut(ctxctl, env, work, name, text, slot):
    d = Path(work) / f"cut{slot}"  # one directory per cut: no cached count is reused
    d.mkdir()
    p = d / name  # the fixture's own file name: some formats are told by it
    p.write_text(text)
    f, err = run_check(ctxctl, p, env)
    p.unlink()
    d.rmdir()
    if f is None:
        return None, None, err
    return f["next_request_tokens"], f.get("next_request_source"), None


def pct(values, q):
    if not values:
        return None
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def fmt(v):
    return "—" if v is None else f"{v:.1%}"


def resume_check(ctxctl, env, work, d):
    """(predicted, counted) for Claude Code 2.1.332's resume: `check` on session.jsonl
    against ctxctl's count of the request body it sent."""
    d = Path(d)
    base = json.loads((d / "resume-request-baseline.json").read_text())
    body = Path(work) / "resume-body.json"
    body.write_text(json.dumps(base["body"]))
    f, err = run_check(ctxctl, d / "session.jsonl", env)
    g, err2 = run_check(ctxctl, body, env)
    if f is None or g is None:
        return None, None, err or err2
    return f["next_request_tokens"], g["next_request_tokens"], None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    default_bin = REPO / "target" / "release" / "ctxctl"
    if not default_bin.exists():
        default_bin = REPO / "target" / "debug" / "ctxctl"
    ap.add_argument("--ctxctl", default=str(default_bin))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--json", help="write every cut point's result to this file")
    ap.add_argument("--resume", default=DEFAULT_RESUME,
                    help="Claude Code 2.1.332 capture dir with resume-request-baseline.json")
    ap.add_argument("dirs", nargs="*", default=DEFAULT_DIRS)
    a = ap.parse_args()

    rows = []  # (agent, version, file, cut, reported, predicted, source, kind)
    unreadable = {}
    files = {}
    with tempfile.TemporaryDirectory() as work:
        env = {k: v for k, v in os.environ.items() if not k.startswith("CTXCTL_")}
        env["CTXCTL_CACHE_DIR"] = str(Path(work) / "cache")
        env["CTXCTL_DATA_DIR"] = str(Path(work) / "data")
        env["CTXCTL_CONFIG_DIR"] = str(Path(work) / "config")
        env["HOME"] = str(Path(work) / "home")
        jobs = []
        for d in a.dirs:
            for agent_dir in sorted(p for p in Path(d).iterdir() if p.is_dir()):
                agent = agent_dir.name
                for path in sorted(agent_dir.iterdir()):
                    if path.suffix not in (".jsonl", ".json", ".db"):
                        continue
                    files[agent] = files.get(agent, 0) + 1
                    _, err = run_check(a.ctxctl, path, env)
                    if err is not None:
                        unreadable.setdefault(agent, []).append((path.name, err))
                        continue
                    if path.suffix == ".db":
                        continue
                    version = version_of(path, agent)
                    for name, text, reported, kind in cut_jobs(path, agent):
                        jobs.append((agent, version, path.name, name, text, reported, kind))
        with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
            futures = [
                pool.submit(one_cut, a.ctxctl, env, work, j[2], j[4], n)
                for n, j in enumerate(jobs)
            ]
        results = [f.result() for f in futures]
        resume = resume_check(a.ctxctl, env, work, a.resume) if a.resume else None

    failed = 0
    for (agent, version, fname, cut, _, reported, kind), (pred, source, err) in zip(jobs, results):
        if pred is None:
            failed += 1
            if a.verbose:
                print(f"{fname}:{cut}: check failed: {err}")
            continue
        rows.append(dict(agent=agent, version=version, file=fname, cut=cut, reported=reported,
                         predicted=pred, source=source, kind=kind,
                         error=(pred - reported) / reported))
        if a.verbose:
            print(f"{fname}:{cut}: {kind}: reported {reported}, predicted {pred} ({source}), "
                  f"error {(pred - reported) / reported:+.1%}")

    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))

    # Column: the kinds it takes.
    kinds = (("later", "later-masked"), ("first",), ("after-compaction",), ("later",))
    print("| agent | version | later: n / median / p90 | first: n / median / p90 "
          "| after compaction: n / median / p90 | later, cut as the file was: n / median / p90 |")
    print("|---|---|---|---|---|---|")

    def line(agent, version, sel):
        cells = []
        for k in kinds:
            errs = [abs(r["error"]) for r in sel if r["kind"] in k]
            cells.append(f"{len(errs)} / {fmt(pct(errs, .5))} / {fmt(pct(errs, .9))}"
                         if errs else "—")
        print(f"| {agent} | {version} | " + " | ".join(cells) + " |")

    for agent in sorted(files):
        mine = [r for r in rows if r["agent"] == agent]
        for version in sorted({r["version"] for r in mine},
                              key=lambda v: [int(x) if x.isdigit() else 0
                                             for x in v.replace("-", ".").split(".")]):
            line(agent, version, [r for r in mine if r["version"] == version])
        if mine:
            line(f"**{agent}**", "all", mine)
    print()
    print("| agent | files | unreadable |")
    print("|---|---|---|")
    for agent in sorted(files):
        bad = unreadable.get(agent, [])
        print(f"| {agent} | {files[agent]} | {len(bad)} |")
        if a.verbose:
            for name, err in bad:
                print(f"    {name}: {err}")
    if failed:
        print(f"\n{failed} cut points could not be checked (run with --verbose)")
    if resume:
        pred, counted, err = resume
        if err:
            print(f"\nresume request: not checked: {err}")
        else:
            print(f"\nClaude Code 2.1.332 resume request: predicted {pred}, request counted "
                  f"{counted}, error {(pred - counted) / counted:+.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
