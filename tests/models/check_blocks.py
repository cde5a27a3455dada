#!/usr/bin/python3
"""check_blocks.py BUILD_DIR MODELS_SRC_DIR WORK_DIR — blocks of the Ultralytics model kinds
beyond YOLO11 (issue 15), on small generated models (python onnx + numpy, no data needed):

* average pooling (YOLOv9 ADown / AConv: AveragePool 2x2 stride 1; SE blocks: GlobalAveragePool)
  runs as a depthwise conv of 1/k^2 weights: the float output equals numpy's average pool, an
  int8 (QDQ) pool is an int8 conv within 1 quantization step of the same pool kept in float, and
  a pool the conv cannot compute exactly (padding not counted) is refused naming the node;
* NMS inside the graph (nms=True exports) is refused with "Export with nms=False", exit 1.

Without python onnx / numpy the test skips (exit 77) unless CI=true.
"""
import os
import re
import subprocess
import sys

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError as e:
    if os.environ.get("CI") == "true":
        print("FAIL: CI=true but python3 cannot import onnx / numpy: %s" % e)
        sys.exit(1)
    print("SKIP: python3 cannot import onnx / numpy (%s): apt install python3-onnx python3-numpy" % e)
    sys.exit(77)

BUILD, SRC, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
sys.dont_write_bytecode = True
sys.path.insert(0, SRC)
import ref_forward as rf  # noqa: E402

CONVERT = os.path.join(BUILD, "tools", "yolort-convert")
RUN = os.path.join(BUILD, "tests", "models", "wild_accept")
failures = []


def check(cond, msg):
    print(("ok   " if cond else "FAIL ") + msg)
    if not cond:
        failures.append(msg)


def save(nodes, inits, in_shape, out_name, tag, opset=17):
    g = helper.make_graph(nodes, tag, [helper.make_tensor_value_info("images", TensorProto.FLOAT, in_shape)],
                          [helper.make_tensor_value_info(out_name, TensorProto.FLOAT, None)],
                          [numpy_helper.from_array(v, k) for k, v in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    path = os.path.join(WORK, tag + ".onnx")
    onnx.save(m, path)
    return path


def convert(path, tag, *extra):
    yrt = os.path.join(WORK, tag + ".yrt")
    r = subprocess.run([CONVERT, path, "-o", yrt] + list(extra), capture_output=True, text=True)
    return (yrt if r.returncode == 0 else None), r


def run(yrt, x, tag):
    xin, yout = os.path.join(WORK, tag + ".in.f32"), os.path.join(WORK, tag + ".out.f32")
    x.astype(np.float32).tofile(xin)
    r = subprocess.run([RUN, "run", yrt, xin, yout], capture_output=True, text=True, check=True)
    toks = r.stdout.split()  # classes, task (may be empty), rank, dims
    p = next(i for i in range(len(toks)) if int(toks[i]) == len(toks) - i - 1 and i >= 1)
    dims = [int(v) for v in toks[p + 1:]]
    return np.fromfile(yout, np.float32).reshape(dims)


def yolort(path, x, tag, *extra):
    yrt, r = convert(path, tag, *extra)
    if yrt is None:
        return None, r.stdout + r.stderr
    return run(yrt, x, tag), r.stdout + r.stderr


def ops_count(log, op):
    """(int8, fp32) yrt nodes of kind op in the converter summary."""
    m = re.search(r"^\s+%s\s+(\d+)\s+(\d+)$" % re.escape(op), log, re.M)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def avg_pool(x, k, s, pads, include_pad):
    """ONNX AveragePool (NCHW, floor mode) in float64: each window's sum over the elements it
    counts (the padded ones too when include_pad)."""
    t, l, b, r = pads
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (t, b), (l, r)))
    ones = np.pad(np.ones(x.shape[2:]), ((t, b), (l, r)))
    oh, ow = (xp.shape[2] - k[0]) // s[0] + 1, (xp.shape[3] - k[1]) // s[1] + 1
    y = np.zeros(x.shape[:2] + (oh, ow))
    for i in range(oh):
        for j in range(ow):
            win = (slice(i * s[0], i * s[0] + k[0]), slice(j * s[1], j * s[1] + k[1]))
            cnt = k[0] * k[1] if include_pad else ones[win].sum()
            y[:, :, i, j] = xp[(slice(None), slice(None)) + win].sum(axis=(2, 3)) / cnt
    return y


def pool_node(kind, name, x, y, k=2, s=1, pad=0, include_pad=None):
    if kind == "global":
        return helper.make_node("GlobalAveragePool", [x], [y], name=name)
    attrs = dict(kernel_shape=[k, k], strides=[s, s])
    if pad:
        attrs["pads"] = [pad] * 4
    if include_pad is not None:
        attrs["count_include_pad"] = include_pad
    return helper.make_node("AveragePool", [x], [y], name=name, **attrs)


def qdq(x, y, s, z, tag):
    """Q -> DQ of x into y (int8, scale s, zero point z)."""
    return [helper.make_node("QuantizeLinear", [x, s, z], [tag + "_q"], name=tag + "/Q"),
            helper.make_node("DequantizeLinear", [tag + "_q", s, z], [y], name=tag + "/DQ")]


def quant(v, s, z):
    return (np.clip(np.rint(v / s) + z, -128, 127) - z) * s


os.makedirs(WORK, exist_ok=True)
rng = np.random.default_rng(15)
H, W = 16, 20
x = (rng.random((1, 3, H, W), dtype=np.float32) * 2.0 - 0.5).astype(np.float32)

# ---- average pooling, float: yolort equals numpy's average pool
POOLS = [  # tag, kind, kernel, stride, pad, count_include_pad, (k, s) as numpy sees it
    ("adown", "avg", 2, 1, 0, None),    # YOLOv9 ADown / AConv: avg_pool2d(x, 2, 1, 0, False, True)
    ("padded", "avg", 3, 2, 1, 1),      # padding counted: exactly a conv over the zero-padded input
    ("gap", "global", 0, 0, 0, None),   # SE blocks: GlobalAveragePool (a 16x20 window)
]
for tag, kind, k, s, pad, inc in POOLS:
    path = save([pool_node(kind, "/model.3/" + tag, "images", "output0", k, s, pad, inc)], {}, [1, 3, H, W],
                "output0", "float-" + tag)
    y, log = yolort(path, x, "float-" + tag)
    check(y is not None, "float %s: converts%s" % (tag, "" if y is not None else ": " + log[-300:]))
    if y is None:
        continue
    kk, ss = ((H, W), (1, 1)) if kind == "global" else ((k, k), (s, s))
    ref = avg_pool(x, kk, ss, [pad] * 4, inc == 1)
    err = float(np.abs(y - ref).max()) if y.shape == ref.shape else float("inf")
    check(err <= 1e-6, "float %s: output %s equals numpy's average pool (max |diff| %.2g)" % (tag, list(y.shape), err))
    check("average pools run as depthwise convs (weights 1/k^2): 1" in log, "float %s: the summary says so" % tag)
    check(ops_count(log, "conv2d") == (0, 1), "float %s: one float conv2d %s" % (tag, ops_count(log, "conv2d")))

# a pool whose border windows divide by fewer elements is not a conv: refused naming the node
path = save([pool_node("avg", "/model.5/excl_pad", "images", "output0", 3, 1, 1, 0)], {}, [1, 3, H, W], "output0",
            "float-excl")
_, r = convert(path, "float-excl")
check(r.returncode == 1 and "/model.5/excl_pad" in r.stderr and "AveragePool" in r.stderr,
      "padding not counted: refused naming the node, exit %d: %s" % (r.returncode, r.stderr.strip()[-200:]))

# ---- average pooling, int8 (QDQ): an int8 depthwise conv, within 1 step of the pool kept in float
# the output range covers the input's (an average never leaves it): no clipping, so the int8 pool is
# within half an input step + half an output step (< 1 output step) of the float pool
sx, zx, sy, zy = 2.0 / 255.0, -64, 2.1 / 255.0, -60
qinit = {"sx": np.array(sx, np.float32), "zx": np.array(zx, np.int8),
         "sy": np.array(sy, np.float32), "zy": np.array(zy, np.int8)}
for tag, kind, k, s, pad, inc in POOLS:
    name = "/model.3/" + tag
    nodes = qdq("images", "xd", "sx", "zx", "in") + [pool_node(kind, name, "xd", "p", k, s, pad, inc)] + \
        qdq("p", "output0", "sy", "zy", "out")
    path = save(nodes, qinit, [1, 3, H, W], "output0", "qdq-" + tag)
    y, log = yolort(path, x, "qdq-" + tag)
    check(y is not None, "int8 %s: converts%s" % (tag, "" if y is not None else ": " + log[-300:]))
    if y is None:
        continue
    check(ops_count(log, "conv2d") == (1, 0), "int8 %s: one int8 conv2d %s" % (tag, ops_count(log, "conv2d")))
    kept, klog = yolort(path, x, "qdq-kept-" + tag, "--keep-fp32", name)
    check(kept is not None and ops_count(klog, "conv2d") == (0, 1), "int8 %s: --keep-fp32 keeps it float" % tag)
    if kept is None:
        continue
    d = float(np.abs(y - kept).max()) / sy
    check(d <= 1.0 + 1e-3, "int8 %s: within 1 step of the float pool (max %.3f steps)" % (tag, d))
    kk, ss = ((H, W), (1, 1)) if kind == "global" else ((k, k), (s, s))
    ref = quant(avg_pool(quant(x, sx, zx), kk, ss, [pad] * 4, inc == 1), sy, zy)
    d = float(np.abs(y - ref).max()) / sy
    check(d <= 1.0 + 1e-3, "int8 %s: within 1 step of numpy's quantized pool (max %.3f steps)" % (tag, d))

# ---- NMS inside the graph (Ultralytics nms=True): refused, exit 1, never a crash
w = rng.standard_normal((8, 3, 1, 1)).astype(np.float32)
nodes = [helper.make_node("Conv", ["images", "w"], ["c"], name="/model.0/conv"),
         helper.make_node("Reshape", ["c", "shp"], ["r"], name="/model.23/Reshape"),
         helper.make_node("Transpose", ["r"], ["t"], perm=[0, 2, 1], name="/model.23/Transpose"),
         helper.make_node("Slice", ["t", "b0", "b4", "ax2"], ["boxes"], name="/nms/boxes"),
         helper.make_node("Slice", ["r", "b4", "b8", "ax1"], ["scores"], name="/nms/scores"),
         helper.make_node("NonMaxSuppression", ["boxes", "scores", "maxo", "iou", "conf"], ["output0"],
                          name="/nms/NonMaxSuppression")]
inits = {"w": w, "shp": np.array([1, 8, -1], np.int64), "b0": np.array([0], np.int64),
         "b4": np.array([4], np.int64), "b8": np.array([8], np.int64), "ax1": np.array([1], np.int64),
         "ax2": np.array([2], np.int64), "maxo": np.array([100], np.int64),
         "iou": np.array([0.7], np.float32), "conf": np.array([0.25], np.float32)}
path = save(nodes, inits, [1, 3, H, W], "output0", "nms")
_, r = convert(path, "nms")
check(r.returncode == 1 and "'/nms/NonMaxSuppression'" in r.stderr and "Export with nms=False" in r.stderr,
      "NMS inside the graph: exit %d, %s" % (r.returncode, r.stderr.strip()[-160:]))

if failures:
    print("%d check(s) failed" % len(failures))
    sys.exit(1)
print("all block checks passed")
