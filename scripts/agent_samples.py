"""The sample session of make-samples.py as the transcripts coding agents write: Claude Code
(`~/.claude/projects/<dir>/<session>.jsonl`), Codex CLI (`~/.codex/sessions/.../rollout-*.jsonl`)
and goose (`~/.local/share/goose/sessions/<id>.jsonl`). Record shapes follow the real files in
shared/fixtures and shared/FORMATS.md; ids, timestamps, signatures and encrypted reasoning are
derived from fixed seeds so the output is the same on every run."""
import base64
import hashlib
import json
from datetime import datetime, timedelta, timezone

CWD = "/home/dev/shop"
START = datetime(2026, 3, 14, 9, 12, 3, 417000, tzinfo=timezone.utc)

TEST_ANCHOR = ('def test_total_value_empty_store():\n    inv = Inventory()\n'
               '    assert inv.total_value() == Decimal("0")\n')
NEW_TEST = ('\n\ndef test_total_value_is_decimal_when_empty():\n'
            '    assert isinstance(Inventory().total_value(), Decimal)\n')
OLD_SUM = "        return sum(i.price * i.quantity for i in self.items.values())"
NEW_SUM = '        return sum((i.price * i.quantity for i in self.items.values()), Decimal("0"))'


def compact(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def digest(seed):
    return hashlib.sha256(seed.encode()).digest()


def uid(seed):
    h = digest(seed).hex()
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) % 4]}{h[17:20]}-{h[20:32]}"


def uid7(seed, when):
    """A UUIDv7 (Codex session ids): 48-bit milliseconds, then seeded bits."""
    ms = int(when.timestamp() * 1000)
    h = digest(seed).hex()
    t = f"{ms:012x}"
    return f"{t[:8]}-{t[8:12]}-7{h[1:4]}-{'89ab'[int(h[4], 16) % 4]}{h[5:8]}-{h[8:20]}"


B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def token(seed, n):
    out, i = "", 0
    while len(out) < n:
        for b in digest(f"{seed}/{i}"):
            out += B58[b % len(B58)]
        i += 1
    return out[:n]


def blob(seed, n):
    """Opaque base64 of about n characters (signatures, encrypted reasoning)."""
    raw = b"".join(digest(f"{seed}/{i}") for i in range(n * 3 // 4 // 32 + 1))
    return base64.b64encode(raw).decode()[:n - n % 4]


def stamp(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


class Clock:
    def __init__(self, start):
        self.t = start

    def tick(self, seconds):
        self.t += timedelta(seconds=seconds)
        return self.t


def numbered(text):
    """Claude Code's Read output: `cat -n` style with an arrow."""
    lines = text.split("\n")
    return "\n".join(f"{i + 1:>6}\u2192{line}" for i, line in enumerate(lines))


def plan(x):
    """The session as responses: user prompts and assistant responses made of blocks.
    Tool calls are by intent (shell, read, edit) so each agent can use its own tools."""
    t = x["turns"]
    tests_before = "from decimal import Decimal\n\nfrom shop.inventory import Inventory, Item\n\n\n" + TEST_ANCHOR
    return [
        ("user", t[0][1]),
        ("assistant", [
            ("thinking", "CI fails on one test in tests/test_inventory.py. Run that file first to "
                         "see the actual assertion before reading any code."),
            ("text", t[1][1]),
            ("shell", "pytest -q tests/test_inventory.py", x["pytest_fail"], 1)]),
        ("assistant", [("text", t[3][1]), ("read", "shop/inventory.py", x["inventory"])]),
        ("assistant", [("text", t[5][1])]),
        ("user", t[6][1]),
        ("assistant", [("edit", "shop/inventory.py", OLD_SUM, NEW_SUM, x["inventory"])]),
        ("assistant", [
            ("text", "Now the regression test, next to the existing empty-store test."),
            ("edit", "tests/test_inventory.py", TEST_ANCHOR, TEST_ANCHOR + NEW_TEST, tests_before)]),
        ("assistant", [("shell", "pytest -q", x["pytest_pass"], 0)]),
        ("assistant", [("text", t[12][1])]),
        ("user", t[13][1]),
        ("assistant", [("shell", "git diff", x["git_diff"], 0)]),
        ("assistant", [("text", t[15][1])]),
        ("user", t[16][1]),
        ("assistant", [("text", t[17][1])]),
        ("user", t[18][1]),
    ]


def approx_tokens(text):
    return max(1, len(text) // 4)


# --- Claude Code ------------------------------------------------------------------------

CLAUDE_MODEL = "claude-sonnet-4-5-20250929"
# What Claude Code's own system prompt and tool schemas weigh in a request (not stored in the
# transcript): the provider-reported usage includes them.
CLAUDE_PREAMBLE = 15240


def claude_code(steps):
    sid = uid("claude-code/session")
    clock = Clock(START)
    out = []
    parent = None
    prompt_size = CLAUDE_PREAMBLE
    cached = 11894  # the system prompt was cached by an earlier session
    envelope = lambda p: {"parentUuid": p, "isSidechain": False, "userType": "external",
                          "cwd": CWD, "sessionId": sid, "version": "2.1.38", "gitBranch": "main"}
    for n, (role, body) in enumerate(steps):
        if role == "user":
            u = uid(f"claude-code/{n}")
            t = clock.tick(41)
            out.append({"type": "file-history-snapshot", "messageId": u,
                        "snapshot": {"messageId": u, "trackedFileBackups": {}, "timestamp": stamp(t)},
                        "isSnapshotUpdate": False})
            rec = envelope(parent)
            rec.update({"type": "user", "message": {"role": "user", "content": body}, "uuid": u,
                        "timestamp": stamp(clock.tick(0.06)),
                        "thinkingMetadata": {"maxThinkingTokens": 31999}, "todos": [],
                        "permissionMode": "default"})
            out.append(rec)
            parent = u
            prompt_size += approx_tokens(body) + 4
            continue
        mid = "msg_01" + token(f"claude-code/msg/{n}", 22)
        rid = "req_011C" + token(f"claude-code/req/{n}", 20)
        output = sum(approx_tokens(str(b[1:])) for b in body)
        usage = {"input_tokens": 3, "cache_creation_input_tokens": prompt_size - cached,
                 "cache_read_input_tokens": cached,
                 "cache_creation": {"ephemeral_5m_input_tokens": prompt_size - cached,
                                    "ephemeral_1h_input_tokens": 0},
                 "output_tokens": output, "service_tier": "standard",
                 "inference_geo": "not_available"}
        cached = prompt_size
        clock.tick(2.4)
        for k, b in enumerate(body):
            block, result = claude_block(b, f"{n}/{k}")
            u = uid(f"claude-code/{n}/{k}")
            rec = envelope(parent)
            rec.update({"message": {"model": CLAUDE_MODEL, "id": mid, "type": "message",
                                    "role": "assistant", "content": [block],
                                    "stop_reason": None, "stop_sequence": None, "usage": usage},
                        "requestId": rid, "type": "assistant", "uuid": u,
                        "timestamp": stamp(clock.tick(0.7))})
            out.append(rec)
            parent = u
            prompt_size += approx_tokens(str(b[1:])) + 3
            if result is None:
                continue
            content, is_error, side = result
            r = envelope(u)
            ru = uid(f"claude-code/{n}/{k}/result")
            r.update({"type": "user", "message": {"role": "user", "content": [
                {"tool_use_id": block["id"], "type": "tool_result", "content": content,
                 "is_error": is_error}]}, "uuid": ru, "timestamp": stamp(clock.tick(1.9)),
                "toolUseResult": side, "sourceToolAssistantUUID": u})
            out.append(r)
            parent = ru
            prompt_size += approx_tokens(content) + 5
    return [compact(r) for r in out]


def claude_block(b, seed):
    """The content block for one step and, for a tool call, (result text, is_error,
    toolUseResult)."""
    kind = b[0]
    if kind == "thinking":
        return {"type": "thinking", "thinking": b[1],
                "signature": "Eq" + blob(f"claude-code/sig/{seed}", 400)}, None
    if kind == "text":
        return {"type": "text", "text": b[1]}, None
    tid = "toolu_01" + token(f"claude-code/tool/{seed}", 22)
    call = lambda name, inp: {"type": "tool_use", "id": tid, "name": name, "input": inp,
                              "caller": {"type": "direct"}}
    if kind == "shell":
        _, cmd, output, code = b
        output = output.rstrip("\n")
        block = call("Bash", {"command": cmd, "description": shell_description(cmd)})
        if code:
            text = f"Exit code {code}\n{output}"
            return block, (text, True, f"Error: {text}")
        return block, (output, False, {"stdout": output, "stderr": "", "interrupted": False,
                                       "isImage": False})
    path = f"{CWD}/{b[1]}"
    if kind == "read":
        content = b[2]
        lines = content.split("\n")
        return call("Read", {"file_path": path}), (numbered(content), False, {
            "type": "text", "file": {"filePath": path, "content": content,
                                     "numLines": len(lines), "startLine": 1,
                                     "totalLines": len(lines)}})
    _, _, old, new, original = b
    start = original[:original.index(old)].count("\n") + 1
    patch = [{"oldStart": start, "oldLines": len(old.rstrip("\n").split("\n")),
              "newStart": start, "newLines": len(new.rstrip("\n").split("\n")),
              "lines": diff_lines(old, new)}]
    return call("Edit", {"file_path": path, "old_string": old, "new_string": new}), (
        f"The file {path} has been updated successfully.", False,
        {"filePath": path, "oldString": old, "newString": new, "originalFile": original,
         "structuredPatch": patch, "userModified": False, "replaceAll": False})


def shell_description(cmd):
    return {"pytest -q tests/test_inventory.py": "Run the inventory tests",
            "pytest -q": "Run the whole test suite",
            "git diff": "Show the uncommitted changes"}.get(cmd, "Run a command")


# --- Codex CLI ------------------------------------------------------------------------

CODEX_MODEL = "gpt-5.1-codex"
CODEX_WINDOW = 258400
# Codex's built-in instructions and tool schemas (sent with every request, not stored when
# session_meta.instructions is null).
CODEX_PREAMBLE = 9870
ENV_CONTEXT = ("<environment_context>\n  <cwd>/home/dev/shop</cwd>\n"
               "  <approval_policy>on-request</approval_policy>\n"
               "  <sandbox_mode>workspace-write</sandbox_mode>\n"
               "  <network_access>restricted</network_access>\n  <shell>bash</shell>\n"
               "</environment_context>")
REASONING = {
    1: "**Running the failing test**",
    2: "**Reading the implementation**",
    5: "**Patching total_value and adding a regression test**",
}


def codex(steps):
    """Codex covers the first two turns (the fix and its test); its rollouts are long."""
    clock = Clock(START)
    sid = uid7("codex/session", START)
    out = []
    line = lambda ty, payload: out.append(
        {"timestamp": stamp(clock.tick(0.004)), "type": ty, "payload": payload})
    line("session_meta", {
        "id": sid, "timestamp": stamp(START), "cwd": CWD, "originator": "codex_cli_rs",
        "cli_version": "0.58.0", "instructions": None, "source": "cli",
        "model_provider": "openai",
        "git": {"commit_hash": digest("codex/head").hex()[:40], "branch": "main",
                "repository_url": "git@github.com:dev/shop.git"}})
    line("response_item", {"type": "message", "role": "user",
                           "content": [{"type": "input_text", "text": ENV_CONTEXT}]})
    usage = {"input": 0, "cached": 0, "output": 0, "reasoning": 0}
    prompt = CODEX_PREAMBLE + approx_tokens(ENV_CONTEXT)
    turns = 0
    for n, (role, body) in enumerate(steps):
        if role == "user":
            turns += 1
            if turns > 2:
                break
            clock.tick(37)
            line("response_item", {"type": "message", "role": "user",
                                   "content": [{"type": "input_text", "text": body}]})
            line("event_msg", {"type": "user_message", "message": body, "images": []})
            line("turn_context", {
                "cwd": CWD, "approval_policy": "on-request",
                "sandbox_policy": {"mode": "workspace-write", "writable_roots": [],
                                   "network_access": False, "exclude_tmpdir_env_var": False,
                                   "exclude_slash_tmp": False},
                "model": CODEX_MODEL, "effort": "medium", "summary": "auto"})
            line("response_item", {"type": "ghost_snapshot", "ghost_commit": {
                "id": digest(f"codex/ghost/{n}").hex()[:40],
                "parent": digest("codex/head").hex()[:40],
                "preexisting_untracked_files": [], "preexisting_untracked_dirs": []}})
            prompt += approx_tokens(body) + 4
            continue
        clock.tick(3.1)
        if n in REASONING:
            text = REASONING[n]
            line("event_msg", {"type": "agent_reasoning", "text": text})
            line("response_item", {"type": "reasoning",
                                   "summary": [{"type": "summary_text", "text": text}],
                                   "content": None,
                                   "encrypted_content": "gAAAAABp" + blob(f"codex/r/{n}", 1100)
                                   .replace("+", "-").replace("/", "_")})
            usage["reasoning"] += 160
        calls = [b for b in body if b[0] in ("shell", "read")]
        edits = [b for b in body if b[0] == "edit"]
        if n == 5:  # both edits of the plan go into one apply_patch (Codex's style)
            edits = [b for _, b2 in steps[5:7] for b in b2 if b[0] == "edit"]
        if n == 6:
            continue
        texts = [b[1] for b in body if b[0] == "text"]
        if n == 5:
            texts = ["Fixing the start value and adding a regression test in one patch."]
        for text in texts:
            line("event_msg", {"type": "agent_message", "message": text})
            line("response_item", {"type": "message", "role": "assistant",
                                   "content": [{"type": "output_text", "text": text}]})
        results = []
        for b in calls:
            cmd = b[1] if b[0] == "shell" else f"sed -n '1,200p' {b[1]}"
            output, code = (b[2], b[3]) if b[0] == "shell" else (b[2], 0)
            results.append(codex_call(line, n, cmd, output, code))
        if edits:
            results.append(codex_call(line, n, apply_patch(edits),
                                      "Success. Updated the following files:\n" + "".join(
                                          f"M {e[1]}\n" for e in edits), 0))
        step_output = sum(approx_tokens(t) for t in texts) + 40 * len(results) + 30
        usage["input"] += prompt
        usage["cached"] += prompt - prompt % 1024 if prompt > 1024 else 0
        usage["output"] += step_output
        last = {"input_tokens": prompt, "cached_input_tokens": prompt - prompt % 1024,
                "output_tokens": step_output, "reasoning_output_tokens": 160 if n in REASONING else 0,
                "total_tokens": prompt + step_output}
        total = {"input_tokens": usage["input"], "cached_input_tokens": usage["cached"],
                 "output_tokens": usage["output"], "reasoning_output_tokens": usage["reasoning"],
                 "total_tokens": usage["input"] + usage["output"]}
        line("event_msg", {"type": "token_count", "info": {
            "total_token_usage": total, "last_token_usage": last,
            "model_context_window": CODEX_WINDOW},
            "rate_limits": {"primary": {"used_percent": 3.0, "window_minutes": 300,
                                        "resets_at": 1773495000},
                            "secondary": {"used_percent": 11.0, "window_minutes": 10080,
                                          "resets_at": 1773900000}}})
        prompt += step_output + (1100 // 4 if n in REASONING else 0)
        for call_id, body_text in results:
            clock.tick(0.8)
            line("response_item", {"type": "function_call_output", "call_id": call_id,
                                   "output": body_text})
            prompt += approx_tokens(body_text) + 5
    return [compact(r) for r in out]


def codex_call(line, n, cmd, output, code):
    call_id = "call_" + token(f"codex/call/{n}/{cmd}", 24)
    line("response_item", {"type": "function_call", "name": "shell",
                           "arguments": compact({"command": ["bash", "-lc", cmd],
                                                 "workdir": CWD}),
                           "call_id": call_id})
    return call_id, compact({"output": output, "metadata": {
        "exit_code": code, "duration_seconds": 0.4 if "pytest" in cmd else 0.0}})


def apply_patch(edits):
    body = ["apply_patch <<'PATCH'", "*** Begin Patch"]
    for _, path, old, new, _ in edits:
        body += [f"*** Update File: {path}", "@@"]
        body += diff_lines(old, new)
    body += ["*** End Patch", "PATCH"]
    return "\n".join(body)


# --- goose ------------------------------------------------------------------------------

GOOSE_CREATED = int(START.timestamp())


def goose(steps):
    clock = Clock(START)
    messages = []
    msg = lambda role, content: messages.append({
        "id": None, "role": role, "created": int(clock.tick(4).timestamp()),
        "content": content, "metadata": {"userVisible": True, "agentVisible": True}})
    for n, (role, body) in enumerate(steps):
        if role == "user":
            clock.tick(40)
            msg("user", [{"type": "text", "text": body}])
            continue
        content, results = [], []
        for k, b in enumerate(body):
            if b[0] == "thinking":
                continue
            if b[0] == "text":
                content.append({"type": "text", "text": b[1]})
                continue
            tid = "toolu_01" + token(f"goose/tool/{n}/{k}", 22)
            name, args, text = goose_tool(b)
            content.append({"type": "toolRequest", "id": tid, "toolCall": {
                "status": "success", "value": {"name": name, "arguments": args}}})
            results.append({"type": "toolResponse", "id": tid, "toolResult": {
                "status": "success", "value": [
                    {"type": "text", "text": text, "annotations": {"audience": ["assistant"]}}]}})
        msg("assistant", content)
        if results:
            msg("user", results)
    visible = sum(approx_tokens(compact(m["content"])) for m in messages)
    meta = {"working_dir": CWD, "description": "Fix failing inventory test",
            "schedule_id": None, "message_count": len(messages),
            "total_tokens": 3120 + visible + 180, "input_tokens": 3120 + visible,
            "output_tokens": 180, "accumulated_total_tokens": 41873,
            "accumulated_input_tokens": 40212, "accumulated_output_tokens": 1661}
    return [compact(meta)] + [compact(m) for m in messages]


def goose_tool(b):
    """(tool name, arguments, result text) of goose's developer extension."""
    kind = b[0]
    if kind == "shell":
        return "developer__shell", {"command": b[1]}, b[2]
    path = f"{CWD}/{b[1]}"
    if kind == "read":
        return ("developer__text_editor", {"command": "view", "path": path},
                f"### {path}\n```python\n{b[2]}```\n")
    _, _, old, new, _ = b
    return ("developer__text_editor",
            {"command": "str_replace", "path": path, "old_str": old, "new_str": new},
            f"The file {path} has been edited, and the section now reads:\n```python\n{new}```\n\n"
            "Review the changes above for errors. Undo and edit the file again if necessary!")


def diff_lines(old, new):
    """Patch lines (` `, `-`, `+`) turning old into new."""
    import difflib
    out = []
    for l in difflib.ndiff(old.rstrip("\n").split("\n"), new.rstrip("\n").split("\n")):
        if l[0] in " -+":
            out.append(l[0] + l[2:])
    return out


def render_all(x):
    steps = plan(x)
    return {
        "claude-code.jsonl": claude_code(steps),
        "codex.jsonl": codex(steps),
        "goose.jsonl": goose(steps),
    }
