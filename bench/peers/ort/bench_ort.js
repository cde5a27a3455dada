#!/usr/bin/env node
// bench_ort.js — the onnxruntime peer of yolort-bench: same statistics, same model input shape.
//
//   node bench_ort.js MODEL.onnx [--threads 2] [--warmup 10] [--runs 50] [--fill grey|zero|random]
//                     [--config KEY=VALUE]... [--json]
//
// --config: a session config entry, e.g. session.x64quantprecision=1 (onnxruntime's exact u8s8
// kernels on x86 without VNNI, instead of its default saturating vpmaddubsw pair sums).
//
// Session: CPU EP, intra-op threads = --threads, inter-op 1, sequential, graph optimisation "all".
// Input: the model's input shape (dynamic dims -> 1 / 640), filled like yolort-bench without --image:
// a flat grey frame 114/255 (the letterbox pad) by default; --fill zero|random for comparison.
// Peak RSS: process.resourceUsage().maxRSS of this node process (kB), plus the RSS measured
// just before the session was created, so the cost of node + the ORT library alone is visible.
'use strict';

const fs = require('fs');
const path = require('path');

function usage(msg) {
  if (msg) process.stderr.write(`bench_ort: ${msg}\n`);
  process.stderr.write('usage: node bench_ort.js MODEL.onnx [--threads N] [--warmup N] [--runs N] [--config KEY=VALUE]... [--json]\n');
  process.exit(2);
}

function parseArgs(argv) {
  const o = { model: null, threads: 2, warmup: 10, runs: 50, json: false, fill: 'grey', config: {} };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const num = () => {
      const v = Number(argv[++i]);
      if (!Number.isInteger(v) || v < 0) usage(`${a} needs a non-negative integer`);
      return v;
    };
    if (a === '--threads') o.threads = num();
    else if (a === '--warmup') o.warmup = num();
    else if (a === '--runs') o.runs = num();
    else if (a === '--json') o.json = true;
    else if (a === '--config') {
      const kv = argv[++i] || '';
      const eq = kv.indexOf('=');
      if (eq <= 0) usage('--config takes KEY=VALUE');
      o.config[kv.slice(0, eq)] = kv.slice(eq + 1);
    }
    else if (a === '--fill') {
      o.fill = argv[++i];
      if (!['grey', 'zero', 'random'].includes(o.fill)) usage('--fill takes grey, zero or random');
    }
    else if (a === '-h' || a === '--help') usage();
    else if (a.startsWith('-')) usage(`unknown option ${a}`);
    else if (o.model === null) o.model = a;
    else usage(`unexpected argument ${a}`);
  }
  if (!o.model) usage('no model given');
  if (o.runs < 1) usage('--runs must be >= 1');
  if (o.threads < 1) o.threads = 1;
  return o;
}

// Nearest-rank percentile on a sorted array, same rule as yolort-bench (bench_stats.c).
function pct(sorted, p) {
  if (sorted.length === 0) return 0;
  let k = Math.ceil((p / 100) * sorted.length) - 1;
  if (k < 0) k = 0;
  if (k >= sorted.length) k = sorted.length - 1;
  return sorted[k];
}

function median(sorted) {
  const n = sorted.length;
  return n % 2 ? sorted[(n - 1) / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

function makeInput(ort, meta, fill) {
  const shape = (meta.shape || []).map((d, i) => (typeof d === 'number' && d > 0 ? d : i === 0 ? 1 : 640));
  const count = shape.reduce((a, b) => a * b, 1);
  switch (meta.type) {
    case 'float32': {
      const x = new Float32Array(count);
      if (fill === 'grey') x.fill(114 / 255);
      // fixed LCG so runs are repeatable
      if (fill === 'random') for (let i = 0, s = 12345; i < count; i++) x[i] = (s = (s * 1103515245 + 12345) >>> 0) / 4294967296;
      return new ort.Tensor('float32', x, shape);
    }
    case 'uint8': return new ort.Tensor('uint8', new Uint8Array(count), shape);
    case 'int8': return new ort.Tensor('int8', new Int8Array(count), shape);
    default: throw new Error(`input ${meta.name}: unsupported type ${meta.type}`);
  }
}

// {'session.a': '1'} -> {session: {a: '1'}}: onnxruntime-node's `extra` takes the config keys as
// a tree and flattens it back with dots.
function configTree(flat) {
  const tree = {};
  for (const [k, v] of Object.entries(flat)) {
    const parts = k.split('.');
    let t = tree;
    for (const p of parts.slice(0, -1)) t = t[p] = t[p] || {};
    t[parts[parts.length - 1]] = v;
  }
  return tree;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  let ort;
  try {
    ort = require('onnxruntime-node');
  } catch (e) {
    process.stderr.write(`bench_ort: cannot load onnxruntime-node (run "npm install --ignore-scripts" in ${__dirname}): ${e.message}\n`);
    process.exit(1);
  }
  if (!fs.existsSync(o.model)) usage(`${o.model}: no such file`);
  const rssBeforeKb = process.resourceUsage().maxRSS;

  const tLoad = process.hrtime.bigint();
  const sess = await ort.InferenceSession.create(o.model, {
    executionProviders: ['cpu'],
    intraOpNumThreads: o.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    extra: configTree(o.config),
  });
  const loadMs = Number(process.hrtime.bigint() - tLoad) / 1e6;

  const feeds = {};
  const inShapes = {};
  for (const m of sess.inputMetadata) {
    feeds[m.name] = makeInput(ort, m, o.fill);
    inShapes[m.name] = feeds[m.name].dims;
  }

  for (let i = 0; i < o.warmup; i++) await sess.run(feeds);
  const ms = [];
  for (let i = 0; i < o.runs; i++) {
    const t0 = process.hrtime.bigint();
    await sess.run(feeds);
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  ms.sort((a, b) => a - b);
  const peakKb = process.resourceUsage().maxRSS;
  const r = {
    runtime: 'onnxruntime',
    version: ort.env.versions ? ort.env.versions.node || ort.env.versions.common : 'unknown',
    model: o.model,
    model_file_bytes: fs.statSync(o.model).size,
    input_shapes: inShapes,
    threads: o.threads,
    fill: o.fill,
    config: o.config,
    warmup: o.warmup,
    runs: o.runs,
    load_ms: loadMs,
    min_ms: ms[0],
    median_ms: median(ms),
    p90_ms: pct(ms, 90),
    mean_ms: ms.reduce((a, b) => a + b, 0) / ms.length,
    peak_rss_kb: peakKb,
    rss_before_session_kb: rssBeforeKb,
  };
  await sess.release();
  if (o.json) {
    process.stdout.write(JSON.stringify(r) + '\n');
  } else {
    const shape = Object.values(inShapes).map((d) => d.join('x')).join(', ');
    process.stdout.write(
      `onnxruntime ${r.version}  ${path.basename(o.model)}  input ${shape}  threads ${o.threads}\n` +
        `  load ${loadMs.toFixed(1)} ms; ${o.warmup} warm-up + ${o.runs} runs\n` +
        `  latency ms: min ${r.min_ms.toFixed(2)}  median ${r.median_ms.toFixed(2)}  p90 ${r.p90_ms.toFixed(2)}\n` +
        `  peak RSS ${(peakKb / 1024).toFixed(1)} MiB (node + ORT before session: ${(rssBeforeKb / 1024).toFixed(1)} MiB)\n`,
    );
  }
}

main().catch((e) => {
  process.stderr.write(`bench_ort: ${e && e.message ? e.message : e}\n`);
  process.exit(1);
});
