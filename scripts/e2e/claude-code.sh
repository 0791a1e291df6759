#!/usr/bin/env bash
# End to end: ctxctl against the real Claude Code CLI, offline except for one npm install.
#
#   scripts/e2e/claude-code.sh target/release/ctxctl
#
# Installs the pinned @anthropic-ai/claude-code (CC_VERSION, default 2.1.197) into a scratch
# directory, records a real session with tool use against a fake Anthropic API on 127.0.0.1
# (it enforces the API's message rules and its "prompt is too long" limit), rewrites it with
# every ctxctl command, resumes each rewrite with `claude -p ... --resume ID` and checks the
# request Claude Code sent; then the rescue of a session Claude Code compacted itself that is
# still too long (see claude-code/README.md). Prints one PASS/FAIL line per check and a
# SUMMARY line. Exit 1 on any FAIL; exit 0 with a loud SKIPPED when npm cannot reach the
# registry (or node/npm/python3 are missing), so CI runs everything else.
#
#   WORK=dir           keep the scratch directory there (default: mktemp -d, removed on success)
#   CLAUDE_BIN=path    use an installed claude instead of installing one
#   CC_VERSION=x.y.z   the Claude Code version (default: the pinned 2.1.197, what CI runs; the
#                      checks of behaviour that changed since are made per version, see harness.py)
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$HERE/lib.bash"
e2e_init claude-code "${1:-}"
e2e_need python3
e2e_work "${WORK:-}"
e2e_claude "${CC_VERSION:-2.1.197}"

status=0
timeout 600 python3 "$HERE/claude-code/harness.py" --ctxctl "$CTXCTL" --claude "$CLAUDE_BIN" \
  --work "$WORK" || status=$?
e2e_finish "$status"
