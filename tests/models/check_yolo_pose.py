#!/usr/bin/python3
"""check_yolo_pose.py BUILD_DIR PROJECT_DIR WORK_DIR — the YOLO-Pose head of the TI edgeai-yolov5
kind (issue 36) on the real export $YOLORT_DATA/models/wild2/yolo-pose-ghost_pose_1_fp32_192.onnx
(192x192, 1 class, 17 keypoints; raw per-grid maps [1, 3, H, W, 57], no anchors, no metadata),
against onnxruntime-node on the same file and the same letterboxed val images:

1. yolort-convert fuses the head (obj_decode for boxes, pose_decode in the YOLO-Pose form for
   the keypoints, both verified on random logits), with 17 x 3 keypoints read off the head's
   structure, the family's default anchors and preprocessing said in the summary; --kpt-shape
   17,3 gives the same, a --kpt-shape that does not fit the head is refused;
2. onnxruntime's three raw outputs are decoded here by an independent transcription of TI's
   Detect (models/yolo.py: sigmoid of box / objectness / class, xy = (2 s - 0.5 + grid) stride,
   wh = (2 s)^2 anchor, keypoint x = (2 v - 0.5 + grid) stride, conf = sigmoid(v); YOLOv5's
   default anchors, which the family's configs keep at strides 4 / 8 / 16) and its NMS
   (score = objectness x class, conf 0.25, IoU 0.45); the C API (pose_run.c:
   yrt_session_postprocess, yrt_session_keypoints) must recall >= 95% of those boxes (IoU >= 0.5)
   with the keypoints of matched boxes within 2 px median and 6 px at the 95th percentile;
3. yolort-detect --json gives 17 [x, y, score] keypoints per detection, -o draws them;
4. the product's flow for an FP32 file: yolort-quantize on calibration images (YOLO_POSE_CALIB,
   default 64, the first of data/coco/calib) with run_wild.sh's --float-stem 8, minmax ranges
   (--method minmax: the default percentile 99.999 clips the tails the objectness logits live on,
   recall 0.92-0.94) and the keypoint branch kept in float (--exclude '/model.22/m_kpt*': with it
   int8 keypoints are 1.6 px median, 6.8 px p95) writes a .yrt held to the same bars against
   onnxruntime's FP32 maps (measured recall 0.969 with 64 and 128 images, keypoints 0.4 / 3.7-3.9 px);
   its --report (per-layer SQNR) is written.
Without the file, the val images or onnxruntime-node it skips (77), or fails under CI=true.
"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pose_common  # noqa: E402
from pose_common import check, failures, run  # noqa: E402

BUILD, ROOT, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
T = lambda *p: os.path.join(BUILD, *p)  # noqa: E731
CONVERT, DETECT, QUANTIZE = T("tools", "yolort-convert"), T("tools", "yolort-detect"), T("tools", "yolort-quantize")
DUMP, POSE_RUN = T("tests", "models", "ort_vs_yolort"), T("tests", "models", "pose_run")
ORT = os.path.join(ROOT, "bench", "peers", "ort")
ORT_JS = os.path.join(ROOT, "tests", "models", "ort_outputs.js")
DATA = os.environ.get("YOLORT_DATA", os.environ.get("YOLORT_DEFAULT_DATA", os.path.join(ROOT, "..", "shared")))
MODEL = os.path.join(DATA, "models", "wild2", "yolo-pose-ghost_pose_1_fp32_192.onnx")
VAL = os.path.join(DATA, "data", "coco", "val", "images")
CALIB = os.path.join(DATA, "data", "coco", "calib", "images")
SIZE, NK, NC = 192, 17, 1
# YOLOv5's default anchors (models/yolov5s.yaml), kept by the YOLO-Pose configs at any strides
ANCHORS = np.array([[10, 13, 16, 30, 33, 23], [30, 61, 62, 45, 59, 119], [116, 90, 156, 198, 373, 326]],
                   np.float64).reshape(3, 3, 2)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def ti_decode(maps):
    """TI's Detect.forward (inference, inplace) on the raw maps [1, na, ny, nx, 5 + nc + 3 nk],
    largest grid first: rows [4 + 1 + 3 nk, N] (cx, cy, w, h, objectness x class, keypoints)."""
    z = []
    for i, x in enumerate(maps):
        x = x[0].astype(np.float64)
        na, ny, nx, _ = x.shape
        stride = SIZE / ny
        yv, xv = np.meshgrid(np.arange(ny), np.arange(nx), indexing="ij")
        gx, gy = xv[None, :, :, None], yv[None, :, :, None]
        det = sigmoid(x[..., :5 + NC])
        xy_x = (det[..., 0:1] * 2.0 - 0.5 + gx) * stride
        xy_y = (det[..., 1:2] * 2.0 - 0.5 + gy) * stride
        wh = (det[..., 2:4] * 2.0) ** 2 * ANCHORS[i].reshape(na, 1, 1, 2)
        kpt = x[..., 5 + NC:].copy()
        kpt[..., 0::3] = (kpt[..., 0::3] * 2.0 - 0.5 + gx) * stride
        kpt[..., 1::3] = (kpt[..., 1::3] * 2.0 - 0.5 + gy) * stride
        kpt[..., 2::3] = sigmoid(kpt[..., 2::3])
        score = det[..., 4:5] * det[..., 5:5 + NC]  # non_max_suppression: conf = obj x cls
        z.append(np.concatenate([xy_x, xy_y, wh, score, kpt], -1).reshape(-1, 4 + NC + 3 * NK))
    return np.concatenate(z, 0).T


def missing(what):
    if os.environ.get("CI") == "true":
        print("FAIL: CI=true but %s is missing" % what)
        sys.exit(1)
    print("skipping: %s not found" % what)
    sys.exit(77)


def main():
    if not os.path.isfile(MODEL):
        missing(MODEL)
    if not os.path.isdir(VAL):
        missing(VAL)
    if not (shutil.which("node") and os.path.isdir(os.path.join(ORT, "node_modules", "onnxruntime-node"))):
        missing("onnxruntime-node in %s (cd %s && npm ci --ignore-scripts)" % (ORT, ORT))
    os.makedirs(WORK, exist_ok=True)

    # 1. conversion
    yrt = os.path.join(WORK, "yolo-pose.yrt")
    r = run([CONVERT, MODEL, "-o", yrt])
    log = r.stdout + r.stderr
    head = [ln for ln in log.splitlines() if ln.startswith("detect head")]
    check(r.returncode == 0 and "-> obj_decode" in log and "keypoints: 17 x 3 raw" in log and
          "pose_decode, YOLO-Pose form" in log and "default P3-P5 anchors" in log and "1 classes" in log,
          "converts: boxes -> obj_decode, 17 x 3 keypoints -> pose_decode (%s)" % (head[:1] or log[-300:]))
    check("YOLO-Pose family" in log, "the family's preprocessing is said: %s" %
          [ln for ln in log.splitlines() if ln.startswith("preprocessing")][:1])
    if r.returncode:
        return
    r = run([CONVERT, MODEL, "-o", os.path.join(WORK, "k.yrt"), "--kpt-shape", "17,3"])
    check(r.returncode == 0 and "(kpt_shape)" in r.stdout, "--kpt-shape 17,3 converts the same head")
    r = run([CONVERT, MODEL, "-o", os.path.join(WORK, "bad.yrt"), "--kpt-shape", "16,3"])
    check(r.returncode != 0 and "kpt_shape 16 x 3" in r.stderr,
          "--kpt-shape 16,3 is refused, naming it (%s)" % r.stderr.strip()[-160:])

    # 2. against onnxruntime's raw maps, decoded here from TI's source
    n_img = int(os.environ.get("YOLO_POSE_IMAGES", "200"))
    dump = os.path.join(WORK, "dump")
    shutil.rmtree(dump, ignore_errors=True)
    os.makedirs(dump)
    subprocess.run([DUMP, "dump", yrt, VAL, str(n_img), dump], check=True, capture_output=True)
    n_img = len([f for f in os.listdir(dump) if f.endswith(".in.f32")])
    r = run(["node", ORT_JS, ORT, MODEL, dump, str(n_img), str(SIZE), str(SIZE), "all"])
    check(r.returncode == 0, "onnxruntime runs the model (%s)" % r.stderr.strip()[:200])
    r = run([POSE_RUN, yrt, dump, str(n_img)])
    check(r.returncode == 0 and r.stdout.startswith("keypoints 17 3"),
          "the C API gives 17 x 3 keypoints per detection (%s)" % (r.stdout + r.stderr).strip()[:200])
    if failures:
        return
    refs = []
    for i in range(n_img):
        maps = [np.fromfile(os.path.join(dump, "%d.ort%d.f32" % (i, k)), np.float32).reshape(1, 3, SIZE // s, SIZE // s, -1)
                for k, s in enumerate((4, 8, 16))]
        refs.append(pose_common.nms(ti_decode(maps), NK))
    judge(refs, dump, "")

    # 3. yolort-detect --json / -o on a photo with a person
    detect_json(yrt)

    # 4. the FP32 file through yolort-quantize, judged on the same inputs against the same maps
    if not os.path.isdir(CALIB):
        missing(CALIB)
    qyrt, report = os.path.join(WORK, "yolo-pose.q.yrt"), os.path.join(WORK, "yolo-pose.report.txt")
    if os.path.exists(report):
        os.remove(report)
    n_cal = os.environ.get("YOLO_POSE_CALIB", "64")
    r = run([QUANTIZE, MODEL, CALIB, "-n", n_cal, "-q", "--float-stem", "8", "--method", "minmax", "--exclude",
             "/model.22/m_kpt*", "-o", os.path.join(WORK, "yolo-pose.qdq.onnx"), "--yrt", qyrt, "--report", report])
    check(r.returncode == 0 and os.path.isfile(qyrt), "yolort-quantize on %s calibration images writes an int8 .yrt "
          "(%s)" % (n_cal, (r.stdout + r.stderr).strip()[-200:]))
    check(r.returncode == 0 and os.path.isfile(report) and "output0 SQNR" in open(report).read(),
          "--report with --float-stem: per-layer SQNR written (the stem's Focus shape Constant is folded, not "
          "an exclusion naming no node)")
    if r.returncode:
        return
    r = run([POSE_RUN, qyrt, dump, str(n_img)])
    check(r.returncode == 0, "the C API runs the quantized model (%s)" % (r.stdout + r.stderr).strip()[:200])
    if r.returncode == 0:
        judge(refs, dump, "int8 (yolort-quantize): ")


def judge(refs, dump, what, min_recall=0.95):
    """yolort's detections (pose_run's %d.yrt.txt) against onnxruntime's: recall, keypoint errors."""
    matched = total = 0
    dist = []
    for i, ref in enumerate(refs):
        got = pose_common.read_yolort(os.path.join(dump, "%d.yrt.txt" % i), NK)
        m, t, d, _ = pose_common.match(ref, got)
        matched, total, dist = matched + m, total + t, dist + d
    recall = matched / total if total else 0.0
    med, p95 = (float(np.median(dist)), float(np.percentile(dist, 95))) if dist else (float("inf"),) * 2
    check(total >= 50, "%sonnxruntime (TI decode) finds %d people over 0.25 in %d val images (enough to judge)"
          % (what, total, len(refs)))
    check(recall >= min_recall, "%sbox recall %.4f of onnxruntime's %d (>= %.2f)" % (what, recall, total, min_recall))
    check(med <= 2.0 and p95 <= 6.0, "%skeypoints of %d matched boxes: median %.4f px, 95th percentile %.4f px, max "
          "%.4f px (192x192 input pixels)" % (what, matched, med, p95, max(dist) if dist else float("inf")))


def detect_json(yrt):
    labels = os.path.join(os.path.dirname(VAL), "labels")
    person = next((f[:-4] for f in sorted(os.listdir(labels)) if any(ln.startswith("0 ") for ln in open(
        os.path.join(labels, f)))), None) if os.path.isdir(labels) else None
    img = os.path.join(VAL, (person or sorted(os.listdir(VAL))[0][:-4]) + ".jpg")
    png = os.path.join(WORK, "skeleton.jpg")
    r = run([DETECT, yrt, img, "--json", "-o", png])
    try:
        dets = json.loads(r.stdout)["detections"]
    except (ValueError, KeyError):
        dets = None
    check(r.returncode == 0 and dets and all(len(d.get("keypoints", [])) == NK for d in dets) and os.path.isfile(png),
          "yolort-detect --json: %s detections with 17 keypoints each, -o draws them" % (len(dets) if dets else dets))


if __name__ == "__main__":
    main()
    pose_common.exit_status("all yolo-pose checks passed")
