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
export PYTHONDONTWRITEBYTECODE=1
VERSION=0.61.0
CTXCTL=$(readlink -f "${1:?usage: scripts/e2e/gemini-cli.sh path/to/ctxctl}")
[ -x "$CTXCTL" ] || { echo "gemini-cli e2e: not executable: $CTXCTL" >&2; exit 2; }
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

skip() {
  echo "################################################################"
  echo "## SKIPPED: gemini-cli e2e: $1"
  echo "################################################################"
  exit 0
}

for tool in python3 unshare ip node; do
  command -v "$tool" >/dev/null || skip "$tool is not installed"
done

WORK=${GEMINI_E2E_WORK:-$(mktemp -d /tmp/ctxctl-gemini-e2e.XXXXXX)}
mkdir -p "$WORK"
WORK=$(readlink -f "$WORK")
echo "gemini-cli e2e: work dir $WORK"

if [ -n "${GEMINI_BIN:-}" ]; then
  GEMINI=$(readlink -f "$GEMINI_BIN")
else
  command -v npm >/dev/null || skip "npm is not installed"
  if ! timeout 30 npm view "@google/gemini-cli@$VERSION" version >/dev/null 2>&1; then
    skip "npm cannot reach the registry (npm view @google/gemini-cli@$VERSION failed)"
  fi
  NPM=$WORK/npm
  if [ ! -x "$NPM/node_modules/.bin/gemini" ]; then
    echo "gemini-cli e2e: installing @google/gemini-cli@$VERSION"
    if ! timeout 300 npm install --prefix "$NPM" --no-audit --no-fund \
      "@google/gemini-cli@$VERSION" >"$WORK/npm.log" 2>&1; then
      echo "FAIL  setup.npm: npm install failed, see $WORK/npm.log"
      exit 1
    fi
  fi
  GEMINI=$NPM/node_modules/.bin/gemini
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
timeout 300 $NS bash -c 'ip link set lo up && exec python3 "$@"' _ "$HERE/gemini-cli/e2e.py" \
  --ctxctl "$CTXCTL" --gemini "$GEMINI" --work "$WORK" || status=$?
if [ "$status" -eq 0 ] && [ -z "${GEMINI_E2E_WORK:-}" ]; then
  rm -rf "$WORK"
fi
exit "$status"
