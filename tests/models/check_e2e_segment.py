#!/usr/bin/python3
"""check_e2e_segment.py BUILD_DIR PROJECT_DIR WORK_DIR — the end-to-end (NMS-free) segment head
(issue 36 item 7) on the real wild/yolov8n-seg-320.dynamic.onnx with Ultralytics'
Segment.postprocess appended (its dist2bbox made xyxy, as end2end exports decode; then
models/gen_yolo11.py add_end2end: Split [4, 80, 32], the mask
coefficients gathered by the boxes' anchor index, output0 [1, 300, 38]; output1 the prototypes):
it converts with the selection fused into detect_topk carrying 32 columns, and on the first
SEG_IMAGES (default 8) val images yolort's detections (camera-frame path, no NMS) recall >= 0.95
of onnxruntime's rows over conf 0.25 (same class, IoU >= 0.5) and the masks of matched boxes have
an IoU >= 0.90 with masks computed from onnxruntime's rows and prototypes (seg_accept.c, as
check_segment.sh). Needs ../shared (YOLORT_DATA) and onnxruntime-node: without them it skips
(77), under CI=true it fails.
"""
import os
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models"))
from head_check import require_ort  # noqa: E402
from pose_common import check, exit_status, run  # noqa: E402
import gen_yolo11  # noqa: E402

BUILD, ROOT, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
DATA = os.environ.get("YOLORT_DATA") or os.environ.get("YOLORT_DEFAULT_DATA") or os.path.join(ROOT, "..", "shared")
MODEL = os.path.join(DATA, "models", "wild", "yolov8n-seg-320.dynamic.onnx")
VAL = os.path.join(DATA, "data", "coco", "val", "images")
ORT = os.path.join(ROOT, "bench", "peers", "ort")
K, NM = 300, 32


class Tail:
    """The few Builder calls add_end2end makes, on a loaded model's node list."""

    def __init__(self, m):
        self.nodes, self.inits = list(m.graph.node), []

    def const(self, name, arr):
        self.inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def node(self, op, name, inputs, n_out=1, **attrs):
        outs = ["%s_output_%d" % (name, i) for i in range(n_out)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=name, **attrs))
        return outs if n_out > 1 else outs[0]


def corners(m):
    """dist2bbox as an end2end export writes it (xywh=False): the Concat(c_xy, wh) of the decode
    becomes Concat(x1y1, x2y2), its c_xy = (x1y1 + x2y2) / 2 and wh = x2y2 - x1y1 read back."""
    prod = {o: n for n in m.graph.node for o in n.output}
    for n in m.graph.node:
        if n.op_type != "Concat" or len(n.input) != 2:
            continue
        div, sub = prod.get(n.input[0]), prod.get(n.input[1])
        add = prod.get(div.input[0]) if div is not None and div.op_type == "Div" else None
        if add is None or add.op_type != "Add" or sub is None or sub.op_type != "Sub":
            continue
        if sorted(add.input) == sorted(sub.input):
            n.input[0], n.input[1] = sub.input[1], sub.input[0]
            return True
    return False


def make_e2e(src, dst):
    m = onnx.load(src)
    check(corners(m), "the decode's centre-size Concat found and made corners (as end2end exports decode)")
    out0 = m.graph.output[0].type.tensor_type.shape
    n_anchor, nc = out0.dim[2].dim_value, out0.dim[1].dim_value - 4 - NM
    gen_yolo11.NC = nc
    t = Tail(m)
    gen_yolo11.add_end2end(t, n_anchor, K, NM)
    opset = max(o.version for o in m.opset_import if o.domain in ("", "ai.onnx"))
    for n in t.nodes:  # opset 18 takes ReduceMax's axes as an input
        if n.op_type == "ReduceMax" and opset >= 18:
            del n.attribute[:]
            n.attribute.append(helper.make_attribute("keepdims", 0))
            n.input.append(t.const(n.name + "_axes", np.array([-1], np.int64)))
    del m.graph.node[:]
    m.graph.node.extend(t.nodes)
    m.graph.initializer.extend(t.inits)
    out0.dim[1].dim_value, out0.dim[2].dim_value = K, 6 + NM
    onnx.save(m, dst)


def missing(what):
    if os.environ.get("CI") == "true":
        print("FAIL: CI=true and %s is missing" % what)
        sys.exit(1)
    print("skipping: %s not found" % what)
    sys.exit(77)


def main():
    require_ort(ORT)
    if not os.path.isfile(MODEL):
        missing(MODEL)
    if not os.path.isdir(VAL):
        missing(VAL)
    os.makedirs(WORK, exist_ok=True)
    model, yrt = os.path.join(WORK, "seg-e2e.onnx"), os.path.join(WORK, "seg-e2e.yrt")
    make_e2e(MODEL, model)
    r = run([os.path.join(BUILD, "tools", "yolort-convert"), model, "-o", yrt])
    log = r.stdout + r.stderr
    check(r.returncode == 0 and "%d extra columns carried" % NM in log and "%d pass-through rows" % NM in log,
          "converts: selection -> detect_topk carrying %d coefficient columns, Detect head with %d pass-through rows "
          "(%s)" % (NM, NM, [ln[:160] for ln in log.splitlines() if "head" in ln][:2] or log[-300:]))
    if r.returncode:
        return
    imgs = [os.path.join(VAL, f) for f in sorted(os.listdir(VAL))[:int(os.environ.get("SEG_IMAGES", "8"))]]
    seg = os.path.join(BUILD, "tests", "models", "seg_accept")
    r = run([seg, "prep", yrt, WORK] + imgs)
    check(r.returncode == 0, "yolort: detections and masks through the camera-frame path (%s)" % r.stderr.strip()[:200])
    r = run(["node", os.path.join(ROOT, "tests", "models", "ort_wild.js"), ORT, model, WORK, str(len(imgs)), "320",
             "320"])
    check(r.returncode == 0, "onnxruntime runs the end-to-end file (%s)" % r.stderr.strip()[:200])
    r = run([seg, "compare", yrt, WORK, str(len(imgs))])
    v = r.stdout.split()
    ok = r.returncode == 0 and len(v) >= 14
    # Every matched mask is not asked for: this export's head is not one-to-one (YOLOv8), so its
    # 300 rows hold near-duplicates of each object (neighbouring anchors, boxes 10-25 px apart,
    # other coefficients) that NMS would drop; int8 differences between the two runtimes swap a
    # few of them in and out of the top-k, and such a pair's masks differ (5 of 208 here).
    check(ok and float(v[1]) >= 0.95 and float(v[3]) >= 0.90 and float(v[13]) >= 0.95 and int(v[9]) >= 20,
          "recall >= 0.95 of onnxruntime's rows over 0.25, matched masks' IoU mean >= 0.90 and >= 0.90 for 95%% of "
          "them: %s" % (r.stdout.strip() or r.stderr.strip()[:200]))


if __name__ == "__main__":
    main()
    exit_status("end-to-end segment ok")
