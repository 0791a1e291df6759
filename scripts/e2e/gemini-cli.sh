#!/usr/bin/env bash
# End to end with the real Gemini CLI: a session ctxctl compacts or trims (one appended
# `$set.messages` checkpoint) resumes in the real `gemini` and sends the rewritten history.
#
# Usage: scripts/e2e/gemini-cli.sh path/to/ctxctl
#
# Installs the pinned @google/gemini-cli from npm into a scratch directory, records a
# multi-turn session with read_file calls against a fake Gemini API on 127.0.0.1
# (gemini-cli/fake_gemini_server.py), then checks (gemini-cli/e2e.py): compact and trim
# append exactly one line and `archive restore` gives the original back byte for byte;
# after `trim --in-place` and after `compact --in-place`, `gemini --resume latest -p …`
# sends a smaller request without the removed middle's tool calls, and with ctxctl's
# summary; `archive restore` refuses once Gemini wrote to the session again.
# Gemini CLI runs in a network namespace that has only loopback.
#
#   GEMINI_E2E_WORK=DIR   keep the scratch here (default: a new mktemp dir, removed on success)
#   GEMINI_BIN=PATH       use this gemini instead of installing it from npm
#
# Exit 0 when every check passed (or SKIPPED: npm cannot reach the registry), 1 when a
# check failed, 2 on a usage error. Takes about a minute once installed.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$HERE/lib.bash"
e2e_init gemini-cli "${1:-}"
e2e_need python3 unshare ip node
e2e_work "${GEMINI_E2E_WORK:-}"
if [ -n "${GEMINI_BIN:-}" ]; then
  GEMINI=$(readlink -f "$GEMINI_BIN")
else
  e2e_npm @google/gemini-cli 0.61.0 gemini
  GEMINI=$AGENT_BIN
fi
e2e_netns

status=0
e2e_in_ns 300 "$HERE/gemini-cli/e2e.py" --ctxctl "$CTXCTL" --gemini "$GEMINI" --work "$WORK" \
  || status=$?
e2e_finish "$status"
