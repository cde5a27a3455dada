#!/bin/sh
# check_pipeline.sh BUILD_DIR SOURCE_DIR WORK_DIR
# The README demo's pipeline on the synthetic YOLO11n at 320: generate -> yolort-quantize ->
# .yrt; FP32 and INT8 must agree (SQNR of output0 >= 25 dB over the calibration images, measured
# by yolort-inspect), and onnxruntime (npm onnxruntime-node in bench/peers/ort) must load and run
# the QDQ ONNX yolort-quantize wrote. Without node_modules the onnxruntime step is skipped on a
# developer machine and fails under CI=true.
set -eu
B=$1; S=$2; W=$3
PY=${YOLORT_PYTHON:-/usr/bin/python3}
rm -rf "$W" && mkdir -p "$W"
"$PY" "$S/models/gen_yolo11.py" --scale n --size 320 --seed 3 --out "$W/synth-320.onnx" >/dev/null
"$B/tools/yolort-gen-images" "$W/images" -n 8 --seed 2 >/dev/null
"$B/tools/yolort-quantize" "$W/synth-320.onnx" "$W/images" -o "$W/synth-320.qdq.onnx" \
  --yrt "$W/synth-320.yrt" -q > "$W/quantize.log"
grep -q "wrote $W/synth-320.yrt" "$W/quantize.log"
"$B/tools/yolort-detect" "$W/synth-320.yrt" "$W/images/synth_0000.jpg" > "$W/detect.log" 2>&1
grep -q "synthetic" "$W/detect.log" || { echo "FAIL: yolort-detect did not say the model is synthetic"; exit 1; }
"$B/tools/yolort-inspect" "$W/synth-320.qdq.onnx" --images "$W/images" -n 4 -q > "$W/inspect.log"
db=$(sed -n 's/^output0 SQNR \([-0-9.]*\) dB.*/\1/p' "$W/inspect.log")
echo "output0 SQNR int8 vs fp32: $db dB"
awk -v d="$db" 'BEGIN { exit !(d >= 25.0) }' || { echo "FAIL: SQNR $db dB < 25 dB"; exit 1; }
ORT=$S/bench/peers/ort
if command -v node >/dev/null 2>&1 && [ -d "$ORT/node_modules/onnxruntime-node" ]; then
  node "$S/tests/models/ort_run.js" "$ORT" "$W/synth-320.qdq.onnx"
elif [ "${CI:-}" = "true" ]; then
  echo "FAIL: CI=true but onnxruntime-node is not installed in $ORT (npm ci --ignore-scripts)"; exit 1
else
  echo "skipping the onnxruntime check: no node_modules in $ORT (cd $ORT && npm ci --ignore-scripts)"
fi
echo "pipeline OK"
