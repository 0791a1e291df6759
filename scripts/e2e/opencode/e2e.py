#!/usr/bin/env python3
"""End to end with the real OpenCode (run by ../opencode.sh inside a loopback-only network
namespace).

1. Records a multi-turn session with a tool call (`read` of a large notes file) against
   ../fake_openai_server.py on 127.0.0.1: three `opencode run` prompts, the last two resuming
   with --continue.
2. `ctxctl compact --session ID --in-place` is refused while the session looks live
   (nothing written); with --include-live it appends exactly two messages (OpenCode's
   compaction layout) and leaves every existing row as it was; `archive restore` deletes
   them again (the database's rows are the recorded ones).
3. `ctxctl compact --in-place` again, then `opencode run --session ID …`: the request the
   fake server logs starts from ctxctl's summary, lacks the removed middle's tool call and
   its result, and is smaller than before; `archive restore` now refuses (OpenCode wrote
   after the compaction) and changes nothing.

Prints PASS/FAIL per check; exit 0 when all passed, 1 otherwise.
"""
import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PORT = 18752
FAILED = []


def check(name, ok, detail):
    print(f"{'PASS' if ok else 'FAIL'}  {name}: {detail}", flush=True)
    if not ok:
        FAILED.append(name)


def rows(db):
    """Every message and part row, as stored."""
    c = sqlite3.connect(db)
    try:
        m = c.execute("SELECT id, session_id, time_created, time_updated, data FROM message ORDER BY id").fetchall()
        p = c.execute("SELECT id, message_id, session_id, time_created, time_updated, data FROM part ORDER BY id").fetchall()
        return m, p
    finally:
        c.close()


class Harness:
    def __init__(self, a):
        self.work = a.work
        self.opencode = a.opencode
        self.ctxctl_bin = a.ctxctl
        self.home = os.path.join(self.work, "home")
        self.proj = os.path.join(self.work, "proj")
        self.log = os.path.join(self.work, "requests.jsonl")
        self.db = os.path.join(self.home, ".local", "share", "opencode", "opencode.db")
        cfg = os.path.join(self.home, ".config", "opencode")
        os.makedirs(cfg, exist_ok=True)
        os.makedirs(self.proj, exist_ok=True)
        with open(os.path.join(cfg, "opencode.json"), "w") as f:
            json.dump({"$schema": "https://opencode.ai/config.json", "autoupdate": False, "share": "disabled",
                       "model": "fake/fake-model", "small_model": "fake/fake-model",
                       # `opencode run` rejects what would need asking; the scratch dir is
                       # outside any project.
                       "permission": {"read": "allow", "external_directory": "allow"},
                       "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "Fake local",
                                             "options": {"baseURL": f"http://127.0.0.1:{PORT}/v1",
                                                         "apiKey": "fake-key"},
                                             "models": {"fake-model": {"name": "Fake model", "tool_call": True,
                                                                       "limit": {"context": 200000,
                                                                                 "output": 1000}}}}}}, f)
        lines = ["Release: planned for Friday.", "TODO: changelog needs a migration note for the renamed config key."]
        lines += [f"Line {i}: background on the release process, item {i} of the checklist." for i in range(300)]
        self.notes = os.path.join(self.proj, "notes.txt")
        with open(self.notes, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.server = subprocess.Popen([sys.executable, os.path.join(HERE, "..", "fake_openai_server.py"), str(PORT),
                                        self.log], stderr=subprocess.DEVNULL)
        time.sleep(1)

    def close(self):
        self.server.terminate()
        self.server.wait()

    def env(self):
        e = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "OPENCODE"))}
        e.update(HOME=self.home, OPENCODE_DISABLE_AUTOUPDATE="1", OPENCODE_DISABLE_MODELS_FETCH="1",
                 OPENCODE_DISABLE_LSP_DOWNLOAD="1", OPENCODE_DISABLE_DEFAULT_PLUGINS="1",
                 CTXCTL_DATA_DIR=os.path.join(self.work, "ctxctl-data"), NO_COLOR="1")
        return e

    def run(self, *args):
        r = subprocess.run([self.opencode, "run", "--pure", *args], cwd=self.proj, env=self.env(),
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            print(f"opencode run {' '.join(args)} -> {r.returncode}\n{r.stderr[-2000:]}", flush=True)
        return r

    def ctxctl(self, *args):
        return subprocess.run([self.ctxctl_bin, *args], cwd=self.proj, env=self.env(),
                              capture_output=True, text=True, timeout=120)

    def requests(self):
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return [json.loads(l) for l in f if l.strip()]

    def conversation_requests(self):
        """The requests that carry the conversation (the ones offering tools)."""
        return [r["body"] for r in self.requests() if r.get("method") == "POST" and r.get("body", {}).get("tools")]


def text_of(m):
    c = m.get("content")
    if isinstance(c, list):
        return "\n".join(p.get("text", "") for p in c if isinstance(p, dict))
    return c or ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ctxctl", required=True)
    ap.add_argument("--opencode", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    h = Harness(a)
    try:
        steps(h)
    finally:
        h.close()
    if FAILED:
        print(f"opencode e2e: {len(FAILED)} check(s) failed: {', '.join(FAILED)}")
        return 1
    print("opencode e2e: all checks passed")
    return 0


def steps(h):
    r1 = h.run(f"What does {h.notes} say? ALPHA-PROMPT")
    r2 = h.run("--continue", "Thanks. Where should the migration note go? BRAVO-PROMPT")
    r3 = h.run("--continue", "Good. Anything else left? CHARLIE-PROMPT")
    recorded = all(r.returncode == 0 for r in (r1, r2, r3)) and os.path.exists(h.db)
    check("record", recorded, f"3 opencode runs, database {h.db}")
    if not recorded:
        return
    c = sqlite3.connect(h.db)
    sid = c.execute("SELECT id FROM session WHERE parent_id IS NULL ORDER BY time_updated DESC").fetchone()[0]
    c.close()
    before_reqs = h.conversation_requests()
    tool_calls = [m for m in before_reqs[-1]["messages"] if m.get("role") == "tool"]
    check("record.tool", len(tool_calls) >= 1, f"the last recorded request carries {len(tool_calls)} tool result(s)")
    original = rows(h.db)
    count = h.ctxctl("count", h.db, "--session", sid, "--tokenizer", "approx")
    check("count", count.returncode == 0 and "opencode" in count.stdout, count.stdout.strip().splitlines()[0] if count.stdout else count.stderr.strip())

    compact = ["compact", h.db, "--session", sid, "--in-place", "--summarizer", "offline", "--tokenizer", "approx",
               "--max-tokens", "3000"]
    live = h.ctxctl(*compact)
    check("live.refused", live.returncode == 2 and "--include-live" in live.stderr and rows(h.db) == original,
          f"exit {live.returncode}: {live.stderr.strip()[-200:]}")

    first = h.ctxctl(*compact, "--include-live")
    after = rows(h.db)
    added = [m for m in after[0] if m not in original[0]]
    kept = all(m in after[0] for m in original[0]) and all(p in after[1] for p in original[1])
    check("compact.appends", first.returncode == 0 and len(added) == 2 and kept,
          f"exit {first.returncode}, {len(added)} message rows added, existing rows kept: {kept}; {first.stderr.strip()[-300:]}")
    if first.returncode != 0:
        return
    ids = sorted(m[0] for m in original[0])
    check("compact.ids", all(m[0] > ids[-1] and m[0].startswith("msg_") for m in added),
          f"added ids {[m[0] for m in added]} sort after {ids[-1]}")

    listing = h.ctxctl("archive", "list")
    name = f"opencode-{sid}"
    restore = h.ctxctl("archive", "restore", f"{name}/1", h.db, "--include-live")
    check("restore", restore.returncode == 0 and rows(h.db) == original,
          f"exit {restore.returncode}, rows as recorded: {rows(h.db) == original}; {restore.stderr.strip()[-300:]} {listing.stdout[-200:]}")

    second = h.ctxctl(*compact, "--include-live")
    check("compact.again", second.returncode == 0, f"exit {second.returncode}: {second.stderr.strip()[-300:]}")
    if second.returncode != 0:
        return
    n_before = len(h.conversation_requests())
    r4 = h.run("--session", sid, "DELTA-PROMPT: one more thing?")
    reqs = h.conversation_requests()
    check("resume", r4.returncode == 0 and len(reqs) > n_before, f"opencode run --session {sid}: exit {r4.returncode}")
    if len(reqs) <= n_before:
        return
    sent = reqs[n_before]["messages"]
    texts = [text_of(m) for m in sent]
    summary_at = next((i for i, t in enumerate(texts) if "[ctxctl compaction" in t), None)
    check("resume.summary", summary_at is not None and any("What did we do so far?" in t for t in texts[:summary_at]),
          f"ctxctl's summary at message {summary_at} of {len(sent)}, after OpenCode's compaction prompt")
    middle_calls = [m for m in sent if m.get("role") == "tool" or m.get("tool_calls")]
    check("resume.no-middle", not middle_calls and not any(t.strip().strip('"').startswith("What does") for t in texts),
          f"{len(middle_calls)} tool call/result message(s), first prompt as a message: "
          f"{any(t.strip().strip(chr(34)).startswith('What does') for t in texts)}")
    check("resume.delta", "DELTA-PROMPT" in texts[-1], "the new prompt is the last message")
    size_before = len(json.dumps(before_reqs[-1]["messages"]))
    size_after = len(json.dumps(sent))
    check("resume.smaller", size_after < size_before, f"{size_before} → {size_after} bytes of messages")

    snapshot = rows(h.db)
    late = h.ctxctl("archive", "restore", f"{name}/2", h.db, "--include-live")
    check("restore.refused", late.returncode != 0 and rows(h.db) == snapshot and "after" in late.stderr,
          f"exit {late.returncode}: {late.stderr.strip()[-300:]}")


if __name__ == "__main__":
    sys.exit(main())
