#!/usr/bin/python3
"""ref_forward.py — a small numpy interpreter for the ONNX op set of YOLO11 exports.

Why: there is no onnxruntime on the build machines, and the model generator needs a forward pass
to choose realistic BatchNorm statistics and head biases. It doubles as an independent FP32
reference (and QDQ reference: QuantizeLinear/DequantizeLinear are supported) for yolort's engine.

Library use:   values = run(model_or_graph_nodes, {"images": x}, params)
Command line:  ref_forward.py MODEL.onnx [--input X.f32] [--out OUT.f32] [--seed N]
  Without --input a synthetic letterboxed scene is used. Prints activation statistics and the
  fraction of anchors whose best class score is above 0.25.
Run with /usr/bin/python3 (Debian python3-onnx + python3-numpy).
"""
import argparse
import sys

import numpy as np

try:
    import onnx
    from onnx import numpy_helper
except ImportError:  # the generator imports run() only; onnx is needed for files
    onnx = None


def _attrs(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def _pad_nchw(x, pads, value=0.0):
    t, l, b, r = pads[0], pads[1], pads[2], pads[3]
    if not any(pads):
        return x
    return np.pad(x, ((0, 0), (0, 0), (t, b), (l, r)), constant_values=value)


def conv2d(x, w, b=None, strides=(1, 1), pads=(0, 0, 0, 0), group=1, dilations=(1, 1)):
    """NCHW float32 convolution (im2col + GEMM; depthwise as shifted multiply-adds)."""
    if tuple(dilations) != (1, 1):
        raise NotImplementedError("Conv dilations != 1")
    n, c, _, _ = x.shape
    co, cig, kh, kw = w.shape
    sh, sw = strides
    xp = _pad_nchw(x, pads)
    hp, wp = xp.shape[2], xp.shape[3]
    ho = (hp - kh) // sh + 1
    wo = (wp - kw) // sw + 1
    out = np.empty((n, co, ho, wo), dtype=np.float32)
    for i in range(n):
        xi = xp[i]
        if group == 1:
            if kh == 1 and kw == 1:
                cols = xi[:, ::sh, ::sw][:, :ho, :wo].reshape(c, ho * wo)
            else:
                win = np.lib.stride_tricks.sliding_window_view(xi, (kh, kw), axis=(1, 2))
                win = win[:, ::sh, ::sw][:, :ho, :wo]  # [C, Ho, Wo, kh, kw]
                cols = np.ascontiguousarray(win.transpose(0, 3, 4, 1, 2)).reshape(c * kh * kw, ho * wo)
            out[i] = (w.reshape(co, -1) @ cols).reshape(co, ho, wo)
        elif group == c and cig == 1 and co == c:
            acc = np.zeros((c, ho, wo), dtype=np.float32)
            for dy in range(kh):
                for dx in range(kw):
                    patch = xi[:, dy:dy + sh * (ho - 1) + 1:sh, dx:dx + sw * (wo - 1) + 1:sw]
                    acc += patch * w[:, 0, dy, dx][:, None, None]
            out[i] = acc
        else:
            cg, og = c // group, co // group
            for g in range(group):
                out[i:i + 1, g * og:(g + 1) * og] = conv2d(
                    x[i:i + 1, g * cg:(g + 1) * cg], w[g * og:(g + 1) * og], None, strides, pads, 1)
    if b is not None:
        out += b.reshape(1, -1, 1, 1)
    return out


def im2col(x, kh, kw, strides=(1, 1), pads=(0, 0, 0, 0)):
    """[1, C, H, W] -> patch matrix [C*kh*kw, Ho*Wo] in the (c, ky, kx) order of Conv weights."""
    xi = _pad_nchw(x, pads)[0]
    c = xi.shape[0]
    sh, sw = strides
    ho = (xi.shape[1] - kh) // sh + 1
    wo = (xi.shape[2] - kw) // sw + 1
    win = np.lib.stride_tricks.sliding_window_view(xi, (kh, kw), axis=(1, 2))[:, ::sh, ::sw][:, :ho, :wo]
    return np.ascontiguousarray(win.transpose(0, 3, 4, 1, 2)).reshape(c * kh * kw, ho * wo)


def maxpool2d(x, kernel, strides, pads):
    xp = _pad_nchw(x, pads, value=-np.inf)
    kh, kw = kernel
    sh, sw = strides
    win = np.lib.stride_tricks.sliding_window_view(xp, (kh, kw), axis=(2, 3))
    return np.ascontiguousarray(win[:, :, ::sh, ::sw].max(axis=(4, 5)))


def softmax(x, axis):
    m = x.max(axis=axis, keepdims=True)
    e = np.exp(x - m)
    return e / e.sum(axis=axis, keepdims=True)


def sigmoid(x):
    # Split by sign so exp never overflows.
    out = np.empty_like(x)
    pos = x >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-x[pos]))
    ex = np.exp(x[~pos])
    out[~pos] = ex / (1.0 + ex)
    return out


def _qrange(dtype):
    return (-128, 127) if dtype == np.int8 else (0, 255)


def _bcast_axis(p, x, axis):
    if p.ndim == 0 or p.size == 1:
        return p.reshape(())
    shape = [1] * x.ndim
    shape[axis] = p.size
    return p.reshape(shape)


def _resize(x, node, scales, sizes):
    a = _attrs(node)
    if a.get("mode", b"nearest") != b"nearest":
        raise NotImplementedError("Resize mode other than nearest")
    if sizes is not None and sizes.size:
        factors = [int(s // d) for s, d in zip(sizes, x.shape)]
    else:
        factors = [int(round(float(s))) for s in scales]
    # nearest + asymmetric + floor with integer factors == repeat
    out = x
    for axis, f in enumerate(factors):
        if f != 1:
            out = np.repeat(out, f, axis=axis)
    return out


def conv_transpose2d(x, w, b=None, strides=(1, 1)):
    """NCHW float32 ConvTranspose, group 1, no pads / dilation / output padding (Ultralytics
    Proto's 2x2 stride-2 upsample): each input pixel scatters its kh x kw taps."""
    n, c, h, wd = x.shape
    ci, co, kh, kw = w.shape
    sh, sw = strides
    out = np.zeros((n, co, (h - 1) * sh + kh, (wd - 1) * sw + kw), dtype=np.float64)
    for ky in range(kh):
        for kx in range(kw):
            out[:, :, ky:ky + (h - 1) * sh + 1:sh, kx:kx + (wd - 1) * sw + 1:sw] += np.einsum(
                "nchw,co->nohw", x.astype(np.float64), w[:, :, ky, kx].astype(np.float64))
    if b is not None:
        out += b.reshape(1, -1, 1, 1)
    return out.astype(np.float32)


def eval_node(node, ins):
    """Evaluate one ONNX node; ins is a list of numpy arrays (None for empty inputs)."""
    op = node.op_type
    a = _attrs(node)
    if op == "Conv":
        k = a.get("kernel_shape", ins[1].shape[2:])
        return [conv2d(ins[0], ins[1], ins[2] if len(ins) > 2 else None,
                       a.get("strides", [1, 1]), a.get("pads", [0, 0, 0, 0]), a.get("group", 1),
                       a.get("dilations", [1, 1]))] if len(k) == 2 else None
    if op == "ConvTranspose":
        if a.get("group", 1) != 1 or any(a.get("pads", [0])) or any(a.get("output_padding", [0])) or \
                tuple(a.get("dilations", [1, 1])) != (1, 1):
            raise NotImplementedError("ConvTranspose with groups, pads, dilation or output padding")
        return [conv_transpose2d(ins[0], ins[1], ins[2] if len(ins) > 2 else None, a.get("strides", [1, 1]))]
    if op == "BatchNormalization":
        x, g, b, m, v = ins[:5]
        eps = a.get("epsilon", 1e-5)
        s = (g / np.sqrt(v + eps)).astype(np.float32)
        return [(x - m.reshape(1, -1, 1, 1)) * s.reshape(1, -1, 1, 1) + b.reshape(1, -1, 1, 1)]
    if op == "Sigmoid":
        return [sigmoid(ins[0])]
    if op == "Mul":
        return [ins[0] * ins[1]]
    if op == "Add":
        return [ins[0] + ins[1]]
    if op == "Sub":
        return [ins[0] - ins[1]]
    if op == "Pow":
        return [np.power(ins[0], ins[1]).astype(np.float32)]
    if op == "Cos":
        return [np.cos(ins[0])]
    if op == "Sin":
        return [np.sin(ins[0])]
    if op == "Exp":
        return [np.exp(ins[0]).astype(np.float32)]
    if op == "Relu":
        return [np.maximum(ins[0], 0)]
    if op == "LeakyRelu":
        return [np.where(ins[0] >= 0, ins[0], ins[0] * np.float32(a.get("alpha", 0.01))).astype(np.float32)]
    if op == "Div":
        if np.issubdtype(ins[0].dtype, np.integer) and np.issubdtype(ins[1].dtype, np.integer):
            return [np.trunc(ins[0] / ins[1]).astype(ins[0].dtype)]  # ONNX integer division
        return [ins[0] / ins[1]]
    if op == "Mod":
        return [np.mod(ins[0], ins[1])]
    if op == "ReduceMax":
        axes = a.get("axes")
        if axes is None and len(ins) > 1 and ins[1] is not None:
            axes = [int(v) for v in ins[1]]
        return [np.max(ins[0], axis=tuple(axes), keepdims=bool(a.get("keepdims", 1)))]
    if op == "TopK":
        k = int(ins[1].reshape(-1)[0])
        axis = a.get("axis", -1)
        x = np.moveaxis(ins[0], axis, -1)
        # largest first, ties by lower index (onnxruntime's order): a stable sort of -x
        idx = np.argsort(-x, axis=-1, kind="stable")[..., :k]
        val = np.take_along_axis(x, idx, axis=-1)
        return [np.moveaxis(val, -1, axis), np.moveaxis(idx.astype(np.int64), -1, axis)]
    if op == "Unsqueeze":
        axes = a.get("axes")
        if axes is None:
            axes = [int(v) for v in ins[1]]
        y = ins[0]
        for ax in sorted(int(v) % (y.ndim + len(axes)) for v in axes):
            y = np.expand_dims(y, ax)
        return [y]
    if op == "Flatten":
        axis = a.get("axis", 1)
        sh = ins[0].shape
        return [ins[0].reshape(int(np.prod(sh[:axis], dtype=np.int64)), -1)]
    if op == "Tile":
        return [np.tile(ins[0], [int(v) for v in ins[1]])]
    if op == "GatherElements":
        return [np.take_along_axis(ins[0], ins[1].astype(np.int64), axis=a.get("axis", 0))]
    if op == "Gather":
        return [np.take(ins[0], ins[1].astype(np.int64), axis=a.get("axis", 0))]
    if op == "Cast":
        to = a["to"]
        dt = {1: np.float32, 6: np.int32, 7: np.int64, 11: np.float64}[to]
        return [ins[0].astype(dt)]
    if op == "Concat":
        return [np.concatenate(ins, axis=a["axis"])]
    if op == "Split":
        axis = a.get("axis", 0)
        split = a.get("split")
        if split is None and len(ins) > 1 and ins[1] is not None:
            split = [int(v) for v in ins[1]]
        if split is None:
            n = len(node.output)
            split = [ins[0].shape[axis] // n] * n
        idx = np.cumsum(split)[:-1]
        return np.split(ins[0], idx, axis=axis)
    if op == "MaxPool":
        return [maxpool2d(ins[0], a["kernel_shape"], a.get("strides", [1, 1]),
                          a.get("pads", [0, 0, 0, 0]))]
    if op == "Resize":
        scales = ins[2] if len(ins) > 2 else None
        sizes = ins[3] if len(ins) > 3 else None
        return [_resize(ins[0], node, scales, sizes)]
    if op == "Reshape":
        shape = [int(s) for s in ins[1]]
        shape = [ins[0].shape[i] if s == 0 else s for i, s in enumerate(shape)]
        return [ins[0].reshape(shape)]
    if op == "Transpose":
        return [np.ascontiguousarray(ins[0].transpose(a["perm"]))]
    if op == "MatMul":
        return [np.matmul(ins[0], ins[1])]
    if op == "Softmax":
        return [softmax(ins[0], a.get("axis", -1))]
    if op == "Slice":
        x = ins[0]
        starts, ends = ins[1], ins[2]
        axes = ins[3] if len(ins) > 3 and ins[3] is not None else np.arange(len(starts))
        steps = ins[4] if len(ins) > 4 and ins[4] is not None else np.ones(len(starts), np.int64)
        sl = [slice(None)] * x.ndim
        for s, e, ax, st in zip(starts, ends, axes, steps):
            sl[int(ax)] = slice(int(s), int(e), int(st))
        return [x[tuple(sl)]]
    if op == "QuantizeLinear":
        x, sc = ins[0], ins[1]
        zp = ins[2] if len(ins) > 2 and ins[2] is not None else np.zeros((), np.uint8)
        axis = a.get("axis", 1)
        lo, hi = _qrange(zp.dtype)
        q = np.rint(x / _bcast_axis(sc, x, axis)) + _bcast_axis(zp, x, axis).astype(np.float32)
        return [np.clip(q, lo, hi).astype(zp.dtype)]
    if op == "DequantizeLinear":
        q, sc = ins[0], ins[1]
        zp = ins[2] if len(ins) > 2 and ins[2] is not None else np.zeros((), q.dtype)
        axis = a.get("axis", 1)
        d = (q.astype(np.int64) - _bcast_axis(zp, q, axis).astype(np.int64)).astype(np.float32)
        return [d * _bcast_axis(sc, q, axis).astype(np.float32)]
    if op == "Identity":
        return [ins[0]]
    if op == "Constant":
        return [numpy_helper.to_array(a["value"])]
    raise NotImplementedError("ref_forward: op %s (%s) not supported" % (op, node.name))


def run(nodes, feeds, params, hook=None, keep_all=True):
    """Run nodes (topologically ordered NodeProtos). params: name -> numpy initializer.
    hook(node, ins) may return {name: array} to replace values before the node runs (the
    generator sets BatchNorm statistics this way).
    Returns the dict of every value computed (or only graph-level ones if keep_all=False)."""
    values = dict(params)
    values.update(feeds)
    for node in nodes:
        if hook is not None:
            updates = hook(node, [values.get(i) if i else None for i in node.input])
            if updates:
                values.update(updates)
        ins = [values[i] if i else None for i in node.input]
        outs = eval_node(node, ins)
        for name, val in zip(node.output, outs):
            values[name] = val.astype(np.float32) if val.dtype == np.float64 else val
    return values


def load(path):
    m = onnx.load(path)
    params = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    return m, params


def synthetic_scene(size, seed):
    """A deterministic letterboxed 4:3 scene [1,3,S,S] in [0,1] (pad 114/255 top and bottom)."""
    rng = np.random.default_rng(seed)
    h = size * 3 // 4
    yy, xx = np.mgrid[0:h, 0:size].astype(np.float32)
    img = np.empty((3, h, size), np.float32)
    c0, c1 = rng.uniform(0.1, 0.9, 3), rng.uniform(0.1, 0.9, 3)
    t = (xx / size * 0.6 + yy / h * 0.4)
    for ch in range(3):
        img[ch] = c0[ch] * (1 - t) + c1[ch] * t
    for _ in range(12):
        col = rng.uniform(0, 1, 3)
        cx, cy = rng.uniform(0, size), rng.uniform(0, h)
        rw, rh = rng.uniform(size * 0.04, size * 0.3), rng.uniform(h * 0.04, h * 0.3)
        if rng.uniform() < 0.5:
            mask = (np.abs(xx - cx) < rw) & (np.abs(yy - cy) < rh)
        else:
            mask = ((xx - cx) / rw) ** 2 + ((yy - cy) / rh) ** 2 < 1.0
        img[:, mask] = col[:, None]
    img += rng.normal(0, 0.03, img.shape).astype(np.float32)
    img = np.clip(img, 0, 1)
    out = np.full((1, 3, size, size), 114.0 / 255.0, np.float32)
    top = (size - h) // 2
    out[0, :, top:top + h, :] = np.round(img * 255) / 255
    return out


def summarize(model, values, out_name="output0"):
    worst = 0.0
    worst_name = ""
    for node in model.graph.node:
        for o in node.output:
            v = values.get(o)
            if v is not None and v.dtype == np.float32 and v.size:
                m = float(np.abs(v).max())
                if not np.isfinite(m):
                    print("NON-FINITE values in %s" % o)
                    return 1
                if m > worst and node.op_type != "Constant":
                    worst, worst_name = m, o
    out = values[out_name]
    print("largest |activation| %.3g in %s" % (worst, worst_name))
    if out.ndim == 3 and out.shape[1] > 4:
        boxes, scores = out[0, :4], out[0, 4:]
        best = scores.max(axis=0)
        frac = float((best > 0.25).mean())
        print("output0 %s: anchors with score > 0.25: %d of %d (%.3f%%); max score %.3f"
              % (list(out.shape), int((best > 0.25).sum()), best.size, 100 * frac, best.max()))
        print("box w/h px: median %.1f/%.1f, p90 %.1f/%.1f"
              % (np.median(boxes[2]), np.median(boxes[3]),
                 np.percentile(boxes[2], 90), np.percentile(boxes[3], 90)))
    return 0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model")
    ap.add_argument("--input", help="raw float32 NCHW input (default: synthetic scene)")
    ap.add_argument("--out", help="write output0 as raw float32 here")
    ap.add_argument("--seed", type=int, default=7, help="seed of the synthetic scene")
    args = ap.parse_args(argv)
    model, params = load(args.model)
    inp = model.graph.input[0]
    dims = [d.dim_value for d in inp.type.tensor_type.shape.dim]
    if args.input:
        x = np.fromfile(args.input, dtype=np.float32).reshape(dims)
    else:
        x = synthetic_scene(dims[2], args.seed)
    for p in model.metadata_props:
        if p.key == "yolort.synthetic" and p.value == "1":
            print("note: synthetic model (random weights): its detections are meaningless")
    values = run(model.graph.node, {inp.name: x}, params)
    out_name = model.graph.output[0].name
    if args.out:
        values[out_name].astype(np.float32).tofile(args.out)
    return summarize(model, values, out_name)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
