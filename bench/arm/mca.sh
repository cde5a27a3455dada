#!/usr/bin/env bash
# mca.sh — ARM conv throughput on paper (no board here): compiles our AArch64 int8 conv kernels
# (kernels/conv/qconv_nhwc_neondot.c, SDOT; qconv_nhwc_neon.c, SMULL/SMLAL/SADALP) with the cross
# gcc the ARM build uses, cuts the innermost K loop of each register tile out of the assembly, and
# asks llvm-mca how many cycles one iteration takes on each core model. Prints MACs per cycle and
# the GMAC/s per core at the clock given.
#   bench/arm/mca.sh [CPU=GHZ ...]      default: neoverse-n1=2.4 cortex-a55=2.0
# Cortex-A76 (Raspberry Pi 5, 2.4 GHz): LLVM has no A76 model of its own (-mcpu=cortex-a76 falls
# back to the Cortex-A57 model); Neoverse N1 is the A76's server twin (same core), LLVM >= 17
# models it, so the newest llvm-mca found is used (Debian bookworm: llvm-19).
# Needs: gcc-aarch64-linux-gnu, llvm (llvm-mca), python3.
set -euo pipefail
cd "$(dirname "$0")/../.."
cpus=("$@")
[[ ${#cpus[@]} -gt 0 ]] || cpus=(neoverse-n1=2.4 cortex-a55=2.0)
mca=""
for c in llvm-mca-19 llvm-mca-18 llvm-mca-17 llvm-mca; do
  command -v "$c" >/dev/null && { mca=$c; break; }
done
[[ -n "$mca" ]] || { echo "mca.sh: no llvm-mca (apt-get install llvm-19)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=(-std=c11 -O2 -DYK_ARCH_AARCH64=1 -Ikernels/include -Ikernels -Ikernels/conv)
aarch64-linux-gnu-gcc "${flags[@]}" -march=armv8.2-a+dotprod -S kernels/conv/qconv_nhwc_neondot.c -o "$work/dot.s"
aarch64-linux-gnu-gcc "${flags[@]}" -S kernels/conv/qconv_nhwc_neon.c -o "$work/neon.s"

# loop FILE.s FUNC MNEMONIC [WITHOUT]: the shortest backward-branch loop of FUNC that holds the
# most MNEMONIC (and no WITHOUT)
loop() {
  python3 - "$@" <<'EOF'
import re, sys
src = open(sys.argv[1]).read().split('\n'); fn, mn = sys.argv[2], sys.argv[3]
without = sys.argv[4] if len(sys.argv) > 4 else None
i = src.index(fn + ':'); j = i + 1
while j < len(src) and not src[j].startswith('\t.size'): j += 1
body = src[i:j]
labels = {m.group(1): k for k, l in enumerate(body) if (m := re.match(r'^(\.L\w+):', l))}
best = None
for k, l in enumerate(body):
    m = re.match(r'^\s+(?:b\.?(?:eq|ne|gt|ge|lt|le|hi|hs|lo|ls|mi|pl|cc|cs)|b|cbnz|cbz|tbnz)\s+(?:\w+,\s*)?(?:#\d+,\s*)?(\.L\w+)', l)
    if m and m.group(1) in labels and labels[m.group(1)] < k:
        seg = body[labels[m.group(1)] + 1:k + 1]; n = sum(mn in s for s in seg)
        if without and any(without in s for s in seg): continue
        if n and (best is None or (n >= best[0] and len(seg) < len(best[1]))): best = (n, seg)
if best is None: sys.exit(f'no {mn} loop in {fn}')
print('\n'.join(s for s in best[1] if not s.strip().startswith('.')))
EOF
}

# The floors: pure loops of independent chains, no loads (what cpu_peak runs on a board), in the
# order an in-order core needs (all products, then the accumulations). 8 chains of 8 int16 lanes.
python3 - "$work" <<'EOF'
import sys
w = sys.argv[1]
mul = lambda op, i, a, b: f"{op}{'2' if i % 2 else ''}\tv{16 + i}.8h, v{a}.{'16b' if i % 2 else '8b'}, v{b}.{'16b' if i % 2 else '8b'}"
smull = [mul('smull', i, 0, 1) for i in range(8)]
smlal = [mul('smlal', i, 2, 3) for i in range(8)]
sadalp = [f"sadalp\tv{4 + i}.4s, v{16 + i}.8h" for i in range(8)]
sdot = [f"sdot\tv{4 + i}.4s, v0.16b, v1.4b[{i % 4}]" for i in range(12)]
for name, body in (('floor_pair', smull + smlal + sadalp), ('floor_single', smull + sadalp),
                   ('floor_sdot', sdot)):
    open(f"{w}/{name}.s", 'w').write('\n'.join(body) + '\n')
EOF

echo "llvm-mca: $($mca --version | sed -n 's/.*LLVM version \([0-9.]*\).*/\1/p' | head -1); MACs per loop iteration: MR x NZ x 4 channels x K bytes"
printf '%-34s %6s' "kernel (file: tile, K per iteration)" "MACs"
for c in "${cpus[@]}"; do printf ' | %-11s cyc  MAC/c GMAC/s' "${c%%=*}"; done
echo
# name  file  function  mnemonic  MACs per iteration (MR * NZ * 4 channels * K bytes)  [without]
# (file "floor": function names the pure loop written above)
while read -r name file fn mn macs without; do
  if [[ $file == floor ]]; then cp "$work/$fn.s" "$work/$name.s"
  else loop "$work/$file.s" "$fn" "$mn" $without > "$work/$name.s"; fi
  printf '%-34s %6d' "$name" "$macs"
  for c in "${cpus[@]}"; do
    cyc=$("$mca" -mtriple=aarch64-linux-gnu -mcpu="${c%%=*}" -mattr=+dotprod -iterations=500 "$work/$name.s" |
      awk '/^Total Cycles:/ { printf "%.2f", $3 / 500 }')
    awk -v cy="$cyc" -v m="$macs" -v g="${c#*=}" -v n="${c%%=*}" \
      'BEGIN { printf " | %-11s %5.1f %5.1f %6.1f", "", cy, m / cy, m / cy * g }'
  done
  echo
done <<'EOF'
sdot:4x4(neondot,K8) dot block_4x4 sdot 512
sdot:6x3(neondot,K8) dot block_6x3 sdot 576
sdot:8x2(neondot,K8) dot block_8x2 sdot 512
smlal-pair:4x2(neon,K8) neon block_4x2 smlal 256
smlal-pair:8x1(neon,K8) neon block_8x1 smlal 256
smull-single:4x2(neon,K8) neon block_4x2 smull 256 smlal
floor:smull+smlal+sadalp floor floor_pair - 128
floor:smull+sadalp floor floor_single - 64
floor:sdot(ARMv8.2) floor floor_sdot - 192
EOF
