#!/usr/bin/python3
"""make_qdq_u8.py IN.qdq.onnx OUT.qdq-u8.onnx

Rewrites an int8-activation QDQ model (onnxruntime quantize_static S8S8 layout) into the
uint8-activation form (U8S8) that onnxruntime prefers on x86: every activation Q/DQ zero
point z (int8) becomes z + 128 (uint8). q_u8 = q_s8 + 128 exactly, so the two models compute
the same numbers; weights (DQ of an initializer) stay int8. Used by bench/run_peers.sh for
sizes where ../shared has no qdq-u8 file (320). Needs /usr/bin/python3 with onnx + numpy.
"""
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def main(src, dst):
    m = onnx.load(src)
    g = m.graph
    inits = {i.name: i for i in g.initializer}
    made = {}
    changed = 0
    for n in g.node:
        if n.op_type not in ("QuantizeLinear", "DequantizeLinear") or len(n.input) < 3:
            continue
        if n.op_type == "DequantizeLinear" and n.input[0] in inits:
            continue  # a weight or bias: keep int8 / int32
        zp = inits.get(n.input[2])
        if zp is None or zp.data_type != onnx.TensorProto.INT8:
            continue
        if zp.name not in made:
            a = numpy_helper.to_array(zp).astype(np.int16) + 128
            t = numpy_helper.from_array(a.astype(np.uint8), zp.name + "_u8")
            g.initializer.append(t)
            made[zp.name] = t.name
        n.input[2] = made[zp.name]
        changed += 1
    used = {i for n in g.node for i in n.input}
    dead = [t for t in g.initializer if t.name in made and t.name not in used]
    for t in dead:
        g.initializer.remove(t)
    onnx.checker.check_model(m)
    onnx.save(m, dst)
    print(f"{dst}: {changed} activation Q/DQ nodes moved to uint8")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
