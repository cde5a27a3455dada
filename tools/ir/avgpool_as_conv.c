/* avgpool_as_conv.c — ir_avgpool_as_conv (ir.h): AveragePool and GlobalAveragePool become a
 * depthwise Conv whose weights are all 1/(kh*kw), so they run on the conv kernels (int8 too)
 * instead of needing a pooling kind of their own. YOLOv9's ADown / AConv average 2x2 windows at
 * stride 1; SE-style blocks take a GlobalAveragePool.
 *
 * Only where the result is exactly the pool's: the conv divides every window by kh*kw, the pool
 * by the number of elements it counts. They agree when no window reaches into padding, or when
 * padding is counted (count_include_pad = 1), and ceil_mode adds no partial window at the end
 * (its windows are cut at the padded input and divide by less). Anything else keeps its
 * AveragePool node (reported as unsupported by the lowering, naming it).
 *
 * In a QDQ graph (one with a DequantizeLinear) the weights are int8 127 through a DQ at scale
 * 1/(127*kh*kw): exactly 1/(kh*kw) as a ratio, per tensor and symmetric, which ir_qdq_annotate
 * reads like an exporter's conv weights, so the conv runs int8 when its input and output are
 * quantized. A float graph gets the float weights. */
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "ir_passes.h"

static int has_dq(const ir_graph *g) {
  for (int i = 0; i < g->n_nodes; i++)
    if (!g->nodes[i].dead && ir_node_is_op(&g->nodes[i], ONNX_OP_DEQUANTIZE_LINEAR)) return 1;
  return 0;
}

/* Kernel, strides, pads, dilations of node ni as a depthwise conv over x, or 0 when the conv
 * would not compute the pool exactly. */
static int pool_window(const ir_graph *g, int ni, int64_t *k, int64_t *s, int64_t *p, int64_t *d) {
  const ir_node *n = &g->nodes[ni];
  const ir_tensor *x = &g->tensors[n->in[0]], *y = &g->tensors[n->out[0]];
  for (int i = 0; i < 2; i++) {
    k[i] = x->dims[2 + i];
    s[i] = d[i] = 1;
    p[i] = p[i + 2] = 0;
  }
  if (ir_node_is_op(n, ONNX_OP_GLOBAL_AVERAGE_POOL)) return 1;
  /* ir_shape_pool wrote every geometry attribute explicitly */
  const ir_attr *ak = ir_attr_get(n, "kernel_shape"), *as = ir_attr_get(n, "strides"),
                *ap = ir_attr_get(n, "pads"), *ad = ir_attr_get(n, "dilations");
  if (!ak || !as || !ap || !ad || ak->n_ints != 2 || as->n_ints != 2 || ap->n_ints != 4 || ad->n_ints != 2)
    return 0;
  int padded = 0;
  for (int i = 0; i < 2; i++) {
    k[i] = ak->ints[i];
    s[i] = as->ints[i];
    d[i] = ad->ints[i];
    p[i] = ap->ints[i];
    p[i + 2] = ap->ints[i + 2];
    padded |= p[i] || p[i + 2];
    /* ceil_mode: the output must be what floor gives (no window cut at the end) */
    const int64_t span = x->dims[2 + i] + p[i] + p[i + 2] - d[i] * (k[i] - 1) - 1;
    if (span < 0 || span / s[i] + 1 != y->dims[2 + i]) return 0;
  }
  return !padded || ir_attr_int(n, "count_include_pad", 0) == 1;
}

/* A new tensor (name base + suffix, unique) of dtype dt and shape dims: a constant of nbytes
 * when data is not NULL. */
static int add_const(ir_graph *g, const char *base, const char *suffix, ir_dtype dt, int rank,
                     const int64_t *dims, const void *data, size_t nbytes) {
  size_t bl = strlen(base), sl = strlen(suffix);
  char *name = malloc(bl + sl + 1);
  if (!name) return -1;
  memcpy(name, base, bl);
  memcpy(name + bl, suffix, sl + 1);
  int t = ir_add_tensor(g, ir_find_tensor(g, name) < 0 ? name : NULL, dt);
  free(name);
  if (t < 0 || (data && ir_tensor_set_data(&g->tensors[t], data, nbytes)) ||
      ir_tensor_set_shape(&g->tensors[t], rank, dims))
    return -1;
  return t;
}

/* The [C,1,kh,kw] weights of 1/(kh*kw): float, or int8 127 dequantized at 1/(127*kh*kw). */
static int window_weights(ir_graph *g, const char *base, int64_t c, const int64_t *k, int quant) {
  const int64_t wd[4] = {c, 1, k[0], k[1]}, nw = c * k[0] * k[1];
  const float area = (float)(k[0] * k[1]);
  if (!quant) {
    float *w = malloc(sizeof(float) * (size_t)nw);
    if (!w) return -1;
    for (int64_t i = 0; i < nw; i++) w[i] = 1.0f / area;
    int t = ir_add_const_f32(g, base, "/avgpool_weight", 4, wd, w, (size_t)nw);
    free(w);
    return t;
  }
  int8_t *q = malloc((size_t)nw);
  if (!q) return -1;
  memset(q, 127, (size_t)nw);
  const float scale = 1.0f / (127.0f * area);
  const int8_t zp = 0;
  int wq = add_const(g, base, "/avgpool_weight_q", IR_I8, 4, wd, q, (size_t)nw);
  free(q);
  int ws = wq < 0 ? -1 : add_const(g, base, "/avgpool_weight_scale", IR_F32, 0, NULL, &scale, sizeof scale);
  int wz = ws < 0 ? -1 : add_const(g, base, "/avgpool_weight_zp", IR_I8, 0, NULL, &zp, 1);
  int wf = wz < 0 ? -1 : add_const(g, base, "/avgpool_weight", IR_F32, 4, wd, NULL, 0);
  if (wf < 0) return -1;
  const int in[3] = {wq, ws, wz};
  size_t nl = strlen(base);
  char *dq = malloc(nl + 16);
  if (!dq) return -1;
  memcpy(dq, base, nl);
  memcpy(dq + nl, "/avgpool_dq", 12);
  int d = ir_add_node(g, dq, "DequantizeLinear", in, 3, &wf, 1);
  free(dq);
  return d < 0 ? -1 : wf;
}

/* Node ni (an AveragePool or GlobalAveragePool) rewritten in place as the Conv; 1 done, 0 left,
 * -1 out of memory. */
static int rewrite(ir_graph *g, int ni, int quant) {
  ir_node *n = &g->nodes[ni];
  if (n->n_in < 1 || n->n_out != 1 || n->in[0] < 0) return 0;
  const ir_tensor *x = &g->tensors[n->in[0]], *y = &g->tensors[n->out[0]];
  if (x->rank != 4 || y->rank != 4 || x->data || !ir_shape_known(x) || !ir_shape_known(y)) return 0;
  int64_t k[2], s[2], p[4], d[2];
  if (!pool_window(g, ni, k, s, p, d)) return 0;
  const int64_t c = x->dims[1];
  char *base = ir_strdup(n->name && n->name[0] ? n->name : y->name);
  if (!base) return -1;
  int w = window_weights(g, base, c, k, quant);
  free(base);
  if (w < 0) return -1;
  n = &g->nodes[ni]; /* the node array may have grown */
  int *in = realloc(n->in, 2 * sizeof(int));
  char *op = ir_strdup("Conv");
  if (!in || !op) {
    if (in) n->in = in;
    free(op);
    return -1;
  }
  in[1] = w;
  n->in = in;
  n->n_in = 2;
  free(n->op_type);
  n->op_type = op;
  n->op = ONNX_OP_CONV; /* the op table's row follows the new op type */
  if (ir_set_attr_ints(g, ni, "kernel_shape", k, 2) || ir_set_attr_ints(g, ni, "strides", s, 2) ||
      ir_set_attr_ints(g, ni, "pads", p, 4) || ir_set_attr_ints(g, ni, "dilations", d, 2) ||
      ir_set_attr_int(g, ni, "group", c) || ir_set_attr_int(g, ni, "ceil_mode", 0) ||
      ir_set_attr_string(g, ni, "auto_pad", "NOTSET"))
    return -1;
  return 1;
}

yrt_status ir_avgpool_as_conv(ir_graph *g, int *n_rewritten, yrt_error *err) {
  if (n_rewritten) *n_rewritten = 0;
  if (!g) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "ir_avgpool_as_conv: NULL graph");
  const int quant = has_dq(g), n0 = g->n_nodes;
  for (int i = 0; i < n0; i++) {
    const ir_node *n = &g->nodes[i];
    if (n->dead || !(ir_node_is_op(n, ONNX_OP_AVERAGE_POOL) || ir_node_is_op(n, ONNX_OP_GLOBAL_AVERAGE_POOL)))
      continue;
    int r = rewrite(g, i, quant);
    if (r < 0) return yrt_set_error(err, YRT_ERR_NOMEM, "average pool as conv: out of memory");
    if (n_rewritten) *n_rewritten += r;
  }
  return YRT_OK;
}
