#!/usr/bin/env bash
# End to end with the real Codex CLI: every rollout ctxctl rewrites resumes in the real
# `codex` and sends a valid, smaller request.
#
# Usage: scripts/e2e/codex.sh path/to/ctxctl
#
# Installs the pinned @openai/codex from npm into a scratch directory, records a real
# session (shell and apply_patch calls) against a fake Responses API on 127.0.0.1 that
# enforces the API's input rules and context_length_exceeded, rewrites the rollout with
# every ctxctl command, resumes each with `codex exec resume ID …` and checks the request;
# then the rescue: Codex fails with context_length_exceeded, `ctxctl check` says over,
# `ctxctl compact --if-needed --in-place`, and the resume fits under the limit.
# Codex runs in a network namespace that has only loopback.
#
#   CODEX_E2E_WORK=DIR   keep the scratch here (default: a new mktemp dir, removed on success)
#   CODEX_BIN=PATH       use this codex instead of installing it from npm
#   CODEX_VERSION=x.y.z  the Codex version to install (default: the pinned 0.169.0, what CI
#                        runs; a newer one checks ctxctl against a later release)
#
# Exit 0 when every check passed (or SKIPPED: npm cannot reach the registry), 1 when a
# check failed, 2 on a usage error. Takes about 4 minutes.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$HERE/lib.bash"
VERSION=${CODEX_VERSION:-0.169.0}
e2e_init codex "${1:-}"
e2e_need python3 unshare ip
e2e_work "${CODEX_E2E_WORK:-}"
echo "codex e2e: codex $VERSION"
if [ -n "${CODEX_BIN:-}" ]; then
  CODEX=$(readlink -f "$CODEX_BIN")
else
  e2e_npm @openai/codex "$VERSION" codex
  CODEX=$AGENT_BIN
fi
# Codex looks up DNS names even with a local provider: with only loopback in its network
# namespace, nothing leaves the machine.
e2e_netns

status=0
e2e_in_ns 600 "$HERE/codex/e2e.py" --ctxctl "$CTXCTL" --codex "$CODEX" --work "$WORK" \
  || status=$?
e2e_finish "$status"
