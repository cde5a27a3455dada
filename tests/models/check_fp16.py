#!/usr/bin/python3
"""check_fp16.py BUILD_DIR MODELS_SRC_DIR WORK_DIR — float16 / bfloat16 exports (Ultralytics
half=True, onnxconverter's float16 conversion with keep_io_types, bfloat16), on a
models/gen_yolo11.py model (no data needed).

yolort reads float16 and bfloat16 constants as float32 (exactly: every half is a float) and a
Cast to a float type as a Cast to float32, which then does nothing and is dropped. So a half
model must convert, fuse its head, say what it read, and give bit for bit the output of the
FP32 model whose weights are the same half-rounded values; yolort-quantize must take it as input
(its float-out graph is float32 throughout) and produce an int8 model.
"""
import os
import re
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

BUILD, SRC, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
sys.dont_write_bytecode = True
sys.path.insert(0, SRC)
import ref_forward as rf  # noqa: E402

PY = sys.executable
GEN = os.path.join(SRC, "gen_yolo11.py")
CONVERT = os.path.join(BUILD, "tools", "yolort-convert")
QUANT = os.path.join(BUILD, "tools", "yolort-quantize")
IMAGES = os.path.join(BUILD, "tools", "yolort-gen-images")
RUN = os.path.join(BUILD, "tests", "models", "wild_accept")
failures = []


def check(cond, msg):
    print(("ok   " if cond else "FAIL ") + msg)
    if not cond:
        failures.append(msg)


def bf16_round(a):
    """float32 -> nearest-even bfloat16, back as float32 (and the raw 16-bit values)."""
    u = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    s16, one = np.uint64(16), np.uint64(1)
    r = ((u + np.uint64(0x7FFF) + ((u >> s16) & one)) >> s16).astype(np.uint16)
    return (r.astype(np.uint32) << 16).view(np.float32), r


def bf16_tensor(a, name):
    _, r = bf16_round(a)
    t = TensorProto(name=name, data_type=TensorProto.BFLOAT16, dims=list(a.shape))
    t.raw_data = r.tobytes()
    return t


def halve(m, kind, keep_io):
    """Copy of m with every float32 constant in float16 (kind 'fp16') or bfloat16 ('bf16'), Casts
    to float turned to that type, and the graph input/output in it too unless keep_io (then
    Casts at the input and before each output, as onnxconverter's keep_io_types does). Also
    returns the FP32 model with the same rounded weights (the reference)."""
    half = TensorProto.FLOAT16 if kind == "fp16" else TensorProto.BFLOAT16
    h, ref = onnx.ModelProto(), onnx.ModelProto()
    h.CopyFrom(m)
    ref.CopyFrom(m)

    def convert(t):
        a = numpy_helper.to_array(t)
        if kind == "fp16":
            return numpy_helper.from_array(a.astype(np.float16), t.name), numpy_helper.from_array(
                a.astype(np.float16).astype(np.float32), t.name)
        return bf16_tensor(a, t.name), numpy_helper.from_array(bf16_round(a)[0], t.name)

    for hi, ri in zip(h.graph.initializer, ref.graph.initializer):
        if hi.data_type == TensorProto.FLOAT:
            a, b = convert(hi)
            hi.CopyFrom(a)
            ri.CopyFrom(b)
    for hn, rn in zip(h.graph.node, ref.graph.node):
        for ha, ra in zip(hn.attribute, rn.attribute):
            if hn.op_type == "Constant" and ha.name == "value" and ha.t.data_type == TensorProto.FLOAT:
                a, b = convert(ha.t)
                ha.t.CopyFrom(a)
                ra.t.CopyFrom(b)
            if hn.op_type == "Cast" and ha.name == "to" and ha.i == TensorProto.FLOAT:
                ha.i = half
    del h.graph.value_info[:]
    g = h.graph
    if not keep_io:
        for v in list(g.input) + list(g.output):
            v.type.tensor_type.elem_type = half
        return h, ref
    # keep_io_types: float32 at the borders, Casts inside
    inp = g.input[0].name
    for n in g.node:
        n.input[:] = [inp + "_half" if x == inp else x for x in n.input]
    casts = [helper.make_node("Cast", [inp], [inp + "_half"], to=half, name="graph_input_cast")]
    for o in g.output:
        for n in g.node:
            n.output[:] = [o.name + "_half" if x == o.name else x for x in n.output]
        casts.append(helper.make_node("Cast", [o.name + "_half"], [o.name], to=TensorProto.FLOAT,
                                      name="graph_output_cast_" + o.name))
    nodes = [casts[0]] + list(g.node) + casts[1:]
    del g.node[:]
    g.node.extend(nodes)
    return h, ref


def yolort_output(path, x, tag):
    yrt = os.path.join(WORK, tag + ".yrt")
    conv = subprocess.run([CONVERT, path, "-o", yrt], capture_output=True, text=True)
    if conv.returncode:
        return None, conv.stdout + conv.stderr
    xin, yout = os.path.join(WORK, tag + ".in.f32"), os.path.join(WORK, tag + ".out.f32")
    x.astype(np.float32).tofile(xin)
    r = subprocess.run([RUN, "run", yrt, xin, yout], capture_output=True, text=True, check=True)
    dims = [int(v) for v in r.stdout.split()[3:]]
    return np.fromfile(yout, np.float32).reshape(dims), conv.stdout


os.makedirs(WORK, exist_ok=True)
src = os.path.join(WORK, "fp32.onnx")
subprocess.run([PY, GEN, "--scale", "n", "--size", "160", "--nc", "3", "--seed", "4", "--no-bn", "--out", src],
               check=True, stdout=subprocess.DEVNULL)
m = onnx.load(src)
x = rf.synthetic_scene(160, 7)
for kind, keep_io in (("fp16", False), ("fp16", True), ("bf16", False)):
    tag = kind + ("-keep-io" if keep_io else "")
    h, ref = halve(m, kind, keep_io)
    hp, rp = os.path.join(WORK, tag + ".onnx"), os.path.join(WORK, tag + ".ref.onnx")
    onnx.save(h, hp)
    onnx.save(ref, rp)
    y, log = yolort_output(hp, x, tag)
    check(y is not None, "%s: converts%s" % (tag, "" if y is not None else ": " + log[-300:]))
    if y is None:
        continue
    check("detect head: fused" in log, "%s: head fused" % tag)
    check(re.search(r"float16 export: \d+ constants widened", log) is not None, "%s: the summary says so" % tag)
    r, _ = yolort_output(rp, x, tag + ".ref")
    check(r is not None and y.shape == r.shape and np.array_equal(y.view(np.uint32), r.view(np.uint32)),
          "%s: output bit for bit that of the FP32 model with the same rounded weights" % tag)

# yolort-quantize takes a half model: its float graph is float32 (no float16 left), it calibrates
subprocess.run([IMAGES, os.path.join(WORK, "images"), "-n", "2", "--seed", "3"], check=True, capture_output=True)
hp = os.path.join(WORK, "fp16-keep-io.onnx")
fl, qdq, yrt = (os.path.join(WORK, "q" + s) for s in (".float.onnx", ".qdq.onnx", ".yrt"))
q = subprocess.run([QUANT, hp, os.path.join(WORK, "images"), "-o", qdq, "--yrt", yrt, "--float-out", fl, "-n", "2", "-q"],
                   capture_output=True, text=True)
line = next((ln for ln in q.stderr.splitlines() if "input:" in ln), "")
print("  " + line)
check(q.returncode == 0 and os.path.exists(yrt), "yolort-quantize on a float16 model succeeds" +
      ("" if q.returncode == 0 else ": " + q.stderr[-300:]))
check(re.search(r"input: float16, \d+ float16 constants widened", line) is not None, "yolort-quantize says float16")
if os.path.exists(fl):
    f = onnx.load(fl)
    types = {t.data_type for t in f.graph.initializer} | {
        a.i for n in f.graph.node for a in n.attribute if n.op_type == "Cast" and a.name == "to"}
    check(TensorProto.FLOAT16 not in types, "its --float-out graph has no float16 left")
    fo = subprocess.run([CONVERT, fl, "-o", os.path.join(WORK, "float-out.yrt")], capture_output=True, text=True)
    check(fo.returncode == 0, "the --float-out graph converts")

if failures:
    print("%d check(s) failed" % len(failures))
    sys.exit(1)
print("all float16 checks passed")
