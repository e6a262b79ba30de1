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
bash scripts/build.sh build
# Unit tests first (the Dockerfile's build stage runs the same line), then
# the integration tests with their servers and peers.
(cd build && ctest -L unit --output-on-failure -j "$(nproc)")
(cd build && ctest -LE unit --output-on-failure -j "$(nproc)")

echo "== AddressSanitizer + UBSan build"
# The container tests ran above, on the image; they do not run the host's
# binary, so the sanitizer build leaves them out.
bash scripts/build.sh build-asan -DCKPTBENCH_SANITIZE=ON \
  -DCMAKE_BUILD_TYPE=Debug -DCKPTBENCH_BENCH=OFF -DCKPTBENCH_CONTAINER_TESTS=OFF
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j "$(nproc)")
