#!/usr/bin/env bash
# End to end with the real GitHub Copilot CLI: a session ctxctl compacts in place (its
# events.jsonl rewritten line by line) resumes in the real `copilot` and sends the
# rewritten history.
#
# Usage: scripts/e2e/copilot.sh path/to/ctxctl
#
# Installs the pinned @github/copilot from npm into a scratch directory, records a
# multi-turn session with `view` tool calls against a fake OpenAI-compatible API on
# 127.0.0.1 (copilot/fake_openai_server.py; COPILOT_OFFLINE=true, no GitHub sign-in), then
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
export PYTHONDONTWRITEBYTECODE=1
VERSION=${COPILOT_VERSION:-1.0.102}
CTXCTL=$(readlink -f "${1:?usage: scripts/e2e/copilot.sh path/to/ctxctl}")
[ -x "$CTXCTL" ] || { echo "copilot e2e: not executable: $CTXCTL" >&2; exit 2; }
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

skip() {
  echo "################################################################"
  echo "## SKIPPED: copilot e2e: $1"
  echo "################################################################"
  exit 0
}

for tool in python3 unshare ip node; do
  command -v "$tool" >/dev/null || skip "$tool is not installed"
done

WORK=${COPILOT_E2E_WORK:-$(mktemp -d /tmp/ctxctl-copilot-e2e.XXXXXX)}
mkdir -p "$WORK"
WORK=$(readlink -f "$WORK")
echo "copilot e2e: work dir $WORK"

if [ -n "${COPILOT_BIN:-}" ]; then
  COPILOT=$(readlink -f "$COPILOT_BIN")
else
  command -v npm >/dev/null || skip "npm is not installed"
  if ! timeout 30 npm view "@github/copilot@$VERSION" version >/dev/null 2>&1; then
    skip "npm cannot reach the registry (npm view @github/copilot@$VERSION failed)"
  fi
  NPM=$WORK/npm
  if [ ! -x "$NPM/node_modules/.bin/copilot" ]; then
    echo "copilot e2e: installing @github/copilot@$VERSION"
    if ! timeout 300 npm install --prefix "$NPM" --no-audit --no-fund \
      "@github/copilot@$VERSION" >"$WORK/npm.log" 2>&1; then
      echo "FAIL  setup.npm: npm install failed, see $WORK/npm.log"
      exit 1
    fi
  fi
  COPILOT=$NPM/node_modules/.bin/copilot
fi

NS=
for U in "unshare -n" "unshare -rn"; do
  if $U true 2>/dev/null; then
    NS=$U
    break
  fi
done
[ -n "$NS" ] || skip "no loopback-only network namespace (unshare -n / unshare -rn) available"

status=0
timeout 300 $NS bash -c 'ip link set lo up && exec python3 "$@"' _ "$HERE/copilot/e2e.py" \
  --ctxctl "$CTXCTL" --copilot "$COPILOT" --work "$WORK" || status=$?
if [ "$status" -eq 0 ] && [ -z "${COPILOT_E2E_WORK:-}" ]; then
  rm -rf "$WORK"
fi
exit "$status"
