#!/usr/bin/env bash
# ckptbench save/load vs fio sequential write/read on the same directory,
# interleaved (disk speed here swings 2-3x between runs, so only pairs taken
# back to back are compared). Same bytes, block size, parallel streams,
# fsync before done, page cache evicted per file before reads.
# Prints each pair and the median ratio ckptbench/fio.
#   bench/local_disk.sh [DIR]   (env: REPS=3 NUM_LAYERS=100 NUM_DEVICES=2)
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-/var/tmp/ckptbench-bench}
REPS=${REPS:-3}
LAYERS=${NUM_LAYERS:-100}
RANKS=${NUM_DEVICES:-2}
BIN=${CKPTBENCH_BIN:-build/ckptbench}
command -v fio >/dev/null || { echo "fio missing: scripts/install-deps.sh" >&2; exit 1; }
rm -rf "$DIR"; mkdir -p "$DIR/ckpt" "$DIR/fio" "$DIR/res"
trap 'rm -rf "$DIR"' EXIT

total=$("$BIN" plan NUM_LAYERS="$LAYERS" NUM_DEVICES="$RANKS" | awk '/^bytes/{print $2}')
per_rank=$(( (total / RANKS + 4095) / 4096 * 4096 ))
echo "checkpoint: $total bytes, $RANKS ranks, $per_rank bytes per stream, block 4MiB"

fio_rate() {  # rw -> MiB/s
  fio --name=ckpt --directory="$DIR/fio" --rw="$1" --bs=4M --size="$per_rank" \
      --numjobs="$RANKS" --ioengine=psync --end_fsync=1 --invalidate=1 \
      --group_reporting --output-format=json 2>/dev/null |
    python3 -c "import json,sys; j=json.load(sys.stdin)['jobs'][0]; k='write' if '$1'=='write' else 'read'; print(j[k]['bw_bytes']/1048576)"
}

ckpt_rate() {  # phase -> MiB/s
  rm -rf "$DIR/res"/*
  CKPT_DIR_PATH="$DIR/ckpt" NUM_LAYERS="$LAYERS" NUM_DEVICES="$RANKS" CKPT_CACHE_MODE=fadvise \
    "$BIN" run -q NUM_SAVE_CALLS=1 NUM_LOAD_CALLS=1 --results-dir "$DIR/res" >/dev/null 2>&1
  python3 -c "import json; j=json.load(open('$DIR/res/result.json')); print(j['summary']['$1']['throughput_mib_s']['mean'])"
}

ratios_w=(); ratios_r=()
for i in $(seq "$REPS"); do
  fw=$(fio_rate write); fr=$(fio_rate read); rm -f "$DIR/fio"/*
  cw=$(ckpt_rate save); cr=$(ckpt_rate load)
  rw=$(python3 -c "print($cw/$fw)"); rr=$(python3 -c "print($cr/$fr)")
  ratios_w+=("$rw"); ratios_r+=("$rr")
  printf "rep %d  write: ckptbench %8.1f  fio %8.1f MiB/s  ratio %.2f | read: ckptbench %8.1f  fio %8.1f MiB/s  ratio %.2f\n" \
    "$i" "$cw" "$fw" "$rw" "$cr" "$fr" "$rr"
done
python3 - "${ratios_w[*]}" "${ratios_r[*]}" <<'PY'
import statistics, sys
w = [float(x) for x in sys.argv[1].split()]
r = [float(x) for x in sys.argv[2].split()]
print(f"median ratio ckptbench/fio: save {statistics.median(w):.2f}, load {statistics.median(r):.2f}")
PY
