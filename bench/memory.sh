#!/usr/bin/env bash
# Peak RSS of a node agent and of the coordinator, as the separate processes
# of a multinode run (one node, loopback gRPC), for a synchronous save + load
# on local disk. Bytes stream through a few blocks per file (io.queue_depth
# + 1 of io.block_size: 12 MiB per file by default), so what can grow is the
# bookkeeping per tensor (plan, .metadata, checksums). Two series:
#   tensors  the transformer preset at 1k, 10k and 100k tensors (its size
#            comes from more layers, so bytes grow with the tensors);
#   bytes    few tensors, 1 GiB to 16+ GiB: vit-base (456 tensors, 1 GiB),
#            llama3-8b on one rank (MLPerf subset: 2 tensors, 26 GiB).
#   bench/memory.sh [DIR]   (env: SKIP_BIG=1 leaves out the 26 GiB point)
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-/var/tmp/ckptbench-mem}
BIN=${CKPTBENCH_BIN:-build/ckptbench}
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

measure() {  # label key=value... -> one line
  local label=$1; shift
  local plan bytes tensors port
  plan=$("$BIN" plan "$@")
  bytes=$(awk '/^bytes/{print $2}' <<<"$plan")
  tensors=$(awk '/^tensors/{print $2}' <<<"$plan")
  port=$(free_port)
  env CKPT_DIR_PATH="$DIR/ckpt" NUM_NODES=1 CKPT_LISTEN="127.0.0.1:$port" \
    NUM_SAVE_CALLS=1 NUM_LOAD_CALLS=1 CKPT_REGISTER_TIMEOUT=60 \
    /usr/bin/time -f "%M" -o "$DIR/coord.rss" \
    "$BIN" coordinator -q --results-dir "$DIR/res" "$@" >"$DIR/coord.log" 2>&1 &
  local coord=$!
  pids=("$coord")
  env CKPT_COORDINATOR="127.0.0.1:$port" JOB_COMPLETION_INDEX=0 \
    /usr/bin/time -f "%M" -o "$DIR/node.rss" \
    "$BIN" node >"$DIR/node.log" 2>&1 &
  local node=$!
  pids+=("$node")
  if ! wait "$coord"; then
    echo "coordinator failed:" >&2; tail -5 "$DIR/coord.log" >&2; exit 1
  fi
  wait "$node" || true
  pids=()
  printf "%-8s %-40s %7.2f GiB %7d tensors  node %7.1f MiB  coordinator %7.1f MiB\n" \
    "$label" "$*" "$(python3 -c "print($bytes/2**30)")" "$tensors" \
    "$(python3 -c "print($(tail -1 "$DIR/node.rss")/1024)")" \
    "$(python3 -c "print($(tail -1 "$DIR/coord.rss")/1024)")"
  rm -rf "$DIR/ckpt" "$DIR/res"
}

echo "peak RSS, one node agent and its coordinator (separate processes), save + load"
measure tensors NUM_LAYERS=10 NUM_DEVICES=2
measure tensors NUM_LAYERS=111 NUM_DEVICES=2
measure tensors NUM_LAYERS=1111 NUM_DEVICES=2
measure bytes CKPT_MODEL=vit-base NUM_DEVICES=2
[ "${SKIP_BIG:-0}" = 1 ] || measure bytes CKPT_MODEL=llama3-8b NUM_DEVICES=1 CKPT_DIRECT_WRITE=true CKPT_DIRECT_READ=true
