# CMake toolchain for 64-bit ARM Linux boards (Raspberry Pi 3/4/5 64-bit OS, Jetson, RK3588, ...),
# using Debian's gcc-aarch64-linux-gnu and a sysroot from toolchains/make-sysroot.sh arm64 DIR.
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=toolchains/aarch64-linux-gnu.cmake \
#         -DYOLORT_SYSROOT=DIR
# Baseline is ARMv8.0-A (NEON always present); dot-product kernels (*_neondot.c) are built with
# +dotprod and chosen at run time when the CPU has it.
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(YOLORT_CROSS_TRIPLE aarch64-linux-gnu)
set(YOLORT_CROSS_DEB_ARCH arm64)
set(YOLORT_CROSS_QEMU aarch64)
set(YOLORT_CROSS_CFLAGS "")
include(${CMAKE_CURRENT_LIST_DIR}/cross-linux-common.cmake)
