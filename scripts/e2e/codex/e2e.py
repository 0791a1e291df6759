#!/usr/bin/env python3
"""ctxctl against the real Codex CLI, offline. Run through ../codex.sh.

Adapted from the shared harness (shared/realclients/codex/); rollouts ctxctl rewrote are
resumed as written (no ordinals added by the harness), and the rescue uses
`compact --if-needed` with the window the rollout records.

Prints one PASS / FAIL / INFO line per check and a summary line; writes
WORK/results.json and WORK/results.md.
"""

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import rollout_tool  # noqa: E402

PROMPT = "what did we do so far?"
RESULTS = []
SIZES = []
ERRORS_SEEN = []


def check(cid, ok, msg):
    """ok: True PASS, False FAIL, None INFO, "warn" WARN (not counted as a failure)."""
    if ok is not None and ok != "warn":
        ok = bool(ok)
    status = {True: "PASS", False: "FAIL", None: "INFO", "warn": "WARN"}[ok]
    RESULTS.append({"id": cid, "status": status, "msg": msg})
    print(f"{status}  {cid}: {msg}", flush=True)
    return ok


def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def last_line(s):
    lines = [ln for ln in (s or "").splitlines() if ln.strip() and "PATH aliases" not in ln
             and not re.match(r"^\s+\d+: ", ln) and "Stack backtrace" not in ln and "Reading additional input" not in ln]
    return lines[-1].strip() if lines else ""


def codex_error(out, err):
    """Codex's own words for a failure: the --json error events, else the stderr Error line."""
    msgs = []
    for ln in (out or "").splitlines():
        try:
            ev = json.loads(ln)
        except ValueError:
            continue
        if ev.get("type") == "error":
            msgs.append(ev.get("message", ""))
        elif ev.get("type") == "turn.failed":
            msgs.append((ev.get("error") or {}).get("message", ""))
    errs = [ln.strip() for ln in (err or "").splitlines() if ln.startswith("Error:")]
    if not errs:
        errs = [re.sub(r"^\S+Z\s+", "", ln.strip()) for ln in (err or "").splitlines() if " ERROR " in ln][:1]
    msgs.extend(errs)
    seen = []
    for m in msgs:
        if m and m not in seen:
            seen.append(m)
    return " | ".join(seen[:3]) or last_line(err)


class Session:
    """A Codex home + working directory that can be reset to a snapshot."""

    def __init__(self, h, name):
        self.h = h
        self.name = name
        self.root = os.path.join(h.work, name)
        self.home = os.path.join(self.root, "home")
        self.codex_home = os.path.join(self.home, ".codex")
        self.cwd = os.path.join(self.root, "work")
        self.snapshot = os.path.join(h.work, f"{name}.tar")
        self.sid = None
        self.baseline = None  # the request of a resume of the untouched rollout

    def rollout(self):
        files = sorted(glob.glob(os.path.join(self.codex_home, "sessions", "*", "*", "*", "rollout-*.jsonl")))
        return files[-1] if files else None

    def save(self):
        sh(["tar", "-C", self.root, "-cf", self.snapshot, "."])

    def reset(self):
        shutil.rmtree(self.root, ignore_errors=True)
        os.makedirs(self.root)
        r = sh(["tar", "-C", self.root, "-xf", self.snapshot])
        assert r.returncode == 0, r.stderr

    def env(self):
        return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": self.home, "CODEX_HOME": self.codex_home,
                "FAKE_API_KEY": "dummy-not-a-key", "LANG": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1",
                "RUST_BACKTRACE": "0"}

    def codex(self, args, timeout=240):
        base = ["--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "--json"]
        if args[0] == "resume":
            cmd = [self.h.codex, "exec", "resume"] + base + args[1:]
        else:
            cmd = [self.h.codex, "exec"] + base + args
        try:
            r = subprocess.run(cmd, cwd=self.cwd, env=self.env(), stdin=subprocess.DEVNULL,
                               capture_output=True, text=True, timeout=timeout)
            return r.returncode, r.stdout, r.stderr
        except subprocess.TimeoutExpired as e:
            return 124, e.stdout or "", (e.stderr or "") + "\n(timeout)"

    def write_config(self, extra=""):
        os.makedirs(self.codex_home, exist_ok=True)
        with open(os.path.join(self.codex_home, "config.toml"), "w") as f:
            f.write(f'model = "gpt-5.5"\nmodel_provider = "fake"\n{extra}\n'
                    f'[model_providers.fake]\nname = "fake"\n'
                    f'base_url = "http://127.0.0.1:{self.h.port}/v1"\n'
                    f'wire_api = "responses"\nenv_key = "FAKE_API_KEY"\n')

    def resume(self, prompt=PROMPT):
        n0 = self.h.log_len()
        rc, out, err = self.codex(["resume", self.sid, prompt])
        reqs = [r for r in self.h.requests_since(n0) if r.get("path", "").endswith("/responses")]
        return rc, out, err, reqs


class Harness:
    def __init__(self, a):
        self.ctxctl_bin = a.ctxctl
        self.codex = a.codex
        self.work = a.work
        self.log = os.path.join(a.work, "server.jsonl")
        self.control = os.path.join(a.work, "control.json")
        self.port = None
        self.server = None

    def start_server(self):
        pf = os.path.join(self.work, "port")
        if os.path.exists(pf):
            os.remove(pf)
        self.server = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "fake_responses_server.py"), "--port-file", pf, "--log", self.log,
             "--control", self.control, "--lifetime", "2400", "--idle", "900", "--max-requests", "2000"],
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.work, "server.err"), "w"))
        for _ in range(100):
            if os.path.exists(pf):
                self.port = int(open(pf).read())
                return
            time.sleep(0.1)
        raise SystemExit("fake server did not start")

    def stop_server(self):
        if self.server and self.server.poll() is None:
            self.server.terminate()
            try:
                self.server.wait(10)
            except subprocess.TimeoutExpired:
                self.server.kill()

    def set_limit(self, n):
        with open(self.control, "w") as f:
            json.dump({"max_input_tokens": n}, f)

    def log_len(self):
        if not os.path.exists(self.log):
            return 0
        with open(self.log) as f:
            return sum(1 for _ in f)

    def requests_since(self, n0):
        return rollout_tool.load_log(self.log, n0) if os.path.exists(self.log) else []

    def ctxctl(self, case, args, stdin=None):
        d = os.path.join(self.work, "ctxctl", case)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.path.join(d, "home"),
               "XDG_DATA_HOME": os.path.join(d, "data"), "XDG_CACHE_HOME": os.path.join(d, "cache"),
               "XDG_CONFIG_HOME": os.path.join(d, "config"), "NO_COLOR": "1", "LANG": "C.UTF-8"}
        for k in ("HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
            os.makedirs(env[k], exist_ok=True)
        r = subprocess.run([self.ctxctl_bin] + args, capture_output=True, text=True, env=env, input=stdin,
                           timeout=300)
        return r.returncode, r.stdout, r.stderr

    def ctxctl_file(self, case, args):
        """`ctxctl_json` of a command over one file: its entry of the `files` array."""
        rc, js, err = self.ctxctl_json(case, args)
        files = (js or {}).get("files") or [None]
        return rc, files[0], err

    def ctxctl_json(self, case, args):
        rc, out, err = self.ctxctl(case, args + ["--json"])
        try:
            return rc, json.loads(out), err
        except ValueError:
            return rc, None, err

    def count_input(self, case, req):
        """ctxctl's o200k count of the text Codex actually sent (input items as chat JSONL)."""
        path = os.path.join(self.work, "ctxctl", case + ".request-input.jsonl")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            for m in rollout_tool.input_as_chat(req["body"]["input"]):
                f.write(json.dumps(m) + "\n")
        rc, js, err = self.ctxctl_json(case, ["count", path, "--format", "jsonl", "--model", "gpt-5.5",
                                              "--no-cache"])
        return js["files"][0]["tokens"] if rc == 0 and js else None


# ------------------------------------------------------------------------------------
# helpers on requests

def req_texts(req):
    out = []
    for it in req["body"]["input"]:
        if it.get("type", "message") == "message":
            out.append("\n".join(p.get("text", "") for p in it.get("content") or [] if isinstance(p, dict)))
    return out


def req_ids(req):
    ids = set()
    for it in req["body"]["input"]:
        for k in ("id", "call_id"):
            if isinstance(it.get(k), str):
                ids.add(it[k])
    return ids


def item_ids(items):
    ids = set()
    for it in items:
        for k in ("id", "call_id"):
            if isinstance(it.get(k), str):
                ids.add(it[k])
    return ids


def size_of(req):
    inp = req["body"]["input"]
    return {"items": len(inp), "input_bytes": len(json.dumps(inp)), "body_bytes": req["body_bytes"],
            "est_tokens": req.get("est_input_tokens")}


def context_dups(req):
    """How often Codex's injected context messages occur in a request."""
    n = {"<skills_instructions>": 0, "<environment_context>": 0}
    for t in req_texts(req):
        for k in n:
            if t.startswith(k):
                n[k] += 1
    return n


def ctxctl_summary_item(rollout):
    """The message ctxctl inserted (it carries a `ctxctl` key) in the newest compacted record."""
    found = None
    for _, r in rollout_tool.records(rollout):
        if r.get("type") == "compacted":
            for it in (r.get("payload") or {}).get("replacement_history") or []:
                if isinstance(it, dict) and "ctxctl" in it:
                    found = it
    return found


def failing_commands(rollout):
    n = 0
    for _, r in rollout_tool.records(rollout):
        p = r.get("payload") or {}
        if r.get("type") == "response_item" and p.get("type") == "function_call_output":
            m = re.search(r"Process exited with code (\d+)", str(p.get("output")))
            if m and m.group(1) != "0":
                n += 1
    return n


def model_context_window(rollout):
    w = None
    for _, r in rollout_tool.records(rollout):
        p = r.get("payload") or {}
        if r.get("type") == "event_msg" and p.get("type") == "task_started":
            w = p.get("model_context_window") or w
    return w


# ------------------------------------------------------------------------------------
# phases

def server_selftest(h):
    """The fake server rejects what the real API rejects (sent straight to it, not via Codex)."""
    import urllib.error
    import urllib.request

    def post(inp):
        body = json.dumps({"model": "gpt-5.5", "stream": True, "input": inp}).encode()
        rq = urllib.request.Request(f"http://127.0.0.1:{h.port}/v1/responses", data=body,
                                    headers={"content-type": "application/json"})
        try:
            with urllib.request.urlopen(rq, timeout=10) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    user = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}
    call = {"type": "function_call", "call_id": "c1", "name": "exec_command", "arguments": "{}"}
    out = {"type": "function_call_output", "call_id": "c1", "output": "ok"}
    rs = {"type": "reasoning", "id": "rs_x", "summary": [], "encrypted_content": "e"}
    cases = [
        ("orphan output", [user, out], "No tool call found for function call output with call_id c1."),
        ("call without output", [user, call], "No tool output found for function call c1."),
        ("unknown key", [dict(user, ctxctl={"x": 1})], "Unknown parameter: 'input[0].ctxctl'."),
        ("reasoning alone", [user, rs, user], "Item 'rs_x' of type 'reasoning' was provided without its required following item."),
        ("duplicate id", [dict(user, id="m1"), dict(user, id="m1")], "Duplicate item found with id m1."),
        ("valid", [user, rs, call, out], None),
    ]
    bad = []
    for label, inp, want in cases:
        st, text = post(inp)
        got = json.loads(text)["error"]["message"] if st == 400 else None
        if (want is None and st != 200) or (want is not None and (st != 400 or not got.startswith(want))):
            bad.append(f"{label}: {st} {got}")
    h.set_limit(5)
    st, text = post([user])
    h.set_limit(0)
    code = json.loads(text)["error"].get("code") if st == 400 else None
    if code != "context_length_exceeded":
        bad.append(f"limit: {st} {code}")
    check("server.rules", not bad, "fake server answers the real API's 400s (orphan output, call without output, "
          "unknown key, lone reasoning, duplicate id, context_length_exceeded) and 200 for a valid input"
          + (f"; wrong: {bad}" if bad else ""))


def build_main(h):
    s = Session(h, "main")
    shutil.rmtree(s.root, ignore_errors=True)
    os.makedirs(s.cwd)
    with open(os.path.join(s.cwd, "calc.py"), "w") as f:
        f.write('"""Tiny calculator."""\n\n\ndef add(a, b):\n    return a - b\n')
    with open(os.path.join(s.cwd, "test_calc.py"), "w") as f:
        f.write('from calc import add\n\nassert add(2, 3) == 5, add(2, 3)\nprint("ok")\n')
    s.write_config()
    n0 = h.log_len()
    rcs = []
    rc, out, err = s.codex(["TASK-A: the test in test_calc.py fails; find out why and fix it."])
    rcs.append(rc)
    for ln in out.splitlines():
        try:
            ev = json.loads(ln)
        except ValueError:
            continue
        if ev.get("type") == "thread.started":
            s.sid = ev["thread_id"]
    if not s.sid:
        check("build.session", False, f"codex exec did not start a thread: rc={rc} {codex_error(out, err)}")
        return None
    for p in ("TASK-B: add a mul() function with a test.", "TASK-C: tidy up the notes into a README."):
        rc, out, err = s.codex(["resume", s.sid, p])
        rcs.append(rc)
        if rc:
            check("build.resume", False, f"rc={rc} {codex_error(out, err)}")
    reqs = [r for r in h.requests_since(n0) if r.get("path", "").endswith("/responses")]
    bad = [r for r in reqs if r.get("status") != 200]
    check("build.session", rcs == [0, 0, 0] and not bad and len(reqs) >= 15,
          f"3 user turns (codex exec + 2x exec resume), {len(reqs)} model requests, "
          f"{len(bad)} not answered 200; thread {s.sid}")
    s.build_requests = reqs
    s.save()
    return s


def build_k(h):
    """A second session in which Codex compacts on its own (small model_auto_compact_token_limit)."""
    s = Session(h, "kses")
    shutil.rmtree(s.root, ignore_errors=True)
    os.makedirs(s.cwd)
    s.write_config("model_auto_compact_token_limit = 10500")
    n0 = h.log_len()
    rc, out, err = s.codex(["TASK-K: print four chunks of output."])
    for ln in out.splitlines():
        try:
            ev = json.loads(ln)
        except ValueError:
            continue
        if ev.get("type") == "thread.started":
            s.sid = ev["thread_id"]
    reqs = h.requests_since(n0)
    kinds = []
    for r in reqs:
        meta = r.get("headers", {}).get("x-codex-turn-metadata", "")
        m = re.search(r'"request_kind":"([a-z_]+)"', meta)
        kinds.append((r.get("path"), m.group(1) if m else "?"))
    ro = s.rollout()
    comp = [r for _, r in rollout_tool.records(ro) if r.get("type") == "compacted"] if ro else []
    ok = rc == 0 and comp and isinstance(comp[-1]["payload"].get("replacement_history"), list)
    check("codex-compaction.recorded", bool(ok),
          f"Codex compacted by itself: requests {kinds}; rollout has {len(comp)} `compacted` record(s)"
          + (f" with payload keys {sorted(comp[-1]['payload'])}" if comp else ""))
    if ok:
        # more tool use after the compaction, with the default compaction limit
        s.write_config()
        rc, out, err = s.codex(["resume", s.sid, "TASK-M: print two more chunks."])
        check("codex-compaction.continued", rc == 0, f"resumed with tool use after Codex's compaction: rc {rc} "
              + (codex_error(out, err) if rc else ""))
    s.save()
    return s if ok else None


def read_checks(h, s):
    ro = s.rollout()
    desc = rollout_tool.describe(ro)
    recs = rollout_tool.records(ro)
    check("format.records", None, "record types in the rollout: " +
          ", ".join(f"{k}×{v['count']}" for k, v in desc.items()))
    meta = recs[0][1]["payload"]
    check("format.paginated", None, f"session_meta.history_mode={meta.get('history_mode')!r}, "
          f"cli_version={meta.get('cli_version')}; every record has an ordinal: "
          f"{not rollout_tool.missing_ordinals(ro)}")
    n_items = len(rollout_tool.replay(ro))
    rc, js, err = h.ctxctl_json("read", ["count", ro])
    f = js["files"][0] if js else {}
    check("read.count", rc == 0 and f.get("format") == "codex" and f.get("messages") == n_items + 1,
          f"ctxctl count: exit {rc}, format {f.get('format')}, model {f.get('model')}, {f.get('messages')} messages "
          f"(rollout: base instructions + {n_items} response items), {f.get('tokens')} tokens")
    s.ctx_tokens = f.get("tokens")
    rc_t, out_t, err_t = h.ctxctl("read", ["count", ro])
    check("read.count-text", rc_t == 0, out_t.strip().replace("\n", " / "))
    rc, js, err = h.ctxctl_file("read", ["stats", ro])
    tools = {t["name"]: t for t in (js or {}).get("tools", [])}
    n_fc = sum(1 for _, r in recs if r.get("type") == "response_item" and r["payload"].get("type") == "function_call")
    n_cc = sum(1 for _, r in recs if r.get("type") == "response_item" and r["payload"].get("type") == "custom_tool_call")
    check("read.stats-tools", rc == 0 and tools.get("exec_command", {}).get("calls") == n_fc
          and tools.get("apply_patch", {}).get("calls") == n_cc,
          f"stats tools {[(k, v['calls']) for k, v in tools.items()]} vs rollout function_call×{n_fc}, "
          f"custom_tool_call×{n_cc}")
    fails = failing_commands(ro)
    errs = sum(t.get("errors", 0) for t in tools.values())
    check("read.stats-errors", errs == fails,
          f"stats counts {errs} failed tool calls; the rollout has {fails} exec_command outputs with "
          f"'Process exited with code' != 0")
    last = None
    for _, r in recs:
        p = r.get("payload") or {}
        if r.get("type") == "event_msg" and p.get("type") == "token_count" and p.get("info"):
            last = p["info"]["last_token_usage"]["input_tokens"]
    rep = (js or {}).get("reported") or {}
    check("read.reported-usage", rep.get("input_tokens") == last,
          f"stats reported input {rep.get('input_tokens')} vs last token_count {last}")
    rc, cj, err = h.ctxctl_file("read", ["check", ro])
    win = model_context_window(ro)
    check("read.check", rc == 0 and (cj or {}).get("status") == "ok",
          f"check exit {rc}: status {(cj or {}).get('status')}, {(cj or {}).get('tokens')} / "
          f"{(cj or {}).get('effective_limit')}")
    check("read.check-window", (cj or {}).get("context_window") is not None and win is not None
          and (cj or {}).get("effective_limit", 0) <= win,
          f"ctxctl's window for gpt-5.5 is {(cj or {}).get('context_window')} (effective "
          f"{(cj or {}).get('effective_limit')}); Codex records model_context_window={win} in the rollout")
    # ctxctl's count vs what Codex sent in the last request of the session
    last_req = s.build_requests[-1]
    tok = h.count_input("read-lastreq", last_req)
    check("read.count-vs-request", None,
          f"last request of the session: {size_of(last_req)}; ctxctl count of its input text {tok} tokens; "
          f"ctxctl count of the rollout {s.ctx_tokens} tokens; server measure (body bytes/4) {last_req['est_input_tokens']}")
    return ro


def baseline(h, s, label):
    s.reset()
    untouched = rollout_tool.replay(s.rollout())
    rc, out, err, reqs = s.resume()
    ok = rc == 0 and reqs and reqs[-1]["status"] == 200
    if ok:
        s.baseline = reqs[-1]
        s.baseline_items = untouched
        tok = h.count_input(f"{label}-baseline", s.baseline)
        SIZES.append({"case": f"{label}: untouched rollout", "status": 200, **size_of(s.baseline),
                      "request_tokens": tok, "ctxctl_tokens": getattr(s, "ctx_tokens", None)})
    check(f"{label}.baseline-resume", bool(ok),
          f"resume of the untouched rollout: rc {rc}, {len(reqs)} request(s), "
          + (f"{size_of(reqs[-1])}" if reqs else codex_error(out, err)))
    s.reset()


def analyze_request(h, s, name, req, kind, rewritten, what_if):
    tag = " (what-if: ordinals added)" if what_if else ""
    valid = req["status"] == 200
    check(f"{name}.request-valid{'-whatif' if what_if else ''}", valid,
          f"request answered {req['status']}" + (f": {req['errors'][0]['message']}" if req.get("errors") else
                                                  ": every call has its output and vice versa, no unknown keys, no duplicate ids") + tag)
    if not valid:
        ERRORS_SEEN.append((name, req["errors"][0]["message"]))
    pair = [w for w in req.get("warnings") or [] if "required 'reasoning'" in w]
    if pair:
        check(f"{name}.reasoning-pairs", "warn", f"{len(pair)} output item(s) sent without the reasoning item they "
              f"were produced with (the real API may reject this): {pair[0]}" + tag)
    texts = req_texts(req)
    sent = req_ids(req)
    new_items = rollout_tool.replay(rewritten)
    base_ids = item_ids(s.baseline_items) if s.baseline is not None else set()
    removed = base_ids - item_ids(new_items)
    leaked = sorted(removed & sent)
    kept_missing = sorted(item_ids(new_items) - sent)
    if kind == "compact":
        summ = ctxctl_summary_item(rewritten)
        stext = summ["content"][0]["text"] if summ else ""
        present = bool(stext) and any(stext[:300] in t for t in texts)
        check(f"{name}.summary-sent", present, ("ctxctl's summary is in the request's input" if present else
                                               "ctxctl's summary is NOT in the request") + tag)
        no_key = all("ctxctl" not in it for it in req["body"]["input"])
        check(f"{name}.no-ctxctl-key-sent", no_key, "the summary's `ctxctl` key is dropped by Codex before sending" + tag)
        if name == "compact.in-place" and stext:
            # The summary lists every user request verbatim, oldest first ("1. …").
            section = stext.split("## User requests (verbatim, oldest first)", 1)
            first = section[1].split("##", 1)[0].strip().split("\n", 1)[0] if len(section) == 2 else ""
            goal = first.split(". ", 1)[-1].strip()
            check("summary.first-request", goal.startswith("TASK-A") and "environment_context" not in section[-1].split("##", 1)[0],
                  f"the summary's first user request is {goal[:60]!r}… (the user's first prompt was "
                  f"'TASK-A: …'; <environment_context> is a message Codex injects and is no request)")
            files = stext.split("## Files", 1)[1].split("##", 1)[0] if "## Files" in stext else ""
            check("summary.files", "calc.py" in files and "NOTES.md" in files,
                  "the summary lists the files apply_patch changed (calc.py modified, NOTES.md added): "
                  + (files.strip().replace(chr(10), " ")[:160] if files else "no '## Files' section"))
    if kind == "smart":
        marker = any(re.search(r"messages? omitted", t) for t in texts)
        check(f"{name}.marker-sent", marker, "smart's omission marker is in the request" + tag)
    if removed:
        check(f"{name}.removed-absent", not leaked,
              f"{len(removed)} ids/call_ids removed by ctxctl, {len(leaked)} of them still sent {leaked[:4]}" + tag)
    check(f"{name}.kept-sent", not kept_missing,
          f"every item of the rewritten history is sent ({len(kept_missing)} missing {kept_missing[:4]})" + tag)
    if s.baseline is not None:
        b, a = size_of(s.baseline), size_of(req)
        smaller = a["input_bytes"] < b["input_bytes"]
        check(f"{name}.smaller", smaller if kind not in ("restore",) else None,
              f"input {b['items']} → {a['items']} items, {b['input_bytes']} → {a['input_bytes']} bytes, "
              f"est {b['est_tokens']} → {a['est_tokens']} tokens" + tag)
        d0, d1 = context_dups(s.baseline), context_dups(req)
        check(f"{name}.no-duplicate-context", d1 == d0,
              f"Codex context messages in the request {d1} (untouched resume: {d0})" + tag)
    tok = h.count_input(name, req)
    rc, js, err = h.ctxctl_json(name + "-post", ["count", rewritten])
    ctx_tokens = js["files"][0]["tokens"] if rc == 0 and js else None
    SIZES.append({"case": name + tag, "status": req["status"], **size_of(req), "request_tokens": tok,
                  "ctxctl_tokens": ctx_tokens})


def rewrite_case(h, s, name, args_fn, kind):
    """Rewrite the session's rollout with ctxctl, then resume it with the real Codex."""
    s.reset()
    ro = s.rollout()
    before = open(ro, "rb").read()
    args = args_fn(ro)
    rc, out, err = h.ctxctl(name, args)
    shown = " ".join(a if a != ro else "ROLLOUT" for a in args)
    if not check(f"{name}.ctxctl", rc == 0, f"`ctxctl {shown}` exit {rc}: {last_line(out) or last_line(err)}"):
        return
    after = open(ro, "rb").read()
    if after == before:
        check(f"{name}.changed", False, "ctxctl left the rollout unchanged")
        return
    appended = after[len(before):] if after.startswith(before) else None
    types = []
    if appended is not None:
        for ln in appended.decode().splitlines():
            if ln.strip():
                r = json.loads(ln)
                types.append(r.get("type") + ("/" + r["payload"].get("type") if r.get("type") == "event_msg" else ""))
    check(f"{name}.append-only", appended is not None,
          f"original bytes kept, appended {types}" if appended is not None else "original lines changed")
    missing = rollout_tool.missing_ordinals(ro)
    check(f"{name}.ordinals", not missing, f"records without `ordinal`: lines {missing}")
    rep = rollout_tool.replay(ro)
    body = {"input": rep + [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "x"}]}]}
    from responses_rules import validate
    errs, _ = validate(body)
    check(f"{name}.replay-valid", not errs, f"offline replay of the rewritten rollout: {len(rep)} items, "
          + ("valid" if not errs else errs[0]["message"]))
    rc_c, cj, _ = h.ctxctl_file(name + "-check", ["check", ro])
    rc_n, nj, _ = h.ctxctl_json(name + "-check", ["count", ro])
    ntok = nj["files"][0]["tokens"] if nj else None
    check(f"{name}.check-after", (cj or {}).get("tokens") == ntok and (not errs or (cj or {}).get("problems")),
          f"ctxctl check on the rewritten rollout: {(cj or {}).get('tokens')} tokens (ctxctl count {ntok}; the "
          f"usage Codex reported before the rewrite must not count), problems {(cj or {}).get('problems')}"
          + (" although the Responses API would reject the replayed history" if errs else ""))
    keep = os.path.join(h.work, "rewritten", name + ".jsonl")
    os.makedirs(os.path.dirname(keep), exist_ok=True)
    shutil.copyfile(ro, keep)
    # 1) resume as ctxctl wrote it
    rc, out, err, reqs = s.resume()
    ok = rc == 0 and reqs and reqs[-1]["status"] == 200
    msg = codex_error(out, err) if not reqs else f"request answered {reqs[-1]['status']}"
    check(f"{name}.resume", bool(ok), f"`codex exec resume {s.sid[:8]}… \"{PROMPT}\"`: rc {rc}, "
          f"{len(reqs)} request(s) sent; {msg}")
    if not reqs:
        ERRORS_SEEN.append((name, msg))
    if reqs:
        analyze_request(h, s, name, reqs[-1], kind, keep, False)
    if reqs and reqs[-1]["status"] == 200:
        # ctxctl reads what Codex appended after its resume
        rc2, js, _ = h.ctxctl_json(name + "-resumed", ["count", ro])
        n = js["files"][0]["messages"] if rc2 == 0 and js else None
        want = len(reqs[-1]["body"]["input"]) + 1
        check(f"{name}.ctxctl-reads-resumed", n == want,
              f"ctxctl count after Codex resumed: {n} messages; the request had {want - 1} input items + 1 answer")


def resume_no_path_case(h, s, tail):
    """`ctxctl compact --resume` in the project directory, no path: ctxctl finds the
    newest rollout of the directory, compacts it in place and execs `codex resume ID`
    through CTXCTL_CODEX_BIN, here a wrapper that runs the non-interactive form of that
    command (`codex exec resume … ID PROMPT`) with the words ctxctl passes after `--`."""
    name = "compact.resume-no-path"
    s.reset()
    ro = s.rollout()
    before = open(ro, "rb").read()
    wrapper = os.path.join(h.work, "codex-resume-wrapper")
    with open(wrapper, "w") as f:
        f.write('#!/bin/sh\n[ "$1" = resume ] || { echo "not a resume: $*" >&2; exit 97; }\n'
                'id=$2; shift 2\n'
                '# what ctxctl handed over, before codex appends to it\n'
                'cp "$CODEX_HOME"/sessions/*/*/*/rollout-*"$id".jsonl "$HANDED_OVER" || exit 98\n'
                'exec "$REAL_CODEX" exec resume --skip-git-repo-check '
                '--dangerously-bypass-approvals-and-sandbox --json "$id" "$@"\n')
    os.chmod(wrapper, 0o755)
    d = os.path.join(h.work, "ctxctl", name)
    env = s.env()
    env.update({"XDG_DATA_HOME": os.path.join(d, "data"), "XDG_CACHE_HOME": os.path.join(d, "cache"),
                "XDG_CONFIG_HOME": os.path.join(d, "config"),
                "CTXCTL_CODEX_BIN": wrapper, "REAL_CODEX": h.codex,
                "HANDED_OVER": os.path.join(d, "handed-over.jsonl")})
    os.makedirs(d, exist_ok=True)
    n0 = h.log_len()
    args = ["compact", "--tail-tokens", tail, "--resume", "--", PROMPT]
    r = subprocess.run([h.ctxctl_bin] + args, cwd=s.cwd, env=env, stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=300)
    reqs = [q for q in h.requests_since(n0) if q.get("path", "").endswith("/responses")]
    check(f"{name}.names-session", f"using the newest session of {s.cwd}: codex {s.sid[:8]}" in r.stderr,
          f"`ctxctl {' '.join(args)}` in the project dir says which rollout: {last_line(r.stderr.split(chr(10) + 'ctxctl: resuming')[0])}")
    check(f"{name}.hands-over", f"resuming: cd {s.cwd} && {wrapper} resume {s.sid}" in r.stderr,
          f"ctxctl execs `codex resume {s.sid[:8]}…` in the project dir")
    after = open(env["HANDED_OVER"], "rb").read() if os.path.exists(env["HANDED_OVER"]) else before
    check(f"{name}.compacted", after != before and b"ctxctl" in after[len(before):],
          "the rollout was compacted in place before the resume")
    ok = r.returncode == 0 and reqs and reqs[-1]["status"] == 200
    check(f"{name}.resume", bool(ok), f"the real codex resumed the compacted rollout: rc {r.returncode}, "
          f"{len(reqs)} request(s); " + (f"answered {reqs[-1]['status']}" if reqs else codex_error(r.stdout, r.stderr)))
    if reqs:
        keep = os.path.join(h.work, "rewritten", name + ".jsonl")
        os.makedirs(os.path.dirname(keep), exist_ok=True)
        with open(keep, "wb") as f:
            f.write(after)
        analyze_request(h, s, name, reqs[-1], "compact", keep, False)


def restore_cases(h, s):
    # a) compact, restore before Codex touched the file: byte-identical?
    s.reset()
    ro = s.rollout()
    orig = open(ro, "rb").read()
    tail = str(max(500, int((s.ctx_tokens or 10000) * 0.25)))
    rc, js, err = h.ctxctl_json("restore-a", ["compact", ro, "--tail-tokens", tail, "--in-place"])
    aid = (js or {}).get("archive_id")
    check("restore.compact", bool(rc == 0 and aid), f"compact --in-place: archive {aid}")
    if not aid:
        return
    rc, out, err = h.ctxctl("restore-a", ["archive", "ls"])
    check("restore.archive-ls", rc == 0 and aid.split("/")[0] in out, f"archive ls lists {aid}")
    rc, out, err = h.ctxctl("restore-a", ["archive", "show", aid])
    check("restore.archive-show", rc == 0 and "summary" in out, f"archive show exit {rc}")
    rc, out, err = h.ctxctl("restore-a", ["archive", "restore", aid])
    same = open(ro, "rb").read() == orig
    check("restore.byte-identical", rc == 0 and same, f"archive restore exit {rc}: {last_line(out) or last_line(err)}; "
          f"file byte-identical to the original: {same}")
    rc, out, err, reqs = s.resume()
    ok = rc == 0 and reqs and reqs[-1]["status"] == 200
    same_items = ok and s.baseline is not None and len(reqs[-1]["body"]["input"]) == len(s.baseline["body"]["input"])
    check("restore.resume", bool(ok and same_items),
          f"resume after restore: rc {rc}; " + (f"{size_of(reqs[-1])} (untouched resume had "
                                                f"{size_of(s.baseline)['items']} items)" if reqs else codex_error(out, err)))
    # b) compact, Codex resumes, then restore
    s.reset()
    ro = s.rollout()
    rc, js, err = h.ctxctl_json("restore-b", ["compact", ro, "--tail-tokens", tail, "--in-place"])
    aid = (js or {}).get("archive_id")
    rc, out, err, reqs = s.resume()
    check("restore.after-resume.resume1", rc == 0 and reqs and reqs[-1]["status"] == 200,
          "compacted rollout resumed once, Codex appended its records")
    rc, out, err = h.ctxctl("restore-b", ["archive", "restore", aid])
    check("restore.after-resume.restore", rc == 0, f"archive restore after Codex appended: exit {rc}: "
          f"{last_line(out) or last_line(err)}")
    if rc:
        return
    missing = rollout_tool.missing_ordinals(ro)
    check("restore.after-resume.ordinals", not missing, f"records without `ordinal` after restore: lines {missing}")
    keep = os.path.join(h.work, "rewritten", "restore-after-resume.jsonl")
    shutil.copyfile(ro, keep)
    rc, out, err, reqs = s.resume()
    ok = rc == 0 and reqs and reqs[-1]["status"] == 200
    check("restore.after-resume.resume2", bool(ok), f"resume after restore: rc {rc}, {len(reqs)} request(s); "
          + (f"answered {reqs[-1]['status']}" if reqs else codex_error(out, err)))
    if reqs:
        req = reqs[-1]
        texts = req_texts(req)
        has_summary = any("Offline summary of" in t for t in texts)
        middle = {"call_A03_0", "call_A05_0"} & req_ids(req)
        check("restore.after-resume.content", not has_summary and len(middle) == 2,
              f"request after restore: summary present {has_summary}, restored middle call ids present {sorted(middle)}; "
              f"{size_of(req)}")


def restore_trim(h, s):
    """`trim --in-place` archives what it removes; can `archive restore` undo it?"""
    s.reset()
    ro = s.rollout()
    orig = open(ro, "rb").read()
    T = s.ctx_tokens or 10000
    rc, js, err = h.ctxctl_json("restore-trim", ["trim", ro, "--strategy", "fifo", "--max-tokens", str(int(T * 0.7)),
                                                  "--in-place"])
    aid = (js or {}).get("archive")
    rc, out, err = h.ctxctl("restore-trim", ["archive", "ls", "--json"])
    try:
        # The trim's own archive (its report names the file), else the newest listed.
        listed = json.loads(out)
        ids = [a["id"] for a in listed if aid and a.get("path") == aid] or [a["id"] for a in listed]
    except ValueError:
        ids = []
    if not ids:
        check("restore.trim", False, f"trim --in-place left no archive (archive {aid})")
        return
    rc, out, err = h.ctxctl("restore-trim", ["archive", "restore", ids[-1]])
    same = open(ro, "rb").read() == orig
    check("restore.trim", rc == 0 and same,
          f"`archive restore {ids[-1]}` of a `trim --in-place` archive: exit {rc} "
          f"{last_line(err) or last_line(out)}; byte-identical {same}")


def rescue_case(h, s, compact_est):
    base_est = s.baseline["est_input_tokens"]
    limit = (base_est + compact_est) // 2 if compact_est and compact_est < base_est else base_est - 200
    h.set_limit(limit)
    try:
        s.reset()
        ro = s.rollout()
        rc, out, err, reqs = s.resume()
        err_text = codex_error(out, err)
        statuses = [(r["status"], (r.get("errors") or [{}])[0].get("message", "")[:40]) for r in reqs]
        kinds = []
        for r in reqs:
            m = re.search(r'"request_kind":"([a-z_]+)"', r.get("headers", {}).get("x-codex-turn-metadata", ""))
            kinds.append(m.group(1) if m else "?")
        check("rescue.codex-fails", rc != 0 and reqs and reqs[-1]["status"] == 400,
              f"server limit {limit} est tokens (untouched resume needs {base_est}): codex rc {rc}, requests "
              f"{list(zip(kinds, statuses))}; Codex says: {err_text}")
        ERRORS_SEEN.append(("rescue (expected)", err_text))
        rc, cj, err = h.ctxctl_file("rescue", ["check", ro])
        check("rescue.check-over", rc == 1 and (cj or {}).get("status") == "over",
              f"`ctxctl check ROLLOUT` after Codex failed (task_complete.error.codex_error_info="
              f"context_window_exceeded): exit {rc}, status {(cj or {}).get('status')} "
              f"({(cj or {}).get('tokens')} / {(cj or {}).get('effective_limit')}, window "
              f"{(cj or {}).get('context_window')})")
        rc, js, err = h.ctxctl_json("rescue", ["compact", ro, "--if-needed", "--in-place"])
        check("rescue.compact", rc == 0 and (js or {}).get("compacted"),
              f"`ctxctl compact ROLLOUT --if-needed --in-place`: exit {rc}, "
              f"{(js or {}).get('original_tokens')} → {(js or {}).get('compacted_tokens')} tokens {last_line(err)}")
        rc, cj, err = h.ctxctl_file("rescue-after", ["check", ro])
        check("rescue.check-after", rc == 0 and (cj or {}).get("status") == "ok",
              f"`ctxctl check ROLLOUT` after the compaction: exit {rc}, status {(cj or {}).get('status')}")
        keep = os.path.join(h.work, "rewritten", "rescue.jsonl")
        shutil.copyfile(ro, keep)
        rc, out, err, reqs = s.resume()
        ok = rc == 0 and reqs and reqs[-1]["status"] == 200 and reqs[-1]["est_input_tokens"] <= limit
        check("rescue.resume", bool(ok), f"resume after ctxctl compact: rc {rc}, {len(reqs)} request(s); "
              + (f"answered {reqs[-1]['status']}, est {reqs[-1]['est_input_tokens']} ≤ limit {limit}: "
                 f"{size_of(reqs[-1])}" if reqs else codex_error(out, err)))
        if reqs:
            SIZES.append({"case": "rescue (limit %d)" % limit, "status": reqs[-1]["status"], **size_of(reqs[-1]),
                          "request_tokens": h.count_input("rescue", reqs[-1]), "ctxctl_tokens": (js or {}).get("compacted_tokens")})
    finally:
        h.set_limit(0)


def k_checks(h, k):
    ro = k.rollout()
    n_items = len(rollout_tool.replay(ro))
    rc, js, err = h.ctxctl_json("k", ["count", ro])
    f = js["files"][0] if js else {}
    k.ctx_tokens = f.get("tokens")
    check("codex-compaction.ctxctl-count", rc == 0 and f.get("messages") == n_items + 1,
          f"ctxctl reads the Codex-compacted rollout as {f.get('messages')} messages (replacement_history + later "
          f"items: {n_items} + instructions)")
    rc, js, err = h.ctxctl_json("k", ["stats", ro])
    comps = (((js or {}).get("files") or [{}])[0]).get("compactions")
    check("codex-compaction.stats", bool(comps), f"stats --json compactions: {comps}")
    baseline(h, k, "codex-compaction")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ctxctl", required=True)
    ap.add_argument("--codex", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--fixtures", default="")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    for old in ("main", "kses", "ctxctl", "rewritten", "main.tar", "kses.tar", "server.jsonl", "control.json"):
        p = os.path.join(a.work, old)
        if os.path.isdir(p):
            shutil.rmtree(p)
        elif os.path.exists(p):
            os.remove(p)
    h = Harness(a)
    ver = sh([a.codex, "--version"]).stdout.strip()
    check("setup.codex", bool(ver), f"{ver} ({a.codex})")
    cver = sh([a.ctxctl, "--version"]).stdout.strip()
    check("setup.ctxctl", bool(cver), cver)
    h.start_server()
    try:
        server_selftest(h)
        s = build_main(h)
        if not s:
            return finish(a)
        read_checks(h, s)
        baseline(h, s, "main")
        T = s.ctx_tokens or 10000
        tail = str(max(500, int(T * 0.25)))
        cases = [
            ("compact.in-place", lambda r: ["compact", r, "--tail-tokens", tail, "--in-place"], "compact"),
            ("compact.o-same-path", lambda r: ["compact", r, "--tail-tokens", tail, "-o", r], "compact"),
            ("trim.fifo", lambda r: ["trim", r, "--strategy", "fifo", "--max-tokens", str(int(T * 0.7)), "--in-place"], "trim"),
            ("trim.sliding-window", lambda r: ["trim", r, "--strategy", "sliding-window", "--window", "30", "--in-place"], "trim"),
            ("trim.smart", lambda r: ["trim", r, "--strategy", "smart", "--keep-first", "3", "--keep-last", "30", "--in-place"], "smart"),
            ("trim.selective", lambda r: ["trim", r, "--strategy", "selective", "--keep-roles", "system,developer,user",
                                          "--max-tokens", str(int(T * 0.75)), "--in-place"], "trim"),
            ("trim.composite", lambda r: ["trim", r, "--strategy", "composite", "--chain", "mask-tool-results,fifo",
                                          "--keep-recent", "2", "--max-tokens", str(int(T * 0.5)), "--in-place"], "trim"),
            ("trim.tool-results", lambda r: ["trim", r, "--strategy", "tool-results", "--max-result-tokens", "100", "--in-place"], "trim"),
            ("trim.mask-tool-results", lambda r: ["trim", r, "--strategy", "mask-tool-results", "--keep-recent", "2", "--in-place"], "trim"),
        ]
        for name, fn, kind in cases:
            rewrite_case(h, s, name, fn, kind)
        resume_no_path_case(h, s, tail)
        compact_est = None
        for row in SIZES:
            if row["case"].startswith("compact.in-place") and row["status"] == 200:
                compact_est = row["est_tokens"]
        restore_cases(h, s)
        restore_trim(h, s)
        rescue_case(h, s, compact_est)
        k = build_k(h)
        if k:
            k_checks(h, k)
            rewrite_case(h, k, "codex-compaction.trim-mask",
                         lambda r: ["trim", r, "--strategy", "mask-tool-results", "--keep-recent", "0", "--in-place"], "trim")
            rewrite_case(h, k, "codex-compaction.compact",
                         lambda r: ["compact", r, "--tail-tokens", "300", "--in-place"], "compact")
        if a.fixtures:
            os.makedirs(a.fixtures, exist_ok=True)
            s.reset()
            shutil.copyfile(s.rollout(), os.path.join(a.fixtures, "rollout-codex-0.169-tasks-abc.jsonl"))
            if k:
                k.reset()
                shutil.copyfile(k.rollout(), os.path.join(a.fixtures, "rollout-codex-0.169-self-compacted.jsonl"))
            src = os.path.join(h.work, "rewritten", "compact.in-place.jsonl")
            base = open(os.path.join(a.fixtures, "rollout-codex-0.169-tasks-abc.jsonl"), "rb").read()
            if os.path.exists(src) and open(src, "rb").read().startswith(base):
                with open(os.path.join(a.fixtures, "ctxctl-compact-appended-records.jsonl"), "wb") as f:
                    f.write(open(src, "rb").read()[len(base):])
            check("fixtures", None, f"captured rollouts copied to {a.fixtures}")
    finally:
        h.stop_server()
    return finish(a)


def finish(a):
    with open(os.path.join(a.work, "results.json"), "w") as f:
        json.dump({"checks": RESULTS, "sizes": SIZES, "errors": ERRORS_SEEN}, f, indent=1)
    with open(os.path.join(a.work, "results.md"), "w") as f:
        f.write("| case | status | input items | input bytes | body bytes | est tokens (bytes/4) | "
                "ctxctl count of request input | ctxctl count of rollout |\n|---|---|---|---|---|---|---|---|\n")
        for r in SIZES:
            f.write(f"| {r['case']} | {r['status']} | {r['items']} | {r['input_bytes']} | {r['body_bytes']} | "
                    f"{r['est_tokens']} | {r.get('request_tokens')} | {r.get('ctxctl_tokens')} |\n")
    print("\nrequest sizes:")
    for r in SIZES:
        print(f"  {r['case']:<48} {r['status']}  items {r['items']:>3}  input {r['input_bytes']:>6} B  "
              f"est {r['est_tokens']:>6}  request-text {r.get('request_tokens')}  ctxctl(rollout) {r.get('ctxctl_tokens')}")
    p = sum(1 for r in RESULTS if r["status"] == "PASS")
    fl = sum(1 for r in RESULTS if r["status"] == "FAIL")
    i = sum(1 for r in RESULTS if r["status"] == "INFO")
    w = sum(1 for r in RESULTS if r["status"] == "WARN")
    print("\nfailed checks:")
    for r in RESULTS:
        if r["status"] == "FAIL":
            print(f"  {r['id']}")
    print(f"\nsummary: {p} passed, {fl} failed, {w} warnings, {i} info")
    return 1 if fl else 0


if __name__ == "__main__":
    sys.exit(main())
