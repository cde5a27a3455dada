#!/usr/bin/env bash
# .ci/examples.sh BUILD_DIR — the package as a firmware project consumes it: install BUILD_DIR
# into a scratch prefix, build examples/ against the installed package twice (find_package, then
# pkg-config), run both builds on an NV12 frame made from a val JPEG (the C++ detect_frame_cpp
# through yolort.hpp must print what detect_frame.c prints), check that the README's
# embedding snippet is examples/detect_frame.c, and that add_subdirectory(yolort) configures and
# builds the library in a parent project. Needs ../shared (YOLORT_DATA) for the model and image.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
DATA=${YOLORT_DATA:-../shared}
W=$(mktemp -d "${TMPDIR:-/tmp}/yolort-examples.XXXXXX")
trap 'rm -rf "$W"' EXIT
jobs=$(nproc)

cmake --install "$B" --prefix "$W/prefix" >/dev/null
"$B/tools/yolort-convert" "$DATA/models/yolo11n-320.qdq.onnx" -o "$W/model.yrt" >/dev/null 2>&1

# The README's embedding block is examples/detect_frame.c, verbatim.
awk '/^<!-- example: detect_frame.c -->/{f=1;next} f&&/^```c/{next} f&&/^```/{exit} f' README.md > "$W/readme.c"
diff -u examples/detect_frame.c "$W/readme.c" || { echo "FAIL: README embedding snippet != examples/detect_frame.c"; exit 1; }

for how in cmake pkgconfig; do
  flags=(-DCMAKE_PREFIX_PATH="$W/prefix")
  [[ $how == pkgconfig ]] && flags=(-DYOLORT_EXAMPLES_PKGCONFIG=ON)
  PKG_CONFIG_PATH="$W/prefix/lib/pkgconfig:$W/prefix/lib/$(gcc -print-multiarch 2>/dev/null)/pkgconfig" \
    cmake -S examples -B "$W/ex-$how" -DCMAKE_BUILD_TYPE=Release "${flags[@]}" >/dev/null
  cmake --build "$W/ex-$how" -j"$jobs" >/dev/null
  E="$W/ex-$how"
  size=$("$E/jpeg_to_nv12" "$DATA/data/coco/val/images/000000000632.jpg" 3 2>"$W/size" >"$W/frames.nv12"; cat "$W/size")
  read -r fw fh <<<"$size"
  head -c $(( fw * fh + 2 * ((fw + 1) / 2) * ((fh + 1) / 2) )) "$W/frames.nv12" > "$W/frame.nv12"
  "$E/detect_frame" "$W/model.yrt" "$W/frame.nv12" "$fw" "$fh" > "$W/detect.txt"
  grep -q . "$W/detect.txt" || { echo "FAIL ($how): detect_frame found nothing"; exit 1; }
  # the C++ consumer (yolort.hpp, built as C++11) prints the same detections
  "$E/detect_frame_cpp" "$W/model.yrt" "$W/frame.nv12" "$fw" "$fh" | diff -u "$W/detect.txt" - ||
    { echo "FAIL ($how): detect_frame_cpp differs from detect_frame"; exit 1; }
  "$E/video_nv12" "$W/model.yrt" "$fw" "$fh" - 2 < "$W/frames.nv12" > "$W/video.jsonl" 2> "$W/video.err"
  [[ $(grep -c '"detections": \[{' "$W/video.jsonl") == 3 ]] || { echo "FAIL ($how): video_nv12 output"; cat "$W/video.jsonl" "$W/video.err"; exit 1; }
  grep -q "fps" "$W/video.err"
  echo "examples ($how): $(head -1 "$W/detect.txt" | tr -s ' ') ...; $(cat "$W/video.err")"
done

# A parent project that vendors yolort with add_subdirectory (libraries only by default).
mkdir -p "$W/parent"
cat > "$W/parent/CMakeLists.txt" <<EOT
cmake_minimum_required(VERSION 3.18)
project(parent C)
add_subdirectory("$PWD" yolort)
add_executable(detect_frame "$PWD/examples/detect_frame.c")
target_link_libraries(detect_frame PRIVATE yolort::yolort)
EOT
cmake -S "$W/parent" -B "$W/parent/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$W/parent/build" -j"$jobs" >/dev/null
[[ ! -e "$W/parent/build/yolort/tools" ]] || { echo "FAIL: add_subdirectory built the tools"; exit 1; }
"$W/parent/build/detect_frame" "$W/model.yrt" "$W/frame.nv12" "$fw" "$fh" | diff - "$W/detect.txt"
echo "examples: add_subdirectory(yolort) builds and detects alike"

# The Python package as the ML team gets it: from cmake --install (its own libyolort.so inside,
# the installed CLIs found through _paths.py), then from `pip install ./python` (no library inside:
# YOLORT_LIB names one). Both detect on the val JPEG and agree.
if [[ -d "$W/prefix/lib/python3/dist-packages/yolort" ]]; then
  py_detect='import sys, yolort
m = yolort.Model(sys.argv[1], threads=1)
for d in m.detect(yolort.load_jpeg(sys.argv[2])):
    print(d.class_id, d.name, "%.4f" % d.score, " ".join("%.1f" % v for v in d.box))'
  img="$DATA/data/coco/val/images/000000000632.jpg"
  (unset YOLORT_LIB YOLORT_BIN; PYTHONPATH="$W/prefix/lib/python3/dist-packages" /usr/bin/python3 -c "$py_detect" \
    "$W/model.yrt" "$img") > "$W/py-install.txt"
  if [[ -x "$W/prefix/bin/yolort-convert" ]]; then
    found=$(unset YOLORT_BIN; PYTHONPATH="$W/prefix/lib/python3/dist-packages" PATH=/usr/bin:/bin /usr/bin/python3 -c \
      'import yolort; print(yolort.tool_path("yolort-convert"))')
    [[ $found == "$W/prefix/bin/yolort-convert" ]] ||
      { echo "FAIL: installed Python package finds $found, not the installed CLI"; exit 1; }
  fi
  cp -r python "$W/pysrc" # pip builds in the source folder: keep the clone clean
  /usr/bin/python3 -m pip install -q --root-user-action=ignore --no-deps --no-build-isolation --no-index \
    --target "$W/pip" "$W/pysrc" >/dev/null
  [[ ! -e "$W/pip/yolort/_lib" ]] || { echo "FAIL: pip install put a library in the package"; exit 1; }
  YOLORT_LIB="$W/prefix/lib/python3/dist-packages/yolort/_lib/libyolort.so" YOLORT_BIN="$W/prefix/bin" \
    PYTHONPATH="$W/pip" /usr/bin/python3 -c "$py_detect" "$W/model.yrt" "$img" | diff "$W/py-install.txt" - ||
    { echo "FAIL: pip-installed package differs from the cmake-installed one"; exit 1; }
  [[ $(wc -l < "$W/py-install.txt") -ge 1 ]] || { echo "FAIL: Python detect found nothing"; exit 1; }
  echo "python: cmake --install and pip install packages detect alike ($(head -1 "$W/py-install.txt"))"
fi
