#!/usr/bin/env python3
"""Builds a home of agent transcripts for benchmarking `ctxctl grep` against ripgrep:
the real Claude Code and Codex sessions of the shared realclients fixtures, each copied
COPIES times with fresh ids (every UUID in a copy replaced by a new one, consistently
within the copy), laid out as the agents lay them out.

usage: scripts/grep-home.py FIXTURES_DIR HOME COPIES
"""
import os
import re
import sys
import uuid

UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def main():
    fixtures, home, copies = sys.argv[1], sys.argv[2], int(sys.argv[3])
    cc = [os.path.join(fixtures, d, f) for d in ("claude-code", "claude-code-2.1.332")
          for f in sorted(os.listdir(os.path.join(fixtures, d)))
          if f.endswith(".jsonl") and "subagent" not in f]
    cx = [os.path.join(fixtures, d, f) for d in ("codex", "codex-0.171.0")
          for f in sorted(os.listdir(os.path.join(fixtures, d))) if f.endswith(".jsonl")]
    total = 0
    for n in range(copies):
        for src in cc + cx:
            data = open(src, "rb").read()
            fresh = {}
            data = UUID.sub(lambda m: fresh.setdefault(m.group(0), str(uuid.uuid4()).encode()), data)
            sid = str(uuid.uuid4())
            if src in cc:
                d = os.path.join(home, ".claude/projects", f"-home-dev-proj{n % 20}")
                name = f"{sid}.jsonl"
            else:
                d = os.path.join(home, ".codex/sessions/2026/11", f"{n % 28 + 1:02}")
                name = f"rollout-2026-11-01T00-00-00-{sid}.jsonl"
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
            total += len(data)
    print(f"{total / 1e6:.0f} MB in {copies * (len(cc) + len(cx))} files")


if __name__ == "__main__":
    main()
