# What every real-agent script (scripts/e2e/*.sh) does the same way, sourced by each:
# naming ctxctl, saying SKIPPED loudly (exit 0) when the agent cannot be had, a scratch
# directory kept on failure, installing the pinned agent from npm, and a network namespace
# with only loopback, so the agent reaches nothing but the fake provider on 127.0.0.1.
#
# Not a script of its own (.ci/run runs scripts/e2e/*.sh; this file is .bash).
#
#   e2e_init NAME CTXCTL        sets E2E_NAME and CTXCTL (an absolute path); exit 2 if CTXCTL
#                               is not an executable
#   e2e_skip REASON             prints the SKIPPED banner and exits 0
#   e2e_need TOOL...            skips unless every TOOL is on PATH
#   e2e_work [DIR]              sets WORK: DIR (kept) or a new scratch dir (removed on success)
#   e2e_npm PACKAGE VERSION BIN [DIR]
#                               installs PACKAGE@VERSION under DIR/npm (default WORK) and sets
#                               AGENT_BIN to its BIN (skips when npm cannot reach the registry;
#                               exit 1 when the install fails)
#   e2e_claude VERSION [DIR]    sets CLAUDE_BIN, unless given, to Claude Code VERSION installed
#                               (its node wrapper when the native binary was not put in place)
#   e2e_netns [optional]        sets NS to the command prefix of a loopback-only namespace;
#                               skips without one, unless `optional` (NS is then empty)
#   e2e_in_ns SECONDS PY ARGS.. runs python3 PY ARGS in that namespace, with loopback up
#   e2e_finish STATUS           removes a scratch WORK on success, names it on failure, exits

e2e_init() {
  E2E_NAME=$1
  local bin=${2:-}
  [ -n "$bin" ] || { echo "$E2E_NAME e2e: usage: $0 path/to/ctxctl" >&2; exit 2; }
  [ -x "$bin" ] || { echo "$E2E_NAME e2e: $bin is not an executable" >&2; exit 2; }
  CTXCTL=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
  export PYTHONDONTWRITEBYTECODE=1
}

e2e_skip() {
  if [ -n "${WORK:-}" ] && [ -z "${E2E_KEEP:-}" ]; then rm -rf "$WORK"; fi
  echo "################################################################"
  echo "## SKIPPED: $E2E_NAME e2e: $*"
  echo "################################################################"
  exit 0
}

e2e_need() {
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null 2>&1 || e2e_skip "$tool is not installed"
  done
}

e2e_work() {
  E2E_KEEP=${1:+1}
  WORK=${1:-$(mktemp -d "${TMPDIR:-/tmp}/ctxctl-e2e-$E2E_NAME.XXXXXX")}
  mkdir -p "$WORK"
  WORK=$(cd "$WORK" && pwd)
  echo "$E2E_NAME e2e: work dir $WORK"
}

e2e_npm() {
  local package=$1 version=$2 bin=$3 dir=${4:-$WORK} view=0
  e2e_need node npm
  mkdir -p "$dir"
  timeout 30 npm view "$package@$version" version >"$dir/npm-view.log" 2>&1 || view=$?
  if [ "$view" -eq 124 ]; then
    e2e_skip "npm cannot reach the registry: no answer within 30 s"
  elif [ "$view" -ne 0 ]; then
    e2e_skip "npm cannot reach the registry: $(grep -m 1 -E '^npm (error|ERR!)' "$dir/npm-view.log" || echo "npm view $package@$version: exit $view")"
  fi
  if [ ! -x "$dir/npm/node_modules/.bin/$bin" ]; then
    echo "$E2E_NAME e2e: installing $package@$version into $dir/npm"
    if ! timeout 300 npm install --no-audit --no-fund --prefix "$dir/npm" \
        "$package@$version" >"$dir/npm.log" 2>&1; then
      echo "FAIL  setup.npm: npm install $package@$version failed (see $dir/npm.log):"
      tail -n 5 "$dir/npm.log"
      exit 1
    fi
  fi
  AGENT_BIN=$dir/npm/node_modules/.bin/$bin
}

e2e_claude() {
  local version=$1 dir=${2:-$WORK}
  if [ -n "${CLAUDE_BIN:-}" ]; then
    CLAUDE_BIN=$(cd "$(dirname "$CLAUDE_BIN")" && pwd)/$(basename "$CLAUDE_BIN")
    return
  fi
  e2e_npm @anthropic-ai/claude-code "$version" claude "$dir"
  CLAUDE_BIN=$AGENT_BIN
  if ! "$CLAUDE_BIN" --version >/dev/null 2>&1; then
    # The native binary was not put in place (install scripts disabled): use the wrapper.
    printf '#!/bin/sh\nexec node "%s" "$@"\n' \
      "$dir/npm/node_modules/@anthropic-ai/claude-code/cli-wrapper.cjs" >"$dir/claude"
    chmod +x "$dir/claude"
    CLAUDE_BIN=$dir/claude
  fi
}

e2e_netns() {
  local u
  NS=
  if command -v ip >/dev/null 2>&1; then
    for u in "unshare -n" "unshare -rn"; do
      if $u true 2>/dev/null; then NS=$u; return; fi
    done
  fi
  [ "${1:-}" = optional ] && return
  e2e_skip "no loopback-only network namespace (unshare -n / unshare -rn) available"
}

e2e_in_ns() {
  local seconds=$1
  shift
  timeout "$seconds" $NS bash -c 'ip link set lo up && exec python3 "$@"' _ "$@"
}

e2e_finish() {
  local status=$1
  if [ "$status" -eq 0 ] && [ -z "${E2E_KEEP:-}" ]; then
    rm -rf "$WORK"
  elif [ "$status" -ne 0 ]; then
    echo "$E2E_NAME e2e: FAILED (exit $status); everything it produced is in $WORK"
  fi
  exit "$status"
}
