#!/usr/bin/python3
"""check_auto_mixed.py BUILD_DIR MODELS_SRC_DIR WORK_DIR — yolort-quantize --auto-mixed (issue 17
item 3) on generated models (models/gen_yolo11.py, no data needed).

1. Bad budgets are refused with a message and exit 2 (negative, not a number, nan, both budgets,
   a budget without --auto-mixed, --auto-mixed with --method all).
2. A run at the default budget (15% of the all-int8 time), on a model with an end-to-end head,
   prints the report (chosen layers with error gained and cost, the all-int8 / budget / mixed
   totals, output SQNR of both); the chosen set's measured cost is within the budget, the error
   did not grow, and the written QDQ keeps the chosen convs in float (float weights; others int8).
   On an end-to-end head the error is measured on the head's input (the decode output before the
   top-k), not on the top-k rows.
3. --range-search (issue 17 item 2, range_search.h) on the same model: bad arguments refused (exit
   2); a run prints how many ranges it scaled and the output error before and after, which does
   not grow (a factor is kept only when it lowers it), 2-3 models per tensor tried; the same run
   twice writes the same QDQ bytes.
The choice itself (budget respected, ranking, determinism) is tests/quant/test_mixed_select.c's.
"""
import os
import re
import subprocess
import sys

import onnx

BUILD, SRC, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
PY = sys.executable
GEN = os.path.join(SRC, "gen_yolo11.py")
QUANT = os.path.join(BUILD, "tools", "yolort-quantize")
IMAGES = os.path.join(BUILD, "tools", "yolort-gen-images")
failures = []


def check(cond, msg):
    print(("ok   " if cond else "FAIL ") + msg)
    if not cond:
        failures.append(msg)


os.makedirs(WORK, exist_ok=True)
img = os.path.join(WORK, "images")
subprocess.run([IMAGES, img, "-n", "2", "--seed", "3"], check=True, capture_output=True)
model = os.path.join(WORK, "e2e.onnx")
subprocess.run([PY, GEN, "--scale", "n", "--size", "160", "--nc", "3", "--end2end", "50", "--no-bn", "--seed", "5",
                "--out", model], check=True, capture_output=True)
out = os.path.join(WORK, "q.qdq.onnx")
# the backbone's int8 convs only (28 candidates): each candidate costs a conversion, keep CI fast
scope = ["--exclude", "/model.1*", "--exclude", "/model.2*"]
base = [QUANT, model, img, "-o", out, "-q", "--threads", "1"] + scope
fast = ["--auto-mixed-images", "1", "--auto-mixed-runs", "3", "--auto-mixed-timed", "8"]

# 1. bad budgets
for args, what in [(["--auto-mixed", "--budget-pct", "-1"], "--budget-pct"),
                   (["--auto-mixed", "--budget-pct", "abc"], "--budget-pct"),
                   (["--auto-mixed", "--budget-ms", "nan"], "--budget-ms"),
                   (["--auto-mixed", "--budget-ms", "-0.5"], "--budget-ms"),
                   (["--auto-mixed", "--budget-pct", "5000"], "--budget-pct"),
                   (["--auto-mixed", "--budget-ms", "1", "--budget-pct", "10"], "not both"),
                   (["--budget-pct", "10"], "need --auto-mixed"),
                   (["--auto-mixed", "--method", "all"], "not with --method all"),
                   (["--auto-mixed", "--auto-mixed-runs", "0"], "--auto-mixed-runs")]:
    r = subprocess.run(base + args, capture_output=True, text=True, timeout=60)
    check(r.returncode == 2 and what in r.stderr, f"{' '.join(args)}: exit 2 naming '{what}' (got {r.returncode}: "
          f"{r.stderr.strip().splitlines()[0] if r.stderr.strip() else ''})")

# 2. a run at the default budget
r = subprocess.run(base + ["--auto-mixed"] + fast, capture_output=True, text=True, timeout=300)
check(r.returncode == 0, f"--auto-mixed runs (exit {r.returncode}: {r.stderr.strip()[-300:]})")
rep = r.stdout
print(rep)
tot = re.search(r"all-int8 ([\d.]+) ms; budget ([\d.]+) ms \(([\d.]+)%\); chosen ([\d.]+) ms predicted .*?, "
                r"(-?[\d.]+) ms measured together; mixed ([\d.]+) ms", rep)
check(tot is not None, "report: all-int8 time, budget, predicted and measured cost, mixed time")
kept = re.search(r"kept in float \((\d+)\)", rep)
check(kept is not None, "report: how many layers are kept in float")
db = re.search(r"output error .*: all-int8 (-?[\d.]+) dB, mixed (-?[\d.]+) dB", rep)
check(db is not None, "report: output SQNR of the all-int8 and the mixed model")
# an end-to-end head: output0 holds the top-k rows (their order changes with any noise); the
# error is measured on the head's input, the decoded boxes and scores of every anchor
m = re.search(r"error on (\S+) over 1 image\(s\)", rep)
check(m is not None and m.group(1) != "output0", f"report: the error is measured before the top-k, on 1 image "
      f"({m.group(1) if m else None})")
rows = re.findall(r"^  (\d+) +(\S+) +(-?[\d.]+) +(-?[\d.]+) +(-?[\d.]+)$", rep, re.M)
chosen = [row[1] for row in rows]
if tot and kept and db:
    int8, budget, pct, pred, meas = (float(tot.group(i)) for i in range(1, 6))
    check(int8 > 0 and abs(pct - 15.0) < 0.05 and abs(budget - 0.15 * int8) < 0.002,
          f"default budget 15% of the all-int8 time ({budget} of {int8} ms)")
    check(meas <= budget + 1e-3, f"the chosen set's measured cost {meas} ms is within the budget {budget} ms")
    check(pred <= budget + 1e-3, f"the predicted cost {pred} ms is within the budget")
    check(len(chosen) == int(kept.group(1)), f"one row per chosen layer ({len(chosen)})")
    check(all(float(row[2]) > 0 for row in rows),
          "every chosen layer removes some error")
    if chosen:
        check(float(db.group(2)) >= float(db.group(1)), f"the mixed model is as close to float or closer ({db.group(1)} -> "
              f"{db.group(2)} dB)")
    m = onnx.load(out)
    prod = {o: n for n in m.graph.node for o in n.output}
    inits = {i.name for i in m.graph.initializer}
    float_convs = {n.name for n in m.graph.node if n.op_type == "Conv" and n.input[1] in inits}
    dq_convs = {n.name for n in m.graph.node if n.op_type == "Conv" and n.input[1] in prod
                and prod[n.input[1]].op_type == "DequantizeLinear"}
    check(set(chosen) <= float_convs, f"the chosen convs keep float weights in the QDQ ({len(chosen)})")
    check(len(dq_convs) >= 28 - len(chosen), f"the others stay int8 ({len(dq_convs)} int8 convs)")

# 3. --range-search
rs_base = [QUANT, model, img, "-q", "--threads", "1"] + scope
for args, what in [(["--range-search", "--method", "all"], "not with --method all"),
                   (["--range-search", "--range-search-passes", "0"], "--range-search-passes"),
                   (["--range-search", "--range-search-passes", "11"], "--range-search-passes"),
                   (["--range-search", "--range-search-images", "0"], "--range-search-images")]:
    r = subprocess.run(rs_base + ["-o", os.path.join(WORK, "bad.onnx")] + args, capture_output=True, text=True,
                       timeout=60)
    check(r.returncode == 2 and what in r.stderr, f"{' '.join(args)}: exit 2 naming '{what}' (got {r.returncode})")
runs = []
for k in range(2):
    rs_out = os.path.join(WORK, f"rs{k}.qdq.onnx")
    r = subprocess.run(rs_base + ["-o", rs_out, "--range-search", "--range-search-images", "1"], capture_output=True,
                       text=True, timeout=300)
    check(r.returncode == 0, f"--range-search run {k + 1} (exit {r.returncode}: {r.stderr.strip()[-300:]})")
    runs.append((rs_out, r.stdout))
m = re.search(r"range search: (\d+) of (\d+) ranges scaled, output error (-?[\d.]+) -> (-?[\d.]+) dB below the "
              r"signal \((\d+) images, (\d+) models measured\)", runs[0][1])
check(m is not None, "range search report: ranges scaled, error before and after, images, models measured")
if m:
    changed, searched, before, after, images, evals = (float(m.group(i)) for i in range(1, 7))
    check(searched > 0 and changed <= searched, f"{changed:.0f} of {searched:.0f} ranges scaled")
    check(after >= before, f"the output error did not grow ({before} -> {after} dB)")
    check(images == 1, "measured on the images asked for")
    check(1 + 2 * searched <= evals <= 1 + 3 * searched, f"2-3 models per tensor tried ({evals:.0f})")
if all(os.path.exists(o) for o, _ in runs):
    with open(runs[0][0], "rb") as a, open(runs[1][0], "rb") as b:
        check(a.read() == b.read(), "the same range search twice writes the same QDQ")

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
