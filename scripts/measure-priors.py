#!/usr/bin/env python3
"""Measure the hidden part of an agent's first request, per agent version (issue #41).

The hidden part is what an agent sends with every request but does not store in its
session file: Claude Code's system prompt and tool schemas, Codex's tools (and, before
the rollout stored them, its base instructions). src/ops/prior.rs adds it to the first
request's prediction. This script measures it from the real CLIs, never from users'
sessions: it installs one version from npm into /tmp, runs it once against the fake
provider API of ../shared/realclients (127.0.0.1 only, it records every request), and
counts the recorded first request's hidden part with ctxctl:

  hidden = ctxctl's count of {system, tools, one user message "x"}
         − ctxctl's count of {one user message "x"}

(`ctxctl check --json`, `next_request_tokens`, with the model the agent asked for).

  * Claude Code: `claude -p "[mp-main] hi"` (main session), then `claude -p "[mp-sub] …"`,
    whose scripted answer calls the agent's subagent tool (Agent, or Task in older
    versions): the subagent's first request is measured too.
  * Codex: `codex exec "hi"` with its default model, in a loopback-only network namespace.
    The hidden part is the `tools`, plus the `instructions` when the rollout Codex wrote
    does not store them (`session_meta.base_instructions`, which ctxctl counts).

Prints one JSON line per version; deletes each install afterwards (--keep to keep it).

Usage: scripts/measure-priors.py --ctxctl target/release/ctxctl \
           [--realclients ../shared/realclients] claude-code 2.1.12 2.1.63 ...
       scripts/measure-priors.py ... codex 0.44.0 0.57.0 ...
"""

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import time

REALCLIENTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "realclients")


def sh(cmd, **kw):
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    kw.setdefault("timeout", 600)
    return subprocess.run(cmd, **kw)


def npm_install(pkg, version, prefix):
    os.makedirs(prefix, exist_ok=True)
    r = sh(["npm", "install", "--no-audit", "--no-fund", "--prefix", prefix, f"{pkg}@{version}"], timeout=900)
    if r.returncode != 0:
        raise SystemExit(f"npm install {pkg}@{version} failed:\n{r.stderr[-2000:]}")


def start_server(cmd, port_file):
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        if os.path.exists(port_file):
            return p, int(open(port_file).read())
        time.sleep(0.1)
    p.terminate()
    raise SystemExit("fake server did not start")


def load_log(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def check_tokens(ctxctl, work, name, body):
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump(body, f)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.path.join(work, "ctxhome"),
           "XDG_DATA_HOME": os.path.join(work, "xdg"), "XDG_CACHE_HOME": os.path.join(work, "xdg"),
           "XDG_CONFIG_HOME": os.path.join(work, "xdg"), "NO_COLOR": "1", "LANG": "C.UTF-8"}
    r = sh([ctxctl, "check", path, "--json"], env=env)
    j = json.loads(r.stdout)
    if isinstance(j, dict) and isinstance(j.get("files"), list):
        j = j["files"][0]
    return j["next_request_tokens"]


def hidden(ctxctl, work, name, model, system, tools):
    """ctxctl's count of system + tools: a body with them minus the same body without."""
    msg = [{"role": "user", "content": "x"}]
    body = {"model": model, "messages": msg}
    bare = check_tokens(ctxctl, work, name + "-bare", body)
    full = dict(body)
    if system:
        if isinstance(system, str):
            full["messages"] = [{"role": "system", "content": system}] + msg
        else:
            full["system"] = system
    if tools:
        full["tools"] = tools
    return check_tokens(ctxctl, work, name + "-full", full) - bare


def billed(ctxctl, work, name, body):
    """The hidden part of a Claude Code request as the provider bills it: a tool sent with
    `defer_loading: true` (tool search) is not loaded into the prompt until the model asks
    for it, so its definition is not input. Returns (tokens, how many tools were deferred)."""
    tools = body.get("tools") or []
    loaded = [t for t in tools if not t.get("defer_loading")]
    n = hidden(ctxctl, work, name, body.get("model"), body.get("system"), loaded)
    # With tool search on, the deferred tools' names travel instead, as a user message the
    # transcript does not store: part of the hidden part too.
    listing = [m for m in body.get("messages") or []
               if isinstance(m.get("content"), str) and m["content"].startswith("<available-deferred-tools>")]
    if listing:
        model = body.get("model")
        bare = [{"role": "user", "content": "x"}]
        n += (check_tokens(ctxctl, work, name + "-listing", {"model": model, "messages": listing + bare})
              - check_tokens(ctxctl, work, name + "-listing-bare", {"model": model, "messages": bare}))
    return n, len(tools) - len(loaded)


def reminders(ctxctl, work, name, body, prompt):
    """What the request's messages hold beyond the user's prompt (the context and
    deferred-tool reminders Claude Code adds and does not store): informational."""
    sent = check_tokens(ctxctl, work, name + "-msgs", {"model": body.get("model"), "messages": body["messages"]})
    bare = check_tokens(ctxctl, work, name + "-prompt",
                        {"model": body.get("model"), "messages": [{"role": "user", "content": prompt}]})
    return sent - bare


# --- Claude Code --------------------------------------------------------------------------

def claude_code(a, version, work):
    here = os.path.join(a.realclients, "claude-code")
    npm_install("@anthropic-ai/claude-code", version, os.path.join(work, "npm"))
    pkg = os.path.join(work, "npm", "node_modules", "@anthropic-ai", "claude-code")
    claude = os.path.join(work, "npm", "node_modules", ".bin", "claude")
    if sh([claude, "--version"], timeout=60).returncode != 0:
        claude = os.path.join(work, "claude")
        wrapper = os.path.join(pkg, "cli-wrapper.cjs")
        with open(claude, "w") as f:
            f.write('#!/bin/sh\nexec node "%s" "$@"\n' % wrapper)
        os.chmod(claude, 0o755)
    proj = os.path.join(work, "proj")
    os.makedirs(proj, exist_ok=True)
    log = os.path.join(work, "requests.jsonl")
    out = {"agent": "claude-code", "version": version}

    def run(prompt, script):
        sp = os.path.join(work, "script.json")
        with open(sp, "w") as f:
            json.dump(script, f)
        ctl = os.path.join(work, "control.json")
        with open(ctl, "w") as f:
            json.dump({"phase": "measure", "max_prompt_tokens": None}, f)
        pf = os.path.join(work, "port")
        if os.path.exists(pf):
            os.remove(pf)
        srv, port = start_server([sys.executable, os.path.join(here, "fake_anthropic.py"), "--port-file", pf,
                                  "--log", log, "--script", sp, "--control", ctl, "--cwd", proj,
                                  "--idle-timeout", "120", "--lifetime", "600"], pf)
        n0 = len(load_log(log))
        home = os.path.join(work, "home")
        tmp = os.path.join(work, "tmp")  # not the shared /tmp/claude of other runs
        os.makedirs(home, exist_ok=True)
        os.makedirs(tmp, exist_ok=True)
        env = {"TMPDIR": tmp, "CLAUDE_CODE_TMPDIR": tmp, "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "LANG": "C.UTF-8",
               "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}", "ANTHROPIC_API_KEY": "sk-ant-fake",
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
               "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1"}
        if a.flag:
            # A rollout flag's value as Anthropic's servers hand it out: read from the
            # cached feature flags of ~/.claude.json, which Claude Code consults only
            # when non-essential traffic is allowed (nothing leaves this machine anyway).
            with open(os.path.join(home, ".claude.json"), "w") as f:
                json.dump({"cachedGrowthBookFeatures": {k: json.loads(v) for k, v in (kv.split("=", 1) for kv in a.flag)}}, f)
            for k in ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "DISABLE_TELEMETRY", "DISABLE_ERROR_REPORTING"):
                env.pop(k)
        if a.tool_search:
            # What users of api.anthropic.com get: Claude Code turns tool search off for a
            # base URL that is not first-party, and this switch turns it back on.
            env["ENABLE_TOOL_SEARCH"] = "true"
        try:
            r = sh([claude, "-p", prompt, "--output-format", "json", "--allowedTools", "Agent,Task"],
                   env=env, cwd=proj, timeout=300)
        finally:
            srv.terminate()
            srv.wait(10)
        reqs = [e for e in load_log(log)[n0:]
                if e.get("method") == "POST" and e.get("path", "").split("?")[0] == "/v1/messages"
                and isinstance(e.get("body"), dict)]
        return r, reqs

    r, reqs = run("[mp-main] hi", {"plans": [{"match": "[mp-main]", "steps": [], "final": "ok"}]})
    main = [e["body"] for e in reqs if e["body"].get("tools")
            and "[mp-main]" in json.dumps(e["body"]["messages"])]
    if not main:
        out["error"] = f"no main request (rc {r.returncode}): {r.stderr[-500:]} {r.stdout[-500:]}"
        return out
    b = main[0]
    out["model"] = b.get("model")
    out["tools"] = len(b["tools"])
    out["main_bytes4"] = len(json.dumps(b.get("system", "")) + json.dumps(b["tools"])) // 4
    out["main"], out["main_deferred"] = billed(a.ctxctl, work, "main", b)
    out["main_reminders"] = reminders(a.ctxctl, work, "main", b, "[mp-main] hi")
    sub_tool = next((t for t in b["tools"] if t.get("name") in ("Agent", "Task")), None)
    if sub_tool is None:
        return out
    props = (sub_tool.get("input_schema") or {}).get("properties", {})
    inp = {"description": "Say hello", "prompt": "[mp-sa] say hello"}
    if "subagent_type" in props:
        inp["subagent_type"] = "general-purpose"
    script = {"plans": [
        {"match": "[mp-sub]", "steps": [{"tools": [{"name": sub_tool["name"], "input": inp}]}], "final": "done"},
        {"match": "[mp-sa]", "steps": [], "final": "hello"},
    ]}
    r, reqs = run("[mp-sub] use a subagent", script)
    sub = [e["body"] for e in reqs if "[mp-sa]" in json.dumps(e["body"]["messages"])
           and "[mp-sub]" not in json.dumps(e["body"]["messages"])]
    if sub:
        s = sub[0]
        out["subagent_tools"] = len(s.get("tools") or [])
        out["subagent_bytes4"] = len(json.dumps(s.get("system", "")) + json.dumps(s.get("tools") or [])) // 4
        out["subagent"], out["subagent_deferred"] = billed(a.ctxctl, work, "sub", s)
    else:
        out["subagent_error"] = f"no subagent request (rc {r.returncode})"
    return out


# --- Codex --------------------------------------------------------------------------------

def codex(a, version, work):
    here = os.path.join(a.realclients, "codex")
    npm_install("@openai/codex", version, os.path.join(work, "npm"))
    bin_ = os.path.join(work, "npm", "node_modules", ".bin", "codex")
    proj = os.path.join(work, "proj")
    home = os.path.join(work, "codex-home")
    os.makedirs(proj, exist_ok=True)
    os.makedirs(home, exist_ok=True)
    log = os.path.join(work, "server.jsonl")
    pf = os.path.join(work, "port")
    out = {"agent": "codex", "version": version}
    # The server and codex share one loopback-only network namespace: Codex looks names up
    # even with a local provider, and nothing may leave the machine.
    inner = f"""
set -e
ip link set lo up
python3 {here}/fake_responses_server.py --port-file {pf} --log {log} --lifetime 600 --idle 120 &
SRV=$!
for i in $(seq 100); do [ -f {pf} ] && break; sleep 0.1; done
PORT=$(cat {pf})
cat > {home}/config.toml <<EOF
model_provider = "fake"
[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:$PORT/v1"
wire_api = "responses"
env_key = "FAKE_API_KEY"
EOF
cd {proj}
CODEX_HOME={home} HOME={work} FAKE_API_KEY=dummy-not-a-key timeout 300 {bin_} exec \
  --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox hi </dev/null || true
kill $SRV
"""
    r = sh(["unshare", "-rn", "bash", "-c", inner], timeout=400)
    reqs = [e["body"] for e in load_log(log) if isinstance(e.get("body"), dict) and "input" in e["body"]]
    if not reqs:
        out["error"] = f"no request (rc {r.returncode}): {r.stderr[-800:]}"
        return out
    b = reqs[0]
    metas = []
    for p in glob.glob(os.path.join(home, "sessions", "**", "rollout-*.jsonl"), recursive=True):
        with open(p) as f:
            first = json.loads(f.readline())
        metas.append(first.get("payload", first))
    stored = any(((m.get("base_instructions") or {}).get("text") or "") for m in metas)
    # From 0.150 the tools travel as an `additional_tools` input item, not in `tools`; the
    # rollout does not store it.
    tools = list(b.get("tools") or [])
    for it in b.get("input") or []:
        if isinstance(it, dict) and it.get("type") == "additional_tools":
            tools += it.get("tools") or []
    out["model"] = b.get("model")
    out["tools"] = len(tools)
    out["instructions_stored"] = stored
    out["tools_only"] = hidden(a.ctxctl, work, "tools", b.get("model"), None, tools)
    out["instructions_and_tools"] = hidden(a.ctxctl, work, "all", b.get("model"), b.get("instructions") or None,
                                           tools)
    out["bytes4"] = len(json.dumps(b.get("instructions") or "") + json.dumps(tools)) // 4
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ctxctl", required=True)
    ap.add_argument("--realclients", default=REALCLIENTS)
    ap.add_argument("--keep", action="store_true", help="keep each install and its logs in /tmp")
    ap.add_argument("--flag", action="append", default=[], metavar="NAME=false",
                    help="Claude Code: a feature flag's value (repeatable; the value as JSON)")
    ap.add_argument("--tool-search", action="store_true",
                    help="Claude Code: run with tool search on, as against api.anthropic.com")
    ap.add_argument("agent", choices=["claude-code", "codex"])
    ap.add_argument("versions", nargs="+")
    a = ap.parse_args()
    a.ctxctl = os.path.abspath(a.ctxctl)
    a.realclients = os.path.abspath(a.realclients)
    for v in a.versions:
        work = f"/tmp/measure-priors-{a.agent}-{v}"
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        try:
            res = (claude_code if a.agent == "claude-code" else codex)(a, v, work)
        except (SystemExit, subprocess.TimeoutExpired, OSError, ValueError, KeyError) as e:
            res = {"agent": a.agent, "version": v, "error": str(e)[-800:]}
        print(json.dumps(res), flush=True)
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
