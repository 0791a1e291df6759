#!/usr/bin/env python3
"""Tiny scripted stand-in for an OpenAI-compatible Chat Completions endpoint, for driving the
real GitHub Copilot CLI (COPILOT_PROVIDER_TYPE=openai, COPILOT_OFFLINE=true). Stdlib only.

Safety: binds 127.0.0.1 only, answers at most MAX_REQUESTS requests, and shuts itself down
after IDLE_SECONDS without a request or LIFETIME_SECONDS in all. It makes no outbound calls.

Usage:  python3 fake_openai_server.py PORT LOGFILE

Script (decided from the request):
  * a title / summary request (no tools offered, or the system prompt asks for a title or a
    summary) -> plain text
  * last message is a tool result -> a text answer
  * latest user text mentions "notes.txt" -> one tool call: view{path: <abs path>} (Copilot's
    file viewer)
  * otherwise -> a short text answer
  * usage.prompt_tokens is reported high (HIGH_PROMPT_TOKENS) when the latest user text contains
    "BIG", so a client with a small configured context limit decides to compact
Streaming requests get SSE chat.completion.chunk events and a final usage chunk.
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MAX_REQUESTS = 60
IDLE_SECONDS = 90
LIFETIME_SECONDS = 600
HIGH_PROMPT_TOKENS = 9_500

state = {"count": 0, "last": time.time(), "start": time.time(), "calls": 0}
lock = threading.Lock()


def content_text(c):
    if isinstance(c, str):
        return c
    if isinstance(c, list):
        return "\n".join(p.get("text", "") for p in c if isinstance(p, dict))
    return ""


def plan(body):
    msgs = body.get("messages") or []
    system = "\n".join(content_text(m.get("content")) for m in msgs if m.get("role") == "system")
    last = msgs[-1] if msgs else {}
    last_user = ""
    for m in reversed(msgs):
        if m.get("role") == "user":
            last_user = content_text(m.get("content"))
            break
    approx = max(50, len(json.dumps(msgs)) // 4)
    big = "BIG" in last_user
    prompt_tokens = HIGH_PROMPT_TOKENS if big else approx
    low_sys = system.lower()
    if not body.get("tools") or "title" in low_sys[:400] or "summar" in last_user.lower()[-600:]:
        if "title" in low_sys[:400]:
            return {"text": "Release notes prep"}, approx
        return {"text": (
            "## Goal\nPrepare the release notes for Friday's release.\n\n"
            "## Done\n- Read notes.txt: release planned for Friday; the changelog needs a "
            "migration note for the renamed config key.\n\n"
            "## Next\n- Write the migration note under \"Breaking changes\".")}, approx
    if last.get("role") == "tool":
        return {"text": "notes.txt says the release is planned for Friday and that the "
                        "changelog still needs a migration note."}, prompt_tokens
    if "notes.txt" in last_user:
        path = None
        for word in last_user.split():
            w = word.strip("'\"`,.")
            if w.endswith("notes.txt") and w.startswith("/"):
                path = w
        with lock:
            state["calls"] += 1
            n = state["calls"]
        return {"text": "I'll read the file first.",
                "tool": {"id": f"call_fake_{n:03d}", "name": "view",
                         "arguments": json.dumps({"path": path or "notes.txt"})}}, prompt_tokens
    return {"text": "Done. The changelog entry now mentions the config key rename."}, prompt_tokens


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def _log(self, entry):
        with lock:
            with open(LOGFILE, "a") as f:
                f.write(json.dumps(entry) + "\n")

    def _json(self, obj, code=200):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        state["count"] += 1
        state["last"] = time.time()
        self._log({"method": "GET", "path": self.path})
        self._json({"object": "list", "data": [{"id": "fake-model", "object": "model"}]})

    def do_POST(self):
        state["count"] += 1
        state["last"] = time.time()
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        self._log({"method": "POST", "path": self.path, "body": body})
        if not self.path.rstrip("/").endswith("/chat/completions"):
            return self._json({"error": {"message": "not scripted"}}, 404)
        reply, prompt_tokens = plan(body)
        created = int(time.time())
        usage = {"prompt_tokens": prompt_tokens, "completion_tokens": 25,
                 "total_tokens": prompt_tokens + 25}
        finish = "tool_calls" if "tool" in reply else "stop"
        if not body.get("stream"):
            msg = {"role": "assistant", "content": reply.get("text")}
            if "tool" in reply:
                t = reply["tool"]
                msg["tool_calls"] = [{"id": t["id"], "type": "function",
                                      "function": {"name": t["name"], "arguments": t["arguments"]}}]
            return self._json({"id": "chatcmpl-fake", "object": "chat.completion", "created": created,
                               "model": body.get("model"), "usage": usage,
                               "choices": [{"index": 0, "message": msg, "finish_reason": finish}]})
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()

        def ev(delta=None, finish_reason=None, usage_=None):
            chunk = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": created,
                     "model": body.get("model"),
                     "choices": [] if delta is None else
                     [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}
            if usage_:
                chunk["usage"] = usage_
            self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
            self.wfile.flush()

        ev({"role": "assistant", "content": ""})
        text = reply.get("text") or ""
        mid = len(text) // 2
        for piece in (text[:mid], text[mid:]):
            if piece:
                ev({"content": piece})
        if "tool" in reply:
            t = reply["tool"]
            ev({"tool_calls": [{"index": 0, "id": t["id"], "type": "function",
                                "function": {"name": t["name"], "arguments": ""}}]})
            ev({"tool_calls": [{"index": 0, "function": {"arguments": t["arguments"]}}]})
        ev({}, finish)
        ev(None, None, usage)
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True


def watchdog(server):
    while True:
        time.sleep(1)
        now = time.time()
        if (state["count"] >= MAX_REQUESTS or now - state["last"] > IDLE_SECONDS
                or now - state["start"] > LIFETIME_SECONDS):
            server.shutdown()
            return


if __name__ == "__main__":
    port = int(sys.argv[1])
    LOGFILE = sys.argv[2]
    srv = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=watchdog, args=(srv,), daemon=True).start()
    srv.serve_forever()
