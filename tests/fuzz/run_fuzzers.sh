#!/usr/bin/env bash
# run_fuzzers.sh [SECONDS] [TARGET...] — build the libFuzzer targets (clang, ASan+UBSan), write the
# seed corpora into the build dir, run each target for SECONDS (default 60) and print the
# executions. Exits non-zero if any target found a crash, a leak, UB or a timeout; the reproducer
# is then in $BUILD/fuzz/artifacts/<target>/ (turn it into a test in tests/reliability/).
#   TARGET: yrt_load yrt_detect yrt_fields onnx_convert onnx_values api_sequence jpeg (default: all seven)
#   env: YOLORT_FUZZ_BUILD (build-fuzz), YOLORT_FUZZ_MAX_LEN (per target default below),
#        YOLORT_FUZZ_JOBS (1; libFuzzer -fork=N runs N processes), YOLORT_DATA (../shared seeds)
# The corpus in $BUILD/fuzz/corpus/<target> is kept between runs, so longer runs build on shorter ones.
set -euo pipefail
cd "$(dirname "$0")/../.."
SECS=${1:-60}
shift || true
TARGETS=("$@")
[[ ${#TARGETS[@]} -gt 0 ]] || TARGETS=(yrt_load yrt_detect yrt_fields onnx_convert onnx_values api_sequence jpeg)
BUILD=${YOLORT_FUZZ_BUILD:-build-fuzz}
JOBS=${YOLORT_FUZZ_JOBS:-1}
if [[ -z "${YOLORT_DATA:-}" && -d ../shared ]]; then export YOLORT_DATA="$(cd ../shared && pwd)"; fi

CC=${CC_FUZZ:-clang} cmake -S . -B "$BUILD" -DCMAKE_C_COMPILER="${CC_FUZZ:-clang}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DYOLORT_FUZZ=ON -DYOLORT_BUILD_TESTS=OFF -DYOLORT_WERROR=ON >/dev/null
cmake --build "$BUILD" -j2 --target fuzz_make_seeds $(printf 'fuzz_%s ' "${TARGETS[@]}") >/dev/null
FZ="$BUILD/fuzz"
mkdir -p "$FZ"
"$BUILD/tests/fuzz/fuzz_make_seeds" "$FZ/seeds" ${YOLORT_DATA:+"$YOLORT_DATA"}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
for t in "${TARGETS[@]}"; do
  tmo=
  case $t in
    yrt_load) seeds=yrt; maxlen=65536 ;;
    yrt_detect) seeds=detect; maxlen=65536 ;;
    yrt_fields) seeds=yrt; maxlen=65536 ;;
    onnx_convert) seeds=onnx; maxlen=65536 ;;
    onnx_values) seeds=onnx; maxlen=65536 ;;
    api_sequence) seeds=api; maxlen=4096; tmo=120 ;; # pooled 2-thread runs wait on scheduling under load
    jpeg) seeds=jpeg; maxlen=65536 ;;
    *) echo "unknown target $t" >&2; exit 2 ;;
  esac
  maxlen=${YOLORT_FUZZ_MAX_LEN:-$maxlen}
  tmo=${tmo:-20}
  mkdir -p "$FZ/corpus/$t" "$FZ/artifacts/$t"
  log="$FZ/$t.log"
  echo "=== fuzz_$t: ${SECS}s, max_len $maxlen, seeds $FZ/seeds/$seeds"
  set +e
  "$BUILD/tests/fuzz/fuzz_$t" -max_total_time="$SECS" -max_len="$maxlen" -timeout="$tmo" -rss_limit_mb=3072 \
    -malloc_limit_mb=3072 -print_final_stats=1 -artifact_prefix="$FZ/artifacts/$t/" \
    $([[ $JOBS -gt 1 ]] && echo "-fork=$JOBS") "$FZ/corpus/$t" "$FZ/seeds/$seeds" >"$log" 2>&1
  rc=$?
  set -e
  execs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -1)
  cov=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)
  echo "    exit $rc, executions ${execs:-?}, ${cov:-no coverage line}, corpus $(ls "$FZ/corpus/$t" | wc -l) files"
  if [[ $rc -ne 0 ]]; then
    status=1
    grep -E 'ERROR|SUMMARY|runtime error|check failed|Test unit written' "$log" | head -20
  fi
done
exit $status
