#!/usr/bin/env bash
# tests/valgrind.sh [BUILD_DIR] [CTEST_LABEL_REGEX] — run registered tests under valgrind memcheck
# (errors and definite/indirect leaks fail). Default: the Release build in build/ and the fast
# labels (kernels, runtime, reliability, prepost, ir, cpp); the real-model tests run ~50x slower there.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
LABELS=${2:-'kernels|runtime|reliability|prepost|ir|cpp'}
command -v valgrind >/dev/null || { echo "valgrind.sh: valgrind is not installed" >&2; exit 1; }
ctest --test-dir "$BUILD" -L "$LABELS" -N | sed -n 's/^ *Test *#[0-9]*: //p' > "$BUILD/valgrind-tests.txt"
fail=0; n=0
while read -r t; do
  exe=$(find "$BUILD/tests" -type f -executable -name "$t" | head -n 1)
  [[ -n "$exe" ]] || continue
  n=$((n + 1))
  if valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
       "$exe" > "$BUILD/valgrind-$t.log" 2>&1; then
    echo "valgrind ok   $t"
  else
    echo "valgrind FAIL $t (see $BUILD/valgrind-$t.log)"; fail=$((fail + 1))
  fi
done < "$BUILD/valgrind-tests.txt"
echo "valgrind: $((n - fail)) passed, $fail failed"
[[ $fail -eq 0 ]]
