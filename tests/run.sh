#!/usr/bin/env bash
# The test command: installs dependencies, builds (Release) and runs the whole cmocka suite.
#   tests/run.sh              build/ + ctest
#   YOLORT_SANITIZE=1 tests/run.sh   build-asan/ with AddressSanitizer + UBSan
# Tests that need ../shared find it through YOLORT_DATA (default ../shared); with CI=true they fail
# when it is missing, otherwise they skip.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
BUILD=build; EXTRA=()
if [[ "${YOLORT_SANITIZE:-0}" == 1 ]]; then BUILD=build-asan; EXTRA=(-DYOLORT_SANITIZE=ON); fi
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DYOLORT_WERROR=ON "${EXTRA[@]}" >/dev/null
cmake --build "$BUILD" -j"$(nproc)"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$BUILD" --output-on-failure -j"$(nproc)" "$@"
