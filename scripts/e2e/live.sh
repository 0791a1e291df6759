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
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$HERE/lib.bash"
e2e_init live "${1:-}"
e2e_need python3
e2e_work "${WORK:-}"
e2e_claude "${CC_VERSION:-2.1.197}" "$WORK/install/claude"
e2e_netns optional

ARGS=(--ctxctl "$CTXCTL" --work "$WORK" --claude "$(readlink -f "$CLAUDE_BIN")")
if [ -z "$NS" ]; then
  echo "################################################################"
  echo "## SKIPPED: the Codex half (no loopback-only network namespace: unshare -n / unshare -rn)"
  echo "################################################################"
else
  if [ -z "${CODEX_BIN:-}" ]; then
    e2e_npm @openai/codex "${CODEX_VERSION:-0.169.0}" codex "$WORK/install/codex"
    CODEX_BIN=$AGENT_BIN
  fi
  ARGS+=(--codex "$(readlink -f "$CODEX_BIN")")
fi

status=0
if [ -n "$NS" ]; then
  e2e_in_ns 600 "$HERE/live/live.py" "${ARGS[@]}" || status=$?
else
  timeout 600 python3 "$HERE/live/live.py" "${ARGS[@]}" || status=$?
fi
e2e_finish "$status"
