"""The offline tools (yolort-convert, yolort-quantize, yolort-eval) as functions: each runs the
installed command line tool, so the package needs no compiled code and gives the same results
as the CLIs (docs/convert.md, docs/accuracy.md)."""
import json
import os
import shutil
import subprocess
import tempfile

from ._paths import BINDIR


class ToolError(RuntimeError):
    """A tool exited non-zero; .returncode and .stderr hold what it said."""

    def __init__(self, tool, returncode, stderr):
        # the tools report progress first and the error last, then maybe their usage text
        lines = [ln for ln in stderr.splitlines()
                 if ln.strip() and not ln[0].isspace() and not ln.startswith("usage:")]
        msg = lines[-1] if lines else "exit status %d" % returncode
        super().__init__("%s: %s" % (tool, msg))
        self.returncode = returncode
        self.stderr = stderr


def tool_path(name):
    """$YOLORT_BIN/name, the install prefix's bin/, or name on PATH."""
    for d in (os.environ.get("YOLORT_BIN"), BINDIR):
        if d and os.path.exists(os.path.join(d, name)):
            return os.path.join(d, name)
    found = shutil.which(name)
    if not found:
        raise FileNotFoundError("%s not found: install yolort's tools (cmake --install) or set YOLORT_BIN" % name)
    return found


def _run(name, args, timeout=None):
    p = subprocess.run([tool_path(name)] + [str(a) for a in args], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=timeout)
    if p.returncode != 0:
        raise ToolError(name, p.returncode, p.stderr)
    return p.stdout + p.stderr


def _opts(options):
    out = []
    for k, v in (options or {}).items():
        flag = ("-" if len(k) == 1 else "--") + k.replace("_", "-")  # n=4 -> -n 4, max_det=5 -> --max-det 5
        if v is True:
            out.append(flag)
        elif v is False or v is None:
            continue
        elif isinstance(v, (list, tuple)):
            for item in v:
                out += [flag, item]
        else:
            out += [flag, v]
    return out


def convert(onnx_path, out_path, **options):
    """ONNX -> .yrt (yolort-convert). Keyword options are the CLI's long flags with '_' for '-':
    convert("m.onnx", "m.yrt", size=320, anchors="...", preprocess="bgr"). Returns the summary."""
    return _run("yolort-convert", [onnx_path, "-o", out_path] + _opts(options))


def quantize(onnx_path, calib_dir, out_onnx, yrt=None, **options):
    """Post-training quantization (yolort-quantize): calibrates on the JPEGs of calib_dir, writes
    a QDQ ONNX and, with yrt=, the .yrt. Options as the CLI's (method="percentile", n=64, q=True)."""
    args = [onnx_path, calib_dir, "-o", out_onnx]
    if yrt:
        args += ["--yrt", yrt]
    return _run("yolort-quantize", args + _opts(options))


def evaluate(model, images_dir, labels_dir, **options):
    """COCO mAP of a .yrt or ONNX on labelled images (yolort-eval). Returns the tool's JSON
    summary as a dict (mAP50-95, mAP50, per-class ...)."""
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        os.unlink(path)  # the tool refuses to overwrite nothing; it creates the file
        _run("yolort-eval", [model, images_dir, labels_dir, "--json", path, "-q"] + _opts(options))
        with open(path) as f:
            return json.load(f)
    finally:
        if os.path.exists(path):
            os.unlink(path)
