#!/usr/bin/env bash
# Peak RSS of `ckptbench run` (save + load, coordinator and node in one
# process) with a ~1 GiB and a ~8 GiB checkpoint. Data is streamed through
# one block per file, so bytes cost no memory; what does grow is per-tensor
# bookkeeping (plan, .metadata, checksums), and the transformer preset gets
# its size from more layers, i.e. more tensors. The last line isolates bytes:
# llama3-8b, one rank (MLPerf subset mode): 13.1 GiB in only 2 tensors.
#   bench/memory.sh [DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-/var/tmp/ckptbench-mem}
BIN=${CKPTBENCH_BIN:-build/ckptbench}
rm -rf "$DIR"; mkdir -p "$DIR"
trap 'rm -rf "$DIR"' EXIT
# transformer bytes = 12 x (13,345,278 + 645,200 x NUM_LAYERS)
measure() {  # key=value... -> one line
  local plan bytes tensors rss_kib
  plan=$("$BIN" plan "$@")
  bytes=$(awk '/^bytes/{print $2}' <<<"$plan")
  tensors=$(awk '/^tensors/{print $2}' <<<"$plan")
  /usr/bin/time -f "%M" -o "$DIR/rss" env CKPT_DIR_PATH="$DIR/ckpt" CKPT_CACHE_MODE=fadvise \
    "$BIN" run -q NUM_SAVE_CALLS=1 NUM_LOAD_CALLS=1 "$@" >/dev/null 2>&1
  rss_kib=$(tail -1 "$DIR/rss")
  printf "%-32s checkpoint %6.2f GiB  %6d tensors  peak RSS %7.1f MiB\n" "$*" \
    "$(python3 -c "print($bytes/2**30)")" "$tensors" "$(python3 -c "print($rss_kib/1024)")"
  rm -rf "$DIR/ckpt"
}
measure NUM_LAYERS=118 NUM_DEVICES=2
measure NUM_LAYERS=1089 NUM_DEVICES=2
[ "${SKIP_BIG:-0}" = 1 ] || measure CKPT_MODEL=llama3-8b NUM_DEVICES=1
