/* node_cost.h — the measured latency cost of running some layers of a QDQ model in float instead
 * of int8 (yolort-quantize --auto-mixed).
 * The all-int8 model and the candidate run alternately, profiled (yrt_session_node_times); each
 * node's time is the fastest of its runs (node_cost.c: on a shared machine noise only adds). The cost is the candidate's time minus the all-int8
 * model's over the nodes that differ: the layers made float (by name), and the nodes one model
 * has and the other has not (by name and kind: the quantize / dequantize steps at the new float
 * border, a neighbour whose output became float). Nodes both models run alike are left out, so
 * the machine's noise on the other ~150 nodes does not drown a 0.1 ms difference. */
#ifndef YOLORT_NODE_COST_H
#define YOLORT_NODE_COST_H

#include <stdint.h>

#include "onnx.pb-c.h"
#include "yolort.h"

typedef struct node_cost_session {
  yrt_model *model;
  yrt_session *session;
  int n;          /* nodes */
  uint64_t *ns;   /* [runs][n] node times of the current measurement */
} node_cost_session;

typedef struct node_cost {
  node_cost_session base;  /* the all-int8 model */
  int runs, threads;
  double base_ms;          /* the all-int8 model's summed node times, fastest run */
} node_cost;

/* Convert the QDQ model q (keep_fp32: its float nodes, may be NULL) and profile it `runs` times. */
yrt_status node_cost_open(node_cost *c, const Onnx__ModelProto *q, const char *const *keep_fp32, int runs,
                          int threads, yrt_error *err);
/* Cost in ms of the model q2 (the same QDQ model, `keep_fp32` converted in float) against the
 * base; `changed`: the node names made float (NULL-terminated). *total_ms (may be NULL): q2's
 * summed node time, fastest run. */
yrt_status node_cost_measure(node_cost *c, const Onnx__ModelProto *q2, const char *const *keep_fp32,
                             const char *const *changed, double *cost_ms, double *total_ms, yrt_error *err);
void node_cost_close(node_cost *c);

#endif
