#!/bin/bash
# check_measure.sh BUILD_DIR WORK_DIR — the plumbing of measure.sh (issue 37's measurement) on a
# few images: yolo11n-320, the first 3 images of val-292 and of each calibration half. Checks: the
# summary's samples and pooled line, the pooled image count, the --from-dets evaluation equal to a
# direct yolort-eval --compare on the same images, a recipe compared with itself as a difference of
# exactly 0, and bad arguments refused. Not an accuracy
# figure (3 images). Without ../shared: skipped (77), failed under CI=true.
set -euo pipefail
B=$1; W=$2
D=${YOLORT_DATA:-${YOLORT_DEFAULT_DATA:-../shared}}
M="$(cd "$(dirname "$0")" && pwd)/measure.sh"
MODEL="$D/models/yolo11n-320.onnx"
if [ ! -f "$MODEL" ] || [ ! -d "$D/data/coco/val-extra/labels" ] || [ ! -d "$D/data/coco/calib/labels" ]; then
  if [ "${CI:-}" = "true" ]; then echo "FAIL: CI=true and $MODEL or the coco data is missing (set YOLORT_DATA)"; exit 1; fi
  echo "skipping: $MODEL or $D/data/coco not found (set YOLORT_DATA)"; exit 77
fi
export YOLORT_DATA="$D" BUILD="$B" MEASURE_LIMIT=3 MEASURE_BOOT=200 MEASURE_THREADS=2
rm -rf "$W" && mkdir -p "$W"
fail() { echo "FAIL: $*"; exit 1; }

"$M" run "$MODEL" "$W" r1 -- --no-silu-range > "$W/r1.out"
cat "$W/r1.out"
S="$W/yolo11n-320/r1/summary.txt"
[ "$(grep -c '^sample ' "$S")" = 3 ] || fail "summary without its three samples"
n_eval=$(( $(ls "$W/sets/eval0/labels" | wc -l) + $(ls "$W/sets/eval1/labels" | wc -l) ))
[ "$n_eval" -ge 1 ] || fail "no labelled calibration image among the first 3 of each half"
pooled=$(awk '$1 == "pooled" { print $3 }' "$S")
[ "$pooled" = $((3 + n_eval)) ] || fail "pooled over $pooled images, expected $((3 + n_eval))"
grep -Eq '^pooled .* loss [-+][0-9]+\.[0-9]+  BCa95 \[' "$S" || fail "no pooled loss with its interval"
# the read-back evaluation is the direct one (--dets writes %.9g: same floats, same mAP)
"$B/tools/yolort-eval" "$W/yolo11n-320/r1/full.yrt" "$W/sets/val292/images" "$W/sets/val292/labels" \
  --compare "$W/yolo11n-320/float/float.onnx" -q > "$W/direct.txt"
direct=$(awk '/^model +mAP50/ { t = 1; next } t && NF >= 4 && n < 2 { printf "%s %s ", $(NF - 2), $(NF - 1); n++ }' "$W/direct.txt")
back=$(awk '/^detections +mAP50/ { t = 1; next } t && NF >= 4 && n < 2 { printf "%s %s ", $(NF - 2), $(NF - 1); n++ }' \
  "$W/yolo11n-320/r1/loss.val292.txt")
[ -n "$direct" ] && [ "$direct" = "$back" ] || fail "--from-dets gives '$back', the direct evaluation '$direct'"
# a recipe against itself: the paired difference exactly 0
"$M" compare "$W/yolo11n-320/r1" "$W/yolo11n-320/r1" > "$W/cmp.out"
cat "$W/cmp.out"
grep -q "difference +0.00 points" "$W/cmp.out" || fail "a recipe differs from itself"
grep -q "verdict: no difference shown" "$W/cmp.out" || fail "no verdict"
# bad arguments: a clear message and a non-zero exit
if "$M" run "$W/no-such.onnx" "$W" r3 > /dev/null 2> "$W/bad.err"; then fail "a missing model was accepted"; fi
grep -q "no-such.onnx not found" "$W/bad.err" || fail "no message naming the missing model"
if "$M" compare "$W/yolo11n-320/r1" "$W/yolo11n-320/nothing" > /dev/null 2> "$W/bad2.err"; then
  fail "compare with a missing recipe was accepted"
fi
grep -q "run both recipes first" "$W/bad2.err" || fail "no message naming the missing recipe"
if "$M" run "$MODEL" "$W" float > /dev/null 2> "$W/bad3.err"; then fail "recipe name 'float' was accepted"; fi
echo "measure.sh plumbing OK"
