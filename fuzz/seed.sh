#!/usr/bin/env bash
# Seeds fuzz/corpus/<target>/ from the repository's sample sessions, the shared fixtures
# (the first shared/fixtures found above the repository, when there is one) and the
# committed regressions. Extra directories of sessions may be given as arguments. The corpus
# directories are git-ignored; run this once before `cargo fuzz run`.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
sources=("$repo/sample-sessions")
# The shared fixtures: the first shared/fixtures found walking up from the repository.
dir="$repo"
while [ "$dir" != "/" ]; do
  if [ -d "$dir/shared/fixtures" ]; then
    sources+=("$dir/shared/fixtures")
    break
  fi
  dir="$(dirname "$dir")"
done
sources+=("$@")
for target in read round_trip rewrite; do
  out="$here/corpus/$target"
  mkdir -p "$out"
  n=0
  for src in "${sources[@]}" "$here/regressions/$target"; do
    [ -d "$src" ] || continue
    while IFS= read -r -d '' f; do
      # Name seeds by content so re-running never duplicates them.
      name="$out/seed-$(sha1sum "$f" | cut -c1-16)"
      if [ "$target" = rewrite ] && [[ "$f" != "$here"/regressions/* ]]; then
        # rewrite inputs start with a plan: 3 ops (insert a note, shorten results, drop).
        { printf '\x03\x05\x06\x04'; cat "$f"; } > "$name"
      else
        install -m 0644 "$f" "$name"
      fi
      n=$((n + 1))
    done < <(find "$src" -type f ! -name '.*' \( -name '*.json' -o -name '*.jsonl' -o -path '*/regressions/*' \) -print0)
  done
  echo "$target: $n seed(s) in ${out#"$repo"/}"
done
