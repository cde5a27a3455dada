"""pose_common.py — what the pose checks (check_pose.py, check_yolo_pose.py) share: their check
lines and failure list (head_check.py's), the reference NMS of one-class pose rows [4 + 1 + nk 3, N] (cx, cy, w, h, score, keypoints; by score, IoU 0.45,
at most 300), box IoU, pose_run's detection lines, and the match of yolort's detections against
the reference's (recall and keypoint pixel distances)."""
import numpy as np

from head_check import check, exit_status, failures, run  # noqa: F401  (the pose checks' through here)


def nms(out, nk, conf=0.25, iou_thr=0.45):
    """Ultralytics-style NMS of output0 [4 + 1 + nk 3, N] (one class): (box, score, keypoints)."""
    return [(box_of(out, i), float(out[4, i]), out[5:, i].reshape(nk, 3)) for i in nms_anchors(out, conf, iou_thr)]


def box_of(out, i):
    return np.array([out[0, i] - out[2, i] / 2, out[1, i] - out[3, i] / 2, out[0, i] + out[2, i] / 2,
                     out[1, i] + out[3, i] / 2])


def nms_anchors(out, conf=0.25, iou_thr=0.45):
    """The anchors that NMS keeps, by score."""
    score = out[4]
    idx = np.nonzero(score > conf)[0]
    idx = idx[np.lexsort((idx, -score[idx]))]
    b = np.stack([out[0] - out[2] / 2, out[1] - out[3] / 2, out[0] + out[2] / 2, out[1] + out[3] / 2], 1)
    keep = []
    for i in idx:
        ok = True
        for k in keep:
            if iou(b[i], b[k]) > iou_thr:
                ok = False
                break
        if ok:
            keep.append(i)
        if len(keep) == 300:
            break
    return keep


def iou(a, b):
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = w * h
    u = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / u if u > 0 else 0.0


def read_yolort(path, nk):
    """pose_run's detections: (box, score, keypoints [nk, 3]) per line."""
    dets = []
    for line in open(path):
        v = [float(x) for x in line.split()]
        dets.append((np.array(v[2:6]), v[1], np.array(v[6:]).reshape(nk, 3)))
    return dets


def match(ref, got):
    """Reference detections against yolort's (both (box, score, keypoints)): (matched, total,
    keypoint distances in pixels of the matched boxes, per reference box whether it matched)."""
    matched, dist, hits = 0, [], []
    for box, _, kp in ref:
        best, bi = 0.0, -1
        for j, (b2, _, _) in enumerate(got):
            v = iou(box, b2)
            if v > best:
                best, bi = v, j
        hits.append(best >= 0.5)
        if best >= 0.5:
            matched += 1
            dist.extend(np.hypot(got[bi][2][:, 0] - kp[:, 0], got[bi][2][:, 1] - kp[:, 1]).tolist())
    return matched, len(ref), dist, hits
