#!/usr/bin/env bash
# The main job on the embedded default model, on a fresh machine (no ../shared, no downloads):
# install the Debian packages, build, generate the synthetic YOLO11n (models/gen_yolo11.py), make
# synthetic JPEGs, quantize with yolort-quantize, convert to .yrt, benchmark and detect.
# The synthetic model's speed is the real model's; its detections are meaningless.
#   models/demo.sh            640x640 (DEMO_SIZE=320 for the small one)
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${DEMO_SIZE:-640}
BUILD=${BUILD:-build}
step() { echo; echo "== $*"; }

step "dependencies"
tools/install-deps.sh
step "build ($BUILD)"
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DYOLORT_WERROR=ON >/dev/null
cmake --build "$BUILD" -j"$(nproc)" >/dev/null
step "generate the default model and calibration images"
models/make_default.sh "$BUILD"
M=$BUILD/models
step "quantize (percentile calibration, int8 per-channel) and convert"
"$BUILD"/tools/yolort-quantize "$M/yolo11n-$SIZE.onnx" "$M/images" -o "$M/yolo11n-$SIZE.qdq.onnx" \
  --yrt "$M/yolo11n-$SIZE.yrt" -q | tail -n 4
step "benchmark"
"$BUILD"/bench/yolort-bench "$M/yolo11n-$SIZE.yrt" --threads 2 --warmup 5 --runs 30 \
  --image "$M/images/synth_0000.jpg"
step "detect"
"$BUILD"/tools/yolort-detect "$M/yolo11n-$SIZE.yrt" "$M/images/synth_0001.jpg" -o "$M/detections.jpg" \
  --threads 2 | head -n 12
echo
echo "done: model $M/yolo11n-$SIZE.yrt, annotated image $M/detections.jpg"
