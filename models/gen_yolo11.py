#!/usr/bin/python3
"""gen_yolo11.py — write a synthetic YOLO11 (n or s) ONNX model with seeded random weights.

The graph has exactly the structure, op set and node/tensor naming of an Ultralytics YOLO11
export (Conv+SiLU as Conv/Sigmoid/Mul, C3k2, SPPF, C2PSA attention, nearest Resize, Concat,
decoupled head with depthwise cv3, DFL, anchor/stride decode, output0 [1, 84, N]) at opset 13.
Its speed is that of the real model; its detections are meaningless (metadata
"yolort.synthetic" = "1" says so, and yolort's tools print it).

Weights are deterministic for a given --seed and identical for every --size and for --bn /
--no-bn: they are drawn once, then the BatchNorm running statistics are set from a numpy forward
pass (ref_forward.py) over a synthetic scene at 320x320, so activations stay O(1) as in a trained
net. The head is calibrated like a trained detector: class logits have a bias around -5 so most
scores are low and a few anchors pass 0.25; box DFL bins prefer distances of 1-5 strides.

  --bn     (default) Conv without bias + BatchNormalization node (exercises BN folding)
  --no-bn  BN folded into Conv weight+bias, as Ultralytics exports

Usage: /usr/bin/python3 gen_yolo11.py --scale n --size 640 --out yolo11n-640.onnx [--seed 1]
       [--no-bn] [--also-no-bn PATH] [--check]
"""
import argparse
import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ref_forward  # noqa: E402

OPSET = 13
CALIB_SIZE = 320
BN_EPS = 1e-3  # Ultralytics Conv uses BatchNorm2d(eps=0.001)
NC = 80
REG_MAX = 16
STRIDES = (8, 16, 32)
# Pose head (--task pose): keypoints x values per box (Ultralytics kpt_shape), 0 = detect head;
# KPT_BAD: a look-alike keypoint decode (grid offset -0.4, not -0.5) for the converter's refusal.
KPT = (0, 0)
KPT_BAD = False
# OBB head (--task obb): one angle per box (Ultralytics OBB, ne = 1), decoded by dist2rbox.
OBB = False
# --obb-angle raw: YOLO26's OBB26 head, the angle conv's value is the angle (no sigmoid).
OBB_RAW = False
# Segment head (--task segment): NM mask coefficients per box (Ultralytics Segment, cv4) and the
# Proto branch on the stride-8 map (cv1 3x3, ConvTranspose 2x2 stride 2, cv2 3x3, cv3 1x1 -> NM
# prototypes at H/4 x W/4, output1); NPR the prototype branch's width (256 x the width multiple).
NM = 0
NPR = 256
SEG_WIDTH = 0.25  # the scale's width multiple, set by build()
# End-to-end pose (--task pose --end2end): YOLO26's Detect decodes corners (dist2bbox xywh=False
# when end2end), the keypoints follow in the same rows.
XYXY = False
DOTA_NAMES = ["plane", "ship", "storage tank", "baseball diamond", "tennis court", "basketball court",
              "ground track field", "harbor", "bridge", "large vehicle", "small vehicle", "helicopter",
              "roundabout", "soccer ball field", "swimming pool"]

# Ultralytics scales: (depth, width, max_channels)
SCALES = {"n": (0.50, 0.25, 1024), "s": (0.50, 0.50, 1024)}

COCO_NAMES = (
    "person bicycle car motorcycle airplane bus train truck boat|traffic light|fire hydrant|"
    "stop sign|parking meter|bench bird cat dog horse sheep cow elephant bear zebra giraffe "
    "backpack umbrella handbag tie suitcase frisbee skis snowboard|sports ball|kite|"
    "baseball bat|baseball glove|skateboard surfboard|tennis racket|bottle|wine glass|cup fork "
    "knife spoon bowl banana apple sandwich orange broccoli carrot|hot dog|pizza donut cake chair "
    "couch|potted plant|bed|dining table|toilet tv laptop mouse remote keyboard|cell phone|"
    "microwave oven toaster sink refrigerator book clock vase scissors|teddy bear|hair drier|"
    "toothbrush")


def coco_names():
    names = []
    for part in COCO_NAMES.split("|"):
        part = part.strip()
        # segments between '|' are either one multi-word name or space-separated single names
        if part in ("traffic light", "fire hydrant", "stop sign", "parking meter", "sports ball",
                    "baseball bat", "baseball glove", "tennis racket", "wine glass", "hot dog",
                    "potted plant", "dining table", "cell phone", "teddy bear", "hair drier"):
            names.append(part)
        else:
            names.extend(part.split())
    assert len(names) == 80, len(names)
    return names


def names_dict_string():
    names = (coco_names() if NC == 80 else ["person"] if KPT[0] and NC == 1 else DOTA_NAMES if OBB and NC == 15
             else ["class%d" % i for i in range(NC)])
    return "{" + ", ".join("%d: '%s'" % (i, n) for i, n in enumerate(names)) + "}"


def make_divisible(x, divisor=8):
    return int(math.ceil(x / divisor) * divisor)


class Params:
    """Named weights, drawn lazily in construction order from one seeded generator."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.t = {}

    def get(self, name, make):
        if name not in self.t:
            self.t[name] = np.asarray(make(self.rng), dtype=np.float32)
        return self.t[name]


class Builder:
    """Emits ONNX nodes with Ultralytics/torch-export naming."""

    def __init__(self, params, size):
        self.p = params
        self.size = size
        self.nodes = []
        self.inits = []  # names of initializers used, in first-use order
        self.consts = {}  # graph constants (not weights): name -> array

    def _init(self, name):
        if name not in self.inits:
            self.inits.append(name)
        return name

    def const(self, name, arr):
        self.consts[name] = np.asarray(arr)
        return self._init(name)

    def node(self, op, name, inputs, n_out=1, **attrs):
        outs = ["%s_output_%d" % (name, i) for i in range(n_out)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=name, **attrs))
        return outs if n_out > 1 else outs[0]

    # --- building blocks -------------------------------------------------------------
    def conv(self, x, path, c1, c2, k=1, s=1, g=1, act=True):
        """Ultralytics Conv: conv(no bias) + BN (+ SiLU). path like 'model.2.cv1'."""
        wname = path + ".conv.weight"
        fan_in = (c1 // g) * k * k
        self.p.get(wname, lambda r: r.standard_normal((c2, c1 // g, k, k)) * math.sqrt(2.0 / fan_in))
        scope = _torch_scope(path)
        y = self.node("Conv", scope + "/conv/Conv", [x, self._init(wname)],
                      dilations=[1, 1], group=g, kernel_shape=[k, k],
                      pads=[k // 2] * 4, strides=[s, s])
        bn = path + ".bn."
        # gamma/beta like a trained net: lognormal scales, mostly negative shifts before SiLU;
        # no activation (feeding a residual Add or attention) -> smaller, centred.
        if act:
            self.p.get(bn + "weight", lambda r: np.exp(r.normal(0.0, 0.35, c2)))
            self.p.get(bn + "bias", lambda r: r.normal(-0.4, 0.6, c2))
        else:
            self.p.get(bn + "weight", lambda r: 0.5 * np.exp(r.normal(0.0, 0.25, c2)))
            self.p.get(bn + "bias", lambda r: r.normal(0.0, 0.1, c2))
        self.p.get(bn + "running_mean", lambda r: np.zeros(c2))
        self.p.get(bn + "running_var", lambda r: np.ones(c2))
        y = self.node("BatchNormalization", scope + "/bn/BatchNormalization",
                      [y] + [self._init(bn + n) for n in ("weight", "bias", "running_mean", "running_var")],
                      epsilon=BN_EPS, momentum=0.9)
        if act:
            sg = self.node("Sigmoid", scope + "/act/Sigmoid", [y])
            y = self.node("Mul", scope + "/act/Mul", [y, sg])
        return y

    def conv2d_plain(self, x, path, c1, c2, bias_init):
        """nn.Conv2d(c1, c2, 1) with bias (head outputs)."""
        w = self.p.get(path + ".weight", lambda r: r.standard_normal((c2, c1, 1, 1)) * math.sqrt(1.0 / c1))
        b = self.p.get(path + ".bias", lambda r: np.full(c2, bias_init))
        del w, b
        return self.node("Conv", _torch_scope(path) + "/Conv",
                         [x, self._init(path + ".weight"), self._init(path + ".bias")],
                         dilations=[1, 1], group=1, kernel_shape=[1, 1], pads=[0, 0, 0, 0], strides=[1, 1])

    def split(self, x, scope, sizes, axis=1, const_name=None):
        cname = const_name or (scope + "/Constant_split_output_0")
        return self.node("Split", scope + "/Split", [x, self.const(cname, np.array(sizes, np.int64))],
                         n_out=len(sizes), axis=axis)

    def bottleneck(self, x, path, c1, c2, shortcut=True, k=(3, 3), e=0.5):
        c_ = int(c2 * e)
        y = self.conv(x, path + ".cv1", c1, c_, k[0])
        y = self.conv(y, path + ".cv2", c_, c2, k[1])
        if shortcut and c1 == c2:
            y = self.node("Add", _torch_scope(path) + "/Add", [x, y])
        return y

    def c3k(self, x, path, c1, c2, n=2, shortcut=True, e=0.5, k=3):
        c_ = int(c2 * e)
        a = self.conv(x, path + ".cv1", c1, c_)
        b = self.conv(x, path + ".cv2", c1, c_)
        for i in range(n):
            a = self.bottleneck(a, "%s.m.%d" % (path, i), c_, c_, shortcut, (k, k), e=1.0)
        # torch names the Sequential 'm' and its children 'm.0', 'm.1' -> /m/m.0
        y = self.node("Concat", _torch_scope(path) + "/Concat", [a, b], axis=1)
        return self.conv(y, path + ".cv3", 2 * c_, c2)

    def c3k2(self, x, idx, c1, c2, n, c3k, e=0.5, shortcut=True):
        path = "model.%d" % idx
        c = int(c2 * e)
        y = self.conv(x, path + ".cv1", c1, 2 * c)
        s0, s1 = self.split(y, "/" + path, [c, c])
        ys = [s0, s1]
        for i in range(n):
            if c3k:
                ys.append(self.c3k(ys[-1], "%s.m.%d" % (path, i), c, c, 2, shortcut))
            else:
                ys.append(self.bottleneck(ys[-1], "%s.m.%d" % (path, i), c, c, shortcut))
        y = self.node("Concat", "/%s/Concat" % path, ys, axis=1)
        return self.conv(y, path + ".cv2", (2 + n) * c, c2)

    def sppf(self, x, idx, c1, c2, k=5):
        path = "model.%d" % idx
        c_ = c1 // 2
        y = self.conv(x, path + ".cv1", c1, c_)
        ys = [y]
        for i, nm in enumerate(("m", "m_1", "m_2")):
            ys.append(self.node("MaxPool", "/model.%d/%s/MaxPool" % (idx, nm), [ys[-1]],
                                ceil_mode=0, dilations=[1, 1], kernel_shape=[k, k],
                                pads=[k // 2] * 4, strides=[1, 1]))
        y = self.node("Concat", "/model.%d/Concat" % idx, ys, axis=1)
        return self.conv(y, path + ".cv2", c_ * 4, c2)

    def attention(self, x, path, dim, hw, num_heads, attn_ratio=0.5):
        head_dim = dim // num_heads
        key_dim = int(head_dim * attn_ratio)
        h = dim + key_dim * num_heads * 2
        scope = _torch_scope(path)
        hh, ww = (hw, hw) if isinstance(hw, int) else hw
        n_tok = hh * ww
        qkv = self.conv(x, path + ".qkv", dim, h, 1, act=False)
        r = self.node("Reshape", scope + "/Reshape",
                      [qkv, self.const(scope + "/Constant_output_0",
                                       np.array([1, num_heads, key_dim * 2 + head_dim, n_tok], np.int64))])
        q, k, v = self.node("Split", scope + "/Split",
                            [r, self.const(scope + "/Constant_2_output_0",
                                           np.array([key_dim, key_dim, head_dim], np.int64))],
                            n_out=3, axis=2)
        qt = self.node("Transpose", scope + "/Transpose", [q], perm=[0, 1, 3, 2])
        shape4 = self.const(scope + "/Constant_3_output_0", np.array([1, dim, hh, ww], np.int64))
        v4 = self.node("Reshape", scope + "/Reshape_2", [v, shape4])
        a = self.node("MatMul", scope + "/MatMul", [qt, k])
        a = self.node("Mul", scope + "/Mul",
                      [a, self.const(scope + "/Constant_1_output_0", np.array(key_dim ** -0.5, np.float32))])
        pe = self.conv(v4, path + ".pe", dim, dim, 3, g=dim, act=False)
        a = self.node("Softmax", scope + "/Softmax", [a], axis=3)
        at = self.node("Transpose", scope + "/Transpose_1", [a], perm=[0, 1, 3, 2])
        o = self.node("MatMul", scope + "/MatMul_1", [v, at])
        o = self.node("Reshape", scope + "/Reshape_1", [o, shape4])
        o = self.node("Add", scope + "/Add", [o, pe])
        return self.conv(o, path + ".proj", dim, dim, 1, act=False)

    def c2psa(self, x, idx, c1, c2, n, hw, e=0.5):
        path = "model.%d" % idx
        c = int(c1 * e)
        y = self.conv(x, path + ".cv1", c1, 2 * c)
        a, b = self.split(y, "/" + path, [c, c])
        for i in range(n):
            bp = "%s.m.%d" % (path, i)
            scope = _torch_scope(bp)
            t = self.attention(b, bp + ".attn", c, hw, num_heads=c // 64)
            b = self.node("Add", scope + "/Add", [b, t])
            f = self.conv(b, bp + ".ffn.0", c, 2 * c, 1)
            f = self.conv(f, bp + ".ffn.1", 2 * c, c, 1, act=False)
            b = self.node("Add", scope + "/Add_1", [b, f])
        y = self.node("Concat", "/%s/Concat" % path, [a, b], axis=1)
        return self.conv(y, path + ".cv2", 2 * c, c1)

    def upsample(self, x, idx):
        roi = self.const("/model.11/Constant_1_output_0", np.zeros(0, np.float32))
        sc = self.const("/model.11/Constant_output_0", np.array([1, 1, 2, 2], np.float32))
        return self.node("Resize", "/model.%d/Resize" % idx, [x, roi, sc],
                         coordinate_transformation_mode="asymmetric", cubic_coeff_a=-0.75,
                         mode="nearest", nearest_mode="floor")

    def detect(self, feats, chans, hws, head="slice"):
        """head "slice": Ultralytics 8.4 / opset 13 export (per-scale reshapes, DFL transposes
        [0,3,1,2] / [0,3,2,1], Slice); "split": the 8.3 style of other exports (per-scale Concat of
        box and class logits, one Split into boxes and scores, DFL transpose [0,2,1,3] and softmax
        on axis 1)."""
        hws = [(h, h) if isinstance(h, int) else h for h in hws]
        if head == "split":
            return self._detect_split(feats, chans, hws)
        box_r, cls_r = [], []
        box_shape = self.const("/model.23/Constant_output_0", np.array([1, 4 * REG_MAX, -1], np.int64))
        cls_shape = self.const("/model.23/Constant_3_output_0", np.array([1, NC, -1], np.int64))
        for i, (x, ch) in enumerate(zip(feats, chans)):
            b, c = self._head_convs(x, i, ch, chans)
            box_r.append(self.node("Reshape", "/model.23/Reshape" + ("" if i == 0 else "_%d" % i),
                                   [b, box_shape]))
            cls_r.append(self.node("Reshape", "/model.23/Reshape_%d" % (i + 3), [c, cls_shape]))
        n_anchor = sum(h * w for h, w in hws)
        kpt = self._pose_branch(feats, chans, hws) if KPT[0] else self._seg_branch(feats, chans) if NM else None
        angle = self._obb_branch(feats, chans, hws) if OBB else None
        box = self.node("Concat", "/model.23/Concat", box_r, axis=-1)
        cls = self.node("Concat", "/model.23/Concat_1", cls_r, axis=-1)
        # DFL: softmax over 16 bins, expectation by a fixed 1x1 conv with weights 0..15
        d = self.node("Reshape", "/model.23/dfl/Reshape",
                      [box, self.const("/model.23/dfl/Constant_output_0",
                                       np.array([1, 4, REG_MAX, n_anchor], np.int64))])
        d = self.node("Transpose", "/model.23/dfl/Transpose", [d], perm=[0, 3, 1, 2])
        d = self.node("Softmax", "/model.23/dfl/Softmax", [d], axis=3)
        d = self.node("Transpose", "/model.23/dfl/Transpose_1", [d], perm=[0, 3, 2, 1])
        self.p.get("model.23.dfl.conv.weight",
                   lambda r: np.arange(REG_MAX, dtype=np.float32).reshape(1, REG_MAX, 1, 1))
        d = self.node("Conv", "/model.23/dfl/conv/Conv", [d, self._init("model.23.dfl.conv.weight")],
                      dilations=[1, 1], group=1, kernel_shape=[1, 1], pads=[0, 0, 0, 0], strides=[1, 1])
        d = self.node("Reshape", "/model.23/dfl/Reshape_1",
                      [d, self.const("/model.23/dfl/Constant_1_output_0",
                                     np.array([1, 4, n_anchor], np.int64))])
        if angle is not None:
            self._dist2rbox(d, cls, angle, hws)
            self.nodes.append(helper.make_node("Concat", ["/model.23/Concat_det_output_0", angle], ["output0"],
                                               name="/model.23/Concat_obb", axis=1))
            return n_anchor
        self._dist2bbox(d, cls, hws, out="output0" if kpt is None else "/model.23/Concat_det_output_0")
        if kpt is not None:
            self.nodes.append(helper.make_node("Concat", ["/model.23/Concat_det_output_0", kpt], ["output0"],
                                               name="/model.23/Concat_pose" if KPT[0] else "/model.23/Concat_6",
                                               axis=1))
        if NM:  # the prototypes are the second output, as exported
            for n in self.nodes:
                for i, o in enumerate(n.output):
                    if o == self.proto:
                        n.output[i] = "output1"
        return n_anchor

    def _seg_branch(self, feats, chans):
        """Ultralytics Segment (head.py): proto = Proto(ch[0], npr, nm) on the first map, cv4[i] =
        Conv(x, c4, 3), Conv(c4, c4, 3), Conv2d(c4, nm, 1), c4 = max(ch[0] // 4, nm); per scale
        view(1, nm, -1), cat on the anchors: the coefficient rows after the scores. Proto: cv1
        Conv(c1, npr, 3), upsample ConvTranspose2d(npr, npr, 2, 2, 0, bias=True), cv2 Conv(npr,
        npr, 3), cv3 Conv(npr, nm): output1 [1, nm, H/4, W/4]."""
        c_ = make_divisible(min(NPR, 1024) * SEG_WIDTH, 8)
        p = self.conv(feats[0], "model.23.proto.cv1", chans[0], c_, 3)
        wname, bname = "model.23.proto.upsample.weight", "model.23.proto.upsample.bias"
        # nearly the same matrix at the 4 taps (a trained upsample is smooth; independent random
        # taps would write a 2x2 checkerboard into the prototypes, and masks of pixel noise)
        self.p.get(wname, lambda r: (r.standard_normal((c_, c_, 1, 1)) + 0.1 * r.standard_normal((c_, c_, 2, 2)))
                   * math.sqrt(1.0 / c_))
        self.p.get(bname, lambda r: r.normal(0.0, 0.1, c_))
        p = self.node("ConvTranspose", "/model.23/proto/upsample/ConvTranspose", [p, self._init(wname), self._init(bname)],
                      dilations=[1, 1], group=1, kernel_shape=[2, 2], output_padding=[0, 0], pads=[0, 0, 0, 0],
                      strides=[2, 2])
        p = self.conv(p, "model.23.proto.cv2", c_, c_, 3)
        p = self.conv(p, "model.23.proto.cv3", c_, NM, 1)
        self.proto = p
        c4 = max(chans[0] // 4, NM)
        shape = self.const("/model.23/Constant_seg_output_0", np.array([1, NM, -1], np.int64))
        parts = []
        for i, (x, ch) in enumerate(zip(feats, chans)):
            q = "model.23.cv4.%d" % i
            k = self.conv(x, q + ".0", ch, c4, 3)
            k = self.conv(k, q + ".1", c4, c4, 3)
            k = self.conv2d_plain(k, q + ".2", c4, NM, 0.0)
            parts.append(self.node("Reshape", "/model.23/Reshape_cv4_%d" % i, [k, shape]))
        return self.node("Concat", "/model.23/Concat_seg", parts, axis=-1)

    def _pose_branch(self, feats, chans, hws):
        """Ultralytics Pose (head.py): cv4[i] = Conv(x, c4, 3), Conv(c4, c4, 3), Conv2d(c4, nk, 1),
        c4 = max(ch[0] // 4, nk); per scale view(1, nk, -1), cat on the anchors; kpts_decode as
        exported: view(1, K, D, N), xy = (y[:, :, :2] * 2 + (anchors - 0.5)) * strides,
        cat(xy, y[:, :, 2:3].sigmoid()) on axis 2 when D == 3, view(1, nk, N)."""
        nk = KPT[0] * KPT[1]
        c4 = max(chans[0] // 4, nk)
        n_anchor = sum(h * w for h, w in hws)
        shape = self.const("/model.23/Constant_kpt_output_0", np.array([1, nk, -1], np.int64))
        parts = []
        for i, (x, ch) in enumerate(zip(feats, chans)):
            p = "model.23.cv4.%d" % i
            k = self.conv(x, p + ".0", ch, c4, 3)
            k = self.conv(k, p + ".1", c4, c4, 3)
            k = self.conv2d_plain(k, p + ".2", c4, nk, 0.0)
            parts.append(self.node("Reshape", "/model.23/Reshape_cv4_%d" % i, [k, shape]))
        kpt = self.node("Concat", "/model.23/Concat_kpt", parts, axis=-1)
        y = self.node("Reshape", "/model.23/Reshape_kpt",
                      [kpt, self.const("/model.23/Constant_kpt_1_output_0",
                                       np.array([1, KPT[0], KPT[1], n_anchor], np.int64))])
        i0 = self.const("/model.23/kpt_i0", np.array([0], np.int64))
        i2 = self.const("/model.23/kpt_i2", np.array([2], np.int64))
        i3 = self.const("/model.23/kpt_i3", np.array([3], np.int64))
        ax = self.const("/model.23/kpt_axis", np.array([2], np.int64))
        xy = self.node("Slice", "/model.23/Slice_kpt", [y, i0, i2, ax])
        xy = self.node("Mul", "/model.23/Mul_kpt", [xy, self.const("/model.23/kpt_two", np.array(2.0, np.float32))])
        anchors, strides = make_anchors(hws)
        grid = anchors - (0.4 if KPT_BAD else 0.5)
        xy = self.node("Add", "/model.23/Add_kpt", [xy, self.const("/model.23/kpt_grid", grid)])
        xy = self.node("Mul", "/model.23/Mul_kpt_1", [xy, self.const("/model.23/kpt_strides", strides)])
        if KPT[1] == 3:
            v = self.node("Slice", "/model.23/Slice_kpt_1", [y, i2, i3, ax])
            v = self.node("Sigmoid", "/model.23/Sigmoid_kpt", [v])
            xy = self.node("Concat", "/model.23/Concat_kpt_1", [xy, v], axis=2)
        return self.node("Reshape", "/model.23/Reshape_kpt_1",
                         [xy, self.const("/model.23/Constant_kpt_2_output_0", np.array([1, nk, n_anchor], np.int64))])

    def _obb_branch(self, feats, chans, hws):
        """Ultralytics OBB (head.py): cv4[i] = Conv(x, c4, 3), Conv(c4, c4, 3), Conv2d(c4, ne, 1),
        c4 = max(ch[0] // 4, ne), ne = 1; per scale view(1, 1, -1), cat on the anchors, then
        angle = (sigmoid - 0.25) * pi, in [-pi/4, 3pi/4)."""
        c4 = max(chans[0] // 4, 1)
        shape = self.const("/model.23/Constant_obb_output_0", np.array([1, 1, -1], np.int64))
        parts = []
        for i, (x, ch) in enumerate(zip(feats, chans)):
            p = "model.23.cv4.%d" % i
            k = self.conv(x, p + ".0", ch, c4, 3)
            k = self.conv(k, p + ".1", c4, c4, 3)
            k = self.conv2d_plain(k, p + ".2", c4, 1, 0.0)
            parts.append(self.node("Reshape", "/model.23/Reshape_cv4_%d" % i, [k, shape]))
        a = self.node("Concat", "/model.23/Concat_obb_angle", parts, axis=-1)
        if OBB_RAW:  # OBB26.forward_head: the raw angle
            return a
        a = self.node("Sigmoid", "/model.23/Sigmoid_obb", [a])
        a = self.node("Sub", "/model.23/Sub_obb", [a, self.const("/model.23/obb_quarter", np.array(0.25, np.float32))])
        return self.node("Mul", "/model.23/Mul_obb", [a, self.const("/model.23/obb_pi", np.array(math.pi, np.float32))])

    def _dist2rbox(self, d, cls, angle, hws):
        """dist2rbox(pred_dist, angle, anchors, dim=1) * strides as exported: the half
        difference of the distances turned by the angle, plus the anchor; width, height lt + rb."""
        i0 = self.const("/model.23/Constant_7_output_0", np.array([0], np.int64))
        i1 = self.const("/model.23/obb_i1", np.array([1], np.int64))
        i2 = self.const("/model.23/Mul_output_0", np.array([2], np.int64))
        i4 = self.const("/model.23/Mul_1_output_0", np.array([4], np.int64))
        ax = self.const("/model.23/Constant_6_output_0", np.array([1], np.int64))
        lt = self.node("Slice", "/model.23/Slice", [d, i0, i2, ax])
        rb = self.node("Slice", "/model.23/Slice_1", [d, i2, i4, ax])
        cos = self.node("Cos", "/model.23/Cos", [angle])
        sin = self.node("Sin", "/model.23/Sin", [angle])
        half = self.node("Div", "/model.23/Div_obb",
                         [self.node("Sub", "/model.23/Sub_obb_1", [rb, lt]),
                          self.const("/model.23/Constant_14_output_0", np.array(2.0, np.float32))])
        xf = self.node("Slice", "/model.23/Slice_2", [half, i0, i1, ax])
        yf = self.node("Slice", "/model.23/Slice_3", [half, i1, i2, ax])
        x = self.node("Sub", "/model.23/Sub_obb_2", [self.node("Mul", "/model.23/Mul_obb_1", [xf, cos]),
                                                     self.node("Mul", "/model.23/Mul_obb_2", [yf, sin])])
        y = self.node("Add", "/model.23/Add_obb", [self.node("Mul", "/model.23/Mul_obb_3", [xf, sin]),
                                                   self.node("Mul", "/model.23/Mul_obb_4", [yf, cos])])
        anchors, strides = make_anchors(hws)
        xy = self.node("Concat", "/model.23/Concat_obb_xy", [x, y], axis=1)
        xy = self.node("Add", "/model.23/Add_obb_1", [xy, self.const("/model.23/Constant_12_output_0", anchors)])
        wh = self.node("Add", "/model.23/Add_obb_2", [lt, rb])
        xywh = self.node("Concat", "/model.23/Concat_2", [xy, wh], axis=1)
        xywh = self.node("Mul", "/model.23/Mul_2", [xywh, self.const("/model.23/Constant_15_output_0", strides)])
        sc = self.node("Sigmoid", "/model.23/Sigmoid", [cls])
        self.nodes.append(helper.make_node("Concat", [xywh, sc], ["/model.23/Concat_det_output_0"],
                                           name="/model.23/Concat_3", axis=1))

    def _head_convs(self, x, i, ch, chans):
        c2 = max(16, chans[0] // 4, REG_MAX * 4)
        c3 = max(chans[0], min(NC, 100))
        p = "model.23.cv2.%d" % i
        b = self.conv(x, p + ".0", ch, c2, 3)
        b = self.conv(b, p + ".1", c2, c2, 3)
        b = self.conv2d_plain(b, p + ".2", c2, 4 * REG_MAX, 0.0)
        p = "model.23.cv3.%d" % i
        c = self.conv(x, p + ".0.0", ch, ch, 3, g=ch)
        c = self.conv(c, p + ".0.1", ch, c3, 1)
        c = self.conv(c, p + ".1.0", c3, c3, 3, g=c3)
        c = self.conv(c, p + ".1.1", c3, c3, 1)
        c = self.conv2d_plain(c, p + ".2", c3, NC, -5.0)
        return b, c

    def _detect_split(self, feats, chans, hws):
        n_anchor = sum(h * w for h, w in hws)
        no = 4 * REG_MAX + NC
        shape = self.const("/model.23/Constant_output_0", np.array([1, no, -1], np.int64))
        rs = []
        for i, (x, ch) in enumerate(zip(feats, chans)):
            b, c = self._head_convs(x, i, ch, chans)
            cat = self.node("Concat", "/model.23/Concat" + ("" if i == 0 else "_%d" % i), [b, c], axis=1)
            rs.append(self.node("Reshape", "/model.23/Reshape" + ("" if i == 0 else "_%d" % i), [cat, shape]))
        x = self.node("Concat", "/model.23/Concat_3", rs, axis=2)
        box, cls = self.node("Split", "/model.23/Split",
                             [x, self.const("onnx::Split_head", np.array([4 * REG_MAX, NC], np.int64))],
                             n_out=2, axis=1)
        d = self.node("Reshape", "/model.23/dfl/Reshape",
                      [box, self.const("/model.23/dfl/Constant_output_0",
                                       np.array([1, 4, REG_MAX, n_anchor], np.int64))])
        d = self.node("Transpose", "/model.23/dfl/Transpose", [d], perm=[0, 2, 1, 3])
        d = self.node("Softmax", "/model.23/dfl/Softmax", [d], axis=1)
        self.p.get("model.23.dfl.conv.weight",
                   lambda r: np.arange(REG_MAX, dtype=np.float32).reshape(1, REG_MAX, 1, 1))
        d = self.node("Conv", "/model.23/dfl/conv/Conv", [d, self._init("model.23.dfl.conv.weight")],
                      dilations=[1, 1], group=1, kernel_shape=[1, 1], pads=[0, 0, 0, 0], strides=[1, 1])
        d = self.node("Reshape", "/model.23/dfl/Reshape_1",
                      [d, self.const("/model.23/dfl/Constant_1_output_0",
                                     np.array([1, 4, n_anchor], np.int64))])
        self._dist2bbox(d, cls, hws, ("/model.23/Concat_4", "/model.23/Concat_5"))
        return n_anchor

    def _dist2bbox(self, d, cls, hws, cats=("/model.23/Concat_2", "/model.23/Concat_3"), out="output0"):
        # dist2bbox(xywh) with the anchors and strides folded into constants, as exported
        i0 = self.const("/model.23/Constant_7_output_0", np.array([0], np.int64))
        i2 = self.const("/model.23/Mul_output_0", np.array([2], np.int64))
        i4 = self.const("/model.23/Mul_1_output_0", np.array([4], np.int64))
        ax = self.const("/model.23/Constant_6_output_0", np.array([1], np.int64))
        lt = self.node("Slice", "/model.23/Slice", [d, i0, i2, ax])
        rb = self.node("Slice", "/model.23/Slice_1", [d, i2, i4, ax])
        anchors, strides = make_anchors(hws)
        x1y1 = self.node("Sub", "/model.23/Sub", [self.const("/model.23/Constant_12_output_0", anchors), lt])
        x2y2 = self.node("Add", "/model.23/Add_1", [self.const("/model.23/Constant_13_output_0", anchors), rb])
        cxy = self.node("Add", "/model.23/Add_2", [x1y1, x2y2])
        cxy = self.node("Div", "/model.23/Div_1",
                        [cxy, self.const("/model.23/Constant_14_output_0", np.array(2.0, np.float32))])
        wh = self.node("Sub", "/model.23/Sub_1", [x2y2, x1y1])
        xywh = self.node("Concat", cats[0], [x1y1, x2y2] if XYXY else [cxy, wh], axis=1)
        xywh = self.node("Mul", "/model.23/Mul_2",
                         [xywh, self.const("/model.23/Constant_15_output_0", strides)])
        sc = self.node("Sigmoid", "/model.23/Sigmoid", [cls])
        self.nodes.append(helper.make_node("Concat", [xywh, sc], [out],
                                           name=cats[1], axis=1))


def _torch_scope(path):
    """'model.23.cv3.0.1.1' -> '/model.23/cv3.0/cv3.0.1/cv3.0.1.1' (nested nn.Sequential names);
    'model.6.m.0.m.1.cv2' -> '/model.6/m.0/m/m.1/cv2'; 'model.10.m.0.attn.qkv' -> '/model.10/m/m.0/attn/qkv'."""
    parts = path.split(".")
    assert parts[0] == "model"
    out = ["model.%s" % parts[1]]
    rest = parts[2:]
    i = 0
    while i < len(rest):
        tok = rest[i]
        if tok in ("cv2", "cv3", "cv4") and out[0] == "model.23" and i == 0:
            # Detect.cv2[i] is a Sequential of Sequentials: cv3.0 / cv3.0.1 / cv3.0.1.1
            prefix = tok
            j = i + 1
            while j < len(rest) and rest[j].isdigit():
                prefix = prefix + "." + rest[j]
                out.append(prefix)
                j += 1
            i = j
            continue
        if tok == "m" and i + 1 < len(rest) and rest[i + 1].isdigit():
            # ModuleList inside C3k2 -> 'm.0'; Sequential inside C3k / C2PSA -> 'm/m.0'
            if _sequential_m(out):
                out.append("m")
            out.append("m.%s" % rest[i + 1])
            i += 2
            continue
        if tok == "ffn" and i + 1 < len(rest) and rest[i + 1].isdigit():
            out.append("ffn")
            out.append("ffn.%s" % rest[i + 1])
            i += 2
            continue
        out.append(tok)
        i += 1
    return "/" + "/".join(out)


def _sequential_m(out):
    # C2PSA (model.10) holds a Sequential 'm'; C3k (model.X/m.0) holds a Sequential 'm';
    # C3k2 holds a ModuleList 'm' (export scope '/m.0' without '/m').
    if len(out) == 1:
        return out[0] == "model.10"
    return True


def make_anchors(hws):
    pts, strides = [], []
    for (h, w), s in zip(hws, STRIDES):
        sy = np.arange(h, dtype=np.float32) + 0.5
        sx = np.arange(w, dtype=np.float32) + 0.5
        yy, xx = np.meshgrid(sy, sx, indexing="ij")
        pts.append(np.stack([xx.ravel(), yy.ravel()], 0))
        strides.append(np.full(h * w, s, np.float32))
    return np.concatenate(pts, 1)[None].astype(np.float32), np.concatenate(strides)[None]


def build(params, scale, size, head="slice"):
    """size: an int (square) or (height, width), multiples of 32."""
    hgt, wid = (size, size) if isinstance(size, int) else size
    depth, width, max_ch = SCALES[scale]

    def ch(c):
        return make_divisible(min(c, max_ch) * width, 8)

    def rep(n):
        return max(round(n * depth), 1) if n > 1 else n

    global SEG_WIDTH
    SEG_WIDTH = width
    b = Builder(params, size)
    x = "images"
    c0, c1, c2, c3, c4, c5, c7 = ch(64), ch(128), ch(256), ch(256), ch(512), ch(512), ch(1024)
    x0 = b.conv(x, "model.0", 3, c0, 3, 2)
    x1 = b.conv(x0, "model.1", c0, c1, 3, 2)
    x2 = b.c3k2(x1, 2, c1, c2, rep(2), False, e=0.25)
    x3 = b.conv(x2, "model.3", c2, c3, 3, 2)
    x4 = b.c3k2(x3, 4, c3, ch(512), rep(2), False, e=0.25)
    x5 = b.conv(x4, "model.5", ch(512), c5, 3, 2)
    x6 = b.c3k2(x5, 6, c5, ch(512), rep(2), True)
    x7 = b.conv(x6, "model.7", ch(512), c7, 3, 2)
    x8 = b.c3k2(x7, 8, c7, ch(1024), rep(2), True)
    x9 = b.sppf(x8, 9, ch(1024), ch(1024))
    x10 = b.c2psa(x9, 10, ch(1024), ch(1024), rep(2), (hgt // 32, wid // 32))
    x11 = b.upsample(x10, 11)
    x12 = b.node("Concat", "/model.12/Concat", [x11, x6], axis=1)
    x13 = b.c3k2(x12, 13, ch(1024) + ch(512), ch(512), rep(2), False)
    x14 = b.upsample(x13, 14)
    x15 = b.node("Concat", "/model.15/Concat", [x14, x4], axis=1)
    x16 = b.c3k2(x15, 16, ch(512) + ch(512), ch(256), rep(2), False)
    x17 = b.conv(x16, "model.17", ch(256), ch(256), 3, 2)
    x18 = b.node("Concat", "/model.18/Concat", [x17, x13], axis=1)
    x19 = b.c3k2(x18, 19, ch(256) + ch(512), ch(512), rep(2), False)
    x20 = b.conv(x19, "model.20", ch(512), ch(512), 3, 2)
    x21 = b.node("Concat", "/model.21/Concat", [x20, x10], axis=1)
    x22 = b.c3k2(x21, 22, ch(512) + ch(1024), ch(1024), rep(2), True)
    del c4
    n_anchor = b.detect([x16, x19, x22], [ch(256), ch(512), ch(1024)],
                        [(hgt // s, wid // s) for s in STRIDES], head)
    return b, n_anchor


def add_end2end(b, n_anchor, k, extra=0, tile_extra=True):
    """Ultralytics' end-to-end (NMS-free) postprocess after the decode, as YOLOv10 / YOLO26 /
    end2end exports write it (head.py Detect.postprocess / get_topk_index): output0
    [1, 4 + nc (+ extra), N] -> Transpose -> Split [4, nc (, extra)] -> ReduceMax over classes ->
    TopK(k) anchors -> GatherElements of their scores (Tile) -> Flatten -> TopK(k) pairs ->
    anchor = pair / nc (Gather of the anchors) and class = pair % nc -> boxes by GatherElements
    -> Concat [1, k, 6 (+ extra)] (4 box rows, score, class, then the extra rows gathered by the
    same anchor index: Pose / Segment / OBB.postprocess's keypoints, mask coefficients, angle;
    tile_extra False gathers them with the bare index, as newer exports do for ne = 1). The box
    rows are the decode's (YOLO26 detect / pose write xyxy, OBB xywh)."""
    assert 1 <= k <= n_anchor
    dec = "/model.23/decode_output_0"
    for n in b.nodes:
        for i, o in enumerate(n.output):
            if o == "output0":
                n.output[i] = dec
    kk = b.const("/model.23/e2e_k", np.array([k], np.int64))
    last = b.const("/model.23/e2e_last_axis", np.array([-1], np.int64))
    two = b.const("/model.23/e2e_axis2", np.array([2], np.int64))
    t = b.node("Transpose", "/model.23/Transpose", [dec], perm=[0, 2, 1])
    sizes = [4, NC] + ([extra] if extra else [])
    parts = b.node("Split", "/model.23/Split_e2e",
                   [t, b.const("onnx::Split_e2e", np.array(sizes, np.int64))], n_out=len(sizes), axis=-1)
    boxes, scores = parts[0], parts[1]
    best = b.node("ReduceMax", "/model.23/ReduceMax", [scores], axes=[-1], keepdims=0)
    _, anchors = b.node("TopK", "/model.23/TopK", [best, kk], n_out=2, axis=-1, largest=1, sorted=1)
    idx = b.node("Unsqueeze", "/model.23/Unsqueeze", [anchors, last])
    flat_idx = b.node("Flatten", "/model.23/Flatten_1", [idx], axis=2)
    tiled = b.node("Tile", "/model.23/Tile", [idx, b.const("/model.23/e2e_tile_nc",
                                                             np.array([1, 1, NC], np.int64))])
    sc = b.node("GatherElements", "/model.23/GatherElements", [scores, tiled], axis=1)
    sc = b.node("Flatten", "/model.23/Flatten", [sc], axis=1)
    top, pair = b.node("TopK", "/model.23/TopK_1", [sc, kk], n_out=2, axis=-1, largest=1, sorted=1)
    score = b.node("Unsqueeze", "/model.23/Unsqueeze_1", [top, two])
    ncc = b.const("/model.23/e2e_nc", np.array(NC, np.int64))
    a = b.node("Div", "/model.23/Div_e2e", [pair, ncc])
    cls = b.node("Mod", "/model.23/Mod", [pair, ncc], fmod=0)
    sel = b.node("Gather", "/model.23/Gather_3", [flat_idx, a], axis=0)
    cls = b.node("Unsqueeze", "/model.23/Unsqueeze_2", [cls, two])
    sel4 = b.node("Tile", "/model.23/Tile_1", [sel, b.const("onnx::Tile_e2e", np.array([1, 1, 4], np.int64))])
    cls = b.node("Cast", "/model.23/Cast_2", [cls], to=TensorProto.FLOAT)
    bx = b.node("GatherElements", "/model.23/GatherElements_1", [boxes, sel4], axis=1)
    cat = [bx, score, cls]
    if extra:
        sel_e = sel if not tile_extra else b.node(
            "Tile", "/model.23/Tile_2", [sel, b.const("onnx::Tile_e2e_extra", np.array([1, 1, extra], np.int64))])
        cat.append(b.node("GatherElements", "/model.23/GatherElements_2", [parts[2], sel_e], axis=1))
    b.nodes.append(helper.make_node("Concat", cat, ["output0"], name="/model.23/Concat_6", axis=-1))


def _round_half(a):
    # Round to float16 precision so BLAS-level differences between machines rarely change bytes.
    return np.asarray(a, np.float32).astype(np.float16).astype(np.float32)


CALIB_IMAGES = 6


def calibrate(params, scale, seed):
    """Set BN running stats and head biases from a forward pass over a few synthetic scenes at
    CALIB_SIZE, run in lockstep so each BN sees the statistics of all of them (one image alone
    gives statistics that do not carry over to other images)."""
    b, _ = build(params, scale, CALIB_SIZE)
    rng = np.random.default_rng(seed + 1000)
    consts = dict(b.consts)
    envs = [{"images": ref_forward.synthetic_scene(CALIB_SIZE, seed * 100 + 2000 + i)}
            for i in range(CALIB_IMAGES)]
    head_pre = {}
    for node in b.nodes:
        if node.op_type == "BatchNormalization":
            base = node.input[1][: -len("weight")]
            xin = np.stack([e[node.input[0]][0] for e in envs]).astype(np.float64)
            mean = xin.mean(axis=(0, 2, 3))
            var = xin.var(axis=(0, 2, 3))
            # Running stats of a trained net track the data, not exactly; dead channels keep a
            # floor so another image cannot blow them up.
            mean = mean + rng.normal(0, 0.03, mean.shape) * np.sqrt(var)
            var = var * np.exp(rng.normal(0, 0.05, var.shape))
            var = np.maximum(var, 0.05 * np.median(var) + 1e-6)
            params.t[base + "running_mean"] = _round_half(mean)
            params.t[base + "running_var"] = _round_half(var)
        if node.op_type == "Conv" and node.input[1] != "model.23.dfl.conv.weight":
            _align_to_inputs(node, params, [e[node.input[0]] for e in envs], ALIGN_POWER)
        if node.op_type == "Conv" and node.name.startswith("/model.23/cv") and node.name.endswith("2/Conv"):
            w = params.t[node.input[1]]
            if "/cv3." in node.name:
                # Remove the feature-mean direction from the class weights: a trained classifier
                # responds to local evidence, not to the image's overall level, and its biases
                # then sit near -5 as in real YOLO heads.
                # Same for each calibration image's mean (the image-level shifts): otherwise a
                # whole image scores high or low at once.
                means = np.stack([e[node.input[0]][0].mean(axis=(1, 2)) for e in envs]).astype(np.float64)
                q, _ = np.linalg.qr(means.T)  # [C, images] orthonormal basis of the image means
                w2 = w.reshape(w.shape[0], -1).astype(np.float64)
                w2 = w2 - (w2 @ q) @ q.T
                w = params.t[node.input[1]] = w2.reshape(w.shape).astype(np.float32)
            # [channels, images, anchors of this level]
            head_pre[node.input[1][: -len(".weight")]] = np.stack(
                [ref_forward.conv2d(e[node.input[0]], w)[0].reshape(w.shape[0], -1) for e in envs],
                axis=1).astype(np.float64)
        for e in envs:
            ins = [(e[i] if i in e else params.t[i] if i in params.t else consts[i]) if i else None
                   for i in node.input]
            for name, val in zip(node.output, ref_forward.eval_node(node, ins)):
                e[name] = val
    _calibrate_box(params, head_pre, rng)
    _calibrate_cls(params, head_pre, rng)
    if KPT[0]:
        _calibrate_kpt(params, head_pre)
    if OBB:
        _calibrate_angle(params, head_pre)


ALIGN_POWER = float(os.environ.get("YOLORT_GEN_ALIGN", "0.1"))


def _align_to_inputs(node, params, xs, power):
    """Turn random weights into weights that respond to what their inputs actually carry:
    w <- w C^power, C the covariance of the input patches. Purely random filters cancel most
    of a correlated input and BN then amplifies the remainder, so a random net is chaotic:
    8-bit noise grows ~3 dB per layer. Trained filters are aligned with their data; so are these."""
    if power <= 0:
        return
    a = {at.name: onnx.helper.get_attribute_value(at) for at in node.attribute}
    wname = node.input[1]
    w = params.t[wname].astype(np.float64)
    co, cig, kh, kw = w.shape
    cols = np.concatenate([ref_forward.im2col(x, kh, kw, a["strides"], a["pads"]) for x in xs],
                          axis=1).astype(np.float64)
    cols -= cols.mean(axis=1, keepdims=True)
    group = a.get("group", 1)
    n = cols.shape[1]
    if group == 1:
        w2 = _blend(w.reshape(co, -1), cols, n, power).reshape(w.shape)
    else:  # depthwise: one kh*kw covariance per channel
        kk = kh * kw
        cc = cols.reshape(co, kk, n)
        wf = w.reshape(co, kk)
        wc = np.einsum("cn,ckn->ck", np.einsum("ck,ckn->cn", wf, cc), cc) / n
        mean_ev = np.maximum(np.einsum("ckn,ckn->c", cc, cc) / n / kk, 1e-12)
        w2 = ((1.0 - power) * wf + power * wc / mean_ev[:, None]).reshape(w.shape)
    # keep the He scale per output channel (the BN that follows normalises anyway)
    n0 = np.sqrt((w.reshape(co, -1) ** 2).sum(1))
    n2 = np.sqrt((w2.reshape(co, -1) ** 2).sum(1)) + 1e-12
    params.t[wname] = (w2 * (n0 / n2)[:, None, None, None]).astype(np.float32)


def _blend(w, cols, n, power):
    """w ((1 - power) I + power C / mean-eigenvalue), C = cols cols^T / n, computed as
    (w cols) cols^T so the cost is out*K*n, not K*K*n."""
    k = cols.shape[0]
    wc = (w @ cols) @ cols.T / n
    mean_ev = max(float(np.einsum("ij,ij->", cols, cols)) / n / k, 1e-12)
    return (1.0 - power) * w + power * wc / mean_ev


def _calibrate_box(params, head_pre, rng):
    """DFL bins: a broad prior peaked at 1.5-4.5 bins per side, plus input-dependent logits of
    std 2 (a trained head's box logits follow the image; a sharp prior would not)."""
    for lvl in range(len(STRIDES)):
        path = "model.23.cv2.%d.2" % lvl
        pre = head_pre[path].reshape(REG_MAX * 4, -1)
        mean, std = pre.mean(1), pre.std(1) + 1e-6
        k = 2.0 / std
        mu = rng.uniform(1.5, 4.5, 4)
        sd = rng.uniform(2.5, 3.5, 4)
        j = np.arange(REG_MAX)
        prior = np.concatenate([-0.5 * ((j - mu[s]) / sd[s]) ** 2 for s in range(4)])
        params.t[path + ".weight"] = (params.t[path + ".weight"] * k[:, None, None, None]).astype(np.float32)
        params.t[path + ".bias"] = _round_half(prior - mean * k)


def _calibrate_cls(params, head_pre, rng, target=0.005):
    """Class logits: per-class std ~1; one bias shift chosen so that in a typical (median)
    calibration image ~0.5% of anchors score above 0.25. Biases land near -12, like the
    log(5 / nc / (640 / stride) ** 2) prior Ultralytics trains from."""
    scaled, ks = [], {}
    offs = rng.normal(0, 0.3, NC)
    spread = np.exp(rng.normal(0, 0.15, NC))
    for lvl in range(len(STRIDES)):
        path = "model.23.cv3.%d.2" % lvl
        pre = head_pre[path]  # [NC, images, anchors]
        flat = pre.reshape(NC, -1)
        mean, std = flat.mean(1), flat.std(1) + 1e-6
        k = spread / std
        ks[path] = (k, mean)
        scaled.append((pre - mean[:, None, None]) * k[:, None, None] + offs[:, None, None])
    best = np.concatenate(scaled, 2).max(0)  # [images, anchors]
    # logit(0.25) = -ln 3; shift so that the top `target` fraction of anchors clears it
    shift = -math.log(3.0) - float(np.median(np.quantile(best, 1.0 - target, axis=1)))
    for path, (k, mean) in ks.items():
        params.t[path + ".weight"] = (params.t[path + ".weight"] * k[:, None, None, None]).astype(np.float32)
        params.t[path + ".bias"] = _round_half(offs + shift - mean * k)


def _calibrate_kpt(params, head_pre):
    """Keypoint logits like a trained pose head's: x, y offsets of std 0.6 around 0 (a keypoint
    within about a cell of its anchor, times 2), visibility logits of std 2 around +1."""
    for lvl in range(len(STRIDES)):
        path = "model.23.cv4.%d.2" % lvl
        pre = head_pre[path].reshape(KPT[0] * KPT[1], -1)
        mean, std = pre.mean(1), pre.std(1) + 1e-6
        want_std = np.array([2.0 if (c % KPT[1]) == 2 else 0.6 for c in range(pre.shape[0])])
        want_mean = np.array([1.0 if (c % KPT[1]) == 2 else 0.0 for c in range(pre.shape[0])])
        k = want_std / std
        params.t[path + ".weight"] = (params.t[path + ".weight"] * k[:, None, None, None]).astype(np.float32)
        params.t[path + ".bias"] = _round_half(want_mean - mean * k)


def _calibrate_angle(params, head_pre):
    """Angle logits of std 1.5 around 0: angles over most of [-pi/4, 3pi/4), as a trained OBB
    head gives for objects of every orientation."""
    for lvl in range(len(STRIDES)):
        path = "model.23.cv4.%d.2" % lvl
        pre = head_pre[path].reshape(1, -1)
        mean, std = pre.mean(1), pre.std(1) + 1e-6
        k = 1.5 / std
        params.t[path + ".weight"] = (params.t[path + ".weight"] * k[:, None, None, None]).astype(np.float32)
        params.t[path + ".bias"] = _round_half(-mean * k)


def to_model(b, params, scale, size, n_anchor, bn, seed, end2end=0):
    if bn:
        nodes = b.nodes
        tensors = {}
    else:
        nodes, tensors = _fold(b, params)
    used = []
    for n in nodes:
        for i in n.input:
            if i and i not in used and (i in params.t or i in b.consts or i in tensors):
                used.append(i)
    inits = []
    for name in used:
        arr = tensors.get(name)
        if arr is None:
            arr = b.consts[name] if name in b.consts else params.t[name]
        inits.append(numpy_helper.from_array(np.asarray(arr), name))
    graph = helper.make_graph(
        nodes, "main_graph",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3] + list(_hw(size)))],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT,
                                       [1, end2end, 6 + KPT[0] * KPT[1] + OBB + NM] if end2end else
                                       [1, 4 + NC + KPT[0] * KPT[1] + OBB + NM, n_anchor])] +
        ([helper.make_tensor_value_info("output1", TensorProto.FLOAT, [1, NM, _hw(size)[0] // 4, _hw(size)[1] // 4])]
         if NM else []),
        initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="yolort-gen-yolo11", producer_version="1")
    model.ir_version = 8
    meta = [
        ("yolort.synthetic", "1"),
        ("yolort.generator", "models/gen_yolo11.py seed=%d bn=%d" % (seed, int(bn))),
        ("description", "SYNTHETIC YOLO11%s (seeded random weights): real speed, meaningless detections"
         % scale),
        ("author", "yolort"),
        ("stride", "32"),
        ("task", "pose" if KPT[0] else "obb" if OBB else "segment" if NM else "detect"),
        ("batch", "1"),
        ("imgsz", "[%d, %d]" % _hw(size)),
        ("names", names_dict_string()),
        ("channels", "3"),
        ("end2end", "True" if end2end else "False"),
    ]
    if KPT[0]:
        meta.append(("kpt_shape", "[%d, %d]" % KPT))
    for k, v in meta:
        p = model.metadata_props.add()
        p.key, p.value = k, v
    model = onnx.shape_inference.infer_shapes(model)
    onnx.checker.check_model(model)
    return model


def _hw(size):
    return (size, size) if isinstance(size, int) else tuple(size)


def _fold(b, params):
    nodes, tensors, rename = [], {}, {}
    for node in b.nodes:
        node = _copy(node)
        for i, name in enumerate(node.input):
            if name in rename:
                node.input[i] = rename[name]
        if node.op_type == "BatchNormalization":
            conv = nodes[-1]
            assert conv.op_type == "Conv" and conv.output[0] == node.input[0], node.name
            wname = conv.input[1]
            base = node.input[1][: -len("weight")]
            g, be = params.t[base + "weight"], params.t[base + "bias"]
            m, v = params.t[base + "running_mean"], params.t[base + "running_var"]
            s = g.astype(np.float64) / np.sqrt(v.astype(np.float64) + BN_EPS)
            tensors[wname] = (params.t[wname].astype(np.float64) * s[:, None, None, None]).astype(np.float32)
            bname = wname[: -len("weight")] + "bias"
            tensors[bname] = (be - m * s).astype(np.float32)
            conv.input.append(bname)
            rename[node.output[0]] = conv.output[0]
            continue
        nodes.append(node)
    return nodes, tensors


def _copy(node):
    n = onnx.NodeProto()
    n.CopyFrom(node)
    return n


def main(argv):
    ap = argparse.ArgumentParser(description="Generate a synthetic YOLO11 ONNX model (seeded weights).")
    ap.add_argument("--scale", choices=sorted(SCALES), default="n")
    ap.add_argument("--size", default="640",
                    help="input size N or HxW, multiples of 32 (320, 640, 480x864)")
    ap.add_argument("--nc", type=int, default=80, help="number of classes (names class0.. unless 80)")
    ap.add_argument("--head", choices=("slice", "split"), default="slice",
                    help="Detect head export style: slice (Ultralytics 8.4, opset 13) or split (8.3)")
    ap.add_argument("--end2end", type=int, default=0, metavar="K",
                    help="end-to-end (NMS-free) head: output0 [1, K, 6] from Ultralytics' TopK "
                         "postprocess after the decode (YOLOv10 / YOLO26 style); with --task pose "
                         "[1, K, 6 + K D] (xyxy boxes, then the keypoints), obb [1, K, 7] (xywh, "
                         "score, class, angle); 0: none (default)")
    ap.add_argument("--task", choices=("detect", "pose", "obb", "segment"), default="detect",
                    help="pose: Ultralytics Pose head (cv4 keypoint branch, keypoints decoded in the "
                         "graph, output0 [1, 4 + nc + K D, N], metadata kpt_shape); obb: Ultralytics "
                         "OBB head (cv4 angle branch, dist2rbox, output0 [1, 4 + nc + 1, N]: cx, cy, w, h, "
                         "classes, angle in radians; DOTA names when --nc 15); segment: Ultralytics "
                         "Segment head (cv4 32 mask coefficients after the scores, Proto with a "
                         "ConvTranspose upsample: output1 [1, 32, H/4, W/4])")
    ap.add_argument("--obb-angle", choices=("sigmoid", "raw"), default="sigmoid",
                    help="obb: the angle (sigmoid(v) - 0.25) pi (Ultralytics OBB, default) or v itself "
                         "(YOLO26's OBB26 head)")
    ap.add_argument("--kpt-shape", default="17,3", help="pose: keypoints K and values D (2 or 3)")
    ap.add_argument("--kpt-bad", action="store_true",
                    help="pose, hostile: keypoint grid offset -0.4 instead of -0.5 (a look-alike decode)")
    ap.add_argument("--seed", type=int, default=1)
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--bn", dest="bn", action="store_true", default=True,
                   help="explicit BatchNormalization nodes after convs (default)")
    g.add_argument("--no-bn", dest="bn", action="store_false", help="BN folded into Conv, as exported")
    ap.add_argument("--out", required=True)
    ap.add_argument("--also-no-bn", metavar="PATH",
                    help="also write the BN-folded variant here (one calibration for both)")
    ap.add_argument("--check", action="store_true",
                    help="run the written model in numpy and print activation/score statistics")
    args = ap.parse_args(argv)
    try:
        hw = tuple(int(v) for v in args.size.lower().split("x"))
        hw = hw * 2 if len(hw) == 1 else hw
    except ValueError:
        hw = ()
    if len(hw) != 2 or any(v % 32 or v < 64 for v in hw):
        ap.error("--size must be N or HxW, multiples of 32, at least 64")
    size = hw[0] if hw[0] == hw[1] else hw
    global NC, KPT, KPT_BAD, OBB, OBB_RAW, XYXY, NM
    NC = args.nc
    if args.task == "pose":
        try:
            KPT = tuple(int(v) for v in args.kpt_shape.split(","))
        except ValueError:
            KPT = ()
        if len(KPT) != 2 or KPT[0] < 1 or KPT[1] not in (2, 3):
            ap.error("--kpt-shape must be K,D with K >= 1 and D 2 or 3")
        KPT_BAD = args.kpt_bad
        XYXY = args.end2end > 0
    if args.task == "obb":
        OBB = True
        OBB_RAW = args.obb_angle == "raw"
    if args.task == "segment":
        NM = 32
        XYXY = args.end2end > 0  # Segment.postprocess after an end2end decode: corners
    if NC < 1:
        ap.error("--nc must be at least 1")
    params = Params(args.seed)
    calibrate(params, args.scale, args.seed)
    b, n_anchor = build(params, args.scale, size, args.head)
    if args.end2end < 0 or args.end2end > n_anchor:
        ap.error("--end2end K must be 0..%d (the anchor count)" % n_anchor)
    if args.end2end:
        # OBB.postprocess gathers its one angle row with the bare index (ne = 1), the keypoints
        # with the index tiled
        add_end2end(b, n_anchor, args.end2end, KPT[0] * KPT[1] + OBB + NM, tile_extra=not OBB)
    outputs = [(args.out, args.bn)] + ([(args.also_no_bn, False)] if args.also_no_bn else [])
    for path, bn in outputs:
        model = to_model(b, params, args.scale, size, n_anchor, bn, args.seed, args.end2end)
        tmp = path + ".tmp"
        with open(tmp, "wb") as f:
            f.write(model.SerializeToString())
        os.replace(tmp, path)
        n_par = sum(int(np.prod(i.dims)) for i in model.graph.initializer)
        print("wrote %s: YOLO11%s %dx%d, %d nodes, %.2fM parameters, %s, seed %d (synthetic weights)"
              % (path, args.scale, hw[0], hw[1], len(model.graph.node), n_par / 1e6,
                 "explicit BN" if bn else "BN folded", args.seed))
    if args.check:
        return ref_forward.main([args.out])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
