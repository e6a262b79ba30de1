#!/usr/bin/env bash
# Runs one libFuzzer target for a bounded time from its seed corpus (the
# seeds are read, never written: new inputs go to a temporary corpus) and
# prints how many inputs it executed. Exit status: the fuzzer's (non-zero
# on a crash, a leak or a timeout, with the input under ARTIFACTS).
# Usage: run.sh FUZZER SEED_DIR SECONDS ARTIFACTS
set -euo pipefail
fuzzer=$1 seeds=$2 seconds=$3 artifacts=$4
work=$(mktemp -d /tmp/ckptbench-fuzz-corpus-XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$artifacts"
name=$(basename "$fuzzer")
set +e
"$fuzzer" "$work" "$seeds" -max_total_time="$seconds" -timeout=10 \
  -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
  -artifact_prefix="$artifacts/$name-" >"$work.log" 2>&1
rc=$?
set -e
runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work.log" | grep -o '[0-9]*$' || true)
echo "$name: ${runs:-?} executions in ${seconds} s, exit $rc"
if [ "$rc" -ne 0 ]; then
  tail -n 60 "$work.log"
fi
rm -f "$work.log"
exit "$rc"
