#!/bin/sh
# make_default.sh BUILD_DIR [--force]
# Writes the default demo inputs of a fresh clone into BUILD_DIR/models:
#   yolo11n-320.onnx, yolo11n-640.onnx   synthetic YOLO11n FP32 (seeded weights, explicit BN;
#                                        real speed, meaningless detections)
#   images/synth_0000.jpg ...            16 synthetic scenes (calibration + demo images)
# Deterministic: the same bytes on every run. Skips files newer than their generator unless
# --force. Needs /usr/bin/python3 with python3-onnx and python3-numpy (override: YOLORT_PYTHON),
# and the yolort-gen-images tool (built here if missing).
set -eu
if [ $# -lt 1 ]; then
  echo "usage: $0 BUILD_DIR [--force]" >&2
  exit 2
fi
BUILD=$1
FORCE=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${YOLORT_PYTHON:-/usr/bin/python3}
OUT=$BUILD/models
mkdir -p "$OUT"

if ! "$PY" -c "import onnx, numpy" 2>/dev/null; then
  echo "make_default.sh: $PY cannot import onnx and numpy (apt install python3-onnx python3-numpy)" >&2
  exit 1
fi

fresh() { # fresh FILE: exists and newer than every generator source
  [ "$FORCE" != "--force" ] && [ -s "$1" ] && [ "$1" -nt "$HERE/gen_yolo11.py" ] && [ "$1" -nt "$HERE/ref_forward.py" ]
}

for size in 320 640; do
  f=$OUT/yolo11n-$size.onnx
  if fresh "$f"; then
    echo "up to date: $f"
  else
    "$PY" "$HERE/gen_yolo11.py" --scale n --size "$size" --seed 1 --out "$f"
  fi
done

GEN=""
for c in "$BUILD/tools/yolort-gen-images" "$BUILD/bin/yolort-gen-images" "$BUILD/yolort-gen-images"; do
  if [ -x "$c" ]; then GEN=$c; break; fi
done
if [ -z "$GEN" ]; then
  cmake --build "$BUILD" --target yolort-gen-images -j2 >&2
  GEN=$BUILD/tools/yolort-gen-images
fi
if [ "$FORCE" != "--force" ] && [ -s "$OUT/images/synth_0015.jpg" ] && [ "$OUT/images/synth_0015.jpg" -nt "$GEN" ]; then
  echo "up to date: $OUT/images"
else
  "$GEN" "$OUT/images" -n 16 --seed 1
fi
