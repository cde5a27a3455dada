// ort_run.js ORT_DIR MODEL.onnx [SIZE] — onnxruntime (onnxruntime-node) loads and runs a QDQ model
// written by yolort-quantize; output0 must be [1, 84, N] and finite. Exit 1 otherwise.
'use strict';
const path = require('path');
const ort = require(path.join(process.argv[2], 'node_modules', 'onnxruntime-node'));
(async () => {
  const s = await ort.InferenceSession.create(process.argv[3], { intraOpNumThreads: 1 });
  const size = Number(process.argv[4] || 320);
  const dims = [1, 3, size, size];
  const x = new Float32Array(dims.reduce((a, b) => a * b, 1));
  for (let i = 0; i < x.length; i++) x[i] = ((i * 2654435761) % 255) / 255;
  const out = await s.run({ [s.inputNames[0]]: new ort.Tensor('float32', x, dims) });
  const y = out[s.outputNames[0]];
  let finite = true;
  for (const v of y.data) if (!Number.isFinite(v)) { finite = false; break; }
  console.log(`onnxruntime ${ort.env.versions ? ort.env.versions.common : ''} ran ${path.basename(process.argv[3])}: output0 [${y.dims}] finite=${finite}`);
  if (y.dims.length !== 3 || y.dims[1] !== 84 || !finite) process.exit(1);
})().catch((e) => { console.error(`onnxruntime failed: ${e.message}`); process.exit(1); });
