#!/usr/bin/python3
"""make_tiny.py: a tiny QDQ int8 conv net (a few KB) for the .yrt compatibility fixtures: stem conv,
SiLU, two branches concatenated, maxpool, nearest resize, a float tail. Seeded; the weights
carry no meaning."""
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(7)
nodes, inits = [], []

def const(name, arr):
    inits.append(numpy_helper.from_array(np.asarray(arr), name))
    return name

def qdq(x, scale, zp=0):
    s = const(x + "_s", np.float32(scale)); z = const(x + "_z", np.int8(zp))
    nodes.append(helper.make_node("QuantizeLinear", [x, s, z], [x + "_q"]))
    nodes.append(helper.make_node("DequantizeLinear", [x + "_q", s, z], [x + "_dq"]))
    return x + "_dq"

def conv(x, cin, cout, k, stride, name):
    w = rng.standard_normal((cout, cin, k, k)).astype(np.float32) * (1.0 / np.sqrt(cin * k * k))
    ws = np.abs(w).reshape(cout, -1).max(1) / 127.0
    wq = np.clip(np.round(w / ws[:, None, None, None]), -127, 127).astype(np.int8)
    wn = const(name + "_wq", wq); wsn = const(name + "_ws", ws.astype(np.float32))
    wz = const(name + "_wz", np.zeros(cout, np.int8))
    nodes.append(helper.make_node("DequantizeLinear", [wn, wsn, wz], [name + "_w"], axis=0))
    b = const(name + "_b", (rng.standard_normal(cout) * 0.1).astype(np.float32))
    nodes.append(helper.make_node("Conv", [x, name + "_w", b], [name + "_y"], kernel_shape=[k, k],
                                  strides=[stride, stride], pads=[k // 2] * 4))
    y = qdq(name + "_y", 0.05)
    nodes.append(helper.make_node("Sigmoid", [y], [name + "_sig"]))
    sg = qdq(name + "_sig", 1.0 / 255, -128)
    nodes.append(helper.make_node("Mul", [y, sg], [name + "_silu"]))
    return qdq(name + "_silu", 0.04)

x = qdq("images", 1.0 / 255, -128)
a = conv(x, 3, 8, 3, 2, "stem")
b1 = conv(a, 8, 8, 1, 1, "b1")
b2 = conv(a, 8, 8, 3, 1, "b2")
nodes.append(helper.make_node("Concat", [b1, b2], ["cat"], axis=1))
c = qdq("cat", 0.04)
nodes.append(helper.make_node("MaxPool", [c], ["pool"], kernel_shape=[2, 2], strides=[2, 2]))
p = qdq("pool", 0.04)
d = conv(p, 16, 8, 3, 1, "c2")
sc = const("up_scales", np.array([1, 1, 2, 2], np.float32))
nodes.append(helper.make_node("Resize", [d, "", sc], ["up"], mode="nearest", coordinate_transformation_mode="asymmetric", nearest_mode="floor"))
u = qdq("up", 0.04)
nodes.append(helper.make_node("Concat", [u, b1], ["output0"], axis=1))
g = helper.make_graph(nodes, "tiny", [helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, 32, 32])],
                      [helper.make_tensor_value_info("output0", TensorProto.FLOAT, [1, 16, 16, 16])], inits)
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="yolort-tests")
m.ir_version = 7
onnx.checker.check_model(m)
onnx.save(m, sys.argv[1])
