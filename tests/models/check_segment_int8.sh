#!/bin/sh
# check_segment_int8.sh BUILD_DIR SOURCE_DIR WORK_DIR — issue 36 item 3, "ConvTranspose in int8":
# the real YOLOv8n-seg export (../shared/models/wild/yolov8n-seg-320.dynamic.onnx) through
# yolort-quantize (SEG_CALIB images of the calibration set, default 32) runs its prototype
# upsample as an int8 CONV_TRANSPOSE, and on the first SEG_IMAGES (default 8) val images its
# detections recall >= 0.95 of onnxruntime's on the same QDQ file and the masks of matched boxes
# have an IoU with onnxruntime's of >= 0.90 on average and for >= 90% of them (seg_accept.c);
# the same against onnxruntime on the float export is printed (quantization error included). The
# float conversion writes the letterboxed inputs onnxruntime reads (the int8 session quantizes
# the frame straight into its int8 input). Needs ../shared (YOLORT_DATA) and onnxruntime-node
# (bench/peers/ort/node_modules, or ORT_DIR): without them it skips (77), under CI=true it fails.
set -u
B=$1; S=$2; W=$3
DATA=${YOLORT_DATA:-${YOLORT_DEFAULT_DATA:-../shared}}
ORT=${ORT_DIR:-$S/bench/peers/ort}
N_IMG=${SEG_IMAGES:-8}
M=$DATA/models/wild/yolov8n-seg-320.dynamic.onnx
missing() {
  if [ "${CI:-}" = true ]; then echo "FAIL: CI=true and $1 is missing"; exit 1; fi
  echo "skipping: $1 not found"; exit 77
}
[ -f "$M" ] || missing "$M"
[ -d "$DATA/data/coco/calib/images" ] || missing "$DATA/data/coco/calib/images"
[ -d "$ORT/node_modules/onnxruntime-node" ] || missing "$ORT/node_modules (npm ci --ignore-scripts in bench/peers/ort)"
command -v node >/dev/null 2>&1 || missing node
IMGS=$(ls "$DATA"/data/coco/val/images/*.jpg 2>/dev/null | head -n "$N_IMG")
[ -n "$IMGS" ] || missing "$DATA/data/coco/val/images"
mkdir -p "$W/f32" "$W/i8" || { echo "FAIL: cannot use $W"; exit 1; }
"$B/tools/yolort-convert" "$M" -o "$W/f32/seg.yrt" > "$W/convert.log" 2>&1 || {
  echo "FAIL: does not convert: $(tail -1 "$W/convert.log")"; exit 1; }
"$B/tools/yolort-quantize" "$M" "$DATA/data/coco/calib/images" -o "$W/seg.qdq.onnx" --yrt "$W/i8/seg.yrt" \
  -n "${SEG_CALIB:-32}" -q > "$W/quantize.log" 2>&1 || { echo "FAIL: quantize: $(tail -1 "$W/quantize.log")"; exit 1; }
"$B/tools/yolort-convert" "$W/seg.qdq.onnx" -o "$W/i8/seg2.yrt" > "$W/convert_i8.log" 2>&1 || {
  echo "FAIL: the QDQ model does not convert: $(tail -1 "$W/convert_i8.log")"; exit 1; }
ct=$(grep -E "^ +conv_transpose " "$W/convert_i8.log")
echo "$ct" | awk '{ exit !($2 >= 1 && $3 == 0) }' || { echo "FAIL: ConvTranspose not int8: '$ct'"; exit 1; }
# shellcheck disable=SC2086
"$B/tests/models/seg_accept" prep "$W/f32/seg.yrt" "$W/f32" $IMGS > /dev/null || { echo "FAIL: yolort float run"; exit 1; }
n=$(echo "$IMGS" | wc -l)
node "$S/tests/models/ort_wild.js" "$ORT" "$M" "$W/f32" "$n" 320 320 || { echo "FAIL: onnxruntime run"; exit 1; }
# shellcheck disable=SC2086
"$B/tests/models/seg_accept" prep "$W/i8/seg.yrt" "$W/i8" $IMGS > /dev/null || { echo "FAIL: yolort int8 run"; exit 1; }
# against onnxruntime on the export (the quantization error included): informative
cp "$W"/f32/ort_* "$W/i8/" || exit 1
res=$("$B/tests/models/seg_accept" compare "$W/i8/seg.yrt" "$W/i8" "$n") || { echo "FAIL: compare"; exit 1; }
echo "int8 .yrt vs onnxruntime on the float export: $res"
# judged: against onnxruntime running the same QDQ file (the same int8 graph)
cp "$W"/f32/in_* "$W/i8/" || exit 1
node "$S/tests/models/ort_wild.js" "$ORT" "$W/seg.qdq.onnx" "$W/i8" "$n" 320 320 || { echo "FAIL: onnxruntime run (QDQ)"; exit 1; }
res=$("$B/tests/models/seg_accept" compare "$W/i8/seg.yrt" "$W/i8" "$n") || { echo "FAIL: compare"; exit 1; }
echo "int8 .yrt vs onnxruntime on the QDQ file: $res"
# not each mask: int8 differences between the two runtimes move a few boxes' edges and
# coefficients (2 of 28 masks at 0.81-0.89 here, the int8 ConvTranspose kept float or not alike)
ok=$(echo "$res" | awk '{ print ($2 >= 0.95 && $4 >= 0.90 && $14 >= 0.90 && $8 > 0) ? 1 : 0 }')
[ "$ok" = 1 ] || { echo "FAIL: recall < 0.95, matched masks' IoU mean < 0.90 or under 90% of them >= 0.90"; exit 1; }
echo "ok"
