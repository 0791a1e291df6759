#!/usr/bin/env python3
"""Tiny scripted stand-in for the Gemini API (generativelanguage v1beta), for capturing the
session files Gemini CLI writes. Python stdlib only.

Safety: binds 127.0.0.1 only, answers at most MAX_REQUESTS requests, and shuts itself down
after IDLE_SECONDS without a request or LIFETIME_SECONDS in all. It makes no outbound calls.

Usage:  python3 fake_gemini_server.py PORT LOGFILE
Point Gemini CLI at it with GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:PORT GEMINI_API_KEY=fake.

Script (decided from the request, so any run order works):
  * streamGenerateContent whose last user turn mentions "notes.txt" and has no functionResponse
      -> a functionCall read_file{file_path: <abs path from the prompt or "notes.txt">}
  * streamGenerateContent whose last turn carries a functionResponse -> a text answer
  * any other streamGenerateContent -> a short text answer
  * when the latest plain user prompt contains "BIG", usageMetadata.promptTokenCount is reported
    high (HIGH_PROMPT_TOKENS), so Gemini CLI's auto-compression fires before its next request in
    the same process (e.g. before sending the tool result back)
  * generateContent (non-streaming): a <state_snapshot> when the system instruction asks for
    one (compression and its verification probe); JSON when a JSON response is requested
    (next-speaker check, routing); plain text otherwise (titles, summaries)
  * countTokens -> a rough estimate (chars / 4)
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MAX_REQUESTS = 400
IDLE_SECONDS = 90
LIFETIME_SECONDS = 600
HIGH_PROMPT_TOKENS = 900_000

state = {"count": 0, "last": time.time(), "start": time.time()}
log_lock = threading.Lock()


def text_of(parts):
    out = []
    for p in parts or []:
        if isinstance(p, dict) and isinstance(p.get("text"), str):
            out.append(p["text"])
    return "\n".join(out)


def usage(prompt_tokens, out_tokens=20):
    return {
        "promptTokenCount": prompt_tokens,
        "candidatesTokenCount": out_tokens,
        "totalTokenCount": prompt_tokens + out_tokens,
    }


def candidate(parts, finish=True):
    c = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        c["finishReason"] = "STOP"
    return c


def stream_reply(body):
    contents = body.get("contents") or []
    last = contents[-1] if contents else {}
    parts = last.get("parts") or []
    all_text = json.dumps(contents)
    approx = max(50, len(all_text) // 4)
    # the latest plain user prompt (not a functionResponse turn)
    prompt = ""
    for c in reversed(contents):
        if c.get("role") == "user" and not any(
                isinstance(p, dict) and "functionResponse" in p for p in c.get("parts") or []):
            prompt = text_of(c.get("parts"))
            break
    big = "BIG" in prompt
    if any(isinstance(p, dict) and "functionResponse" in p for p in parts):
        return [
            [{"text": "notes.txt says the release is planned for "}],
            [{"text": "Friday and that the changelog still needs a migration note."}],
        ], (HIGH_PROMPT_TOKENS if big and "state_snapshot" not in all_text else approx)
    user_text = text_of(parts)
    if "notes.txt" in user_text:
        path = "notes.txt"
        for word in user_text.split():
            if word.endswith("notes.txt"):
                path = word.strip("'\"`,.")
                if not path.endswith("notes.txt"):
                    path += "notes.txt"
        return [[{"text": "I'll read the file first."}],
                [{"functionCall": {"name": "read_file", "args": {"file_path": path}}}]], (
                    HIGH_PROMPT_TOKENS if big else approx)
    if "BIG" in user_text:
        return [[{"text": "Noted: the migration note goes under \"Breaking changes\"."}]], HIGH_PROMPT_TOKENS
    return [[{"text": "Done. The changelog entry now mentions the config key rename."}]], approx


def unary_reply(body):
    sys_text = text_of((body.get("systemInstruction") or {}).get("parts"))
    gen = body.get("generationConfig") or {}
    contents_text = json.dumps(body.get("contents") or [])
    if "state_snapshot" in sys_text or "state_snapshot" in contents_text[-2000:]:
        snap = (
            "<state_snapshot>\n"
            "    <overall_goal>Prepare the release notes for Friday's release.</overall_goal>\n"
            "    <key_knowledge>notes.txt: release planned for Friday; changelog needs a "
            "migration note about the renamed config key.</key_knowledge>\n"
            "    <file_system_state>READ: notes.txt</file_system_state>\n"
            "    <recent_actions>Read notes.txt; agreed the note goes under Breaking changes."
            "</recent_actions>\n"
            "    <current_plan>1. [DONE] Read notes. 2. [TODO] Write the migration note."
            "</current_plan>\n"
            "</state_snapshot>"
        )
        return {"candidates": [candidate([{"text": snap}])], "usageMetadata": usage(400, 120)}
    if gen.get("responseMimeType") == "application/json" or gen.get("responseJsonSchema") or gen.get("responseSchema"):
        payload = {"reasoning": "The model answered; the user speaks next.", "next_speaker": "user",
                   "model_choice": "flash"}
        return {"candidates": [candidate([{"text": json.dumps(payload)}])], "usageMetadata": usage(200, 30)}
    return {"candidates": [candidate([{"text": "Release notes prep"}])], "usageMetadata": usage(100, 5)}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def _log(self, entry):
        with log_lock:
            with open(LOGFILE, "a") as f:
                f.write(json.dumps(entry) + "\n")

    def _send_json(self, obj, code=200):
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
        self._send_json({"models": []} if "models" in self.path else {}, 200)

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
        if ":countTokens" in self.path:
            return self._send_json({"totalTokens": max(1, len(raw) // 4)})
        if ":streamGenerateContent" in self.path:
            chunks, prompt_tokens = stream_reply(body)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            for i, parts in enumerate(chunks):
                last = i == len(chunks) - 1
                ev = {"candidates": [candidate(parts, finish=last)], "modelVersion": "fake-gemini"}
                if last:
                    ev["usageMetadata"] = usage(prompt_tokens)
                self.wfile.write(b"data: " + json.dumps(ev).encode() + b"\r\n\r\n")
                self.wfile.flush()
            self.close_connection = True
            return
        if ":generateContent" in self.path:
            return self._send_json(unary_reply(body))
        self._send_json({"error": {"code": 404, "message": "not scripted"}}, 404)


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
