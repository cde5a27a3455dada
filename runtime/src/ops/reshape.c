/* reshape.c — YRT_OP_RESHAPE: Reshape (and Flatten / Squeeze / Unsqueeze): a byte copy of the same element count, in one room: its check (the validator calls it
 * through the row), its prepare and run (the row in op_table.c points here). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reshape.h"
#include "kernel_kinds.h"
#include "op_check.h"
#include "op_run.h"
#include "yk.h"

yrt_status yrt_check_reshape(const yrt_node_check *v) {
  const yrt_tensor_rec *x = yrt_node_in(v, 0), *y = yrt_node_out(v, 0);
  if (x->dtype != y->dtype || !yrt_same_qparams(x, y)) return yrt_node_fail(v, YRT_ERR_FORMAT, "input and output differ in dtype or quantization");
  if (x->nbytes != y->nbytes) return yrt_node_fail(v, YRT_ERR_SHAPE, "%llu bytes -> %llu bytes", (unsigned long long)x->nbytes, (unsigned long long)y->nbytes);
  return yrt_require_per_tensor(v);
}

yrt_status yrt_run_reshape(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)s, (void)err;
  memcpy(e->out, e->in[0], e->numel * e->esize); /* never overlapping (memory plan check) */
  return YRT_OK;
}
