#!/bin/sh
# check_cli.sh BUILD_DIR WORK_DIR [DEFAULT_DATA] — CLI conventions: every program answers --version (exit 0,
# "yolort X.Y.Z" on stdout); yolort-detect's --help goes to stdout with exit 0, a malformed
# number is refused with exit 2, and --json prints one parseable object per image with the
# documented keys (on the shared yolo11n-320 and a val image; skipped without YOLORT_DATA,
# failed under CI=true); yolort-convert --names (refusals; the note on a file without names and
# --names coco on the shared YOLOv5-Lite).
set -eu
B=$1; W=$2; DEFAULT_DATA=${3:-}
rm -rf "$W" && mkdir -p "$W"
for exe in "$B"/tools/yolort-* "$B"/bench/yolort-bench; do
  [ -x "$exe" ] || continue
  out=$("$exe" --version) || { echo "FAIL: $exe --version exit $?"; exit 1; }
  echo "$out" | grep -Eq "yolort [0-9]+\.[0-9]+\.[0-9]+" || { echo "FAIL: $exe --version printed '$out'"; exit 1; }
done
D="$B/tools/yolort-detect"
"$D" --help > "$W/help.txt" 2> "$W/help.err"
grep -q -- "--json" "$W/help.txt" && [ ! -s "$W/help.err" ] || { echo "FAIL: --help not on stdout"; exit 1; }
set +e
"$D" m.yrt x.jpg --conf abc > /dev/null 2> "$W/bad.err"; rc=$?
set -e
[ $rc -eq 2 ] && grep -q -- "--conf" "$W/bad.err" || { echo "FAIL: --conf abc gave exit $rc"; exit 1; }
# --preprocess SPEC: bad specs refused (exit 1) naming the word, before the model is read
C="$B/tools/yolort-convert"
for spec in "bgr,foo|'foo'" "rgb,bgr|'bgr'" "pad=300|'pad=300'" "scale=0|'scale=0'" "std=1:0:1|std"; do
  s=${spec%%|*}; want=${spec#*|}
  set +e
  "$C" nothing.onnx -o "$W/x.yrt" --preprocess "$s" > /dev/null 2> "$W/pre.err"; rc=$?
  set -e
  [ $rc -eq 1 ] && grep -q -- "--preprocess" "$W/pre.err" && grep -q -- "$want" "$W/pre.err" ||
    { echo "FAIL: --preprocess '$s' gave exit $rc: $(cat "$W/pre.err")"; exit 1; }
done
"$C" --help | grep -q -- "--preprocess SPEC" || { echo "FAIL: --preprocess not in --help"; exit 1; }
# --names FILE|coco: an unreadable or malformed list refused (exit 1) naming --names and the file
printf 'cat\n\ndog\n' > "$W/blank.names"
for f in "$W/none.names|cannot open" "$W/blank.names|line 2 is blank"; do
  set +e
  "$C" nothing.onnx -o "$W/x.yrt" --names "${f%%|*}" > /dev/null 2> "$W/names.err"; rc=$?
  set -e
  [ $rc -eq 1 ] && grep -q -- "--names ${f%%|*}" "$W/names.err" && grep -q -- "${f#*|}" "$W/names.err" ||
    { echo "FAIL: --names ${f%%|*} gave exit $rc: $(cat "$W/names.err")"; exit 1; }
done
"$C" --help | grep -q -- "--names FILE|coco" || { echo "FAIL: --names not in --help"; exit 1; }
set +e
"$B/tools/yolort-quantize" m.onnx dir -o q.onnx --preprocess bgr,what > /dev/null 2> "$W/qpre.err"; rc=$?
set -e
[ $rc -eq 2 ] && grep -q "'what'" "$W/qpre.err" || { echo "FAIL: yolort-quantize --preprocess bgr,what gave exit $rc"; exit 1; }
DATA=${YOLORT_DATA:-$DEFAULT_DATA}
if [ -z "$DATA" ] || [ ! -f "$DATA/models/yolo11n-320.qdq.onnx" ]; then
  if [ "${CI:-}" = true ]; then echo "FAIL: CI=true and YOLORT_DATA is missing"; exit 1; fi
  echo "skipping --json: no YOLORT_DATA"; exit 0
fi
"$B/tools/yolort-convert" "$DATA/models/yolo11n-320.qdq.onnx" -o "$W/m.yrt" > /dev/null 2>&1
"$D" "$W/m.yrt" "$DATA/data/coco/val/images/000000000632.jpg" "$DATA/data/coco/val/images/000000000285.jpg" \
  --json --conf 0.3 --iou 0.5 > "$W/out.jsonl"
python3 - "$W/out.jsonl" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 2, lines
for l in lines:
    o = json.loads(l)
    assert set(o) == {"image", "width", "height", "task", "preprocess", "detections"}, o.keys()
    assert o["task"] == "detect" and o["width"] > 0 and o["height"] > 0
    p = dict(o["preprocess"])  # the default preprocessing of an Ultralytics export
    assert abs(p.pop("scale") - 1 / 255) < 1e-9, o["preprocess"]
    assert p == {"channels": "rgb", "mean": [0, 0, 0], "std": [1, 1, 1], "resize": "letterbox",
                 "placement": "center", "pad": 114}, o["preprocess"]
    assert o["detections"], "no detections"
    for d in o["detections"]:
        assert set(d) == {"class", "name", "score", "box"}, d
        assert d["score"] > 0.3 and len(d["box"]) == 4 and isinstance(d["name"], str) and d["name"]
        x0, y0, x1, y1 = d["box"]
        assert 0 <= x0 <= x1 <= o["width"] and 0 <= y0 <= y1 <= o["height"], d
print("json ok:", [len(json.loads(l)["detections"]) for l in lines])
PY
# --preprocess stored and reported: the summary says what and why, yolort-detect --json the model's
"$B/tools/yolort-convert" "$DATA/models/yolo11n-320.onnx" -o "$W/bgr.yrt" --preprocess bgr,scale=1,topleft,pad=0 \
  > "$W/bgr.txt" 2>&1
grep -q "preprocessing: BGR, scale 1, top-left letterbox, pad 0 (--preprocess)" "$W/bgr.txt" ||
  { echo "FAIL: convert summary: $(grep -i preprocessing "$W/bgr.txt")"; exit 1; }
"$B/tools/yolort-convert" "$DATA/models/yolo11n-320.onnx" -o "$W/def.yrt" > "$W/def.txt" 2>&1
grep -q "preprocessing: RGB, scale 1/255, centred letterbox, pad 114 (default)" "$W/def.txt" ||
  { echo "FAIL: default summary: $(grep -i preprocessing "$W/def.txt")"; exit 1; }
"$D" "$W/bgr.yrt" "$DATA/data/coco/val/images/000000000632.jpg" --json > "$W/bgr.jsonl"
python3 - "$W/bgr.jsonl" <<'PY'
import json, sys
o = json.loads(open(sys.argv[1]).read())
assert o["preprocess"] == {"channels": "bgr", "scale": 1, "mean": [0, 0, 0], "std": [1, 1, 1],
                           "resize": "letterbox", "placement": "topleft", "pad": 0}, o["preprocess"]
print("preprocess ok:", o["preprocess"])
PY
# yolort-inspect given a .yrt says so and prints what the runtime runs (issue 38 item 7); given
# the ONNX, only the head's last Sigmoid is "class scores", never a SiLU's
I="$B/tools/yolort-inspect"
"$I" "$W/m.yrt" > "$W/insp.txt"
grep -q "is a .yrt file (converted by yolort-convert)" "$W/insp.txt" && grep -q "conv2d.i8" "$W/insp.txt" &&
  grep -q "input 320x320, 80 classes" "$W/insp.txt" || { echo "FAIL: inspect .yrt: $(head -3 "$W/insp.txt")"; exit 1; }
set +e
"$I" "$W/m.yrt" --images "$W" > /dev/null 2> "$W/insp.err"; rc=$?
set -e
[ $rc -eq 2 ] && grep -q -- "--images needs the ONNX" "$W/insp.err" || { echo "FAIL: inspect .yrt --images: exit $rc"; exit 1; }
n=$("$I" "$DATA/models/yolo11n-320.onnx" | grep -c "class scores")
[ "$n" -eq 1 ] || { echo "FAIL: inspect names $n Sigmoids class scores (1: the head's)"; exit 1; }
echo "inspect ok"
# A file without class names (YOLOv5-Lite): the converter says so; --names coco stores the 80 COCO
# names (yolort-detect prints them), a list of another length is an error naming --names
L="$DATA/models/wild2/yolov5-lite-e_detect_80_fp32_320.onnx"
if [ ! -f "$L" ]; then
  if [ "${CI:-}" = true ]; then echo "FAIL: CI=true and $L is missing"; exit 1; fi
  echo "skipping --names: no $L"; exit 0
fi
"$C" "$L" -o "$W/lite.yrt" > "$W/lite.txt" 2>&1
grep -q "note: the file carries no class names: classes print as class0..class79" "$W/lite.txt" ||
  { echo "FAIL: no note on a file without names: $(cat "$W/lite.txt")"; exit 1; }
"$C" "$L" -o "$W/lite-coco.yrt" --names coco > "$W/lite-coco.txt" 2>&1
! grep -q "no class names" "$W/lite-coco.txt" || { echo "FAIL: note with --names coco"; exit 1; }
"$D" "$W/lite-coco.yrt" "$DATA/data/coco/val/images/000000000632.jpg" --json > "$W/lite.jsonl"
python3 - "$W/lite.jsonl" <<'PY'
import json, sys
o = json.loads(open(sys.argv[1]).read())
names = {d["name"] for d in o["detections"]}
assert names and not any(n.startswith("class") for n in names), names
print("--names coco ok:", sorted(names))
PY
printf 'cat\ndog\n' > "$W/two.names"
set +e
"$C" "$L" -o "$W/lite-two.yrt" --names "$W/two.names" > /dev/null 2> "$W/two.err"; rc=$?
set -e
[ $rc -eq 1 ] && grep -q -- "--names gives 2 class names, the model has 80 classes" "$W/two.err" && [ ! -f "$W/lite-two.yrt" ] ||
  { echo "FAIL: --names of 2 on 80 classes gave exit $rc: $(cat "$W/two.err")"; exit 1; }
