#!/bin/sh
# check_wild_accept.sh BUILD_DIR SOURCE_DIR WORK_DIR — issue 15's acceptance on the real exports
# listed in wild_accept.txt: each converts, and on the same letterboxed val images yolort's
# detections recall >= 95% of onnxruntime's (wild_accept.c, ort_wild.js); a classifier (mode
# classify) has the same top-1 class as onnxruntime on >= 98% of the images. A FILE without a '/'
# is in $DATA/models/wild, one with a '/' is relative to $DATA/models (wild2/...). Needs
# ../shared (YOLORT_DATA) and onnxruntime-node (bench/peers/ort/node_modules): without them it
# skips (exit 77), under CI=true it fails. A line with quantize=N (wild_quantized.txt) takes an
# FP32 file through yolort-quantize (N calibration images) instead of converting it, and compares
# that int8 .yrt with onnxruntime running the FP32 file. On those lines and the ort=FORM ones a
# recall over zero onnxruntime detections fails (it proves nothing). WILD_ACCEPT_LIST names
# another list.
set -u
B=$1; S=$2; W=$3
DATA=${YOLORT_DATA:-${YOLORT_DEFAULT_DATA:-../shared}}
ORT=$S/bench/peers/ort
N_IMG=${WILD_ACCEPT_IMAGES:-4}
missing() {
  if [ "${CI:-}" = true ]; then echo "FAIL: CI=true and $1 is missing"; exit 1; fi
  echo "skipping: $1 not found"; exit 77
}
[ -d "$DATA/models/wild" ] || missing "$DATA/models/wild"
[ -d "$DATA/models/wild2" ] || missing "$DATA/models/wild2"
[ -d "$ORT/node_modules/onnxruntime-node" ] || missing "$ORT/node_modules (npm ci --ignore-scripts in bench/peers/ort)"
command -v node >/dev/null 2>&1 || missing node
IMGS=$(ls "$DATA"/data/coco/val/images/*.jpg 2>/dev/null | head -n "$N_IMG")
[ -n "$IMGS" ] || missing "$DATA/data/coco/val/images"
LIST=${WILD_ACCEPT_LIST:-$S/tests/models/wild_accept.txt}
if grep -v "^#" "$LIST" | grep -q " quantize="; then
  [ -d "$DATA/data/coco/calib/images" ] || missing "$DATA/data/coco/calib/images"
fi
mkdir -p "$W" && rm -f "$W/bad" || { echo "FAIL: cannot use $W"; exit 1; }
bad=0
grep -v "^#" "$LIST" | while read -r file mode opts; do
  [ -n "$file" ] || continue
  # a name with a folder (wild2/x.onnx) is under $DATA/models, a bare one under $DATA/models/wild
  case $file in */*) m="$DATA/models/$file" ;; *) m="$DATA/models/wild/$file" ;; esac
  st=$(basename "$file" .onnx); d="$W/$st"; mkdir -p "$d"
  [ -f "$m" ] || { echo "FAIL $st: $m is missing"; echo 1 > "$W/bad"; continue; }
  if [ "$mode" = refuse ]; then # opts: a word the refusal must name (e.g. the task)
    if "$B/tools/yolort-convert" "$m" -o "$d/m.yrt" > "$d/convert.log" 2>&1; then
      echo "FAIL $st: converts, expected a refusal naming '$opts'"; echo 1 > "$W/bad"
    elif tail -1 "$d/convert.log" | grep -q -- "$opts"; then
      echo "ok   $st: refused: $(tail -1 "$d/convert.log" | cut -c1-110)"
    else
      echo "FAIL $st: refused without naming '$opts': $(tail -1 "$d/convert.log")"; echo 1 > "$W/bad"
    fi
    continue
  fi
  # a leading images=N option: this file is judged on N images (a recall measured on 4 can hinge
  # on one borderline detection)
  imgs=$IMGS
  case $opts in images=*)
    k=${opts%% *}; k=${k#images=}; opts=${opts#images=$k}
    imgs=$(ls "$DATA"/data/coco/val/images/*.jpg | head -n "$k") ;;
  esac
  # top1=A: a classifier held to agreement A instead of issue 36's 0.98 (a measured, documented gap)
  need=0.98; opts=${opts# }
  case $opts in top1=*)
    need=${opts%% *}; need=${need#top1=}; opts=${opts#top1=$need} ;;
  esac
  # ort=FORM: onnxruntime's output is an objectness head's [1, N, 5 + nc] in that family's form
  # (wild_accept.c: v5, v5sig, xraw), decoded by the test before the comparison
  form=; opts=${opts# }
  case $opts in ort=*)
    form=${opts%% *}; form=${form#ort=}; opts=${opts#ort=$form} ;;
  esac
  # quantize=N: the product's flow for an FP32 file: yolort-quantize calibrated on the first N
  # images of data/coco/calib (the rest of the line: its options), its .yrt against onnxruntime
  # running the original FP32 file
  qn=; opts=${opts# }
  case $opts in quantize=*)
    qn=${opts%% *}; qn=${qn#quantize=}; opts=${opts#quantize=$qn} ;;
  esac
  if [ -n "$qn" ]; then
    st=$st.quantized; d="$W/$st"; mkdir -p "$d"
    # shellcheck disable=SC2086
    if ! "$B/tools/yolort-quantize" "$m" "$DATA/data/coco/calib/images" -n "$qn" -q -o "$d/m.qdq.onnx" \
         --yrt "$d/m.yrt" $opts > "$d/convert.log" 2>&1; then
      echo "FAIL $st: does not quantize: $(tail -1 "$d/convert.log")"; echo 1 > "$W/bad"; continue
    fi
    grep -q "^wrote .*\.yrt ([1-9][0-9]* int8 nodes of" "$d/convert.log" ||
      { echo "FAIL $st: no int8 node after yolort-quantize"; echo 1 > "$W/bad"; continue; }
  elif ! "$B/tools/yolort-convert" "$m" -o "$d/m.yrt" $opts > "$d/convert.log" 2>&1; then
    echo "FAIL $st: does not convert: $(tail -1 "$d/convert.log")"; echo 1 > "$W/bad"; continue
  fi
  head=$(grep "detect head" "$d/convert.log" | cut -c1-90)
  # shellcheck disable=SC2086
  hw=$("$B/tests/models/wild_accept" prep "$d/m.yrt" "$d" $imgs) || { echo "FAIL $st: yolort run"; echo 1 > "$W/bad"; continue; }
  n=$(echo "$imgs" | wc -l)
  # shellcheck disable=SC2086
  node "$S/tests/models/ort_wild.js" "$ORT" "$m" "$d" "$n" $hw || { echo "FAIL $st: onnxruntime run"; echo 1 > "$W/bad"; continue; }
  # shellcheck disable=SC2086
  res=$("$B/tests/models/wild_accept" compare "$d/m.yrt" "$d" "$n" $form) || { echo "FAIL $st: compare"; echo 1 > "$W/bad"; continue; }
  r=$(echo "$res" | awk '{print $2}')
  ok=$(awk -v r="$r" 'BEGIN { print (r >= 0.95) ? 1 : 0 }')
  # a recall over no onnxruntime detection proves nothing (a YOLOX fed RGB / 255 found nothing
  # on either side): required of the objectness families and the quantized files (a 1-class
  # custom model may find nothing on COCO images)
  [ "$mode" = recall ] && [ -n "$form$qn" ] && [ "$(echo "$res" | awk '{print $4}')" = 0 ] && ok=0
  if [ "$mode" = classify ]; then # res: top1_agree A images N top1_in_top5 B
    ok=$(awk -v r="$r" -v n="$need" 'BEGIN { print (r >= n) ? 1 : 0 }')
    cls=$(grep "^classify:" "$d/convert.log" | cut -c1-80)
    if [ "$ok" = 1 ]; then echo "ok   $st: $res | $cls"
    else echo "FAIL $st: $res (top-1 agreement < $need) | $cls"; echo 1 > "$W/bad"; fi
  elif [ "$mode" = differs ]; then
    echo "info $st: $res (yolort's int8 network is known to differ from onnxruntime's on this file; not required) | $head"
  elif [ "$mode" = collapse ]; then
    echo "info $st: $res (onnxruntime's scores collapse from the model's own quantized head; not required) | $head"
  elif [ "$ok" = 1 ]; then
    echo "ok   $st: $res | $head"
  else
    echo "FAIL $st: $res (< 0.95) | $head"; echo 1 > "$W/bad"
  fi
done
[ -f "$W/bad" ] && { rm -f "$W/bad"; exit 1; }
exit 0
