#!/usr/bin/env bash
# .ci/package.sh [BUILD_DIR] — the dependencies a board support package must carry (issue 38 item 2),
# checked on installed packages and consumers built against them:
#   1. lean core, static (-DYOLORT_XNNPACK=OFF): libyolort.a + libyolort_kernels.a need only libc +
#      pthreads; a consumer (find_package and plain pkg-config) has no libyolort / XNNPACK /
#      pthreadpool / cpuinfo in its ldd, and its find_package looked for no dependency header;
#   2. lean core, shared: libyolort.so's NEEDED has none of them, and find_package looked for nothing;
#   3. BUILD_DIR's package (the default build, XNNPACK): the six CLIs installed under bin/ and
#      answering --version; a static consumer loads no libyolort; no dependency header looked for;
#   4. a staging prefix outside a toolchain's sysroot (CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY):
#      found through yolort_DIR, or through the stage in CMAKE_FIND_ROOT_PATH (docs/cross-compiling.md);
#   5. the lean core for aarch64 with nothing but the cross compiler (no sysroot): a static
#      consumer under qemu-aarch64 prints the x86-64 lean consumer's detections (when the Debian
#      cross compiler and qemu-user are installed: tools/install-deps.sh --arm).
# Each consumer runs examples/detect_frame.c on an NV12 frame of a val image with a model BUILD_DIR's
# converter makes from YOLORT_DATA (../shared): without it the runs are skipped, and fail under CI=true.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
B=${1:-build}
DATA=${YOLORT_DATA:-../shared}
W=$(mktemp -d "${TMPDIR:-/tmp}/yolort-package.XXXXXX")
trap 'rm -rf "$W"' EXIT
jobs=$(nproc)
say() { echo "package: $*"; }
fail() { echo "FAIL: $*"; exit 1; }

# A model and a frame for the consumers to run on.
model=""
if [[ -x "$B/tools/yolort-convert" && -f "$DATA/models/yolo11n-320.qdq.onnx" ]]; then
  "$B/tools/yolort-convert" "$DATA/models/yolo11n-320.qdq.onnx" -o "$W/model.yrt" >/dev/null 2>&1
  model="$W/model.yrt"
elif [[ "${CI:-}" == true ]]; then
  fail "CI=true and no model: $B/tools/yolort-convert or $DATA/models/yolo11n-320.qdq.onnx missing"
else
  say "no YOLORT_DATA or converter: consumers are built, not run"
fi
fw=0; fh=0
run_app() { # APP [EMULATOR...]: detections of the frame (some, exit 0) in APP.txt, or only link-load it (usage, exit 2)
  local app=$1; shift
  if [[ -n "$model" ]]; then
    "$@" "$app" "$model" "$W/frame.nv12" "$fw" "$fh" > "$app.txt" || fail "$app on the frame: exit $?"
    [[ -s "$app.txt" ]] || fail "$app found nothing in the frame"
  else
    set +e; "$@" "$app" >/dev/null 2>&1; local rc=$?; set -e
    [[ $rc == 2 ]] || fail "$app without arguments: exit $rc (usage expected)"
  fi
}
# FILE NAME...: none of NAME among FILE's dynamic dependencies (NEEDED and what ldd resolves)
no_deps() {
  local f=$1; shift
  local deps; deps="$(readelf -d "$f" | awk '/NEEDED/{print $5}') $(ldd "$f" 2>&1 || true)"
  for d in "$@"; do
    if grep -qi -- "$d" <<<"$deps"; then echo "$deps"; fail "$f depends on $d"; fi
  done
}
# CACHE [LIBS]: the consumer's find_package(yolort) looked for no dependency header (no
# *_INCLUDE_DIR), and for no library matching LIBS (a regex; "." for none at all)
found_nothing() {
  if grep -E '^YOLORT_[A-Z]+_INCLUDE_DIR' "$1"; then fail "$1: a dependency header was looked for"; fi
  if [[ -n ${2:-} ]] && grep -E "^YOLORT_($2)[A-Z]*_LIBRARY" "$1"; then fail "$1: a dependency was looked for"; fi
  return 0
}
# A consumer project: examples/detect_frame.c against yolort::yolort, warnings as errors.
mkdir -p "$W/consumer"
cat > "$W/consumer/CMakeLists.txt" <<EOT
cmake_minimum_required(VERSION 3.18)
project(consumer C)
find_package(yolort 0.1 REQUIRED)
add_executable(detect_frame "$repo/examples/detect_frame.c")
target_compile_options(detect_frame PRIVATE -Wall -Wextra -Werror)
target_link_libraries(detect_frame PRIVATE yolort::yolort)
if(TARGET yolort::image) # the static package links libturbojpeg only here
  add_executable(jpeg_to_nv12 "$repo/examples/jpeg_to_nv12.c")
  target_link_libraries(jpeg_to_nv12 PRIVATE yolort::image)
endif()
EOT
lean_flags=(-DCMAKE_BUILD_TYPE=Release -DYOLORT_XNNPACK=OFF -DYOLORT_BUILD_TOOLS=OFF -DYOLORT_BUILD_TESTS=OFF
            -DYOLORT_BUILD_BENCH=OFF -DYOLORT_INSTALL=ON -DYOLORT_WERROR=ON
            -DYOLORT_PYTHON_PACKAGE=OFF) # the core alone: the Python package is checked by examples.sh
deps_re=(libyolort XNNPACK pthreadpool cpuinfo)

# 1. lean core, static
cmake -S . -B "$W/lean-a" "${lean_flags[@]}" >/dev/null
cmake --build "$W/lean-a" -j"$jobs" --target yolort yk yolort_image >/dev/null
cmake --install "$W/lean-a" --prefix "$W/lean-a/prefix" >/dev/null
for a in "$W"/lean-a/prefix/lib*/libyolort.a "$W"/lean-a/prefix/lib*/libyolort_kernels.a; do
  if nm -u "$a" | grep -E ' U (cpuinfo_|pthreadpool_|xnn_)'; then fail "$a calls XNNPACK / pthreadpool / cpuinfo"; fi
done
cmake -S "$W/consumer" -B "$W/c-lean-a" -DCMAKE_PREFIX_PATH="$W/lean-a/prefix" >/dev/null
cmake --build "$W/c-lean-a" >/dev/null
if [[ -n "$model" ]]; then # the frame every consumer detects in
  size=$("$W/c-lean-a/jpeg_to_nv12" "$DATA/data/coco/val/images/000000000632.jpg" 1 2>"$W/size" >"$W/frame.nv12"; cat "$W/size")
  read -r fw fh <<<"$size"
fi
no_deps "$W/c-lean-a/detect_frame" "${deps_re[@]}"
found_nothing "$W/c-lean-a/CMakeCache.txt" "XNNPACK|PTHREADPOOL|CPUINFO" # libturbojpeg: yolort::image's
run_app "$W/c-lean-a/detect_frame"
pc_path=$(echo "$W"/lean-a/prefix/lib*/pkgconfig | tr ' ' ':')
# shellcheck disable=SC2046 # pkg-config's flags are words
cc -Wall -Wextra -Werror -o "$W/pc-lean-a" examples/detect_frame.c $(PKG_CONFIG_PATH=$pc_path pkg-config --cflags --libs yolort)
no_deps "$W/pc-lean-a" "${deps_re[@]}"
run_app "$W/pc-lean-a"
say "lean static: libyolort.a needs libc + pthreads only; consumers (find_package, pkg-config): $(readelf -d "$W/pc-lean-a" | awk '/NEEDED/{gsub(/[][]/, "", $5); printf "%s ", $5}')"

# 2. lean core, shared
cmake -S . -B "$W/lean-so" "${lean_flags[@]}" -DBUILD_SHARED_LIBS=ON >/dev/null
cmake --build "$W/lean-so" -j"$jobs" --target yolort_shared yolort_image_shared >/dev/null
cmake --install "$W/lean-so" --prefix "$W/lean-so/prefix" >/dev/null
so=$(echo "$W"/lean-so/prefix/lib*/libyolort.so)
no_deps "$so" XNNPACK pthreadpool cpuinfo turbojpeg
cmake -S "$W/consumer" -B "$W/c-lean-so" -DCMAKE_PREFIX_PATH="$W/lean-so/prefix" >/dev/null
cmake --build "$W/c-lean-so" >/dev/null
found_nothing "$W/c-lean-so/CMakeCache.txt" .
no_deps "$W/c-lean-so/detect_frame" XNNPACK pthreadpool cpuinfo turbojpeg
run_app "$W/c-lean-so/detect_frame"
say "lean shared: libyolort.so needs $(readelf -d "$so" | awk '/NEEDED/{gsub(/[][]/, "", $5); printf "%s ", $5}'); find_package looked for nothing"

# 3. BUILD_DIR's own package (XNNPACK; static unless it was configured BUILD_SHARED_LIBS=ON)
if [[ -f "$B/CMakeCache.txt" ]]; then
  cmake --install "$B" --prefix "$W/main" >/dev/null
  for t in convert quantize detect eval inspect bench; do
    exe="$W/main/bin/yolort-$t"
    [[ -x $exe ]] || fail "cmake --install did not install bin/yolort-$t"
    "$exe" --version | grep -Eq "yolort [0-9]+\.[0-9]+\.[0-9]+" || fail "installed yolort-$t --version"
  done
  cmake -S "$W/consumer" -B "$W/c-main" -DCMAKE_PREFIX_PATH="$W/main" >/dev/null
  cmake --build "$W/c-main" >/dev/null
  found_nothing "$W/c-main/CMakeCache.txt"
  if grep -q '^BUILD_SHARED_LIBS:BOOL=ON' "$B/CMakeCache.txt"; then
    found_nothing "$W/c-main/CMakeCache.txt" .
  else
    no_deps "$W/c-main/detect_frame" libyolort
  fi
  run_app "$W/c-main/detect_frame"
  say "$B: bin/yolort-{convert,quantize,detect,eval,inspect,bench} installed; consumer needs $(readelf -d "$W/c-main/detect_frame" | awk '/NEEDED/{gsub(/[][]/, "", $5); printf "%s ", $5}')"
  stage="$W/main"
else
  stage="$W/lean-a/prefix"
fi

# 4. The staging case: a toolchain whose sysroot ($W/sysroot, the host's /usr inside) is the only
# place packages are searched (MODE_PACKAGE ONLY, as a BSP's toolchain file), yolort staged outside.
mkdir -p "$W/sysroot"
ln -s /usr "$W/sysroot/usr"
cat > "$W/toolchain.cmake" <<EOT
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_C_COMPILER $(command -v cc))
list(APPEND CMAKE_FIND_ROOT_PATH "$W/sysroot") # APPEND: a -DCMAKE_FIND_ROOT_PATH given is kept
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
EOT
tc=(-DCMAKE_TOOLCHAIN_FILE="$W/toolchain.cmake")
if cmake -S "$W/consumer" -B "$W/c-stage0" "${tc[@]}" -DCMAKE_PREFIX_PATH="$stage" >/dev/null 2>&1; then
  say "staging: CMAKE_PREFIX_PATH alone found the stage (this CMake does not re-root it)"
else
  say "staging: CMAKE_PREFIX_PATH alone is re-rooted into the sysroot and misses the stage, as documented"
fi
cmake -S "$W/consumer" -B "$W/c-stage1" "${tc[@]}" -Dyolort_DIR="$(echo "$stage"/lib*/cmake/yolort)" >/dev/null
cmake --build "$W/c-stage1" >/dev/null
run_app "$W/c-stage1/detect_frame"
cmake -S "$W/consumer" -B "$W/c-stage2" "${tc[@]}" -DCMAKE_FIND_ROOT_PATH="$stage" >/dev/null
cmake --build "$W/c-stage2" >/dev/null
run_app "$W/c-stage2/detect_frame"
say "staging: a prefix outside the sysroot works through yolort_DIR and through CMAKE_FIND_ROOT_PATH"

# 5. The lean core for aarch64 from the cross compiler alone: no sysroot, no dependency at all.
if command -v aarch64-linux-gnu-gcc >/dev/null && command -v qemu-aarch64 >/dev/null; then
  cat > "$W/a64.cmake" <<EOT
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
EOT
  cmake -S . -B "$W/a64" -DCMAKE_TOOLCHAIN_FILE="$W/a64.cmake" "${lean_flags[@]}" -DYOLORT_IMAGE=OFF >/dev/null
  cmake --build "$W/a64" -j"$jobs" --target yolort yk >/dev/null
  cmake --install "$W/a64" --prefix "$W/a64/prefix" >/dev/null
  # shellcheck disable=SC2046
  aarch64-linux-gnu-gcc -O2 -Wall -Wextra -Werror -o "$W/a64-detect_frame" examples/detect_frame.c \
    $(PKG_CONFIG_PATH="$W/a64/prefix/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR='' pkg-config --cflags --libs yolort)
  needed=$(readelf -d "$W/a64-detect_frame" | awk '/NEEDED/{gsub(/[][]/, "", $5); printf "%s ", $5}')
  [[ $needed == "libm.so.6 libc.so.6 " ]] || fail "aarch64 lean consumer needs: $needed"
  run_app "$W/a64-detect_frame" qemu-aarch64 -L /usr/aarch64-linux-gnu
  if [[ -n "$model" ]]; then
    diff -u "$W/c-lean-a/detect_frame.txt" "$W/a64-detect_frame.txt" || fail "aarch64 lean detections differ from x86-64's"
  fi
  say "aarch64 lean core from the cross compiler alone: consumer needs $needed; under qemu the same detections as x86-64"
else
  say "no aarch64-linux-gnu-gcc / qemu-aarch64: the aarch64 lean build is skipped (tools/install-deps.sh --arm)"
fi
