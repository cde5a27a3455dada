#!/bin/bash
# measure.sh — issue 37's accuracy measurement of one quantizer recipe on one model, and the
# paired comparison of two recipes. Every row of docs/accuracy.md from session 19 on comes from it.
#
#   measure.sh run MODEL.onnx WORK RECIPE [-- QUANTIZE_FLAGS...]
#   measure.sh compare WORK/<model>/<recipe1> WORK/<model>/<recipe2>
#
# run: the float network of MODEL (FP32, or recovered from an int8 export by yolort-quantize
# --float-out) and three int8 models of the recipe (yolort-quantize defaults + QUANTIZE_FLAGS):
#   - "full", calibrated on all of calib/images, scores val-292 = val/ + val-extra/ (never used to
#     calibrate);
#   - "cal0" / "cal1", calibrated on one half of calib/images (sorted file names, even / odd
#     index), each scoring the labelled images (calib/labels) of the other half.
# So 292 + 343 = 635 images, each scored by an int8 model that never saw it. Every yolort-eval run
# writes --dets; the pooled numbers come from `yolort-eval --from-dets` over the three samples
# (the same images in the same order on both sides: a paired bootstrap, BCa interval). Losses are
# FP32 - int8 in mAP50-95 points. The float detections are made once per model (WORK/<model>/float)
# and shared by its recipes.
# compare: the paired difference recipe2 - recipe1 of the int8 models' mAP50-95 on the same 635
# images (positive: recipe2 better), with its BCa interval.
#
# Environment: YOLORT_DATA (default ../shared), BUILD (default: build/ beside this tree),
# MEASURE_THREADS (2), MEASURE_BOOT (bootstrap resamples, 2000), MEASURE_SEED (1),
# MEASURE_LIMIT=K (plumbing checks: the first K images of val-292 and of each calib half only).
# Results: WORK/<model>/<recipe>/summary.txt (and compare-<r1>-<r2>.txt beside them). Runs may go
# at once (different models or recipes; the float side is made under a lock), a recipe name once.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
B=${BUILD:-$here/../../build}
D=${YOLORT_DATA:-${YOLORT_DEFAULT_DATA:-$here/../../../shared}}
T=${MEASURE_THREADS:-2}
R=${MEASURE_BOOT:-2000}
S=${MEASURE_SEED:-1}
K=${MEASURE_LIMIT:-0}
# the sets are folders of symbolic links into D: an absolute path, whatever the caller gave
[ -d "$D" ] && D=$(cd "$D" && pwd)
Q="$B/tools/yolort-quantize"
E="$B/tools/yolort-eval"

die() { echo "measure.sh: $*" >&2; exit 1; }
usage() {
  sed -n '5,6p' "$0" | sed 's/^# */usage: /' >&2
  exit 2
}

# The pooled report of `yolort-eval --from-dets A... --compare-dets B...`: B - A of mAP50-95 and
# its BCa interval in points, as "d lo hi se".
pooled_line() {
  awk '/^paired bootstrap/ { inb = 1 }
       inb && $1 == "mAP50-95" { d = $2; se = $10; sub(/,$/, "", se) }
       inb && d != "" && lo == "" && /95% BCa/ { s = $0; sub(/.*\[/, "", s); sub(/\].*/, "", s);
                                               split(s, v, ", "); lo = v[1]; hi = v[2] }
       END { if (d == "") exit 1; print d, (lo == "" ? "nan" : lo), (hi == "" ? "nan" : hi), se }' "$1"
}
# "images mapA mapB" (mAP50-95) of the same report
maps_line() {
  awk '/^(model|detections) +mAP50 +mAP50-95/ { t = 1; next }
       t && n < 2 && NF >= 4 { m[n++] = $(NF - 1); im = $NF }
       END { if (n < 2) exit 1; print im, m[0], m[1] }' "$1"
}

# Folders of links: val-292, the calib halves (all images, to calibrate) and their labelled images.
make_sets() {
  local final=$1
  [ -f "$final/.done.$K" ] && return 0
  for d in val/images val/labels val-extra/images val-extra/labels calib/images calib/labels; do
    [ -d "$D/data/coco/$d" ] || die "$D/data/coco/$d is missing (set YOLORT_DATA)"
  done
  # built aside and moved into place: two runs starting together never see half a set
  local sets
  mkdir -p "$(dirname "$final")"
  sets=$(mktemp -d "$final.tmp.XXXXXX")
  mkdir -p "$sets/val292/images" "$sets/val292/labels"
  local n=0 f stem
  for f in $(cd "$D/data/coco" && ls val/images/*.jpg val-extra/images/*.jpg | LC_ALL=C sort -t/ -k3); do
    [ "$K" -gt 0 ] && [ "$n" -ge "$K" ] && break
    stem=$(basename "$f" .jpg)
    [ -e "$sets/val292/images/$stem.jpg" ] && die "$stem is in both val/ and val-extra/"
    ln -s "$D/data/coco/$f" "$sets/val292/images/$stem.jpg"
    local lab="$D/data/coco/${f%/images/*}/labels/$stem.txt"
    [ -f "$lab" ] && ln -s "$lab" "$sets/val292/labels/$stem.txt"
    n=$((n + 1))
  done
  local h
  for h in 0 1; do mkdir -p "$sets/cal$h/images" "$sets/eval$h/images" "$sets/eval$h/labels"; done
  # the fixed rule: sorted file names, even index -> half 0, odd -> half 1
  local i=0 c0=0 c1=0
  for f in $(cd "$D/data/coco/calib/images" && ls -- *.jpg | LC_ALL=C sort); do
    h=$((i % 2)); i=$((i + 1))
    if [ "$K" -gt 0 ]; then
      if [ $h = 0 ]; then [ $c0 -ge "$K" ] && continue; c0=$((c0 + 1)); else [ $c1 -ge "$K" ] && continue; c1=$((c1 + 1)); fi
    fi
    stem=${f%.jpg}
    ln -s "$D/data/coco/calib/images/$f" "$sets/cal$h/images/$f"
    if [ -f "$D/data/coco/calib/labels/$stem.txt" ]; then
      ln -s "$D/data/coco/calib/images/$f" "$sets/eval$h/images/$f"
      ln -s "$D/data/coco/calib/labels/$stem.txt" "$sets/eval$h/labels/$stem.txt"
    fi
  done
  touch "$sets/.done.$K"
  [ -f "$final/.done.$K" ] && { rm -rf "$sets"; return 0; }
  rm -rf "$final"
  mv -T "$sets" "$final" 2>/dev/null || rm -rf "$sets"
}

# eval MODEL SET OUT.dets: the model's detections on a set (and their mAP alone, OUT.log)
eval_set() {
  "$E" "$1" "$2/images" "$2/labels" --threads "$T" -q --dets "$3" > "${3%.dets}.log" ||
    die "yolort-eval $1 on $2 failed (${3%.dets}.log)"
}

cmd_run() {
  [ $# -ge 3 ] || usage
  local model=$1 work=$2 recipe=$3
  shift 3
  if [ $# -gt 0 ]; then [ "$1" = "--" ] || usage; shift; fi
  [ -f "$model" ] || die "model $model not found"
  case $recipe in */* | "" | float) die "recipe name '$recipe': a plain name, not 'float'" ;; esac
  local name
  name=$(basename "$model" .onnx)
  local sets="$work/sets" md="$work/$name" rd="$work/$name/$recipe"
  make_sets "$sets"
  mkdir -p "$md/float" "$rd"
  # a finished recipe's detections are kept: rerunning only re-pools them
  if [ ! -f "$rd/dets.done" ]; then
  local t0 nfull=()
  [ "$K" -gt 0 ] && nfull=(-n $((2 * K)))
  t0=$(date +%s)
  echo "measure.sh: $name, recipe $recipe (${*:-defaults}), work $rd" >&2
  # the three calibrations; the first also writes the float network
  "$Q" "$model" "$D/data/coco/calib/images" -o "$rd/full.qdq.onnx" --yrt "$rd/full.yrt" \
    --float-out "$md/float/float.$recipe.onnx" --threads "$T" -q "${nfull[@]}" "$@" \
    > "$rd/quantize.full.log" 2>&1 || die "yolort-quantize (full) failed: $rd/quantize.full.log"
  local h
  for h in 0 1; do
    "$Q" "$model" "$sets/cal$h/images" -o "$rd/cal$h.qdq.onnx" --yrt "$rd/cal$h.yrt" --threads "$T" -q "$@" \
      > "$rd/quantize.cal$h.log" 2>&1 || die "yolort-quantize (half $h) failed: $rd/quantize.cal$h.log"
  done
  # the float side, once per model (the recovered float network does not depend on the recipe)
  # (under a lock: two recipes of one model run at once make it once)
  exec 9> "$md/float/.lock"
  flock 9
  if [ ! -f "$md/float/done" ]; then
    mv "$md/float/float.$recipe.onnx" "$md/float/float.onnx"
    eval_set "$md/float/float.onnx" "$sets/val292" "$md/float/val292.dets"
    eval_set "$md/float/float.onnx" "$sets/eval1" "$md/float/eval1.dets"
    eval_set "$md/float/float.onnx" "$sets/eval0" "$md/float/eval0.dets"
    touch "$md/float/done"
  else
    cmp -s "$md/float/float.$recipe.onnx" "$md/float/float.onnx" ||
      echo "measure.sh: note: the float network written with this recipe differs from $md/float/float.onnx" >&2
    rm -f "$md/float/float.$recipe.onnx"
  fi
  exec 9>&-
  eval_set "$rd/full.yrt" "$sets/val292" "$rd/val292.dets"
  eval_set "$rd/cal0.yrt" "$sets/eval1" "$rd/eval1.dets"
  eval_set "$rd/cal1.yrt" "$sets/eval0" "$rd/eval0.dets"
  echo $(($(date +%s) - t0)) > "$rd/wall"
  touch "$rd/dets.done"
  fi
  # A = int8, B = FP32: B - A is the loss
  local s
  for s in val292 eval1 eval0; do
    "$E" --from-dets "$rd/$s.dets" --compare-dets "$md/float/$s.dets" --bootstrap "$R" --seed "$S" > "$rd/loss.$s.txt" ||
      die "yolort-eval --from-dets failed on $s"
  done
  "$E" --from-dets "$rd/val292.dets" --from-dets "$rd/eval1.dets" --from-dets "$rd/eval0.dets" \
    --compare-dets "$md/float/val292.dets" --compare-dets "$md/float/eval1.dets" \
    --compare-dets "$md/float/eval0.dets" --bootstrap "$R" --seed "$S" > "$rd/loss.pooled.txt" ||
    die "yolort-eval --from-dets failed on the pooled samples"
  {
    echo "model $name ($model)"
    echo "recipe $recipe: yolort-quantize defaults ${*:-}"
    for s in val292 eval1 eval0; do
      read -r im a b < <(maps_line "$rd/loss.$s.txt")
      read -r d lo hi se < <(pooled_line "$rd/loss.$s.txt")
      case $s in val292) lab="val-292 (int8 calibrated on all calib)" ;;
                 eval1) lab="calib half 1 labelled (int8 calibrated on half 0)" ;;
                 eval0) lab="calib half 0 labelled (int8 calibrated on half 1)" ;; esac
      awk -v s="$s" -v im="$im" -v a="$a" -v b="$b" -v l="$lab" -v lo="$lo" -v hi="$hi" \
        'BEGIN { printf "sample %-7s images %4d  fp32 %.4f  int8 %.4f  loss %+.2f  BCa95 [%s, %s]  %s\n", s, im, b, a, 100 * (b - a), lo, hi, l }'
    done
    read -r im a b < <(maps_line "$rd/loss.pooled.txt")
    read -r d lo hi se < <(pooled_line "$rd/loss.pooled.txt")
    awk -v im="$im" -v a="$a" -v b="$b" -v d="$d" -v lo="$lo" -v hi="$hi" -v se="$se" -v r="$R" \
      'BEGIN { printf "pooled  images %4d  fp32 %.4f  int8 %.4f  loss %+.2f  BCa95 [%s, %s]  se %s  (%d resamples)\n", im, b, a, d, lo, hi, se, r }'
    echo "wall $(cat "$rd/wall") s (3 calibrations + float and int8 evaluations, --threads $T)"
  } > "$rd/summary.txt"
  cat "$rd/summary.txt"
}

cmd_compare() {
  [ $# -eq 2 ] || usage
  local r1=$1 r2=$2 s
  for s in val292 eval1 eval0; do
    [ -f "$r1/$s.dets" ] && [ -f "$r2/$s.dets" ] || die "$r1 or $r2 has no $s.dets (run both recipes first)"
  done
  local out
  out="$(dirname "$r2")/compare-$(basename "$r1")-$(basename "$r2").txt"
  "$E" --from-dets "$r1/val292.dets" --from-dets "$r1/eval1.dets" --from-dets "$r1/eval0.dets" \
    --compare-dets "$r2/val292.dets" --compare-dets "$r2/eval1.dets" --compare-dets "$r2/eval0.dets" \
    --bootstrap "$R" --seed "$S" > "$out.log" || die "yolort-eval --from-dets failed"
  local im a b d lo hi se
  read -r im a b < <(maps_line "$out.log")
  read -r d lo hi se < <(pooled_line "$out.log")
  awk -v r1="$(basename "$r1")" -v r2="$(basename "$r2")" -v im="$im" -v a="$a" -v b="$b" -v d="$d" -v lo="$lo" \
    -v hi="$hi" -v se="$se" \
    'BEGIN { printf "compare %s -> %s  images %d  int8 %.4f -> %.4f  difference %+.2f points  BCa95 [%s, %s]  se %s\n", r1, r2, im, a, b, d, lo, hi, se
             if (lo + 0 > 0) v = r2 " is better"; else if (hi + 0 < 0) v = r1 " is better"; else v = "no difference shown (the interval holds 0)"
             printf "verdict: %s\n", v }' | tee "$out"
}

[ $# -ge 1 ] || usage
[ -x "$Q" ] && [ -x "$E" ] || die "no $Q or $E (build first, or set BUILD)"
case $1 in
  run) shift; cmd_run "$@" ;;
  compare) shift; cmd_compare "$@" ;;
  *) usage ;;
esac
