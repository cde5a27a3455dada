#!/usr/bin/python3
"""check_obb.py BUILD_DIR PROJECT_DIR WORK_DIR — OBB heads (issue 36 item 4) on a generated
YOLO11n-obb (models/gen_yolo11.py --task obb --nc 15: the Ultralytics OBB head, dist2rbox in the
graph, output0 [1, 4 + 15 + 1, N] = cx, cy, w, h, classes, angle), against onnxruntime-node on
the same file and the same letterboxed inputs (ort_vs_yolort dump; synthetic scenes, plus COCO
val images when $YOLORT_DATA has them). onnxruntime's output0 goes through Ultralytics' rotated
NMS transcribed here (best class, conf 0.25, boxes offset by class * 7680, TorchNMS.fast_nms on
batch_probiou, IoU 0.45, max_det 300); a box counts as found when yolort has one of the same class
with probiou >= 0.9 (the issue's criterion).

1. yolort-convert fuses the head into detect_decode + obb_decode (verified on random logits), and
   the C API (obb_run.c: yrt_session_postprocess, yrt_session_rbox) finds >= 0.95 of
   onnxruntime's boxes;
2. the int8 model (yolort-quantize's QDQ ONNX, run by both): recall reported; the rotated boxes
   at the anchors onnxruntime's NMS keeps have probiou >= 0.9 with its own for >= 0.95 of them;
3. yrt_session_detect on an RGB frame stored upside down gives the upright frame's rotated boxes
   turned back; yolort-detect --json gives "rbox", "angle" in [0, pi/2) and 4 "corners" per
   detection, -o writes the overlay; yolort-inspect names the task;
4. a look-alike angle decode ((sigmoid - 0.3) pi) and the model converted without the head fusion
   are refused.
Without onnxruntime-node (bench/peers/ort/node_modules) it skips (77), or fails under CI=true.
"""
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from head_check import (check, exit_status, float_and_int8, generated, images, ort_and_runner,  # noqa: E402
                        refusals, require_ort, run, tools, upside_down, whole_outputs)

BUILD, ROOT, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
TOOLS = tools(BUILD, ROOT)
CONVERT, QUANTIZE, DETECT, INSPECT, DUMP, RUN, ORT, ORT_JS = (
    TOOLS[k] for k in ("CONVERT", "QUANTIZE", "DETECT", "INSPECT", "DUMP", "RUN", "ORT", "ORT_JS"))
OBB_RUN = os.path.join(BUILD, "tests", "models", "obb_run")
SIZE, NC = 320, 15


def covariance(b):
    """Ultralytics _get_covariance_matrix of rows (cx, cy, w, h, angle)."""
    a, bb, c = b[:, 2:3] ** 2 / 12, b[:, 3:4] ** 2 / 12, b[:, 4:5]
    cos, sin = np.cos(c), np.sin(c)
    return a * cos ** 2 + bb * sin ** 2, a * sin ** 2 + bb * cos ** 2, (a - bb) * cos * sin


def batch_probiou(o1, o2, eps=1e-7):
    """Ultralytics utils/metrics.py batch_probiou, in numpy (float64): [len(o1), len(o2)]."""
    x1, y1 = o1[:, 0:1], o1[:, 1:2]
    x2, y2 = o2[:, 0][None], o2[:, 1][None]
    a1, b1, c1 = covariance(o1)
    a2, b2, c2 = (v[:, 0][None] for v in covariance(o2))
    den = (a1 + a2) * (b1 + b2) - (c1 + c2) ** 2
    t1 = ((a1 + a2) * (y1 - y2) ** 2 + (b1 + b2) * (x1 - x2) ** 2) / (den + eps) * 0.25
    t2 = ((c1 + c2) * (x2 - x1) * (y1 - y2)) / (den + eps) * 0.5
    t3 = np.log(den / (4 * np.sqrt(np.clip(a1 * b1 - c1 ** 2, 0, None) * np.clip(a2 * b2 - c2 ** 2, 0, None)) + eps)
                + eps) * 0.5
    bd = np.clip(t1 + t2 + t3, eps, 100.0)
    return 1 - np.sqrt(1 - np.exp(-bd) + eps)


def nms_rotated(out, conf=0.25, iou_thr=0.45, max_det=300):
    """Ultralytics non_max_suppression(rotated=True) of output0 [4 + NC + 1, N]: rows (class,
    score, cx, cy, w, h, angle) by score."""
    scores = out[4:4 + NC]
    cls, best = scores.argmax(0), scores.max(0)
    idx = np.nonzero(best > conf)[0]
    idx = idx[np.lexsort((idx, -best[idx]))][:30000]
    if len(idx) == 0:
        return []
    b = np.stack([out[0, idx] + cls[idx] * 7680.0, out[1, idx], out[2, idx], out[3, idx], out[4 + NC, idx]], 1)
    ious = np.triu(batch_probiou(b.astype(np.float64), b.astype(np.float64)), 1)
    pick = np.nonzero((ious >= iou_thr).sum(0) <= 0)[0][:max_det]
    return [(int(cls[idx[p]]), float(best[idx[p]]), out[0:4, idx[p]].astype(np.float64), float(out[4 + NC, idx[p]]),
             int(idx[p])) for p in pick]


def read_yolort(path):
    dets = []
    for line in open(path):
        v = [float(x) for x in line.split()]
        dets.append((int(v[0]), v[1], np.array(v[2:6]), v[6]))
    return dets


def rb(box, angle):
    return np.array([[box[0], box[1], box[2], box[3], angle]], np.float64)


def compare(tag, onnx_path, yrt_path, dump_dir, n_img, int8):
    """onnxruntime's output0 on the dumped inputs, its rotated NMS, against obb_run's detections."""
    if not ort_and_runner(tag, ORT_JS, ORT, OBB_RUN, onnx_path, yrt_path, dump_dir, n_img, SIZE, "rotated 1",
                          "a rotated box per detection"):
        return
    total = matched = n_yrt = 0
    ious = []
    for i in range(n_img):
        ort_out = np.fromfile(os.path.join(dump_dir, "%d.ort.f32" % i), np.float32).reshape(4 + NC + 1, -1)
        ref, got = nms_rotated(ort_out), read_yolort(os.path.join(dump_dir, "%d.yrt.txt" % i))
        n_yrt += len(got)
        for c, sc, box, ang, _ in ref:
            total += 1
            best = max([batch_probiou(rb(box, ang), rb(b2, a2))[0, 0] for c2, _, b2, a2 in got if c2 == c] + [0.0])
            matched += best >= 0.9
            ious.append(best)
    recall = matched / total if total else 0.0
    check(total >= 20, "%s: onnxruntime finds %d rotated boxes over 0.25 in %d images (yolort %d; enough to judge)"
          % (tag, total, n_img, n_yrt))
    print("     %s: recall at conf 0.25 %.3f (%d of %d; same class, probiou >= 0.9), median probiou of the best "
          "match %.4f" % (tag, recall, matched, total, float(np.median(ious)) if ious else 0.0))
    if not int8:
        check(recall >= 0.95, "%s: box recall %.3f of onnxruntime's %d (>= 0.95)" % (tag, recall, total))
        return
    # int8: this synthetic net's class scores move by up to ~0.5 between two int8 implementations
    # (as in check_pose.py; 15 classes of near scores: the best class flips too), so which anchor
    # NMS keeps differs and the recall above is informational. Judged instead: the rotated boxes
    # at the anchors onnxruntime keeps (yolort's whole output0, the same inputs).
    pio = []
    for ort_out, y in whole_outputs(RUN, yrt_path, dump_dir, n_img, 4 + NC + 1):
        for _, _, _, _, a in nms_rotated(ort_out):
            pio.append(batch_probiou(rb(ort_out[0:4, a], ort_out[4 + NC, a]), rb(y[0:4, a], y[4 + NC, a]))[0, 0])
    pio = np.array(pio)
    frac = float((pio >= 0.9).mean()) if len(pio) else 0.0
    check(frac >= 0.95, "%s: rotated boxes at onnxruntime's %d kept anchors: probiou >= 0.9 for %.3f (>= 0.95), "
          "median %.4f" % (tag, len(pio), frac, float(np.median(pio)) if len(pio) else 0.0))


def main():
    require_ort(ORT)
    model = generated(ROOT, WORK, "obb", NC, SIZE)
    imgs, n_img = images(WORK, TOOLS["GEN_IMAGES"], ROOT)

    # 1. float, 2. int8: yolort-quantize's QDQ ONNX, run by both
    yrt = float_and_int8(TOOLS, model, imgs, n_img,
                         (("-> detect_decode", "obb_decode: rotated boxes"),
                          "converts, head -> detect_decode + obb_decode"),
                         (("obb_decode: rotated boxes", "int8"), "the QDQ model converts, fuses the head, runs its convs int8"),
                         compare)
    if not yrt:
        return

    # 3. the tools
    jpg = os.path.join(imgs, sorted(os.listdir(imgs))[0])  # COCO's first when there, else a synthetic scene
    overlay = os.path.join(WORK, "overlay.jpg")
    if os.path.exists(overlay):
        os.remove(overlay)
    r = run([DETECT, yrt, jpg, "--json", "-o", overlay])
    ok = r.returncode == 0 and os.path.exists(overlay) and os.path.getsize(overlay) > 0
    try:
        j = json.loads(r.stdout.splitlines()[0])
        dets = j["detections"]
        ok = ok and j["task"] == "obb" and len(dets) > 0 and all(
            0 <= d["angle"] < math.pi / 2 and len(d["rbox"]) == 5 and len(d["corners"]) == 4 and
            all(len(c) == 2 for c in d["corners"]) and
            abs(sum(c[0] for c in d["corners"]) / 4 - d["rbox"][0]) < 0.05 for d in dets)
    except (ValueError, KeyError, IndexError) as e:
        ok = False
        print(e, r.stdout[:300], r.stderr[:300])
    check(ok, "yolort-detect --json: rbox, angle in [0, pi/2), 4 corners around the centre per detection; -o draws")
    total, worst = upside_down(OBB_RUN, yrt, [os.path.join(imgs, f) for f in sorted(os.listdir(imgs))[:6]])
    check(total > 0 and worst <= 0.05, "yrt_session_detect on a frame stored upside down (orientation 180): %d "
          "detections, rotated boxes equal the upright frame's turned back (max deviation %g)" % (total, worst))
    r = run([INSPECT, model])
    check("task obb (metadata)" in r.stdout, "yolort-inspect names the task")

    # 4. a look-alike angle decode: refused, never decoded as rotated boxes; --no-fuse-head too
    refusals(CONVERT, model, "/model.23/obb_quarter", lambda a: np.array(0.3, np.float32),
             "rotated-box decode was not fused", "angle row would be read as a class",
             ("look-alike angle decode refused", "--no-fuse-head on an obb model refused"))

if __name__ == "__main__":
    main()
    exit_status("obb ok")
