#!/usr/bin/env bash
# scripts/code-metrics.sh --check against docs/architecture.md's table of
# limits: the tree passes it as it is; a copy of the doc with one limit
# lowered below its figure fails, naming the figure; a copy whose table
# names a figure the script does not measure, or leaves one out, fails too.
# Only its own temporary directory is written.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/ckptbench-metrics-XXXXXX)
trap 'rm -rf "$work"' EXIT
metrics() { python3 "$root/scripts/code_metrics.py" --check "$1" >"$work/out" 2>&1; }
doc=$root/docs/architecture.md

metrics "$doc" || { cat "$work/out"; echo "FAIL: the tree is past a limit"; exit 1; }
grep -q 'every figure within its limit' "$work/out"

# The longest function's limit one below what the tree measures.
now=$(grep -o 'longest function: [0-9]*' "$work/out" | grep -o '[0-9]*$')
sed "s/^| longest product function | [0-9]* |/| longest product function | $((now - 1)) |/" \
  "$doc" >"$work/lowered.md"
if metrics "$work/lowered.md"; then echo "FAIL: a lowered limit passed"; exit 1; fi
grep -q "'longest product function' is $now, past its limit of $((now - 1))" "$work/out" ||
  { cat "$work/out"; echo "FAIL: the failure does not name the figure"; exit 1; }

sed 's/^| rooms over 600 lines | 0 |/| rooms over 900 lines | 0 |/' "$doc" >"$work/renamed.md"
if metrics "$work/renamed.md"; then echo "FAIL: an unknown figure passed"; exit 1; fi
grep -q "limits 'rooms over 900 lines', a figure this script does not measure" "$work/out"
grep -q "'rooms over 600 lines' (0) has no limit" "$work/out"

grep -v 'code-metrics limits -->' "$doc" >"$work/none.md"
if metrics "$work/none.md"; then echo "FAIL: a doc without a table passed"; exit 1; fi
echo "ok: within the limits; a lowered, an unknown and a missing limit each fail"
