#!/usr/bin/python3
"""check_eval_obb.py BUILD_DIR PROJECT_DIR WORK_DIR — yolort-eval's rotated mAP (issue 36 item 9)
on a generated YOLO11n-obb (models/gen_yolo11.py --task obb --nc 15) and a labelled set made from
its own float detections: synthetic scenes (yolort-gen-images), each one's detections over 0.15
(yolort-detect --json "corners", clamped to the image: this random net's boxes often reach past
it) written as Ultralytics obb labels ("class x1 y1 x2 y2 x3 y3 x4 y4", normalised; a scene with a
box that clamps to a sliver is left out). Then:
1. yolort-eval of the same float model (--conf 0.05: a random net's rotated NMS at 0.001 is slow;
   --iou 0.45, yolort-detect's NMS): the enclosing boxes' mAP50-95 >= 0.99 (its own boxes), the
   rotated boxes' mAP50 >= 0.85 by probiou (as Ultralytics' OBB validator) and >= 0.70 by
   --rotated-iou polygon (the clamped labels are quadrilaterals its rectangles match partly: 0.92
   and 0.79 here), each at most the enclosing boxes' (hand-computed values: test_coco_rotated.c);
2. --compare with the int8 model (yolort-quantize on the same scenes): both rotated lines printed,
   the int8 one lower or equal (informative);
3. an axis-aligned label line (class cx cy w h) is refused naming file:line, exit 1.
"""
import json
import math
import os
import re
import shutil
import subprocess
import sys

BUILD, ROOT, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
T = lambda *p: os.path.join(BUILD, "tools", *p)  # noqa: E731
failures = []


def check(cond, msg):
    print(("ok   " if cond else "FAIL ") + msg)
    if not cond:
        failures.append(msg)


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def enclosing(out):
    """The enclosing boxes' line(s) of yolort-eval's report: [(mAP50, mAP50-95)]."""
    return [(float(m.group(1)), float(m.group(2))) for m in re.finditer(r"^\S+\s+([0-9.]+)\s+([0-9.]+)\s+\d+\s*$", out, re.M)]


def rotated(out):
    """The rotated line(s) of yolort-eval's report: [(mAP50, mAP50-95)]."""
    return [(float(m.group(1)), float(m.group(2)))
            for m in re.finditer(r"^\S+\s+([0-9.]+)\s+([0-9.]+)\s+\d+\s+rotated boxes", out, re.M)]


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    model, yrt = os.path.join(WORK, "obb.onnx"), os.path.join(WORK, "obb.yrt")
    subprocess.run([sys.executable, os.path.join(ROOT, "models", "gen_yolo11.py"), "--task", "obb", "--nc", "15",
                    "--size", "320", "--no-bn", "--seed", "1", "--out", model], check=True, stdout=subprocess.DEVNULL)
    r = run([T("yolort-convert"), model, "-o", yrt])
    check(r.returncode == 0, "the generated obb model converts (%s)" % (r.stdout + r.stderr).strip()[-200:])
    scenes, imgs, labels = (os.path.join(WORK, d) for d in ("scenes", "images", "labels"))
    subprocess.run([T("yolort-gen-images"), scenes, "-n", "64"], check=True, capture_output=True)
    os.makedirs(labels)
    os.makedirs(imgs)
    n_lab = 0
    for f in sorted(os.listdir(scenes)):
        r = run([T("yolort-detect"), yrt, os.path.join(scenes, f), "--json", "--conf", "0.15"])
        check(r.returncode == 0, "yolort-detect --json %s" % f)
        js = json.loads(r.stdout)
        w, h = js.get("width"), js.get("height")
        lines = []
        for d in js["detections"]:
            # corners clamped to the image (labels are normalised); a box that clamps to a sliver
            # cannot be labelled (nor left out: it would be a false positive): its scene is dropped
            c = [min(max(v, 0.0), float(w if i % 2 == 0 else h)) for i, v in
                 enumerate(x for xy in d["corners"] for x in xy)]
            area = 0.5 * abs(sum(c[2 * i] * c[2 * ((i + 1) % 4) + 1] - c[2 * ((i + 1) % 4)] * c[2 * i + 1]
                                 for i in range(4)))
            if min(math.hypot(c[2] - c[0], c[3] - c[1]), math.hypot(c[4] - c[2], c[5] - c[3])) < 1 or area < 4:
                break
            lines.append("%d " % d["class"] + " ".join("%.6f" % (c[i] / (w if i % 2 == 0 else h)) for i in range(8)))
        else:
            shutil.copy(os.path.join(scenes, f), imgs)
            n_lab += len(lines)
        if len(lines) != len(js["detections"]):
            continue
        with open(os.path.join(labels, os.path.splitext(f)[0] + ".txt"), "w") as fh:
            fh.write("".join(ln + "\n" for ln in lines))
    check(n_lab >= 20, "%d rotated labels from the model's own detections over 0.15" % n_lab)

    for kind in ("probiou", "polygon"):
        r = run([T("yolort-eval"), yrt, imgs, labels, "-q", "--conf", "0.05", "--iou", "0.45", "--rotated-iou", kind])
        rot, enc = rotated(r.stdout), enclosing(r.stdout)
        print("\n".join("     " + ln for ln in r.stdout.splitlines()[-3:]))
        want = 0.85 if kind == "probiou" else 0.70
        check(r.returncode == 0 and len(rot) == 1 and len(enc) == 1 and enc[0][1] >= 0.99 and rot[0][0] >= want and
              rot[0][0] <= enc[0][0] and rot[0][1] <= rot[0][0],
              "%s: the float model against its own boxes: enclosing boxes mAP50-95 >= 0.99, rotated mAP50 >= %.2f "
              "(the clamped labels: quadrilaterals its rectangles match partly) (%s, %s)"
              % (kind, want, enc, rot or r.stderr.strip()[-200:]))

    qdq, yrt8 = os.path.join(WORK, "obb.qdq.onnx"), os.path.join(WORK, "obb-int8.yrt")
    q = run([T("yolort-quantize"), model, imgs, "-o", qdq, "--yrt", yrt8, "-q"])
    check(q.returncode == 0, "yolort-quantize (%s)" % q.stderr.strip()[-200:])
    if q.returncode == 0:
        r = run([T("yolort-eval"), yrt, imgs, labels, "-q", "--conf", "0.05", "--iou", "0.45", "--compare", yrt8])
        rot = rotated(r.stdout)
        print("\n".join("     " + ln for ln in r.stdout.splitlines() if "rotated" in ln))
        check(r.returncode == 0 and len(rot) == 2 and rot[1][0] <= rot[0][0] + 1e-9,
              "--compare int8: both rotated lines, the int8 one %s <= the float one's %s" % (rot[1:] , rot[:1]))

    bad = os.path.join(WORK, "bad_labels")
    shutil.copytree(labels, bad)
    first = sorted(os.listdir(bad))[0]
    with open(os.path.join(bad, first), "w") as fh:
        fh.write("0 0.5 0.5 0.2 0.1\n")
    r = run([T("yolort-eval"), yrt, imgs, bad, "-q"])
    check(r.returncode == 1 and "%s:1:" % first in r.stderr and "x1 y1 x2 y2" in r.stderr,
          "an axis-aligned label line refused naming file:line (%s)" % r.stderr.strip()[-200:])


if __name__ == "__main__":
    main()
    if failures:
        print("%d failure(s)" % len(failures))
        sys.exit(1)
    print("rotated eval ok")
