#!/usr/bin/env python3
"""End to end with the real Gemini CLI (run by ../gemini-cli.sh inside a loopback-only
network namespace).

1. Records a multi-turn session with tool calls (read_file of a large notes file) against
   fake_gemini_server.py on 127.0.0.1: four `gemini -p` runs, the last three resuming.
2. `ctxctl compact --in-place`: exactly one line appended, every earlier byte kept;
   `archive restore` gives the original back byte for byte. The same for `trim --in-place`.
3. `ctxctl trim --in-place`, then `gemini --resume latest -p …`: the request lacks the
   trimmed middle's tool calls and is smaller than the untouched resume's.
4. `ctxctl compact --in-place`, then `gemini --resume latest -p …`: the request carries
   ctxctl's summary, not the middle's tool calls, and is smaller; `archive restore` now
   refuses (Gemini wrote since) and changes nothing.

Prints PASS/FAIL per check; exit 0 when all passed, 1 otherwise.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PORT = 18741
FAILED = []


def check(name, ok, detail):
    print(f"{'PASS' if ok else 'FAIL'}  {name}: {detail}", flush=True)
    if not ok:
        FAILED.append(name)


class Harness:
    def __init__(self, a):
        self.work = a.work
        self.gemini = a.gemini
        self.ctxctl_bin = a.ctxctl
        self.home = os.path.join(self.work, "home")
        self.proj = os.path.join(self.work, "proj")
        self.log = os.path.join(self.work, "requests.jsonl")
        os.makedirs(os.path.join(self.home, ".gemini"), exist_ok=True)
        os.makedirs(self.proj, exist_ok=True)
        with open(os.path.join(self.home, ".gemini", "settings.json"), "w") as f:
            json.dump({"general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
                       "privacy": {"usageStatisticsEnabled": False},
                       "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
                       "model": {"compressionThreshold": 0.5}}, f)
        lines = ["Release: planned for Friday.", "TODO: changelog needs a migration note for the renamed config key."]
        lines += [f"Line {i}: background on the release process, item {i} of the checklist." for i in range(300)]
        with open(os.path.join(self.proj, "notes.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")
        self.server = subprocess.Popen([sys.executable, os.path.join(HERE, "fake_gemini_server.py"), str(PORT),
                                        self.log], stderr=subprocess.DEVNULL)
        time.sleep(1)

    def close(self):
        self.server.terminate()
        self.server.wait(timeout=10)

    def gemini_run(self, prompt, resume=True):
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": self.home, "GEMINI_API_KEY": "fake-key",
               "GOOGLE_GEMINI_BASE_URL": f"http://127.0.0.1:{PORT}", "NO_BROWSER": "1", "CI": "1",
               "LANG": "C.UTF-8"}
        args = [self.gemini, "-m", "gemini-2.5-flash", "--yolo", "--skip-trust"]
        if resume:
            args += ["--resume", "latest"]
        n0 = self.log_len()
        r = subprocess.run(args + ["-p", prompt], cwd=self.proj, env=env, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=120)
        return r.returncode, r.stdout + r.stderr, self.streams_since(n0)

    def log_len(self):
        if not os.path.exists(self.log):
            return 0
        with open(self.log) as f:
            return sum(1 for _ in f)

    def streams_since(self, n0):
        """The streamGenerateContent requests logged after line n0."""
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            entries = [json.loads(l) for l in f.readlines()[n0:]]
        return [e for e in entries if ":streamGenerateContent" in e.get("path", "")]

    def session(self):
        """The session file: the largest in chats/ (resumes in a later minute leave stubs)."""
        files = glob.glob(os.path.join(self.home, ".gemini", "tmp", "*", "chats", "session-*.jsonl"))
        return max(files, key=os.path.getsize) if files else None

    def ctxctl(self, args):
        d = os.path.join(self.work, "ctxctl")
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": self.home,
               "XDG_DATA_HOME": os.path.join(d, "data"), "XDG_CACHE_HOME": os.path.join(d, "cache"),
               "XDG_CONFIG_HOME": os.path.join(d, "config"), "NO_COLOR": "1", "LANG": "C.UTF-8"}
        r = subprocess.run([self.ctxctl_bin] + args, capture_output=True, text=True, env=env, timeout=120)
        return r.returncode, r.stdout, r.stderr

    def ctxctl_json(self, args):
        rc, out, err = self.ctxctl(args + ["--json"])
        try:
            return rc, json.loads(out), err
        except ValueError:
            return rc, None, err


def call_ids(req):
    """Ids of the function calls and responses in a request's contents."""
    out = set()
    for c in req["body"].get("contents") or []:
        for p in c.get("parts") or []:
            for k in ("functionCall", "functionResponse"):
                if isinstance(p, dict) and k in p and p[k].get("id"):
                    out.add(p[k]["id"])
    return out


def size(req):
    return len(json.dumps(req["body"].get("contents") or []))


def text_of(req):
    return json.dumps(req["body"].get("contents") or [])


def last(s):
    lines = [l for l in (s or "").strip().splitlines() if l.strip()]
    return lines[-1] if lines else ""


def newest_archive(h):
    rc, out, err = h.ctxctl(["archive", "ls", "--json"])
    try:
        return [a["id"] for a in json.loads(out)][-1]
    except (ValueError, IndexError, KeyError):
        return None


def record(h):
    prompts = [("What does notes.txt say?", False),
               ("Please read notes.txt again and list the TODO items.", True),
               ("Read notes.txt one more time and check the release day.", True),
               ("Thanks. Anything else left?", True)]
    calls = []
    for k, (p, resume) in enumerate(prompts):
        rc, out, reqs = h.gemini_run(p, resume)
        ids = set().union(*(call_ids(r) for r in reqs)) if reqs else set()
        calls.append(ids)
        check(f"record.turn{k + 1}", rc == 0 and bool(reqs), f"gemini -p exit {rc}, {len(reqs)} request(s); {last(out)}")
    return calls, reqs[-1] if reqs else None


def undo_cases(h, s, orig):
    for name, args in [("compact", ["compact", s, "--tail-tokens", "200", "--in-place"]),
                       ("trim", ["trim", s, "--strategy", "fifo", "--max-tokens", "3000", "--in-place"])]:
        rc, out, err = h.ctxctl(args)
        now = open(s, "rb").read()
        added = now[len(orig):] if now.startswith(orig) else None
        nl = (added or b"").count(b"\n")
        check(f"{name}.append-only", rc == 0 and added is not None and nl == 1
              and added.startswith(b'{"$set":{"messages":'),
              f"exit {rc} {last(err)}; earlier bytes kept: {added is not None}; "
              f"appended {len(added or b'')} bytes in {nl} line(s)")
        aid = newest_archive(h)
        rc, out, err = h.ctxctl(["archive", "restore", aid or "none"])
        same = open(s, "rb").read() == orig
        check(f"{name}.archive-restore", rc == 0 and same, f"archive restore {aid}: exit {rc} {last(err)}; "
              f"byte-identical: {same}")
        if not same:
            with open(s, "wb") as f:
                f.write(orig)


def resumed(h, s, name, args, middle, baseline, prompt):
    rc, out, err = h.ctxctl(args)
    check(f"{name}.ctxctl", rc == 0, f"ctxctl {' '.join(args[:1])}: exit {rc} {last(err)}")
    rc, out, reqs = h.gemini_run(prompt)
    if not reqs:
        check(f"{name}.resume", False, f"gemini --resume: exit {rc}, no request; {last(out)}")
        return None
    first = reqs[0]
    ids = call_ids(first)
    check(f"{name}.resume", rc == 0, f"gemini --resume latest -p: exit {rc}; {last(out)}")
    check(f"{name}.middle-gone", not (ids & middle), f"middle call ids in the request: {sorted(ids & middle)}")
    check(f"{name}.smaller", size(first) < size(baseline),
          f"request contents {size(first)} bytes, the untouched resume's {size(baseline)}")
    return first


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ctxctl", required=True)
    ap.add_argument("--gemini", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    h = Harness(a)
    try:
        calls, baseline = record(h)
        s = h.session()
        check("record.session", bool(s and baseline), f"session file {s}")
        if not (s and baseline):
            return 1
        orig = open(s, "rb").read()
        rc, js, err = h.ctxctl_json(["count", s])
        f = (js or {}).get("files", [{}])[0]
        check("count", rc == 0 and f.get("format") == "gemini-cli", f"ctxctl count: exit {rc}, format "
              f"{f.get('format')}, {f.get('messages')} messages, {f.get('tokens')} tokens {last(err)}")
        rc, out, err = h.ctxctl(["check", s])
        check("check", rc == 0, f"ctxctl check: exit {rc} {last(out)}")
        rc, out, err = h.ctxctl(["count", "-r", os.path.join(h.home, ".gemini", "tmp"), "--json"])
        n = len((json.loads(out) if rc == 0 else {}).get("files", []))
        check("count.recursive", rc == 0 and n == 1, f"count -r ~/.gemini/tmp: exit {rc}, {n} session(s) "
              f"(stub files left by resumes are skipped)")
        undo_cases(h, s, orig)
        # The second turn's read is the middle both rewrites remove (the third may stay in the tail).
        middle = calls[1]
        # Trim, resume: the middle's reads are gone.
        resumed(h, s, "trim", ["trim", s, "--strategy", "fifo", "--max-tokens", "3000", "--in-place"], middle,
                baseline, "Thanks. Anything else left?")
        # Compact the original, resume: the summary is sent instead of the middle.
        with open(s, "wb") as f:
            f.write(orig)
        req = resumed(h, s, "compact", ["compact", s, "--tail-tokens", "200", "--in-place"], middle, baseline,
                      "Thanks. What is the plan now?")
        aid = newest_archive(h)
        if req is not None:
            check("compact.summary-sent", "[ctxctl compaction" in text_of(req),
                  "the request carries ctxctl's summary")
            before = open(s, "rb").read()
            rc, out, err = h.ctxctl(["archive", "restore", aid or "none"])
            # Refused, nothing written. (Gemini's resume rewrites the history checkpoint; when
            # it no longer carries ctxctl's summary record the refusal says the summary is gone.)
            check("compact.restore-refused", rc != 0 and open(s, "rb").read() == before
                  and ("after the compaction" in err or "no summary with compact_id" in err),
                  f"archive restore after Gemini resumed: exit {rc}; {last(err)}")
        check("compact.kept-earlier-bytes", open(s, "rb").read().startswith(orig), "the file only grew")
    finally:
        h.close()
    return 1 if FAILED else 0


if __name__ == "__main__":
    code = main()
    print(f"gemini-cli e2e: {'all checks passed' if code == 0 else 'FAILED: ' + ', '.join(FAILED)}")
    sys.exit(code)
