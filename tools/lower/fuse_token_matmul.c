/* fuse_token_matmul.c — the attention's second MatMul computed transposed, so it reads and writes
 * the token-major (NHWC) tensors the convs around it use. In C2PSA / PSA blocks
 *   T = Transpose(P, perm 0 1 3 2)        P [1, H, M, K] the softmax (M queries x K keys)
 *   Y = MatMul(V, T)                      V [1, H, N, K], Y [1, H, N, M]
 *   R = Reshape(Y) [1, H N, h, w]         h w = M, read by the convs in NHWC
 * and V also feeds R2 = Reshape(V) [1, H N, h2, w2] (h2 w2 = K; the pe conv's input, NHWC too).
 * R's NHWC form [1, h, w, H N] holds Y^T[head] = P[head] x V^T[head] at column head N, and V^T is
 * R2's NHWC form, so one int8 MATMUL in its token-major form (p[0] = 1, yolort_format.h) reads P
 * and R2's NHWC form and writes R's NHWC form: the Transpose, the Reshape and the transposes the
 * layout pass puts between the NCHW-ordered Y and the NHWC convs are gone. The int32 sums and
 * the requantization are the same numbers, so the output is byte-identical. */
#include "lower_internal.h"

static const ir_tensor *T(const lw_ctx *c, int t) { return &c->g->tensors[t]; }

/* The only live node reading t (not a graph output), else -1. */
static int sole_reader(const lw_ctx *c, int t) {
  int cons[2];
  if (t < 0 || T(c, t)->is_output || ir_consumers(c->g, t, cons, 2) != 1) return -1;
  return cons[0];
}

static int same_q(const lw_ctx *c, int a, int b) {
  return lw_q_ok(c->g, a) && lw_q_ok(c->g, b) && T(c, a)->q.scale == T(c, b)->q.scale &&
         T(c, a)->q.zero_point == T(c, b)->q.zero_point;
}

static int is_rank4(const lw_ctx *c, int t, int64_t d0, int64_t d1, int64_t d2, int64_t d3) {
  const ir_tensor *x = T(c, t);
  return !x->data && x->rank == 4 && x->dims[0] == d0 && (d1 < 0 || x->dims[1] == d1) &&
         (d2 < 0 || x->dims[2] == d2) && (d3 < 0 || x->dims[3] == d3);
}

int lw_token_matmul_match(const lw_ctx *c, int mi, lw_token_matmul *m) {
  const ir_graph *g = c->g;
  const ir_node *mm = &g->nodes[mi];
  const char *why;
  if (mm->dead || !ir_node_is_op(mm, ONNX_OP_MATMUL) || mm->n_in != 2 || mm->n_out != 1 || mm->in[0] < 0 ||
      mm->in[1] < 0 || mm->out[0] < 0 || !lw_node_int8(c, mi, &why))
    return 0;
  const int v = mm->in[0], tb = mm->in[1], y = mm->out[0];
  const int ti = T(c, tb)->producer;
  if (ti < 0 || ti >= g->n_nodes || sole_reader(c, tb) != mi) return 0;
  const ir_node *tn = &g->nodes[ti];
  if (tn->dead || !ir_node_is_op(tn, ONNX_OP_TRANSPOSE) || tn->n_in != 1 || tn->n_out != 1 || tn->out[0] != tb ||
      tn->in[0] < 0 || !lw_node_int8(c, ti, &why))
    return 0;
  const ir_attr *perm = ir_attr_get(tn, "perm");
  if (!perm || perm->type != IR_ATTR_INTS || perm->n_ints != 4 || perm->ints[0] != 0 || perm->ints[1] != 1 ||
      perm->ints[2] != 3 || perm->ints[3] != 2)
    return 0;
  const int p = tn->in[0];
  if (!is_rank4(c, p, 1, -1, -1, -1)) return 0;
  const int64_t H = T(c, p)->dims[1], M = T(c, p)->dims[2], K = T(c, p)->dims[3];
  if (H < 1 || M < 1 || K < 1 || !is_rank4(c, v, 1, H, -1, K) || !is_rank4(c, y, 1, H, T(c, v)->dims[2], M))
    return 0;
  const int64_t N = T(c, v)->dims[2];
  const int ri = sole_reader(c, y);
  if (ri < 0) return 0;
  const ir_node *rn = &g->nodes[ri];
  if (!ir_node_is_op(rn, ONNX_OP_RESHAPE) || rn->n_out != 1 || rn->out[0] < 0 || rn->in[0] != y ||
      !lw_node_int8(c, ri, &why))
    return 0;
  const int r = rn->out[0];
  if (!is_rank4(c, r, 1, H * N, -1, -1) || T(c, r)->dims[2] * T(c, r)->dims[3] != M) return 0;
  /* V's NHWC form comes from its own Reshape to [1, H N, h2, w2] (the pe conv's input) */
  int cons[8], r2i = -1;
  const int nc = ir_consumers(g, v, cons, 8);
  for (int j = 0; j < nc && j < 8 && r2i < 0; j++) {
    const ir_node *n2 = &g->nodes[cons[j]];
    if (cons[j] != mi && ir_node_is_op(n2, ONNX_OP_RESHAPE) && n2->n_out == 1 && n2->out[0] >= 0 &&
        n2->in[0] == v && lw_node_int8(c, cons[j], &why) && is_rank4(c, n2->out[0], 1, H * N, -1, -1) &&
        T(c, n2->out[0])->dims[2] * T(c, n2->out[0])->dims[3] == K)
      r2i = cons[j];
  }
  if (r2i < 0) return 0;
  /* the data movement moves bytes only: each pair shares one quantization */
  if (!same_q(c, p, tb) || !same_q(c, y, r) || !same_q(c, v, g->nodes[r2i].out[0])) return 0;
  m->transpose = ti;
  m->reshape = ri;
  m->reshape_v = r2i;
  m->p = p;
  m->v_tokens = g->nodes[r2i].out[0];
  m->out = r;
  return 1;
}

yrt_status lw_fuse_token_matmul(lw_ctx *c) {
  for (int i = 0; i < c->g->n_nodes; i++) {
    lw_token_matmul m;
    if (c->absorbed[i] || !lw_token_matmul_match(c, i, &m)) continue;
    c->absorbed[m.transpose] = 1;
    c->absorbed[m.reshape] = 1;
  }
  return YRT_OK;
}
