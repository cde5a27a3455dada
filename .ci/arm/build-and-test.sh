#!/usr/bin/env bash
# .ci/arm/build-and-test.sh ARCH [CTEST ARGS...] — cross-build yolort for ARM and run its tests
# under qemu-user (called by .ci/run; works from a fresh clone).
#   ARCH aarch64: whole build, whole ctest suite under qemu-aarch64, then the whole-model output
#                 check again on a CPU without dot product (-cpu cortex-a72).
#   ARCH armv7:   whole build, the tests labelled "kernels" under qemu-arm.
# Environment:
#   YOLORT_SYSROOT_CACHE  directory holding the unpacked sysroots (<dir>/arm64, <dir>/armhf);
#                         default: <repo>/build-sysroot-<debarch>. Reused when complete.
#   YOLORT_ARM_BUILD_DIR  build directory (default <repo>/build-<arch>)
#   YOLORT_ARM_JOBS       parallel build/test jobs (default nproc)
#   YOLORT_ARM_CMAKE_ARGS extra cmake configure arguments (word-split), e.g. -DYOLORT_BUILD_TOOLS=OFF
#   YOLORT_CROSSARCH_REF  x86-64 outputs to match bit for bit (default <repo>/build/crossarch if
#                         there, i.e. after tests/run.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)

[ $# -ge 1 ] || { echo "usage: $0 aarch64|armv7 [ctest args...]" >&2; exit 2; }
arch=$1; shift
case "$arch" in
  aarch64) debarch=arm64; toolchain=toolchains/aarch64-linux-gnu.cmake; select=() ;;
  armv7)   debarch=armhf; toolchain=toolchains/armv7-linux-gnueabihf.cmake; select=(-L kernels) ;;
  *) echo "build-and-test.sh: ARCH must be aarch64 or armv7" >&2; exit 2 ;;
esac
if [ -n "${YOLORT_SYSROOT_CACHE:-}" ]; then
  sysroot="$YOLORT_SYSROOT_CACHE/$debarch"
else
  sysroot="$repo/build-sysroot-$debarch"
fi
build=${YOLORT_ARM_BUILD_DIR:-$repo/build-$arch}
jobs=${YOLORT_ARM_JOBS:-$(nproc)}
if [[ -z "${YOLORT_DATA:-}" && -d "$repo/../shared" ]]; then export YOLORT_DATA="$(cd "$repo/../shared" && pwd)"; fi

t0=$(date +%s)
step() { echo "--- [arm $arch +$(( $(date +%s) - t0 ))s] $*"; }

step "sysroot $sysroot"
toolchains/make-sysroot.sh "$debarch" "$sysroot"

step "configure $build"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_TOOLCHAIN_FILE="$repo/$toolchain" \
  -DYOLORT_SYSROOT="$sysroot" -DYOLORT_WERROR=ON ${YOLORT_ARM_CMAKE_ARGS:-}

step "build"
cmake --build "$build" -j"$jobs"

# The x86-64 build's test_crossarch_output leaves its .yrt and outputs in build/crossarch: the ARM
# run of that test then requires bit-identical output0 (see tests/arm/CMakeLists.txt).
if [[ -z "${YOLORT_CROSSARCH_REF:-}" && -f "$repo/build/crossarch/yolo11n-320.qdq.yrt" ]]; then
  export YOLORT_CROSSARCH_REF="$repo/build/crossarch"
fi
echo "cross-architecture reference: ${YOLORT_CROSSARCH_REF:-none (build/crossarch missing: no x86-64 comparison)}"

step "ctest under qemu ${select[*]:-(all)}"
ctest --test-dir "$build" --output-on-failure -j"$jobs" "${select[@]}" "$@"

# qemu's default CPU has the dot product, so the model above ran the SDOT conv. A Cortex-A72
# (ARMv8.0, Raspberry Pi 4) takes the SMULL/SMLAL one: the same output0, bit for bit (~1 min).
if [ "$arch" = aarch64 ] && [ -d "$build/crossarch" ]; then
  step "ARMv8.0 path: test_crossarch_output again under qemu -cpu cortex-a72"
  ref=${YOLORT_CROSSARCH_REF:-}
  if [ -z "$ref" ]; then
    rm -rf "$build/crossarch-dot" && cp -r "$build/crossarch" "$build/crossarch-dot"
    ref="$(cd "$build" && pwd)/crossarch-dot" # absolute: ctest runs the test in its own folder
  fi
  YOLORT_QEMU_CPU=cortex-a72 YOLORT_CROSSARCH_REF="$ref" \
    ctest --test-dir "$build" --output-on-failure -R '^test_crossarch_output$'
fi

step "done"
