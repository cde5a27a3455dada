// ort_outputs.js ORT_DIR MODEL.onnx DIR N H W [all] — onnxruntime (onnxruntime-node, 2 threads) runs
// DIR/<i>.in.f32 (NCHW [1,3,H,W], written by ort_vs_yolort dump) and writes output0 to
// DIR/<i>.ort.f32 for ort_vs_yolort score; with `all`, every output k to DIR/<i>.ort<k>.f32 too
// (raw per-grid head maps, decoded by the caller).
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require(path.resolve(process.argv[2], 'node_modules', 'onnxruntime-node'));
(async () => {
  const [model, dir, n, h, w] = [process.argv[3], process.argv[4], Number(process.argv[5]), Number(process.argv[6]), Number(process.argv[7])];
  const s = await ort.InferenceSession.create(model, { intraOpNumThreads: 2 });
  for (let i = 0; i < n; i++) {
    const f = path.join(dir, `${i}.in.f32`);
    if (!fs.existsSync(f)) break;
    const b = fs.readFileSync(f);
    const x = new Float32Array(b.buffer, b.byteOffset, b.length / 4);
    const out = await s.run({ [s.inputNames[0]]: new ort.Tensor('float32', x, [1, 3, h, w]) });
    const y = out[s.outputNames[0]].data;
    fs.writeFileSync(path.join(dir, `${i}.ort.f32`), Buffer.from(y.buffer, y.byteOffset, y.length * 4));
    if (process.argv[8] === 'all')
      s.outputNames.forEach((name, k) => {
        const v = out[name].data;
        fs.writeFileSync(path.join(dir, `${i}.ort${k}.f32`), Buffer.from(v.buffer, v.byteOffset, v.length * 4));
      });
  }
})().catch((e) => { console.error(`onnxruntime failed: ${e.message}`); process.exit(1); });
