#!/usr/bin/env bash
# Configures and builds ckptbench into BUILD_DIR (default: build).
# Usage: scripts/build.sh [BUILD_DIR] [extra cmake args...]
#        scripts/build.sh --main   the ckptbench binary alone, into build/
#                                  (no tests or benchmarks: the README's
#                                  first command; what install-deps.sh
#                                  --build installs is enough)
# CKPT_TARGETS="a b" builds only those targets (the TSan build).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--main" ]; then
  shift
  set -- build -DCKPTBENCH_TESTS=OFF -DCKPTBENCH_BENCH=OFF "$@"
  export CKPT_TARGETS=ckptbench
fi
dir=${1:-build}
shift || true
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
