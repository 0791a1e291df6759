#!/usr/bin/env bash
# End to end with the real OpenCode: a session ctxctl compacts (OpenCode's own compaction
# records, appended to opencode.db) resumes in the real `opencode` from ctxctl's summary.
#
# Usage: scripts/e2e/opencode.sh path/to/ctxctl
#
# Installs the pinned opencode-ai from npm into a scratch directory, records a multi-turn
# session with a `read` tool call against a fake OpenAI-compatible API on 127.0.0.1
# (fake_openai_server.py), then checks (opencode/e2e.py): compact refuses a live
# session unless --include-live; it appends two messages and keeps every row;
# `archive restore` removes them again; after `compact --in-place`,
# `opencode run --session ID …` sends ctxctl's summary and not the removed middle's tool
# call; `archive restore` refuses once OpenCode wrote to the session again.
# OpenCode runs in a network namespace that has only loopback.
#
#   OPENCODE_E2E_WORK=DIR   keep the scratch here (default: a new mktemp dir, removed on success)
#   OPENCODE_BIN=PATH       use this opencode instead of installing it from npm
#
# Exit 0 when every check passed (or SKIPPED: npm cannot reach the registry), 1 when a
# check failed, 2 on a usage error. Takes about a minute once installed.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$HERE/lib.bash"
e2e_init opencode "${1:-}"
e2e_need python3 unshare ip
e2e_work "${OPENCODE_E2E_WORK:-}"
if [ -n "${OPENCODE_BIN:-}" ]; then
  OPENCODE=$(readlink -f "$OPENCODE_BIN")
else
  e2e_npm opencode-ai 1.18.33 opencode
  OPENCODE=$AGENT_BIN
fi
e2e_netns

status=0
e2e_in_ns 300 "$HERE/opencode/e2e.py" --ctxctl "$CTXCTL" --opencode "$OPENCODE" --work "$WORK" \
  || status=$?
e2e_finish "$status"
