#!/usr/bin/env python3
"""Agent transcript vs chat JSON, for the same texts: times `count`, `check` and `stats`
(--no-cache) on a Claude Code or Codex transcript and on an OpenAI chat JSON document
holding the message texts of that transcript, and prints time per byte and per token.

usage: scripts/bench-agent.py TRANSCRIPT [--runs N] [--commands count,check,stats]
                              [--bin CTXCTL] [--keep]

Why: a grown transcript's text (random syllable words) costs more to tokenize per byte
than a generated chat document's, so comparing the two per byte mixes the cost of reading
the format with the cost of its text. Here the chat document is written from the
transcript itself (next to nothing but the texts: user and assistant text, thinking,
tool calls' names and arguments, tool results, Codex reasoning summaries), so the ratio
of CPU per token says what the transcript route costs over the chat route.

Both runs use the transcript's model (so the same tokenizer). CPU = user + system of the
run and peak = its max RSS, from /usr/bin/time; runs are interleaved (transcript, chat,
transcript, ...) and the figures are medians. The chat document goes to a temporary directory and is
deleted after the run unless --keep. Nothing here asserts a time."""
import argparse, json, os, statistics, subprocess, sys, tempfile, time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BIN = os.path.join(ROOT, "target", "release", "ctxctl")


def text_of(content):
    """The text of a message's content: a string, or the text-bearing blocks of a list."""
    if isinstance(content, str):
        return content
    out = []
    for b in content or []:
        if not isinstance(b, dict):
            continue
        t = b.get("type")
        if t in ("text", "input_text", "output_text"):
            out.append(b.get("text", ""))
        elif t == "thinking":
            out.append(b.get("thinking", ""))
        elif t == "tool_result":
            out.append(text_of(b.get("content")))
    return "\n".join(x for x in out if x)


def strings(v):
    """Every non-empty string in v, depth first, except the values of `type` keys (what
    ctxctl counts of an attachment without a `rendered` text)."""
    if isinstance(v, str):
        return [v] if v else []
    if isinstance(v, list):
        return [s for x in v for s in strings(x)]
    if isinstance(v, dict):
        return [s for k, x in v.items() if k != "type" for s in strings(x)]
    return []


def records(path):
    """The JSON records of a JSONL file, skipping lines that are not JSON."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                yield json.loads(line)
            except ValueError:
                continue


def claude_code(path):
    """Messages of a Claude Code transcript's live thread (the `parentUuid` chain from its
    last record, so what follows its last compaction), one chat message per user,
    assistant or attachment record; attachments become system messages, as ctxctl reads
    them. Side chains and split assistant records are not merged: a few tokens of
    difference, shown beside the figures."""
    recs, by_id = [], {}
    for r in records(path):
        if r.get("type") not in ("user", "assistant", "attachment", "system"):
            continue
        if r.get("isSidechain") or not r.get("uuid"):
            continue
        by_id[r["uuid"]] = len(recs)
        recs.append(r)
    live, at = [], len(recs) - 1
    while at is not None and at >= 0:
        live.append(recs[at])
        if recs[at].get("subtype") == "compact_boundary":
            break
        at = by_id.get(recs[at].get("parentUuid"))
    live.reverse()
    msgs = []
    for r in live:
        if r.get("type") == "attachment":
            a = r.get("attachment") or {}
            if a.get("type") not in ("prompt_snapshot", "session_context"):
                text = a.get("rendered") or r.get("rendered") or "\n".join(strings(a))
                msgs.append({"role": "system", "content": text})
            continue
        if r.get("type") not in ("user", "assistant"):
            continue
        m = r.get("message") or {}
        role, content = m.get("role", r["type"]), m.get("content")
        calls = []
        if isinstance(content, list):
            for b in content:
                if isinstance(b, dict) and b.get("type") == "tool_use":
                    calls.append((b.get("id", ""), b.get("name", ""),
                                  json.dumps(b.get("input"), ensure_ascii=False)))
                elif isinstance(b, dict) and b.get("type") == "tool_result":
                    msgs.append({"role": "tool", "tool_call_id": b.get("tool_use_id", ""),
                                 "content": text_of(b.get("content"))})
            content = [b for b in content
                       if not (isinstance(b, dict) and b.get("type") in ("tool_use", "tool_result"))]
        text = text_of(content)
        if text or calls:
            msg = {"role": role, "content": text}
            if calls:
                msg["tool_calls"] = [{"id": i, "type": "function",
                                      "function": {"name": n, "arguments": a}}
                                     for i, n, a in calls]
            msgs.append(msg)
    return msgs


def codex(path):
    """Messages of a Codex rollout: its response items (messages, reasoning summaries,
    tool calls and their outputs)."""
    msgs = []
    for r in records(path):
        if r.get("type") != "response_item":
            continue
        p = r.get("payload") or {}
        t = p.get("type")
        if t == "message":
            msgs.append({"role": p.get("role", "user"), "content": text_of(p.get("content"))})
        elif t == "reasoning":
            s = "\n".join(x.get("text", "") for x in p.get("summary") or [] if isinstance(x, dict))
            if s:
                msgs.append({"role": "assistant", "content": s})
        elif t in ("function_call", "custom_tool_call"):
            args = p.get("arguments") if t == "function_call" else p.get("input")
            msgs.append({"role": "assistant", "content": "", "tool_calls": [
                {"id": p.get("call_id", ""), "type": "function",
                 "function": {"name": p.get("name", ""), "arguments": args or ""}}]})
        elif t in ("function_call_output", "custom_tool_call_output"):
            out = p.get("output")
            if not isinstance(out, str):
                out = text_of(out) if isinstance(out, list) else json.dumps(out)
            msgs.append({"role": "tool", "tool_call_id": p.get("call_id", ""), "content": out})
    return msgs


def run(argv):
    """CPU seconds (user + system), wall seconds and peak MiB of one run (through
    /usr/bin/time: the max RSS of a child forked from this script would count the pages it
    shares with the script before its exec)."""
    t0 = time.monotonic()
    p = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", *argv], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - t0
    if p.returncode not in (0, 1):
        sys.exit(f"bench-agent: {' '.join(argv)} exited {p.returncode}: {p.stderr.strip()}")
    user, system, peak = p.stderr.strip().splitlines()[-1].split()
    return float(user) + float(system), wall, int(peak) / 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("transcript")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--commands", default="count,check,stats")
    ap.add_argument("--bin", default=BIN)
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()

    info = json.loads(subprocess.check_output(
        [a.bin, "count", a.transcript, "--no-cache", "--json"]))["files"][0]
    fmt, model = info["format"], info["model"]
    msgs = {"claude-code": claude_code, "codex": codex}.get(fmt)
    if msgs is None:
        sys.exit(f"bench-agent: {a.transcript}: a {fmt} file; expected claude-code or codex")
    tmp = tempfile.mkdtemp(prefix="bench-agent-")
    chat = os.path.join(tmp, "chat.json")
    with open(chat, "w", encoding="utf-8") as f:
        json.dump({"model": model, "messages": msgs(a.transcript)}, f, ensure_ascii=False)
    chat_tokens = json.loads(subprocess.check_output(
        [a.bin, "count", chat, "--model", model, "--no-cache", "--json"]))["files"][0]["tokens"]
    size = {"agent": os.path.getsize(a.transcript), "chat": os.path.getsize(chat)}
    tokens = {"agent": info["tokens"], "chat": chat_tokens}
    print(f"{fmt} {a.transcript}: {size['agent'] / 1e6:.1f} MB, {tokens['agent']:,} tokens; "
          f"chat JSON of its texts: {size['chat'] / 1e6:.1f} MB, {tokens['chat']:,} tokens "
          f"(model {model})")
    print("command  file   CPU s   wall s  peak MiB  CPU ns/B  CPU ns/tok | x chat /B  /tok")
    for cmd in a.commands.split(","):
        res = {"agent": [], "chat": []}
        for _ in range(a.runs):
            for k, path in (("agent", a.transcript), ("chat", chat)):
                res[k].append(run([a.bin, cmd, path, "--model", model, "--no-cache"]))
        med = {k: [statistics.median(x[i] for x in v) for i in range(3)] for k, v in res.items()}
        for k in ("agent", "chat"):
            cpu, wall, peak = med[k]
            line = (f"{cmd:8} {k:5} {cpu:7.2f} {wall:8.2f} {peak:9.1f} "
                    f"{cpu / size[k] * 1e9:9.1f} {cpu / tokens[k] * 1e9:11.1f}")
            if k == "agent":
                pb = (cpu / size[k]) / (med["chat"][0] / size["chat"])
                pt = (cpu / tokens[k]) / (med["chat"][0] / tokens["chat"])
                line += f" | {pb:9.2f} {pt:5.2f}"
            print(line, flush=True)
    if not a.keep:
        os.remove(chat)
        os.rmdir(tmp)
    else:
        print(f"kept {chat}")


if __name__ == "__main__":
    main()
