#!/usr/bin/env python3
"""ctxctl never rewrites a session a real agent is using (scripts/e2e/live.sh runs it).

For each agent (the real Claude Code and the real Codex CLI against fake provider APIs on
127.0.0.1): record a short session; start a resume whose request the fake API HOLDS, so the
agent is mid-request; meanwhile `ctxctl compact --in-place` and `ctxctl trim --in-place` on
that file must be refused (exit 2, a message that says `live`, the file byte-identical, the
archive store untouched), and so must a batch `compact -r` (exit 0: nothing to do). A second
held resume whose command line does NOT name the session (`claude --continue`, `codex exec
resume --last`) must be refused as well (the agents' own markers: Claude Code's
`sessions/<pid>.json`, Codex's rollout held open and its thread writer lock). Then the
request is released, the agent finishes, the same compact succeeds, and the agent resumes
the compacted session with a valid request that carries ctxctl's summary.

Prints one PASS/FAIL line per check (INFO lines for what ctxctl said) and a final
`N passed, N failed` line; exit status 1 when a check failed.
"""

import argparse
import glob
import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
E2E = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(E2E, "claude-code"))

RESULTS = []
CC_TOOLS = "Bash,Read,Write,Edit,Agent"
WHAT = "what did we do so far?"


def check(name, ok, detail=""):
    RESULTS.append((name, bool(ok)))
    detail = " | ".join(line for line in str(detail).splitlines() if line.strip())
    print("%s %s%s" % ("PASS" if ok else "FAIL", name, " -- " + detail if detail else ""), flush=True)
    return ok


def info(text):
    print("     " + " | ".join(line for line in str(text).splitlines() if line.strip()), flush=True)


def jparse(text):
    try:
        return json.loads(text)
    except (ValueError, TypeError):
        return None


def says_live(text, or_override=False):
    """Whether ctxctl's message says `live` as a word of its own, not inside a path (the
    scratch directory's name may well contain it); with `or_override`, pointing at
    `--include-live` also counts (a batch's skip note gives the reason and the way out)."""
    words = " ".join(w for w in text.split() if "/" not in w)
    if or_override and "--include-live" in words:
        return True
    return re.search(r"(?<![\w-])live(?![\w-])", words, re.I) is not None


def would_rewrite(ctx, label, args):
    """Precondition: with no agent running, this rewrite would write (`--dry-run` exits 1
    when changes would be made)."""
    rc, out, err = ctx.run(args + ["--dry-run"])
    ok = rc == 1
    check("%s: without an agent, `ctxctl %s` would rewrite the file (dry run)" % (label, args[0]), ok,
          "exit %d: %s" % (rc, (err.strip() or out.strip())[-300:]))
    return ok


def tree(path):
    """Every file under `path` with its size and mtime (the archive store's state)."""
    out = {}
    for root, _, files in os.walk(path):
        for f in files:
            p = os.path.join(root, f)
            try:
                st = os.stat(p)
            except OSError:
                continue
            out[os.path.relpath(p, path)] = (st.st_size, st.st_mtime_ns)
    return out


def wait_for(path, timeout, proc=None):
    end = time.time() + timeout
    while time.time() < end:
        if os.path.exists(path):
            return True
        if proc is not None and proc.poll() is not None:
            return False
        time.sleep(0.1)
    return False


def stop_group(proc):
    """Ends the process group this harness started for `proc` (by its id), if still running."""
    if proc is None or proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(10)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


class Ctx:
    """The ctxctl under test, in a scratch HOME / XDG / data dir."""

    def __init__(self, binary, work):
        self.bin = binary
        self.data = os.path.join(work, "ctxdata")
        self.log = os.path.join(work, "ctxctl.log")
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": os.path.join(work, "ctxhome"),
            "XDG_DATA_HOME": os.path.join(work, "xdg", "data"),
            "XDG_CONFIG_HOME": os.path.join(work, "xdg", "config"),
            "XDG_CACHE_HOME": os.path.join(work, "xdg", "cache"),
            "CTXCTL_DATA_DIR": self.data,
            "NO_COLOR": "1",
            "LANG": "C.UTF-8",
        }
        for k in ("HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "CTXCTL_DATA_DIR"):
            os.makedirs(self.env[k], exist_ok=True)
        self.roots = [self.data, self.env["XDG_DATA_HOME"], self.env["HOME"]]

    def run(self, args, extra_env=None, cwd=None):
        env = dict(self.env, **(extra_env or {}))
        try:
            p = subprocess.run([self.bin] + args, env=env, cwd=cwd, capture_output=True, text=True, timeout=120)
            rc, out, err = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired as e:
            rc, out, err = 124, e.stdout or "", (e.stderr or "") + "\n[timed out]"
        with open(self.log, "a") as f:
            f.write("$ ctxctl %s\nrc=%d\n--- stdout\n%s\n--- stderr\n%s\n" % (" ".join(args), rc, out, err))
        return rc, out, err

    def store(self):
        s = {}
        for r in self.roots:
            s.update({os.path.join(r, k): v for k, v in tree(r).items()})
        return s


def rewrites(path):
    return [
        ("compact", ["compact", "--in-place", path, "--tail-tokens", "200"]),
        ("trim", ["trim", "--in-place", path, "--strategy", "fifo", "--max-tokens", "500"]),
    ]


def archive_id(text):
    """The `archive_id` anywhere in ctxctl's --json output, else None."""
    def walk(v):
        if isinstance(v, dict):
            if isinstance(v.get("archive_id"), str):
                return v["archive_id"]
            v = list(v.values())
        if isinstance(v, list):
            for x in v:
                found = walk(x)
                if found:
                    return found
        return None
    return walk(jparse(text))


def restore_refused(ctx, label, path, aid, agent_proc):
    """While the agent holds `path` live: `archive restore` is refused and writes nothing."""
    settle(path)
    before = open(path, "rb").read()
    ino = os.stat(path).st_ino
    store0 = ctx.store()
    rc, out, err = ctx.run(["archive", "restore", aid, path])
    info("%s archive restore: exit %d: %s" % (label, rc, err.strip()[-400:]))
    check("%s: ctxctl archive restore on the live session exits 2" % label, rc == 2,
          "exit %d, stderr %r" % (rc, err.strip()[-300:]))
    check("%s: ctxctl archive restore says the session is live and names the file" % label,
          says_live(err) and os.path.basename(path) in err, "stderr %r" % err.strip()[-300:])
    ok, detail = untouched(path, before, ino)
    check("%s: ctxctl archive restore left the file byte-identical" % label, ok, detail)
    grown = sorted(set(ctx.store().items()) - set(store0.items()))
    check("%s: ctxctl archive restore changed nothing in the archive store" % label, not grown,
          "new or changed: %s" % [g[0] for g in grown[:5]])
    check("%s: the agent was still mid-request during all of it" % label, agent_proc.poll() is None)


def settle(path, quiet=1.0, limit=10.0):
    """Waits until `path` has not changed for `quiet` seconds: an agent writes a record or
    two just after it sent its request (Claude Code 2.1.3xx: `api-request`)."""
    end = time.time() + limit
    last, since = None, time.time()
    while time.time() < end:
        st = os.stat(path)
        cur = (st.st_size, st.st_mtime_ns)
        if cur != last:
            last, since = cur, time.time()
        elif time.time() - since >= quiet:
            return
        time.sleep(0.1)


def untouched(path, before, ino):
    """(ok, detail): ctxctl did not write `path`. ctxctl replaces a file (temp file +
    rename), so the same inode whose content still starts with `before` means it did not;
    anything the agent itself appended meanwhile is said, not held against ctxctl."""
    st = os.stat(path)
    now = open(path, "rb").read()
    if st.st_ino != ino:
        return False, "the file was replaced (new inode)"
    if now == before:
        return True, ""
    if now.startswith(before):
        return True, "byte-identical but for %d bytes the agent itself appended" % (len(now) - len(before))
    return False, "the content changed in place"


def refusals(ctx, label, path, batch_dir, agent_proc):
    """While the agent holds `path` live: every rewrite is refused and writes nothing."""
    settle(path)
    before = open(path, "rb").read()
    ino = os.stat(path).st_ino
    store0 = ctx.store()
    for name, args in rewrites(path):
        rc, out, err = ctx.run(args)
        line = err.strip().splitlines()[-1] if err.strip() else ""
        info("%s %s: exit %d: %s" % (label, name, rc, line[:400]))
        check("%s: ctxctl %s --in-place on the live session exits 2" % (label, name), rc == 2,
              "exit %d, stderr %r" % (rc, err.strip()[-300:]))
        check("%s: ctxctl %s says the session is live and names the file" % (label, name),
              says_live(err) and os.path.basename(path) in err, "stderr %r" % err.strip()[-300:])
        ok, detail = untouched(path, before, ino)
        check("%s: ctxctl %s left the file byte-identical" % (label, name), ok, detail)
        grown = sorted(set(ctx.store().items()) - set(store0.items()))
        check("%s: ctxctl %s wrote nothing to its archive store" % (label, name), not grown,
              "new or changed: %s" % [g[0] for g in grown[:5]])
    if batch_dir:
        # A day later by ctxctl's clock, so that the recent modification alone does not
        # explain the skip: only a live signal can.
        later = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 86400))
        rc, out, err = ctx.run(["compact", "-r", batch_dir, "--in-place", "--tail-tokens", "200"],
                               extra_env={"CTXCTL_NOW": later})
        info("%s batch compact -r: exit %d: %s" % (label, rc, (err.strip() or out.strip())[-400:]))
        ok, detail = untouched(path, before, ino)
        check("%s: batch compact -r leaves the live session alone (exit 0, nothing to do)" % label,
              rc == 0 and ok, "exit %d %s" % (rc, detail))
        check("%s: batch compact -r says why: live (or --include-live)" % label, says_live(out + err, True),
              "output %r" % (out + err).strip()[-300:])
        grown = sorted(set(ctx.store().items()) - set(store0.items()))
        check("%s: batch compact -r wrote nothing to the archive store" % label, not grown,
              "new or changed: %s" % [g[0] for g in grown[:5]])
    check("%s: the agent was still mid-request during all of it" % label, agent_proc.poll() is None)


# ---------------------------------------------------------------------------------- Claude Code


class Claude:
    def __init__(self, a, ctx):
        self.a = a
        self.ctx = ctx
        self.work = os.path.join(a.work, "claude")
        self.home = os.path.join(self.work, "home")
        self.proj = os.path.join(self.work, "proj")
        self.srv = os.path.join(self.work, "server")
        for d in (self.home, self.proj, self.srv):
            os.makedirs(d, exist_ok=True)
        self.log = os.path.join(self.srv, "requests.jsonl")
        self.control = os.path.join(self.srv, "control.json")
        self.hold = os.path.join(self.srv, "hold")
        self.sid = str(uuid.uuid4())
        self.server = None

    def start_server(self):
        port_file = os.path.join(self.srv, "port")
        self.phase("start")
        self.server = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "hold_anthropic.py"), "--port-file", port_file, "--log", self.log,
             "--script", os.path.join(E2E, "claude-code", "script.json"), "--control", self.control,
             "--cwd", self.proj, "--idle-timeout", "300", "--lifetime", "900", "--hold-file", self.hold],
            stdout=open(os.path.join(self.srv, "server.out"), "w"), stderr=subprocess.STDOUT, start_new_session=True)
        if not wait_for(port_file, 10):
            raise SystemExit("fake Anthropic API did not start")
        self.port = int(open(port_file).read())

    def phase(self, name):
        with open(self.control + ".tmp", "w") as f:
            json.dump({"phase": name, "max_prompt_tokens": None}, f)
        os.replace(self.control + ".tmp", self.control)

    def env(self):
        return {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": self.home, "LANG": "C.UTF-8", "TZ": "UTC",
            "ANTHROPIC_BASE_URL": "http://127.0.0.1:%d" % self.port, "ANTHROPIC_API_KEY": "sk-ant-fake",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1",
        }

    def spawn(self, args, phase):
        self.phase(phase)
        out = open(os.path.join(self.work, phase + ".out"), "w")
        return subprocess.Popen([self.a.claude] + args, env=self.env(), cwd=self.proj, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    def run(self, args, phase, timeout=180):
        p = self.spawn(args, phase)
        try:
            p.wait(timeout)
        except subprocess.TimeoutExpired:
            stop_group(p)
        text = open(os.path.join(self.work, phase + ".out")).read()
        return p.returncode, jparse(text) or {}, text

    def main_requests(self, phase):
        out = []
        if os.path.exists(self.log):
            for line in open(self.log):
                e = json.loads(line)
                b = e.get("body")
                if (e.get("phase") == phase and e.get("path", "").split("?")[0] == "/v1/messages"
                        and isinstance(b, dict) and any(t.get("name") == "Bash" for t in b.get("tools") or [])):
                    out.append(e)
        return out

    def transcript(self):
        found = glob.glob(os.path.join(self.home, ".claude", "projects", "*", self.sid + ".jsonl"))
        return found[0] if found else None

    def held(self, args, label):
        """Starts claude with `args`; returns it once the fake API holds its request."""
        open(self.hold, "w").close()
        if os.path.exists(self.hold + ".held"):
            os.remove(self.hold + ".held")
        p = self.spawn(args, label)
        ok = wait_for(self.hold + ".held", 90, p)
        check("%s: claude is mid-request (the fake API holds it)" % label, ok,
              "" if ok else "claude exit %s: %s" % (p.poll(), open(os.path.join(self.work, label + ".out")).read()[-300:]))
        return p if ok else None

    def release(self, p, label):
        if os.path.exists(self.hold):
            os.remove(self.hold)
        try:
            p.wait(120)
        except subprocess.TimeoutExpired:
            stop_group(p)
        res = jparse(open(os.path.join(self.work, label + ".out")).read()) or {}
        check("%s: released, claude finished the turn" % label, p.returncode == 0 and not res.get("is_error"),
              "exit %s result %r" % (p.returncode, str(res.get("result"))[:200]))

    def scenario(self):
        import ccview

        self.start_server()
        rc, res, text = self.run(["--version"], "version")
        info("claude --version: %s" % text.strip())
        plans = {p["match"]: p for p in json.load(open(os.path.join(E2E, "claude-code", "script.json")))["plans"]}
        ok = True
        for k, tag in enumerate(("[p01]", "[p02]", "[p03]", "[p04]")):
            args = ["-p", plans[tag]["prompt"], "--output-format", "json", "--allowedTools", CC_TOOLS]
            args += ["--session-id", self.sid] if k == 0 else ["--resume", self.sid]
            rc, res, text = self.run(args, "record-%d" % k)
            ok &= rc == 0 and res.get("result") == plans[tag]["final"]
        path = self.transcript()
        if not check("claude: recorded a real session (4 scripted prompts with tool use)", ok and path,
                     "exit %s: %s" % (rc, text[-300:])):
            return
        projects = os.path.dirname(os.path.dirname(path))
        if not all([would_rewrite(self.ctx, "claude", args) for _, args in rewrites(path)]):
            return

        # 1. `claude -p … --resume ID` held mid-request: the command line names the session.
        label = "claude --resume ID"
        p = self.held(["-p", WHAT, "--output-format", "json", "--allowedTools", CC_TOOLS, "--resume", self.sid], label)
        if p is None:
            return
        try:
            refusals(self.ctx, label, path, projects, p)
        finally:
            self.release(p, label)

        # 2. `claude -p … --continue` held: no id on the command line; Claude Code's
        # sessions/<pid>.json names the session.
        label = "claude --continue"
        p = self.held(["-p", WHAT, "--output-format", "json", "--allowedTools", CC_TOOLS, "--continue"], label)
        if p is None:
            return
        try:
            refusals(self.ctx, label, path, None, p)
        finally:
            self.release(p, label)

        # 3. The agent has quit: the same compact goes through, and claude resumes it.
        before = open(path, "rb").read()
        store0 = self.ctx.store()
        rc, out, err = self.ctx.run(["compact", "--in-place", path, "--tail-tokens", "200", "--json"])
        aid = archive_id(out)
        info("claude after exit: compact exit %d, archive %s: %s" % (rc, aid, err.strip()[-300:]))
        check("claude after exit: ctxctl compact --in-place succeeds (exit 0)", rc == 0, "stderr %r" % err.strip()[-300:])
        check("claude after exit: the file was rewritten", open(path, "rb").read() != before)
        check("claude after exit: the original went to the archive store",
              len(set(self.ctx.store()) - set(store0)) > 0)
        sums = ccview.View(ccview.load(path)).summaries()
        summary = sums[-1]["message"]["content"] if sums else ""
        summary = summary if isinstance(summary, str) else json.dumps(summary)
        rc, res, text = self.run(["-p", WHAT, "--output-format", "json", "--allowedTools", CC_TOOLS,
                                  "--resume", self.sid], "resume-compacted")
        reqs = self.main_requests("resume-compacted")
        check("claude after exit: claude --resume of the compacted session sent a request", reqs,
              "exit %s: %s" % (rc, text[-300:]))
        if reqs:
            # Claude Code 2.1.3xx first tries a per-turn `system` message the fake API (rules of
            # 2.1.197) rejects, then retries without it: judge the request it settled on.
            for r in reqs[:-1]:
                info("claude after exit: an earlier attempt was answered %s %s" % (
                    r["response"].get("status"), r["response"].get("error") or ""))
            e = reqs[-1]
            hard = [f for f in e.get("findings", []) if "Expected `thinking`" not in f]
            check("claude after exit: the request is valid (fake API answered %s)" % e["response"].get("status"),
                  e["response"].get("status") == 200 and not hard, "; ".join(hard)[:300])
            check("claude after exit: the request carries ctxctl's summary",
                  summary and summary[:300] in ccview.request_text(e["body"]), "summary %r" % summary[:80])
        check("claude after exit: the resume finished", rc == 0 and not res.get("is_error"),
              "exit %s result %r" % (rc, str(res.get("result"))[:200]))

        # 4. `archive restore` of that compaction while claude is mid-request again.
        label = "claude --resume ID (restore)"
        if check("claude after exit: ctxctl reported the archive id", aid, "compact --json: %r" % out[-200:]):
            p = self.held(["-p", WHAT, "--output-format", "json", "--allowedTools", CC_TOOLS, "--resume", self.sid], label)
            if p is not None:
                try:
                    restore_refused(self.ctx, label, path, aid, p)
                finally:
                    self.release(p, label)

    def close(self):
        if os.path.exists(self.hold):
            os.remove(self.hold)
        stop_group(self.server)


# ---------------------------------------------------------------------------------- Codex


class Codex:
    BASE = ["--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "--json"]

    def __init__(self, a, ctx):
        self.a = a
        self.ctx = ctx
        self.work = os.path.join(a.work, "codex")
        self.home = os.path.join(self.work, "home")
        self.codex_home = os.path.join(self.work, "codex_home")
        self.proj = os.path.join(self.work, "proj")
        for d in (self.home, self.codex_home, self.proj):
            os.makedirs(d, exist_ok=True)
        self.log = os.path.join(self.work, "server.jsonl")
        self.hold = os.path.join(self.work, "hold")
        self.server = None

    def start_server(self):
        pf = os.path.join(self.work, "port")
        self.server = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "hold_responses.py"), "--port-file", pf, "--log", self.log,
             "--lifetime", "900", "--idle", "300", "--hold-file", self.hold],
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.work, "server.err"), "w"), start_new_session=True)
        if not wait_for(pf, 10):
            raise SystemExit("fake Responses API did not start")
        port = int(open(pf).read())
        with open(os.path.join(self.codex_home, "config.toml"), "w") as f:
            f.write('model = "gpt-5.5"\nmodel_provider = "fake"\n\n[model_providers.fake]\nname = "fake"\n'
                    'base_url = "http://127.0.0.1:%d/v1"\nwire_api = "responses"\nenv_key = "FAKE_API_KEY"\n' % port)

    def env(self):
        return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": self.home, "CODEX_HOME": self.codex_home,
                "FAKE_API_KEY": "dummy-not-a-key", "LANG": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1",
                "RUST_BACKTRACE": "0"}

    def spawn(self, args, label):
        cmd = [self.a.codex, "exec"] + (["resume"] + self.BASE + args[1:] if args[0] == "resume" else self.BASE + args)
        out = open(os.path.join(self.work, label.replace(" ", "_") + ".out"), "w")
        return subprocess.Popen(cmd, env=self.env(), cwd=self.proj, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)

    def output(self, label):
        return open(os.path.join(self.work, label.replace(" ", "_") + ".out")).read()

    def run(self, args, label, timeout=180):
        p = self.spawn(args, label)
        try:
            p.wait(timeout)
        except subprocess.TimeoutExpired:
            stop_group(p)
        return p.returncode, self.output(label)

    def log_len(self):
        return sum(1 for _ in open(self.log)) if os.path.exists(self.log) else 0

    def requests_since(self, n0):
        out = []
        if os.path.exists(self.log):
            for k, line in enumerate(open(self.log)):
                if k >= n0:
                    r = json.loads(line)
                    if r.get("path", "").rstrip("/").endswith("/responses"):
                        out.append(r)
        return out

    def held(self, args, label):
        open(self.hold, "w").close()
        if os.path.exists(self.hold + ".held"):
            os.remove(self.hold + ".held")
        p = self.spawn(args, label)
        ok = wait_for(self.hold + ".held", 90, p)
        check("%s: codex is mid-request (the fake API holds it)" % label, ok,
              "" if ok else "codex exit %s: %s" % (p.poll(), self.output(label)[-300:]))
        return p if ok else None

    def release(self, p, label):
        if os.path.exists(self.hold):
            os.remove(self.hold)
        try:
            p.wait(120)
        except subprocess.TimeoutExpired:
            stop_group(p)
        check("%s: released, codex finished the turn" % label,
              p.returncode == 0 and '"turn.completed"' in self.output(label),
              "exit %s: %s" % (p.returncode, self.output(label)[-300:]))

    def scenario(self):
        self.start_server()
        v = subprocess.run([self.a.codex, "--version"], capture_output=True, text=True, env=self.env())
        info("codex --version: %s" % v.stdout.strip())
        rc, text = self.run(["TASK-K: print four chunks of output."], "record")
        sid = None
        for line in text.splitlines():
            j = jparse(line)
            if isinstance(j, dict) and j.get("type") == "thread.started":
                sid = j.get("thread_id")
        found = glob.glob(os.path.join(self.codex_home, "sessions", "*", "*", "*", "rollout-*-%s.jsonl" % sid)) if sid else []
        if not check("codex: recorded a real session (a scripted task with 4 shell calls)",
                     rc == 0 and found and '"turn.completed"' in text, "exit %s: %s" % (rc, text[-300:])):
            return
        path = found[0]
        sessions = os.path.join(self.codex_home, "sessions")
        if not all([would_rewrite(self.ctx, "codex", args) for _, args in rewrites(path)]):
            return

        # 1. `codex exec resume ID …` held mid-request: the command line names the thread.
        label = "codex exec resume ID"
        p = self.held(["resume", sid, WHAT], label)
        if p is None:
            return
        try:
            refusals(self.ctx, label, path, sessions, p)
        finally:
            self.release(p, label)

        # 2. `codex exec resume --last …`: no id on the command line; the rollout held open
        # for writing and the thread writer lock say it.
        label = "codex exec resume --last"
        p = self.held(["resume", "--last", WHAT], label)
        if p is None:
            return
        try:
            refusals(self.ctx, label, path, None, p)
        finally:
            self.release(p, label)

        # 3. Codex has quit: the same compact goes through, and codex resumes it.
        before = open(path, "rb").read()
        store0 = self.ctx.store()
        rc, out, err = self.ctx.run(["compact", "--in-place", path, "--tail-tokens", "200", "--json"])
        aid = archive_id(out)
        info("codex after exit: compact exit %d, archive %s: %s" % (rc, aid, err.strip()[-300:]))
        check("codex after exit: ctxctl compact --in-place succeeds (exit 0)", rc == 0, "stderr %r" % err.strip()[-300:])
        check("codex after exit: the file was rewritten", open(path, "rb").read() != before)
        check("codex after exit: the original went to the archive store", len(set(self.ctx.store()) - set(store0)) > 0)
        summary = ""
        for line in open(path):
            r = jparse(line) or {}
            if r.get("type") == "compacted":
                for it in (r.get("payload") or {}).get("replacement_history") or []:
                    if isinstance(it, dict) and "ctxctl" in it:
                        summary = ((it.get("content") or [{}])[0]).get("text") or ""
        n0 = self.log_len()
        rc, text = self.run(["resume", sid, WHAT], "resume-compacted")
        reqs = self.requests_since(n0)
        check("codex after exit: codex exec resume of the compacted rollout sent a request", reqs,
              "exit %s: %s" % (rc, text[-300:]))
        if reqs:
            r = reqs[0]
            check("codex after exit: the request is valid (fake API answered %s)" % r.get("status"),
                  r.get("status") == 200, str((r.get("errors") or [{}])[0].get("message", ""))[:300])
            sent = json.dumps((r.get("body") or {}).get("input"))
            check("codex after exit: the request carries ctxctl's summary",
                  summary and json.dumps(summary[:300])[1:-1] in sent, "summary %r" % summary[:80])
        check("codex after exit: the resume finished", rc == 0 and '"turn.completed"' in text,
              "exit %s: %s" % (rc, text[-300:]))

        # 4. `archive restore` of that compaction while codex is mid-request again.
        label = "codex exec resume ID (restore)"
        if check("codex after exit: ctxctl reported the archive id", aid, "compact --json: %r" % out[-200:]):
            p = self.held(["resume", sid, WHAT], label)
            if p is not None:
                try:
                    restore_refused(self.ctx, label, path, aid, p)
                finally:
                    self.release(p, label)

    def close(self):
        if os.path.exists(self.hold):
            os.remove(self.hold)
        stop_group(self.server)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ctxctl", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--claude")
    ap.add_argument("--codex")
    a = ap.parse_args()
    a.work = os.path.abspath(a.work)
    rc, out, err = Ctx(a.ctxctl, a.work).run(["--version"])
    info("ctxctl --version: %s" % out.strip())
    for cls, binary in ((Claude, a.claude), (Codex, a.codex)):
        if not binary:
            continue
        ctx = Ctx(a.ctxctl, os.path.join(a.work, cls.__name__.lower() + "-ctxctl"))
        agent = cls(a, ctx)
        try:
            agent.scenario()
        except Exception as e:  # a harness error is a failure, not a traceback-only exit
            check("%s: harness ran to the end" % cls.__name__, False, "%s: %s" % (type(e).__name__, e))
        finally:
            agent.close()
    passed = sum(1 for _, ok in RESULTS if ok)
    failed = len(RESULTS) - passed
    print("%d passed, %d failed" % (passed, failed), flush=True)
    return 1 if failed or not RESULTS else 0


if __name__ == "__main__":
    sys.exit(main())
