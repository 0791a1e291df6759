#!/usr/bin/env bash
# End to end: ctxctl never rewrites a session that a real agent is using right now.
#
#   scripts/e2e/live.sh target/release/ctxctl
#
# Installs the pinned @anthropic-ai/claude-code (CC_VERSION, default 2.1.197) and
# @openai/codex (CODEX_VERSION, default 0.169.0) into a scratch directory, records a short
# real session with each against a fake provider API on 127.0.0.1, then resumes it while the
# fake API HOLDS the agent's request. Mid-request, `ctxctl compact --in-place`, `ctxctl trim
# --in-place` and a batch `compact -r` must leave the file byte-identical and the archive
# store untouched (exit 2 for a named file, with a message saying `live`); the same with a
# resume whose command line does not name the session (`claude --continue`, `codex exec
# resume --last`). Once the agent has finished, the same compact must succeed and the agent
# must resume the compacted session with a valid request carrying ctxctl's summary (see
# live/live.py). Everything runs in a network namespace with only loopback when one is
# available (`unshare -n`); Codex is skipped without one (it looks up DNS names even with a
# local provider). One PASS/FAIL line per check and a final `N passed, N failed` line.
# Exit 1 on any FAIL; exit 0 with a loud SKIPPED when node/npm/python3 are missing or npm
# cannot reach the registry. About 2 minutes.
#
#   WORK=dir            keep the scratch directory there (default: mktemp -d, removed on success)
#   CLAUDE_BIN=path     use an installed claude instead of installing one
#   CODEX_BIN=path      use an installed codex instead of installing one
#   CC_VERSION=x.y.z    the Claude Code version to install
#   CODEX_VERSION=x.y.z the Codex version to install
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1

CTXCTL=${1:?usage: scripts/e2e/live.sh path/to/ctxctl}
[ -x "$CTXCTL" ] || { echo "live e2e: $CTXCTL is not an executable" >&2; exit 2; }
CTXCTL=$(cd "$(dirname "$CTXCTL")" && pwd)/$(basename "$CTXCTL")
HERE=$(cd "$(dirname "$0")" && pwd)
CC_VERSION=${CC_VERSION:-2.1.197}
CODEX_VERSION=${CODEX_VERSION:-0.169.0}

skipped() {
  if [ -n "${WORK:-}" ] && [ -z "${KEEP:-}" ]; then rm -rf "$WORK"; fi
  echo "=================================================================="
  echo "SKIPPED: live-session end-to-end test ($*)"
  echo "=================================================================="
  exit 0
}

command -v python3 >/dev/null 2>&1 || skipped "python3 not found"
if [ -z "${CLAUDE_BIN:-}" ] || [ -z "${CODEX_BIN:-}" ]; then
  command -v node >/dev/null 2>&1 || skipped "node not found"
  command -v npm >/dev/null 2>&1 || skipped "npm not found"
fi

KEEP=${WORK:+1}
WORK=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/ctxctl-e2e-live.XXXXXX")}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

# npm_install PACKAGE VERSION DIR: installs into DIR/npm; SKIPPED when the registry is unreachable.
npm_install() {
  local view=0
  timeout 30 npm view "$1@$2" version >"$3/npm-view.log" 2>&1 || view=$?
  if [ "$view" -eq 124 ]; then
    skipped "npm cannot reach the registry: no answer within 30 s"
  elif [ "$view" -ne 0 ]; then
    skipped "npm cannot reach the registry: $(grep -m 1 -E '^npm (error|ERR!)' "$3/npm-view.log" || echo "npm view exit $view")"
  fi
  echo "installing $1@$2 into $3/npm ..."
  if ! timeout 240 npm install --no-audit --no-fund --prefix "$3/npm" "$1@$2" >"$3/npm.log" 2>&1; then
    echo "FAIL npm install $1@$2 (see $3/npm.log):"
    tail -n 5 "$3/npm.log"
    echo "0 passed, 1 failed"
    exit 1
  fi
}

if [ -z "${CLAUDE_BIN:-}" ]; then
  mkdir -p "$WORK/install/claude"
  npm_install @anthropic-ai/claude-code "$CC_VERSION" "$WORK/install/claude"
  CLAUDE_BIN=$WORK/install/claude/npm/node_modules/.bin/claude
  if ! "$CLAUDE_BIN" --version >/dev/null 2>&1; then
    # The native binary was not put in place (install scripts disabled): use the wrapper.
    printf '#!/bin/sh\nexec node "%s" "$@"\n' \
      "$WORK/install/claude/npm/node_modules/@anthropic-ai/claude-code/cli-wrapper.cjs" >"$WORK/claude"
    chmod +x "$WORK/claude"
    CLAUDE_BIN=$WORK/claude
  fi
fi

# A network namespace with only loopback: nothing the agents do can leave the machine.
NS=
for U in "unshare -n" "unshare -rn"; do
  if command -v ip >/dev/null 2>&1 && $U true 2>/dev/null; then
    NS=$U
    break
  fi
done

ARGS=(--ctxctl "$CTXCTL" --work "$WORK" --claude "$(readlink -f "$CLAUDE_BIN")")
if [ -z "$NS" ]; then
  echo "=================================================================="
  echo "SKIPPED: the Codex half (no loopback-only network namespace: unshare -n / unshare -rn)"
  echo "=================================================================="
else
  if [ -z "${CODEX_BIN:-}" ]; then
    mkdir -p "$WORK/install/codex"
    npm_install @openai/codex "$CODEX_VERSION" "$WORK/install/codex"
    CODEX_BIN=$WORK/install/codex/npm/node_modules/.bin/codex
  fi
  ARGS+=(--codex "$(readlink -f "$CODEX_BIN")")
fi

status=0
if [ -n "$NS" ]; then
  timeout 600 $NS bash -c 'ip link set lo up && exec python3 "$@"' _ "$HERE/live/live.py" "${ARGS[@]}" \
    || status=$?
else
  timeout 600 python3 "$HERE/live/live.py" "${ARGS[@]}" || status=$?
fi
if [ "$status" -eq 0 ] && [ -z "$KEEP" ]; then
  rm -rf "$WORK"
elif [ "$status" -ne 0 ]; then
  echo "live e2e: FAILED (exit $status); everything it produced is in $WORK"
fi
exit "$status"
