#!/bin/sh
# check_gen_images.sh GEN_EXE WORK_DIR — yolort-gen-images writes N valid JPEGs,
# deterministically, and rejects bad arguments.
set -u
GEN=$1
WORK=$2
rm -rf "$WORK"
fail() { echo "FAIL $*"; exit 1; }
"$GEN" "$WORK/a" -n 5 --seed 3 || fail "first run"
"$GEN" "$WORK/b" -n 5 --seed 3 || fail "second run"
"$GEN" "$WORK/c" -n 5 --seed 4 || fail "other seed"
n=$(ls "$WORK/a" | wc -l)
[ "$n" -eq 5 ] || fail "expected 5 files, got $n"
for f in "$WORK"/a/*.jpg; do
  base=$(basename "$f")
  cmp -s "$f" "$WORK/b/$base" || fail "$base differs between identical runs"
  magic=$(od -An -tx1 -N3 "$f" | tr -d ' \n')
  [ "$magic" = "ffd8ff" ] || fail "$base is not a JPEG ($magic)"
done
cmp -s "$WORK/a/synth_0000.jpg" "$WORK/c/synth_0000.jpg" && fail "seed does not change the images"
"$GEN" "$WORK/d" -n 0 2>/dev/null && fail "accepted -n 0"
"$GEN" 2>/dev/null && fail "accepted a missing OUT_DIR"
"$GEN" /proc/yolort-no-such-dir 2>/dev/null && fail "accepted an uncreatable OUT_DIR"
rm -rf "$WORK"
echo "ok: yolort-gen-images"
