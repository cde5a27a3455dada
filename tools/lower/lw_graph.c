/* lw_graph.c — the lowered graph container: tensors, nodes, per-IR-tensor form cache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower_internal.h"

int lw_q_ok(const ir_graph *g, int t) {
  if (t < 0 || t >= g->n_tensors) return 0;
  const ir_tensor *x = &g->tensors[t];
  if (!x->q.on || x->q.dtype != IR_I8 || (x->q.scales && x->q.n_scales > 1)) return 0;
  if (!(x->q.scale > 0.0f)) return 0;
  if (x->data && !x->qdata) return 0;
  return 1;
}

char *lw_strdup(const char *s) {
  if (!s) s = "";
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

int64_t lw_numel(const lw_tensor *t) {
  int64_t n = 1;
  for (int i = 0; i < t->rank; i++) n *= t->dims[i];
  return n;
}

yrt_status lw_init(lw_ctx *c, ir_graph *g, const yrt_convert_options *o, yrt_convert_report *rep,
                   yrt_error *err) {
  memset(c, 0, sizeof *c);
  c->g = g;
  c->opt = o;
  c->rep = rep;
  c->err = err;
  size_t nt = (size_t)(g->n_tensors > 0 ? g->n_tensors : 1);
  size_t nn = (size_t)(g->n_nodes > 0 ? g->n_nodes : 1);
  c->form = malloc(sizeof(int) * 4 * nt);
  c->fuse_mul = malloc(sizeof(int) * nn);
  c->fuse_act = malloc(sizeof(int) * nn);
  c->absorbed = calloc(nn, sizeof(int));
  c->inputs = malloc(sizeof(int) * (size_t)(g->n_inputs + 1));
  c->outputs = malloc(sizeof(int) * (size_t)(g->n_outputs + 1));
  if (!c->form || !c->fuse_mul || !c->fuse_act || !c->absorbed || !c->inputs || !c->outputs) {
    lw_free(c);
    return yrt_set_error(err, YRT_ERR_NOMEM, "convert: out of memory (lowering tables)");
  }
  for (size_t i = 0; i < 4 * nt; i++) c->form[i] = -1;
  for (size_t i = 0; i < nn; i++) c->fuse_mul[i] = c->fuse_act[i] = -1;
  return YRT_OK;
}

void lw_free(lw_ctx *c) {
  for (int i = 0; i < c->nt; i++) {
    free(c->t[i].name);
    free(c->t[i].data);
    free(c->t[i].scales);
  }
  for (int i = 0; i < c->nn; i++) free(c->n[i].name);
  free(c->t);
  free(c->n);
  free(c->form);
  free(c->fuse_mul);
  free(c->fuse_act);
  free(c->absorbed);
  free(c->inputs);
  free(c->outputs);
  memset(c, 0, sizeof *c);
}

int lw_add_tensor(lw_ctx *c, const char *name, uint32_t dtype, uint32_t kind, uint32_t layout,
                  int rank, const int64_t *dims) {
  if (rank < 0 || rank > YRT_MAX_RANK) {
    lw_err(c, YRT_ERR_UNSUPPORTED, "tensor '%s': rank %d (max %d)", name, rank,
                  YRT_MAX_RANK);
    return -1;
  }
  /* The loader's limits (runtime/src/model_validate_tensors.c): hostile ONNX shapes stop here
   * instead of overflowing size arithmetic (fuzz finding). */
  uint64_t bytes = yrt_dtype_size(dtype) ? yrt_dtype_size(dtype) : 1;
  for (int i = 0; i < rank; i++) {
    /* name the real cause: one dim out of range, or the whole tensor over 2 GiB (a 16384^2 image
     * input was "dim 3 = 3, too large") */
    if (dims[i] < 0 || dims[i] > (1 << 24)) {
      lw_err(c, YRT_ERR_UNSUPPORTED, "tensor '%s': dim %d = %lld is outside 0..2^24", name, i,
             (long long)dims[i]);
      return -1;
    }
    if (dims[i] > 0 && bytes > (1ull << 31) / (uint64_t)dims[i]) {
      char shape[160];
      int len = 0;
      for (int k = 0; k < rank && len < (int)sizeof shape - 24; k++)
        len += snprintf(shape + len, sizeof shape - (size_t)len, "%s%lld", k ? "x" : "", (long long)dims[k]);
      lw_err(c, YRT_ERR_UNSUPPORTED, "tensor '%s' [%s] is over 2 GiB, the most a .yrt tensor holds", name,
             rank ? shape : "");
      return -1;
    }
    bytes *= (uint64_t)dims[i];
  }
  if (c->nt == c->cap_t) {
    int cap = c->cap_t ? c->cap_t * 2 : 256;
    lw_tensor *nt = realloc(c->t, sizeof(lw_tensor) * (size_t)cap);
    if (!nt) goto nomem;
    c->t = nt;
    c->cap_t = cap;
  }
  lw_tensor *t = &c->t[c->nt];
  memset(t, 0, sizeof *t);
  t->name = lw_strdup(name);
  if (!t->name) goto nomem;
  t->dtype = dtype;
  t->kind = kind;
  t->layout = layout;
  t->rank = rank;
  for (int i = 0; i < rank; i++) t->dims[i] = dims[i];
  t->nbytes = (size_t)lw_numel(t) * yrt_dtype_size(dtype);
  t->first = t->last = -1;
  t->scale = 1.0f;
  return c->nt++;
nomem:
  lw_err(c, YRT_ERR_NOMEM, "convert: out of memory adding tensor '%s'", name);
  return -1;
}

lw_node *lw_add_node(lw_ctx *c, uint32_t op, const int *in, int n_in, const int *out, int n_out) {
  if (n_in > YRT_MAX_NODE_IO || n_out > YRT_MAX_NODE_IO) {
    lw_err(c, YRT_ERR_UNSUPPORTED, "node '%s': %d inputs / %d outputs (max %d)",
                  c->cur ? c->cur : "?", n_in, n_out, YRT_MAX_NODE_IO);
    return NULL;
  }
  if (c->nn == c->cap_n) {
    int cap = c->cap_n ? c->cap_n * 2 : 256;
    lw_node *nn = realloc(c->n, sizeof(lw_node) * (size_t)cap);
    if (!nn) goto nomem;
    c->n = nn;
    c->cap_n = cap;
  }
  lw_node *n = &c->n[c->nn];
  memset(n, 0, sizeof *n);
  n->name = lw_strdup(c->cur);
  if (!n->name) goto nomem;
  n->op = op;
  n->n_in = n_in;
  n->n_out = n_out;
  for (int i = 0; i < n_in; i++) n->in[i] = in[i];
  for (int i = 0; i < n_out; i++) n->out[i] = out[i];
  c->nn++;
  return n;
nomem:
  lw_err(c, YRT_ERR_NOMEM, "convert: out of memory adding a node");
  return NULL;
}

static int f64_to_i64(double x, int64_t *v) {
  if (!(x >= -9223372036854775808.0 && x < 9223372036854775808.0)) return -1;
  *v = (int64_t)x;
  return 0;
}

int lw_ir_const_i64(const ir_tensor *t, int64_t i, int64_t *v) {
  if (!t->data) return -1;
  size_t es = ir_dtype_size(t->dtype);
  if (es == 0 || (size_t)(i + 1) * es > t->nbytes || i < 0) return -1;
  const char *p = (const char *)t->data + (size_t)i * es;
  switch (t->dtype) {
    case IR_I64: { int64_t x; memcpy(&x, p, 8); *v = x; return 0; }
    case IR_I32: { int32_t x; memcpy(&x, p, 4); *v = x; return 0; }
    case IR_I8: { *v = *(const int8_t *)p; return 0; }
    case IR_U8: { *v = *(const uint8_t *)p; return 0; }
    /* a float outside int64's range (or NaN) is no integer: converting it would be UB */
    case IR_F32: { float x; memcpy(&x, p, 4); return f64_to_i64((double)x, v); }
    case IR_F64: { double x; memcpy(&x, p, 8); return f64_to_i64(x, v); }
    default: return -1;
  }
}
