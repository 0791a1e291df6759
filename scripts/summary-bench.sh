#!/bin/sh
# Issue #21's benchmark: the offline summary's recall of user requests, paths, commands and
# errors, the middle's compression and byte-determinism, on every real transcript in
# shared/fixtures/ long enough to compact and on generated sessions. Exits 1 if a target is
# missed. Usage: scripts/summary-bench.sh
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 scripts/gen-session.py 30000 "$tmp/generated-30k.json" --seed 1
python3 scripts/gen-session.py 120000 "$tmp/generated-120k.jsonl" --seed 2
cargo run --quiet --example summary_bench -- "$tmp/generated-30k.json" "$tmp/generated-120k.jsonl"
