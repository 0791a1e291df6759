"""The real Claude Code gets a compacted-away fact back through `ctxctl mcp` (see README.md).

scripts/e2e/claude-mcp.sh runs it, inside a network namespace that has only loopback.

Records a real Claude Code session against the fake Anthropic API of ../claude-code/ whose
first prompt holds a distinctive fact, compacts it (1) with `ctxctl compact --in-place` and
(2) with Claude Code's own `/compact`, then resumes each with ctxctl registered as an MCP
server (`claude mcp add` in one case, `--mcp-config` in the other). The fake API answers the
resumed prompt with a `tool_use` of `mcp__ctxctl__recall`; the checks read the request log:
the fact is absent from what Claude Code sends until the NEXT request, whose `tool_result`
for that call holds it. The MCP server is started through a wrapper that records the
environment, working directory and arguments Claude Code gives it (docs/MCP.md).
Prints one PASS/FAIL line per check and a SUMMARY line; exit status 1 if anything failed.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
FAKE = os.path.join(os.path.dirname(HERE), "claude-code", "fake_anthropic.py")
FACT = "PLUM-HARBOR-7731"
TOOL = "mcp__ctxctl__recall"
COMPACT = "mcp__ctxctl__compact_session"
ALLOWED = "Bash,%s,%s" % (TOOL, COMPACT)


def sh(cmd, env=None, cwd=None, timeout=180):
    try:
        p = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        return 124, e.stdout or "", (e.stderr or "") + "\n[timed out]"


def blocks(msg):
    c = msg.get("content")
    return [{"type": "text", "text": c}] if isinstance(c, str) else (c or [])


def result_text(block):
    c = block.get("content")
    if isinstance(c, str):
        return c
    return "\n".join(b.get("text", "") for b in c or [] if isinstance(b, dict))


def offered(body, tool):
    """How a request offers `tool`: in its tools ("sent"), or named as a deferred tool that
    its `ToolSearch` loads ("deferred": Claude Code 2.1.2xx defers every MCP tool and
    lists the deferred ones in a system message); `None` if it does not."""
    if any(t.get("name") == tool for t in body.get("tools") or []):
        return "sent"
    search = any(t.get("name") == "ToolSearch" for t in body.get("tools") or [])
    listed = any(tool in b.get("text", "").splitlines() and "ToolSearch" in b.get("text", "")
                 for m in body.get("messages") or [] for b in blocks(m) if b.get("type") == "text")
    return "deferred, loaded with ToolSearch" if search and listed else None


class Run:
    def __init__(self, a):
        self.a = a
        self.work = os.path.abspath(a.work)
        self.proj = os.path.join(self.work, "proj")
        self.srv = os.path.join(self.work, "server")
        self.out = os.path.join(self.work, "outputs")
        self.envdir = os.path.join(self.work, "mcp-env")
        for d in (self.proj, self.srv, self.out, self.envdir):
            os.makedirs(d, exist_ok=True)
        self.log = os.path.join(self.srv, "requests.jsonl")
        self.control = os.path.join(self.srv, "control.json")
        self.results = []
        self.sid = str(uuid.uuid4())
        # The script with this run's session id in place of {sid} (the fake re-reads it).
        self.script = os.path.join(self.work, "script.json")
        with open(os.path.join(HERE, "script.json")) as f:
            text = f.read().replace("{sid}", self.sid)
        with open(self.script, "w") as f:
            f.write(text)
        # The MCP server as Claude Code starts it: a wrapper that writes down what it was given.
        self.wrapper = os.path.join(self.work, "ctxctl-mcp")
        with open(self.wrapper, "w") as f:
            f.write('#!/bin/sh\n{ echo "cwd=$(pwd)"; echo "args=$*"; env | sort; } > "%s/$$.txt"\n'
                    'exec "%s" mcp "$@"\n' % (self.envdir, a.ctxctl))
        os.chmod(self.wrapper, 0o755)

    def check(self, name, ok, detail=""):
        self.results.append(bool(ok))
        print("%s %s%s" % ("PASS" if ok else "FAIL", name, " -- " + detail if detail else ""), flush=True)
        return ok

    def phase(self, name):
        with open(self.control, "w") as f:
            json.dump({"phase": name, "max_prompt_tokens": None}, f)

    def start_server(self):
        port_file = os.path.join(self.srv, "port")
        self.phase("start")
        self.server = subprocess.Popen(
            [sys.executable, FAKE, "--port-file", port_file, "--log", self.log,
             "--script", self.script, "--control", self.control,
             "--cwd", self.proj, "--idle-timeout", "120"],
            stdout=open(os.path.join(self.srv, "server.out"), "w"), stderr=subprocess.STDOUT)
        for _ in range(100):
            if os.path.exists(port_file):
                self.port = int(open(port_file).read())
                return
            time.sleep(0.1)
        raise SystemExit("the fake API did not start")

    def env(self, home):
        # One environment for claude and the ctxctl it starts: ctxctl's store is under HOME.
        return {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "LANG": "C.UTF-8",
            "TZ": "UTC", "NO_COLOR": "1",
            "ANTHROPIC_BASE_URL": "http://127.0.0.1:%d" % self.port, "ANTHROPIC_API_KEY": "sk-ant-fake",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1",
        }

    def claude(self, home, phase, args):
        self.phase(phase)
        rc, out, err = sh([self.a.claude] + args, env=self.env(home), cwd=self.proj, timeout=120)
        with open(os.path.join(self.out, phase + ".claude.txt"), "w") as f:
            f.write("$ claude %s\nrc=%d\n--- stdout\n%s\n--- stderr\n%s\n" % (" ".join(args), rc, out, err))
        return rc

    def ctxctl(self, home, *args):
        rc, out, err = sh([self.a.ctxctl, *args], env=self.env(home), cwd=self.proj)
        with open(os.path.join(self.out, "ctxctl.log"), "a") as f:
            f.write("$ ctxctl %s\nrc=%d\n%s%s\n" % (" ".join(args), rc, out, err))
        return rc, out, err

    def requests(self, phase):
        """The main-loop /v1/messages requests of a phase (side queries offer no Bash)."""
        out = []
        for line in open(self.log):
            e = json.loads(line)
            b = e.get("body")
            if (e.get("phase") == phase and e["path"].split("?")[0] == "/v1/messages"
                    and isinstance(b, dict) and any(t.get("name") == "Bash" for t in b.get("tools") or [])):
                out.append(b)
        return out

    def transcript(self, home):
        enc = self.proj.replace("/", "-").replace(".", "-")
        return os.path.join(home, ".claude", "projects", enc, self.sid + ".jsonl")

    def tool_results(self, name, home, args, tool):
        """Resume; the first main-loop request and the results of `tool` in the next one."""
        rc = self.claude(home, name, args)
        self.check("%s: claude -p --resume exits 0" % name, rc == 0, "rc=%d" % rc)
        reqs = self.requests(name)
        first = reqs[0] if reqs else None
        how = offered(first, tool) if first else None
        if not self.check("%s: the resumed request offers %s" % (name, tool), how is not None,
                          "%d main-loop requests%s" % (len(reqs), ", %s" % how if how else "")):
            return None, None
        # The request after the call: the next one, or (a deferred tool) the one after the
        # tool search that loaded it.
        after = None
        for r in reqs[1:]:
            sent = [b for m in r["messages"] for b in blocks(m)]
            calls = {b["id"] for b in sent if b.get("type") == "tool_use" and b.get("name") == tool}
            if calls:
                after = [b for b in sent if b.get("type") == "tool_result" and b.get("tool_use_id") in calls]
                break
        self.check("%s: Claude Code sends a next request after the tool call" % name, after is not None,
                   "%d main-loop requests" % len(reqs))
        return first, after

    def prove_recall(self, name, home, args, place):
        """Resume with the recall prompt; check the two requests around the tool call."""
        first, results = self.tool_results(name, home, args, TOOL)
        if first is not None:
            self.check("%s: the fact is not in the resumed conversation" % name,
                       FACT not in json.dumps(first["messages"]))
        if results is None:
            return
        text = "\n".join(result_text(b) for b in results)
        self.check("%s: its tool_result for %s holds the compacted-away fact" % (name, TOOL),
                   results and FACT in text and not any(b.get("is_error") for b in results),
                   "%d result(s), %d chars" % (len(results), len(text)))
        self.check("%s: the result says where the fact was found (%s)" % (name, place), place in text)

    def main(self):
        self.start_server()
        home = os.path.join(self.work, "homes", "ctxctl-compact")
        os.makedirs(home)
        script = json.load(open(os.path.join(HERE, "script.json")))
        prompts = [p["prompt"] for p in script["plans"] if p["match"].startswith("[m")]
        ok = True
        for i, p in enumerate(prompts):
            args = ["-p", p, "--output-format", "json", "--allowedTools", ALLOWED]
            args += ["--session-id", self.sid] if i == 0 else ["--resume", self.sid]
            ok = self.claude(home, "record-%d" % i, args) == 0 and ok
        path = self.transcript(home)
        recorded = os.path.exists(path) and FACT in open(path).read()
        if not self.check("record: %d claude -p runs wrote a session holding the fact" % len(prompts),
                          ok and recorded, path):
            return
        home2 = os.path.join(self.work, "homes", "cc-compact")
        os.makedirs(os.path.dirname(self.transcript(home2)))
        shutil.copyfile(path, self.transcript(home2))

        # 1. ctxctl compacts; `claude mcp add` registers ctxctl; the resume recalls from the archive.
        rc, out, err = self.ctxctl(home, "compact", path, "--tail-tokens", "800", "--in-place")
        self.check("ctxctl compact --in-place exits 0", rc == 0, (out + err).strip().splitlines()[-1:][0] if (out + err).strip() else "")
        rc, out, err = sh([self.a.claude, "mcp", "add", "ctxctl", "--", self.wrapper],
                          env=self.env(home), cwd=self.proj, timeout=60)
        self.check("claude mcp add ctxctl -- ctxctl mcp exits 0", rc == 0, (out + err).strip()[:200])
        self.prove_recall("ctxctl-compact", home, ["-p", script_prompt(script, "[r01]"), "--resume", self.sid,
                                                   "--output-format", "json", "--allowedTools", ALLOWED],
                          "archived by ctxctl")
        self.report_env()

        # 2. Claude Code's own /compact; ctxctl given by --mcp-config; recall from before the boundary.
        rc = self.claude(home2, "cc-own-compact", ["-p", "/compact", "--resume", self.sid,
                                               "--output-format", "json", "--allowedTools", ALLOWED])
        self.check("claude -p /compact wrote its own compact_boundary",
                   rc == 0 and '"compact_boundary"' in open(self.transcript(home2)).read(), "rc=%d" % rc)
        cfg = os.path.join(self.work, "mcp.json")
        with open(cfg, "w") as f:
            json.dump({"mcpServers": {"ctxctl": {"type": "stdio", "command": self.wrapper,
                                                 "args": ["--allow-compact"]}}}, f)
        self.prove_recall("cc-compact", home2, ["-p", script_prompt(script, "[r02]"), "--resume", self.sid,
                                                "--mcp-config", cfg, "--strict-mcp-config",
                                                "--output-format", "json", "--allowedTools", ALLOWED],
                          "compacted away")

        # 3. compact_session, allowed by --allow-compact, refuses the caller's own session.
        archives = os.path.join(home2, ".local", "share", "ctxctl", "archives")
        _, results = self.tool_results("own-session", home2, [
            "-p", script_prompt(script, "[r03]"), "--resume", self.sid, "--mcp-config", cfg,
            "--strict-mcp-config", "--output-format", "json", "--allowedTools", ALLOWED], COMPACT)
        if results is not None:
            text = "\n".join(result_text(b) for b in results)
            self.check("own-session: %s refuses the caller's own session as live" % COMPACT,
                       results and all(b.get("is_error") for b in results)
                       and "your own session" in text and "live" in text, text[:160].replace("\n", " "))
            self.check("own-session: nothing was archived", not os.path.exists(archives)
                       or not any(files for _, _, files in os.walk(archives)))

    def report_env(self):
        """What Claude Code told the MCP server: printed, and the working directory checked."""
        seen = sorted(os.listdir(self.envdir))
        if not self.check("Claude Code started the ctxctl MCP server", seen, "%d start(s)" % len(seen)):
            return
        lines = open(os.path.join(self.envdir, seen[0])).read().splitlines()
        cwd = next((l[4:] for l in lines if l.startswith("cwd=")), "")
        self.check("the MCP server's working directory is the project", cwd == self.proj, cwd)
        env = dict(l.split("=", 1) for l in lines[2:] if "=" in l)
        self.check("CLAUDE_PROJECT_DIR names the project", env.get("CLAUDE_PROJECT_DIR") == self.proj,
                   env.get("CLAUDE_PROJECT_DIR", "(unset)"))
        self.check("CLAUDE_CODE_SESSION_ID names the resumed session", env.get("CLAUDE_CODE_SESSION_ID") == self.sid,
                   env.get("CLAUDE_CODE_SESSION_ID", "(unset)"))
        keys = sorted(env)
        told = [k for k in keys if k.startswith(("CLAUDE", "MCP")) or k in ("PWD", "OLDPWD")]
        print("     environment Claude Code gives an MCP server (names only): %s" % " ".join(told), flush=True)


def script_prompt(script, tag):
    return next(p["prompt"] for p in script["plans"] if p["match"] == tag)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ctxctl", required=True)
    ap.add_argument("--claude", required=True)
    ap.add_argument("--work", required=True)
    r = Run(ap.parse_args())
    try:
        r.main()
    finally:
        if getattr(r, "server", None):
            r.server.terminate()
    failed = r.results.count(False)
    print("SUMMARY claude-mcp: %d passed, %d failed" % (len(r.results) - failed, failed), flush=True)
    sys.exit(1 if failed or not r.results else 0)


if __name__ == "__main__":
    main()
