/* gemm_as_matmul.c — ir_gemm_as_matmul (ir.h): a Gemm with constant weights (a classifier's
 * Linear layer, nn.Linear exported as Gemm(x, W, b, transB = 1)) becomes MatMul(x, alpha * op(W))
 * [+ Add(beta * C)], the two node kinds the lowering already has (float MATMUL, BINARY). The
 * weights are rewritten once into [K, N]; the Gemm keeps its name on the MatMul (so --keep-fp32
 * still names it) and its output tensor on the last node. A Gemm the rewrite cannot take
 * (transA, weights or bias computed at run time, shapes other than 2-D) is an error naming it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "ir_passes.h"

static int is_const(const ir_graph *g, int t) { return t >= 0 && g->tensors[t].data != NULL; }

static yrt_status refuse(const ir_node *n, const char *why, yrt_error *err) {
  return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "node '%s' (Gemm): %s; only a Gemm with constant 2-D weights "
                       "and transA = 0 converts (a Linear layer)", n->name, why);
}

static yrt_status rewrite(ir_graph *g, int ni, yrt_error *err) {
  const ir_node *n = &g->nodes[ni];
  if (n->n_in < 2 || n->n_out != 1) return refuse(n, "needs inputs A, B and one output", err);
  const int a = n->in[0], b = n->in[1], c = n->n_in > 2 ? n->in[2] : -1, y = n->out[0];
  if (ir_attr_int(n, "transA", 0)) return refuse(n, "transA = 1", err);
  if (!is_const(g, b) || g->tensors[b].rank != 2) return refuse(n, "B is not a constant 2-D tensor", err);
  if (c >= 0 && !is_const(g, c)) return refuse(n, "C is not a constant", err);
  const int tb = ir_attr_int(n, "transB", 0) != 0;
  const float alpha = ir_attr_float(n, "alpha", 1.0f), beta = ir_attr_float(n, "beta", 1.0f);
  const ir_tensor *bt = &g->tensors[b];
  const int64_t K = bt->dims[tb ? 1 : 0], N = bt->dims[tb ? 0 : 1];
  if (K < 1 || N < 1) return refuse(n, "B has an empty dimension", err);
  char *name = ir_strdup(n->name && n->name[0] ? n->name : g->tensors[y].name);
  float *w = malloc(sizeof(float) * (size_t)(K * N));
  if (!name || !w) {
    free(name);
    free(w);
    return yrt_set_error(err, YRT_ERR_NOMEM, "gemm_as_matmul: out of memory at node '%s'", n->name);
  }
  for (int64_t k = 0; k < K; k++)
    for (int64_t j = 0; j < N; j++) w[k * N + j] = alpha * (float)ir_const_f64(bt, tb ? j * K + k : k * N + j);
  const int64_t wd[2] = {K, N};
  int wt = ir_add_const_f32(g, name, "/weight_KxN", 2, wd, w, (size_t)(K * N)), ct = -1;
  free(w);
  if (wt >= 0 && c >= 0) { /* the bias, scaled by beta, as it is broadcast (shape kept) */
    const ir_tensor *cs = &g->tensors[c];
    const int64_t cn = ir_numel(cs);
    float *cv = cn > 0 ? malloc(sizeof(float) * (size_t)cn) : NULL;
    if (cv) {
      for (int64_t i = 0; i < cn; i++) cv[i] = beta * (float)ir_const_f64(cs, i);
      int64_t cd[IR_MAX_RANK];
      memcpy(cd, cs->dims, sizeof cd);
      ct = ir_add_const_f32(g, name, "/bias", cs->rank, cd, cv, (size_t)cn);
      free(cv);
    }
    if (ct < 0) wt = -1;
  }
  int mid = wt >= 0 && ct >= 0 ? ir_add_tensor(g, NULL, IR_F32) : y;
  int mm = -1, ad = 0;
  if (wt >= 0 && mid >= 0) {
    g->nodes[ni].dead = 1; /* its output gets a new producer below */
    const int in_mm[2] = {a, wt};
    mm = ir_add_node(g, name, "MatMul", in_mm, 2, &mid, 1);
    if (mm >= 0 && ct >= 0) {
      const int in_add[2] = {mid, ct};
      char *an = malloc(strlen(name) + 6);
      if (an) snprintf(an, strlen(name) + 6, "%s/bias", name);
      ad = an ? ir_add_node(g, an, "Add", in_add, 2, &y, 1) : -1;
      free(an);
    }
  }
  free(name);
  if (mm < 0 || ad < 0) return yrt_set_error(err, YRT_ERR_NOMEM, "gemm_as_matmul: out of memory");
  return YRT_OK;
}

yrt_status ir_gemm_as_matmul(ir_graph *g, int *n_rewritten, yrt_error *err) {
  if (!g) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "ir_gemm_as_matmul: NULL graph");
  int count = 0;
  const int n0 = g->n_nodes; /* the nodes added here are MatMul / Add */
  for (int i = 0; i < n0; i++) {
    if (g->nodes[i].dead || !ir_node_is(&g->nodes[i], "Gemm")) continue;
    yrt_status st = rewrite(g, i, err);
    if (st != YRT_OK) return st;
    count++;
  }
  if (n_rewritten) *n_rewritten = count;
  return YRT_OK;
}

/* A new float (or int64 constant) tensor named base + suffix with the given shape. */
static int new_tensor(ir_graph *g, const char *base, const char *suffix, ir_dtype dt, int rank, const int64_t *dims,
                      const void *data, size_t nbytes) {
  char name[512];
  snprintf(name, sizeof name, "%s%s", base, suffix);
  int t = ir_add_tensor(g, ir_find_tensor(g, name) < 0 ? name : NULL, dt);
  if (t < 0 || (data && ir_tensor_set_data(&g->tensors[t], data, nbytes)) ||
      ir_tensor_set_shape(&g->tensors[t], rank, dims))
    return -1;
  return t;
}

/* Reshape x -> y (shapes set) with a constant shape input. Node index or -1. */
static int add_reshape(ir_graph *g, const char *base, const char *suffix, int x, int y) {
  const ir_tensor *yt = &g->tensors[y];
  int64_t shape[IR_MAX_RANK];
  for (int d = 0; d < yt->rank; d++) shape[d] = yt->dims[d];
  const int64_t r = yt->rank;
  const int st = new_tensor(g, base, suffix, IR_I64, 1, &r, shape, sizeof(int64_t) * (size_t)r);
  if (st < 0) return -1;
  char name[512];
  snprintf(name, sizeof name, "%s%s", base, suffix);
  const int in[2] = {x, st};
  return ir_add_node(g, name, "Reshape", in, 2, &y, 1);
}

/* One dynamically quantized MatMul(x [1, K], W [K, N]) -> Reshape [1, K, 1, 1] -> 1x1 Conv
 * (W^T as [N, K, 1, 1], the same tags) -> Reshape [1, N]. 1 rewritten, 0 not this form, -1 no
 * memory. */
static int linear_one(ir_graph *g, int ni) {
  const ir_node *n = &g->nodes[ni];
  if (n->n_in != 2 || n->n_out != 1 || ir_attr_int(n, "yolort.dynamic_quant", 0) != 1 || n->fp32) return 0;
  const int x = n->in[0], w = n->in[1], y = n->out[0];
  const ir_tensor *X = &g->tensors[x], *W = &g->tensors[w], *Y = &g->tensors[y];
  if (!W->data || W->dtype != IR_F32 || W->rank != 2 || X->rank != 2 || X->dims[0] != 1 || Y->rank != 2 ||
      X->dims[1] != W->dims[0] || Y->dims[1] != W->dims[1] || X->dtype != IR_F32)
    return 0;
  const int64_t K = W->dims[0], N = W->dims[1];
  float *wt = malloc(sizeof(float) * (size_t)(K * N));
  char *base = ir_strdup(n->name && n->name[0] ? n->name : Y->name);
  if (!wt || !base) return free(wt), free(base), -1;
  const float *wf = W->data;
  for (int64_t k = 0; k < K; k++)
    for (int64_t j = 0; j < N; j++) wt[j * K + k] = wf[k * N + j];
  const int64_t wd[4] = {N, K, 1, 1}, xd[4] = {1, K, 1, 1}, yd[4] = {1, N, 1, 1};
  const int w4 = new_tensor(g, base, "/weight_as_conv", IR_F32, 4, wd, wt, sizeof(float) * (size_t)(K * N));
  free(wt);
  const int x4 = w4 < 0 ? -1 : new_tensor(g, base, "/input_as_nchw", IR_F32, 4, xd, NULL, 0);
  const int y4 = x4 < 0 ? -1 : new_tensor(g, base, "/output_as_nchw", IR_F32, 4, yd, NULL, 0);
  int ok = y4 >= 0;
  const ir_attr *ws = ok ? ir_attr_get(&g->nodes[ni], "yolort.dynamic_wscale") : NULL;
  float *wsv = NULL;
  int nws = 0;
  if (ws && ws->type == IR_ATTR_FLOATS && ws->n_floats > 0) { /* copied: the node array may move */
    nws = ws->n_floats;
    wsv = malloc(sizeof(float) * (size_t)nws);
    if (!wsv) ok = 0;
    else memcpy(wsv, ws->floats, sizeof(float) * (size_t)nws);
  }
  if (ok) {
    g->nodes[ni].dead = 1;
    const int in_c[2] = {x4, w4};
    const int64_t one[2] = {1, 1}, zero[4] = {0, 0, 0, 0};
    ok = add_reshape(g, base, "/to_nchw", x, x4) >= 0;
    const int c = ok ? ir_add_node(g, base, "Conv", in_c, 2, &y4, 1) : -1;
    ok = c >= 0 && !ir_set_attr_ints(g, c, "kernel_shape", one, 2) && !ir_set_attr_ints(g, c, "strides", one, 2) &&
         !ir_set_attr_ints(g, c, "dilations", one, 2) && !ir_set_attr_ints(g, c, "pads", zero, 4) &&
         !ir_set_attr_int(g, c, "group", 1) && !ir_set_attr_int(g, c, "yolort.dynamic_quant", 1) &&
         (!wsv || !ir_set_attr_floats(g, c, "yolort.dynamic_wscale", wsv, nws)) &&
         add_reshape(g, base, "/from_nchw", y4, y) >= 0;
  }
  free(wsv);
  free(base);
  return ok ? 1 : -1;
}

yrt_status ir_dynamic_linear_as_conv(ir_graph *g, int *n_rewritten, yrt_error *err) {
  if (!g) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "ir_dynamic_linear_as_conv: NULL graph");
  int count = 0;
  const int n0 = g->n_nodes;
  for (int i = 0; i < n0; i++) {
    if (g->nodes[i].dead || !ir_node_is_op(&g->nodes[i], ONNX_OP_MATMUL)) continue;
    const int r = linear_one(g, i);
    if (r < 0) return yrt_set_error(err, YRT_ERR_NOMEM, "dynamic_linear_as_conv: out of memory at node '%s'",
                                    g->nodes[i].name);
    count += r;
  }
  if (n_rewritten) *n_rewritten = count;
  return YRT_OK;
}
