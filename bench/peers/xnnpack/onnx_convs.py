#!/usr/bin/python3
"""onnx_convs.py MODEL.onnx > convs.txt

The conv layers of an ONNX model in the text form of `yolort-bench --dump-convs`, for running
xnn_layers before a .yrt of the model exists. Needs /usr/bin/python3 with onnx.
"""
import sys

import onnx
from onnx import shape_inference


def dims(vi):
    return [d.dim_value for d in vi.type.tensor_type.shape.dim]


def main(path):
    m = shape_inference.infer_shapes(onnx.load(path))
    g = m.graph
    shapes = {vi.name: dims(vi) for vi in list(g.value_info) + list(g.input) + list(g.output)}
    inits = {i.name: list(i.dims) for i in g.initializer}
    # QDQ: the weight reaches Conv through DequantizeLinear
    dq = {n.output[0]: n.input[0] for n in g.node if n.op_type == "DequantizeLinear"}
    print("# name node int8 n h w cin ho wo cout kh kw sh sw pt pl pb pr dh dw groups")
    for idx, n in enumerate(g.node):
        if n.op_type != "Conv":
            continue
        a = {x.name: onnx.helper.get_attribute_value(x) for x in n.attribute}
        w = inits.get(n.input[1]) or inits.get(dq.get(n.input[1], ""))
        x, y = shapes.get(n.input[0]), shapes.get(n.output[0])
        if not w or not x or not y:
            print(f"# {n.name}: shape unknown, skipped")
            continue
        kh, kw = w[2], w[3]
        s = a.get("strides", [1, 1])
        p = a.get("pads", [0, 0, 0, 0])  # t, l, b, r
        d = a.get("dilations", [1, 1])
        grp = a.get("group", 1)
        int8 = 1 if n.input[1] in dq else 0
        name = (n.name or f"conv{idx}").replace(" ", "_")
        print(name, idx, int8, x[0], x[2], x[3], x[1], y[2], y[3], y[1], kh, kw, s[0], s[1],
              p[0], p[1], p[2], p[3], d[0], d[1], grp)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
