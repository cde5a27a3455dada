/* head_verify.c — numeric proof that a candidate detect_decode computes what the graph's head
 * subgraph computes (see fuse_detect_head.h, lw_head_verify). The subgraph is copied into a graph
 * of its own (inputs = the per-scale logits, output = the head output, every tensor float: the
 * QDQ graph's activation quantization is dropped, constants keep their dequantized values),
 * lowered by the lowering the converter passes in (lw_head_lower_fn: this pass never calls up
 * into the converter) and run by the runtime on deterministic random logits;
 * the result is compared with the decode's definition computed here in double precision. So
 * whatever ops an export uses, the head is fused only when it decodes boxes and scores exactly as
 * detect_decode does. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuse_detect_head.h"
#include "yolort.h"

/* Deterministic probe values (xorshift), uniform in [lo, hi). */
static float probe(uint32_t *s, float lo, float hi) {
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return lo + (hi - lo) * (float)(*s >> 8) / 16777216.0f;
}

/* Copy tensor t of g into sub (once; map[t] remembers it). Constants keep their float data,
 * quantization annotations are dropped. -1 on allocation failure. */
static int copy_tensor(ir_graph *sub, const ir_graph *g, int t, int *map) {
  if (t < 0) return -1;
  if (map[t] >= 0) return map[t];
  const ir_tensor *src = &g->tensors[t];
  const int k = ir_add_tensor(sub, src->name, src->dtype);
  if (k < 0 || ir_tensor_set_shape(&sub->tensors[k], src->rank, src->dims)) return -1;
  if (src->data && ir_tensor_set_data(&sub->tensors[k], src->data, src->nbytes)) return -1;
  map[t] = k;
  return k;
}

/* The head subgraph as a graph of its own: inputs h->in[], nodes h->nodes[], output h->y. */
static ir_graph *extract(const ir_graph *g, const lw_head *h) {
  ir_graph *sub = ir_graph_new();
  int *map = malloc(sizeof(int) * (size_t)(g->n_tensors > 0 ? g->n_tensors : 1));
  if (!sub || !map) goto fail;
  for (int i = 0; i < g->n_tensors; i++) map[i] = -1;
  sub->opset = g->opset;
  for (int i = 0; i < h->n_in; i++) {
    const int k = copy_tensor(sub, g, h->in[i], map);
    if (k < 0 || ir_graph_add_input(sub, k)) goto fail;
  }
  for (int i = 0; i < h->n_nodes; i++) {
    const ir_node *n = &g->nodes[h->nodes[i]];
    int in[16], out[16];
    if (n->n_in > 16 || n->n_out > 16) goto fail;
    for (int j = 0; j < n->n_in; j++)
      if ((in[j] = n->in[j] < 0 ? -1 : copy_tensor(sub, g, n->in[j], map)) < 0 && n->in[j] >= 0) goto fail;
    for (int j = 0; j < n->n_out; j++)
      if ((out[j] = n->out[j] < 0 ? -1 : copy_tensor(sub, g, n->out[j], map)) < 0 && n->out[j] >= 0) goto fail;
    const int k = ir_add_node(sub, n->name, n->op_type, in, n->n_in, out, n->n_out);
    if (k < 0) goto fail;
    free(sub->nodes[k].domain);
    if (!(sub->nodes[k].domain = ir_strdup(n->domain))) goto fail;
    for (int a = 0; a < n->n_attrs; a++) {
      const ir_attr *at = &n->attrs[a];
      int bad = 0;
      switch (at->type) {
        case IR_ATTR_INT: bad = ir_set_attr_int(sub, k, at->name, at->i); break;
        case IR_ATTR_FLOAT: bad = ir_set_attr_float(sub, k, at->name, at->f); break;
        case IR_ATTR_STRING: bad = ir_set_attr_string(sub, k, at->name, at->s); break;
        case IR_ATTR_INTS: bad = ir_set_attr_ints(sub, k, at->name, at->ints, at->n_ints); break;
        case IR_ATTR_FLOATS: bad = ir_set_attr_floats(sub, k, at->name, at->floats, at->n_floats); break;
        case IR_ATTR_TENSOR: {
          const int tt = copy_tensor(sub, g, at->tensor, map);
          bad = tt < 0 || ir_set_attr_tensor(sub, k, at->name, tt);
          break;
        }
      }
      if (bad) goto fail;
    }
  }
  if (map[h->y] < 0 || ir_graph_add_output(sub, map[h->y])) goto fail;
  for (int k = 0; k < h->n_y_more; k++)
    if (map[h->y_more[k]] < 0 || ir_graph_add_output(sub, map[h->y_more[k]])) goto fail;
  free(map);
  return sub;
fail:
  free(map);
  ir_graph_free(sub);
  return NULL;
}

/* The decode's definition (double precision): out [4 + nc + extra][n]. */
static void reference(const lw_head *h, float *const *in_data, double *out) {
  const int64_t n = h->n, rows = 4 + h->nc + h->n_extra_ch;
  int64_t first = 0;
  for (int s = 0; s < h->ns; s++) {
    const float *box = in_data[h->box[s]], *cls = in_data[h->cls[s]];
    const int64_t hw = h->h[s] * h->w[s];
    for (int64_t i = 0; i < hw; i++) {
      const int64_t a = first + i;
      double d[4];
      for (int k = 0; k < 4; k++) {
        if (h->reg == 1) { /* no DFL: the conv writes the distances */
          d[k] = box[(int64_t)k * hw + i];
          continue;
        }
        double mx = -INFINITY, se = 0, sp = 0;
        for (int j = 0; j < h->reg; j++) mx = fmax(mx, box[(int64_t)(k * h->reg + j) * hw + i]);
        for (int j = 0; j < h->reg; j++) {
          const double e = exp(box[(int64_t)(k * h->reg + j) * hw + i] - mx);
          se += e;
          sp += e * h->proj[j];
        }
        d[k] = sp / se;
      }
      const double ax = (double)(i % h->w[s]) + 0.5, ay = (double)(i / h->w[s]) + 0.5, st = (double)h->stride[s];
      const double x1 = ax - d[0], y1 = ay - d[1], x2 = ax + d[2], y2 = ay + d[3];
      if (h->obb) { /* Ultralytics dist2rbox: the half difference turned by the angle, then the anchor */
        const double t = lw_obb_angle(in_data[h->extra[0][s]][i], h->obb == 2), xf = (d[2] - d[0]) / 2, yf = (d[3] - d[1]) / 2;
        out[0 * n + a] = (xf * cos(t) - yf * sin(t) + ax) * st, out[1 * n + a] = (xf * sin(t) + yf * cos(t) + ay) * st;
        out[2 * n + a] = (d[0] + d[2]) * st, out[3 * n + a] = (d[1] + d[3]) * st;
        out[(4 + h->nc) * n + a] = t;
      } else if (h->xyxy) {
        out[0 * n + a] = x1 * st, out[1 * n + a] = y1 * st, out[2 * n + a] = x2 * st, out[3 * n + a] = y2 * st;
      } else {
        out[0 * n + a] = (x1 + x2) / 2 * st, out[1 * n + a] = (y1 + y2) / 2 * st;
        out[2 * n + a] = (x2 - x1) * st, out[3 * n + a] = (y2 - y1) * st;
      }
      for (int c = 0; c < h->nc; c++) out[(4 + c) * n + a] = 1.0 / (1.0 + exp(-(double)cls[(int64_t)c * hw + i]));
      int64_t row = 4 + h->nc;
      for (int e = 0; e < h->n_extra && !h->obb; e++) {
        const float *x = in_data[h->extra[e][s]];
        for (int64_t c = 0; c < h->extra_ch[e]; c++, row++) out[row * n + a] = x[c * hw + i];
      }
    }
    first += hw;
  }
  (void)rows;
}

/* ---- the subgraph, converted once, run on given logits */

void lw_head_runner_close(lw_head_runner *r) {
  free(r->cat);
  yrt_session_free(r->sess);
  yrt_model_free(r->model);
  free(r->buf);
  memset(r, 0, sizeof *r);
}

yrt_status lw_head_runner_open(const ir_graph *g, lw_head_lower_fn lower, const lw_head *h, lw_head_runner *r,
                               int *ok, char *why, size_t why_cap, yrt_error *err) {
  memset(r, 0, sizeof *r);
  *ok = 0;
  ir_graph *sub = extract(g, h);
  if (!sub) return yrt_set_error(err, YRT_ERR_NOMEM, "fuse head: out of memory");
  size_t size = 0;
  yrt_error e;
  const yrt_session_options one = {.num_threads = 1}; /* a check of a few nodes: no thread pool */
  if (lower(sub, &r->buf, &size, &e) != YRT_OK ||
      yrt_model_load_memory(r->buf, size, 0, &r->model, &e) != YRT_OK ||
      yrt_session_create(r->model, &one, &r->sess, &e) != YRT_OK) {
    snprintf(why, why_cap, "the head subgraph does not run on its own (%s)", e.msg);
    lw_head_runner_close(r);
  } else {
    *ok = 1;
  }
  ir_graph_free(sub);
  return YRT_OK;
}

int lw_head_runner_run(lw_head_runner *r, const ir_graph *g, const lw_head *h, float *const *in_data,
                       const float **out, size_t *count, char *why, size_t why_cap) {
  yrt_error e;
  for (int i = 0; i < h->n_in; i++)
    if (yrt_session_set_input(r->sess, i, in_data[i], (size_t)ir_numel(&g->tensors[h->in[i]]), &e) != YRT_OK) {
      snprintf(why, why_cap, "head probe input: %s", e.msg);
      return -1;
    }
  yrt_tensor_view v;
  if (yrt_session_run(r->sess, &e) != YRT_OK || yrt_session_output(r->sess, 0, &v, &e) != YRT_OK) {
    snprintf(why, why_cap, "head probe run: %s", e.msg);
    return -1;
  }
  *out = v.data;
  *count = v.count;
  if (!h->n_y_more) return 0;
  size_t total = 0;
  for (int k = 0; k <= h->n_y_more; k++) total += (size_t)ir_numel(&g->tensors[k ? h->y_more[k - 1] : h->y]);
  if (total != r->cat_count) {
    free(r->cat);
    r->cat_count = 0;
    if (!(r->cat = malloc(sizeof(float) * (total ? total : 1)))) {
      snprintf(why, why_cap, "head probe: out of memory");
      return -1;
    }
    r->cat_count = total;
  }
  size_t at = 0;
  for (int k = 0; k <= h->n_y_more; k++) {
    if (yrt_session_output(r->sess, k, &v, &e) != YRT_OK || at + v.count > total) {
      snprintf(why, why_cap, "head probe output %d: %s", k, e.msg);
      return -1;
    }
    memcpy(r->cat + at, v.data, sizeof(float) * v.count);
    at += v.count;
  }
  *out = r->cat;
  *count = at;
  return 0;
}

float lw_head_probe(uint32_t *s, float lo, float hi) { return probe(s, lo, hi); }

double lw_obb_angle(double v, int raw) { return raw ? v : (1.0 / (1.0 + exp(-v)) - 0.25) * 3.14159265358979323846; }

int lw_head_note(char *note, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(note, cap, fmt, ap);
  va_end(ap);
  return -1;
}

yrt_status lw_head_verify(const ir_graph *g, lw_head_lower_fn lower, lw_head *h, int *ok, char *why, size_t why_cap,
                          yrt_error *err) {
  *ok = 0;
  lw_head_runner r;
  int opened = 0;
  yrt_status st = lw_head_runner_open(g, lower, h, &r, &opened, why, why_cap, err);
  if (st != YRT_OK || !opened) return st;
  float *in_data[LW_HEAD_MAX_IN] = {0};
  double *ref = NULL;
  uint32_t seed = 0x9E3779B9u;
  for (int i = 0; i < h->n_in; i++) {
    const ir_tensor *t = &g->tensors[h->in[i]];
    const size_t cnt = (size_t)ir_numel(t);
    if (!(in_data[i] = malloc(sizeof(float) * cnt))) goto nomem;
    /* Box logits span a DFL's useful range (peaked and flat bins), distances without DFL stay
     * inside a few cells; class logits cover both tails of the sigmoid. */
    int is_box = 0;
    for (int s = 0; s < h->ns; s++) is_box |= h->box[s] == i;
    for (size_t k = 0; k < cnt; k++)
      in_data[i][k] = is_box ? (h->reg == 1 ? probe(&seed, 0.0f, 6.0f) : probe(&seed, -6.0f, 6.0f)) : probe(&seed, -8.0f, 8.0f);
  }
  const float *outp;
  size_t count;
  if (lw_head_runner_run(&r, g, h, in_data, &outp, &count, why, why_cap)) goto done;
  const int64_t rows = 4 + h->nc + h->n_extra_ch;
  if (count != (size_t)(rows * h->n)) {
    snprintf(why, why_cap, "head output has %zu values, the decode makes %lld", count, (long long)(rows * h->n));
    goto done;
  }
  if (!(ref = malloc(sizeof(double) * (size_t)(rows * h->n)))) goto nomem;
  reference(h, in_data, ref);
  /* Tolerance: float rounding, plus what the export's own quantized constants (anchors, strides
   * of a QDQ head: h->q_abs in grid cells, h->q_rel relative) move a box. */
  double worst_box = 0, worst_score = 0;
  int64_t first = 0;
  for (int s = 0; s < h->ns; s++) {
    const int64_t hw = h->h[s] * h->w[s];
    for (int64_t r = 0; r < rows; r++)
      for (int64_t i = first; i < first + hw; i++) {
        const double want = ref[r * h->n + i], got = outp[r * h->n + i], dev = fabs(got - want);
        double tol = 1e-3 * (1 + fabs(want));
        if (r < 4) tol += 2 * h->q_abs * (double)h->stride[s] + 2 * h->q_rel * fabs(want);
        if (!(dev <= tol)) {
          snprintf(why, why_cap, "computes something else: row %lld anchor %lld is %g, a %s decode gives %g",
                   (long long)r, (long long)i, got, h->obb ? "rotated (OBB)" : h->xyxy ? "xyxy" : "xywh", want);
          goto done;
        }
        if (r < 4) worst_box = fmax(worst_box, dev);
        else worst_score = fmax(worst_score, dev);
      }
    first += hw;
  }
  h->max_box_dev = worst_box;
  h->max_score_dev = worst_score;
  *ok = 1;
  goto done;
nomem:
  st = yrt_set_error(err, YRT_ERR_NOMEM, "fuse detect head: out of memory");
done:
  free(ref);
  for (int i = 0; i < LW_HEAD_MAX_IN; i++) free(in_data[i]);
  lw_head_runner_close(&r);
  return st;
}
