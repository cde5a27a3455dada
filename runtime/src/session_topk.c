/* session_topk.c — YRT_OP_DETECT_TOPK: the end-to-end (NMS-free) head's selection as one node.
 * Prepare allocates the kernel's scratch once (the selection itself never allocates). */
#include <stdlib.h>

#include "op_table.h"
#include "session_internal.h"
#include "yk_topk.h"

yrt_status yrt_prepare_topk(yrt_session *s, yrt_exec *e, yrt_error *err) {
  const yrt_model *m = s->model;
  const yrt_node_rec *n = e->node;
  e->u.topk.nc = n->p[0];
  e->u.topk.k = n->p[1];
  e->u.topk.n = (int)m->tensors[n->in[0]].dims[2];
  e->u.topk.scratch = malloc(yk_topk_scratch_bytes(e->u.topk.nc, e->u.topk.n, e->u.topk.k));
  if (!e->u.topk.scratch)
    return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for the top-k of node '%s'",
                         yrt_model_string(m, n->name));
  return YRT_OK;
}

yrt_status yrt_run_topk(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)s, (void)err;
  yk_detect_topk(e->in[0], e->u.topk.nc, e->u.topk.n, e->u.topk.k, e->out, e->u.topk.scratch);
  return YRT_OK;
}

void yrt_release_topk(yrt_exec *e) {
  free(e->u.topk.scratch);
  e->u.topk.scratch = NULL;
}
