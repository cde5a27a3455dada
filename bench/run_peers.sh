#!/usr/bin/env bash
# run_peers.sh MODEL_STEM [--threads N] [--warmup N] [--runs N] [--image JPG] [--isa NAME] [--json]
#
# One run, one machine state: yolort-bench on the .yrt, onnxruntime on the FP32 ONNX, the QDQ
# int8 and the QDQ uint8 ONNX, and XNNPACK operator by operator; then a ratio table (yolort / peer).
#   MODEL_STEM   e.g. yolo11n-640: $YOLORT_DATA/models/MODEL_STEM{.onnx,.qdq.onnx,.qdq-u8.onnx}
# Environment:
#   YOLORT_DATA  shared data (default: <repo>/../shared)
#   BUILD        build dir with yolort-bench and xnn_layers (default: <repo>/build)
#   YRT          the .yrt to measure (default: $BUILD/MODEL_STEM.yrt, else $YOLORT_DATA/models/
#                MODEL_STEM.yrt, else the QDQ ONNX converted in memory by yolort-bench, whose
#                peak RSS then includes the converter)
#   OUT          where the JSON of each runner is kept (default: a temp dir, removed)
# --isa NAME caps yolort's kernels (yolort-bench --isa, e.g. avx2 on a VNNI CPU); the peers keep
# the CPU's best.
# The onnxruntime peer needs `npm install --ignore-scripts` in bench/peers/ort once.
# Each runner is a separate process, run one after the other, so peak RSS is per runtime.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
stem="${1:-}"
[[ -n "$stem" && "$stem" != -* ]] || { sed -n '2,18p' "$0" >&2; exit 2; }
shift
threads=2 warmup=10 runs=50 image="" json=0 isa=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --threads) threads="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --image) image="$2"; shift 2 ;;
    --isa) isa="$2"; shift 2 ;;
    --json) json=1; shift ;;
    *) echo "run_peers: unknown option $1" >&2; exit 2 ;;
  esac
done

. "$here/lib.sh"
bench_paths run_peers
models="$data/models"

fp32="$models/$stem.onnx"
qdq="$models/$stem.qdq.onnx"
qdq_u8="$models/$stem.qdq-u8.onnx"
[[ -f "$fp32" ]] || { log "no $fp32"; exit 1; }
if [[ ! -f "$qdq_u8" && -f "$qdq" ]]; then
  # same numbers, uint8 activations (zero points + 128): see peers/ort/make_qdq_u8.py
  qdq_u8="$out/$stem.qdq-u8.onnx"
  /usr/bin/python3 "$here/peers/ort/make_qdq_u8.py" "$qdq" "$qdq_u8" >&2
fi

yrt="${YRT:-}"
if [[ -z "$yrt" ]]; then
  for c in "$build/$stem.yrt" "$models/$stem.yrt"; do
    [[ -f "$c" ]] && { yrt="$c"; break; }
  done
fi
[[ -n "$yrt" ]] || { yrt="$qdq"; log "no .yrt found: yolort-bench converts $qdq in memory"; }

lscpu | sed -n 's/^Model name:[[:space:]]*/cpu: /p' >&2
log "load before: $(cut -d' ' -f1-3 /proc/loadavg)"

yargs=(--threads "$threads" --warmup "$warmup" --runs "$runs" --json)
[[ -n "$image" ]] && yargs+=(--image "$image")
[[ -n "$isa" ]] && yargs+=(--isa "$isa")
if [[ -x "$build/yolort-bench" || -x "$build/bench/yolort-bench" ]]; then
  ybin="$build/bench/yolort-bench"; [[ -x "$ybin" ]] || ybin="$build/yolort-bench"
  log "yolort-bench $yrt"
  "$ybin" "$yrt" "${yargs[@]}" > "$out/yolort.json" || log "yolort-bench failed"
else
  log "no yolort-bench in $build (set BUILD)"
fi

ort=(node "$here/peers/ort/bench_ort.js" --threads "$threads" --warmup "$warmup" --runs "$runs" --json)
peers=()
for pair in "fp32=$fp32" "qdq-s8=$qdq" "qdq-u8=$qdq_u8"; do
  label="${pair%%=*}" file="${pair#*=}"
  [[ -f "$file" ]] || { log "skip ort $label: no $file"; continue; }
  log "onnxruntime $label $file"
  if "${ort[@]}" "$file" > "$out/ort-$label.json"; then peers+=(--peer "$label=$out/ort-$label.json"); fi
done

xargs_=()
xbin="$build/bench/peers/xnn_layers"
if [[ -x "$xbin" ]]; then
  src="$yrt"
  if [[ "$src" == *.onnx ]]; then
    src="$out/$stem.convs.txt"
    /usr/bin/python3 "$here/peers/xnnpack/onnx_convs.py" "$fp32" > "$src"
  fi
  log "xnn_layers $src"
  tl=1; [[ "$threads" != 1 ]] && tl="1,$threads"
  if "$xbin" "$src" --threads "$tl" --runs "$((runs < 20 ? runs : 20))" --json > "$out/xnn.json"; then
    xargs_=(--xnn "$out/xnn.json")
  fi
fi
log "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

cmp=(node "$here/peers/compare.js" "${peers[@]}" "${xargs_[@]}")
[[ -s "$out/yolort.json" ]] && cmp+=(--yolort "$out/yolort.json")
[[ $json == 1 ]] && cmp+=(--json)
echo "== $stem, batch 1, $threads threads, $warmup warm-up + $runs runs"
"${cmp[@]}"
