#!/usr/bin/env bash
# Peak memory and output hashes of ctxctl's rewrites of one agent transcript (issue #43).
#
#   scripts/bench-rewrites.sh CTXCTL TAG FILE
#
# On a copy of FILE in a temporary directory (removed at the end, however the script ends),
# with a fresh HOME and XDG directories: `trim -o`, `compact -o`, `trim --in-place`,
# `compact --in-place`, then `archive restore` of the compacted copy. Prints one line per
# command (exit code, peak resident memory in KiB from `/usr/bin/time -v`, wall time) and a
# line of output hashes (first 12 hex digits of the SHA-256, compaction ids and times
# masked) ending with the input's: the restore's hash equals the input's when the undo is
# exact. Run it with two builds and the same FILE to compare them. Grow FILE with
# `scripts/grow-agent.py` (a 160 MB Claude Code transcript or Codex rollout is the
# README's figure).
set -euo pipefail
bin=$1 tag=$2 file=$3
dir=$(mktemp -d "${TMPDIR:-/tmp}/ctxctl-rewrites.XXXX")
trap 'rm -rf "$dir"' EXIT
cp "$file" "$dir/s.jsonl"
env=(env HOME="$dir" XDG_CACHE_HOME="$dir/c" XDG_DATA_HOME="$dir/d" XDG_CONFIG_HOME="$dir/cf" XDG_STATE_HOME="$dir/st")
measure() {
  local name=$1 rc=0
  shift
  "${env[@]}" /usr/bin/time -v "$@" >"$dir/$name.out" 2>"$dir/$name.err" || rc=$?
  echo "$tag $name rc=$rc peak_kib=$(awk '/Maximum resident/ {print $6}' "$dir/$name.err")" \
    "wall=$(awk '/Elapsed/ {print $8}' "$dir/$name.err")"
}
measure trim-o "$bin" trim --strategy fifo --max-tokens 200000 --no-cache -o "$dir/trim.jsonl" "$dir/s.jsonl"
measure compact-o "$bin" compact --max-tokens 200000 --no-cache -o "$dir/compact.jsonl" "$dir/s.jsonl"
# In place: files an agent last wrote two days ago (a fresher one is left alone as live).
cp "$dir/s.jsonl" "$dir/t.jsonl"
touch -d '2 days ago' "$dir/t.jsonl" "$dir/s.jsonl"
measure trim-inplace "$bin" trim --strategy fifo --max-tokens 200000 --no-cache --in-place "$dir/t.jsonl"
measure compact-inplace "$bin" compact --max-tokens 200000 --no-cache --in-place "$dir/s.jsonl"
cp "$dir/s.jsonl" "$dir/s-compacted.jsonl"
measure restore "$bin" archive restore "$dir/s.jsonl"
hashes=$(cd "$dir" && for f in trim.jsonl compact.jsonl t.jsonl s-compacted.jsonl s.jsonl; do
  sed -E 's/"compact_(id|timestamp)":"[^"]*"//g' "$f" | sha256sum | cut -c1-12
done | tr '\n' ' ')
echo "$tag hashes (trim -o, compact -o, trim in place, compact in place, restored): $hashes input=$(sha256sum <"$file" | cut -c1-12)"
