#!/bin/sh
# check_segment.sh BUILD_DIR SOURCE_DIR WORK_DIR [PYTHON] — issue 36 item 3 on the real YOLOv8n-seg
# export (../shared/models/wild/yolov8n-seg-320.dynamic.onnx): it converts (its ConvTranspose
# included), fuses its Detect head with the 32 mask coefficients passed through, and on the first
# SEG_IMAGES (default 8) val images yolort's detections (camera-frame path) recall >= 0.95 of
# onnxruntime's (same class, IoU >= 0.5) and the masks of matched boxes have an IoU >= 0.90 with
# masks computed the same way (Ultralytics process_mask_native) from onnxruntime's outputs, mean
# and each one (seg_accept.c). With PYTHON (onnx): a look-alike head whose prototypes do not
# match the coefficient rows is refused at convert, and the export without its task in the
# metadata is recognised as segment by its shape (masks, never 112 classes). Needs ../shared (YOLORT_DATA) and
# onnxruntime-node (bench/peers/ort/node_modules): without them it skips (77), under CI=true it
# fails.
set -u
B=$1; S=$2; W=$3; PY=${4:-}
DATA=${YOLORT_DATA:-${YOLORT_DEFAULT_DATA:-../shared}}
ORT=$S/bench/peers/ort
N_IMG=${SEG_IMAGES:-8}
M=$DATA/models/wild/yolov8n-seg-320.dynamic.onnx
missing() {
  if [ "${CI:-}" = true ]; then echo "FAIL: CI=true and $1 is missing"; exit 1; fi
  echo "skipping: $1 not found"; exit 77
}
[ -f "$M" ] || missing "$M"
[ -d "$ORT/node_modules/onnxruntime-node" ] || missing "$ORT/node_modules (npm ci --ignore-scripts in bench/peers/ort)"
command -v node >/dev/null 2>&1 || missing node
IMGS=$(ls "$DATA"/data/coco/val/images/*.jpg 2>/dev/null | head -n "$N_IMG")
[ -n "$IMGS" ] || missing "$DATA/data/coco/val/images"
mkdir -p "$W" || { echo "FAIL: cannot use $W"; exit 1; }
"$B/tools/yolort-convert" "$M" -o "$W/seg.yrt" > "$W/convert.log" 2>&1 || {
  echo "FAIL: does not convert: $(tail -1 "$W/convert.log")"; exit 1; }
grep -q "conv_transpose" "$W/convert.log" || { echo "FAIL: no conv_transpose node"; exit 1; }
head=$(grep "detect head: fused" "$W/convert.log" | cut -c1-140)
echo "$head" | grep -q "32 pass-through rows" || { echo "FAIL: head not fused with 32 mask rows: $head"; exit 1; }
# shellcheck disable=SC2086
"$B/tests/models/seg_accept" prep "$W/seg.yrt" "$W" $IMGS || { echo "FAIL: yolort run"; exit 1; }
n=$(echo "$IMGS" | wc -l)
node "$S/tests/models/ort_wild.js" "$ORT" "$M" "$W" "$n" 320 320 || { echo "FAIL: onnxruntime run"; exit 1; }
res=$("$B/tests/models/seg_accept" compare "$W/seg.yrt" "$W" "$n") || { echo "FAIL: compare"; exit 1; }
echo "$res | $head"
ok=$(echo "$res" | awk '{ print ($2 >= 0.95 && $4 >= 0.90 && $6 >= 0.90 && $8 > 0) ? 1 : 0 }')
[ "$ok" = 1 ] || { echo "FAIL: recall < 0.95 or a matched mask's IoU < 0.90"; exit 1; }
# a look-alike: output1 sliced to 30 of the 32 prototypes, output0 unchanged (116 rows do not
# split into 4 + 80 classes + 30 coefficients)
if [ -n "$PY" ] && "$PY" -c "import onnx" 2>/dev/null; then
  "$PY" - "$M" "$W/lookalike.onnx" <<'PYEOF' || { echo "FAIL: making the look-alike"; exit 1; }
import sys, onnx
from onnx import helper, TensorProto
m = onnx.load(sys.argv[1]); g = m.graph
o1 = g.output[1]
for n in g.node:
    for i, t in enumerate(n.output):
        if t == o1.name: n.output[i] = o1.name + "_full"
g.initializer.extend([helper.make_tensor(n_, TensorProto.INT64, [1], [v]) for n_, v in
                      (("la_s", 0), ("la_e", 30), ("la_a", 1))])
g.node.append(helper.make_node("Slice", [o1.name + "_full", "la_s", "la_e", "la_a"], [o1.name], name="lookalike"))
o1.type.tensor_type.shape.dim[1].dim_value = 30
onnx.save(m, sys.argv[2])
PYEOF
  if "$B/tools/yolort-convert" "$W/lookalike.onnx" -o "$W/lookalike.yrt" > "$W/lookalike.log" 2>&1; then
    echo "FAIL: the look-alike head converts"; exit 1
  fi
  echo "look-alike refused: $(tail -1 "$W/lookalike.log" | cut -c1-200)"
  tail -1 "$W/lookalike.log" | grep -q "mask coefficients" || { echo "FAIL: refusal does not name the mask coefficients"; exit 1; }
  # the same export without its task in the metadata: the head recognised as segment by its shape
  "$PY" - "$M" "$W/notask.onnx" <<'PYEOF' || { echo "FAIL: making the task-less copy"; exit 1; }
import sys, onnx
m = onnx.load(sys.argv[1])
keep = [p for p in m.metadata_props if p.key != "task"]
del m.metadata_props[:]
m.metadata_props.extend(keep)
onnx.save(m, sys.argv[2])
PYEOF
  "$B/tools/yolort-convert" "$W/notask.onnx" -o "$W/notask.yrt" > "$W/notask.log" 2>&1 || {
    echo "FAIL: the task-less copy does not convert: $(tail -1 "$W/notask.log")"; exit 1; }
  grep -q "segment: recognised by its shape" "$W/notask.log" || { echo "FAIL: task-less copy not recognised as segment"; exit 1; }
  img1=$(echo "$IMGS" | head -n 1)
  "$B/tools/yolort-detect" "$W/notask.yrt" "$img1" --json | grep -q '"segmentation"' || {
    echo "FAIL: the task-less copy gives no masks"; exit 1; }
  echo "task-less copy: recognised as segment by its shape"
elif [ "${CI:-}" = true ]; then
  echo "FAIL: CI=true and python with onnx is missing (the look-alike check)"; exit 1
fi
echo "ok"
