/* segment_task.c — see segment_task.h. */
#include "segment_task.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower_internal.h"

yrt_status lw_segment_recognise(ir_graph *g, char *note, size_t note_cap, yrt_error *err) {
  if (note_cap) note[0] = '\0';
  if ((g->task && g->task[0]) || g->n_outputs != 2 || g->n_inputs < 1) return YRT_OK;
  int64_t nc = -1;
  for (int i = 0; i < g->n_nodes; i++)
    if (!g->nodes[i].dead && ir_node_is_live_op(&g->nodes[i], ONNX_OP_YOLORT_DETECT_DECODE))
      nc = ir_attr_int(&g->nodes[i], "num_classes", -1);
  const ir_tensor *x = &g->tensors[g->inputs[0]], *o = &g->tensors[g->outputs[0]], *p = &g->tensors[g->outputs[1]];
  if (nc < 1 || x->rank != 4 || o->rank != 3 || p->rank != 4 || o->dims[0] != 1 || p->dims[0] != 1) return YRT_OK;
  const int64_t nm = p->dims[1], ph = p->dims[2], pw = p->dims[3];
  if (nm < 1 || ph < 1 || pw < 1 || x->dims[2] % ph || x->dims[3] % pw || x->dims[2] / ph != x->dims[3] / pw ||
      o->dims[1] != 4 + nc + nm)
    return YRT_OK;
  free(g->task);
  if (!(g->task = ir_strdup("segment"))) return yrt_set_error(err, YRT_ERR_NOMEM, "convert: out of memory");
  snprintf(note, note_cap,
           "segment: recognised by its shape (no task in the metadata): output0 %lld rows = 4 + %lld classes + %lld "
           "mask coefficients, output1 [1, %lld, %lld, %lld] prototypes",
           (long long)o->dims[1], (long long)nc, (long long)nm, (long long)nm, (long long)ph, (long long)pw);
  return YRT_OK;
}
