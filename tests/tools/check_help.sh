#!/bin/sh
# check_help.sh BUILD_DIR SOURCE_DIR — one convention in every installed CLI (issue 38 item 7):
# --help prints on stdout, nothing on stderr, exit 0, and names every option the program's
# source compares an argument with (strcmp(a, "--x")); an unknown option exits 2 naming it; an
# option whose value is missing (last on the line) exits 2 naming it; --threads has one default.
set -eu
B=$1; S=$2
W=$(mktemp -d "${TMPDIR:-/tmp}/yolort-help.XXXXXX")
trap 'rm -rf "$W"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
for t in convert quantize detect eval inspect bench; do
  if [ "$t" = bench ]; then exe="$B/bench/yolort-bench"; src="$S/bench/src/bench_opts.c"
  else exe="$B/tools/yolort-$t"; src="$S/tools/cli/yolort-$t.c"; fi
  [ -x "$exe" ] || { fail "$exe not built"; continue; }
  rc=0; "$exe" --help > "$W/out" 2> "$W/err" || rc=$?
  [ $rc -eq 0 ] || fail "yolort-$t --help: exit $rc"
  [ -s "$W/out" ] || fail "yolort-$t --help printed nothing on stdout"
  [ ! -s "$W/err" ] || fail "yolort-$t --help wrote to stderr: $(head -1 "$W/err")"
  opts=$(grep -oE 'strcmp\((a|argv\[i\]), "-{1,2}[a-zA-Z][a-zA-Z0-9-]*"\)' "$src" | grep -oE '"[^"]+"' | tr -d '"' | sort -u)
  [ -n "$opts" ] || fail "no options found in $src (the test's pattern is stale)"
  for o in $opts; do
    grep -qE -- "(^|[^a-zA-Z0-9-])$o([^a-zA-Z0-9-]|\$)" "$W/out" || fail "yolort-$t --help does not name $o"
  done
  rc=0; "$exe" model.x --no-such-option > /dev/null 2> "$W/err" || rc=$?
  [ $rc -eq 2 ] && grep -q -- "--no-such-option" "$W/err" ||
    fail "yolort-$t --no-such-option: exit $rc, $(head -1 "$W/err")"
  rc=0; "$exe" model.x --threads > /dev/null 2> "$W/err" || rc=$?
  if echo "$opts" | grep -qx -- "--threads"; then
    [ $rc -eq 2 ] && grep -q -- "--threads" "$W/err" || fail "yolort-$t with --threads missing its value: exit $rc"
    # one --threads default in every tool (cli_default_threads): the help line says which
    grep -E -- "--threads" "$W/out" | grep -q "default: one per online CPU" ||
      fail "yolort-$t --help: --threads does not give the common default (one per online CPU)"
  fi
  echo "yolort-$t: --help names its $(echo "$opts" | wc -l) options; usage errors exit 2 naming the argument"
done
[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
