#!/usr/bin/python3
"""check_e2e_tasks.py BUILD_DIR PROJECT_DIR WORK_DIR pose|obb|obb26 — end-to-end (NMS-free) pose and obb
heads (issue 36 item 7) on generated YOLO11n exports with Ultralytics' end2end postprocess
(models/gen_yolo11.py --task pose|obb --end2end 300: Pose / OBB.postprocess, output0
[1, 300, 6 + 51] x1 y1 x2 y2 score class keypoints, or [1, 300, 7] cx cy w h score class angle),
against onnxruntime-node on the same file and letterboxed inputs (synthetic scenes, plus COCO val
images when $YOLORT_DATA has them):

1. yolort-convert fuses the selection into detect_topk carrying the extra columns, the decode into
   detect_decode + pose_decode / obb_decode (verified on random logits);
2. the C API (pose_run / obb_run: yrt_session_postprocess, yrt_session_keypoints / _rbox on the
   kept rows, no NMS) finds >= 95% of onnxruntime's rows over conf 0.25 (same class, IoU >= 0.5;
   rotated: probiou >= 0.9), keypoints of matched boxes within 2 px median, 6 px p95;
3. int8 (yolort-quantize's QDQ ONNX, run by both): this random-weight net's scores move by up to
   ~0.4 between two int8 implementations (check_pose.py), so which 300 anchors the top-k keeps
   differs; judged: onnxruntime's rows scoring >= 0.35 found among yolort's 300 rows (whatever
   their score) >= 0.9, rotated boxes probiou >= 0.9, and the keypoints of the row from the same
   anchor (of the matching boxes, the nearest keypoints) within 2 px median, 6 px p95;
4. yolort-detect --json on the end-to-end model gives keypoints / rotated boxes; a selection whose
   extra columns are gathered by another index is refused at convert, naming why.
obb26: the same for YOLO26's OBB26 head (--obb-angle raw: the angle conv's value is the angle),
fused with obb_decode's raw angle form.
Without onnxruntime-node it skips (77), or fails under CI=true (head_check.require_ort).
"""
import json
import os
import subprocess
import sys

import numpy as np
import onnx

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from head_check import dump_inputs, images, last_line, require_ort  # noqa: E402
from pose_common import check, iou, run  # noqa: E402
import pose_common  # noqa: E402
from check_obb import batch_probiou, rb  # noqa: E402

BUILD, ROOT, WORK, TASK = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
# obb26: YOLO26's OBB26 head (gen_yolo11.py --obb-angle raw: the angle conv's value is the angle,
# no sigmoid), checked as obb
RAW_ANGLE = TASK == "obb26"
TASK = "obb" if RAW_ANGLE else TASK
T = lambda *p: os.path.join(BUILD, *p)  # noqa: E731
CONVERT, QUANTIZE, DETECT = T("tools", "yolort-convert"), T("tools", "yolort-quantize"), T("tools", "yolort-detect")
GEN_IMAGES, DUMP = T("tools", "yolort-gen-images"), T("tests", "models", "ort_vs_yolort")
RUNNER = T("tests", "models", "pose_run" if TASK == "pose" else "obb_run")
RUN = T("tests", "models", "wild_accept")
ORT = os.path.join(ROOT, "bench", "peers", "ort")
ORT_JS = os.path.join(ROOT, "tests", "models", "ort_outputs.js")
SIZE, K = 320, 300
NK, NC = 17, (1 if TASK == "pose" else 15)
EXTRA = NK * 3 if TASK == "pose" else 1


def ort_rows(dump_dir, i, conf):
    """onnxruntime's end-to-end rows over conf: (class, score, box, extra)."""
    y = np.fromfile(os.path.join(dump_dir, "%d.ort.f32" % i), np.float32).reshape(K, 6 + EXTRA)
    return [(int(r[5]), float(r[4]), r[0:4].astype(np.float64), r[6:]) for r in y if r[4] > conf]


def yolort_rows(path):
    """pose_run / obb_run's detection lines: (class, score, box, extra) — box x0 y0 x1 y1 with the
    keypoints [NK, 3] (pose), or cx cy w h with the angle (obb)."""
    out = []
    for line in open(path):
        v = [float(x) for x in line.split()]
        out.append((int(v[0]), v[1], np.array(v[2:6]), np.array(v[6:]).reshape(NK, 3) if TASK == "pose" else v[6]))
    return out


def same(ref, got):
    """Box agreement of a reference row and a yolort row of the same class (IoU or probiou)."""
    if ref[0] != got[0]:
        return 0.0
    if TASK == "pose":
        return iou(ref[2], got[2])
    return batch_probiou(rb(ref[2], float(ref[3][0])), rb(got[2], got[3]))[0, 0]


def kpt_dist(ref, got):
    kp, gk = ref[3].reshape(NK, 3), got[3]
    return np.hypot(gk[:, 0] - kp[:, 0], gk[:, 1] - kp[:, 1])


def match(refs, gots, need, same_anchor=False):
    """Matched count and the keypoint distances (pose) of the matched rows: the best box, or with
    same_anchor the matching box whose keypoints are nearest (the row of onnxruntime's anchor when
    yolort kept it: a neighbouring anchor has a like box but, in this random net, other keypoints)."""
    matched, dist = 0, []
    for ref in refs:
        cands = [(same(ref, g), j) for j, g in enumerate(gots)]
        ok = [j for v, j in cands if v >= need]
        if not ok:
            continue
        matched += 1
        if TASK == "pose":
            j = min(ok, key=lambda j: float(np.mean(kpt_dist(ref, gots[j])))) if same_anchor else max(cands)[1]
            dist.extend(kpt_dist(ref, gots[j]).tolist())
    return matched, dist


def all_rows(yrt_path, dump_dir, i):
    """yolort's whole output0 [K, 6 + EXTRA] on input i (wild_accept run), as rows (obb: the box as is)."""
    out = os.path.join(dump_dir, "%d.yrt.f32" % i)
    subprocess.run([RUN, "run", yrt_path, os.path.join(dump_dir, "%d.in.f32" % i), out], check=True,
                   capture_output=True)
    y = np.fromfile(out, np.float32).reshape(K, 6 + EXTRA)
    return [(int(r[5]), float(r[4]), r[0:4].astype(np.float64),
             r[6:].reshape(NK, 3) if TASK == "pose" else float(r[6])) for r in y]


def compare(tag, onnx_path, yrt_path, dump_dir, n_img, int8=False):
    r = run(["node", ORT_JS, ORT, onnx_path, dump_dir, str(n_img), str(SIZE), str(SIZE)])
    check(r.returncode == 0, "%s: onnxruntime runs the model (%s)" % (tag, r.stderr.strip()[:200]))
    r = run([RUNNER, yrt_path, dump_dir, str(n_img)])
    head = "keypoints 17 3" if TASK == "pose" else "rotated 1"
    check(r.returncode == 0 and r.stdout.startswith(head),
          "%s: the C API gives %s per detection (%s)" % (tag, head, (r.stdout + r.stderr).strip()[:200]))
    if r.returncode:
        return
    need = 0.5 if TASK == "pose" else 0.9
    total = matched = 0
    dist = []
    for i in range(n_img):
        refs, gots = ort_rows(dump_dir, i, 0.25), yolort_rows(os.path.join(dump_dir, "%d.yrt.txt" % i))
        m, d = match(refs, gots, need)
        matched, total = matched + m, total + len(refs)
        dist.extend(d)
    recall = matched / total if total else 0.0
    med, p95 = (float(np.median(dist)), float(np.percentile(dist, 95))) if dist else (float("inf"),) * 2
    check(total >= 20, "%s: onnxruntime keeps %d rows over 0.25 in %d images (enough to judge)" % (tag, total, n_img))
    kp = (", keypoints of matched boxes median %.3f px, p95 %.3f px" % (med, p95)) if TASK == "pose" else ""
    if not int8:
        check(recall >= 0.95, "%s: recall %.3f of onnxruntime's %d rows (same class, %s >= %g)%s"
              % (tag, recall, total, "IoU" if TASK == "pose" else "probiou", need, kp))
        if TASK == "pose":
            check(med <= 2.0 and p95 <= 6.0, "%s: keypoints median %.3f <= 2 px, p95 %.3f <= 6 px" % (tag, med, p95))
        return
    print("     %s: at conf 0.25 recall %.3f of %d (informational)%s" % (tag, recall, total, kp))
    total = matched = 0
    dist = []
    for i in range(n_img):
        refs = ort_rows(dump_dir, i, 0.35)
        m, d = match(refs, all_rows(yrt_path, dump_dir, i), need, same_anchor=True)
        matched, total = matched + m, total + len(refs)
        dist.extend(d)
    rc = matched / total if total else 0.0
    check(total >= 10 and rc >= 0.9, "%s: onnxruntime's %d rows scoring >= 0.35 found among yolort's %d rows: %.3f "
          "(>= 0.9)" % (tag, total, K, rc))
    if TASK == "pose":
        med, p95 = (float(np.median(dist)), float(np.percentile(dist, 95))) if dist else (float("inf"),) * 2
        check(med <= 2.0 and p95 <= 6.0, "%s: their keypoints median %.3f px, p95 %.3f px" % (tag, med, p95))


def main():
    require_ort(ORT)
    os.makedirs(WORK, exist_ok=True)
    model = os.path.join(WORK, "%s-e2e.onnx" % sys.argv[4])
    subprocess.run([sys.executable, os.path.join(ROOT, "models", "gen_yolo11.py"), "--task", TASK, "--nc", str(NC),
                    "--size", str(SIZE), "--end2end", str(K), "--no-bn", "--seed", "1", "--out", model] +
                   (["--obb-angle", "raw"] if RAW_ANGLE else []), check=True,
                   stdout=subprocess.DEVNULL)
    imgs, n_img = images(WORK, GEN_IMAGES, ROOT, n=10)  # 20 images: hundreds of rows, under a minute
    decode = "pose_decode (17 keypoints x 3" if TASK == "pose" else \
        "obb_decode: rotated boxes, angle row (raw angle" if RAW_ANGLE else "obb_decode: rotated boxes"
    carried = "%d extra columns carried" % EXTRA

    # 1-2. float
    yrt = os.path.join(WORK, "%s-e2e.yrt" % TASK)
    r = run([CONVERT, model, "-o", yrt])
    log = r.stdout + r.stderr
    check(r.returncode == 0 and carried in log and decode in log and "-> detect_decode" in log,
          "float: converts, selection -> detect_topk (%s), decode -> detect_decode + %s (%s)"
          % (carried, decode.split(" ")[0], [ln for ln in log.splitlines() if "head" in ln][:2] or log[-300:]))
    if r.returncode:
        return
    dump = os.path.join(WORK, "f32")
    dump_inputs(DUMP, yrt, imgs, n_img, dump)
    compare("float", model, yrt, dump, n_img)

    # 3. int8
    qdq = os.path.join(WORK, "%s-e2e.qdq.onnx" % TASK)
    q = run([QUANTIZE, model, imgs, "-o", qdq, "-q"])
    check(q.returncode == 0, "int8: yolort-quantize exits %d %s" % (q.returncode, q.stderr.strip()[-200:]))
    if q.returncode == 0:
        yq = os.path.join(WORK, "%s-e2e.i8.yrt" % TASK)
        r = run([CONVERT, qdq, "-o", yq])
        log = r.stdout + r.stderr
        check(r.returncode == 0 and carried in log and decode in log and "int8" in log,
              "int8: the QDQ model converts, fuses selection and decode, runs its convs int8")
        if r.returncode == 0:
            dq = os.path.join(WORK, "i8")
            dump_inputs(DUMP, yq, imgs, n_img, dq)
            compare("int8", qdq, yq, dq, n_img, int8=True)

    # 4. the CLI, and a selection that is not Ultralytics': refused
    jpg = os.path.join(imgs, sorted(os.listdir(imgs))[0])
    r = run([DETECT, yrt, jpg, "--json"])
    try:
        j = json.loads(r.stdout.splitlines()[0])
        dets = j["detections"]
        key = "keypoints" if TASK == "pose" else "rbox"
        ok = r.returncode == 0 and j["task"] == TASK and all(key in d for d in dets)
        print("     yolort-detect: %d detections" % len(dets))
    except (ValueError, KeyError, IndexError) as e:
        ok = False
        print(e, r.stdout[:300], r.stderr[:300])
    check(ok, "yolort-detect --json on the end-to-end model: %s per detection"
          % ("keypoints" if TASK == "pose" else "rbox"))
    m = onnx.load(model)
    for n in m.graph.node:  # the extra columns gathered by the score index: not the boxes' anchor
        if n.name == "/model.23/GatherElements_2":
            tiled = [t for t in m.graph.node if t.name == "/model.23/Tile"][0].output[0]
            n.input[1] = tiled
    bad = os.path.join(WORK, "bad.onnx")
    onnx.save(m, bad)
    r = run([CONVERT, bad, "-o", os.path.join(WORK, "bad.yrt")])
    msg = last_line(r)
    check(r.returncode != 0 and "end-to-end" in msg and "extra columns" in msg,
          "extra columns gathered by another index: refused (%s)" % msg[:240])


if __name__ == "__main__":
    main()
    pose_common.exit_status("end-to-end %s ok" % TASK)
