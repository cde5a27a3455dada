#!/usr/bin/python3
"""check_blocks.py BUILD_DIR MODELS_SRC_DIR WORK_DIR — blocks of the Ultralytics model kinds
beyond YOLO11 (issue 15), on small generated models (python onnx + numpy, no data needed):

* average pooling (YOLOv9 ADown / AConv: AveragePool 2x2 stride 1; SE blocks: GlobalAveragePool)
  runs as a depthwise conv of 1/k^2 weights: the float output equals numpy's average pool, an
  int8 (QDQ) pool is an int8 conv within 1 quantization step of the same pool kept in float, and
  a pool the conv cannot compute exactly (padding not counted) is refused naming the node;
* attention that flattens (YOLO12 A2C2f / AAttn): float equals numpy; in QDQ only the token part
  (MatMul / Softmax and the reshapes around them) is float, the convs and Adds after it int8,
  and the output correlates > 0.95 with float;
* a binary op with a float scalar constant between QDQ pairs (the attention's Mul by
  1/sqrt(key_dim)) is one int8 LUT node whose output equals, bit for bit, the same graph with
  that node kept in float (dequantize, float op, quantize);
* a Softmax over the last axis between QDQ pairs (C2PSA attention) is one int8 SOFTMAX node,
  equal bit for bit to the float chain (dequantize, softmax, QLinearSoftmax factor, quantize);
* DQ -> MatMul -> Q with per-tensor int8 operands (C2PSA attention) is one int8 MATMUL node whose
  output equals onnxruntime's QLinearMatMul (computed in numpy) bit for bit, within one step of
  the float chain;
* a C3k2 block quantized onnxruntime's way (every Split half and Concat input with its own range):
  the converter ties them to the Concat's range (qdq_tie.c) and the whole block runs with no copy
  (views: conv output, Split half, residual Add in the Concat's buffer), bit for bit what the same
  ties give with every view copied (--no-views), and within a step or so of the untied chain;
* the neck's upsample, Resize -> Concat on onnxruntime's separate QDQ grids (and on one grid): the
  resize writes its channels of the Concat's buffer, the two requantizations (resize output,
  Concat input) one table inside it, bit for bit what the copied chain (--no-views) computes;
* NMS inside the graph over rows that are not a recognised head is refused with "Export with
  nms=False", exit 1 (an Ultralytics nms=True export is cut back to its head: test_detect_fuse).

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


def save(nodes, inits, in_shape, out_name, tag, opset=17, ms=False):
    g = helper.make_graph(nodes, tag, [helper.make_tensor_value_info("images", TensorProto.FLOAT, in_shape)],
                          [helper.make_tensor_value_info(out_name, TensorProto.FLOAT, None)],
                          [numpy_helper.from_array(v, k) for k, v in inits.items()])
    ops = [helper.make_opsetid("", opset)] + ([helper.make_opsetid("com.microsoft", 1)] if ms else [])
    m = helper.make_model(g, opset_imports=ops)
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
    if kind == "global":
        continue
    # onnxruntime's QOperator layout: QLinearAveragePool (com.microsoft) runs as the QDQ pool does
    qop = helper.make_node("QLinearAveragePool", ["xq", "sx", "zx", "sy", "zy"], ["yq"], name=name, domain="com.microsoft",
                           kernel_shape=[k, k], strides=[s, s], pads=[pad] * 4, count_include_pad=inc or 0)
    nodes = [helper.make_node("QuantizeLinear", ["images", "sx", "zx"], ["xq"], name="in/Q"), qop,
             helper.make_node("DequantizeLinear", ["yq", "sy", "zy"], ["output0"], name="out/DQ")]
    y2, log = yolort(save(nodes, qinit, [1, 3, H, W], "output0", "qop-" + tag, ms=True), x, "qop-" + tag)
    check(y2 is not None and np.array_equal(y2, y) and ops_count(log, "conv2d") == (1, 0),
          "int8 %s: QLinearAveragePool gives the QDQ pool's output bit for bit%s"
          % (tag, "" if y2 is not None else ": " + log[-300:]))

# ---- attention that flattens (YOLO12 A2C2f / AAttn with area 2): conv -> qkv conv -> tokens ->
# q k v MatMul Softmax -> back to NCHW -> pe conv + Add -> proj conv, residual Add, mlp conv.
# The float region the flatten starts ends where the tensor is [1, C, H, W] again, so in int8
# only the token part is float.
AH, AW, C, NH, AREA = 16, 12, 32, 2, 2
HD, N = C // NH, AH * AW


def attention_model(quant, tag):
    """The block as ONNX nodes; quant: QDQ with int8 per-channel weights and Q/DQ on every NCHW
    activation (scales from the float run), the token part float. Returns (path, params)."""
    r = np.random.default_rng(12)
    convs = {  # name: (input, output, cout, cin/group, k, group)
        "/model.0/conv": ("images", "a", C, 3, 3, 1),
        "/model.6/attn/qkv/conv": ("a", "qkv", 3 * C, C, 1, 1),
        "/model.6/attn/pe/conv": ("v_img", "pe", C, 1, 3, C),
        "/model.6/attn/proj/conv": ("xpe", "proj", C, C, 1, 1),
        "/model.6/mlp/conv": ("res", "output0", C, C, 1, 1),
    }
    w = {n: (r.standard_normal((co, ci, k, k)) / np.sqrt(ci * k * k)).astype(np.float32)
         for n, (_, _, co, ci, k, _) in convs.items()}
    i64 = lambda *v: np.array(v, np.int64)  # noqa: E731
    params = {"s_tok": i64(1, 3 * C, N), "s_area": i64(AREA, N // AREA, 3 * C),
              "s_heads": i64(AREA, N // AREA, NH, 3 * HD), "split": i64(HD, HD, HD),
              "s_back": i64(1, N, C), "s_img": i64(1, AH, AW, C), "scale": np.array(HD ** -0.5, np.float32)}
    T = "/model.6/attn/tok/"  # the token part: the nodes that may run in float

    def conv(n):
        x, y, _, _, k, grp = convs[n]
        return helper.make_node("Conv", [x, n + ".w"], [y], name=n, kernel_shape=[k, k],
                                pads=[k // 2] * 4, group=grp)
    nodes = [conv("/model.0/conv"), conv("/model.6/attn/qkv/conv"),
             helper.make_node("Reshape", ["qkv", "s_tok"], ["t0"], name=T + "Flatten"),
             helper.make_node("Transpose", ["t0"], ["t1"], perm=[0, 2, 1], name=T + "Transpose"),
             helper.make_node("Reshape", ["t1", "s_area"], ["t2"], name=T + "Reshape_area"),
             helper.make_node("Reshape", ["t2", "s_heads"], ["t3"], name=T + "Reshape_heads"),
             helper.make_node("Transpose", ["t3"], ["t4"], perm=[0, 2, 3, 1], name=T + "Transpose_1"),
             helper.make_node("Split", ["t4", "split"], ["q", "k", "v"], axis=2, name=T + "Split"),
             helper.make_node("Transpose", ["q"], ["qt"], perm=[0, 1, 3, 2], name=T + "Transpose_q"),
             helper.make_node("MatMul", ["qt", "k"], ["qk"], name=T + "MatMul"),
             helper.make_node("Mul", ["qk", "scale"], ["qks"], name=T + "Mul"),
             helper.make_node("Softmax", ["qks"], ["attn"], axis=-1, name=T + "Softmax"),
             helper.make_node("Transpose", ["attn"], ["attn_t"], perm=[0, 1, 3, 2], name=T + "Transpose_a"),
             helper.make_node("MatMul", ["v", "attn_t"], ["xv"], name=T + "MatMul_1")]
    for src, dst in (("xv", "x"), ("v", "v")):  # both back to [1, C, H, W]
        nodes += [helper.make_node("Transpose", [src], [dst + "_p"], perm=[0, 3, 1, 2], name=T + "Transpose_" + dst),
                  helper.make_node("Reshape", [dst + "_p", "s_back"], [dst + "_b"], name=T + "Reshape_b" + dst),
                  helper.make_node("Reshape", [dst + "_b", "s_img"], [dst + "_hwc"], name=T + "Reshape_i" + dst),
                  helper.make_node("Transpose", [dst + "_hwc"], [dst + "_img"], perm=[0, 3, 1, 2],
                                   name=T + "Transpose_i" + dst)]
    nodes += [conv("/model.6/attn/pe/conv"),
              helper.make_node("Add", ["x_img", "pe"], ["xpe"], name="/model.6/attn/Add"),
              conv("/model.6/attn/proj/conv"),
              helper.make_node("Add", ["a", "proj"], ["res"], name="/model.6/Add"),
              conv("/model.6/mlp/conv")]
    params.update({n + ".w": v for n, v in w.items()})
    if not quant:
        return save(nodes, params, [1, 3, AH, AW], "output0", tag), params
    # QDQ: ranges from the float run; every NCHW activation gets a Q/DQ pair, weights int8
    vals = rf.run(nodes, {"images": xa}, params)
    acts = ["images", "a", "qkv", "x_img", "v_img", "pe", "xpe", "proj", "res", "output0"]
    qnodes, qparams = [], {}
    for t in acts:
        qparams[t + ".s"] = np.array(np.abs(vals[t]).max() / 127.0, np.float32)
        qparams[t + ".z"] = np.array(0, np.int8)
    rename = {t: t + "_f" for t in acts}  # producers write t_f; Q/DQ gives the readers t
    qnodes += qdq("images", "images_dq", "images.s", "images.z", "/q/images")
    body = []  # each producer followed by its output's Q/DQ (topological order)
    for n in nodes:
        n.input[:] = ["images_dq" if i == "images" else i for i in n.input]
        outs = [o for o in n.output if o in rename]
        n.output[:] = [rename.get(o, o) for o in n.output]
        body.append(n)
        for t in outs:
            body += qdq(t + "_f", t, t + ".s", t + ".z", "/q/" + t)
    for name in w:
        wt = w[name]
        ws = (np.abs(wt).reshape(wt.shape[0], -1).max(axis=1) / 127.0).astype(np.float32)
        qparams[name + ".wq"] = np.clip(np.rint(wt / ws[:, None, None, None]), -127, 127).astype(np.int8)
        qparams[name + ".ws"] = ws
        qparams[name + ".wz"] = np.zeros(wt.shape[0], np.int8)
        qnodes.append(helper.make_node("DequantizeLinear", [name + ".wq", name + ".ws", name + ".wz"], [name + ".w"],
                                       axis=0, name=name + "/w/DQ"))
        del params[name + ".w"]
    params.update(qparams)
    return save(qnodes + body, params, [1, 3, AH, AW], "output0", tag), params


xa = (rng.random((1, 3, AH, AW), dtype=np.float32) * 2.0 - 0.5).astype(np.float32)
fpath, fparams = attention_model(False, "attn-float")
ref = rf.run(onnx.load(fpath).graph.node, {"images": xa}, fparams)["output0"]
y, log = yolort(fpath, xa, "attn-float")
check(y is not None, "attention float: converts%s" % ("" if y is not None else ": " + log[-300:]))
if y is not None:
    err = float(np.abs(y - ref).max() / np.abs(ref).max()) if y.shape == ref.shape else float("inf")
    check(err < 1e-5, "attention float: output %s equals numpy's (max |diff| %.2g of max |y|)" % (list(y.shape), err))
qpath, _ = attention_model(True, "attn-qdq")
y, log = yolort(qpath, xa, "attn-qdq")
check(y is not None, "attention int8: converts%s" % ("" if y is not None else ": " + log[-300:]))
if y is not None:
    print("\n".join("  " + ln for ln in log.splitlines() if re.match(r"\s+(conv2d|binary|matmul|softmax)\s", ln)))
    check(ops_count(log, "conv2d") == (5, 0), "attention int8: all 5 convs int8 (qkv, pe, proj, mlp after the "
          "tokens) %s" % (ops_count(log, "conv2d"),))
    b8, _ = ops_count(log, "binary")
    check(b8 == 2, "attention int8: both Adds after the tokens int8 (%d int8 binary)" % b8)
    check(ops_count(log, "matmul") == (0, 2) and ops_count(log, "softmax") == (0, 1),
          "attention int8: MatMul / Softmax float")
    listed = re.findall(r"^  (\S+)\s+(head region|no int8 kernel.*|inputs not quantized|output not quantized)$",
                        log, re.M)
    outside = [n for n, _ in listed if "/tok/" not in n]
    check(listed and not outside, "attention int8: only the token part is float (%d nodes listed; outside: %s)"
          % (len(listed), outside))
    corr = float(np.corrcoef(y.ravel(), ref.ravel())[0, 1]) if y.shape == ref.shape else 0.0
    check(corr > 0.95, "attention int8: output correlates %.4f with float" % corr)

# ---- binary with a float scalar between QDQ pairs: an int8 LUT, equal to the float chain
wc = (rng.standard_normal((8, 3, 1, 1)) / 2).astype(np.float32)
ws = (np.abs(wc).reshape(8, -1).max(axis=1) / 127.0).astype(np.float32)
inits = {"wq": np.clip(np.rint(wc / ws[:, None, None, None]), -127, 127).astype(np.int8), "ws": ws,
         "wz": np.zeros(8, np.int8), "k_mul": np.array(0.17677669, np.float32),
         "k_sub": np.array(0.75, np.float32), "k_div": np.array(3.0, np.float32)}
chain = [("images", 0.02, 0), ("c", 0.031, -3), ("m", 0.0062, 5), ("s", 0.009, -20), ("d", 0.004, 0),
         ("output0", 0.01, 0)]
inits["w2q"] = rng.integers(-127, 128, (4, 8, 1, 1)).astype(np.int8)
inits["w2s"], inits["w2z"] = np.full(4, 0.01, np.float32), np.zeros(4, np.int8)


def qdq_head(inits, chain):
    """Scales / zero points of chain's tensors into inits; the QDQ input, both weights' DQ and the
    first int8 conv (images -> c), as nodes."""
    for t, sc, zp in chain:
        inits[t + ".s"], inits[t + ".z"] = np.array(sc, np.float32), np.array(zp, np.int8)
    return qdq("images", "images_dq", "images.s", "images.z", "/q/images") + [
        helper.make_node("DequantizeLinear", ["wq", "ws", "wz"], ["w"], axis=0, name="/w/DQ"),
        helper.make_node("DequantizeLinear", ["w2q", "w2s", "w2z"], ["w2"], axis=0, name="/w2/DQ"),
        helper.make_node("Conv", ["images_dq", "w"], ["c_f"], name="/model.0/conv")] + qdq("c_f", "c", "c.s", "c.z", "/q/c")


nodes = qdq_head(inits, chain)
nodes += [helper.make_node("Mul", ["c", "k_mul"], ["m_f"], name="/scalar/Mul")]
nodes += qdq("m_f", "m", "m.s", "m.z", "/q/m")
nodes += [helper.make_node("Sub", ["k_sub", "m"], ["s_f"], name="/scalar/Sub")]  # constant first
nodes += qdq("s_f", "s", "s.s", "s.z", "/q/s")
nodes += [helper.make_node("Div", ["s", "k_div"], ["d_f"], name="/scalar/Div")]
nodes += qdq("d_f", "d", "d.s", "d.z", "/q/d")
nodes += [helper.make_node("Conv", ["d", "w2"], ["o_f"], name="/model.1/conv")]  # not the graph output:
nodes += qdq("o_f", "output0", "output0.s", "output0.z", "/q/output0")  # a float output drops its Q/DQ
path = save(nodes, inits, [1, 3, H, W], "output0", "scalar-lut")
y, log = yolort(path, x, "scalar-lut")
check(y is not None, "scalar ops: convert%s" % ("" if y is not None else ": " + log[-300:]))
if y is not None:
    check(ops_count(log, "lut")[0] == 3 and ops_count(log, "binary") == (0, 0) and "/scalar/" not in log,
          "scalar ops: Mul, Sub (constant first), Div by a float scalar are 3 int8 LUTs, none float (%s, %s)"
          % (ops_count(log, "lut"), ops_count(log, "binary")))
    for op in ("Mul", "Sub", "Div"):  # one at a time: the converter may drop Q/DQ between float nodes
        yf, logf = yolort(path, x, "scalar-float-" + op, "--keep-fp32", "/scalar/" + op)
        same = yf is not None and yf.shape == y.shape and np.array_equal(y, yf)
        check(same and ops_count(logf, "binary") == (0, 1),
              "scalar ops: the %s LUT equals dequantize -> float %s -> quantize bit for bit (%s)"
              % (op, op, "equal" if same else logf[-200:] if yf is None else
                 "max |diff| %.3g" % float(np.abs(y - yf).max())))

# ---- Softmax over the last axis between QDQ pairs: one int8 node, equal to the float chain
inits = {"wq": inits["wq"], "ws": inits["ws"], "wz": inits["wz"], "w2q": inits["w2q"][:, :8],
         "w2s": inits["w2s"], "w2z": inits["w2z"], "rows": np.array([1, 2, 4, H * W], np.int64),
         "img": np.array([1, 8, H, W], np.int64)}
nodes = qdq_head(inits, [("images", 0.02, 0), ("c", 0.05, -3), ("p", 1.0 / 256.0, -128), ("output0", 0.01, 0)])
nodes += [helper.make_node("Reshape", ["c", "rows"], ["r_f"], name="/attn/Reshape")]
nodes += qdq("r_f", "r", "c.s", "c.z", "/q/r")
nodes += [helper.make_node("Softmax", ["r"], ["p_f"], axis=-1, name="/attn/Softmax")]
nodes += qdq("p_f", "p", "p.s", "p.z", "/q/p")
nodes += [helper.make_node("Reshape", ["p", "img"], ["pi_f"], name="/attn/Reshape_1")]
nodes += qdq("pi_f", "pi", "p.s", "p.z", "/q/pi")
nodes += [helper.make_node("Conv", ["pi", "w2"], ["o_f"], name="/model.1/conv")]
nodes += qdq("o_f", "output0", "output0.s", "output0.z", "/q/output0")
path = save(nodes, inits, [1, 3, H, W], "output0", "softmax-i8")
y, log = yolort(path, x, "softmax-i8")
yf, logf = yolort(path, x, "softmax-f32", "--keep-fp32", "/attn/Softmax")
check(y is not None and yf is not None, "int8 softmax: converts%s" % (
    "" if y is not None and yf is not None else ": " + (log + logf)[-300:]))
if y is not None and yf is not None:
    check(ops_count(log, "softmax") == (1, 0) and "/attn/Softmax" not in log,
          "int8 softmax: one int8 softmax node, not listed as float %s" % (ops_count(log, "softmax"),))
    check(ops_count(logf, "softmax") == (0, 1), "int8 softmax kept in float: a float softmax %s"
          % (ops_count(logf, "softmax"),))
    check(y.shape == yf.shape and np.array_equal(y, yf),
          "int8 softmax: output equals the float chain's bit for bit (max |diff| %.3g)"
          % (float(np.abs(y - yf).max()) if y.shape == yf.shape else float("inf")))

# ---- DQ -> MatMul -> Q with per-tensor int8 operands (C2PSA attention): one int8 MATMUL node,
# onnxruntime's QLinearMatMul bit for bit (exact int32 sums, times (sa * sb) / sy in float32,
# rounded half to even), and within one output step of the float chain (--keep-fp32)
QH, QW, QK = 8, 10, 5  # images [1, 3, 8, 10] -> [1, 3, 5, 16]: K = 5 (odd), 3 heads
inits = {"qmm_shape": np.array([1, 3, QK, QH * QW // QK], np.int64)}
for t, sc, zp in [("images", 0.013, 3), ("mm", 0.0021, -21)]:
    inits[t + ".s"], inits[t + ".z"] = np.array(sc, np.float32), np.array(zp, np.int8)
nodes = qdq("images", "images_dq", "images.s", "images.z", "/q/images")
nodes += [helper.make_node("Reshape", ["images_dq", "qmm_shape"], ["r_f"], name="/attn/Reshape")]
nodes += qdq("r_f", "r", "images.s", "images.z", "/q/r")
nodes += [helper.make_node("Transpose", ["r"], ["t_f"], perm=[0, 1, 3, 2], name="/attn/Transpose")]
nodes += qdq("t_f", "t", "images.s", "images.z", "/q/t")
nodes += [helper.make_node("MatMul", ["t", "r"], ["mm_f"], name="/attn/MatMul")]
nodes += qdq("mm_f", "output0", "mm.s", "mm.z", "/q/mm")
xq_in = (rng.random((1, 3, QH, QW), dtype=np.float32) * 3.0 - 1.5).astype(np.float32)
xq_in[0, 0, 0, :4] = [10.0, -10.0, 1.6, -1.7]  # saturating inputs
path = save(nodes, inits, [1, 3, QH, QW], "output0", "qmatmul-i8")
y, log = yolort(path, xq_in, "qmatmul-i8")
yf, logf = yolort(path, xq_in, "qmatmul-f32", "--keep-fp32", "/attn/MatMul")
check(y is not None and yf is not None, "int8 matmul: converts%s" % (
    "" if y is not None and yf is not None else ": " + (log + logf)[-300:]))
if y is not None and yf is not None:
    check(ops_count(log, "matmul") == (1, 0) and "/attn/MatMul " not in log and ops_count(log, "dequantize") == (0, 1),
          "int8 matmul: one int8 matmul node, not listed as float, a dequantize for output0 only %s %s"
          % (ops_count(log, "matmul"), ops_count(log, "dequantize")))
    check(ops_count(logf, "matmul") == (0, 1), "int8 matmul kept in float: a float matmul %s"
          % (ops_count(logf, "matmul"),))
    s_x, z_x, s_y, z_y = np.float32(0.013), 3, np.float32(0.0021), -21
    q = np.clip(np.rint(xq_in / s_x) + z_x, -128, 127).astype(np.int64).reshape(1, 3, QK, QH * QW // QK)
    acc = np.matmul(q.transpose(0, 1, 3, 2) - z_x, q - z_x)
    k = np.float32(np.float32(s_x * s_x) / s_y)
    yq = np.clip(np.rint(acc.astype(np.float32) * k) + z_y, -128, 127)
    ref = ((yq - z_y).astype(np.float32) * s_y).astype(np.float32)
    check(y.shape == ref.shape and np.array_equal(y, ref),
          "int8 matmul: output equals QLinearMatMul's (numpy) bit for bit (max |diff| %.3g)"
          % (float(np.abs(y - ref).max()) if y.shape == ref.shape else float("inf")))
    # the float MatMul's output is output0 itself (not quantized): round it as the QDQ graph does
    steps = np.abs(y - quant(yf, s_y, z_y)) / float(s_y) if y.shape == yf.shape else np.array([np.inf])
    check(float(steps.max()) <= 1.0 + 1e-3 and float(np.mean(steps > 0.5)) < 0.05,
          "int8 matmul: within one step of the float chain (%d of %d differ)" % (int((steps > 0.5).sum()), steps.size))

# ---- C3k2 block, onnxruntime's QDQ (own ranges everywhere): ties + views, no copy left


def conv_w(name, co, ci, k):
    w = (rng.standard_normal((co, ci, k, k)) / np.sqrt(ci * k * k)).astype(np.float32)
    sc = (np.abs(w).reshape(co, -1).max(axis=1) / 127.0).astype(np.float32)
    inits[name + "q"] = np.clip(np.rint(w / sc[:, None, None, None]), -127, 127).astype(np.int8)
    inits[name + "s"], inits[name + "z"] = sc, np.zeros(co, np.int8)
    return helper.make_node("DequantizeLinear", [name + "q", name + "s", name + "z"], [name], axis=0,
                            name="/" + name + "/DQ")


inits = {"split": np.array([4, 4], np.int64)}
# the bottleneck conv is a 1x1: a 3x3 over a half this narrow reads a copy (plan_views.c)
nodes = [conv_w("w0", 8, 3, 1), conv_w("w1", 8, 8, 1), conv_w("w2", 4, 4, 1), conv_w("w3", 4, 12, 1)]
for t, sc, zp in [("images", 0.02, 0), ("c", 0.05, -3), ("X", 0.04, 0), ("a", 0.035, 1), ("b", 0.03, -2),
                  ("mo", 0.03, 0), ("ad", 0.045, 0), ("cat", 0.05, 0), ("output0", 0.05, 0)]:
    inits[t + ".s"], inits[t + ".z"] = np.array(sc, np.float32), np.array(zp, np.int8)
nodes += qdq("images", "images_dq", "images.s", "images.z", "/q/images")
nodes += [helper.make_node("Conv", ["images_dq", "w0"], ["c_f"], name="/model.0/conv")]
nodes += qdq("c_f", "c", "c.s", "c.z", "/q/c")
nodes += [helper.make_node("Conv", ["c", "w1"], ["X_f"], name="/model.2/cv1/conv")]
nodes += qdq("X_f", "X", "X.s", "X.z", "/q/X")
nodes += [helper.make_node("Split", ["X", "split"], ["a_f", "b_f"], axis=1, name="/model.2/Split")]
nodes += qdq("a_f", "a", "a.s", "a.z", "/q/a") + qdq("b_f", "b", "b.s", "b.z", "/q/b")
nodes += [helper.make_node("Conv", ["b", "w2"], ["mo_f"], name="/model.2/m.0/cv1/conv")]
nodes += qdq("mo_f", "mo", "mo.s", "mo.z", "/q/mo")
nodes += [helper.make_node("Add", ["b", "mo"], ["ad_f"], name="/model.2/m.0/Add")]
nodes += qdq("ad_f", "ad", "ad.s", "ad.z", "/q/ad")
nodes += [helper.make_node("Concat", ["a", "b", "ad"], ["cat_f"], axis=1, name="/model.2/Concat")]
nodes += qdq("cat_f", "cat", "cat.s", "cat.z", "/q/cat")
nodes += [helper.make_node("Conv", ["cat", "w3"], ["o_f"], name="/model.2/cv2/conv")]
nodes += qdq("o_f", "output0", "output0.s", "output0.z", "/q/output0")
path = save(nodes, inits, [1, 3, H, W], "output0", "c3k2-ties")
y, log = yolort(path, x, "c3k2-ties")
ync, lognc = yolort(path, x, "c3k2-ties-copied", "--no-views")
ynt, lognt = yolort(path, x, "c3k2-untied", "--no-ties")
check(y is not None and ync is not None and ynt is not None, "C3k2 ties: converts%s" % (
    "" if y is not None and ync is not None and ynt is not None else ": " + (log + lognc + lognt)[-300:]))
if y is not None and ync is not None and ynt is not None:
    tied = re.search(r"Concat ties: (\d+) tensors", log)
    views = re.search(r"zero-copy views: (\d+)", log)
    check(tied is not None and int(tied.group(1)) == 4, "C3k2 ties: X, its halves a, b and the Add output tied "
          "(%s)" % (tied.group(0) if tied else "no ties line"))
    check(views is not None and int(views.group(1)) >= 3 and "Concat ties" not in lognt,
          "C3k2 ties: conv output, Split half and Add written in the Concat's buffer (%s)"
          % (views.group(0) if views else "no views line"))
    check(np.array_equal(y, ync), "C3k2 ties: views give the copied block's output bit for bit")
    d = np.abs(y - ynt) / 0.05
    check(float(d.mean()) < 0.5 and float(d.max()) <= 3.0, "C3k2 ties: within a few output steps of the untied "
          "chain (mean %.3f, max %.1f steps)" % (float(d.mean()), float(d.max())))

# ---- the neck's upsample: Resize (nearest 2x) -> Concat, each on its own QDQ grid (onnxruntime's way)
for tag, s_up in [("upsample-requant", 0.045), ("upsample-same", 0.04)]:
    inits = {"roi": np.zeros(0, np.float32), "scales": np.array([1, 1, 2, 2], np.float32)}
    nodes = [conv_w("u0", 8, 3, 1), conv_w("u1", 16, 8, 3), conv_w("u2", 4, 24, 1)]
    for t, sc, zp in [("images", 0.02, 0), ("a", 0.05, -3), ("b", 0.04, 0), ("up", s_up, 0 if s_up == 0.04 else 2),
                      ("cat", 0.06, 1), ("output0", 0.05, 0)]:
        inits[t + ".s"], inits[t + ".z"] = np.array(sc, np.float32), np.array(zp, np.int8)
    nodes += qdq("images", "images_dq", "images.s", "images.z", "/q/images")
    nodes += [helper.make_node("Conv", ["images_dq", "u0"], ["a_f"], name="/model.4/conv")]
    nodes += qdq("a_f", "a", "a.s", "a.z", "/q/a")
    nodes += [helper.make_node("Conv", ["a", "u1"], ["b_f"], pads=[1, 1, 1, 1], strides=[2, 2], name="/model.5/conv")]
    nodes += qdq("b_f", "b", "b.s", "b.z", "/q/b")
    nodes += [helper.make_node("Resize", ["b", "roi", "scales"], ["up_f"], mode="nearest",
                               coordinate_transformation_mode="asymmetric", nearest_mode="floor", name="/model.14/Resize")]
    nodes += qdq("up_f", "up", "up.s", "up.z", "/q/up")
    nodes += [helper.make_node("Concat", ["up", "a"], ["cat_f"], axis=1, name="/model.15/Concat")]
    nodes += qdq("cat_f", "cat", "cat.s", "cat.z", "/q/cat")
    nodes += [helper.make_node("Conv", ["cat", "u2"], ["o_f"], name="/model.16/conv")]
    nodes += qdq("o_f", "output0", "output0.s", "output0.z", "/q/output0")
    path = save(nodes, inits, [1, 3, H, W], "output0", tag)
    y, log = yolort(path, x, tag, "-v")
    ync, lognc = yolort(path, x, tag + "-copied", "--no-views")
    check(y is not None and ync is not None, "%s: converts%s" % (tag, "" if y is not None and ync is not None
                                                                    else ": " + (log + lognc)[-300:]))
    if y is not None and ync is not None:
        check(re.search(r"resize_nearest\s+i8\s+/model.14/Resize ->.*\(view: channel 0 of cat", log) is not None
              and ops_count(log, "lut") == (0, 0),
              "%s: the resize writes the Concat's buffer (its requantization a table inside it, no LUT node)" % tag)
        check(np.array_equal(y, ync), "%s: the resize's view gives the copied block's output bit for bit" % tag)

# ---- NMS inside the graph over rows that are no head: refused, exit 1, never a crash
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
