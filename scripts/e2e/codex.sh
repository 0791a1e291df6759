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
export PYTHONDONTWRITEBYTECODE=1
VERSION=${CODEX_VERSION:-0.169.0}
CTXCTL=$(readlink -f "${1:?usage: scripts/e2e/codex.sh path/to/ctxctl}")
[ -x "$CTXCTL" ] || { echo "codex e2e: not executable: $CTXCTL" >&2; exit 2; }
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

skip() {
  echo "################################################################"
  echo "## SKIPPED: codex e2e: $1"
  echo "################################################################"
  exit 0
}

for tool in python3 unshare ip; do
  command -v "$tool" >/dev/null || skip "$tool is not installed"
done

WORK=${CODEX_E2E_WORK:-$(mktemp -d /tmp/ctxctl-codex-e2e.XXXXXX)}
mkdir -p "$WORK"
WORK=$(readlink -f "$WORK")
echo "codex e2e: work dir $WORK (codex $VERSION)"

if [ -n "${CODEX_BIN:-}" ]; then
  CODEX=$(readlink -f "$CODEX_BIN")
else
  command -v npm >/dev/null || skip "npm is not installed"
  if ! timeout 30 npm view "@openai/codex@$VERSION" version >/dev/null 2>&1; then
    skip "npm cannot reach the registry (npm view @openai/codex@$VERSION failed)"
  fi
  NPM=$WORK/npm
  if [ ! -x "$NPM/node_modules/.bin/codex" ]; then
    echo "codex e2e: installing @openai/codex@$VERSION"
    if ! timeout 300 npm install --prefix "$NPM" --no-audit --no-fund \
      "@openai/codex@$VERSION" >"$WORK/npm.log" 2>&1; then
      echo "FAIL  setup.npm: npm install failed, see $WORK/npm.log"
      exit 1
    fi
  fi
  CODEX=$NPM/node_modules/.bin/codex
fi

ARGS=(--ctxctl "$CTXCTL" --codex "$CODEX" --work "$WORK")
# Codex looks up DNS names even with a local provider: with only loopback in its network
# namespace, nothing leaves the machine.
NS=
for U in "unshare -n" "unshare -rn"; do
  if $U true 2>/dev/null; then
    NS=$U
    break
  fi
done
[ -n "$NS" ] || skip "no loopback-only network namespace (unshare -n / unshare -rn) available"

status=0
timeout 600 $NS bash -c 'ip link set lo up && exec python3 "$@"' _ "$HERE/codex/e2e.py" "${ARGS[@]}" \
  || status=$?
if [ "$status" -eq 0 ] && [ -z "${CODEX_E2E_WORK:-}" ]; then
  rm -rf "$WORK"
fi
exit "$status"
