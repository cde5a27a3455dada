/* fold_batchnorm.c — Conv -> BatchNormalization becomes one Conv with scaled weights and a
 * bias (FP32 graphs; exported QDQ models already have BN folded). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "ir_passes.h"

static int const_f32(const ir_graph *g, int t, int64_t n) {
  if (t < 0) return 0;
  const ir_tensor *x = &g->tensors[t];
  return x->data && x->dtype == IR_F32 && !x->q.on && ir_numel(x) == n && x->nbytes == (size_t)n * 4;
}

static float getf(const ir_graph *g, int t, int64_t i) {
  float v;
  memcpy(&v, (const char *)g->tensors[t].data + i * 4, 4);
  return v;
}

yrt_status ir_fold_batchnorm(ir_graph *g, yrt_error *err) {
  if (!g) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "ir_fold_batchnorm: NULL graph");
  for (int bi = 0; bi < g->n_nodes; bi++) {
    ir_node *bn = &g->nodes[bi];
    if (bn->dead || !ir_node_is_op(bn, ONNX_OP_BATCH_NORMALIZATION) || bn->n_in < 5 || bn->n_out != 1) continue;
    int y = bn->in[0];
    if (y < 0) continue;
    int ci = g->tensors[y].producer;
    if (ci < 0 || g->nodes[ci].dead || !ir_node_is_op(&g->nodes[ci], ONNX_OP_CONV) ||
        g->tensors[y].is_output || ir_consumers(g, y, NULL, 0) != 1)
      continue;
    ir_node *conv = &g->nodes[ci];
    if (conv->n_in < 2 || conv->n_out != 1) continue;
    int wt = conv->in[1], bt = conv->n_in > 2 ? conv->in[2] : -1;
    const ir_tensor *w = &g->tensors[wt];
    if (!w->data || w->dtype != IR_F32 || w->q.on || w->rank < 1) continue;
    int64_t m = w->dims[0], wn = ir_numel(w);
    if (m <= 0 || wn <= 0 || w->nbytes != (size_t)wn * 4) continue;
    if (!const_f32(g, bn->in[1], m) || !const_f32(g, bn->in[2], m) || !const_f32(g, bn->in[3], m) ||
        !const_f32(g, bn->in[4], m) || (bt >= 0 && !const_f32(g, bt, m)))
      continue;
    float eps = ir_attr_float(bn, "epsilon", 1e-5f);
    float *nw = malloc((size_t)wn * 4), *nb = malloc((size_t)m * 4);
    if (!nw || !nb) {
      free(nw);
      free(nb);
      return yrt_set_error(err, YRT_ERR_NOMEM, "fold_batchnorm: out of memory");
    }
    int64_t per = wn / m;
    for (int64_t c = 0; c < m; c++) {
      float gamma = getf(g, bn->in[1], c), beta = getf(g, bn->in[2], c);
      float mean = getf(g, bn->in[3], c), var = getf(g, bn->in[4], c);
      float k = gamma / sqrtf(var + eps);
      for (int64_t i = 0; i < per; i++) nw[c * per + i] = getf(g, wt, c * per + i) * k;
      float b0 = bt >= 0 ? getf(g, bt, c) : 0.0f;
      nb[c] = (b0 - mean) * k + beta;
    }
    int64_t wdims[IR_MAX_RANK];
    int wrank = w->rank;
    memcpy(wdims, w->dims, sizeof(wdims));
    char *cname = ir_strdup(g->nodes[ci].name);
    if (!cname) { free(nw); free(nb); return yrt_set_error(err, YRT_ERR_NOMEM, "oom"); }
    int nwt = ir_add_const_f32(g, cname, "/bn_folded_weight", wrank, wdims, nw, (size_t)wn);
    int nbt = nwt < 0 ? -1 : ir_add_const_f32(g, cname, "/bn_folded_bias", 1, &m, nb, (size_t)m);
    free(cname);
    free(nw);
    free(nb);
    if (nbt < 0) return yrt_set_error(err, YRT_ERR_NOMEM, "fold_batchnorm: out of memory");
    conv = &g->nodes[ci];
    bn = &g->nodes[bi];
    if (conv->n_in < 3) {
      int *in = realloc(conv->in, sizeof(int) * 3);
      if (!in) return yrt_set_error(err, YRT_ERR_NOMEM, "fold_batchnorm: out of memory");
      conv->in = in;
      conv->n_in = 3;
    }
    conv->in[1] = nwt;
    conv->in[2] = nbt;
    /* the Conv now writes the BN output directly */
    int bn_out = bn->out[0];
    conv->out[0] = bn_out;
    g->tensors[bn_out].producer = ci;
    g->tensors[y].producer = -1;
    bn->dead = 1;
  }
  return YRT_OK;
}
