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
export PYTHONDONTWRITEBYTECODE=1

CTXCTL=${1:?usage: scripts/e2e/claude-mcp.sh path/to/ctxctl}
[ -x "$CTXCTL" ] || { echo "claude-mcp e2e: $CTXCTL is not an executable" >&2; exit 2; }
CTXCTL=$(cd "$(dirname "$CTXCTL")" && pwd)/$(basename "$CTXCTL")
HERE=$(cd "$(dirname "$0")" && pwd)/claude-mcp
CC_VERSION=${CC_VERSION:-2.1.197}

skipped() {
  if [ -n "${WORK:-}" ] && [ -z "${KEEP:-}" ]; then rm -rf "$WORK"; fi
  echo "=================================================================="
  echo "SKIPPED: Claude Code MCP end-to-end test ($*)"
  echo "=================================================================="
  exit 0
}

for tool in python3 unshare ip; do
  command -v "$tool" >/dev/null 2>&1 || skipped "$tool not found"
done
if [ -z "${CLAUDE_BIN:-}" ]; then
  command -v node >/dev/null 2>&1 || skipped "node not found"
  command -v npm >/dev/null 2>&1 || skipped "npm not found"
fi
# Claude Code talks only to the fake API on 127.0.0.1: a namespace with only loopback
# makes sure nothing else leaves the machine.
NS=
for U in "unshare -n" "unshare -rn"; do
  if $U true 2>/dev/null; then NS=$U; break; fi
done
[ -n "$NS" ] || skipped "no loopback-only network namespace (unshare -n / unshare -rn) available"

KEEP=${WORK:+1}
WORK=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/ctxctl-e2e-claude-mcp.XXXXXX")}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

if [ -z "${CLAUDE_BIN:-}" ]; then
  view=0
  timeout 30 npm view "@anthropic-ai/claude-code@$CC_VERSION" version >"$WORK/npm-view.log" 2>&1 || view=$?
  if [ "$view" -eq 124 ]; then
    skipped "npm cannot reach the registry: no answer within 30 s"
  elif [ "$view" -ne 0 ]; then
    skipped "npm cannot reach the registry: $(grep -m 1 -E '^npm (error|ERR!)' "$WORK/npm-view.log" || echo "npm view exit $view")"
  fi
  echo "installing @anthropic-ai/claude-code@$CC_VERSION into $WORK/npm ..."
  if ! timeout 240 npm install --no-audit --no-fund --prefix "$WORK/npm" \
      "@anthropic-ai/claude-code@$CC_VERSION" >"$WORK/npm.log" 2>&1; then
    echo "FAIL npm install @anthropic-ai/claude-code@$CC_VERSION (see $WORK/npm.log):"
    tail -n 5 "$WORK/npm.log"
    echo "SUMMARY claude-mcp: 0 passed, 1 failed"
    exit 1
  fi
  CLAUDE_BIN=$WORK/npm/node_modules/.bin/claude
  if ! "$CLAUDE_BIN" --version >/dev/null 2>&1; then
    # The native binary was not put in place (install scripts disabled): use the wrapper.
    printf '#!/bin/sh\nexec node "%s" "$@"\n' \
      "$WORK/npm/node_modules/@anthropic-ai/claude-code/cli-wrapper.cjs" >"$WORK/claude"
    chmod +x "$WORK/claude"
    CLAUDE_BIN=$WORK/claude
  fi
fi
CLAUDE_BIN=$(cd "$(dirname "$CLAUDE_BIN")" && pwd)/$(basename "$CLAUDE_BIN")

status=0
timeout 300 $NS bash -c 'ip link set lo up && exec python3 "$@"' _ "$HERE/harness.py" \
  --ctxctl "$CTXCTL" --claude "$CLAUDE_BIN" --work "$WORK/run" || status=$?
if [ "$status" -eq 0 ] && [ -z "$KEEP" ]; then
  rm -rf "$WORK"
elif [ "$status" -ne 0 ]; then
  echo "claude-mcp e2e: FAILED (exit $status); everything it produced is in $WORK"
fi
exit "$status"
