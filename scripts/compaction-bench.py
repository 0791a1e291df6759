#!/usr/bin/env python3
"""Issue #45's benchmark: ctxctl's offline summary against Claude Code's own compactions.

Finds every Claude Code compaction (a `compact_boundary` record followed by the
`isCompactSummary` message) in the transcripts under shared/fixtures/ (wild/ and
realclients/ by default), rebuilds the segment it summarised (the live thread back from the
boundary's logical parent to the previous boundary, that boundary and its summary
included), writes the segment as a session file of its own and has ctxctl summarise it
offline at the default cap (`examples/segment_summary.rs`) and at the length of Claude's
summary. Then it extracts the segment's facts by script, no judgement:

- user requests: the first 60 characters of every real request (no tool results, no
  injected context, slash-command templates or background-task notifications);
- file paths the tools were given; commands (first line, 60 characters); error key lines
  (a failed tool result's first line naming an error, 60 characters; a user's refusal or
  interruption is no error); the current task (the last real request);

and scores each summary's recall (an item counts when its text appears in the summary,
whitespace collapsed; a path also when it appears relative to the session's directory),
which sections each summary has where the segment holds them (decisions and corrections:
a request redirecting the work; errors with resolution: a failed tool result; pending work:
a todo tool or an error;
next step: the assistant's last words state one) and re-compaction: Claude's summary followed by the thread that went on
from it (up to the next boundary) is summarised by ctxctl, and the share of that summary's
paths and `code` spans that survive is reported.

Prints a Markdown table (figures only: no transcript content). Exits 1 when ctxctl's
recall at the default cap is below Claude's on a row, a section is missing where the
segment holds it, re-compaction keeps less than half or a summary differs on rerun.

Usage: scripts/compaction-bench.py [--shared DIR] [--bin PATH] [--verbose] [FILE...]
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# Segments smaller than this (characters of message text) are too small to compare.
MIN_SEGMENT = 4000

CORRECTION = re.compile(
    r"^\s*(no\b|nope\b|don'?t\b|do not\b|stop\b|wait\b|actually\b|instead\b)"
    r"|\binstead\b|\bdon'?t\b|\bdo not\b|\brather than\b|\bnot what i\b",
    re.I,
)
NOISE_PREFIXES = (
    "<",
    "[Request interrupted",
    "Caveat:",
    "This session is being continued",
)
REFUSALS = (
    "The user doesn't want to proceed",
    "[Request interrupted",
    "User rejected",
    "The user has interrupted",
)
PATH_KEYS = ("file_path", "path", "notebook_path")
SECTION_PATTERNS = {
    "decisions": re.compile(r"decision|correction|problem solving|user feedback", re.I),
    "errors": re.compile(r"error", re.I),
    "pending": re.compile(r"pending|open todo", re.I),
    "next": re.compile(r"next step", re.I),
}
RESOLUTION = re.compile(r"resolved|fix", re.I)
# The assistant stating what comes next, and reporting the work done.
NEXT = re.compile(
    r"(?:^|[.!?]\s)\W*next(?: steps?)?\W*:|\bnext,? (?:i|we)(?:'ll| will)\b"
    r"|\b(?:i|we)(?:'ll| will) (?:now|next|then)\b|\bthen (?:i|we)(?:'ll| will)\b"
    r"|\bnext steps? (?:is|are|would be)\b|\blet me\b|\bremaining\b",
    re.I | re.M,
)



def norm(text):
    return " ".join(text.split())


def records(path):
    out = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return out


def parts(rec):
    msg = rec.get("message") or {}
    content = msg.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [p for p in content or [] if isinstance(p, dict)]


def text_of(content):
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"
        )
    return ""


def segments(recs):
    """(boundary index, summary record, segment records oldest first) per compaction."""
    by_uuid = {r["uuid"]: r for r in recs if r.get("uuid")}
    out = []
    for i, r in enumerate(recs):
        if r.get("type") != "system" or r.get("subtype") != "compact_boundary":
            continue
        summary = next(
            (
                s
                for s in recs[i + 1 :]
                if s.get("isCompactSummary") and s.get("sessionId") == r.get("sessionId")
            ),
            None,
        )
        if summary is None:
            continue
        chain, seen = [], set()
        cur = by_uuid.get(r.get("logicalParentUuid"))
        while cur is not None and cur["uuid"] not in seen:
            seen.add(cur["uuid"])
            chain.append(cur)
            if cur.get("subtype") == "compact_boundary":
                break
            cur = by_uuid.get(cur.get("parentUuid"))
        chain.reverse()
        out.append((i, summary, chain))
    return out


def continuation(recs, idx):
    """The boundary at `idx`, its summary and the records after them up to the next
    boundary: the segment a compaction after this one would summarise."""
    b = recs[idx]
    out = [b]
    for r in recs[idx + 1 :]:
        if r.get("sessionId") != b.get("sessionId") or r.get("isSidechain") != b.get("isSidechain"):
            continue
        if r.get("subtype") == "compact_boundary":
            break
        out.append(r)
    return out


def is_request(rec):
    if rec.get("type") != "user" or rec.get("isMeta") or rec.get("isCompactSummary"):
        return None
    ps = parts(rec)
    if any(p.get("type") == "tool_result" for p in ps):
        return None
    text = "\n".join(p.get("text", "") for p in ps if p.get("type") == "text")
    text = re.sub(r"<system-reminder>.*?</system-reminder>", "", text, flags=re.S).strip()
    if not text or text.startswith(NOISE_PREFIXES):
        return None
    return text


def error_line(text):
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return None
    for line in lines:
        if re.search(r"error|exception|failed|fatal|denied|not found", line, re.I):
            return line[:60]
    return lines[0][:60]


def facts(chain):
    """The segment's facts, the earlier summary at its start, and what the segment holds."""
    f = {"requests": [], "paths": [], "commands": [], "errors": [], "current": []}
    earlier, cwd, corrections, todo, last_said = None, "", 0, False, ""
    # The user message right after a slash command, before any reply, is its template.
    after_command = False
    for rec in chain:
        cwd = rec.get("cwd") or cwd
        if rec.get("isCompactSummary"):
            earlier = text_of((rec.get("message") or {}).get("content"))
            continue
        req = is_request(rec)
        if rec.get("type") == "assistant":
            after_command = False
            said = "\n".join(p.get("text", "") for p in parts(rec) if p.get("type") == "text")
            last_said = said.strip() or last_said
        elif rec.get("type") == "user" and not any(p.get("type") == "tool_result" for p in parts(rec)):
            command = "<command-name>" in text_of((rec.get("message") or {}).get("content"))
            if after_command:
                req = None
            after_command = command
        if req is not None:
            f["requests"].append(norm(req)[:60])
            corrections += bool(CORRECTION.search(req))
        for p in parts(rec):
            if p.get("type") == "tool_use":
                inp = p.get("input") or {}
                todo |= p.get("name") in ("TodoWrite", "TaskCreate", "TaskUpdate")
                for k in PATH_KEYS:
                    v = inp.get(k)
                    if isinstance(v, str) and v.strip() and v not in f["paths"]:
                        f["paths"].append(v)
                cmd = inp.get("command")
                if p.get("name") == "Bash" and isinstance(cmd, str) and cmd.strip():
                    key = norm(cmd.strip().splitlines()[0])[:60]
                    if key not in f["commands"]:
                        f["commands"].append(key)
            elif p.get("type") == "tool_result" and p.get("is_error"):
                body = text_of(p.get("content"))
                if body.strip().startswith(REFUSALS):
                    continue
                line = error_line(body)
                if line and norm(line) not in f["errors"]:
                    f["errors"].append(norm(line))
    f["requests"] = list(dict.fromkeys(f["requests"]))
    if f["requests"]:
        f["current"] = [f["requests"][-1]]
    holds = {
        "decisions": corrections > 0,
        "errors": bool(f["errors"]),
        # Pending work: a todo list or errors (open or not, the summary says which).
        "pending": todo or bool(f["errors"]),
        # A next step: the assistant's last words state one.
        "next": bool(NEXT.search(last_said)),
    }
    return f, earlier, cwd, holds


def recalled(item, summary, cwd):
    if norm(item) in summary:
        return True
    if cwd and item.startswith(cwd):
        rel = item[len(cwd) :].lstrip("/\\")
        return bool(rel) and norm(rel) in summary
    return False


def score(f, summary, cwd):
    s = norm(summary)
    return {k: (sum(recalled(i, s, cwd) for i in v), len(v)) for k, v in f.items()}


def sections(summary):
    heads = [
        line
        for line in summary.splitlines()
        if re.match(r"\s*(#+|\d+\.\s|\*\*|[A-Z][^.:]{2,60}:\s*$)", line)
    ]
    found = {k: any(p.search(h) for h in heads) for k, p in SECTION_PATTERNS.items()}
    found["errors"] = found["errors"] and bool(RESOLUTION.search(summary))
    return found


def earlier_items(text):
    paths = re.findall(r"(?:[\w.~-]*/)+[\w.-]+\.\w+|[A-Za-z]:\\[^\s`'\"]+", text)
    spans = re.findall(r"`([^`\n]{2,120})`", text)
    return list(dict.fromkeys(paths + spans))


def run(binary, session, cap=None, count=False):
    args = [binary, "--count", session] if count else [binary, session]
    if cap:
        args.append(str(cap))
    p = subprocess.run(args, capture_output=True, text=True, check=False)
    if p.returncode != 0:
        raise RuntimeError(f"{session}: {p.stderr.strip()}")
    if count:
        return int(p.stdout.strip())
    return p.stdout.rstrip("\n"), int(p.stderr.strip().splitlines()[-1])


def default_files(shared):
    out = []
    for sub in ("wild/claude-code", "realclients"):
        base = os.path.join(shared, "fixtures", sub)
        for d, _, names in sorted(os.walk(base)):
            out += [os.path.join(d, n) for n in sorted(names) if n.endswith(".jsonl")]
    return out


ROWS = [
    ("requests", "user requests (first 60 chars verbatim)"),
    ("paths", "file paths"),
    ("commands", "commands"),
    ("errors", "errors (key line)"),
    ("current", "current task"),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", default=os.path.join(os.path.dirname(ROOT), "shared"))
    ap.add_argument("--bin", default=os.path.join(ROOT, "target/debug/examples/segment_summary"))
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    files = a.files or default_files(a.shared)
    if a.bin.endswith("target/debug/examples/segment_summary"):
        subprocess.run(["cargo", "build", "--quiet", "--example", "segment_summary"], cwd=ROOT, check=True)
    rows, ok = [], True
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            recs = records(path)
            for n, (idx, summary_rec, chain) in enumerate(segments(recs)):
                size = sum(len(json.dumps((r.get("message") or {}).get("content", ""))) for r in chain)
                if size < MIN_SEGMENT:
                    continue
                seg = os.path.join(tmp, f"seg{len(rows)}.jsonl")
                with open(seg, "w", encoding="utf-8") as out:
                    for r in chain:
                        out.write(json.dumps(r) + "\n")
                claude = text_of((summary_rec.get("message") or {}).get("content"))
                ctext = os.path.join(tmp, f"claude{len(rows)}.txt")
                with open(ctext, "w", encoding="utf-8") as out:
                    out.write(claude)
                f, earlier, cwd, holds = facts(chain)
                ours, tokens = run(a.bin, seg)
                again, _ = run(a.bin, seg)
                claude_tokens = run(a.bin, ctext, count=True)
                long, long_tokens = run(a.bin, seg, cap=claude_tokens)
                row = {
                    "name": f"{os.path.basename(path)[:24]}#{n + 1}",
                    "claude": score(f, claude, cwd),
                    "ours": score(f, ours, cwd),
                    "long": score(f, long, cwd),
                    "tokens": (claude_tokens, tokens, long_tokens),
                    "holds": holds,
                    "sec_claude": sections(claude),
                    "sec_ours": sections(ours),
                    "same": again == ours,
                }
                # Compaction after compaction: ctxctl summarising the thread that went on
                # from Claude's summary keeps that summary's specific items.
                cont = continuation(recs, idx)
                seg2 = os.path.join(tmp, f"cont{len(rows)}.jsonl")
                with open(seg2, "w", encoding="utf-8") as out:
                    for r in cont:
                        out.write(json.dumps(r) + "\n")
                again2, _ = run(a.bin, seg2)
                items = earlier_items(claude)
                ns = norm(again2)
                row["recompact"] = (sum(norm(i) in ns for i in items), len(items))
                rows.append(row)
                if a.verbose:
                    print(f"{row['name']}: {row}", file=sys.stderr)
    ok = report(rows)
    return 0 if ok else 1


def mean(rows, who, key):
    vals = [r[who][key][0] / r[who][key][1] for r in rows if r[who][key][1]]
    return sum(vals) / len(vals) if vals else 1.0


def report(rows):
    ok = True
    print(f"{len(rows)} compactions with a segment of at least {MIN_SEGMENT} characters.\n")
    print("| recall of the segment's facts (mean per compaction) | Claude Code's summary "
          "| ctxctl offline (default cap) | ctxctl at Claude's length |")
    print("|---|---|---|---|")
    for key, label in ROWS:
        c, o, l = (mean(rows, w, key) for w in ("claude", "ours", "long"))
        ok &= o + 1e-9 >= c
        print(f"| {label} | {c:.2f} | {o:.2f} | {l:.2f} |")
    toks = [sum(r["tokens"][i] for r in rows) / max(len(rows), 1) for i in range(3)]
    print(f"| length (mean tokens) | {toks[0]:,.0f} | {toks[1]:,.0f} | {toks[2]:,.0f} |")
    print()
    print("| section present (compactions whose segment holds it) | Claude Code | ctxctl |")
    print("|---|---|---|")
    labels = {
        "decisions": "decisions and corrections",
        "errors": "errors with resolution",
        "pending": "pending work",
        "next": "next step",
    }
    for key, label in labels.items():
        held = [r for r in rows if r["holds"][key]]
        c = sum(r["sec_claude"][key] for r in held)
        o = sum(r["sec_ours"][key] for r in held)
        ok &= o == len(held)
        print(f"| {label} | {c}/{len(held)} | {o}/{len(held)} |")
    re_rows = [r for r in rows if "recompact" in r]
    if re_rows:
        print()
        print("| re-compaction: Claude's summary + the thread after it, summarised again; "
              "share of its paths and `code` spans kept | ctxctl |")
        print("|---|---|")
        for r in re_rows:
            hit, n = r["recompact"]
            share = hit / n if n else 1.0
            ok &= share >= 0.5
            print(f"| compaction {rows.index(r) + 1} ({n} items) | {share:.2f} |")
    same = all(r["same"] for r in rows)
    ok &= same
    print(f"\nByte-identical on rerun: {'yes' if same else 'NO'}.")
    return ok


if __name__ == "__main__":
    sys.exit(main())
