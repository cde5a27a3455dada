#!/usr/bin/python3
"""check_quantize_inputs.py BUILD_DIR MODELS_SRC_DIR WORK_DIR — yolort-quantize from any input
ONNX (issue 17 item 1), on models/gen_yolo11.py models (no data needed).

A generated FP32 model (BN folded, as exported) is turned into the int8 exports people publish:
1. onnxruntime quantize_dynamic's layout (DynamicQuantizeLinear shared per input, ConvInteger,
   Cast, Mul by s_x * w_scale, Add of the bias), on an end-to-end (--end2end) model: weights int8
   per tensor on some convs, uint8 with per-channel zero points and scales on the others;
2. a static QDQ export crafted here: uint8 asymmetric per-tensor weights, int8 per-channel weights,
   one weight as QuantizeLinear of its float constant, int32 biases, a Q/DQ pair on every conv input;
3. yolort-quantize's own QDQ output (int8 per-channel weights, calibrated activations).
For each, yolort-quantize says what it found ("input: dynamic-quant, N ConvInteger recovered to
float Conv"), --float-out's recovered graph has the original's op census and no quantization op,
every conv weight equals the original within half its quantization step (bias alike), a
QuantizeLinear'd float constant comes back exactly, and the recovered graph quantizes and
converts (--yrt). For 3, requantizing gives back exactly the same weight integers.
4. Reports (issue 17 item 4), labels being the float model's own detections: yolort-quantize
   --report --report-labels writes per-layer SQNR, the largest drops, float / int8 mAP and the
   classes most hurt; yolort-eval --compare lists the classes with the largest AP change.
"""
import json
import os
import re
import subprocess
import sys
from collections import Counter

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

BUILD, SRC, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
PY = sys.executable
GEN = os.path.join(SRC, "gen_yolo11.py")
QUANT = os.path.join(BUILD, "tools", "yolort-quantize")
IMAGES = os.path.join(BUILD, "tools", "yolort-gen-images")
QOPS = {"QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear", "ConvInteger", "MatMulInteger"}
failures = []


def check(cond, msg):
    print(("ok   " if cond else "FAIL ") + msg)
    if not cond:
        failures.append(msg)


def inits(m):
    return {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}


def convs(m):
    """{conv output name: (weight, bias)} of the float Convs (weights / bias as initializers)."""
    init = inits(m)
    return {n.output[0]: (init[n.input[1]], init[n.input[2]] if len(n.input) > 2 else None)
            for n in m.graph.node if n.op_type == "Conv" and n.input[1] in init}


def dynamic_export(m):
    """m (float, BN folded) in onnxruntime quantize_dynamic's layout. Returns the model and
    {conv output: weight step per output channel}."""
    init = inits(m)
    g = m.graph
    nodes, new_init, step, dql = [], [], {}, {}
    for k, n in enumerate(n for n in g.node):
        if n.op_type != "Conv" or n.input[1] not in init:
            nodes.append(n)
            continue
        x, w = n.input[0], init[n.input[1]]
        b = init[n.input[2]] if len(n.input) > 2 else np.zeros(w.shape[0], np.float32)
        base = n.name or n.output[0]
        if x not in dql:  # one DynamicQuantizeLinear per input tensor, as onnxruntime shares it
            dql[x] = (x + "_quantized", x + "_scale", x + "_zero_point")
            nodes.append(helper.make_node("DynamicQuantizeLinear", [x], list(dql[x]), name=x + "_QuantizeLinear"))
        xq, xs, xzp = dql[x]
        c = w.shape[0]
        if k % 2 == 0:  # int8, symmetric, one scale (quantize_dynamic's default)
            s = np.float32(max(np.abs(w).max(), 1e-8) / 127)
            wq = np.clip(np.round(w / s), -127, 127).astype(np.int8)
            wzp = np.zeros((), np.int8)
            ws = np.array(s, np.float32)
            step[n.output[0]] = np.full(c, s)
        else:  # uint8, asymmetric, per output channel (zero points and scales differ)
            lo = np.minimum(w.reshape(c, -1).min(1), 0)
            hi = np.maximum(w.reshape(c, -1).max(1), 0)
            s = np.maximum((hi - lo) / 255, 1e-8).astype(np.float32)
            zp = np.clip(np.round(-lo / s), 0, 255).astype(np.uint8)
            wq = np.clip(np.round(w / s.reshape(-1, *[1] * (w.ndim - 1))) + zp.reshape(-1, *[1] * (w.ndim - 1)),
                         0, 255).astype(np.uint8)
            wzp, ws = zp, s.reshape(c, 1, 1)
            step[n.output[0]] = s
        names = {t: base + t for t in ("_Wq", "_Wzp", "_ws", "_b", "_out", "_cast", "_scale", "_mul")}
        new_init += [numpy_helper.from_array(wq, names["_Wq"]), numpy_helper.from_array(wzp, names["_Wzp"]),
                     numpy_helper.from_array(ws, names["_ws"]),
                     numpy_helper.from_array(b.reshape(1, c, 1, 1).astype(np.float32), names["_b"])]
        attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
        nodes += [helper.make_node("ConvInteger", [xq, names["_Wq"], xzp, names["_Wzp"]], [names["_out"]],
                                   name=base + "_quant", **attrs),
                  helper.make_node("Cast", [names["_out"]], [names["_cast"]], to=TensorProto.FLOAT),
                  helper.make_node("Mul", [xs, names["_ws"]], [names["_scale"]]),
                  helper.make_node("Mul", [names["_cast"], names["_scale"]], [names["_mul"]]),
                  helper.make_node("Add", [names["_mul"], names["_b"]], [n.output[0]])]
    used = {i for n in nodes for i in n.input}
    keep = [i for i in g.initializer if i.name in used]
    out = helper.make_model(helper.make_graph(nodes, g.name, list(g.input), list(g.output), keep + new_init),
                            opset_imports=[helper.make_opsetid("", 13)])
    out.metadata_props.extend(m.metadata_props)
    return out, step


def qdq_export(m):
    """m in a static QDQ layout: weights uint8 asymmetric per tensor (every third conv), the first
    conv's weight as QuantizeLinear of its float constant, int8 per channel (the others); int32
    biases at s_x * s_w; a Q/DQ pair (uint8, zero point 128, scale 0.05) on every conv input."""
    init = inits(m)
    g = m.graph
    nodes, new_init, step, qin = [], [], {}, {}
    sx = np.float32(0.05)
    new_init += [numpy_helper.from_array(np.array(sx, np.float32), "act_scale"),
                 numpy_helper.from_array(np.array(128, np.uint8), "act_zp")]
    qconst = None
    k = -1
    for n in g.node:
        if n.op_type != "Conv" or n.input[1] not in init:
            nodes.append(n)
            continue
        k += 1
        x, w = n.input[0], init[n.input[1]]
        b = init[n.input[2]] if len(n.input) > 2 else None
        c = w.shape[0]
        base = n.name or n.output[0]
        if x not in qin:
            qin[x] = x + "_DequantizeLinear_Output"
            nodes += [helper.make_node("QuantizeLinear", [x, "act_scale", "act_zp"], [x + "_QuantizeLinear_Output"]),
                      helper.make_node("DequantizeLinear", [x + "_QuantizeLinear_Output", "act_scale", "act_zp"],
                                       [qin[x]])]
        bshape = [-1] + [1] * (w.ndim - 1)
        if k == 0:  # QuantizeLinear of the float weight constant (exporters do this)
            s = np.float32(np.abs(w).max() / 127)
            new_init += [numpy_helper.from_array(w, base + "_Wf"),
                         numpy_helper.from_array(np.array(s, np.float32), base + "_ws"),
                         numpy_helper.from_array(np.array(0, np.int8), base + "_wzp")]
            nodes += [helper.make_node("QuantizeLinear", [base + "_Wf", base + "_ws", base + "_wzp"], [base + "_Wq"]),
                      helper.make_node("DequantizeLinear", [base + "_Wq", base + "_ws", base + "_wzp"], [base + "_W"])]
            sw = np.full(c, s, np.float32)
            step[n.output[0]] = np.zeros(c)  # exact: the float constant itself
            qconst = n.output[0]
        elif k % 3 == 1:  # uint8 asymmetric per tensor
            lo, hi = min(w.min(), 0), max(w.max(), 0)
            s = np.float32((hi - lo) / 255)
            zp = np.uint8(np.clip(np.round(-lo / s), 0, 255))
            wq = np.clip(np.round(w / s) + zp, 0, 255).astype(np.uint8)
            new_init += [numpy_helper.from_array(wq, base + "_Wq"),
                         numpy_helper.from_array(np.array(s, np.float32), base + "_ws"),
                         numpy_helper.from_array(np.array(zp, np.uint8), base + "_wzp")]
            nodes.append(helper.make_node("DequantizeLinear", [base + "_Wq", base + "_ws", base + "_wzp"], [base + "_W"]))
            sw = np.full(c, s, np.float32)
            step[n.output[0]] = sw
        else:  # int8 symmetric per output channel
            sw = np.maximum(np.abs(w.reshape(c, -1)).max(1) / 127, 1e-8).astype(np.float32)
            wq = np.clip(np.round(w / sw.reshape(bshape)), -127, 127).astype(np.int8)
            new_init += [numpy_helper.from_array(wq, base + "_Wq"), numpy_helper.from_array(sw, base + "_ws"),
                         numpy_helper.from_array(np.zeros(c, np.int8), base + "_wzp")]
            nodes.append(helper.make_node("DequantizeLinear", [base + "_Wq", base + "_ws", base + "_wzp"],
                                          [base + "_W"], axis=0))
            step[n.output[0]] = sw
        ins = [qin[x], base + "_W"]
        if b is not None:
            sb = (sx * sw).astype(np.float32)
            bq = np.round(b / sb).astype(np.int32)
            new_init += [numpy_helper.from_array(bq, base + "_Bq"), numpy_helper.from_array(sb, base + "_bs"),
                         numpy_helper.from_array(np.zeros(c, np.int32), base + "_bzp")]
            nodes.append(helper.make_node("DequantizeLinear", [base + "_Bq", base + "_bs", base + "_bzp"],
                                          [base + "_B"], axis=0))
            ins.append(base + "_B")
        conv = helper.make_node("Conv", ins, list(n.output), name=n.name)
        conv.attribute.extend(n.attribute)
        nodes.append(conv)
    used = {i for n in nodes for i in n.input}
    keep = [i for i in g.initializer if i.name in used]
    out = helper.make_model(helper.make_graph(nodes, g.name, list(g.input), list(g.output), keep + new_init),
                            opset_imports=[helper.make_opsetid("", 13)])
    out.metadata_props.extend(m.metadata_props)
    return out, step, qconst


def quantize(src, tag, expect, extra=()):
    """yolort-quantize src: returns (its stderr line 'input: ...', recovered float model)."""
    fl, qdq, yrt = (os.path.join(WORK, tag + s) for s in (".float.onnx", ".qdq.onnx", ".yrt"))
    r = subprocess.run([QUANT, src, os.path.join(WORK, "images"), "-o", qdq, "--yrt", yrt, "--float-out", fl,
                        "-n", "2", "-q"] + list(extra), capture_output=True, text=True)
    line = next((ln for ln in r.stderr.splitlines() if "input:" in ln), "")
    print("  " + line)
    check(r.returncode == 0, f"{tag}: yolort-quantize succeeds" + ("" if r.returncode == 0 else ": " + r.stderr[-400:]))
    check(re.search(expect, line) is not None, f"{tag}: says '{expect}'")
    check(os.path.exists(yrt), f"{tag}: the requantized model converts (--yrt)")
    return (onnx.load(fl) if os.path.exists(fl) else None), (onnx.load(qdq) if os.path.exists(qdq) else None)


def compare(tag, orig, rec, step):
    ops = Counter(n.op_type for n in rec.graph.node)
    check(not (set(ops) & QOPS), f"{tag}: no quantization op left ({sorted(set(ops) & QOPS)})")
    check(ops == Counter(n.op_type for n in orig.graph.node), f"{tag}: the original's op census")
    onnx.checker.check_model(rec)
    a, b = convs(orig), convs(rec)
    check(set(a) == set(b), f"{tag}: the same {len(a)} convs")
    worst_w = worst_b = 0.0
    for k in a:
        if k not in b:
            continue
        (w0, b0), (w1, b1) = a[k], b[k]
        st = step.get(k)
        if st is None:
            continue
        tol = (st / 2 * 1.001 + 1e-7).reshape(-1, *[1] * (w0.ndim - 1))
        worst_w = max(worst_w, float((np.abs(w1 - w0) / tol).max()))
        if b0 is not None:
            worst_b = max(worst_b, float(np.abs(b1 - b0).max() / (np.abs(b0).max() + 1e-6)))
    check(worst_w <= 1.0, f"{tag}: every weight within half its step of the original (worst {worst_w:.3f} of it)")
    check(worst_b <= 1e-2, f"{tag}: biases equal the original (worst relative {worst_b:.2e})")


def qdq_weight_ints(m):
    init = inits(m)
    prod = {o: n for n in m.graph.node for o in n.output}
    out = {}
    for n in m.graph.node:
        if n.op_type == "Conv" and n.input[1] in prod and prod[n.input[1]].op_type == "DequantizeLinear":
            out[n.output[0]] = init[prod[n.input[1]].input[0]]
    return out


os.makedirs(WORK, exist_ok=True)
subprocess.run([IMAGES, os.path.join(WORK, "images"), "-n", "2", "--seed", "3"], check=True, capture_output=True)

# 1. quantize_dynamic layout, end-to-end head
fp_e2e = os.path.join(WORK, "e2e.onnx")
subprocess.run([PY, GEN, "--scale", "n", "--size", "160", "--nc", "3", "--end2end", "50", "--no-bn", "--seed", "5",
                "--out", fp_e2e], check=True, capture_output=True)
orig = onnx.load(fp_e2e)
dyn, step = dynamic_export(orig)
dyn_path = os.path.join(WORK, "e2e.dynamic.onnx")
onnx.save(dyn, dyn_path)
n_ci = sum(n.op_type == "ConvInteger" for n in dyn.graph.node)
rec, _ = quantize(dyn_path, "dynamic", rf"input: dynamic-quant, {n_ci} ConvInteger recovered to float Conv; recalibrating")
if rec is not None:
    compare("dynamic", orig, rec, step)
    meta = {p.key: p.value for p in rec.metadata_props}
    check(meta.get("end2end") == "True" and meta.get("yolort.synthetic") == "1", "dynamic: metadata kept")
    # --weight-scale grid: every channel whose export integers fit [-127, 127] keeps them exactly
    # (max-abs requantizing rounds them again); the others (uint8 with a zero point) fall back to max
    exact = {}
    for ws in ("max", "grid"):
        _, q = quantize(dyn_path, "dynamic-" + ws, r"input: dynamic-quant", ["--weight-scale", ws])
        init = inits(q) if q is not None else {}
        prod = {o: n for n in q.graph.node for o in n.output} if q is not None else {}
        n_fit = n_exact = 0
        for out, (w, _) in convs(rec).items():
            dq = next((prod[c.input[1]] for c in (q.graph.node if q is not None else []) if c.op_type == "Conv"
                       and c.output[0] == out and c.input[1] in prod and prod[c.input[1]].op_type == "DequantizeLinear"),
                      None)
            if dq is None or out not in step:
                continue
            wq = init[dq.input[0]].astype(np.float64)
            sc = init[dq.input[1]].astype(np.float64).reshape(-1, *[1] * (w.ndim - 1))
            ints = np.round(w / step[out].reshape(-1, *[1] * (w.ndim - 1)).astype(np.float64))
            fit = np.abs(ints).reshape(w.shape[0], -1).max(1) <= 127
            err = (np.abs(wq * sc - w) / (np.abs(w) + 1e-30)).reshape(w.shape[0], -1).max(1)
            n_fit += int(fit.sum())
            n_exact += int((fit & (err < 1e-5)).sum())
        exact[ws] = (n_exact, n_fit)
    print(f"  channels exact (max, grid): {exact}")
    check(exact["grid"][1] > 0 and exact["grid"][0] == exact["grid"][1],
          f"dynamic: --weight-scale grid keeps every on-grid channel exact ({exact['grid'][0]} of {exact['grid'][1]})")
    check(exact["max"][0] < exact["max"][1] // 2, f"dynamic: max-abs requantizing rounds most of them "
          f"({exact['max'][0]} exact)")

# 2. static QDQ crafted: uint8 asymmetric / int8 per-channel / Q of a float constant
fp = os.path.join(WORK, "plain.onnx")
subprocess.run([PY, GEN, "--scale", "n", "--size", "160", "--nc", "3", "--no-bn", "--seed", "6", "--out", fp],
               check=True, capture_output=True)
orig = onnx.load(fp)
qdq, step, qconst = qdq_export(orig)
qdq_path = os.path.join(WORK, "plain.crafted.qdq.onnx")
onnx.save(qdq, qdq_path)
rec, _ = quantize(qdq_path, "qdq", r"input: static QDQ, \d+ constants dequantized \(\d+ uint8, \d+ per-channel, "
                  r"\d+ asymmetric\), 1 quantized float constants kept float, \d+ activation Q/DQ pairs removed")
if rec is not None:
    compare("qdq", orig, rec, step)
    check(np.array_equal(convs(rec)[qconst][0], convs(orig)[qconst][0]),
          "qdq: the QuantizeLinear'd float weight comes back exactly")

# 3. yolort-quantize's own QDQ as input: same weight integers after requantizing
_, own = quantize(fp, "fp32", r"input: FP32$")
if own is not None:
    own_path = os.path.join(WORK, "fp32.qdq.onnx")
    init = inits(own)
    own_step = {}
    for n in own.graph.node:
        if n.op_type == "DequantizeLinear" and n.input[0] in init and init[n.input[0]].dtype == np.int8:
            for c in own.graph.node:
                if c.op_type == "Conv" and c.input[1] == n.output[0]:
                    own_step[c.output[0]] = init[n.input[1]].reshape(-1)
    rec, again = quantize(own_path, "own-qdq", r"input: static QDQ, \d+ constants dequantized \(0 uint8, "
                          r"\d+ per-channel, 0 asymmetric\), \d+ activation Q/DQ pairs removed")
    if rec is not None:
        compare("own-qdq", orig, rec, own_step)
        a, b = qdq_weight_ints(own), qdq_weight_ints(again)
        check(len(a) > 0 and all(np.array_equal(a[k], b[k]) for k in a if k in b) and set(a) == set(b),
              f"own-qdq: requantized weights are the same integers ({len(a)} convs)")

# 4. reports (item 4): --report's per-layer SQNR and classes most hurt, yolort-eval --compare's
# largest AP changes; labels = the float model's own detections (score >= 0.25) on the images
labels = os.path.join(WORK, "labels")
os.makedirs(labels, exist_ok=True)
for img in sorted(os.listdir(os.path.join(WORK, "images"))):
    r = subprocess.run([os.path.join(BUILD, "tools", "yolort-detect"), fp, os.path.join(WORK, "images", img), "--json"],
                       capture_output=True, text=True, check=True)
    d = json.loads(r.stdout)
    W, H = d["width"], d["height"]
    with open(os.path.join(labels, img.rsplit(".", 1)[0] + ".txt"), "w") as f:
        for x in d["detections"]:
            if x["score"] < 0.25:
                continue
            x0, y0, x1, y1 = (min(max(v, 0), lim) for v, lim in zip(x["box"], (W, H, W, H)))
            if x1 > x0 and y1 > y0:
                f.write(f"{x['class']} {(x0 + x1) / 2 / W:.6f} {(y0 + y1) / 2 / H:.6f} {(x1 - x0) / W:.6f} {(y1 - y0) / H:.6f}\n")
n_gt = sum(len(open(os.path.join(labels, f)).readlines()) for f in os.listdir(labels))
check(n_gt > 0, f"reports: {n_gt} pseudo ground-truth boxes from the float model")
rep = os.path.join(WORK, "report.txt")
q8 = os.path.join(WORK, "report.yrt")
r = subprocess.run([QUANT, fp, os.path.join(WORK, "images"), "-o", os.path.join(WORK, "report.qdq.onnx"), "--yrt", q8,
                    "-n", "2", "-q", "--report", rep, "--report-labels", labels], capture_output=True, text=True)
check(r.returncode == 0, "reports: yolort-quantize --report --report-labels succeeds" + ("" if r.returncode == 0 else ": " + r.stderr[-300:]))
text = open(rep).read() if os.path.exists(rep) else ""
for want in ("input: FP32", "per-layer SQNR, int8 vs float, 2 images", "output0 SQNR",
             "layers with the largest own SQNR drop, top 10:", "accuracy on 2 images",
             "classes most hurt (AP50-95 lost, float -> int8), top 10:"):
    check(want in text, f"reports: the report has '{want}'")
m = re.search(r"float +([0-9.]+) +([0-9.]+)\n +int8 +([0-9.]+) +([0-9.]+)", text)
check(m is not None and float(m.group(2)) > 0.8, "reports: the float model scores its own detections (mAP50-95 > 0.8)")
layers = re.findall(r"^  (\S+) +(\w+) +(-?[0-9.]+) +(-?[0-9.]+)", text.split("layers with the largest")[0], re.M)
check(len(layers) > 50, f"reports: per-layer SQNR rows ({len(layers)})")
hurt = text.split("classes most hurt")[-1].splitlines()[2:]
check(all(re.match(r"  (class\d+|\(none\)) ", ln) for ln in hurt if ln.strip()) and len(hurt) <= 10,
      f"reports: the classes most hurt are named ({len(hurt)} rows)")
r = subprocess.run([os.path.join(BUILD, "tools", "yolort-eval"), fp, os.path.join(WORK, "images"), labels, "--compare", q8,
                    "-q"], capture_output=True, text=True)
check(r.returncode == 0, "reports: yolort-eval --compare succeeds")
tail = r.stdout.split("classes with the largest AP50-95 change (B - A), top 10:")
check(len(tail) == 2, "reports: yolort-eval --compare lists the classes with the largest AP change")
if len(tail) == 2:
    rows = [ln for ln in tail[1].splitlines()[2:] if ln.startswith("  ")]
    check(0 < len(rows) <= 10 and all(len(ln.split()) == 7 for ln in rows),
          f"reports: {len(rows)} rows of class, gt, AP50 and AP of each side, dAP")

print(("FAIL: " + "; ".join(failures)) if failures else "quantize from any input OK")
sys.exit(1 if failures else 0)
