#!/usr/bin/env python3
"""End to end with the real GitHub Copilot CLI (run by ../copilot.sh inside a loopback-only
network namespace).

1. Records a multi-turn session with `view` tool calls of a large notes file against
   ../fake_openai_server.py on 127.0.0.1 (COPILOT_OFFLINE=true, COPILOT_PROVIDER_BASE_URL):
   four `copilot -p` prompts, the later ones resuming with --continue.
2. ctxctl finds the session below ~/.copilot/session-state (`sessions`), counts it as
   copilot-cli and checks it.
3. `ctxctl compact --in-place`: every line it keeps is byte-identical and in order, one
   `user.message` line (the summary) is added; `archive restore` gives the original back
   byte for byte.
4. Compact again, then `copilot --resume=ID -p …`: the request the fake server logs is valid
   (every tool call answered right after it, no orphan result), smaller than the one the
   untouched session sent, without the removed middle's tool calls, and carries ctxctl's
   summary.
5. The same for `trim --strategy fifo --in-place` of the original: valid and smaller.

Prints PASS/FAIL per check; exit 0 when all passed, 1 otherwise.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PORT = 18761
FAILED = []


def check(name, ok, detail):
    print(f"{'PASS' if ok else 'FAIL'}  {name}: {detail}", flush=True)
    if not ok:
        FAILED.append(name)


def last(s):
    lines = [l for l in (s or "").strip().splitlines() if l.strip()]
    return lines[-1] if lines else ""


class Harness:
    def __init__(self, a):
        self.work = a.work
        self.copilot = a.copilot
        self.ctxctl_bin = a.ctxctl
        self.home = os.path.join(self.work, "home")
        self.proj = os.path.join(self.work, "proj")
        self.log = os.path.join(self.work, "requests.jsonl")
        os.makedirs(self.home, exist_ok=True)
        os.makedirs(self.proj, exist_ok=True)
        lines = ["Release: planned for Friday.", "TODO: changelog needs a migration note for the renamed config key."]
        lines += [f"Line {i}: background on the release process, item {i} of the checklist." for i in range(120)]
        self.notes = os.path.join(self.proj, "notes.txt")
        with open(self.notes, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.server = subprocess.Popen([sys.executable, os.path.join(HERE, "..", "fake_openai_server.py"), str(PORT),
                                        self.log, "view", "path"], stderr=subprocess.DEVNULL)
        time.sleep(1)

    def close(self):
        self.server.terminate()
        self.server.wait()

    def env(self):
        e = {k: v for k, v in os.environ.items()
             if not k.startswith(("XDG_", "COPILOT", "GH_", "GITHUB", "CTXCTL"))}
        e.update(HOME=self.home, XDG_CONFIG_HOME=os.path.join(self.home, ".config"),
                 XDG_STATE_HOME=os.path.join(self.home, ".local", "state"),
                 XDG_DATA_HOME=os.path.join(self.home, ".local", "share"),
                 XDG_CACHE_HOME=os.path.join(self.home, ".cache"),
                 COPILOT_OFFLINE="true", COPILOT_PROVIDER_TYPE="openai",
                 COPILOT_PROVIDER_BASE_URL=f"http://127.0.0.1:{PORT}/v1", COPILOT_PROVIDER_API_KEY="fake-key",
                 COPILOT_MODEL="gpt-4o", COPILOT_AUTO_UPDATE="false", NO_COLOR="1", LANG="C.UTF-8")
        return e

    def run(self, prompt, *resume):
        n = len(self.requests())
        r = subprocess.run([self.copilot, *resume, "-p", prompt, "--allow-all-tools", "-s"], cwd=self.proj,
                           env=self.env(), stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=180)
        reqs = [q["body"] for q in self.requests()[n:] if q.get("method") == "POST" and q.get("body", {}).get("tools")]
        if r.returncode != 0:
            print(f"copilot {' '.join(resume)} -p {prompt!r} -> {r.returncode}\n{r.stderr[-2000:]}", flush=True)
        return r.returncode, r.stdout + r.stderr, reqs

    def ctxctl(self, args):
        d = os.path.join(self.work, "ctxctl")
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": self.home,
               "XDG_DATA_HOME": os.path.join(d, "data"), "XDG_CACHE_HOME": os.path.join(d, "cache"),
               "XDG_CONFIG_HOME": os.path.join(d, "config"), "NO_COLOR": "1", "LANG": "C.UTF-8"}
        r = subprocess.run([self.ctxctl_bin] + args, capture_output=True, text=True, env=env, timeout=120)
        return r.returncode, r.stdout, r.stderr

    def requests(self):
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return [json.loads(l) for l in f if l.strip()]

    def session(self):
        files = glob.glob(os.path.join(self.home, ".copilot", "session-state", "*", "events.jsonl"))
        return files[0] if len(files) == 1 else None


def call_ids(body):
    out = set()
    for m in body.get("messages") or []:
        for c in m.get("tool_calls") or []:
            out.add(c.get("id"))
        if m.get("role") == "tool":
            out.add(m.get("tool_call_id"))
    return out


def valid(body):
    """Why the request breaks Chat Completions' rules, or None: every assistant tool call is
    answered by the tool messages right after it, and no tool message answers nothing."""
    msgs = body.get("messages") or []
    if not msgs or msgs[0].get("role") != "system":
        return "does not start with the system prompt"
    i = 0
    while i < len(msgs):
        m = msgs[i]
        if m.get("role") == "tool":
            return f"message {i}: a tool result that answers no call"
        want = {c.get("id") for c in m.get("tool_calls") or []}
        i += 1
        while want and i < len(msgs) and msgs[i].get("role") == "tool":
            want.discard(msgs[i].get("tool_call_id"))
            i += 1
        if want:
            return f"unanswered tool calls {sorted(want)}"
    return None


def size(body):
    return len(json.dumps(body.get("messages") or []))


def text_of(body):
    return json.dumps(body.get("messages") or [])


def newest_archive(h):
    rc, out, err = h.ctxctl(["archive", "ls", "--json"])
    try:
        return [a["id"] for a in json.loads(out)][-1]
    except (ValueError, IndexError, KeyError):
        return None


def subsequence(kept, orig):
    """Whether the lines `kept` appear in `orig` in the same order, byte for byte."""
    it = iter(orig)
    return all(any(k == o for o in it) for k in kept)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ctxctl", required=True)
    ap.add_argument("--copilot", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    h = Harness(a)
    try:
        prompts = [(f"Please read {h.notes} and tell me what it says.", []),
                   (f"Read {h.notes} again and list the TODO items.", ["--continue"]),
                   (f"Read {h.notes} one more time and check the release day.", ["--continue"]),
                   ("Thanks. Anything else left?", ["--continue"])]
        calls = []
        for k, (p, resume) in enumerate(prompts):
            rc, out, reqs = h.run(p, *resume)
            calls.append(set().union(*(call_ids(r) for r in reqs)) if reqs else set())
            check(f"record.turn{k + 1}", rc == 0 and bool(reqs), f"copilot -p exit {rc}, {len(reqs)} request(s)")
        s = h.session()
        check("record.session", s is not None, f"one events.jsonl: {s}")
        if s is None:
            return 1
        sid = os.path.basename(os.path.dirname(s))
        orig = open(s, "rb").read()
        # What the untouched session sends on resume (on a copy, so the session stays as recorded).
        rc, out, err = h.ctxctl(["sessions", "--json"])
        check("sessions", rc == 0 and s in out, f"ctxctl sessions lists {s}: exit {rc} {last(err)}")
        rc, out, err = h.ctxctl(["count", s, "--json"])
        f = (json.loads(out) if rc == 0 else {}).get("files", [{}])[0]
        check("count", rc == 0 and f.get("format") == "copilot-cli" and f.get("messages", 0) >= 12,
              f"ctxctl count: exit {rc}, format {f.get('format')}, {f.get('messages')} messages, "
              f"{f.get('tokens')} tokens {last(err)}")
        rc, out, err = h.ctxctl(["check", s])
        check("check", rc == 0, f"ctxctl check: exit {rc} {last(out)}")

        compact = ["compact", s, "--tail-tokens", "400", "--in-place"]
        rc, out, err = h.ctxctl(compact)
        now = open(s, "rb").read()
        new = [l for l in now.splitlines() if l not in orig.splitlines()]
        kept = [l for l in now.splitlines() if l in orig.splitlines()]
        check("compact.lines", rc == 0 and len(new) == 1 and b'"user.message"' in new[0]
              and subsequence(kept, orig.splitlines()) and len(now) < len(orig),
              f"exit {rc} {last(err)}; {len(new)} new line(s); kept lines byte-identical and in order: "
              f"{subsequence(kept, orig.splitlines())}; {len(orig)} -> {len(now)} bytes")
        aid = newest_archive(h)
        rc, out, err = h.ctxctl(["archive", "restore", aid or "none"])
        same = open(s, "rb").read() == orig
        check("compact.archive-restore", rc == 0 and same, f"archive restore {aid}: exit {rc} {last(err)}; "
              f"byte-identical: {same}")
        with open(s, "wb") as fh:
            fh.write(orig)

        # The baseline: the untouched session resumed.
        rc, out, base = h.run("What is the plan now?", f"--resume={sid}")
        check("baseline.resume", rc == 0 and bool(base), f"copilot --resume exit {rc}, {len(base)} request(s)")
        with open(s, "wb") as fh:
            fh.write(orig)
        rc, out, err = h.ctxctl(compact)
        check("compact.ctxctl", rc == 0, f"ctxctl compact: exit {rc} {last(err)} {last(out)}")
        rc, out, reqs = h.run("What is the plan now?", f"--resume={sid}")
        check("compact.resume", rc == 0 and bool(reqs), f"copilot --resume={sid} -p: exit {rc}, {len(reqs)} "
              f"request(s); {last(out)}")
        if reqs and base:
            first = reqs[0]
            why = valid(first)
            check("compact.valid", why is None, why or "every tool call answered, no orphan result")
            middle = calls[1]
            ids = call_ids(first)
            check("compact.middle-gone", not (ids & middle), f"middle call ids in the request: {sorted(ids & middle)}")
            check("compact.smaller", size(first) < size(base[0]),
                  f"request messages {size(first)} bytes, the untouched resume's {size(base[0])}")
            check("compact.summary-sent", "[ctxctl compaction" in text_of(first),
                  "the request carries ctxctl's summary")
        # Trim the original, resume: a valid request without the middle's calls.
        with open(s, "wb") as fh:
            fh.write(orig)
        rc, out, err = h.ctxctl(["trim", s, "--strategy", "fifo", "--max-tokens", "9000", "--in-place"])
        check("trim.ctxctl", rc == 0, f"ctxctl trim: exit {rc} {last(err)} {last(out)}")
        rc, out, reqs = h.run("What is the plan now?", f"--resume={sid}")
        check("trim.resume", rc == 0 and bool(reqs), f"copilot --resume after trim: exit {rc}, {len(reqs)} request(s)")
        if reqs and base:
            why = valid(reqs[0])
            check("trim.valid", why is None, why or "every tool call answered, no orphan result")
            check("trim.smaller", size(reqs[0]) < size(base[0]),
                  f"request messages {size(reqs[0])} bytes, the untouched resume's {size(base[0])}")
        rc, out, err = h.ctxctl(["count", s])
        check("count-after-resume", rc == 0, f"ctxctl count after Copilot wrote again: exit {rc} {last(out)}")
    finally:
        h.close()
    return 1 if FAILED else 0


if __name__ == "__main__":
    code = main()
    print(f"copilot e2e: {'all checks passed' if code == 0 else 'FAILED: ' + ', '.join(FAILED)}")
    sys.exit(code)
