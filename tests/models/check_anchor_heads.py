#!/usr/bin/python3
"""check_anchor_heads.py BUILD_DIR MODELS_SRC_DIR WORK_DIR — objectness heads (issue 36 item 1) of
every export style models/gen_anchor_heads.py transcribes (YOLOv5 v7.0 and v6.0, YOLOv7 --grid,
YOLOv5-Lite's raw sigmoid maps, YOLOv7's raw per-grid outputs, YOLOX raw and decoded), no data
needed:

1. yolort-convert fuses the head into one obj_decode node (by numeric verification) and yolort's
   float output [1, 4 + nc, N] equals the ONNX model's own output (models/ref_forward.py) decoded
   here from the family's formulas (boxes within 1e-3 relative, scores within 1e-4);
   YOLOv7's raw per-grid outputs (no anchors in the file) are refused without --anchors, naming
   the option and both families' defaults, and fuse into one output with them;
2. yolort-quantize's int8 model of it (calibrated on generated scenes) fuses too, runs its head
   convs int8, and stays near the float output (scores within 0.05 on average);
3. the same net in the YOLOv7 QAT layout (NVIDIA pytorch-quantization: symmetric Q/DQ, zero
   point 0, on conv inputs only, per-channel int8 weights) fuses and runs its convs int8;
4. a hostile head (a YOLOv5 v7.0 head with grid offset -0.4: looks like it, computes something
   else) is refused at convert, naming its output's layout, instead of being misread.
"""
import os
import subprocess
import sys

import numpy as np

BUILD, SRC, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
sys.dont_write_bytecode = True
sys.path.insert(0, SRC)
import ref_forward as rf  # noqa: E402
import gen_anchor_heads as gah  # noqa: E402

CONVERT = os.path.join(BUILD, "tools", "yolort-convert")
QUANTIZE = os.path.join(BUILD, "tools", "yolort-quantize")
GEN_IMAGES = os.path.join(BUILD, "tools", "yolort-gen-images")
RUN = os.path.join(BUILD, "tests", "models", "wild_accept")
SIZE, NC = 160, 3
failures = []


def check(cond, msg):
    print(("ok   " if cond else "FAIL ") + msg)
    if not cond:
        failures.append(msg)


def yolort_output(model, x, tag, extra=()):
    yrt = os.path.join(WORK, tag + ".yrt")
    conv = subprocess.run([CONVERT, model, "-o", yrt, *extra], capture_output=True, text=True)
    if conv.returncode:
        return None, conv.stdout + conv.stderr
    xin, yout = os.path.join(WORK, tag + ".in.f32"), os.path.join(WORK, tag + ".out.f32")
    x.astype(np.float32).tofile(xin)
    r = subprocess.run([RUN, "run", yrt, xin, yout], capture_output=True, text=True, check=True)
    dims = [int(v) for v in r.stdout.split()[-3:]]  # "nc task rank d0 d1 d2" (task may be empty)
    return np.fromfile(yout, np.float32).reshape(dims), conv.stdout


def decode_rows(y, head):
    """The export's [1, N, 5 + nc] -> [4 + nc, N] (cx, cy, w, h, obj x class), per family."""
    y = y[0].astype(np.float64)
    out = np.empty((4 + NC, y.shape[0]))
    g = 0
    na = 1 if head.startswith("yolox") else 3
    for i, st in enumerate(gah.STRIDES):
        n = SIZE // st
        for a in range(na):
            for r in range(n):
                for c in range(n):
                    v = y[g]
                    if head == "v7_raw":  # logits: sigmoid everything, YOLOv7's anchors
                        v = 1.0 / (1.0 + np.exp(-v))
                        aw, ah = gah.V7_ANCHORS[i][a]
                        b = [(2 * v[0] - 0.5 + c) * st, (2 * v[1] - 0.5 + r) * st, 4 * v[2] ** 2 * aw, 4 * v[3] ** 2 * ah]
                    elif head == "v5lite":
                        aw, ah = gah.ANCHORS[i][a]
                        b = [(2 * v[0] - 0.5 + c) * st, (2 * v[1] - 0.5 + r) * st, 4 * v[2] ** 2 * aw, 4 * v[3] ** 2 * ah]
                    elif head == "yolox":
                        b = [(v[0] + c) * st, (v[1] + r) * st, np.exp(v[2]) * st, np.exp(v[3]) * st]
                    else:  # decoded in the graph
                        b = v[:4]
                    out[:4, g] = b
                    out[4:, g] = v[4] * v[5:]
                    g += 1
    assert g == y.shape[0]
    return out


def qat_layout(m, x):
    """The YOLOv7 QAT export's layout: every Conv input through Q/DQ (symmetric, zero point 0,
    scale max|x| / 127 on the scene x), weights int8 per output channel through a DequantizeLinear."""
    import onnx
    from onnx import helper, numpy_helper
    params = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    vals = rf.run(m.graph.node, {"images": x}, params)
    nodes, inits = [], list(m.graph.initializer)
    for n in m.graph.node:
        if n.op_type == "Conv":
            t, w = n.input[0], n.input[1]
            s = np.float32(max(float(np.abs(vals[t]).max()), 1e-6) / 127.0)
            sn, zn = n.name + "_in_s", n.name + "_in_z"
            inits += [numpy_helper.from_array(s, sn), numpy_helper.from_array(np.int8(0), zn)]
            nodes.append(helper.make_node("QuantizeLinear", [t, sn, zn], [t + "_q_" + n.name], name=n.name + "_q"))
            nodes.append(helper.make_node("DequantizeLinear", [t + "_q_" + n.name, sn, zn], [t + "_dq_" + n.name],
                                          name=n.name + "_dq"))
            wf = params[w]
            sw = np.maximum(np.abs(wf).reshape(wf.shape[0], -1).max(1), 1e-8) / 127.0
            wq = np.clip(np.round(wf / sw.reshape(-1, 1, 1, 1)), -127, 127).astype(np.int8)
            inits += [numpy_helper.from_array(wq, w + "_int8"), numpy_helper.from_array(sw.astype(np.float32), w + "_s"),
                      numpy_helper.from_array(np.zeros(wf.shape[0], np.int8), w + "_z")]
            nodes.append(helper.make_node("DequantizeLinear", [w + "_int8", w + "_s", w + "_z"], [w + "_dq"],
                                          name=n.name + "_wdq", axis=0))
            n.input[0], n.input[1] = t + "_dq_" + n.name, w + "_dq"
        nodes.append(n)
    used = {i for n in nodes for i in n.input}
    g = helper.make_graph(nodes, m.graph.name + "_qat", list(m.graph.input), list(m.graph.output),
                          [i for i in inits if i.name in used])
    q = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    q.ir_version = m.ir_version
    q.metadata_props.extend(m.metadata_props)
    onnx.checker.check_model(q)
    return q


def main():
    os.makedirs(WORK, exist_ok=True)
    imgs = os.path.join(WORK, "images")
    subprocess.run([GEN_IMAGES, imgs, "-n", "8"], check=True, capture_output=True)
    x = rf.synthetic_scene(SIZE, seed=3)
    v7a = ",".join("%g" % v for v in gah.V7_ANCHORS.ravel())
    for head in ("v5_70", "v5_60", "v7_grid", "v5lite", "v7_raw", "yolox", "yolox_dec"):
        path = os.path.join(WORK, head + ".onnx")
        m = gah.build(head, SIZE, NC, seed=2)
        import onnx
        onnx.save(m, path)
        # a YOLOX head makes the model's preprocessing YOLOX's (BGR 0..255): yolort-quantize
        # calibrates on such inputs, so the scene is given in 0..255 too
        xh = x * 255.0 if head.startswith("yolox") else x
        mm, params = rf.load(path)
        vals = rf.run(mm.graph.node, {"images": xh}, params)
        ref = np.concatenate([vals[o.name].reshape(1, -1, 5 + NC) for o in mm.graph.output], axis=1)
        want = decode_rows(ref, head)
        extra = ()
        if head == "v7_raw":
            r = subprocess.run([CONVERT, path, "-o", os.path.join(WORK, "v7_raw_no.yrt")], capture_output=True, text=True)
            msg = (r.stdout + r.stderr).strip().splitlines()[-1]
            check(r.returncode != 0 and "--anchors" in msg and "12,16,19,36" in msg,
                  "v7_raw without --anchors: refused naming the option and the defaults")
            extra = ("--anchors", v7a)
        y, log = yolort_output(path, xh, head, extra)
        fused = y is not None and "obj_decode" in log
        check(fused, "%s: converts and fuses its head into obj_decode" % head)
        if not fused:
            print(log)
            continue
        y = y[0].astype(np.float64)
        box = float((np.abs(y[:4] - want[:4]) / (1 + np.abs(want[:4]))).max())
        score = float(np.abs(y[4:] - want[4:]).max())
        n_pass = int((want[4:].max(0) > 0.25).sum())
        check(box < 1e-3 and score < 1e-4 and n_pass > 0,
              "%s: float output equals the export's, decoded (boxes %.2g rel, scores %.2g; %d anchors over 0.25)"
              % (head, box, score, n_pass))
        if head in ("v5_70", "v7_grid", "yolox"):
            q = subprocess.run([QUANTIZE, path, imgs, "-o", os.path.join(WORK, head + ".qdq.onnx"), "-q"],
                               capture_output=True, text=True)
            check(q.returncode == 0, "%s: yolort-quantize exits %d" % (head, q.returncode))
            if q.returncode:
                continue
            yq, logq = yolort_output(os.path.join(WORK, head + ".qdq.onnx"), xh, head + ".i8")
            ok = yq is not None and "obj_decode" in logq and "int8" in logq
            check(ok, "%s: the int8 QDQ model converts, fuses its head and runs int8" % head)
            if ok:
                err = float(np.abs(yq[0][4:] - want[4:]).mean())
                check(err < 0.05, "%s: int8 scores near float (mean |diff| %.3g)" % (head, err))
    import onnx
    qat = os.path.join(WORK, "v7_qat.onnx")
    onnx.save(qat_layout(gah.build("v7_grid", SIZE, NC, seed=2), x), qat)
    yq, logq = yolort_output(qat, x, "v7_qat")
    ok = yq is not None and "obj_decode" in logq and "int8" in logq
    check(ok, "v7_grid in the QAT layout (zero-point-0 Q/DQ on conv inputs): fuses, runs int8")
    if ok:
        mm, params = rf.load(os.path.join(WORK, "v7_grid.onnx"))
        want = decode_rows(rf.run(mm.graph.node, {"images": x}, params)["output"], "v7_grid")
        err = float(np.abs(yq[0][4:] - want[4:]).mean())
        check(err < 0.05, "v7_grid QAT: scores near float (mean |diff| %.3g)" % err)
    bad = os.path.join(WORK, "v5_bad.onnx")
    import onnx
    onnx.save(gah.build("v5_bad", SIZE, NC, seed=2), bad)
    r = subprocess.run([CONVERT, bad, "-o", os.path.join(WORK, "bad.yrt")], capture_output=True, text=True)
    msg = (r.stdout + r.stderr).strip().splitlines()[-1] if (r.stdout + r.stderr).strip() else ""
    check(r.returncode != 0 and "row per anchor" in msg, "hostile head refused: %s" % msg[:160])
    if failures:
        print("%d failure(s)" % len(failures))
        sys.exit(1)
    print("all anchor-head variants ok")


if __name__ == "__main__":
    main()
