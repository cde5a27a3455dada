#!/usr/bin/python3
"""coco_ref.py — independent numpy transcription of pycocotools' bbox evaluation (evaluateImg +
accumulate, area 'all', maxDets 100, no crowd), used to generate random_case.txt: a random
multi-image, multi-class case with score ties, plus the expected mAP50 / mAP50-95 that
test_coco_map.c checks the C evaluator against.  Run:  /usr/bin/python3 coco_ref.py > random_case.txt
"""
import numpy as np

NC, NIMG, MAXDET = 5, 12, 100
rng = np.random.default_rng(20240601)


def iou(d, g):
    w = min(d[2], g[2]) - max(d[0], g[0])
    h = min(d[3], g[3]) - max(d[1], g[1])
    if w <= 0 or h <= 0:
        return 0.0
    i = w * h
    return i / ((d[2] - d[0]) * (d[3] - d[1]) + (g[2] - g[0]) * (g[3] - g[1]) - i)


def evaluate(images):
    iou_thrs = np.linspace(.5, 0.95, int(np.round((0.95 - .5) / .05)) + 1, endpoint=True)
    rec_thrs = np.linspace(.0, 1.00, int(np.round((1.00 - .0) / .01)) + 1, endpoint=True)
    T, R = len(iou_thrs), len(rec_thrs)
    precision = -np.ones((T, R, NC))
    for k in range(NC):
        scores, matched, npig = [], [], 0
        for gts, dts in images:
            gt = [g for g in gts if g[0] == k]
            dt = [d for d in dts if d[0] == k]
            if not gt and not dt:
                continue
            order = np.argsort([-d[5] for d in dt], kind="mergesort")
            dt = [dt[i] for i in order[:MAXDET]]
            npig += len(gt)
            dtm = np.zeros((T, len(dt)))
            gtm = np.zeros((T, len(gt)))
            for t, thr in enumerate(iou_thrs):
                for di, d in enumerate(dt):
                    best, m = min(thr, 1 - 1e-10), -1
                    for gi, g in enumerate(gt):
                        if gtm[t, gi] > 0:
                            continue
                        o = iou(d[1:5], g[1:5])
                        if o < best:
                            continue
                        best, m = o, gi
                    if m == -1:
                        continue
                    dtm[t, di] = 1
                    gtm[t, m] = 1
            scores += [d[5] for d in dt]
            matched.append(dtm)
        if npig == 0:
            continue
        scores = np.array(scores)
        inds = np.argsort(-scores, kind="mergesort")
        dtm = np.concatenate(matched, axis=1)[:, inds] if matched else np.zeros((T, 0))
        tps = dtm.astype(bool)
        fps = ~tps
        tp_sum = np.cumsum(tps, axis=1).astype(dtype=float)
        fp_sum = np.cumsum(fps, axis=1).astype(dtype=float)
        for t, (tp, fp) in enumerate(zip(tp_sum, fp_sum)):
            nd = len(tp)
            rc = tp / npig
            pr = (tp / (fp + tp + np.spacing(1))).tolist()
            q = np.zeros((R,))
            for i in range(nd - 1, 0, -1):
                if pr[i] > pr[i - 1]:
                    pr[i - 1] = pr[i]
            idx = np.searchsorted(rc, rec_thrs, side="left")
            try:
                for ri, pi in enumerate(idx):
                    q[ri] = pr[pi]
            except IndexError:
                pass
            precision[t, :, k] = q
    valid = precision[:, :, precision[0, 0, :] > -1]
    return valid[0].mean(), valid.mean()


def box(cx, cy, w, h):
    return [float(cx - w / 2), float(cy - h / 2), float(cx + w / 2), float(cy + h / 2)]


images = []
for _ in range(NIMG):
    gts, dts = [], []
    for _ in range(rng.integers(0, 8)):
        k = int(rng.integers(0, NC - 1))  # class NC-1 never has ground truth
        cx, cy, w, h = rng.integers(20, 300, 2).tolist() + rng.integers(8, 120, 2).tolist()
        gts.append([k] + box(cx, cy, w, h))
        for _ in range(rng.integers(0, 3)):  # jittered detections of it, some with the wrong class
            kk = k if rng.random() < 0.8 else int(rng.integers(0, NC))
            j = rng.integers(-12, 13, 4).tolist()
            dts.append([kk] + box(cx + j[0], cy + j[1], max(4, w + j[2]), max(4, h + j[3]))
                       + [round(float(rng.random()), 2)])  # 2 decimals: many ties
    for _ in range(rng.integers(0, 5)):  # background false positives
        cx, cy, w, h = rng.integers(20, 300, 2).tolist() + rng.integers(8, 120, 2).tolist()
        dts.append([int(rng.integers(0, NC))] + box(cx, cy, w, h) + [round(float(rng.random()), 2)])
    images.append((gts, dts))

map50, map5095 = evaluate(images)
print(f"classes {NC}")
for gts, dts in images:
    print("image")
    for g in gts:
        print("gt %d %.9g %.9g %.9g %.9g" % tuple(g))
    for d in dts:
        print("dt %d %.9g %.9g %.9g %.9g %.9g" % tuple(d))
print(f"expect {map50:.12f} {map5095:.12f}")
