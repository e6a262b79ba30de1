#!/usr/bin/env bash
# Peak RSS of a node agent (its own process: one node, loopback gRPC)
# through one dataload epoch, map-style and iterable, of N samples in TAR
# shards on local disk, for N = 10k, 100k and 1M (1 KiB samples, so the
# dataset stays small: ~2.5 KiB a sample on disk with its tar headers and
# label). Bytes pass through one block buffer per worker; what can grow
# with N is the bookkeeping per sample (the member index, the epoch's
# permutation, the ranks' shares).
#   bench/dataload_memory.sh [DIR]   (env: COUNTS="10000 1000000")
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-/var/tmp/ckptbench-dlmem}
BIN=${CKPTBENCH_BIN:-build/ckptbench}
COUNTS=${COUNTS:-10000 100000 1000000}
rm -rf "$DIR"; mkdir -p "$DIR"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$DIR"
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

export CKPT_DATASET_PATH="$DIR/ds" CKPT_DATASET_FORMAT=tar \
  CKPT_SAMPLE_BYTES=1KiB CKPT_SAMPLE_SPREAD=0 CKPT_SHARD_BYTES=64MiB \
  NUM_DEVICES=2 CKPT_NUM_WORKERS=4 CKPT_BATCH_SIZE=32 CKPT_CACHE_MODE=fadvise

echo "peak RSS of one node agent (its own process), one dataload epoch, tar on local disk"
for n in $COUNTS; do
  export CKPT_DATASET_SAMPLES=$n
  "$BIN" datagen -q --results-dir "$DIR/gen" >/dev/null 2>&1
  for access in map iterable; do
  port=$(free_port)
  env CKPT_WORKLOAD=dataload CKPT_EPOCHS=1 NUM_NODES=1 \
    CKPT_DATALOAD_ACCESS=$access \
    CKPT_LISTEN="127.0.0.1:$port" CKPT_REGISTER_TIMEOUT=60 \
    /usr/bin/time -f "%M" -o "$DIR/coord.rss" \
    "$BIN" coordinator -q --results-dir "$DIR/res" >"$DIR/coord.log" 2>&1 &
  coord=$!
  pids=("$coord")
  env CKPT_COORDINATOR="127.0.0.1:$port" JOB_COMPLETION_INDEX=0 \
    /usr/bin/time -f "%M" -o "$DIR/node.rss" \
    "$BIN" node >"$DIR/node.log" 2>&1 &
  node=$!
  pids+=("$node")
  if ! wait "$coord"; then
    echo "coordinator failed:" >&2; tail -5 "$DIR/coord.log" >&2; exit 1
  fi
  wait "$node" || true
  pids=()
  python3 - "$n" "$DIR" <<'PY'
import json, sys
n, d = int(sys.argv[1]), sys.argv[2]
j = json.load(open(f"{d}/res/result.json"))
r = j["rounds"][0]
node_rss = int(open(f"{d}/node.rss").read().split()[-1]) * 1024
coord_rss = int(open(f"{d}/coord.rss").read().split()[-1]) * 1024
print(f"{n:>8} samples  {j['dataset']['objects']:>4} shards  {r['epoch']['access']:>8}  "
      f"{r['epoch']['samples_per_second']:>8.0f} samples/s  "
      f"node {node_rss / 2**20:6.1f} MiB (phase peak {r['nodes'][0]['peak_rss_bytes'] / 2**20:6.1f} MiB)  "
      f"coordinator {coord_rss / 2**20:6.1f} MiB  each once: {r['epoch']['each_sample_once']}")
PY
  rm -rf "$DIR/res"
  done
  "$BIN" datagen --remove -q --results-dir "$DIR/removed" >/dev/null 2>&1
  rm -rf "$DIR/res" "$DIR/gen" "$DIR/removed"
done
