#!/bin/sh
# check_bias_correct.sh BUILD_DIR SOURCE_DIR WORK_DIR
# Bias correction (tools/quant/bias_correct.h) on the synthetic YOLO11n at 320, no shared data:
# - local (Nagel) and global (against the float network, in waves) modes: the per-channel mean
#   shift of the int8 convs left after one correction pass (measured by the second pass) is
#   under half of the shift before it;
# - output0 SQNR of the corrected model stays >= 25 dB (yolort-inspect; its float reference is
#   the QDQ graph without activation Q/DQ, biases included, so it is a sanity bound only);
# - the corrected QDQ ONNX converts (--yrt) and onnxruntime-node loads and runs it.
set -eu
B=$1; S=$2; W=$3
PY=${YOLORT_PYTHON:-/usr/bin/python3}
rm -rf "$W" && mkdir -p "$W"
"$PY" "$S/models/gen_yolo11.py" --scale n --size 320 --seed 5 --out "$W/synth.onnx" >/dev/null
"$B/tools/yolort-gen-images" "$W/images" -n 8 --seed 4 >/dev/null
"$B/tools/yolort-quantize" "$W/synth.onnx" "$W/images" -o "$W/bc.qdq.onnx" --yrt "$W/bc.yrt" -q \
  --bias-correct-passes 2 > "$W/bc.log" 2>&1
grep -q "wrote $W/bc.yrt" "$W/bc.log" || { echo "FAIL: no .yrt written"; cat "$W/bc.log"; exit 1; }
"$B/tools/yolort-quantize" "$W/synth.onnx" "$W/images" -o "$W/global.qdq.onnx" -q -n 4 \
  --bias-correct-passes 2 --bias-correct-global > "$W/global.log" 2>&1
for mode in bc global; do
  s1=$(sed -n 's/.*bias correction pass 1: .* mean |shift| \([0-9.]*\) std.*/\1/p' "$W/$mode.log")
  s2=$(sed -n 's/.*bias correction pass 2: .* mean |shift| \([0-9.]*\) std.*/\1/p' "$W/$mode.log")
  echo "$mode: mean |per-channel shift| / std: before $s1, after one correction $s2"
  awk -v a="$s1" -v b="$s2" 'BEGIN { exit !(a > 0 && b < 0.5 * a) }' ||
    { echo "FAIL: $mode bias correction left shift $s2 of $s1"; exit 1; }
done
"$B/tools/yolort-inspect" "$W/bc.qdq.onnx" --images "$W/images" -n 8 -q > "$W/bc.inspect"
d1=$(sed -n 's/^output0 SQNR \([-0-9.]*\) dB.*/\1/p' "$W/bc.inspect")
echo "output0 SQNR int8 vs fp32 with bias correction: $d1 dB"
awk -v b="$d1" 'BEGIN { exit !(b >= 25.0) }' || { echo "FAIL: SQNR $d1 dB < 25 dB"; exit 1; }
ORT=$S/bench/peers/ort
if command -v node >/dev/null 2>&1 && [ -d "$ORT/node_modules/onnxruntime-node" ]; then
  node "$S/tests/models/ort_run.js" "$ORT" "$W/bc.qdq.onnx"
  node "$S/tests/models/ort_run.js" "$ORT" "$W/global.qdq.onnx"
elif [ "${CI:-}" = "true" ]; then
  echo "FAIL: CI=true but onnxruntime-node is not installed in $ORT (npm ci --ignore-scripts)"; exit 1
else
  echo "skipping the onnxruntime check: no node_modules in $ORT (cd $ORT && npm ci --ignore-scripts)"
fi
echo "bias correction OK"
