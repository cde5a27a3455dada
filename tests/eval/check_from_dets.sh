#!/bin/sh
# check_from_dets.sh YOLORT_EVAL WORK_DIR — yolort-eval --from-dets / --compare-dets on hand-made
# --dets files (no model, no data): a pooled pair of files evaluated as one, B - A and the paired
# bootstrap, and every misuse refused with a message and a non-zero exit.
set -eu
E=$1; W=$2
rm -rf "$W" && mkdir -p "$W"
fail() { echo "FAIL: $*"; exit 1; }
# side A: a perfect detection on image a, a miss on image b (split over two files)
printf 'I a 100 100\nG a 0 10 10 50 50\nD a 0 0.9 10 10 50 50\n' > "$W/a1.dets"
printf 'I b 100 100\nG b 0 20 20 60 60\nD b 0 0.8 70 70 90 90\n' > "$W/a2.dets"
# side B: both found
printf 'I a 100 100\nG a 0 10 10 50 50\nD a 0 0.9 10 10 50 50\nI b 100 100\nG b 0 20 20 60 60\nD b 0 0.8 20 20 60 60\n' > "$W/b.dets"
"$E" --from-dets "$W/a1.dets" --from-dets "$W/a2.dets" --compare-dets "$W/b.dets" --bootstrap 50 > "$W/out.txt" ||
  { cat "$W/out.txt"; fail "--from-dets exited non-zero"; }
cat "$W/out.txt"
# A: one of two found, the first in score order: precision 1 up to recall 0.5, 51 of the 101
# recall points, AP 0.505 at every threshold; B: 1
grep -Eq '^A \(2 files\) +0\.5050 +0\.5050 +2$' "$W/out.txt" || fail "side A is not mAP 0.505 over 2 images"
grep -Eq '^B \(1 file\) +1\.0000 +1\.0000 +2$' "$W/out.txt" || fail "side B is not mAP 1 over 2 images"
grep -Eq '^difference \(B - A\)  +\+0\.4950 +\+0\.4950$' "$W/out.txt" || fail "no difference line"
grep -q "^paired bootstrap over images (50 resamples of 2 images" "$W/out.txt" || fail "no bootstrap"
refused() { # expected-exit message args...
  want=$1; msg=$2; shift 2
  if "$E" "$@" > "$W/r.out" 2> "$W/r.err"; then fail "accepted: $*"; else rc=$?; fi
  [ "$rc" = "$want" ] || fail "exit $rc (want $want): $*"
  grep -q -- "$msg" "$W/r.err" || { cat "$W/r.err"; fail "no '$msg' for: $*"; }
}
refused 1 "not paired: 2 images against 1" --from-dets "$W/a1.dets" --from-dets "$W/a2.dets" --compare-dets "$W/a1.dets"
refused 1 "not paired: image 1 is b on one side, a on the other" --from-dets "$W/a2.dets" --compare-dets "$W/a1.dets"
refused 2 "give --compare-dets" --from-dets "$W/a1.dets" --bootstrap 10
refused 2 "unexpected argument 'model.yrt'" --from-dets "$W/a1.dets" model.yrt
refused 2 "--bootstrap" --from-dets "$W/a1.dets" --compare-dets "$W/a1.dets" --bootstrap x
refused 1 "no-such.dets" --from-dets "$W/no-such.dets"
printf 'I a 100 100\nG a 0 10 10 50\n' > "$W/bad.dets"
refused 1 "bad.dets:2: expected G" --from-dets "$W/bad.dets"
: > "$W/empty.dets"
refused 1 "no image in" --from-dets "$W/empty.dets"
echo "yolort-eval --from-dets OK"
