#!/usr/bin/env bash
# Installs what the tests need, builds ckptbench (optimized, then ASan+UBSan)
# and runs every test with CTest. Works on a fresh Debian 12 machine as root.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
# Google's Node client for GCS, pinned by tests/gcs_node/package-lock.json.
npm ci --prefix tests/gcs_node --no-audit --no-fund --loglevel=error
# ajv, js-yaml and kubernetes-models for the manifest checks (tests/deploy).
npm ci --prefix tests/deploy --no-audit --no-fund --loglevel=error
bash scripts/check-format.sh

echo "== optimized build"
# Tests and benchmarks on, whatever an earlier `build.sh --main` (the
# README's first command) left in build/'s cache. This build and the TSan
# one are unity builds (a few sources to a file, the heavy headers parsed
# once per batch); the clang build below compiles each of the product's
# sources on its own (the tests are unity builds everywhere), so a product
# source that does not include what it uses still fails CI. In a unity
# build the test sources of one executable share batches: two of them that
# each define a helper of one name and signature for themselves would clash,
# so such a helper gets a name of its own or is shared from tests/testing/.
bash scripts/build.sh build -DCKPTBENCH_TESTS=ON -DCKPTBENCH_BENCH=ON \
  -DCMAKE_UNITY_BUILD=ON
# Unit tests first, then the integration tests with their servers and peers.
(cd build && ctest -L unit --output-on-failure -j "$(nproc)")
(cd build && ctest -LE unit --output-on-failure -j "$(nproc)")

echo "== clang: AddressSanitizer + UBSan + libFuzzer build"
# One build for both: the whole suite under ASan+UBSan, then every fuzz
# target (tests/fuzz) for a bounded time from its seed corpus. The
# container tests ran above, on the image; they do not run the host's
# binary, so this build leaves them out.
CC=clang CXX=clang++ bash scripts/build.sh build-clang -DCKPTBENCH_SANITIZE=ON \
  -DCKPTBENCH_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug -DCKPTBENCH_BENCH=OFF \
  -DCKPTBENCH_CONTAINER_TESTS=OFF
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
(cd build-clang && ctest -LE fuzz --output-on-failure -j "$(nproc)")
(cd build-clang &&
  if ctest -L fuzz -V -j "$(nproc)" >fuzz.log 2>&1; then rc=0; else rc=$?; fi
  grep -E 'executions in' fuzz.log | sed 's/^[0-9]*: //'
  if [ "$rc" -ne 0 ]; then tail -n 200 fuzz.log; exit "$rc"; fi)
unset ASAN_OPTIONS UBSAN_OPTIONS

echo "== ThreadSanitizer build: coordinator, node agent and multinode"
# Only the targets those tests need: the coordinator driving in-process node
# agents, the node agent (a phase's file threads, progress, cancel racing a
# round), the session server, and the multinode tests, which run real
# `ckptbench coordinator` and `node` processes (this build's) over gRPC.
# Debian's gRPC and Abseil are not built with TSan: their mutexes are made
# visible by tests/tsan/absl_sync_annotations.cc, linked into this build's
# executables, and tests/tsan.supp ignores only calls made from inside those
# libraries (docs/reliability.md).
CKPT_TARGETS="ckptbench node_tests coordinator_tests multinode_tests" \
  bash scripts/build.sh build-tsan -DCKPTBENCH_TSAN=ON -DCKPTBENCH_BENCH=OFF \
  -DCKPTBENCH_CONTAINER_TESTS=OFF -DCMAKE_UNITY_BUILD=ON
# node_tests and coordinator_tests run as two shards side by side
# (GTEST_TOTAL_SHARDS): one TSan process left a third to half of this 2-core
# machine idle, and CTest already runs these tests in parallel processes in
# the other two builds. A shard's output is printed when it ends; any shard
# failing fails CI. multinode_tests runs alone: each of its tests starts
# TSan-built coordinator and node processes and servers. Beside a second
# shard Multinode.NodesShareOneGcsBucket's save took 96 s and failed on a
# defect of the test GCS server (a finished upload session answered 404;
# fixed since), and two shards of it have not been seen to pass.
sharded() {
  local n=2 i rc=0 pids=() logs=()
  for ((i = 0; i < n; i++)); do
    logs[i]=$(mktemp)
    GTEST_TOTAL_SHARDS=$n GTEST_SHARD_INDEX=$i "$@" --gtest_brief=1 \
      >"${logs[i]}" 2>&1 &
    pids[i]=$!
  done
  for ((i = 0; i < n; i++)); do
    wait "${pids[i]}" || rc=1
    echo "-- $1, shard $((i + 1)) of $n"
    cat "${logs[i]}"
    rm -f "${logs[i]}"
  done
  return "$rc"
}
export TSAN_OPTIONS="suppressions=$PWD/tests/tsan.supp halt_on_error=1 second_deadlock_stack=1"
sharded build-tsan/tests/node_tests
sharded build-tsan/tests/coordinator_tests
# A report in a coordinator or node process ends it with exit code 66,
# which fails the test that started it.
CKPTBENCH_BIN=$PWD/build-tsan/ckptbench build-tsan/tests/multinode_tests \
  --gtest_brief=1
unset TSAN_OPTIONS
