#!/usr/bin/env bash
# Installs what is needed, builds, and runs every test:
#   1. the full build's unit and integration tests (ctest);
#   2. the importer fuzz tests, and the torch-free unit tests again, in a
#      separate AddressSanitizer + UndefinedBehaviorSanitizer build (build-asan/):
#      the fuzz tests run there only, where a stray read is caught, not twice.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
(cd build && ctest --output-on-failure -j "$(nproc)" --label-exclude fuzz)

cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPLANNER_GRAPH_ONLY=ON \
  -DPLANNER_SANITIZE=ON >/dev/null
cmake --build build-asan -j "$(nproc)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
(cd build-asan && ctest --output-on-failure -j "$(nproc)")
