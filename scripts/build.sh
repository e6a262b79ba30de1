#!/usr/bin/env bash
# Configures and builds ckptbench into BUILD_DIR (default: build).
# Usage: scripts/build.sh [BUILD_DIR] [extra cmake args...]
#        scripts/build.sh --main   the ckptbench binary alone, into build/
#                                  (no tests or benchmarks: the README's
#                                  first command; what install-deps.sh
#                                  --build installs is enough)
# Without --main the tests and benchmarks are built too, whatever an earlier
# --main left in BUILD_DIR's cache (extra cmake args after it still win).
# CKPT_TARGETS="a b" builds only those targets (the TSan build).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--main" ]; then
  shift
  dir=build
  # A unity build: the sources of each library compiled a few to a file,
  # so the heavy headers (gRPC, protobuf, nlohmann/json) are parsed once per
  # batch, not once per source: 5 min 26 s to about 2 min on 2 cores.
  set -- -DCKPTBENCH_TESTS=OFF -DCKPTBENCH_BENCH=OFF -DCMAKE_UNITY_BUILD=ON "$@"
  export CKPT_TARGETS=ckptbench
else
  dir=${1:-build}
  shift || true
  set -- -DCKPTBENCH_TESTS=ON -DCKPTBENCH_BENCH=ON -DCMAKE_UNITY_BUILD=OFF "$@"
fi
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  # Paths under the source root hash as relative ones: a checkout elsewhere
  # (CI's clone, the image's /src) hits the same cache entries.
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
  # Nor does the build directory's path (hashed with -g by default).
  export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
fi
cmake -S . -B "$dir" -G Ninja "${launcher[@]}" "$@" >/dev/null
targets=()
for t in ${CKPT_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$dir" -j "$(nproc)" "${targets[@]}"
