/* schedule_adds.c — an int8 Add runs right after the conv that makes its last-computed input.
 *
 * The ONNX order interleaves branches (YOLO's head convs sit between a bottleneck's second conv
 * and its residual Add), and the runtime runs an Add that directly follows its conv inside that
 * conv's tasks, on rows still in cache (the conv row's absorb_next, yrt_conv_absorb_next).
 * Moving the Add up to just after that conv keeps every dependency: its other input was made
 * earlier, and no node before its old place reads its output. */
#include <string.h>

#include "lower_internal.h"

static int producer_before(const lw_ctx *c, int t, int before) {
  for (int k = before - 1; k >= 0; k--)
    for (int j = 0; j < c->n[k].n_out; j++)
      if (c->n[k].out[j] == t) return k;
  return -1;
}

int lw_schedule_adds(lw_ctx *c) {
  int moved = 0;
  for (int k = 1; k < c->nn; k++) {
    const lw_node *a = &c->n[k];
    if (a->op != YRT_OP_BINARY || a->n_in != 2 || c->t[a->out[0]].dtype != YRT_I8) continue;
    const int p0 = producer_before(c, a->in[0], k), p1 = producer_before(c, a->in[1], k);
    const int p = p0 > p1 ? p0 : p1;
    if (p < 0 || p + 1 >= k || c->n[p].op != YRT_OP_CONV2D || c->t[c->n[p].out[0]].dtype != YRT_I8) continue;
    const lw_node add = *a;
    memmove(&c->n[p + 2], &c->n[p + 1], sizeof(lw_node) * (size_t)(k - p - 1));
    c->n[p + 1] = add;
    moved++;
  }
  return moved;
}
