// ort_wild.js ORT_DIR MODEL.onnx DIR N H W — onnxruntime (onnxruntime-node) runs MODEL on the
// letterboxed inputs DIR/in_K.f32 (NCHW [1,3,H,W], written by wild_accept prep) and writes its
// output0 to DIR/ort_K.f32 with the dims in DIR/ort_K.dims (outputs 1.. to DIR/ort_K.J.f32). Exit 1
// on any error.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require(path.resolve(process.argv[2], 'node_modules', 'onnxruntime-node'));
(async () => {
  const [model, dir] = [process.argv[3], process.argv[4]];
  const [n, h, w] = process.argv.slice(5, 8).map(Number);
  // ORT_WILD_NO_OPT=1: the graph as written (DQ -> float op -> Q), without onnxruntime's fusion
  // into its own int8 kernels (whose u8s8 AVX2 path saturates int16 pair sums)
  // session.x64quantprecision=1: onnxruntime's exact u8s8 kernels. Its default on x86 AVX2
  // without VNNI adds pairs of u8*s8 products in saturating int16 (vpmaddubsw), which computes
  // something else than the graph: on yolov8n-640.qdq-conv-only (16 val images) that default
  // recalls 0.86 of the same onnxruntime without optimisations, the exact kernels 0.98. No
  // effect on VNNI CPUs or ARM.
  const opts = { intraOpNumThreads: 1, extra: { session: { x64quantprecision: '1' } } };
  if (process.env.ORT_WILD_NO_OPT === '1') opts.graphOptimizationLevel = 'disabled';
  const s = await ort.InferenceSession.create(model, opts);
  for (let k = 0; k < n; k++) {
    const buf = fs.readFileSync(path.join(dir, `in_${k}.f32`));
    const x = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
    const out = await s.run({ [s.inputNames[0]]: new ort.Tensor('float32', x, [1, 3, h, w]) });
    const y = out[s.outputNames[0]];
    fs.writeFileSync(path.join(dir, `ort_${k}.f32`), Buffer.from(new Float32Array(y.data).buffer));
    fs.writeFileSync(path.join(dir, `ort_${k}.dims`), y.dims.join(' ') + '\n');
    // outputs after the first (a segment model's prototypes): ort_K.J.f32, logical order
    for (let j = 1; j < s.outputNames.length; j++)
      fs.writeFileSync(path.join(dir, `ort_${k}.${j}.f32`), Buffer.from(new Float32Array(out[s.outputNames[j]].data).buffer));
  }
})().catch((e) => { console.error(`onnxruntime failed: ${e.message}`); process.exit(1); });
