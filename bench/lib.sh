# bench/lib.sh — sourced by the bench/run_*.sh scripts (after they set `repo`): where the shared
# data and the build are, and where the runners' JSON is kept.
#   bench_paths NAME   sets data (YOLORT_DATA, default <repo>/../shared), build (BUILD, default
#                      <repo>/build) and out (OUT, default a temp dir removed on exit); log()
#                      then prefixes NAME.

bench_paths() {
  bench_name="$1"
  data="${YOLORT_DATA:-$repo/../shared}"
  build="${BUILD:-$repo/build}"
  out="${OUT:-}"
  if [[ -z "$out" ]]; then
    out="$(mktemp -d)"
    trap 'rm -rf "$out"' EXIT
  fi
  mkdir -p "$out"
}

log() { echo "$bench_name: $*" >&2; }
