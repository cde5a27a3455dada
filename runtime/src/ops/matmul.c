/* matmul.c — YRT_OP_MATMUL: MatMul, float or int8 (QLinearMatMul), plain or the attention's token-major heads, in one room: its check (the validator calls it
 * through the row), its prepare and run (the row in op_table.c points here). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "matmul.h"
#include "kernel_kinds.h"
#include "op_check.h"
#include "op_run.h"
#include "yk.h"

typedef struct yrt_exec_matmul {
  size_t batch, a_stride, b_stride, y_stride, m, k, n;
  size_t ldb, ldy;       /* row strides of b and y (n, or H n for the token-major form) */
  size_t rows_per_unit;  /* rows per unit of work: 1 (f32), YK_QMATMUL_ROWS (i8, its row blocks) */
  size_t units_per_batch;
  yk_qmatmul_params q; /* i8: zero points and (sa * sb) / sy */
} yrt_exec_matmul;

YRT_EXEC_STATE_FITS(yrt_exec_matmul);
static inline yrt_exec_matmul *st_of(const yrt_exec *e) { return YRT_EXEC_STATE(yrt_exec_matmul, e); }

/* The int8 requantization factor the session computes (yk_qmatmul_scale's order). */
static yrt_status matmul_i8_q(const yrt_node_check *v, const yrt_tensor_rec *a, const yrt_tensor_rec *b,
                              const yrt_tensor_rec *y) {
  yrt_status st = yrt_require_per_tensor(v);
  if (st) return st;
  const float k = yk_qmatmul_scale(a->scale, b->scale, y->scale);
  if (!(isfinite(k) && k > 0.0f))
    return yrt_node_fail(v, YRT_ERR_FORMAT, "requantization factor %g x %g / %g is not a positive number", (double)a->scale,
               (double)b->scale, (double)y->scale);
  return YRT_OK;
}

/* p[0] = YRT_MATMUL_TOKENS: a PLAIN [1, H, M, K], b NHWC [1, h, w, H N] (h w = K), y NHWC
 * [1, h', w', H N] (h' w' = M), all int8. */
static yrt_status check_matmul_tokens(const yrt_node_check *v, const yrt_tensor_rec *a, const yrt_tensor_rec *b,
                                      const yrt_tensor_rec *y) {
  if (a->dtype != YRT_I8 || b->dtype != YRT_I8 || y->dtype != YRT_I8)
    return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "token-major matmul is i8 x i8 -> i8");
  if (a->rank != 4 || b->rank != 4 || y->rank != 4 || a->layout != YRT_LAYOUT_PLAIN ||
      b->layout != YRT_LAYOUT_NHWC || y->layout != YRT_LAYOUT_NHWC || a->dims[0] != 1 || b->dims[0] != 1 ||
      y->dims[0] != 1)
    return yrt_node_fail(v, YRT_ERR_SHAPE, "token-major matmul: a [1,H,M,K] plain, b and y NHWC of batch 1");
  const int64_t H = a->dims[1], M = a->dims[2], K = a->dims[3], C = b->dims[3];
  if (H < 1 || C % H != 0 || (int64_t)b->dims[1] * b->dims[2] != K || (int64_t)y->dims[1] * y->dims[2] != M ||
      y->dims[3] != C)
    return yrt_node_fail(v, YRT_ERR_SHAPE, "token-major matmul: [%d x %d x %d] x [%d x %d] -> [%d x %d]", (int)H, (int)M,
               (int)K, (int)(b->dims[1] * b->dims[2]), (int)C, (int)(y->dims[1] * y->dims[2]), (int)y->dims[3]);
  if (K > YRT_MATMUL_I8_MAX_K)
    return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "int8 K %lld is over %d", (long long)K, YRT_MATMUL_I8_MAX_K);
  return matmul_i8_q(v, a, b, y);
}

yrt_status yrt_check_matmul(const yrt_node_check *v) {
  const yrt_tensor_rec *a = yrt_node_in(v, 0), *b = yrt_node_in(v, 1), *y = yrt_node_out(v, 0);
  if (v->n->p[0] == YRT_MATMUL_TOKENS) return check_matmul_tokens(v, a, b, y);
  if (v->n->p[0] != 0) return yrt_node_fail(v, YRT_ERR_FORMAT, "matmul form %d", (int)v->n->p[0]);
  const int i8 = a->dtype == YRT_I8 && b->dtype == YRT_I8 && y->dtype == YRT_I8;
  if (!i8 && (a->dtype != YRT_F32 || b->dtype != YRT_F32 || y->dtype != YRT_F32))
    return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "matmul is f32 x f32 -> f32 or i8 x i8 -> i8");
  const uint32_t r = y->rank;
  if (r < 2 || a->rank != r || b->rank != r) return yrt_node_fail(v, YRT_ERR_SHAPE, "operands must share a rank >= 2");
  if (b->dims[r - 2] != a->dims[r - 1] || y->dims[r - 2] != a->dims[r - 2] || y->dims[r - 1] != b->dims[r - 1])
    return yrt_node_fail(v, YRT_ERR_SHAPE, "[%d x %d] x [%d x %d] -> [%d x %d]", (int)a->dims[r - 2], (int)a->dims[r - 1],
               (int)b->dims[r - 2], (int)b->dims[r - 1], (int)y->dims[r - 2], (int)y->dims[r - 1]);
  /* Each operand's batch is either the whole output batch or a single matrix. */
  int a_full = 1, a_one = 1, b_full = 1, b_one = 1;
  for (uint32_t d = 0; d + 2 < r; d++) {
    a_full &= a->dims[d] == y->dims[d];
    a_one &= a->dims[d] == 1;
    b_full &= b->dims[d] == y->dims[d];
    b_one &= b->dims[d] == 1;
    if (y->dims[d] != (a->dims[d] > b->dims[d] ? a->dims[d] : b->dims[d]))
      return yrt_node_fail(v, YRT_ERR_SHAPE, "batch axis %u does not broadcast", (unsigned)d);
  }
  if (!(a_full || a_one) || !(b_full || b_one)) return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "partial batch broadcasting");
  if (!i8) return YRT_OK;
  if (a->dims[r - 1] > YRT_MATMUL_I8_MAX_K)
    return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "int8 K %lld is over %d", (long long)a->dims[r - 1], YRT_MATMUL_I8_MAX_K);
  return matmul_i8_q(v, a, b, y);
}

/* Units [lo, hi) of a matmul's output rows, a unit being rows_per_unit rows of one batch (the
 * int8 kernel's row blocks): rows are independent (each output sums over k in the same order
 * however M is split), so threading is bit-exact. */
static void matmul_range(const void *ctx, size_t lo, size_t hi) {
  const yrt_session *s = ((const yrt_node_ctx *)ctx)->s;
  const yrt_exec *e = ((const yrt_node_ctx *)ctx)->e;
  const yrt_exec_matmul *mm = st_of(e);
  while (lo < hi) {
    const size_t bt = lo / mm->units_per_batch, u0 = lo % mm->units_per_batch;
    const size_t units = hi - lo < mm->units_per_batch - u0 ? hi - lo : mm->units_per_batch - u0;
    const size_t r0 = u0 * mm->rows_per_unit, r1 = (u0 + units) * mm->rows_per_unit;
    const size_t rows = (r1 < mm->m ? r1 : mm->m) - r0;
    const size_t ao = bt * mm->a_stride + r0 * mm->k, bo = bt * mm->b_stride, yo = bt * mm->y_stride + r0 * mm->ldy;
    if (e->esize == 1) {
      const yk_qmatmul_strides st = {0, 0, 0, mm->ldb, mm->ldy};
      yk_qmatmul_i8(&s->isa, (const int8_t *)e->in[0] + ao, (const int8_t *)e->in[1] + bo, (int8_t *)e->out + yo,
                    1, &st, rows, mm->k, mm->n, &mm->q);
    } else {
      yk_matmul_f32(&s->isa, (const float *)e->in[0] + ao, (const float *)e->in[1] + bo, (float *)e->out + yo, 1,
                    0, 0, rows, mm->k, mm->n);
    }
    lo += units;
  }
}

yrt_status yrt_run_matmul(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  const yrt_exec_matmul *mm = st_of(e);
  const size_t n = mm->batch * mm->units_per_batch;
  if (e->esize != 1) {
    yrt_run_par(s, e, matmul_range, n, mm->n * mm->k); /* weigh rows by their work, k MACs per output */
    return YRT_OK;
  }
  /* int8: one range per thread. Each call prepares b once (its column sums, and the AVX-512
   * kernel's panel interleave: a quarter of the work of 16 rows of the attention's MatMul_1), so
   * fewer, longer ranges; whole row blocks. */
  const size_t threads = yrt_par_threads(&s->par);
  const yrt_node_ctx t = {s, e};
  const int one = threads < 2 || n < 2 || mm->batch * mm->m * mm->n * mm->k < 2 * YRT_PAR_MIN_ELEMS;
  yrt_par_ranges(one ? NULL : &s->par, n, one ? n : (n + threads - 1) / threads, matmul_range, &t);
  return YRT_OK;
}

yrt_status yrt_prepare_matmul(yrt_session *s, yrt_exec *e, yrt_error *err) {
  (void)err;
  const yrt_model *m = s->model;
  const yrt_node_rec *n = e->node;
  const yrt_tensor_rec *x = &m->tensors[n->in[0]], *b = &m->tensors[n->in[1]], *y = &m->tensors[n->out[0]];
  yrt_exec_matmul *mm = st_of(e);
  const uint32_t r = y->rank;
  mm->m = (size_t)x->dims[r - 2];
  mm->k = (size_t)x->dims[r - 1];
  if (n->p[0] == YRT_MATMUL_TOKENS) { /* heads of token-major b and y (validated) */
    const size_t c = (size_t)b->dims[3];
    mm->batch = (size_t)x->dims[1];
    mm->n = c / mm->batch;
    mm->a_stride = mm->m * mm->k;
    mm->b_stride = mm->y_stride = mm->n; /* head hd at column hd N */
    mm->ldb = mm->ldy = c;
  } else {
    mm->n = (size_t)b->dims[r - 1];
    mm->batch = yrt_dims_product(y, 0, r - 2);
    mm->a_stride = yrt_dims_product(x, 0, r - 2) == 1 && mm->batch > 1 ? 0 : mm->m * mm->k;
    mm->b_stride = yrt_dims_product(b, 0, r - 2) == 1 && mm->batch > 1 ? 0 : mm->k * mm->n;
    mm->y_stride = mm->m * mm->n;
    mm->ldb = mm->ldy = mm->n;
  }
  mm->rows_per_unit = e->esize == 1 ? YK_QMATMUL_ROWS : 1;
  mm->units_per_batch = (mm->m + mm->rows_per_unit - 1) / mm->rows_per_unit;
  if (e->esize == 1) { /* validated: a positive, finite factor */
    const yk_qmatmul_params q = {e->q[0].zero_point, e->q[1].zero_point, e->q[2].zero_point,
                                 yk_qmatmul_scale(e->q[0].scale, e->q[1].scale, e->q[2].scale)};
    mm->q = q;
  }
  return YRT_OK;
}
