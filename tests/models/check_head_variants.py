#!/usr/bin/python3
"""check_head_variants.py BUILD_DIR MODELS_SRC_DIR WORK_DIR — Detect heads of every export style,
input shape and class count (issue 15), on models/gen_yolo11.py models (no data needed):

For each variant (rectangular inputs, nc 1 / 3 / 14, Ultralytics 8.4 Slice-style and 8.3
Split-style heads), the generated ONNX (BN folded, as exported):
1. output0 is [1, 4 + nc, N] with N from the H x W grids, and equals models/ref_forward.py's
   float forward (the generator's reference);
2. yolort-convert fuses its head ("detect head: fused", by numeric verification), records the
   class count, and yolort's float output0 equals the reference (boxes within 0.05 px of the
   input scale, scores within 1e-3);
3. an end-to-end head (--end2end K: Ultralytics' TopK postprocess, output [1, K, 6]) fuses into
   one DETECT_TOPK node and yolort's rows equal the reference's;
4. a hostile variant (the x/y anchor rows swapped in the ONNX: looks like the head, computes
   something else) converts unfused, and yolort still equals that model's own reference.
"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import numpy_helper

BUILD, SRC, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
sys.dont_write_bytecode = True
sys.path.insert(0, SRC)
import ref_forward as rf  # noqa: E402

PY = sys.executable
GEN = os.path.join(SRC, "gen_yolo11.py")
CONVERT = os.path.join(BUILD, "tools", "yolort-convert")
RUN = os.path.join(BUILD, "tests", "models", "wild_accept")
VARIANTS = [("128x224", 1, "split"), ("224x128", 3, "slice"), ("160", 14, "split")]
failures = []


def check(cond, msg):
    print(("ok   " if cond else "FAIL ") + msg)
    if not cond:
        failures.append(msg)


def yolort_output(onnx_path, x, tag):
    yrt = os.path.join(WORK, tag + ".yrt")
    conv = subprocess.run([CONVERT, onnx_path, "-o", yrt], capture_output=True, text=True)
    if conv.returncode:
        return None, conv.stdout + conv.stderr, None
    xin, yout = os.path.join(WORK, tag + ".in.f32"), os.path.join(WORK, tag + ".out.f32")
    x.astype(np.float32).tofile(xin)
    r = subprocess.run([RUN, "run", yrt, xin, yout], capture_output=True, text=True, check=True)
    info = r.stdout.split()
    dims = [int(v) for v in info[3:]]
    return np.fromfile(yout, np.float32).reshape(dims), conv.stdout, int(info[0])


def compare(y, ref, size):
    box = float(np.abs(y[0, :4] - ref[0, :4]).max())
    score = float(np.abs(y[0, 4:] - ref[0, 4:]).max())
    return box, score


os.makedirs(WORK, exist_ok=True)
for size, nc, head in VARIANTS:
    tag = "%s-nc%d-%s" % (size, nc, head)
    path = os.path.join(WORK, tag + ".onnx")
    subprocess.run([PY, GEN, "--scale", "n", "--size", size, "--nc", str(nc), "--head", head, "--seed", "3",
                    "--no-bn", "--out", path], check=True, stdout=subprocess.DEVNULL)
    m = onnx.load(path)
    hw = [int(v) for v in size.split("x")] * (1 if "x" in size else 2)
    n = sum((hw[0] // s) * (hw[1] // s) for s in (8, 16, 32))
    dims = [d.dim_value for d in m.graph.output[0].type.tensor_type.shape.dim]
    check(dims == [1, 4 + nc, n], "%s: output0 %s = [1, %d, %d]" % (tag, dims, 4 + nc, n))
    x = rf.synthetic_scene(max(hw), 7)[:, :, :hw[0], :hw[1]].copy()
    _, params = rf.load(path)
    ref = rf.run(m.graph.node, {"images": x}, params)["output0"]
    check(ref.shape == (1, 4 + nc, n) and np.isfinite(ref).all(), "%s: reference forward finite" % tag)
    y, log, ncls = yolort_output(path, x, tag)
    check(y is not None and "detect head: fused" in log, "%s: head fused (%s)" % (
        tag, [l for l in log.splitlines() if "detect head" in l or "FAIL" in l or "yolort-convert" in l][:1]))
    if y is None:
        continue
    check(ncls == nc, "%s: .yrt records %d classes" % (tag, ncls))
    box, score = compare(y, ref, max(hw))
    check(box < 0.05 and score < 1e-3, "%s: yolort = reference (boxes %.3g px, scores %.3g)" % (tag, box, score))

# End-to-end (NMS-free) head: the generator's --end2end K appends Ultralytics' TopK postprocess;
# yolort fuses it into one DETECT_TOPK node and its [1, K, 6] rows equal the reference's (a row
# whose score is within 1e-3 of the K-th may be swapped with one just outside).
tag, K = "e2e-160-nc3", 50
path = os.path.join(WORK, tag + ".onnx")
subprocess.run([PY, GEN, "--scale", "n", "--size", "160", "--nc", "3", "--end2end", str(K), "--seed", "3",
                "--no-bn", "--out", path], check=True, stdout=subprocess.DEVNULL)
m = onnx.load(path)
dims = [d.dim_value for d in m.graph.output[0].type.tensor_type.shape.dim]
check(dims == [1, K, 6], "%s: output0 %s = [1, %d, 6]" % (tag, dims, K))
x = rf.synthetic_scene(160, 7)
_, params = rf.load(path)
ref = rf.run(m.graph.node, {"images": x}, params)["output0"]
y, log, ncls = yolort_output(path, x, tag)
check(y is not None and "end-to-end head: fused" in log and "detect head: fused" in log,
      "%s: end-to-end head and the decode before it fused (%s)" % (
          tag, [l for l in log.splitlines() if "head" in l or "yolort-convert" in l][:2]))
if y is not None:
    check(ncls == 3, "%s: .yrt records %d classes" % (tag, ncls))
    yr, rr = y.reshape(K, 6), ref.reshape(K, 6)
    score = float(np.abs(np.sort(yr[:, 4]) - np.sort(rr[:, 4])).max())
    missing = 0
    for r in rr:
        if r[4] - rr[-1, 4] < 1e-3:
            continue
        hit = (yr[:, 5] == r[5]) & (np.abs(yr[:, :4] - r[:4]).max(axis=1) < 0.05) & (np.abs(yr[:, 4] - r[4]) < 1e-3)
        missing += not hit.any()
    check(score < 1e-3 and missing == 0,
          "%s: yolort = reference (sorted scores within %.3g, %d rows unmatched)" % (tag, score, missing))

# Hostile: the same graph with the anchors' x and y rows swapped (square grids would hide it,
# so a rectangular input): it is not a standard decode and must stay unfused, and correct.
size, nc, head = VARIANTS[0]
tag = "hostile"
src = os.path.join(WORK, "%s-nc%d-%s.onnx" % (size, nc, head))
m = onnx.load(src)
for init in m.graph.initializer:
    a = numpy_helper.to_array(init)
    if a.ndim == 3 and a.shape[:2] == (1, 2) and init.name.endswith("_output_0") and a.shape[2] > 100:
        init.CopyFrom(numpy_helper.from_array(np.ascontiguousarray(a[:, ::-1]), init.name))
path = os.path.join(WORK, "hostile.onnx")
onnx.save(m, path)
hw = [int(v) for v in size.split("x")]
x = rf.synthetic_scene(max(hw), 7)[:, :, :hw[0], :hw[1]].copy()
_, params = rf.load(path)
ref = rf.run(m.graph.node, {"images": x}, params)["output0"]
y, log, _ = yolort_output(path, x, tag)
check(y is not None and "detect head: fused" not in log and "computes something else" in log,
      "hostile head stays unfused (%s)" % [l for l in log.splitlines() if "detect head" in l][:1])
if y is not None:
    box, score = compare(y, ref, max(hw))
    check(box < 0.05 and score < 1e-3, "hostile: yolort = its reference (boxes %.3g px, scores %.3g)" % (box, score))

if failures:
    print("%d check(s) failed" % len(failures))
    sys.exit(1)
print("all checks passed")
