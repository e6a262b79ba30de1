#!/usr/bin/env bash
# Peak RSS of `ckptbench run` (save + load) with a ~1 GiB and a ~8 GiB
# checkpoint: node memory must not grow with checkpoint size.
#   bench/memory.sh [DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-/var/tmp/ckptbench-mem}
BIN=${CKPTBENCH_BIN:-build/ckptbench}
rm -rf "$DIR"; mkdir -p "$DIR"
trap 'rm -rf "$DIR"' EXIT
# transformer bytes = 12 x (13,345,278 + 645,200 x NUM_LAYERS)
for layers in 118 1089; do
  bytes=$("$BIN" plan NUM_LAYERS=$layers NUM_DEVICES=2 | awk '/^bytes/{print $2}')
  /usr/bin/time -f "%M" -o "$DIR/rss" env CKPT_DIR_PATH="$DIR/ckpt" NUM_LAYERS=$layers \
    NUM_DEVICES=2 CKPT_CACHE_MODE=fadvise "$BIN" run -q NUM_SAVE_CALLS=1 NUM_LOAD_CALLS=1 >/dev/null 2>&1
  rss_kib=$(tail -1 "$DIR/rss")
  printf "checkpoint %6.2f GiB  peak RSS %7.1f MiB\n" "$(python3 -c "print($bytes/2**30)")" "$(python3 -c "print($rss_kib/1024)")"
  rm -rf "$DIR/ckpt"
done
