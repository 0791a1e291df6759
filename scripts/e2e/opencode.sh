#!/usr/bin/env bash
# End to end with the real OpenCode: a session ctxctl compacts (OpenCode's own compaction
# records, appended to opencode.db) resumes in the real `opencode` from ctxctl's summary.
#
# Usage: scripts/e2e/opencode.sh path/to/ctxctl
#
# Installs the pinned opencode-ai from npm into a scratch directory, records a multi-turn
# session with a `read` tool call against a fake OpenAI-compatible API on 127.0.0.1
# (opencode/fake_openai_server.py), then checks (opencode/e2e.py): compact refuses a live
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
export PYTHONDONTWRITEBYTECODE=1
VERSION=1.18.33
CTXCTL=$(readlink -f "${1:?usage: scripts/e2e/opencode.sh path/to/ctxctl}")
[ -x "$CTXCTL" ] || { echo "opencode e2e: not executable: $CTXCTL" >&2; exit 2; }
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

skip() {
  echo "################################################################"
  echo "## SKIPPED: opencode e2e: $1"
  echo "################################################################"
  exit 0
}

for tool in python3 unshare ip; do
  command -v "$tool" >/dev/null || skip "$tool is not installed"
done

WORK=${OPENCODE_E2E_WORK:-$(mktemp -d /tmp/ctxctl-opencode-e2e.XXXXXX)}
mkdir -p "$WORK"
WORK=$(readlink -f "$WORK")
echo "opencode e2e: work dir $WORK"

if [ -n "${OPENCODE_BIN:-}" ]; then
  OPENCODE=$(readlink -f "$OPENCODE_BIN")
else
  command -v npm >/dev/null || skip "npm is not installed"
  if ! timeout 30 npm view "opencode-ai@$VERSION" version >/dev/null 2>&1; then
    skip "npm cannot reach the registry (npm view opencode-ai@$VERSION failed)"
  fi
  NPM=$WORK/npm
  if [ ! -x "$NPM/node_modules/.bin/opencode" ]; then
    echo "opencode e2e: installing opencode-ai@$VERSION"
    if ! timeout 300 npm install --prefix "$NPM" --no-audit --no-fund \
      "opencode-ai@$VERSION" >"$WORK/npm.log" 2>&1; then
      echo "FAIL  setup.npm: npm install failed, see $WORK/npm.log"
      exit 1
    fi
  fi
  OPENCODE=$NPM/node_modules/.bin/opencode
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
timeout 300 $NS bash -c 'ip link set lo up && exec python3 "$@"' _ "$HERE/opencode/e2e.py" \
  --ctxctl "$CTXCTL" --opencode "$OPENCODE" --work "$WORK" || status=$?
if [ "$status" -eq 0 ] && [ -z "${OPENCODE_E2E_WORK:-}" ]; then
  rm -rf "$WORK"
fi
exit "$status"
