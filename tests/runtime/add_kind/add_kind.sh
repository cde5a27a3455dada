#!/bin/sh
# add_kind.sh RUNTIME_DIR — adds the node kind NEGATE (negate.c / negate.h beside this script) to a
# copy of runtime/ the way docs/architecture.md says a kind is added, and touches nothing else:
#   1. include/yolort_format.h  its yrt_op value, before YRT_OP_COUNT_
#   2. src/ops/negate.c, .h      the kind in one room (check, run; state, prepare, release if any)
#   3. src/op_table.c            one row (and the include of its header; the count assert bumped)
# The add-kind test (CMakeLists.txt here) runs it on a scratch copy, lists what differs from the
# original and builds the copy's table into a program that runs the new kind.
set -eu
rt=$1
here=$(cd "$(dirname "$0")" && pwd)
fmt=$rt/include/yolort_format.h
tab=$rt/src/op_table.c
n=$(sed -n 's/^_Static_assert(YRT_OP_COUNT_ == \([0-9][0-9]*\),.*/\1/p' "$tab")
[ -n "$n" ] || { echo "add_kind.sh: no YRT_OP_COUNT_ assert in $tab" >&2; exit 1; }
grep -q '^  YRT_OP_COUNT_$' "$fmt" || { echo "add_kind.sh: no YRT_OP_COUNT_ line in $fmt" >&2; exit 1; }
# 1. the op id
sed -i "s/^  YRT_OP_COUNT_\$/  YRT_OP_NEGATE = $n, \/* y = -x (f32): the add-kind demonstration *\/\n  YRT_OP_COUNT_/" "$fmt"
# 2. the kind's room
cp "$here/negate.c" "$here/negate.h" "$rt/src/ops/"
# 3. the row
sed -i "s/^_Static_assert(YRT_OP_COUNT_ == $n,/_Static_assert(YRT_OP_COUNT_ == $((n + 1)),/" "$tab"
last=$(grep -n '^#include "ops/' "$tab" | tail -1 | cut -d: -f1)
sed -i "${last}a #include \"ops/negate.h\"" "$tab"
awk 'BEGIN { in_table = 0; done = 0 }
     /k_builtin\[YRT_OP_COUNT_\] = \{/ { in_table = 1 }
     in_table && !done && /^};/ {
       print "    [YRT_OP_NEGATE] = {YRT_OP_NAMES(\"negate\"), .min_in = 1, .max_in = 1, .n_out = 1,"
       print "                       .check = yrt_check_negate, .run = yrt_run_negate},"
       done = 1
     }
     { print }
     END { if (!done) exit 1 }' "$tab" > "$tab.new"
mv "$tab.new" "$tab"
