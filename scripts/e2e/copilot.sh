#!/usr/bin/env bash
# End to end with the real GitHub Copilot CLI: a session ctxctl compacts in place (its
# events.jsonl rewritten line by line) resumes in the real `copilot` and sends the
# rewritten history.
#
# Usage: scripts/e2e/copilot.sh path/to/ctxctl
#
# Installs the pinned @github/copilot from npm into a scratch directory, records a
# multi-turn session with `view` tool calls against a fake OpenAI-compatible API on
# 127.0.0.1 (fake_openai_server.py; COPILOT_OFFLINE=true, no GitHub sign-in), then
# checks (copilot/e2e.py): `ctxctl sessions` finds it, count and check read it; compact keeps
# every other line byte for byte and `archive restore` gives the original back; after
# `compact --in-place`, `copilot --resume=ID -p …` sends a valid request, smaller than the
# untouched session's, without the removed middle's tool calls, and with ctxctl's summary.
# Copilot CLI runs in a network namespace that has only loopback.
#
#   COPILOT_VERSION=X.Y.Z  install this version instead of the pinned one
#   COPILOT_E2E_WORK=DIR   keep the scratch here (default: a new mktemp dir, removed on success)
#   COPILOT_BIN=PATH       use this copilot instead of installing it from npm
#
# Exit 0 when every check passed (or SKIPPED: npm cannot reach the registry), 1 when a
# check failed, 2 on a usage error. Takes about a minute once installed.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$HERE/lib.bash"
e2e_init copilot "${1:-}"
e2e_need python3 unshare ip node
e2e_work "${COPILOT_E2E_WORK:-}"
if [ -n "${COPILOT_BIN:-}" ]; then
  COPILOT=$(readlink -f "$COPILOT_BIN")
else
  e2e_npm @github/copilot "${COPILOT_VERSION:-1.0.102}" copilot
  COPILOT=$AGENT_BIN
fi
e2e_netns

status=0
e2e_in_ns 300 "$HERE/copilot/e2e.py" --ctxctl "$CTXCTL" --copilot "$COPILOT" --work "$WORK" \
  || status=$?
e2e_finish "$status"
