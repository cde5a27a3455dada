"""head_check.py — what the checks of generated heads against onnxruntime-node share
(check_pose.py, check_obb.py): the skip (77) or failure under CI=true without onnxruntime-node,
the image set (synthetic scenes, plus COCO val images when $YOLORT_DATA has them), the model
converted and its letterboxed inputs dumped, a refusal's last line."""
import os
import shutil
import subprocess
import sys


def require_ort(ort):
    """Exit 77 (skip) without node + onnxruntime-node in ort, or 1 under CI=true."""
    if shutil.which("node") and os.path.isdir(os.path.join(ort, "node_modules", "onnxruntime-node")):
        return
    if os.environ.get("CI") == "true":
        print("FAIL: CI=true but onnxruntime-node is not installed in %s (npm ci --ignore-scripts)" % ort)
        sys.exit(1)
    print("skipping: no onnxruntime-node in %s (cd %s && npm ci --ignore-scripts)" % (ort, ort))
    sys.exit(77)


def images(work, gen_images, root, n=24):
    """n synthetic scenes, plus the first n COCO val images when there: (dir, count)."""
    imgs = os.path.join(work, "images")
    shutil.rmtree(imgs, ignore_errors=True)
    subprocess.run([gen_images, imgs, "-n", str(n)], check=True, capture_output=True)
    data = os.environ.get("YOLORT_DATA", os.path.join(root, "..", "shared"))
    val = os.path.join(data, "data", "coco", "val", "images")
    if os.path.isdir(val):  # real photos too
        for f in sorted(os.listdir(val))[:n]:
            shutil.copy(os.path.join(val, f), imgs)
    return imgs, len(os.listdir(imgs))


def dump_inputs(dump_tool, yrt, imgs, n_img, out_dir):
    """The letterboxed inputs of the n_img images for yrt, as ort_vs_yolort dump writes them."""
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    subprocess.run([dump_tool, "dump", yrt, imgs, str(n_img), out_dir], check=True, capture_output=True)


def last_line(r):
    """The last line a finished command printed (stdout, then stderr)."""
    text = (r.stdout + r.stderr).strip()
    return text.splitlines()[-1] if text else ""
