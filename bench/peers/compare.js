#!/usr/bin/env node
// compare.js — the ratio table of bench/run_peers.sh: yolort against each peer, from their JSON.
//
//   node compare.js --yolort Y.json [--peer LABEL=ORT.json]... [--xnn XNN.json] [--json]
//
// Y.json is `yolort-bench --json` (first model, first result), ORT.json is `bench_ort.js --json`,
// XNN.json is `xnn_layers --json`. Ratio = yolort / peer (below 1: yolort is faster / smaller).
'use strict';
const fs = require('fs');

function load(p) {
  try {
    return JSON.parse(fs.readFileSync(p, 'utf8'));
  } catch (e) {
    process.stderr.write(`compare: ${p}: ${e.message}\n`);
    return null;
  }
}

const args = process.argv.slice(2);
let y = null;
let xnn = null;
let asJson = false;
const peers = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--yolort') y = load(args[++i]);
  else if (args[i] === '--xnn') xnn = load(args[++i]);
  else if (args[i] === '--json') asJson = true;
  else if (args[i] === '--peer') {
    const [label, file] = args[++i].split('=');
    const d = load(file);
    if (d) peers.push({ label, ...d });
  } else {
    process.stderr.write(`compare: unknown argument ${args[i]}\n`);
    process.exit(2);
  }
}

const rows = [];
let yr = null;
if (y && y.models && y.models[0] && y.models[0].results[0]) {
  const m = y.models[0];
  yr = m.results[0];
  rows.push({
    runtime: 'yolort', model: m.model, median_ms: yr.inference.median_ms, min_ms: yr.inference.min_ms,
    p90_ms: yr.inference.p90_ms, peak_rss_kb: yr.peak_rss_kb, file_bytes: m.model_file_bytes,
  });
}
for (const p of peers) {
  rows.push({
    runtime: `ort ${p.label}`, model: p.model, median_ms: p.median_ms, min_ms: p.min_ms, p90_ms: p.p90_ms,
    peak_rss_kb: p.peak_rss_kb, file_bytes: p.model_file_bytes,
  });
}
if (xnn && xnn.columns) {
  for (const c of xnn.columns) {
    rows.push({
      runtime: `xnnpack layers ${c.dtype} ${c.threads}t`, model: xnn.source, median_ms: c.sum_ms, min_ms: null,
      p90_ms: null, peak_rss_kb: null, file_bytes: null,
    });
  }
}
for (const r of rows) {
  if (yr && r.runtime !== 'yolort') {
    r.latency_ratio = yr.inference.median_ms / r.median_ms;
    r.min_ratio = r.min_ms ? yr.inference.min_ms / r.min_ms : null;
    r.rss_ratio = r.peak_rss_kb ? yr.peak_rss_kb / r.peak_rss_kb : null;
  }
}
if (asJson) {
  process.stdout.write(JSON.stringify({ tool: 'run_peers', rows }) + '\n');
  process.exit(0);
}
const f = (v, d = 2) => (v === null || v === undefined || Number.isNaN(v) ? '-' : v.toFixed(d));
const pad = (s, n) => String(s).padEnd(n);
const lpad = (s, n) => String(s).padStart(n);
process.stdout.write(
  `${pad('runtime', 28)}${lpad('min ms', 9)}${lpad('median', 9)}${lpad('p90', 9)}${lpad('RSS MiB', 9)}` +
    `${lpad('y/peer med', 11)}${lpad('y/peer min', 11)}${lpad('y/peer RSS', 11)}\n`,
);
for (const r of rows) {
  process.stdout.write(
    `${pad(r.runtime, 28)}${lpad(f(r.min_ms), 9)}${lpad(f(r.median_ms), 9)}${lpad(f(r.p90_ms), 9)}` +
      `${lpad(r.peak_rss_kb ? f(r.peak_rss_kb / 1024, 1) : '-', 9)}${lpad(f(r.latency_ratio, 3), 11)}` +
      `${lpad(f(r.min_ratio, 3), 11)}${lpad(f(r.rss_ratio, 3), 11)}\n`,
  );
}
if (!yr) process.stdout.write('(no yolort result: ratios not computed)\n');
else process.stdout.write('targets: latency ratio <= 0.333 against ort fp32 and ort qdq-u8; RSS ratio <= 0.25\n');
