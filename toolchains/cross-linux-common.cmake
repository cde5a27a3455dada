# cross-linux-common.cmake — shared part of toolchains/aarch64-linux-gnu.cmake and
# toolchains/armv7-linux-gnueabihf.cmake. The including file sets:
#   YOLORT_CROSS_TRIPLE   GNU triple of the Debian cross compiler (aarch64-linux-gnu, ...)
#   YOLORT_CROSS_DEB_ARCH Debian architecture of the sysroot packages (arm64, armhf)
#   YOLORT_CROSS_QEMU     qemu-run.sh architecture argument
#
# Layout: the cross gcc keeps its own sysroot (/usr/<triple>: libc, libgcc, libstdc++). The
# YOLORT_SYSROOT directory made by toolchains/make-sysroot.sh only holds the extra libraries
# (XNNPACK, cpuinfo, pthreadpool, turbojpeg, cmocka, protobuf-c) in Debian's multiarch layout,
# and is searched as an overlay: CMake finds libraries and headers there, the compiler gets its
# include dir, the linker its lib dir (also as rpath-link for the libraries' own dependencies).

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_C_COMPILER ${YOLORT_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${YOLORT_CROSS_TRIPLE}-g++)
set(CMAKE_LIBRARY_ARCHITECTURE ${YOLORT_CROSS_TRIPLE})

# Sysroot: -DYOLORT_SYSROOT=..., else env YOLORT_SYSROOT, else <source>/build-sysroot-<debarch>.
# CMAKE_CURRENT_LIST_DIR, not CMAKE_SOURCE_DIR: this file is also read by try_compile projects.
if(NOT YOLORT_SYSROOT)
  if(DEFINED ENV{YOLORT_SYSROOT} AND NOT "$ENV{YOLORT_SYSROOT}" STREQUAL "")
    set(_yolort_sysroot "$ENV{YOLORT_SYSROOT}")
  else()
    get_filename_component(_yolort_sysroot
      "${CMAKE_CURRENT_LIST_DIR}/../build-sysroot-${YOLORT_CROSS_DEB_ARCH}" ABSOLUTE)
  endif()
  set(YOLORT_SYSROOT "${_yolort_sysroot}" CACHE PATH
    "libraries unpacked by toolchains/make-sysroot.sh ${YOLORT_CROSS_DEB_ARCH}")
endif()
if(NOT EXISTS "${YOLORT_SYSROOT}/.complete")
  message(FATAL_ERROR "YOLORT_SYSROOT=${YOLORT_SYSROOT} is not a sysroot; make one with\n"
    "  toolchains/make-sysroot.sh ${YOLORT_CROSS_DEB_ARCH} ${YOLORT_SYSROOT}")
endif()
# try_compile projects re-read this file without the cache: pass the value on.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES YOLORT_SYSROOT)

set(_yolort_libdir "${YOLORT_SYSROOT}/usr/lib/${YOLORT_CROSS_TRIPLE}")
# Headers after the toolchain's own, so nothing in the overlay can shadow libc's.
set(CMAKE_C_FLAGS_INIT "${YOLORT_CROSS_CFLAGS} -idirafter ${YOLORT_SYSROOT}/usr/include")
set(CMAKE_CXX_FLAGS_INIT "${YOLORT_CROSS_CFLAGS} -idirafter ${YOLORT_SYSROOT}/usr/include")
foreach(kind EXE SHARED MODULE)
  set(CMAKE_${kind}_LINKER_FLAGS_INIT "-L${_yolort_libdir} -Wl,-rpath-link,${_yolort_libdir}")
endforeach()

# find_* look in the overlay and the cross toolchain's own root; programs (protoc-c) on the host.
# APPEND: roots given with -DCMAKE_FIND_ROOT_PATH (a staging prefix outside the sysroot, where an
# installed yolort is found with MODE_PACKAGE ONLY; docs/cross-compiling.md) are kept.
list(APPEND CMAKE_FIND_ROOT_PATH "${YOLORT_SYSROOT}" "/usr/${YOLORT_CROSS_TRIPLE}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(ENV{PKG_CONFIG_LIBDIR} "${_yolort_libdir}/pkgconfig:${YOLORT_SYSROOT}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${YOLORT_SYSROOT}")

# ctest (and anything else that runs a built program) goes through qemu-user.
set(CMAKE_CROSSCOMPILING_EMULATOR
  "${CMAKE_CURRENT_LIST_DIR}/qemu-run.sh;--sysroot;${YOLORT_SYSROOT};${YOLORT_CROSS_QEMU}")
