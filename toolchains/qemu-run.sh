#!/usr/bin/env bash
# qemu-run.sh [--sysroot DIR] [--cpu CPU] ARCH PROGRAM [ARGS...] — run an ARM Linux program on
# the build machine with qemu-user. CMake uses it as CMAKE_CROSSCOMPILING_EMULATOR, so ctest
# runs the test suite this way.
#   ARCH: aarch64|arm64 or armv7|armhf
#   --sysroot: the libraries from toolchains/make-sysroot.sh (default env YOLORT_SYSROOT, else
#              <repo>/build-sysroot-<debarch>); libc/libstdc++ come from /usr/<triple>.
#   --cpu: qemu CPU model (default env YOLORT_QEMU_CPU, else qemu's "max", which has every
#          feature qemu emulates, e.g. ARMv8.2 dot product; try cortex-a53 for a plain ARMv8.0).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
sysroot=${YOLORT_SYSROOT:-}
cpu=${YOLORT_QEMU_CPU:-}
while [ $# -gt 0 ]; do
  case "$1" in
    --sysroot) sysroot=$2; shift 2 ;;
    --cpu) cpu=$2; shift 2 ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || { echo "usage: $0 [--sysroot DIR] [--cpu CPU] aarch64|armv7 PROGRAM [ARGS...]" >&2; exit 2; }
arch=$1
case "$arch" in
  aarch64|arm64) qemu=qemu-aarch64; triple=aarch64-linux-gnu; debarch=arm64 ;;
  armv7|armhf|arm) qemu=qemu-arm; triple=arm-linux-gnueabihf; debarch=armhf ;;
  *) echo "qemu-run.sh: unknown ARCH $1" >&2; exit 2 ;;
esac
shift
[ -n "$sysroot" ] || sysroot="$here/../build-sysroot-$debarch"
# YOLORT_EMULATOR tells a test that starts another built program (popen) how to run it, since the
# host kernel cannot exec ARM binaries itself: "${YOLORT_EMULATOR:-} 'prog' args".
args=(-L "/usr/$triple" -E "LD_LIBRARY_PATH=$sysroot/usr/lib/$triple"
      -E "YOLORT_EMULATOR=$here/qemu-run.sh --sysroot $sysroot${cpu:+ --cpu $cpu} $arch")
[ -z "$cpu" ] || args+=(-cpu "$cpu")
# -E sets the variable for the guest only: the (dynamically linked) host qemu must not see it.
exec "$qemu" "${args[@]}" "$@"
