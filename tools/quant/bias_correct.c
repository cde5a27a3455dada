/* bias_correct.c — see bias_correct.h. */
#include "bias_correct.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_ops.h"

#include "file_list.h"
#include "observer.h"
#include "onnx_reader.h"
#include "onnx_write.h"

typedef struct bc_conv {
  const Onnx__NodeProto *node; /* in the QDQ model */
  const char *x;               /* its float input (behind Q/DQ) */
  int xi, yi;                  /* observed tensor index of its input and output, -1: not now */
  int level;                   /* int8 convs on the longest path from the graph input before it */
  int64_t kh, kw, sh, sw, dh, dw, pt, pl, group, cin, cout;
  double *patch;               /* [cin*kh*kw]: sum of input-patch elements over positions */
  double *ysum, *ysq;          /* [cout] */
  double *fsum;                /* [cout]: sum of the float network's output (float_reference) */
  double positions;            /* output positions summed (all images) */
} bc_conv;

static const Onnx__NodeProto *producer(const Onnx__GraphProto *g, const char *t) {
  for (size_t i = 0; i < g->n_node; i++)
    for (size_t j = 0; j < g->node[i]->n_output; j++)
      if (!strcmp(g->node[i]->output[j], t)) return g->node[i];
  return NULL;
}

static int quantized_by(const Onnx__GraphProto *g, const char *t) {
  for (size_t i = 0; i < g->n_node; i++)
    if (onnx_op_id(g->node[i]->op_type) == ONNX_OP_QUANTIZE_LINEAR && g->node[i]->n_input &&
        !strcmp(g->node[i]->input[0], t))
      return 1;
  return 0;
}

/* The float tensor behind DequantizeLinear(QuantizeLinear(x)) feeding t, or NULL. */
static const char *qdq_source(const Onnx__GraphProto *g, const char *t) {
  const Onnx__NodeProto *dq = producer(g, t);
  if (!dq || onnx_op_id(dq->op_type) != ONNX_OP_DEQUANTIZE_LINEAR || !dq->n_input) return NULL;
  const Onnx__NodeProto *q = producer(g, dq->input[0]);
  if (!q || onnx_op_id(q->op_type) != ONNX_OP_QUANTIZE_LINEAR || !q->n_input) return NULL;
  return q->input[0];
}

/* Weight input t comes from DequantizeLinear of an int8 initializer. */
static int int8_weight(const Onnx__ModelProto *m, const char *t) {
  const Onnx__NodeProto *dq = producer(m->graph, t);
  if (!dq || onnx_op_id(dq->op_type) != ONNX_OP_DEQUANTIZE_LINEAR || !dq->n_input) return 0;
  const Onnx__TensorProto *w = onnx_model_find_initializer(m, dq->input[0]);
  return w && w->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__INT8;
}

static void attr_ints(const Onnx__NodeProto *n, const char *name, int64_t *v, int count, int64_t d) {
  for (int k = 0; k < count; k++) v[k] = d;
  for (size_t i = 0; i < n->n_attribute; i++) {
    const Onnx__AttributeProto *a = n->attribute[i];
    if (strcmp(a->name, name)) continue;
    for (int k = 0; k < count && k < (int)a->n_ints; k++) v[k] = a->ints[k];
    if (a->n_ints == 0 && count == 1) v[0] = a->i;
  }
}

/* auto_pad other than NOTSET: the pads would have to be derived from the shapes; the models we
 * quantize (Ultralytics exports, the synthetic generator) write explicit pads. */
static int has_auto_pad(const Onnx__NodeProto *n) {
  for (size_t i = 0; i < n->n_attribute; i++)
    if (!strcmp(n->attribute[i]->name, "auto_pad") && n->attribute[i]->s.len &&
        strncmp((const char *)n->attribute[i]->s.data, "NOTSET", n->attribute[i]->s.len))
      return 1;
  return 0;
}

static int name_index(char **names, int *n, const char *s) {
  for (int i = 0; i < *n; i++)
    if (!strcmp(names[i], s)) return i;
  names[*n] = (char *)s;
  return (*n)++;
}

/* Weights [cout, cin/group, kh, kw] of node `name` of the float model. */
static yrt_status float_weights(const Onnx__ModelProto *m, const char *name, float **w, int64_t *dims,
                                yrt_error *err) {
  const int i = onnx_model_find_node(m, name);
  if (i < 0) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "bias correction: no Conv '%s' in the float model", name);
  const Onnx__NodeProto *n = m->graph->node[i];
  const Onnx__TensorProto *tp = n->n_input > 1 ? onnx_model_find_initializer(m, n->input[1]) : NULL;
  if (!tp) return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "bias correction: Conv '%s' has no weight initializer", name);
  ir_dtype dt;
  int rank;
  void *data;
  size_t nbytes;
  yrt_status st = onnx_tensor_decode(tp, NULL, &dt, &rank, dims, &data, &nbytes, err);
  if (st) return st;
  if (dt != IR_F32 || rank != 4) {
    free(data);
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "bias correction: Conv '%s' weights are not float 4-D", name);
  }
  *w = data;
  return YRT_OK;
}

/* Float bias of conv node `name` (zeros when it has none), cout values, malloc'ed. */
static yrt_status float_bias(const Onnx__ModelProto *m, const char *name, int64_t cout, float **b,
                             yrt_error *err) {
  const Onnx__NodeProto *n = m->graph->node[onnx_model_find_node(m, name)];
  if (n->n_input < 3 || !n->input[2][0]) {
    *b = calloc((size_t)cout, sizeof(float));
    return *b ? YRT_OK : yrt_set_error(err, YRT_ERR_NOMEM, "bias correction: out of memory");
  }
  const Onnx__TensorProto *tp = onnx_model_find_initializer(m, n->input[2]);
  if (!tp) return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "bias correction: Conv '%s' bias is not an initializer", name);
  ir_dtype dt;
  int rank;
  int64_t dims[IR_MAX_RANK];
  void *data;
  size_t nbytes;
  yrt_status st = onnx_tensor_decode(tp, NULL, &dt, &rank, dims, &data, &nbytes, err);
  if (st) return st;
  if (dt != IR_F32 || nbytes != sizeof(float) * (size_t)cout) {
    free(data);
    return yrt_set_error(err, YRT_ERR_SHAPE, "bias correction: Conv '%s' bias is not %lld floats", name,
                         (long long)cout);
  }
  *b = data;
  return YRT_OK;
}

/* Accumulate one image's input-patch sums and output sums of conv c. */
static yrt_status accumulate(bc_conv *c, const yrt_tensor_view *x, const yrt_tensor_view *y,
                             yrt_error *err) {
  if (x->rank != 4 || y->rank != 4 || x->dims[1] != c->cin || y->dims[1] != c->cout || x->dims[0] != 1)
    return yrt_set_error(err, YRT_ERR_SHAPE, "bias correction: Conv '%s' observed with unexpected shapes",
                         c->node->name);
  const int64_t H = x->dims[2], W = x->dims[3], Ho = y->dims[2], Wo = y->dims[3];
  for (int64_t ci = 0; ci < c->cin; ci++) {
    const float *xc = x->data + ci * H * W;
    for (int64_t ky = 0; ky < c->kh; ky++) {
      /* output rows whose tap ky lands inside the image: 0 <= oy*sh - pt + ky*dh < H */
      const int64_t off_y = ky * c->dh - c->pt;
      int64_t y0 = off_y >= 0 ? 0 : (-off_y + c->sh - 1) / c->sh;
      int64_t y1 = H - 1 - off_y < 0 ? -1 : (H - 1 - off_y) / c->sh;
      if (y1 > Ho - 1) y1 = Ho - 1;
      for (int64_t kx = 0; kx < c->kw; kx++) {
        const int64_t off_x = kx * c->dw - c->pl;
        int64_t x0 = off_x >= 0 ? 0 : (-off_x + c->sw - 1) / c->sw;
        int64_t x1 = W - 1 - off_x < 0 ? -1 : (W - 1 - off_x) / c->sw;
        if (x1 > Wo - 1) x1 = Wo - 1;
        double s = 0;
        for (int64_t oy = y0; oy <= y1; oy++) {
          const float *row = xc + (oy * c->sh + off_y) * W + off_x;
          float rs = 0;
          for (int64_t ox = x0; ox <= x1; ox++) rs += row[ox * c->sw];
          s += rs;
        }
        c->patch[(ci * c->kh + ky) * c->kw + kx] += s;
      }
    }
  }
  const int64_t hw = Ho * Wo;
  for (int64_t co = 0; co < c->cout; co++) {
    const float *yc = y->data + co * hw;
    double s = 0, q = 0;
    for (int64_t i = 0; i < hw; i++) {
      s += yc[i];
      q += (double)yc[i] * yc[i];
    }
    c->ysum[co] += s;
    c->ysq[co] += q;
  }
  c->positions += (double)hw;
  return YRT_OK;
}

/* Write bias b (float, cout values) into the int32 initializer behind conv n's bias
 * DequantizeLinear in the QDQ model, on the same scales (s_x * s_w[c]). */
static yrt_status requantize_bias(Onnx__ModelProto *qdq, const Onnx__NodeProto *n, int64_t cout,
                                  const float *b, yrt_error *err) {
  const Onnx__NodeProto *dq = producer(qdq->graph, n->input[2]);
  const Onnx__TensorProto *ts = dq && dq->n_input >= 2 ? onnx_model_find_initializer(qdq, dq->input[1]) : NULL;
  if (!ts) return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "bias correction: Conv '%s' bias has no scale", n->name);
  ir_dtype dt;
  int rank;
  int64_t dims[IR_MAX_RANK];
  void *sc = NULL;
  size_t ns = 0;
  yrt_status st = onnx_tensor_decode(ts, NULL, &dt, &rank, dims, &sc, &ns, err);
  if (!st && (dt != IR_F32 || ns != sizeof(float) * (size_t)cout))
    st = yrt_set_error(err, YRT_ERR_UNSUPPORTED, "bias correction: Conv '%s' bias scale is not per channel", n->name);
  int32_t *q = st ? NULL : malloc(sizeof(int32_t) * (size_t)cout);
  if (!st && !q) st = yrt_set_error(err, YRT_ERR_NOMEM, "bias correction: out of memory");
  for (int64_t c = 0; !st && c < cout; c++) {
    const double v = nearbyint((double)b[c] / ((float *)sc)[c]);
    q[c] = (int32_t)(v < -2147483647.0 ? -2147483647.0 : (v > 2147483647.0 ? 2147483647.0 : v));
  }
  char name[600];
  if (!st) {
    snprintf(name, sizeof name, "%s", dq->input[0]);
    int64_t d[1] = {cout};
    if (onnx_model_remove_initializer(qdq, name) || onnx_model_add_initializer(qdq, name, IR_I32, 1, d, q))
      st = yrt_set_error(err, YRT_ERR_NOMEM, "bias correction: cannot rewrite '%s'", name);
  }
  free(sc);
  free(q);
  return st;
}

/* Values behind DequantizeLinear(initializer) producing t in the QDQ model: count floats. */
static yrt_status dequantized(const Onnx__ModelProto *qdq, const char *t, size_t count, float **out,
                              yrt_error *err) {
  const Onnx__NodeProto *dq = producer(qdq->graph, t);
  if (!dq || onnx_op_id(dq->op_type) != ONNX_OP_DEQUANTIZE_LINEAR || dq->n_input < 2)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "bias correction: '%s' is not dequantized", t);
  void *q = NULL, *sc = NULL, *zp = NULL;
  ir_dtype dq_t = IR_I8, ds_t = IR_F32, dz_t = IR_I8; /* read below even when a decode failed */
  int rank;
  int64_t dims[IR_MAX_RANK];
  size_t nq = 0, ns = 0, nz = 0;
  const Onnx__TensorProto *tq = onnx_model_find_initializer(qdq, dq->input[0]);
  const Onnx__TensorProto *ts = onnx_model_find_initializer(qdq, dq->input[1]);
  const Onnx__TensorProto *tz = dq->n_input > 2 ? onnx_model_find_initializer(qdq, dq->input[2]) : NULL;
  yrt_status st = (!tq || !ts) ? yrt_set_error(err, YRT_ERR_UNSUPPORTED, "bias correction: '%s' has no constant quantized form", t) : YRT_OK;
  if (!st) st = onnx_tensor_decode(tq, NULL, &dq_t, &rank, dims, &q, &nq, err);
  if (!st) st = onnx_tensor_decode(ts, NULL, &ds_t, &rank, dims, &sc, &ns, err);
  if (!st && tz) st = onnx_tensor_decode(tz, NULL, &dz_t, &rank, dims, &zp, &nz, err);
  const size_t per_q = dq_t == IR_I32 ? 4 : 1, nch = ns / sizeof(float);
  if (!st && (ds_t != IR_F32 || (dq_t != IR_I8 && dq_t != IR_I32) || nq / per_q != count || nch == 0 ||
              count % nch || (zp && (dz_t != dq_t || nz / per_q != nch))))
    st = yrt_set_error(err, YRT_ERR_UNSUPPORTED, "bias correction: unexpected quantized form of '%s'", t);
  float *v = st ? NULL : malloc(sizeof(float) * (count ? count : 1));
  if (!st && !v) st = yrt_set_error(err, YRT_ERR_NOMEM, "bias correction: out of memory");
  for (size_t i = 0; !st && i < count; i++) {
    const size_t c = i / (count / nch); /* axis 0 */
    const double qi = dq_t == IR_I32 ? ((int32_t *)q)[i] : ((int8_t *)q)[i];
    const double zi = !zp ? 0 : dq_t == IR_I32 ? ((int32_t *)zp)[c] : ((int8_t *)zp)[c];
    v[i] = (float)((qi - zi) * ((float *)sc)[c]);
  }
  free(q);
  free(sc);
  free(zp);
  *out = v;
  return st;
}

/* Shift of every channel of conv c against the reference float model; moves it into the
 * conv's int32 bias in qdq. mean_q: the int8 conv's accumulator (dequantized weights and bias on the same input
 * means) or, with observed_output, its observed int8 output (adds output rounding/clipping). */
static yrt_status correct_conv(bc_conv *c, Onnx__ModelProto *qdq, const Onnx__ModelProto *ref,
                               const bias_correct_options *o,
                               double *sum_rel, int *n_rel, yrt_error *err) {
  float *w = NULL, *b = NULL, *wq = NULL, *bq = NULL;
  int64_t dims[IR_MAX_RANK];
  yrt_status st = float_weights(ref, c->node->name, &w, dims, err);
  if (!st && (dims[0] != c->cout || dims[1] * c->group != c->cin || dims[2] != c->kh || dims[3] != c->kw))
    st = yrt_set_error(err, YRT_ERR_SHAPE, "bias correction: Conv '%s' weights do not match its input",
                       c->node->name);
  const size_t nw = (size_t)(dims[0] * dims[1] * dims[2] * dims[3]);
  if (!st) st = float_bias(ref, c->node->name, c->cout, &b, err);
  if (!st) st = dequantized(qdq, c->node->input[1], nw, &wq, err);
  if (!st) st = dequantized(qdq, c->node->input[2], (size_t)c->cout, &bq, err);
  double s2 = 0, v2 = 0;
  if (!st && c->positions > 0) {
    const int64_t cin_g = dims[1], cout_g = c->cout / c->group, kk = c->kh * c->kw;
    for (int64_t co = 0; co < c->cout; co++) {
      const int64_t g = co / cout_g;
      const float *wc = w + co * cin_g * kk, *wqc = wq + co * cin_g * kk;
      const double *pc = c->patch + g * cin_g * kk;
      double dot = 0, dotq = 0;
      for (int64_t k = 0; k < cin_g * kk; k++) {
        dot += (double)wc[k] * pc[k];
        dotq += (double)wqc[k] * pc[k];
      }
      const double mean_f = o->float_reference ? c->fsum[co] / c->positions : b[co] + dot / c->positions;
      const double mean_y = c->ysum[co] / c->positions;
      const double mean_q = o->observed_output ? mean_y : bq[co] + dotq / c->positions;
      const double shift = mean_q - mean_f;
      const double var = c->ysq[co] / c->positions - mean_y * mean_y;
      s2 += shift * shift;
      v2 += var > 0 ? var : 0;
      bq[co] = (float)(bq[co] - shift);
    }
    if (v2 > 0) {
      *sum_rel += sqrt(s2 / v2);
      (*n_rel)++;
    }
    st = requantize_bias(qdq, c->node, c->cout, bq, err);
  }
  free(w);
  free(b);
  free(wq);
  free(bq);
  return st;
}

/* Mean output of every conv in the float network ref over the images (fsum). */
static yrt_status float_means(const Onnx__ModelProto *ref, bc_conv *cv, int nc, char **ynames,
                              const file_list *files, int total, const bias_correct_options *o,
                              yrt_error *err) {
  observer fob;
  yrt_status st = observer_open(&fob, ref, ynames, nc, NULL, o->threads, err);
  if (st) return st;
  const double t0 = progress_clock();
  for (int i = 0; !st && i < total; i++) {
    st = observer_run_image(&fob, files->paths[i], err);
    for (int k = 0; !st && k < nc; k++) {
      yrt_tensor_view f;
      st = observer_get(&fob, k, &f, err);
      if (!st && (f.rank != 4 || f.dims[1] != cv[k].cout))
        st = yrt_set_error(err, YRT_ERR_SHAPE, "bias correction: float output of Conv '%s' has an unexpected shape",
                           cv[k].node->name);
      const size_t hw = st ? 0 : f.count / (size_t)cv[k].cout;
      for (int64_t co = 0; !st && co < cv[k].cout; co++) {
        double sum = 0;
        for (size_t e = 0; e < hw; e++) sum += f.data[(size_t)co * hw + e];
        cv[k].fsum[co] += sum;
      }
    }
    if (!o->quiet) progress_bar(i + 1, total, "bias correction (float)", t0);
  }
  observer_close(&fob);
  return st;
}

/* level of each conv: the number of convs (of cv) on the longest path before it. */
static yrt_status conv_levels(const Onnx__GraphProto *g, bc_conv *cv, int nc, int *max_level,
                              yrt_error *err) {
  size_t cap = 0;
  for (size_t i = 0; i < g->n_node; i++) cap += g->node[i]->n_output;
  const char **tn = malloc(sizeof(char *) * (cap + 1));
  int *tl = malloc(sizeof(int) * (cap + 1));
  if (!tn || !tl) {
    free(tn);
    free(tl);
    return yrt_set_error(err, YRT_ERR_NOMEM, "bias correction: out of memory");
  }
  size_t nt = 0;
  *max_level = 0;
  for (size_t i = 0; i < g->n_node; i++) { /* ONNX nodes are in topological order */
    const Onnx__NodeProto *n = g->node[i];
    int lv = 0;
    for (size_t j = 0; j < n->n_input; j++)
      for (size_t t = 0; t < nt; t++)
        if (tl[t] > lv && !strcmp(tn[t], n->input[j])) lv = tl[t];
    int out = lv;
    for (int k = 0; k < nc; k++)
      if (cv[k].node == n) {
        cv[k].level = lv;
        if (lv > *max_level) *max_level = lv;
        out = lv + 1;
      }
    for (size_t j = 0; j < n->n_output; j++) {
      tn[nt] = n->output[j];
      tl[nt++] = out;
    }
  }
  free(tn);
  free(tl);
  return YRT_OK;
}

yrt_status bias_correct_apply(Onnx__ModelProto *qdq, const Onnx__ModelProto *ref,
                              const bias_correct_options *o,
                              bias_correct_stats *stats, yrt_error *err) {
  memset(stats, 0, sizeof *stats);
  const Onnx__GraphProto *g = qdq->graph;
  bc_conv *cv = calloc(g->n_node + 1, sizeof(bc_conv));
  char **names = calloc(2 * g->n_node + 1, sizeof(char *));
  char **ynames = calloc(g->n_node + 1, sizeof(char *));
  yrt_status st = (!cv || !names || !ynames) ? yrt_set_error(err, YRT_ERR_NOMEM, "bias correction: out of memory") : YRT_OK;
  int nc = 0;
  for (size_t i = 0; !st && i < g->n_node; i++) {
    const Onnx__NodeProto *n = g->node[i];
    if (onnx_op_id(n->op_type) != ONNX_OP_CONV || n->n_input < 2 || n->n_output != 1 || !n->name || !n->name[0]) continue;
    const char *x = qdq_source(g, n->input[0]);
    if (!x || !int8_weight(qdq, n->input[1]) || !quantized_by(g, n->output[0])) continue;
    /* a conv without bias would need a new int32 initializer: qdq_write gives every int8 conv
     * of a BN-folded model one, so those are left alone */
    if (n->n_input < 3 || !n->input[2][0] || has_auto_pad(n) || onnx_model_find_node(ref, n->name) < 0) {
      stats->skipped++;
      continue;
    }
    bc_conv *c = &cv[nc];
    c->node = n;
    int64_t v[4];
    attr_ints(n, "strides", v, 2, 1);
    c->sh = v[0], c->sw = v[1];
    attr_ints(n, "dilations", v, 2, 1);
    c->dh = v[0], c->dw = v[1];
    attr_ints(n, "pads", v, 4, 0);
    c->pt = v[0], c->pl = v[1];
    attr_ints(n, "group", v, 1, 1);
    c->group = v[0] > 0 ? v[0] : 1;
    float *w = NULL;
    int64_t dims[IR_MAX_RANK];
    st = float_weights(ref, n->name, &w, dims, err);
    free(w);
    if (st) break;
    c->cout = dims[0], c->kh = dims[2], c->kw = dims[3], c->cin = dims[1] * c->group;
    c->patch = calloc((size_t)(c->cin * c->kh * c->kw) + 1, sizeof(double));
    c->ysum = calloc((size_t)c->cout + 1, sizeof(double));
    c->ysq = calloc((size_t)c->cout + 1, sizeof(double));
    c->fsum = calloc((size_t)c->cout + 1, sizeof(double));
    if (!c->patch || !c->ysum || !c->ysq || !c->fsum) st = yrt_set_error(err, YRT_ERR_NOMEM, "bias correction: out of memory");
    nc++;
    c->x = x;
    ynames[nc - 1] = n->output[0];
  }
  file_list files = {NULL, 0};
  if (!st && nc == 0) st = yrt_set_error(err, YRT_ERR_INVALID_ARG, "bias correction: the model has no int8 Conv");
  if (!st) st = file_list_images(o->images, &files, err);
  int total = files.n;
  if (o->max_images > 0 && o->max_images < total) total = o->max_images;
  if (!st && o->float_reference) st = float_means(ref, cv, nc, ynames, &files, total, o, err);
  int levels = 0;
  if (!st) st = conv_levels(g, cv, nc, &levels, err);
  /* local shifts do not depend on upstream corrections (to first order): one wave. Against the
   * float network, a conv's shift includes what its inputs inherit, so the convs are corrected
   * a few levels at a time, each wave measured after the upstream ones were corrected. */
  const int per_wave = o->float_reference && o->wave_levels > 0 ? o->wave_levels : levels + 1;
  double sum_rel = 0;
  int n_rel = 0;
  for (int w0 = 0; !st && w0 <= levels; w0 += per_wave) {
    int nn = 0;
    for (int k = 0; k < nc; k++) {
      cv[k].xi = cv[k].yi = -1;
      if (cv[k].level < w0 || cv[k].level >= w0 + per_wave) continue;
      cv[k].xi = name_index(names, &nn, cv[k].x);
      cv[k].yi = name_index(names, &nn, cv[k].node->output[0]);
    }
    if (nn == 0) continue;
    observer ob;
    st = observer_open(&ob, qdq, names, nn, NULL, o->threads, err);
    if (st) break;
    const double t0 = progress_clock();
    for (int i = 0; !st && i < total; i++) {
      st = observer_run_image(&ob, files.paths[i], err);
      for (int k = 0; !st && k < nc; k++) {
        if (cv[k].xi < 0) continue;
        yrt_tensor_view x, y;
        st = observer_get(&ob, cv[k].xi, &x, err);
        if (!st) st = observer_get(&ob, cv[k].yi, &y, err);
        if (!st) st = accumulate(&cv[k], &x, &y, err);
      }
      stats->images = i + 1;
      if (!o->quiet) progress_bar(i + 1, total, "bias correction", t0);
    }
    observer_close(&ob);
    for (int k = 0; !st && k < nc; k++)
      if (cv[k].xi >= 0) st = correct_conv(&cv[k], qdq, ref, o, &sum_rel, &n_rel, err);
    stats->waves++;
  }
  file_list_free(&files);
  if (!st) {
    stats->convs = nc;
    stats->mean_abs_shift = n_rel ? sum_rel / n_rel : 0.0;
  }
  for (int k = 0; cv && k < nc; k++) {
    free(cv[k].patch);
    free(cv[k].ysum);
    free(cv[k].ysq);
    free(cv[k].fsum);
  }
  free(cv);
  free(names);
  free(ynames);
  return st;
}
