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
# mixed precision by block: a prefix pattern keeps every node of model.0 in float
"$B/tools/yolort-quantize" "$W/synth-320.onnx" "$W/images" -o "$W/synth-320.m0.qdq.onnx" \
  --yrt "$W/synth-320.m0.yrt" --exclude '/model.0/*' -n 4 -q > "$W/quantize.m0.log"
"$B/tools/yolort-convert" "$W/synth-320.m0.qdq.onnx" -o "$W/synth-320.m0.conv.yrt" > "$W/convert.m0.log"
grep -q "/model.0/conv/Conv" "$W/convert.m0.log" || { echo "FAIL: /model.0/conv/Conv not reported float"; exit 1; }
if "$B/tools/yolort-quantize" "$W/synth-320.onnx" "$W/images" -o "$W/x.onnx" --exclude '/model.99/*' \
   -n 2 -q > "$W/quantize.bad.log" 2>&1; then
  echo "FAIL: an exclusion matching no node was accepted"; exit 1
fi
grep -q "no node matches '/model.99/\*'" "$W/quantize.bad.log" || { echo "FAIL: no error naming the pattern"; exit 1; }
# SiLU-aware range (default): a conv output only a SiLU reads never gets a wider range than with
# --no-silu-range (narrower where it reaches past the SiLU's useful part); SiLU outputs unchanged
"$B/tools/yolort-quantize" "$W/synth-320.onnx" "$W/images" -o "$W/synth-320.nosilu.qdq.onnx" \
  --no-silu-range -q 2> /dev/null > /dev/null
"$PY" - "$W/synth-320.qdq.onnx" "$W/synth-320.nosilu.qdq.onnx" <<'PYEOF'
import sys, onnx
from onnx import numpy_helper as nh
def params(path):
    m = onnx.load(path); init = {i.name: nh.to_array(i) for i in m.graph.initializer}
    return {n.input[0]: (float(init[n.input[1]]), int(init[n.input[2]])) for n in m.graph.node
            if n.op_type == "QuantizeLinear"}
new, old = params(sys.argv[1]), params(sys.argv[2])
act = lambda t: t.rsplit("/", 2)[0] + "/act/Mul_output_0"  # /model.0/conv/Conv_output_0 (or bn/..)
conv = [t for t in new if not t.endswith("/act/Mul_output_0") and act(t) in new and t.count("/") >= 3]
assert len(conv) > 20, conv
narrower = sum(new[t][0] < old[t][0] for t in conv)
assert all(new[t][0] <= old[t][0] * (1 + 1e-6) for t in conv), "a SiLU input range widened"
# synthetic ranges are mostly inside the SiLU's useful part; its first conv's is not
assert narrower >= 3 and new[conv[0]][0] < old[conv[0]][0] * 0.8, f"{narrower} of {len(conv)} narrowed"
silu_out = [act(t) for t in conv]
assert all(new[t] == old[t] for t in silu_out), "SiLU output parameters changed"
print(f"SiLU range: {narrower} of {len(conv)} conv outputs narrowed, e.g. model.0 step "
      f"{old[conv[0]][0]:.4f} -> {new[conv[0]][0]:.4f}")
PYEOF
# Concat ties (default): a Concat input only the Concat reads, made by a compute op, has the
# Concat output's parameters (the Concat copies it); --no-concat-ties keeps its own
"$B/tools/yolort-quantize" "$W/synth-320.onnx" "$W/images" -o "$W/synth-320.nocat.qdq.onnx" \
  --no-concat-ties -q 2> /dev/null > /dev/null
"$PY" - "$W/synth-320.qdq.onnx" "$W/synth-320.nocat.qdq.onnx" <<'PYEOF'
import sys, onnx
from onnx import numpy_helper as nh
def tied(path):
    m = onnx.load(path); init = {i.name: nh.to_array(i) for i in m.graph.initializer}
    q = {n.input[0]: (float(init[n.input[1]]), int(init[n.input[2]])) for n in m.graph.node
         if n.op_type == "QuantizeLinear"}
    prod = {o: n for n in m.graph.node for o in n.output}
    same = 0
    for n in m.graph.node:
        if n.op_type != "Concat" or n.output[0] not in q: continue
        for i in n.input:
            dq = prod.get(i); qn = prod.get(dq.input[0]) if dq is not None and dq.op_type == "DequantizeLinear" else None
            if qn is not None and qn.op_type == "QuantizeLinear" and q.get(qn.input[0]) == q[n.output[0]]:
                same += 1
    return same
a, b = tied(sys.argv[1]), tied(sys.argv[2])
print(f"Concat inputs with the Concat's parameters: {a} (default), {b} (--no-concat-ties)")
assert a > b, "concat ties did not tie anything"
PYEOF
# --float-stem 4: model.0-2 (stride <= 4) in float, model.3 (the first stride-8 conv) int8
"$B/tools/yolort-quantize" "$W/synth-320.onnx" "$W/images" -o "$W/synth-320.stem.qdq.onnx" \
  --yrt "$W/synth-320.stem.yrt" --float-stem 4 -n 2 -q 2> "$W/quantize.stem.log" > /dev/null
grep -q "float-stem 4 keeps [0-9]* nodes in float (/model.0/conv/Conv ... /model.2/" "$W/quantize.stem.log" ||
  { echo "FAIL: --float-stem 4 did not keep model.0-2"; cat "$W/quantize.stem.log"; exit 1; }
"$B/tools/yolort-convert" "$W/synth-320.stem.qdq.onnx" -o "$W/synth-320.stem.conv.yrt" > "$W/convert.stem.log"
grep -q "/model.2/cv2/conv/Conv .*inputs not quantized\|/model.2/cv2/conv/Conv .*excluded" "$W/convert.stem.log" ||
  { echo "FAIL: /model.2/cv2/conv/Conv not float"; exit 1; }
if grep -q "/model.3/conv/Conv " "$W/convert.stem.log"; then echo "FAIL: /model.3/conv/Conv left int8"; exit 1; fi
# yolort-eval --dets writes what it scored (no labels here: every detection is a false positive)
mkdir -p "$W/labels" # an empty label file per image: no objects (a folder matching no image is refused)
for f in "$W"/images/*.jpg; do : > "$W/labels/$(basename "${f%.*}").txt"; done
"$B/tools/yolort-eval" "$W/synth-320.yrt" "$W/images" "$W/labels" -n 3 --dets "$W/dets.txt" -q > "$W/eval.log"
awk '!($1 == "I" && NF == 4) && !($1 == "D" && NF == 8) { bad = 1 } END { exit bad }' "$W/dets.txt" || { echo "FAIL: malformed --dets line"; exit 1; }
if "$B/tools/yolort-eval" "$W/synth-320.yrt" "$W/images" "$W/labels" -n 1 --dets "$W/no/such/dir/d.txt" -q \
   > /dev/null 2> "$W/eval.bad.log"; then
  echo "FAIL: --dets into a missing directory was accepted"; exit 1
fi
grep -q "cannot write" "$W/eval.bad.log" || { echo "FAIL: no error naming the --dets file"; exit 1; }
# Zero-copy views (default): convs write into Concat buffers and read Split halves in place;
# the detections are byte-identical to the copying model's (--no-views), threaded or not
"$B/tools/yolort-convert" "$W/synth-320.qdq.onnx" -o "$W/synth-320.views.yrt" > "$W/convert.views.log"
"$B/tools/yolort-convert" "$W/synth-320.qdq.onnx" -o "$W/synth-320.noviews.yrt" --no-views > "$W/convert.noviews.log"
nv=$(sed -n 's/^zero-copy views: \([0-9]*\).*/\1/p' "$W/convert.views.log")
echo "zero-copy views: ${nv:-none}"
[ "${nv:-0}" -ge 4 ] || { echo "FAIL: fewer than 4 views on the synthetic model"; exit 1; }
grep -q "^zero-copy views: 0 " "$W/convert.noviews.log" || { echo "FAIL: --no-views made views"; exit 1; }
"$B/tools/yolort-eval" "$W/synth-320.views.yrt" "$W/images" "$W/labels" -n 4 --dets "$W/views.dets" -q > /dev/null
"$B/tools/yolort-eval" "$W/synth-320.views.yrt" "$W/images" "$W/labels" -n 4 --threads 1 --dets "$W/views1.dets" -q > /dev/null
"$B/tools/yolort-eval" "$W/synth-320.noviews.yrt" "$W/images" "$W/labels" -n 4 --dets "$W/noviews.dets" -q > /dev/null
[ "$(grep -c '^D' "$W/views.dets")" -gt 100 ] || { echo "FAIL: too few detections to compare"; exit 1; }
cmp "$W/views.dets" "$W/noviews.dets" && cmp "$W/views1.dets" "$W/noviews.dets" ||
  { echo "FAIL: views change the detections"; exit 1; }
# The head's six last convs: int8 weights and a float output (int8 -> f32 convs) by default,
# float convs with --float-head-weights
grep -q "^int8 convs with float output: 6 " "$W/convert.views.log" ||
  { echo "FAIL: the head's last convs are not int8 -> f32"; cat "$W/convert.views.log"; exit 1; }
"$B/tools/yolort-quantize" "$W/synth-320.onnx" "$W/images" -o "$W/synth-320.fhw.qdq.onnx" \
  --float-head-weights -n 2 -q > /dev/null 2>&1
"$B/tools/yolort-convert" "$W/synth-320.fhw.qdq.onnx" -o "$W/synth-320.fhw.yrt" > "$W/convert.fhw.log"
[ "$(grep -c 'cv[23]\.[012]\.2/Conv .*weights not int8 symmetric' "$W/convert.fhw.log")" = 6 ] ||
  { echo "FAIL: --float-head-weights did not keep the six head convs float"; exit 1; }
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
