#!/usr/bin/python3
"""check_gen_segment.py BUILD_DIR PROJECT_DIR WORK_DIR — segment heads (issue 36 item 3) on a
generated YOLO11n-seg (models/gen_yolo11.py --task segment: the Ultralytics Segment head, 32 mask
coefficients (cv4) after the scores in output0 [1, 4 + 80 + 32, N], and the Proto branch cv1 ->
ConvTranspose 2x2 stride 2 -> cv2 -> cv3: output1 [1, 32, H/4, W/4]), against onnxruntime-node on
the same file and the same letterboxed inputs (synthetic scenes, plus COCO val images when
$YOLORT_DATA has them), boxes and masks through seg_accept.c (Ultralytics process_mask_native
transcribed there):

1. float: yolort-convert fuses the head with 32 pass-through rows and runs the ConvTranspose
   float; yolort's detections (camera-frame path) recall >= 0.95 of onnxruntime's (same class,
   IoU >= 0.5) and the masks of matched boxes have an IoU >= 0.95 on average and >= 0.90 for 95%
   of them (a few masks of this random net are a handful of pixels);
2. int8: yolort-quantize's QDQ ONNX converts with the ConvTranspose int8 (CONV_TRANSPOSE.i8),
   and against onnxruntime running the same QDQ file: recall >= 0.75, matched masks' IoU mean
   >= 0.75 (this random net's int8 scores and coefficients move between two int8 implementations:
   see below; the real export's check_segment_int8.sh is the accuracy gate).
Without onnxruntime-node (bench/peers/ort/node_modules) it skips (77), or fails under CI=true.
"""
import os
import shutil
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from head_check import check, exit_status, generated, images, require_ort, run, tools  # noqa: E402

BUILD, ROOT, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
TOOLS = tools(BUILD, ROOT)
SEG = os.path.join(BUILD, "tests", "models", "seg_accept")
ORT_WILD = os.path.join(ROOT, "tests", "models", "ort_wild.js")
SIZE = 320


def compare(tag, onnx_path, yrt, out_dir, imgs, inputs_from=None):
    """seg_accept prep (yolort), onnxruntime on the letterboxed inputs (those of inputs_from when
    given: an int8 session does not keep a float input), seg_accept compare: its numbers."""
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    r = run([SEG, "prep", yrt, out_dir] + imgs)
    check(r.returncode == 0, "%s: yolort detections and masks (%s)" % (tag, r.stderr.strip()[:200]))
    if inputs_from:
        for k in range(len(imgs)):
            shutil.copy(os.path.join(inputs_from, "in_%d.f32" % k), out_dir)
    r = run(["node", ORT_WILD, TOOLS["ORT"], onnx_path, out_dir, str(len(imgs)), str(SIZE), str(SIZE)])
    check(r.returncode == 0, "%s: onnxruntime runs it (%s)" % (tag, r.stderr.strip()[:200]))
    r = run([SEG, "compare", yrt, out_dir, str(len(imgs))])
    v = r.stdout.split()
    check(r.returncode == 0 and len(v) >= 14, "%s: compare (%s)" % (tag, (r.stdout + r.stderr).strip()[:200]))
    print("     %s: %s" % (tag, r.stdout.strip()))
    return {v[i]: float(v[i + 1]) for i in range(0, len(v) - 1, 2)}


def main():
    require_ort(TOOLS["ORT"])
    model = generated(ROOT, WORK, "segment", 80, SIZE)
    img_dir, _ = images(WORK, TOOLS["GEN_IMAGES"], ROOT, n=int(os.environ.get("SEG_IMAGES", "12")))
    imgs = sorted(os.path.join(img_dir, f) for f in os.listdir(img_dir))

    # 1. float
    yrt = os.path.join(WORK, "segment.yrt")
    r = run([TOOLS["CONVERT"], model, "-o", yrt])
    log = r.stdout + r.stderr
    check(r.returncode == 0 and "32 pass-through rows" in log and "conv_transpose" in log,
          "float: converts, head fused with 32 mask rows, ConvTranspose a node (%s)"
          % ([ln[:160] for ln in log.splitlines() if "head" in ln][:1] or log[-300:]))
    if r.returncode:
        return
    f32 = os.path.join(WORK, "f32")
    res = compare("float", model, yrt, f32, imgs)
    # not each mask (the real export's check asks that): this random net's masks include a few of a
    # handful of pixels whose logits sit at 0, where one pixel's rounding is the whole IoU
    check(res.get("matched", 0) >= 10 and res["recall"] >= 0.95 and res["mask_iou_mean"] >= 0.95 and
          res["mask_iou_ge90"] >= 0.95,
          "float: recall %.3f >= 0.95, %d matched masks IoU mean %.4f >= 0.95, share >= 0.90 %.3f >= 0.95"
          % (res.get("recall", 0), res.get("matched", 0), res.get("mask_iou_mean", 0), res.get("mask_iou_ge90", 0)))

    # 2. int8: the QDQ file, run by both
    qdq, yrt8 = os.path.join(WORK, "segment.qdq.onnx"), os.path.join(WORK, "segment-int8.yrt")
    q = run([TOOLS["QUANTIZE"], model, img_dir, "-o", qdq, "-q"])
    check(q.returncode == 0, "int8: yolort-quantize exits %d %s" % (q.returncode, q.stderr.strip()[-200:]))
    if q.returncode:
        return
    r = run([TOOLS["CONVERT"], qdq, "-o", yrt8])
    log = r.stdout + r.stderr
    ct = [ln.split() for ln in log.splitlines() if ln.split()[:1] == ["conv_transpose"]]
    check(r.returncode == 0 and "32 pass-through rows" in log and ct and ct[0][1:3] == ["1", "0"],
          "int8: the QDQ model converts, head fused, ConvTranspose int8 (%s)" % (ct or log[-300:]))
    if r.returncode:
        return
    res = compare("int8", qdq, yrt8, os.path.join(WORK, "i8"), imgs, inputs_from=f32)
    # This random net's int8 scores and coefficients move between two int8 implementations far
    # more than a trained one's (check_pose.py, check_obb.py): recall 0.82, mask IoU 0.83 here, the
    # same with the ConvTranspose kept float (--exclude it: 0.8318 against 0.8329 int8). Judged
    # loosely; the accuracy gate of the int8 ConvTranspose is the real export's
    # (check_segment_int8.sh: mask IoU 0.97 mean).
    check(res.get("matched", 0) >= 10 and res["recall"] >= 0.75 and res["mask_iou_mean"] >= 0.75,
          "int8: recall %.3f >= 0.75, %d matched masks IoU mean %.4f >= 0.75 (share >= 0.90: %.3f)"
          % (res.get("recall", 0), res.get("matched", 0), res.get("mask_iou_mean", 0), res.get("mask_iou_ge90", 0)))


if __name__ == "__main__":
    main()
    exit_status("generated segment ok")
