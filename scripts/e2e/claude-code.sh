#!/usr/bin/env bash
# End to end: ctxctl against the real Claude Code CLI, offline except for one npm install.
#
#   scripts/e2e/claude-code.sh target/release/ctxctl
#
# Installs the pinned @anthropic-ai/claude-code (CC_VERSION, default 2.1.197) into a scratch
# directory, records a real session with tool use against a fake Anthropic API on 127.0.0.1
# (it enforces the API's message rules and its "prompt is too long" limit), rewrites it with
# every ctxctl command, resumes each rewrite with `claude -p ... --resume ID` and checks the
# request Claude Code sent; then the rescue of a session Claude Code compacted itself that is
# still too long (see claude-code/README.md). Prints one PASS/FAIL line per check and a
# SUMMARY line. Exit 1 on any FAIL; exit 0 with a loud SKIPPED when npm cannot reach the
# registry (or node/npm/python3 are missing), so CI runs everything else.
#
#   WORK=dir           keep the scratch directory there (default: mktemp -d, removed on success)
#   CLAUDE_BIN=path    use an installed claude instead of installing one
#   CC_VERSION=x.y.z   the Claude Code version (default: the pinned 2.1.197, what CI runs; the
#                      checks of behaviour that changed since are made per version, see harness.py)
set -euo pipefail

CTXCTL=${1:?usage: scripts/e2e/claude-code.sh path/to/ctxctl}
[ -x "$CTXCTL" ] || { echo "claude-code e2e: $CTXCTL is not an executable" >&2; exit 2; }
CTXCTL=$(cd "$(dirname "$CTXCTL")" && pwd)/$(basename "$CTXCTL")
HERE=$(cd "$(dirname "$0")" && pwd)/claude-code
CC_VERSION=${CC_VERSION:-2.1.197}

skipped() {
  if [ -n "${WORK:-}" ] && [ -z "${KEEP:-}" ]; then rm -rf "$WORK"; fi
  echo "=================================================================="
  echo "SKIPPED: Claude Code end-to-end test ($*)"
  echo "=================================================================="
  exit 0
}

command -v python3 >/dev/null 2>&1 || skipped "python3 not found"
if [ -z "${CLAUDE_BIN:-}" ]; then
  command -v node >/dev/null 2>&1 || skipped "node not found"
  command -v npm >/dev/null 2>&1 || skipped "npm not found"
fi

KEEP=${WORK:+1}
WORK=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/ctxctl-e2e-claude-code.XXXXXX")}
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

status=0
timeout 600 python3 "$HERE/harness.py" --ctxctl "$CTXCTL" --claude "$CLAUDE_BIN" --work "$WORK" \
  || status=$?
if [ "$status" -eq 0 ] && [ -z "$KEEP" ]; then
  rm -rf "$WORK"
elif [ "$status" -ne 0 ]; then
  echo "claude-code e2e: FAILED (exit $status); everything it produced is in $WORK"
fi
exit "$status"
