"""head_check.py — what the checks of generated heads against onnxruntime-node share
(check_pose.py, check_obb.py; check lines, run and the failure list with check_yolo_pose.py
through pose_common.py): the skip (77) or failure under CI=true without onnxruntime-node, the
image set (synthetic scenes, plus COCO val images when $YOLORT_DATA has them), the model
converted and its letterboxed inputs dumped, the float and int8 stages, onnxruntime and the C API
runner (head_run.c) on the dumped inputs, yolort's whole output0 there, the upside-down frames, a
refusal's last line."""
import os
import shutil
import subprocess
import sys

import numpy as np

failures = []


def check(cond, msg):
    print(("ok   " if cond else "FAIL ") + msg)
    if not cond:
        failures.append(msg)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def exit_status(ok_line):
    """After the checks: the failure count and exit 1, or ok_line and exit 0."""
    if failures:
        print("%d failure(s)" % len(failures))
        sys.exit(1)
    print(ok_line)


def tools(build, root):
    """The tools and files a head check runs (names as the checks' constants)."""
    t = lambda *p: os.path.join(build, *p)  # noqa: E731
    return {"CONVERT": t("tools", "yolort-convert"), "QUANTIZE": t("tools", "yolort-quantize"),
            "DETECT": t("tools", "yolort-detect"), "INSPECT": t("tools", "yolort-inspect"),
            "GEN_IMAGES": t("tools", "yolort-gen-images"), "DUMP": t("tests", "models", "ort_vs_yolort"),
            "RUN": t("tests", "models", "wild_accept"), "ORT": os.path.join(root, "bench", "peers", "ort"),
            "ORT_JS": os.path.join(root, "tests", "models", "ort_outputs.js")}


def generated(root, work, task, nc, size):
    """models/gen_yolo11.py's YOLO11n of the task (no BatchNorm, seed 1) as work/<task>.onnx."""
    os.makedirs(work, exist_ok=True)
    model = os.path.join(work, task + ".onnx")
    subprocess.run([sys.executable, os.path.join(root, "models", "gen_yolo11.py"), "--task", task, "--nc", str(nc),
                    "--size", str(size), "--no-bn", "--seed", "1", "--out", model], check=True, stdout=subprocess.DEVNULL)
    return model


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


def float_and_int8(t, model, imgs, n_img, want, want_int8, compare):
    """The float model converted, its head fused (want: (substrings of the log, check line)), its
    inputs dumped, compare(tag, onnx, yrt, dump_dir, n_img, int8); then yolort-quantize's QDQ ONNX,
    run by both, the same (want_int8). t: tools(); returns the float .yrt, or None when it does not
    convert."""
    work, name = os.path.dirname(model), os.path.basename(model)[:-len(".onnx")]
    yrt = os.path.join(work, name + ".yrt")
    r = run([t["CONVERT"], model, "-o", yrt])
    log = r.stdout + r.stderr
    head = [line for line in log.splitlines() if line.startswith("detect head")]
    check(r.returncode == 0 and all(s in log for s in want[0]), "float: %s (%s)" % (want[1], head[:1] or log[-300:]))
    if r.returncode:
        return None
    dump = os.path.join(work, "f32")
    dump_inputs(t["DUMP"], yrt, imgs, n_img, dump)
    compare("float", model, yrt, dump, n_img, False)
    qdq = os.path.join(work, name + ".qdq.onnx")
    q = run([t["QUANTIZE"], model, imgs, "-o", qdq, "-q"])
    check(q.returncode == 0, "int8: yolort-quantize exits %d %s" % (q.returncode, q.stderr.strip()[-200:]))
    if q.returncode == 0:
        yq = os.path.join(work, name + ".i8.yrt")
        r = run([t["CONVERT"], qdq, "-o", yq])
        log = r.stdout + r.stderr
        check(r.returncode == 0 and all(s in log for s in want_int8[0]), "int8: " + want_int8[1])
        if r.returncode == 0:
            dq = os.path.join(work, "i8")
            dump_inputs(t["DUMP"], yq, imgs, n_img, dq)
            compare("int8", qdq, yq, dq, n_img, True)
    return yrt


def ort_and_runner(tag, ort_js, ort, runner, onnx_path, yrt_path, dump_dir, n_img, size, first, what):
    """onnxruntime's output0 and the C API runner's detections on the dumped inputs; True when the
    runner ran and printed `first` first."""
    r = run(["node", ort_js, ort, onnx_path, dump_dir, str(n_img), str(size), str(size)])
    check(r.returncode == 0, "%s: onnxruntime runs the model (%s)" % (tag, r.stderr.strip()[:200]))
    r = run([runner, yrt_path, dump_dir, str(n_img)])
    check(r.returncode == 0 and r.stdout.startswith(first),
          "%s: the C API gives %s (%s)" % (tag, what, (r.stdout + r.stderr).strip()[:200]))
    return r.returncode == 0


def whole_outputs(run_tool, yrt_path, dump_dir, n_img, rows):
    """Per dumped image: onnxruntime's output0 [rows, N] and yolort's whole output0 (run_tool run)."""
    for i in range(n_img):
        ort_out = np.fromfile(os.path.join(dump_dir, "%d.ort.f32" % i), np.float32).reshape(rows, -1)
        out = os.path.join(dump_dir, "%d.yrt.f32" % i)
        subprocess.run([run_tool, "run", yrt_path, os.path.join(dump_dir, "%d.in.f32" % i), out], check=True,
                       capture_output=True)
        yield ort_out, np.fromfile(out, np.float32).reshape(ort_out.shape)


def upside_down(runner, yrt, files):
    """The runner's --frame on each image: (detections, worst deviation; inf where it failed or the
    two frames' counts differ)."""
    total, worst = 0, 0.0
    for f in files:
        r = run([runner, yrt, "--frame", f])
        v = next((line.split() for line in r.stdout.splitlines() if line.startswith("oriented")), [])
        ok = r.returncode == 0 and len(v) == 5 and v[1] == v[2]  # oriented N N dev D
        total += int(v[1]) if ok else 0
        worst = max(worst, float(v[4]) if ok else float("inf"))
    return total, worst


def refusals(convert, model, init_name, edit, look_alike, no_fuse, what):
    """Section 4 of a head check: the model with initializer init_name edited (edit(array) ->
    array) converts to a refusal whose last line says look_alike, and the model itself with
    --no-fuse-head to one that says no_fuse. what: (look-alike check line, --no-fuse-head line)."""
    import onnx  # only here: the other helpers run without it
    from onnx import numpy_helper
    work = os.path.dirname(model)
    m = onnx.load(model)
    for init in m.graph.initializer:
        if init.name == init_name:
            init.CopyFrom(numpy_helper.from_array(edit(numpy_helper.to_array(init)), init.name))
    bad = os.path.join(work, os.path.basename(model).replace(".onnx", "_bad.onnx"))
    onnx.save(m, bad)
    for src, extra, want, line, width in ((bad, [], look_alike, what[0], 260), (model, ["--no-fuse-head"], no_fuse,
                                                                                 what[1], 200)):
        out = os.path.join(work, "nofuse.yrt" if extra else "bad.yrt")
        r = run([convert, src, "-o", out] + extra)
        msg = last_line(r)
        check(r.returncode != 0 and want in msg, "%s: %s" % (line, msg[:width]))
