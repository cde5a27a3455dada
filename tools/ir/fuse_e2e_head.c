/* fuse_e2e_head.c — the end-to-end (NMS-free) head's selection as one DetectTopK node.
 *
 * YOLOv10, YOLO26 and YOLO11 exported with end2end finish with Ultralytics' postprocess:
 *   X [1, 4+nc, N] -> Transpose(0,2,1) -> split into boxes [1,N,4] / scores [1,N,nc]
 *   -> ReduceMax(scores, last axis) -> TopK(k) -> gathers (GatherElements / Gather with Tile,
 *   Unsqueeze, Flatten...) -> TopK(k) over the k*nc pairs -> Div / Mod by nc -> Concat [1,k,6].
 * Recognised by what the subgraph is made of, not by names: the output is a Concat whose
 * backward cone, cut at the boxes and scores, holds one ReduceMax, two TopK with the same
 * constant k, and only index / gather / shape ops; the boxes and scores are the [4, nc] split of
 * a transposed [1, 4+nc, N] tensor. The cone (and the split / transpose when nothing else reads
 * them) is replaced by DetectTopK(X) (domain "yolort", attributes k and nc), lowered to
 * YRT_OP_DETECT_TOPK. Pose / Segment / OBB end2end exports split a third part off the rows
 * (keypoints, mask coefficients, angle: [4, nc, ne]) and gather it by the same anchor index as
 * the boxes into columns after the class (Concat [1,k,6+ne]); DetectTopK then carries ne and copies
 * those rows. Anything else is left alone (lw_e2e_refusal then names why it was not taken). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuse_e2e_head.h"
#include "ir_passes.h"
#include "onnx_ops.h"

#define E2E_MAX_CONE 64

static int is_const(const ir_graph *g, int t) { return t >= 0 && g->tensors[t].data != NULL; }

/* The selection's ops: the op table's rows flagged ONNX_F_E2E_SELECT (onnx_ops.c), those the
 * converter takes on their own and those it takes only here (TopK, ReduceMax, GatherElements, ...). */
static int allowed(const ir_node *n) {
  const onnx_op_row *row = ir_node_op(n);
  return row && (row->flags & ONNX_F_E2E_SELECT);
}

/* Boxes and scores as outputs 0 and 1 of a Split([4, nc (, ne)], last axis) of Transpose(X, 0 2 1):
 * returns X and fills *nc, *ne (0: no third part), *split, *transpose; -1 if not that form. */
static int split_source(const ir_graph *g, int boxes, int scores, int64_t *nc, int64_t *ne, int *split, int *tr) {
  int sp = g->tensors[boxes].producer;
  if (sp < 0 || sp != g->tensors[scores].producer) return -1;
  const ir_node *s = &g->nodes[sp];
  if (!ir_node_is_op(s, ONNX_OP_SPLIT) || (s->n_out != 2 && s->n_out != 3) || s->out[0] != boxes ||
      s->out[1] != scores || s->n_in < 1)
    return -1;
  int64_t sizes[3] = {0, 0, 0};
  const ir_attr *a = ir_attr_get(s, "split");
  if (a && a->type == IR_ATTR_INTS && a->n_ints == s->n_out) {
    memcpy(sizes, a->ints, sizeof(int64_t) * (size_t)s->n_out);
  } else if (s->n_in < 2 || ir_const_ints(g, s->in[1], sizes, 3) != s->n_out) {
    return -1;
  }
  int64_t axis = ir_attr_int(s, "axis", 0);
  if ((axis != -1 && axis != 2) || sizes[0] != 4 || sizes[1] < 1 || (s->n_out == 3 && sizes[2] < 1)) return -1;
  *ne = s->n_out == 3 ? sizes[2] : 0;
  int t = s->in[0], tp = g->tensors[t].producer;
  if (tp < 0 || !ir_node_is_op(&g->nodes[tp], ONNX_OP_TRANSPOSE)) return -1;
  const ir_attr *perm = ir_attr_get(&g->nodes[tp], "perm");
  if (!perm || perm->n_ints != 3 || perm->ints[0] != 0 || perm->ints[1] != 2 || perm->ints[2] != 1) return -1;
  *nc = sizes[1];
  *split = sp;
  *tr = tp;
  return g->nodes[tp].in[0];
}

/* The index a GatherElements reads, through the Tile / Expand that repeats it over the columns. */
static int gather_index(const ir_graph *g, int gather_out) {
  const int p = gather_out >= 0 ? g->tensors[gather_out].producer : -1;
  if (p < 0 || !ir_node_is_op(&g->nodes[p], ONNX_OP_GATHER_ELEMENTS) || g->nodes[p].n_in != 2) return -1;
  const int idx = g->nodes[p].in[1], ip = g->tensors[idx].producer;
  if (ip >= 0 && (ir_node_is_op(&g->nodes[ip], ONNX_OP_TILE) || ir_node_is_op(&g->nodes[ip], ONNX_OP_EXPAND)))
    return g->nodes[ip].in[0];
  return idx;
}

/* The data tensor a GatherElements reads (-1: not one). */
static int gather_data(const ir_graph *g, int gather_out) {
  const int p = gather_out >= 0 ? g->tensors[gather_out].producer : -1;
  return p >= 0 && ir_node_is_op(&g->nodes[p], ONNX_OP_GATHER_ELEMENTS) && g->nodes[p].n_in == 2 ? g->nodes[p].in[0]
                                                                                                   : -1;
}

/* Try graph output index oi. 1 fused, 0 not this form (*why says what did not fit once the
 * selection was seen), -1 no memory. */
static int try_output(ir_graph *g, int oi, char *note, size_t cap, char *why, size_t why_cap) {
  const int out = g->outputs[oi];
  const int cp = g->tensors[out].producer;
  if (cp < 0 || !ir_node_is_op(&g->nodes[cp], ONNX_OP_CONCAT) || g->nodes[cp].n_in < 3 || g->nodes[cp].n_in > 4)
    return 0;
  int cone[E2E_MAX_CONE], nn = 0, stack[E2E_MAX_CONE], ns = 0;
  stack[ns++] = cp;
  int reduce = -1, topk[2], ntopk = 0, ngather = 0;
  int leaves[4], nleaves = 0;
  while (ns) {
    const int ni = stack[--ns];
    int seen = 0;
    for (int k = 0; k < nn; k++) seen |= cone[k] == ni;
    if (seen) continue;
    const ir_node *n = &g->nodes[ni];
    if (n->dead || !allowed(n) || nn == E2E_MAX_CONE) return 0;
    cone[nn++] = ni;
    if (ir_node_is_op(n, ONNX_OP_REDUCE_MAX)) {
      if (reduce >= 0) return 0;
      reduce = ni;
    }
    if (ir_node_is_op(n, ONNX_OP_TOPK)) {
      if (ntopk == 2) return 0;
      topk[ntopk++] = ni;
    }
    const int data_only = ir_node_is_op(n, ONNX_OP_GATHER_ELEMENTS) || ir_node_is_op(n, ONNX_OP_REDUCE_MAX);
    ngather += ir_node_is_op(n, ONNX_OP_GATHER_ELEMENTS) || ir_node_is_op(n, ONNX_OP_GATHER);
    for (int k = 0; k < n->n_in; k++) {
      const int t = n->in[k];
      if (t < 0 || is_const(g, t)) continue;
      const int p = g->tensors[t].producer;
      /* the data input of a GatherElements / ReduceMax coming from a Split is a leaf (boxes or
       * scores); everything else must be computed inside the cone */
      if (data_only && k == 0 && p >= 0 && ir_node_is_op(&g->nodes[p], ONNX_OP_SPLIT)) {
        int dup = 0;
        for (int l = 0; l < nleaves; l++) dup |= leaves[l] == t;
        if (!dup) {
          if (nleaves == 4) return 0;
          leaves[nleaves++] = t;
        }
        continue;
      }
      if (p < 0 || ns == E2E_MAX_CONE) return 0;
      stack[ns++] = p;
    }
  }
  if (reduce < 0 || ntopk != 2 || ngather < 2 || nleaves != g->nodes[cp].n_in - 1) return 0;
  int64_t k0, k1;
  if (g->nodes[topk[0]].n_in < 2 || g->nodes[topk[1]].n_in < 2 ||
      ir_const_ints(g, g->nodes[topk[0]].in[1], &k0, 1) != 1 ||
      ir_const_ints(g, g->nodes[topk[1]].in[1], &k1, 1) != 1 || k0 != k1 || k0 < 1)
    return 0;
  for (int t = 0; t < 2; t++) {
    const ir_node *tk = &g->nodes[topk[t]];
    const int64_t ax = ir_attr_int(tk, "axis", -1);
    if (ir_attr_int(tk, "largest", 1) != 1 || (ax != -1 && ax != 1)) return 0;
  }
  { /* the per-anchor maximum is over the class axis (the last of [1, N, nc]), dropped */
    const ir_node *rm = &g->nodes[reduce];
    int64_t axes[2];
    int na = 0;
    const ir_attr *aa = ir_attr_get(rm, "axes");
    if (aa && aa->type == IR_ATTR_INTS && aa->n_ints >= 1 && aa->n_ints <= 2) {
      na = aa->n_ints;
      memcpy(axes, aa->ints, sizeof(int64_t) * (size_t)na);
    } else if (rm->n_in > 1 && rm->in[1] >= 0) {
      na = ir_const_ints(g, rm->in[1], axes, 2);
    }
    if (na != 1 || (axes[0] != -1 && axes[0] != 2) || ir_attr_int(rm, "keepdims", 1) != 0) return 0;
  }
  /* the columns: boxes, score, class, then the third part, each gathered by one anchor index */
  const ir_node *cat = &g->nodes[cp];
  const int64_t cat_axis = ir_attr_int(cat, "axis", 0);
  const int scores = g->nodes[reduce].in[0], sp = g->tensors[scores].producer;
  if (sp < 0 || !ir_node_is_op(&g->nodes[sp], ONNX_OP_SPLIT) || g->nodes[sp].n_out != cat->n_in - 1 ||
      g->nodes[sp].out[1] != scores) {
    snprintf(why, why_cap, "end-to-end selection at output '%.80s': the scores its ReduceMax reads are not part 2 of a "
             "Split into %d parts", g->tensors[out].name, cat->n_in - 1);
    return 0;
  }
  const int boxes = g->nodes[sp].out[0];
  if (leaves[0] != boxes && leaves[1] != boxes && (nleaves < 3 || leaves[2] != boxes)) return 0;
  int64_t nc, ne;
  int split, tr;
  const int x = split_source(g, boxes, scores, &nc, &ne, &split, &tr);
  if (x < 0 || (cat_axis != -1 && cat_axis != 2)) {
    snprintf(why, why_cap, "end-to-end selection at output '%.80s': the rows are not Split [4, nc(, extra)] on the last "
             "axis of a Transpose(0, 2, 1) of [1, 4 + nc (+ extra), N], concatenated on the last axis",
             g->tensors[out].name);
    return 0;
  }
  int box_gather = -1; /* the boxes' GatherElements output, whose anchor index the extra rows must share */
  for (int c = 0; c < nn; c++)
    if (ir_node_is_op(&g->nodes[cone[c]], ONNX_OP_GATHER_ELEMENTS) && g->nodes[cone[c]].in[0] == boxes)
      box_gather = g->nodes[cone[c]].out[0];
  if (ne && (gather_data(g, cat->in[3]) != g->nodes[sp].out[2] || gather_index(g, box_gather) < 0 ||
             gather_index(g, cat->in[3]) != gather_index(g, box_gather))) {
    snprintf(why, why_cap, "end-to-end selection at output '%.80s': its %lld extra columns are not the rows past the "
             "scores gathered by the boxes' anchor index", g->tensors[out].name, (long long)ne);
    return 0;
  }
  /* nothing outside the cone may read what the cone computes */
  for (int c = 0; c < nn; c++) {
    const ir_node *n = &g->nodes[cone[c]];
    for (int o = 0; o < n->n_out; o++) {
      const int t = n->out[o];
      if (t == out) continue;
      if (g->tensors[t].is_output) return 0;
      int readers[E2E_MAX_CONE];
      const int nr = ir_consumers(g, t, readers, E2E_MAX_CONE);
      if (nr > E2E_MAX_CONE) return 0;
      for (int r = 0; r < nr; r++) {
        int in = 0;
        for (int q = 0; q < nn; q++) in |= cone[q] == readers[r];
        if (!in) return 0;
      }
    }
  }
  int in1[1] = {x}, out1[1] = {out};
  const int fused = ir_add_node(g, "detect_topk", "DetectTopK", in1, 1, out1, 1);
  if (fused < 0) return -1;
  char *dom = ir_strdup("yolort");
  if (!dom || ir_set_attr_int(g, fused, "k", k0) || ir_set_attr_int(g, fused, "nc", nc) ||
      ir_set_attr_int(g, fused, "ne", ne)) {
    free(dom);
    return -1;
  }
  free(g->nodes[fused].domain);
  g->nodes[fused].domain = dom;
  /* fp32 as well as dead: they run in float inside detect_topk, so a --keep-fp32 list naming them
   * (yolort-inspect's and --report's float reference names every node) is not an error
   * (lw_detect_keep_filter) */
  for (int c = 0; c < nn; c++) g->nodes[cone[c]].dead = g->nodes[cone[c]].fp32 = 1;
  g->tensors[out].producer = fused;
  /* the split and transpose go when only the cone read them */
  int sr = 0;
  for (int o = 0; o < 2; o++) sr += ir_consumers(g, g->nodes[split].out[o], NULL, 0);
  if (!sr) {
    g->nodes[split].dead = g->nodes[split].fp32 = 1;
    if (!ir_consumers(g, g->nodes[tr].out[0], NULL, 0)) g->nodes[tr].dead = g->nodes[tr].fp32 = 1;
  }
  if (ne)
    snprintf(note, cap, "fused, %d nodes -> detect_topk (top %lld of %lld classes, %lld extra columns carried, no NMS)",
             nn, (long long)k0, (long long)nc, (long long)ne);
  else
    snprintf(note, cap, "fused, %d nodes -> detect_topk (top %lld of %lld classes, no NMS)", nn, (long long)k0,
             (long long)nc);
  return 1;
}

yrt_status lw_fuse_e2e_head(ir_graph *g, int *fused, char *note, size_t cap, yrt_error *err) {
  *fused = 0;
  char why[256] = "";
  for (int oi = 0; oi < g->n_outputs; oi++) {
    const int r = try_output(g, oi, note, cap, why, sizeof why);
    if (r < 0) return yrt_set_error(err, YRT_ERR_NOMEM, "e2e head: out of memory");
    if (r) {
      *fused = 1;
      return YRT_OK;
    }
  }
  /* a TopK left means a selection in the graph that was not taken: refused naming why, never run
   * (or guessed at) */
  for (int i = 0; i < g->n_nodes; i++)
    if (!g->nodes[i].dead && ir_node_is_op(&g->nodes[i], ONNX_OP_TOPK))
      return yrt_set_error(err, YRT_ERR_UNSUPPORTED,
                           "convert: node '%.100s' (TopK) belongs to an end-to-end (NMS-free) head yolort did not "
                           "recognise: %.300s; refused rather than misread",
                           g->nodes[i].name ? g->nodes[i].name : "?",
                           why[0] ? why
                                  : "not Ultralytics' postprocess (Transpose -> Split [4, nc (, extra)] -> ReduceMax "
                                    "-> TopK -> gathers -> TopK -> Concat [1, k, 6 (+ extra)])");
  return YRT_OK;
}

int lw_is_e2e_node(const ir_node *n) {
  return ir_node_is_live_op(n, ONNX_OP_YOLORT_DETECT_TOPK);
}
