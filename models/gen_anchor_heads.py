#!/usr/bin/python3
"""gen_anchor_heads.py — small detectors with the objectness heads of YOLOv5, YOLOv7 and YOLOX,
exported as those projects' own export code writes them (no real file of some of these could be
brought in: YOLOv7 FP32 exports are over the size limit).

A five-conv backbone (strides 2..32, SiLU, LeakyReLU 0.1 as YOLOv7-tiny, or ReLU as YOLOv5-Lite)
feeds grids at strides 8, 16, 32, and one of these heads, each transcribed from its source:

  v5_70     YOLOv5 v7.0 models/yolo.py Detect.forward (export): sigmoid, split (2, 2, nc + 1) on
            axis 4, xy * 2 + (grid - 0.5), * stride, (wh * 2) ** 2 * anchor_grid, cat, view
  v5_60     YOLOv5 v6.0: y = sigmoid; xy = (y[..., 0:2] * 2 - 0.5 + grid) * stride (Slice, Sub),
            wh = (y[..., 2:4] * 2) ** 2 * anchor_grid, cat((xy, wh, y[..., 4:]), -1)
  v7_grid   YOLOv7 models/yolo.py Detect.forward under ONNX export with --grid:
            xy * (2 stride) + stride (grid - 0.5), wh ** 2 * (4 anchor_grid); LeakyReLU backbone
  v5lite    YOLOv5-Lite's exported maps: sigmoid only, no anchors in the file (ReLU backbone)
  v7_raw    YOLOv7 exported without --grid: one raw map [1, 3, H, W, 5 + nc] per grid (logits,
            no sigmoid, no anchors; LeakyReLU backbone): three outputs
  yolox     YOLOX yolo_head.py, decode_in_inference=False (the official export): per grid
            cat(reg, sigmoid(obj), sigmoid(cls)), flatten, cat over grids, permute
  yolox_dec YOLOX with decode_in_inference=True: (xy + grid) * stride, exp(wh) * stride
  v5_bad    hostile: a YOLOv5 v7.0 head whose grid offset is -0.4: looks like it, computes
            something else (must not be decoded as YOLOv5)

Output: [1, N, 5 + nc], rows ordered grid by grid, anchor by anchor, cell by cell (v7_raw:
one [1, 3, H, W, 5 + nc] per grid).
The anchors are YOLOv5's defaults (P3-P5). Weights seeded; objectness and class biases make
some boxes pass 0.25 on the synthetic scene of ref_forward.py.

Usage: /usr/bin/python3 gen_anchor_heads.py --head v5_70 --size 160 --nc 3 --out m.onnx
"""
import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ANCHORS = np.array([[[10, 13], [16, 30], [33, 23]],
                    [[30, 61], [62, 45], [59, 119]],
                    [[116, 90], [156, 198], [373, 326]]], np.float32)
STRIDES = (8, 16, 32)
HEADS = ("v5_70", "v5_60", "v7_grid", "v5lite", "v7_raw", "yolox", "yolox_dec", "v5_bad")
V7_ANCHORS = np.array([[[12, 16], [19, 36], [40, 28]],
                       [[36, 75], [76, 55], [72, 146]],
                       [[142, 110], [192, 243], [459, 401]]], np.float32)


class G:
    """A tiny ONNX graph builder: nodes, initializers, unique names."""

    def __init__(self, seed):
        self.nodes, self.inits, self.k = [], [], 0
        self.rng = np.random.default_rng(seed)

    def name(self, base):
        self.k += 1
        return "%s_%d" % (base, self.k)

    def const(self, value, base="c"):
        n = self.name(base)
        self.inits.append(numpy_helper.from_array(np.asarray(value), n))
        return n

    def op(self, op_type, inputs, n_out=1, **attrs):
        outs = [self.name(op_type.lower()) for _ in range(n_out)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, name=self.name("/" + op_type), **attrs))
        return outs if n_out > 1 else outs[0]

    def conv(self, x, cin, cout, k, s, bias=0.0, gain=1.0):
        w = (self.rng.standard_normal((cout, cin, k, k)) * gain * np.sqrt(2.0 / (cin * k * k))).astype(np.float32)
        b = (np.full(cout, bias) + 0.1 * self.rng.standard_normal(cout)).astype(np.float32)
        return self.op("Conv", [x, self.const(w, "w"), self.const(b, "b")], kernel_shape=[k, k], strides=[s, s],
                       pads=[k // 2] * 4)

    def act(self, x, kind):
        if kind == "silu":
            return self.op("Mul", [x, self.op("Sigmoid", [x])])
        if kind == "leaky":
            return self.op("LeakyRelu", [x], alpha=0.1)
        return self.op("Relu", [x])


def backbone(g, x, act):
    chans = [3, 16, 32, 32, 48, 64]
    feats = []
    for i in range(5):
        x = g.act(g.conv(x, chans[i], chans[i + 1], 3, 2), act)
        if i >= 2:
            feats.append((x, chans[i + 1]))
    return feats  # strides 8, 16, 32


def grid_of(ny, nx, na):
    """YOLOv5's _make_grid: grid [1, na, ny, nx, 2] of (x, y)."""
    yv, xv = np.meshgrid(np.arange(ny, dtype=np.float32), np.arange(nx, dtype=np.float32), indexing="ij")
    return np.broadcast_to(np.stack((xv, yv), 2), (1, na, ny, nx, 2)).astype(np.float32)


def v5_head(g, feats, nc, size, style):
    na, no = 3, nc + 5
    outs = []
    for i, (f, c) in enumerate(feats):
        ny = nx = size // STRIDES[i]
        bias = np.zeros(na * no, np.float32)
        for a in range(na):
            bias[a * no + 4] = -1.0 + 0.5 * i  # objectness prior: a few cells of each grid pass 0.25
            bias[a * no + 5:a * no + no] = 0.5
        w = (g.rng.standard_normal((na * no, c, 1, 1)) * 1.5 * np.sqrt(1.0 / c)).astype(np.float32)
        x = g.op("Conv", [f, g.const(w, "w"), g.const(bias, "b")], kernel_shape=[1, 1])
        x = g.op("Reshape", [x, g.const(np.array([1, na, no, ny, nx], np.int64))])
        x = g.op("Transpose", [x], perm=[0, 1, 3, 4, 2])
        if style == "v7_raw":
            outs.append(x)
            continue
        y = g.op("Sigmoid", [x])
        st = float(STRIDES[i])
        grid = grid_of(ny, nx, na)
        agrid = np.broadcast_to(ANCHORS[i].reshape(1, na, 1, 1, 2), (1, na, ny, nx, 2)).astype(np.float32)
        if style == "v5lite":
            pass
        elif style in ("v5_70", "v5_bad"):
            off = 0.4 if style == "v5_bad" else 0.5
            xy, wh, conf = g.op("Split", [y, g.const(np.array([2, 2, nc + 1], np.int64))], n_out=3, axis=4)
            xy = g.op("Mul", [g.op("Add", [g.op("Mul", [xy, g.const(np.float32(2.0))]), g.const(grid - off)]),
                              g.const(np.float32(st))])
            wh = g.op("Mul", [g.op("Pow", [g.op("Mul", [wh, g.const(np.float32(2.0))]), g.const(np.float32(2.0))]),
                              g.const(agrid)])
            y = g.op("Concat", [xy, wh, conf], axis=4)
        elif style == "v5_60":
            def sl(a, b):
                return g.op("Slice", [y, g.const(np.array([a], np.int64)), g.const(np.array([b], np.int64)),
                                      g.const(np.array([4], np.int64))])
            xy = g.op("Mul", [g.op("Add", [g.op("Sub", [g.op("Mul", [sl(0, 2), g.const(np.float32(2.0))]),
                                                        g.const(np.float32(0.5))]), g.const(grid)]),
                              g.const(np.float32(st))])
            wh = g.op("Mul", [g.op("Pow", [g.op("Mul", [sl(2, 4), g.const(np.float32(2.0))]), g.const(np.float32(2.0))]),
                              g.const(agrid)])
            y = g.op("Concat", [xy, wh, sl(4, no)], axis=-1)
        elif style == "v7_grid":
            xy, wh, conf = g.op("Split", [y, g.const(np.array([2, 2, nc + 1], np.int64))], n_out=3, axis=4)
            xy = g.op("Add", [g.op("Mul", [xy, g.const(np.float32(2.0 * st))]), g.const(st * (grid - 0.5))])
            wh = g.op("Mul", [g.op("Pow", [wh, g.const(np.float32(2.0))]), g.const(4.0 * agrid)])
            y = g.op("Concat", [xy, wh, conf], axis=4)
        outs.append(g.op("Reshape", [y, g.const(np.array([1, -1, no], np.int64))]))
    if style == "v7_raw":
        return outs
    return g.op("Concat", outs, axis=1)


def yolox_head(g, feats, nc, size, decode):
    outs, grids, strides = [], [], []
    for i, (f, c) in enumerate(feats):
        ny = nx = size // STRIDES[i]
        stem = g.act(g.conv(f, c, 32, 1, 1), "silu")
        cf = g.act(g.conv(stem, 32, 32, 3, 1), "silu")
        rf = g.act(g.conv(stem, 32, 32, 3, 1), "silu")
        cls = g.conv(cf, 32, nc, 1, 1, bias=0.5, gain=1.5)
        reg = g.conv(rf, 32, 4, 1, 1, gain=0.3)
        obj = g.conv(rf, 32, 1, 1, 1, bias=-1.0 + 0.5 * i, gain=1.5)
        o = g.op("Concat", [reg, g.op("Sigmoid", [obj]), g.op("Sigmoid", [cls])], axis=1)
        outs.append(g.op("Reshape", [o, g.const(np.array([1, 5 + nc, -1], np.int64))]))
        yv, xv = np.meshgrid(np.arange(ny, dtype=np.float32), np.arange(nx, dtype=np.float32), indexing="ij")
        grids.append(np.stack((xv, yv), 2).reshape(-1, 2))
        strides.append(np.full((ny * nx, 1), STRIDES[i], np.float32))
    y = g.op("Transpose", [g.op("Concat", outs, axis=2)], perm=[0, 2, 1])
    if not decode:
        return y
    grid = np.concatenate(grids)[None]
    stride = np.concatenate(strides)[None]

    def sl(a, b):
        return g.op("Slice", [y, g.const(np.array([a], np.int64)), g.const(np.array([b], np.int64)),
                              g.const(np.array([2], np.int64))])
    xy = g.op("Mul", [g.op("Add", [sl(0, 2), g.const(grid)]), g.const(stride)])
    wh = g.op("Mul", [g.op("Exp", [sl(2, 4)]), g.const(stride)])
    return g.op("Concat", [xy, wh, sl(4, 5 + nc)], axis=2)


def build(head, size, nc, seed):
    g = G(seed)
    act = {"v7_grid": "leaky", "v7_raw": "leaky", "v5lite": "relu"}.get(head, "silu")
    feats = backbone(g, "images", act)
    y = yolox_head(g, feats, nc, size, head == "yolox_dec") if head.startswith("yolox") else v5_head(g, feats, nc, size, head)
    if head == "v7_raw":
        outputs = [helper.make_tensor_value_info(t, TensorProto.FLOAT, [1, 3, size // s, size // s, 5 + nc])
                   for t, s in zip(y, STRIDES)]
    else:
        g.nodes[-1].output[0] = "output"
        n = sum(3 * (size // s) ** 2 for s in STRIDES) if not head.startswith("yolox") else sum((size // s) ** 2 for s in STRIDES)
        outputs = [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, n, 5 + nc])]
    graph = helper.make_graph(g.nodes, "anchor_head_" + head,
                              [helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, size, size])],
                              outputs, g.inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="yolort gen_anchor_heads")
    m.ir_version = 8
    names = {i: "class%d" % i for i in range(nc)}
    for k, v in (("names", str(names)), ("stride", "32"), ("yolort.synthetic", "1")):
        e = m.metadata_props.add()
        e.key, e.value = k, v
    onnx.checker.check_model(m)
    return m


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--head", choices=HEADS, required=True)
    ap.add_argument("--size", type=int, default=160)
    ap.add_argument("--nc", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    if a.size % 32:
        ap.error("--size must be a multiple of 32")
    onnx.save(build(a.head, a.size, a.nc, a.seed), a.out)


if __name__ == "__main__":
    main()
