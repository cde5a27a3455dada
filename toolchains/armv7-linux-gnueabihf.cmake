# CMake toolchain for 32-bit ARMv7-A hard-float Linux boards with NEON (Raspberry Pi 2/3 32-bit OS,
# Cortex-A7/A9/A15 SoCs), using Debian's gcc-arm-linux-gnueabihf and a sysroot from
# toolchains/make-sysroot.sh armhf DIR.
#   cmake -S . -B build-armv7 -DCMAKE_TOOLCHAIN_FILE=toolchains/armv7-linux-gnueabihf.cmake \
#         -DYOLORT_SYSROOT=DIR
set(CMAKE_SYSTEM_PROCESSOR armv7)
set(YOLORT_CROSS_TRIPLE arm-linux-gnueabihf)
set(YOLORT_CROSS_DEB_ARCH armhf)
set(YOLORT_CROSS_QEMU armv7)
set(YOLORT_CROSS_CFLAGS "-march=armv7-a -mfpu=neon -mfloat-abi=hard")
include(${CMAKE_CURRENT_LIST_DIR}/cross-linux-common.cmake)
