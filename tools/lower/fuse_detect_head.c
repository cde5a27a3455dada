/* fuse_detect_head.c — recognise the Ultralytics Detect head's decode in the IR and replace it by
 * one DetectDecode node (see fuse_detect_head.h). The match walks back from the graph output
 * through every op of the export (Concat, Sigmoid, Concat, Reshape for the scores; Mul, Concat,
 * Div, Sub, Add, Sub, Add, Slice, Reshape, Conv, Transpose, Softmax, Transpose, Reshape, Concat,
 * Reshape for the boxes), requires each intermediate tensor to be read only inside the pattern,
 * and compares every constant with what the op computes by itself. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuse_detect_head.h"

#define MAX_SCALES 3   /* 2 * scales + 1 inputs in a yrt node's 8 slots */
#define MAX_REG 64
#define MAX_DEAD 64

typedef struct mt {
  ir_graph *g;
  char *note;
  size_t cap;
  int dead[MAX_DEAD];
  int n_dead;
  double anchor_dev, stride_dev, proj_dev; /* largest deviation of a quantized constant */
} mt;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int fail(mt *m, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m->note, m->cap, fmt, ap);
  va_end(ap);
  return -1;
}

static const ir_tensor *T(const mt *m, int t) { return &m->g->tensors[t]; }

static int producer(const ir_graph *g, int t) {
  if (t < 0) return -1;
  for (int i = 0; i < g->n_nodes; i++) {
    const ir_node *n = &g->nodes[i];
    if (n->dead) continue;
    for (int j = 0; j < n->n_out; j++)
      if (n->out[j] == t) return i;
  }
  return -1;
}

/* The node of type op that makes t, where t is read by exactly `uses` nodes and is no graph
 * output; the node joins the set to remove. -1 (note set) otherwise. */
static int take(mt *m, int t, const char *op, int uses) {
  ir_graph *g = m->g;
  if (t < 0) return fail(m, "missing input where a %s was expected", op);
  const int p = producer(g, t);
  if (p < 0 || !ir_node_is(&g->nodes[p], op) || g->nodes[p].n_out != 1)
    return fail(m, "'%s' is not the output of a %s", T(m, t)->name, op);
  /* Operand counts the walk relies on (hostile graphs): binary ops 2, the rest >= 1, none omitted. */
  const ir_node *n = &g->nodes[p];
  const int binary = !strcmp(op, "Add") || !strcmp(op, "Sub") || !strcmp(op, "Mul") || !strcmp(op, "Div");
  if (n->n_in < 1 || (binary && n->n_in != 2)) return fail(m, "%s '%s' has %d inputs", op, n->name, n->n_in);
  for (int j = 0; j < n->n_in; j++)
    if (n->in[j] < 0 && !(j == 2 && !strcmp(op, "Conv"))) return fail(m, "%s '%s' lacks input %d", op, n->name, j);
  if (T(m, t)->is_output || ir_consumers(g, t, NULL, 0) != uses)
    return fail(m, "'%s' is read outside the head pattern", T(m, t)->name);
  if (m->n_dead >= MAX_DEAD) return fail(m, "pattern larger than %d nodes", MAX_DEAD);
  for (int k = 0; k < m->n_dead; k++)
    if (m->dead[k] == p) return p;
  m->dead[m->n_dead++] = p;
  return p;
}

static int dims_are(const ir_tensor *t, int rank, const int64_t *d) {
  if (t->rank != rank) return 0;
  for (int k = 0; k < rank; k++)
    if (t->dims[k] != d[k]) return 0;
  return 1;
}

static int is_act(const ir_tensor *t) { return !t->data; }
static int is_const(const ir_tensor *t) { return t->data != NULL; }

/* How far a constant may be from the exact value: float noise, plus half a quantization step
 * when the QDQ graph quantized it (its data is then the dequantized value). */
static double tolerance(const ir_tensor *t, double v) {
  double tol = 1e-5 * (fabs(v) > 1 ? fabs(v) : 1);
  if (t->q.on) {
    double s = t->q.scale;
    for (int k = 0; k < t->q.n_scales && t->q.scales; k++) s = t->q.scales[k] > s ? t->q.scales[k] : s;
    tol += s / 2;
  }
  return tol;
}

/* A constant broadcast against [1, rows, n]: numel rows*n, last dim n, second last rows when
 * rows > 1, every other dim 1. */
static int const_rows(const ir_tensor *t, int64_t rows, int64_t n) {
  if (!is_const(t) || t->rank < 1 || ir_numel(t) != rows * n || t->dims[t->rank - 1] != n) return 0;
  for (int k = 0; k < t->rank - 1; k++)
    if (t->dims[k] != 1 && !(k == t->rank - 2 && t->dims[k] == rows)) return 0;
  return 1;
}

typedef struct head {
  int ns, reg, nc;
  int64_t n;
  int box[MAX_SCALES], cls[MAX_SCALES];
  int64_t h[MAX_SCALES], w[MAX_SCALES], stride[MAX_SCALES];
  int weight; /* DFL conv weight tensor */
} head;

/* Score branch: Sigmoid(Concat_axis2(Reshape(cls_i -> [1, nc, H*W]))). */
static int match_scores(mt *m, int t, head *h) {
  int sig = take(m, t, "Sigmoid", 1);
  if (sig < 0) return -1;
  int cat = take(m, m->g->nodes[sig].in[0], "Concat", 1);
  if (cat < 0) return -1;
  const ir_node *c = &m->g->nodes[cat];
  if (ir_attr_int(c, "axis", -1) != 2) return fail(m, "score Concat '%s' is not on axis 2", c->name);
  if (c->n_in < 1 || c->n_in > MAX_SCALES) return fail(m, "%d scales (1..%d)", c->n_in, MAX_SCALES);
  h->ns = c->n_in;
  int64_t sum = 0;
  for (int i = 0; i < h->ns; i++) {
    int r = take(m, m->g->nodes[cat].in[i], "Reshape", 1);
    if (r < 0) return -1;
    const int x = m->g->nodes[r].in[0];
    const ir_tensor *xt = T(m, x);
    if (!is_act(xt) || xt->rank != 4 || xt->dims[0] != 1 || xt->dims[1] != h->nc || xt->dims[2] < 1 || xt->dims[3] < 1)
      return fail(m, "class logits '%s' are not [1, %d, H, W]", xt->name, h->nc);
    const int64_t want[3] = {1, h->nc, xt->dims[2] * xt->dims[3]};
    if (!dims_are(T(m, m->g->nodes[r].out[0]), 3, want)) return fail(m, "score Reshape '%s' is not [1, nc, H*W]", m->g->nodes[r].name);
    h->cls[i] = x;
    h->h[i] = xt->dims[2];
    h->w[i] = xt->dims[3];
    sum += want[2];
  }
  if (sum != h->n) return fail(m, "scores cover %lld anchors, output0 has %lld", (long long)sum, (long long)h->n);
  return 0;
}

/* DFL: Reshape(Conv_w(Transpose_0321(Softmax_3(Transpose_0312(Reshape(Concat_axis2(
 * Reshape(box_i))))))) -> [1, 4, N]. */
static int match_dfl(mt *m, int dist, head *h) {
  ir_graph *g = m->g;
  const int64_t n = h->n;
  int rs1 = take(m, dist, "Reshape", 2);
  if (rs1 < 0) return -1;
  int conv = take(m, g->nodes[rs1].in[0], "Conv", 1);
  if (conv < 0) return -1;
  const ir_node *cv = &g->nodes[conv];
  if (cv->n_in < 2 || !is_const(T(m, cv->in[1]))) return fail(m, "DFL Conv '%s' has no constant weight", cv->name);
  const ir_tensor *w = T(m, cv->in[1]);
  if (w->rank != 4 || w->dims[0] != 1 || w->dims[2] != 1 || w->dims[3] != 1 || w->dims[1] < 1 || w->dims[1] > MAX_REG)
    return fail(m, "DFL Conv weight is [%lld, %lld, %lld, %lld], want [1, reg_max <= %d, 1, 1]", (long long)w->dims[0],
                (long long)w->dims[1], (long long)w->dims[2], (long long)w->dims[3], MAX_REG);
  h->reg = (int)w->dims[1];
  h->weight = cv->in[1];
  if (cv->n_in > 2 && cv->in[2] >= 0) {
    const ir_tensor *b = T(m, cv->in[2]);
    if (!is_const(b) || ir_numel(b) != 1 || ir_const_f64(b, 0) != 0.0) return fail(m, "DFL Conv has a non-zero bias");
  }
  const ir_attr *ks = ir_attr_get(cv, "kernel_shape"), *st = ir_attr_get(cv, "strides"), *pd = ir_attr_get(cv, "pads"),
                *dl = ir_attr_get(cv, "dilations");
  int plain = ir_attr_int(cv, "group", 1) == 1 && ks && ks->n_ints == 2 && ks->ints[0] == 1 && ks->ints[1] == 1;
  for (int k = 0; plain && st && k < st->n_ints; k++) plain = st->ints[k] == 1;
  for (int k = 0; plain && pd && k < pd->n_ints; k++) plain = pd->ints[k] == 0;
  for (int k = 0; plain && dl && k < dl->n_ints; k++) plain = dl->ints[k] == 1;
  if (!plain) return fail(m, "DFL Conv '%s' is not a plain 1x1 conv", cv->name);
  const int64_t r = h->reg;
  const int64_t d_conv[4] = {1, 1, 4, n}, d_dist[3] = {1, 4, n}, d_t1[4] = {1, r, 4, n}, d_sm[4] = {1, n, 4, r},
                d_rs0[4] = {1, 4, r, n}, d_cat[3] = {1, 4 * r, n};
  if (!dims_are(T(m, cv->out[0]), 4, d_conv) || !dims_are(T(m, dist), 3, d_dist))
    return fail(m, "DFL output is not [1, 1, 4, N] -> [1, 4, N]");
  int tr1 = take(m, cv->in[0], "Transpose", 1);
  if (tr1 < 0) return -1;
  const ir_attr *p1 = ir_attr_get(&g->nodes[tr1], "perm");
  if (!p1 || p1->n_ints != 4 || p1->ints[0] != 0 || p1->ints[1] != 3 || p1->ints[2] != 2 || p1->ints[3] != 1 ||
      !dims_are(T(m, g->nodes[tr1].out[0]), 4, d_t1))
    return fail(m, "DFL Transpose '%s' is not perm [0,3,2,1] to [1, reg_max, 4, N]", g->nodes[tr1].name);
  int smx = take(m, g->nodes[tr1].in[0], "Softmax", 1);
  if (smx < 0) return -1;
  if (ir_attr_int(&g->nodes[smx], "axis", -1) != 3 || !dims_are(T(m, g->nodes[smx].out[0]), 4, d_sm))
    return fail(m, "DFL Softmax '%s' is not over the bins of [1, N, 4, reg_max]", g->nodes[smx].name);
  int tr0 = take(m, g->nodes[smx].in[0], "Transpose", 1);
  if (tr0 < 0) return -1;
  const ir_attr *p0 = ir_attr_get(&g->nodes[tr0], "perm");
  if (!p0 || p0->n_ints != 4 || p0->ints[0] != 0 || p0->ints[1] != 3 || p0->ints[2] != 1 || p0->ints[3] != 2)
    return fail(m, "DFL Transpose '%s' is not perm [0,3,1,2]", g->nodes[tr0].name);
  int rs0 = take(m, g->nodes[tr0].in[0], "Reshape", 1);
  if (rs0 < 0) return -1;
  if (!dims_are(T(m, g->nodes[rs0].out[0]), 4, d_rs0)) return fail(m, "DFL Reshape is not to [1, 4, reg_max, N]");
  int cat = take(m, g->nodes[rs0].in[0], "Concat", 1);
  if (cat < 0) return -1;
  const ir_node *c = &g->nodes[cat];
  if (ir_attr_int(c, "axis", -1) != 2 || c->n_in != h->ns || !dims_are(T(m, c->out[0]), 3, d_cat))
    return fail(m, "box Concat '%s' is not %d scales of [1, 4*reg_max, H*W] on axis 2", c->name, h->ns);
  for (int i = 0; i < h->ns; i++) {
    int rb = take(m, g->nodes[cat].in[i], "Reshape", 1);
    if (rb < 0) return -1;
    const int x = g->nodes[rb].in[0];
    const int64_t want[4] = {1, 4 * r, h->h[i], h->w[i]};
    if (!is_act(T(m, x)) || !dims_are(T(m, x), 4, want))
      return fail(m, "box logits '%s' of scale %d are not [1, %lld, %lld, %lld]", T(m, x)->name, i, (long long)want[1],
                  (long long)want[2], (long long)want[3]);
    h->box[i] = x;
  }
  /* Weights == arange(reg_max): then the conv is the expected value of the bins. */
  for (int64_t j = 0; j < r; j++) {
    const double v = ir_const_f64(w, j), dev = fabs(v - (double)j);
    if (dev > tolerance(w, (double)j)) return fail(m, "DFL weight[%lld] = %g, not %lld", (long long)j, v, (long long)j);
    if (dev > m->proj_dev) m->proj_dev = dev;
  }
  return 0;
}

/* One side of dist2bbox: Slice(dist, axis 1, [from, from + 2)). */
static int check_slice(mt *m, int node, int dist, int64_t from, int64_t n) {
  const ir_node *s = &m->g->nodes[node];
  if (s->in[0] != dist) return fail(m, "Slice '%s' does not read the DFL distances", s->name);
  int64_t st[IR_MAX_RANK], sp[IR_MAX_RANK], ln[IR_MAX_RANK];
  yrt_error e;
  if (ir_slice_resolve(m->g, s, st, sp, ln, &e) != YRT_OK) return fail(m, "Slice '%s': %s", s->name, e.msg);
  if (st[0] != 0 || ln[0] != 1 || st[1] != from || sp[1] != 1 || ln[1] != 2 || st[2] != 0 || sp[2] != 1 || ln[2] != n)
    return fail(m, "Slice '%s' is not channels [%lld, %lld)", s->name, (long long)from, (long long)from + 2);
  return 0;
}

/* Anchors [.., 2, N]: (col + 0.5, row + 0.5) of each scale's grid, scale by scale. */
static int check_anchors(mt *m, int t, const head *h) {
  const ir_tensor *a = T(m, t);
  if (!const_rows(a, 2, h->n)) return fail(m, "anchor constant '%s' is not [1, 2, N]", a->name);
  int64_t i = 0;
  for (int s = 0; s < h->ns; s++)
    for (int64_t y = 0; y < h->h[s]; y++)
      for (int64_t x = 0; x < h->w[s]; x++, i++)
        for (int k = 0; k < 2; k++) {
          const double want = (k ? (double)y : (double)x) + 0.5, v = ir_const_f64(a, k * h->n + i);
          const double dev = fabs(v - want);
          if (dev > tolerance(a, want))
            return fail(m, "anchor '%s'[%d][%lld] = %g, grid says %g", a->name, k, (long long)i, v, want);
          if (dev > m->anchor_dev) m->anchor_dev = dev;
        }
  return 0;
}

static int check_strides(mt *m, int t, const head *h) {
  const ir_tensor *a = T(m, t);
  if (!const_rows(a, 1, h->n)) return fail(m, "stride constant '%s' is not [1, N]", a->name);
  int64_t i = 0;
  for (int s = 0; s < h->ns; s++)
    for (int64_t k = 0; k < h->h[s] * h->w[s]; k++, i++) {
      const double v = ir_const_f64(a, i), dev = fabs(v - (double)h->stride[s]);
      if (dev > tolerance(a, (double)h->stride[s]))
        return fail(m, "stride '%s'[%lld] = %g, input / grid says %lld", a->name, (long long)i, v, (long long)h->stride[s]);
      if (dev > m->stride_dev) m->stride_dev = dev;
    }
  return 0;
}

/* The two inputs of a binary node: the constant one and the other (either order). */
static int split_const(const mt *m, const ir_node *n, int *c, int *x) {
  if (n->n_in != 2) return 0;
  for (int k = 0; k < 2; k++)
    if (is_const(T(m, n->in[k])) && !is_const(T(m, n->in[1 - k]))) {
      *c = n->in[k];
      *x = n->in[1 - k];
      return 1;
    }
  return 0;
}

/* Box branch: Mul(Concat_1((x1y1 + x2y2) / 2, x2y2 - x1y1), strides), x1y1 = anchors - lt,
 * x2y2 = anchors + rb, lt / rb = the DFL distances' channels 0-1 / 2-3. */
static int match_boxes(mt *m, int t, head *h, int64_t in_h, int64_t in_w) {
  ir_graph *g = m->g;
  int mul = take(m, t, "Mul", 1);
  if (mul < 0) return -1;
  int strides, db;
  if (!split_const(m, &g->nodes[mul], &strides, &db)) return fail(m, "box Mul '%s' is not by a constant", g->nodes[mul].name);
  int cat = take(m, db, "Concat", 1);
  if (cat < 0) return -1;
  const ir_node *c = &g->nodes[cat];
  if (ir_attr_int(c, "axis", -1) != 1 || c->n_in != 2) return fail(m, "box Concat '%s' is not (xy, wh) on axis 1", c->name);
  const int cxy = c->in[0], wh = c->in[1];
  int div = take(m, cxy, "Div", 1);
  if (div < 0) return -1;
  const ir_node *dv = &g->nodes[div];
  if (dv->n_in != 2 || !is_const(T(m, dv->in[1])) || ir_numel(T(m, dv->in[1])) != 1 || ir_const_f64(T(m, dv->in[1]), 0) != 2.0)
    return fail(m, "box Div '%s' is not by 2", dv->name);
  const int sum = dv->in[0];
  int sub1 = take(m, wh, "Sub", 1);
  if (sub1 < 0) return -1;
  const int x2y2 = g->nodes[sub1].in[0], x1y1 = g->nodes[sub1].in[1];
  int add2 = take(m, sum, "Add", 1);
  if (add2 < 0) return -1;
  const ir_node *a2 = &g->nodes[add2];
  if (!((a2->in[0] == x1y1 && a2->in[1] == x2y2) || (a2->in[0] == x2y2 && a2->in[1] == x1y1)))
    return fail(m, "box Add '%s' does not add x1y1 and x2y2", a2->name);
  int sub = take(m, x1y1, "Sub", 2);
  if (sub < 0) return -1;
  const ir_node *sb = &g->nodes[sub];
  if (sb->n_in != 2 || !is_const(T(m, sb->in[0])) || is_const(T(m, sb->in[1])))
    return fail(m, "'%s' is not anchors - distances", sb->name);
  const int anch0 = sb->in[0], lt = sb->in[1];
  int add = take(m, x2y2, "Add", 2);
  if (add < 0) return -1;
  int anch1, rb;
  if (!split_const(m, &g->nodes[add], &anch1, &rb)) return fail(m, "'%s' is not anchors + distances", g->nodes[add].name);
  int sl0 = take(m, lt, "Slice", 1), sl1 = sl0 < 0 ? -1 : take(m, rb, "Slice", 1);
  if (sl1 < 0) return -1;
  const int dist = g->nodes[sl0].in[0];
  if (check_slice(m, sl0, dist, 0, h->n) || check_slice(m, sl1, dist, 2, h->n)) return -1;
  if (match_dfl(m, dist, h)) return -1;
  for (int s = 0; s < h->ns; s++) {
    if (in_h % h->h[s] || in_w % h->w[s] || in_h / h->h[s] != in_w / h->w[s] || in_h / h->h[s] > 4096)
      return fail(m, "scale %d: grid %lldx%lld does not divide the %lldx%lld input evenly", s, (long long)h->h[s],
                  (long long)h->w[s], (long long)in_h, (long long)in_w);
    h->stride[s] = in_h / h->h[s];
  }
  if (check_anchors(m, anch0, h) || check_anchors(m, anch1, h) || check_strides(m, strides, h)) return -1;
  return 0;
}

static int match(mt *m, int y, head *h, int64_t in_h, int64_t in_w) {
  ir_graph *g = m->g;
  const ir_tensor *yt = T(m, y);
  int cat = producer(g, y);
  if (cat < 0 || !ir_node_is(&g->nodes[cat], "Concat") || g->nodes[cat].n_in != 2 || ir_attr_int(&g->nodes[cat], "axis", -1) != 1)
    return fail(m, "output '%s' is not Concat(boxes, scores) on axis 1", yt->name);
  if (yt->rank != 3 || yt->dims[0] != 1 || yt->dims[1] < 5 || yt->dims[1] - 4 > 1024)
    return fail(m, "output '%s' is not [1, 4 + nc, N] with 1..1024 classes", yt->name);
  m->dead[m->n_dead++] = cat;
  h->nc = (int)(yt->dims[1] - 4);
  h->n = yt->dims[2];
  const int box = g->nodes[cat].in[0], sc = g->nodes[cat].in[1];
  if (match_scores(m, sc, h)) return -1;
  return match_boxes(m, box, h, in_h, in_w);
}

static yrt_status rewrite(mt *m, int y, const head *h, yrt_error *err) {
  ir_graph *g = m->g;
  char name[256];
  snprintf(name, sizeof name, "%s/detect_decode", g->nodes[m->dead[0]].name);
  float proj[MAX_REG];
  for (int j = 0; j < h->reg; j++) proj[j] = (float)ir_const_f64(T(m, h->weight), j);
  char pname[300];
  snprintf(pname, sizeof pname, "%s/proj", name);
  int pt = ir_add_tensor(g, pname, IR_F32);
  const int64_t pd[1] = {h->reg};
  if (pt < 0 || ir_tensor_set_shape(&g->tensors[pt], 1, pd) || ir_tensor_set_data(&g->tensors[pt], proj, sizeof(float) * (size_t)h->reg))
    return yrt_set_error(err, YRT_ERR_NOMEM, "fuse detect head: out of memory");
  int in[2 * MAX_SCALES + 1];
  for (int s = 0; s < h->ns; s++) {
    in[s] = h->box[s];
    in[h->ns + s] = h->cls[s];
  }
  in[2 * h->ns] = pt;
  /* dead + fp32: fused away, computed in float by the new node (lw_detect_keep_filter). */
  for (int k = 0; k < m->n_dead; k++) g->nodes[m->dead[k]].dead = g->nodes[m->dead[k]].fp32 = 1;
  int nd = ir_add_node(g, name, "DetectDecode", in, 2 * h->ns + 1, &y, 1);
  if (nd < 0) return yrt_set_error(err, YRT_ERR_NOMEM, "fuse detect head: out of memory");
  ir_node *n = &g->nodes[nd];
  free(n->domain);
  n->domain = ir_strdup("yolort");
  int64_t strides[MAX_SCALES];
  for (int s = 0; s < h->ns; s++) strides[s] = h->stride[s];
  if (!n->domain || ir_set_attr_int(g, nd, "reg_max", h->reg) || ir_set_attr_int(g, nd, "num_classes", h->nc) ||
      ir_set_attr_ints(g, nd, "strides", strides, h->ns))
    return yrt_set_error(err, YRT_ERR_NOMEM, "fuse detect head: out of memory");
  return YRT_OK;
}

int lw_is_detect_node(const ir_node *n) {
  return !n->dead && n->op_type && n->domain && strcmp(n->op_type, "DetectDecode") == 0 && strcmp(n->domain, "yolort") == 0;
}

yrt_status lw_fuse_detect_head(ir_graph *g, int *fused, int *n_removed, char *note, size_t note_cap, yrt_error *err) {
  *fused = 0;
  *n_removed = 0;
  if (note_cap) note[0] = 0;
  mt m;
  memset(&m, 0, sizeof m);
  m.g = g;
  m.note = note;
  m.cap = note_cap;
  if (g->n_inputs != 1 || g->tensors[g->inputs[0]].rank != 4) {
    fail(&m, "needs one NCHW image input");
    return YRT_OK;
  }
  const ir_tensor *x = &g->tensors[g->inputs[0]];
  const int64_t in_h = x->dims[2], in_w = x->dims[3];
  if (in_h < 1 || in_w < 1) {
    fail(&m, "image input size unknown");
    return YRT_OK;
  }
  char first[256] = ""; /* why the first output (output0) did not match */
  for (int o = 0; o < g->n_outputs; o++) {
    head h;
    memset(&h, 0, sizeof h);
    m.n_dead = 0;
    m.anchor_dev = m.stride_dev = m.proj_dev = 0;
    if (match(&m, g->outputs[o], &h, in_h, in_w) != 0) {
      if (o == 0) snprintf(first, sizeof first, "%s", note);
      continue;
    }
    yrt_status st = rewrite(&m, g->outputs[o], &h, err);
    if (st != YRT_OK) return st;
    *fused = 1;
    *n_removed = m.n_dead;
    int k = snprintf(note, note_cap, "%d nodes -> detect_decode (%d scales, strides", m.n_dead, h.ns);
    for (int s = 0; s < h.ns && k > 0 && (size_t)k < note_cap; s++)
      k += snprintf(note + k, note_cap - (size_t)k, " %lld", (long long)h.stride[s]);
    if (k > 0 && (size_t)k < note_cap)
      k += snprintf(note + k, note_cap - (size_t)k, ", reg_max %d, %d classes)", h.reg, h.nc);
    if (k > 0 && (size_t)k < note_cap && m.proj_dev > 1e-5)
      k += snprintf(note + k, note_cap - (size_t)k, "; DFL weights quantized (off by %.3g), kept", m.proj_dev);
    if (k > 0 && (size_t)k < note_cap && (m.anchor_dev > 1e-5 || m.stride_dev > 1e-5))
      snprintf(note + k, note_cap - (size_t)k, "; quantized anchors/strides (off by %.3g / %.3g) replaced by the exact grid",
               m.anchor_dev, m.stride_dev);
    return YRT_OK;
  }
  if (note_cap) snprintf(note, note_cap, "%s", first);
  return YRT_OK;
}

const char **lw_detect_keep_filter(const ir_graph *g, const char *const *keep) {
  int n = 0;
  while (keep && keep[n]) n++;
  const char **out = calloc((size_t)n + 1, sizeof *out);
  if (!out) return NULL;
  int k = 0;
  for (int i = 0; i < n; i++) {
    int live = 0, fused = 0;
    for (int j = 0; j < g->n_nodes; j++) {
      const ir_node *nd = &g->nodes[j];
      if (!nd->name || strcmp(nd->name, keep[i]) != 0) continue;
      if (!nd->dead) live = 1;
      else if (nd->fp32) fused = 1;
    }
    if (live || !fused) out[k++] = keep[i];
  }
  return out;
}
