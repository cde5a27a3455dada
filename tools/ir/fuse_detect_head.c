/* fuse_detect_head.c — recognise the Detect head's decode by what it computes and replace it by
 * one DetectDecode node (see fuse_detect_head.h). The structure is only used to propose
 * candidates (which tensors are the per-scale logits, which are boxes, classes or pass-through
 * channels); a candidate is accepted only when head_verify.c has shown on random logits that the
 * export's own subgraph computes exactly that decode. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuse_detect_head.h"
#include "fuse_obb_head.h"
#include "onnx_ops.h"

#define MAX_CANDIDATES 16 /* non-output [1, C, N] tensors tried as the head output */

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(char *note, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(note, cap, fmt, ap);
  va_end(ap);
  return -1;
}

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

/* Ops that only move data: the walk goes through them even when they make a grid-shaped tensor
 * (a per-scale Concat of box and class logits, a Split of one conv's channels). */
static int moves_data(const ir_node *n) {
  static const onnx_op ops[] = {ONNX_OP_CONCAT,   ONNX_OP_SPLIT,   ONNX_OP_SLICE,
                                ONNX_OP_RESHAPE,  ONNX_OP_TRANSPOSE, ONNX_OP_IDENTITY,
                                ONNX_OP_FLATTEN,  ONNX_OP_SQUEEZE, ONNX_OP_UNSQUEEZE};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (ir_node_is_op(n, ops[i])) return 1;
  return 0;
}

/* A per-scale tensor [1, C, H, W] of an input in_h x in_w: H and W divide it by one stride >= 2,
 * and something other than a data move made it (a conv's output; with through_act, not a
 * Sigmoid either). */
static int is_scale_tensor(const ir_graph *g, int t, int64_t in_h, int64_t in_w, int through_act) {
  const ir_tensor *x = &g->tensors[t];
  if (x->data || x->rank != 4 || x->dims[0] != 1 || x->dims[1] < 1 || x->dims[2] < 1 || x->dims[3] < 1) return 0;
  if (in_h % x->dims[2] || in_w % x->dims[3] || in_h / x->dims[2] != in_w / x->dims[3] || in_h / x->dims[2] < 2)
    return 0;
  const int p = producer(g, t);
  return p < 0 || !(moves_data(&g->nodes[p]) || (through_act && ir_node_is_op(&g->nodes[p], ONNX_OP_SIGMOID)));
}

static int in_list(const int *a, int n, int v) {
  for (int i = 0; i < n; i++)
    if (a[i] == v) return i;
  return -1;
}

/* Half a quantization step of a quantized constant, absolute and relative to its mean size. */
static void quant_slack(const ir_tensor *t, lw_head *h) {
  if (!t->q.on || !t->data) return;
  double s = t->q.scale;
  for (int k = 0; k < t->q.n_scales && t->q.scales; k++) s = fmax(s, t->q.scales[k]);
  const int64_t n = ir_numel(t);
  double mean = 0;
  for (int64_t i = 0; i < n; i++) mean += fabs(ir_const_f64(t, i));
  mean = n > 0 ? mean / (double)n : 0;
  h->q_abs += s / 2;
  if (mean > 0) h->q_rel += s / 2 / mean;
}

int lw_head_walk(const ir_graph *g, int y, int64_t in_h, int64_t in_w, int through_act, lw_head *h, char *note,
                 size_t cap) {
  h->y = y;
  const int p0 = producer(g, y);
  if (p0 < 0) return fail(note, cap, "'%s' is not computed by the graph", g->tensors[y].name);
  h->nodes[h->n_nodes++] = p0;
  for (int q = 0; q < h->n_nodes; q++) {
    const ir_node *n = &g->nodes[h->nodes[q]];
    for (int j = 0; j < n->n_in; j++) {
      const int t = n->in[j];
      if (t < 0) continue;
      if (g->tensors[t].data) {
        quant_slack(&g->tensors[t], h);
        continue;
      }
      if (in_list(h->in, h->n_in, t) >= 0) continue;
      if (is_scale_tensor(g, t, in_h, in_w, through_act)) {
        if (h->n_in >= LW_HEAD_MAX_IN) return fail(note, cap, "the head reads more than %d per-scale tensors", LW_HEAD_MAX_IN);
        h->in[h->n_in++] = t;
        continue;
      }
      const int p = producer(g, t);
      if (p < 0) return fail(note, cap, "'%s' depends on the graph input '%s' other than through per-scale convs",
                             g->tensors[y].name, g->tensors[t].name);
      if (in_list(h->nodes, h->n_nodes, p) >= 0) continue;
      if (h->n_nodes >= LW_HEAD_MAX_NODES) return fail(note, cap, "'%s' is computed by more than %d nodes", g->tensors[y].name, LW_HEAD_MAX_NODES);
      h->nodes[h->n_nodes++] = p;
    }
  }
  /* What the subgraph makes may also be read outside it (an export listing the raw head maps as
   * outputs too): lw_head_remove keeps the nodes those readers need. */
  return 0;
}

int lw_head_remove(ir_graph *g, const lw_head *h) {
  for (int k = 0; k < h->n_nodes; k++) g->nodes[h->nodes[k]].dead = g->nodes[h->nodes[k]].fp32 = 1;
  int removed = h->n_nodes;
  for (int again = 1; again;) { /* keep a node whose output is a graph output or has a live reader */
    again = 0;
    for (int k = 0; k < h->n_nodes; k++) {
      ir_node *n = &g->nodes[h->nodes[k]];
      int needed = 0;
      for (int j = 0; j < n->n_out && !needed; j++) {
        const int t = n->out[j];
        if (t < 0 || t == h->y) continue;
        int cons[1];
        needed = g->tensors[t].is_output || ir_consumers(g, t, cons, 1) > 0;
      }
      if (n->dead && needed) {
        n->dead = 0;
        removed--;
        again = 1;
      }
    }
  }
  return removed;
}

/* Group the per-scale tensors by grid (largest first: Ultralytics' anchor order) and check every
 * scale reads the same channel counts; order[s][k] = index into h->in of tensor k of scale s,
 * listed in scale 0's order of channel counts. Returns tensors per scale, -1 with note set. */
static int group_scales(const ir_graph *g, lw_head *h, int64_t in_h, int order[LW_HEAD_MAX_SCALES][LW_HEAD_MAX_IN],
                        char *note, size_t cap) {
  int64_t gh[LW_HEAD_MAX_IN];
  int ng = 0;
  for (int i = 0; i < h->n_in; i++) {
    const int64_t H = g->tensors[h->in[i]].dims[2];
    int k = 0;
    while (k < ng && gh[k] != H) k++;
    if (k == ng) {
      if (ng >= LW_HEAD_MAX_SCALES) return fail(note, cap, "the head reads more than %d scales", LW_HEAD_MAX_SCALES);
      gh[ng++] = H;
    }
  }
  for (int a = 0; a < ng; a++) /* largest grid first */
    for (int b = a + 1; b < ng; b++)
      if (gh[b] > gh[a]) {
        const int64_t t = gh[a];
        gh[a] = gh[b];
        gh[b] = t;
      }
  h->ns = ng;
  int per = -1;
  for (int s = 0; s < ng; s++) {
    int k = 0;
    int used[LW_HEAD_MAX_IN] = {0};
    for (int i = 0; i < h->n_in; i++) {
      const ir_tensor *t = &g->tensors[h->in[i]];
      if (t->dims[2] != gh[s]) continue;
      if (s == 0) {
        order[0][k++] = i;
        h->h[0] = t->dims[2];
        h->w[0] = t->dims[3];
        continue;
      }
      (void)used;
    }
    if (s == 0) {
      per = k;
      h->stride[0] = in_h / h->h[0];
      continue;
    }
    /* scale s: the tensor with scale 0's k-th channel count, first unused one */
    for (int k2 = 0; k2 < per; k2++) {
      const int64_t want = g->tensors[h->in[order[0][k2]]].dims[1];
      int found = -1;
      for (int i = 0; i < h->n_in && found < 0; i++) {
        const ir_tensor *t = &g->tensors[h->in[i]];
        if (t->dims[2] == gh[s] && t->dims[1] == want && !used[i]) found = i;
      }
      if (found < 0) return fail(note, cap, "scale %d does not read the channels scale 0 reads", s);
      used[found] = 1;
      order[s][k2] = found;
      h->h[s] = g->tensors[h->in[found]].dims[2];
      h->w[s] = g->tensors[h->in[found]].dims[3];
    }
    int cnt = 0;
    for (int i = 0; i < h->n_in; i++) cnt += g->tensors[h->in[i]].dims[2] == gh[s];
    if (cnt != per) return fail(note, cap, "scale %d reads %d tensors, scale 0 reads %d", s, cnt, per);
    h->stride[s] = in_h / h->h[s];
  }
  if (per < 2) return fail(note, cap, "the head reads one tensor per scale (box and class logits are not separate)");
  return per;
}

static int names_count(const ir_graph *g) {
  if (!g->class_names || !g->class_names[0]) return 0;
  size_t len = strlen(g->class_names);
  if (g->class_names[len - 1] == '\n') len--;
  int n = 1;
  for (size_t i = 0; i < len; i++) n += g->class_names[i] == '\n';
  return n;
}

/* The DFL projection: the weights of a 1x1 conv in the subgraph with reg_max inputs and one
 * output (the export's DFL), else arange(reg_max). */
static void find_proj(const ir_graph *g, lw_head *h) {
  for (int j = 0; j < h->reg; j++) h->proj[j] = (float)j;
  for (int q = 0; q < h->n_nodes; q++) {
    const ir_node *n = &g->nodes[h->nodes[q]];
    if (!ir_node_is_op(n, ONNX_OP_CONV) || n->n_in < 2 || n->in[1] < 0) continue;
    const ir_tensor *w = &g->tensors[n->in[1]];
    if (!w->data || ir_numel(w) != h->reg || w->rank != 4 || w->dims[0] != 1) continue;
    for (int j = 0; j < h->reg; j++) h->proj[j] = (float)ir_const_f64(w, j);
    return;
  }
}

static int is_obb_task(const ir_graph *g) { return g->task && strcmp(g->task, "obb") == 0; }

/* Try every assignment of a scale's tensors to box / class / pass-through; *ok when one is
 * verified (h then describes it). */
static yrt_status assign(const ir_graph *g, lw_head_lower_fn lower, lw_head *h, int per, int order[LW_HEAD_MAX_SCALES][LW_HEAD_MAX_IN],
                         int64_t cy, int *ok, char *note, size_t cap, yrt_error *err) {
  *ok = 0;
  const int names = names_count(g);
  int tried = 0;
  char first[256] = ""; /* why the first candidate failed: the likeliest reading */
  for (int b = 0; b < per; b++) {
    const int64_t cb = g->tensors[h->in[order[0][b]]].dims[1];
    if (cb % 4 || cb / 4 > LW_HEAD_MAX_REG) continue;
    for (int c = 0; c < per; c++) {
      if (c == b) continue;
      const int64_t nc = g->tensors[h->in[order[0][c]]].dims[1];
      if (names > 0 && nc != names) continue;
      if (nc > YRT_MAX_CLASSES || per - 2 > LW_HEAD_MAX_EXTRA) continue;
      int64_t extra = 0;
      h->n_extra = 0;
      for (int e = 0; e < per; e++) {
        if (e == b || e == c) continue;
        const int64_t ce = g->tensors[h->in[order[0][e]]].dims[1];
        for (int s = 0; s < h->ns; s++) h->extra[h->n_extra][s] = order[s][e];
        h->extra_ch[h->n_extra++] = ce;
        extra += ce;
      }
      if (4 + nc + extra != cy) continue;
      h->reg = (int)(cb / 4);
      h->nc = (int)nc;
      h->n_extra_ch = extra;
      for (int s = 0; s < h->ns; s++) {
        h->box[s] = order[s][b];
        h->cls[s] = order[s][c];
      }
      find_proj(g, h);
      /* xywh, xyxy; one 1-channel pass-through may be an OBB head's angle (then rotated xywh):
       * (sigmoid - 0.25) pi (Ultralytics OBB), or the value itself (YOLO26's OBB26) */
      const int readings = h->n_extra == 1 && h->extra_ch[0] == 1 ? 4 : 2;
      for (int k = 0; k < readings; k++) {
        h->xyxy = k == 1;
        h->obb = k >= 2 ? k - 1 : 0;
        tried++;
        yrt_status st = lw_head_verify(g, lower, h, ok, note, cap, err);
        if (st != YRT_OK || *ok) return st;
        if (!first[0] || (h->obb && is_obb_task(g))) snprintf(first, sizeof first, "%s", note);
      }
    }
  }
  if (tried) snprintf(note, cap, "%s", first);
  else {
    int k = snprintf(note, cap, "no split of the per-scale channels (");
    for (int i = 0; i < per && k > 0 && (size_t)k < cap; i++)
      k += snprintf(note + k, cap - (size_t)k, "%s%lld", i ? ", " : "", (long long)g->tensors[h->in[order[0][i]]].dims[1]);
    if (k > 0 && (size_t)k < cap)
      snprintf(note + k, cap - (size_t)k, ") into 4*reg_max box + %s classes gives %lld output rows",
               names ? "metadata" : "nc", (long long)cy);
  }
  return YRT_OK;
}

/* Candidate y: walk, group, assign, verify. *ok when h describes a verified head. */
static yrt_status try_output(const ir_graph *g, lw_head_lower_fn lower, int y, int64_t in_h, int64_t in_w, lw_head *h, int *ok, char *note,
                             size_t cap, yrt_error *err) {
  *ok = 0;
  memset(h, 0, sizeof *h);
  const ir_tensor *yt = &g->tensors[y];
  if (yt->rank != 3 || yt->dims[0] != 1 || yt->dims[1] < 5 || yt->dims[2] < 1) {
    fail(note, cap, "output '%s' is not [1, 4 + nc, N]", yt->name);
    return YRT_OK;
  }
  if (lw_head_walk(g, y, in_h, in_w, 0, h, note, cap)) return YRT_OK;
  int order[LW_HEAD_MAX_SCALES][LW_HEAD_MAX_IN];
  const int per = group_scales(g, h, in_h, order, note, cap);
  if (per < 0) return YRT_OK;
  int64_t n = 0;
  for (int s = 0; s < h->ns; s++) n += h->h[s] * h->w[s];
  if (n != yt->dims[2]) {
    fail(note, cap, "output '%s' has %lld anchors, the grids %lld", yt->name, (long long)yt->dims[2], (long long)n);
    return YRT_OK;
  }
  h->n = n;
  return assign(g, lower, h, per, order, yt->dims[1], ok, note, cap, err);
}

static int add_const_i64(ir_graph *g, const char *name, int n, const int64_t *v) {
  const int t = ir_add_tensor(g, name, IR_I64);
  const int64_t d[1] = {n};
  if (t < 0 || ir_tensor_set_shape(&g->tensors[t], 1, d) || ir_tensor_set_data(&g->tensors[t], v, sizeof(int64_t) * (size_t)n))
    return -1;
  return t;
}

/* New activation tensor with a known shape. */
static int add_act(ir_graph *g, const char *name, int rank, const int64_t *dims) {
  const int t = ir_add_tensor(g, name, IR_F32);
  if (t < 0 || ir_tensor_set_shape(&g->tensors[t], rank, dims)) return -1;
  return t;
}

static int concat(ir_graph *g, const char *name, const int *in, int n, int axis, int out) {
  const int k = ir_add_node(g, name, "Concat", in, n, &out, 1);
  return k < 0 || ir_set_attr_int(g, k, "axis", axis) ? -1 : 0;
}

#define NOMEM() yrt_set_error(err, YRT_ERR_NOMEM, "fuse detect head: out of memory")

/* Replace the subgraph by DetectDecode (+ Reshape/Concat of the pass-through channels). */
static yrt_status rewrite(ir_graph *g, lw_head *h, yrt_error *err) {
  char name[300], base[256];
  snprintf(base, sizeof base, "%s", g->nodes[h->nodes[0]].name ? g->nodes[h->nodes[0]].name : "head");
  const int y = h->y;
  h->n_removed = lw_head_remove(g, h);
  snprintf(name, sizeof name, "%s/detect_decode/proj", base);
  const int pt = ir_add_tensor(g, name, IR_F32);
  const int64_t pd[1] = {h->reg};
  if (pt < 0 || ir_tensor_set_shape(&g->tensors[pt], 1, pd) ||
      ir_tensor_set_data(&g->tensors[pt], h->proj, sizeof(float) * (size_t)h->reg))
    return NOMEM();
  int dec = y;
  if (h->n_extra) { /* the decode's rows, then the pass-through rows (or an OBB's angle) after them */
    snprintf(name, sizeof name, "%s/detect_decode_out", base);
    const int64_t d[3] = {1, 4 + h->nc, h->n};
    if ((dec = add_act(g, name, 3, d)) < 0) return NOMEM();
  }
  int in[2 * LW_HEAD_MAX_SCALES + 1];
  for (int s = 0; s < h->ns; s++) {
    in[s] = h->in[h->box[s]];
    in[h->ns + s] = h->in[h->cls[s]];
  }
  in[2 * h->ns] = pt;
  snprintf(name, sizeof name, "%s/detect_decode", base);
  const int nd = ir_add_node(g, name, "DetectDecode", in, 2 * h->ns + 1, &dec, 1);
  if (nd < 0) return NOMEM();
  free(g->nodes[nd].domain);
  g->nodes[nd].domain = ir_strdup("yolort");
  int64_t strides[LW_HEAD_MAX_SCALES];
  for (int s = 0; s < h->ns; s++) strides[s] = h->stride[s];
  /* a model output is read as centre-size rows (postprocess): a head decoding corners
   * (Ultralytics' nms=True export, once its NMS is cut) writes centre and size there */
  if (!g->nodes[nd].domain || ir_set_attr_int(g, nd, "reg_max", h->reg) || ir_set_attr_int(g, nd, "num_classes", h->nc) ||
      ir_set_attr_int(g, nd, "xyxy", h->xyxy && !g->tensors[y].is_output) || ir_set_attr_ints(g, nd, "strides", strides, h->ns))
    return NOMEM();
  if (!h->n_extra) return YRT_OK;
  if (h->obb) return lw_obb_rewrite(g, h, dec, base) ? NOMEM() : YRT_OK;
  /* Pass-through channels (mask coefficients): flattened per scale, joined along the anchors,
   * appended to the decode's rows, as the verified subgraph did. */
  int parts[1 + LW_HEAD_MAX_EXTRA];
  parts[0] = dec;
  for (int e = 0; e < h->n_extra; e++) {
    int flat[LW_HEAD_MAX_SCALES] = {-1, -1, -1};
    for (int s = 0; s < h->ns; s++) {
      const int64_t shape[3] = {1, h->extra_ch[e], h->h[s] * h->w[s]};
      snprintf(name, sizeof name, "%s/extra%d_%d/shape", base, e, s);
      const int sh = add_const_i64(g, name, 3, shape);
      snprintf(name, sizeof name, "%s/extra%d_%d", base, e, s);
      if (sh < 0 || (flat[s] = add_act(g, name, 3, shape)) < 0) return NOMEM();
      const int rin[2] = {h->in[h->extra[e][s]], sh};
      if (ir_add_node(g, name, "Reshape", rin, 2, &flat[s], 1) < 0) return NOMEM();
    }
    parts[1 + e] = flat[0];
    if (h->ns > 1) {
      const int64_t d[3] = {1, h->extra_ch[e], h->n};
      snprintf(name, sizeof name, "%s/extra%d", base, e);
      if ((parts[1 + e] = add_act(g, name, 3, d)) < 0 || concat(g, name, flat, h->ns, 2, parts[1 + e])) return NOMEM();
    }
  }
  snprintf(name, sizeof name, "%s/rows", base);
  return concat(g, name, parts, 1 + h->n_extra, 1, y) ? NOMEM() : YRT_OK;
}

static void summarise(const lw_head *h, char *note, size_t cap) {
  int k = snprintf(note, cap, "%d nodes -> detect_decode (%d scales, strides", h->n_removed, h->ns);
  for (int s = 0; s < h->ns && k > 0 && (size_t)k < cap; s++) k += snprintf(note + k, cap - (size_t)k, " %lld", (long long)h->stride[s]);
  if (k > 0 && (size_t)k < cap)
    k += snprintf(note + k, cap - (size_t)k, ", %s, %d classes%s", h->reg > 1 ? "DFL" : "no DFL", h->nc, h->xyxy ? ", xyxy" : "");
  if (k > 0 && (size_t)k < cap && h->reg > 1) k += snprintf(note + k, cap - (size_t)k, ", reg_max %d", h->reg);
  if (k > 0 && (size_t)k < cap && h->obb)
    k += snprintf(note + k, cap - (size_t)k, "; + obb_decode: rotated boxes, angle row%s",
                  h->obb == 2 ? " (raw angle: YOLO26 OBB26)" : "");
  else if (k > 0 && (size_t)k < cap && h->n_extra_ch) k += snprintf(note + k, cap - (size_t)k, ", %lld pass-through rows", (long long)h->n_extra_ch);
  if (k > 0 && (size_t)k < cap)
    snprintf(note + k, cap - (size_t)k, "); verified on random logits, max deviation %.2g px, %.2g score", h->max_box_dev,
             h->max_score_dev);
}

yrt_status lw_fuse_detect_head(ir_graph *g, lw_head_lower_fn lower, int *fused, int *n_removed, char *note, size_t note_cap, yrt_error *err) {
  *fused = 0;
  *n_removed = 0;
  if (note_cap) note[0] = 0;
  if (g->n_inputs != 1 || g->tensors[g->inputs[0]].rank != 4) {
    fail(note, note_cap, "needs one NCHW image input");
    return YRT_OK;
  }
  const ir_tensor *x = &g->tensors[g->inputs[0]];
  const int64_t in_h = x->dims[2], in_w = x->dims[3];
  if (in_h < 1 || in_w < 1) {
    fail(note, note_cap, "image input size unknown");
    return YRT_OK;
  }
  lw_head *h = malloc(sizeof *h);
  if (!h) return NOMEM();
  /* Candidates: the graph outputs, then other [1, C, N] tensors, nearest the outputs first. */
  int cand[MAX_CANDIDATES + 8], nc = 0;
  for (int o = 0; o < g->n_outputs && nc < 8; o++) cand[nc++] = g->outputs[o];
  for (int i = g->n_nodes - 1; i >= 0 && nc < MAX_CANDIDATES + 8; i--) {
    const ir_node *n = &g->nodes[i];
    if (n->dead || n->n_out != 1 || n->out[0] < 0) continue;
    const ir_tensor *t = &g->tensors[n->out[0]];
    if (!t->is_output && t->rank == 3 && t->dims[0] == 1 && t->dims[1] >= 5 && t->dims[2] > t->dims[1]) cand[nc++] = n->out[0];
  }
  char first[256] = "";
  yrt_status st = YRT_OK;
  for (int c = 0; c < nc; c++) {
    int ok = 0;
    if ((st = try_output(g, lower, cand[c], in_h, in_w, h, &ok, note, note_cap, err)) != YRT_OK) break;
    if (!ok) {
      if (c == 0) snprintf(first, sizeof first, "%s", note);
      continue;
    }
    if ((st = rewrite(g, h, err)) != YRT_OK) break;
    *fused = 1;
    *n_removed = h->n_removed;
    summarise(h, note, note_cap);
    free(h);
    return YRT_OK;
  }
  free(h);
  if (st == YRT_OK && note_cap) snprintf(note, note_cap, "%s", first);
  return st;
}

int lw_is_detect_node(const ir_node *n) {
  return ir_node_is_live_op(n, ONNX_OP_YOLORT_DETECT_DECODE);
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
