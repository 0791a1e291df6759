#!/usr/bin/env bash
# End to end: the real Claude Code gets back, through `ctxctl mcp`, a fact that was compacted
# out of the session it resumes (issue #44).
#
#   scripts/e2e/claude-mcp.sh target/release/ctxctl
#
# Installs the pinned @anthropic-ai/claude-code (CC_VERSION, default 2.1.197, as
# claude-code.sh) into a scratch directory and, in a network namespace that has only
# loopback, records a session against the fake Anthropic API of claude-code/ whose first
# turn reads a passphrase; compacts it with `ctxctl compact --in-place` (and a copy with
# Claude Code's own `/compact`); resumes each with ctxctl registered as an MCP server
# (`claude mcp add`, `--mcp-config`); the fake API answers with a `tool_use` of
# `mcp__ctxctl__recall`, and the next request Claude Code sends must carry the passphrase in
# that call's `tool_result` (see claude-mcp/README.md). One PASS/FAIL line per check and a
# SUMMARY line; exit 1 on any FAIL; exit 0 with a loud SKIPPED when npm cannot reach the
# registry (or node/npm/python3/unshare are missing). Also checks that `compact_session`
# refuses the caller's own session. About 20 s once installed.
#
#   WORK=dir           keep the scratch directory there (default: mktemp -d, removed on success)
#   CLAUDE_BIN=path    use an installed claude instead of installing one
#   CC_VERSION=x.y.z   the Claude Code version (default: the pinned 2.1.197)
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$HERE/lib.bash"
e2e_init claude-mcp "${1:-}"
e2e_need python3 unshare ip
# Claude Code talks only to the fake API on 127.0.0.1: a namespace with only loopback
# makes sure nothing else leaves the machine.
e2e_netns
e2e_work "${WORK:-}"
e2e_claude "${CC_VERSION:-2.1.197}"

status=0
e2e_in_ns 300 "$HERE/claude-mcp/harness.py" --ctxctl "$CTXCTL" --claude "$CLAUDE_BIN" \
  --work "$WORK/run" || status=$?
e2e_finish "$status"
