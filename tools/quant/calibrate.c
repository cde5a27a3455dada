/* calibrate.c — see calibrate.h. */
#include "calibrate.h"
#include "silu_range.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "file_list.h"
#include "ir.h"
#include "onnx_ops.h"
#include "onnx_reader.h"
#include "observer.h"
#include "onnx_write.h"

/* What yolort-quantize does around a node: the flags of its row in the op table (onnx_ops.c). */
static int has_flag(const ir_node *n, int flag) {
  const onnx_op_row *row = ir_node_op(n);
  return row && (row->flags & flag);
}
/* Data movement: its outputs share its input's parameters. */
static int is_move_op(const ir_node *n) { return has_flag(n, ONNX_F_PTQ_SHARE); }
/* Its activation inputs and outputs are quantized. */
static int is_int8_op(const ir_node *n) { return has_flag(n, ONNX_F_PTQ_QUANTIZE); }

/* Sigmoid whose output only feeds a Mul that also reads the Sigmoid's input: SiLU. */
static int is_silu_sigmoid(const ir_graph *g, const ir_node *n) {
  if (!ir_node_is_op(n, ONNX_OP_SIGMOID) || n->n_in < 1 || n->n_out < 1) return 0;
  int cons[4];
  int nc = ir_consumers(g, n->out[0], cons, 4);
  if (nc != 1 || g->tensors[n->out[0]].is_output) return 0;
  const ir_node *m = &g->nodes[cons[0]];
  if (!ir_node_is_op(m, ONNX_OP_MUL) || m->n_in != 2) return 0;
  return m->in[0] == n->in[0] || m->in[1] == n->in[0];
}

/* Every reader of t computes in float (the head): quantizing t would only add error, so the
 * node producing it keeps a float output (docs/accuracy.md: -0.3 points of mAP50-95 otherwise). */
static int only_float_readers(const ir_graph *g, int t) {
  int cons[64];
  const int n = ir_consumers(g, t, cons, 64);
  if (n <= 0 || n > 64 || g->tensors[t].is_output) return 0;
  for (int i = 0; i < n; i++)
    if (!g->nodes[cons[i]].fp32) return 0;
  return 1;
}

/* Some reader of t computes in int8 or moves data on (an int8 op or data movement outside the
 * float region): a MatMul or another op without an int8 kernel reading t does not count. */
static int has_int8_reader(const ir_graph *g, int t) {
  int cons[64];
  const int n = ir_consumers(g, t, cons, 64);
  for (int i = 0; i < n && i < 64; i++) {
    const ir_node *c = &g->nodes[cons[i]];
    if (!c->fp32 && (is_int8_op(c) || is_move_op(c))) return 1;
  }
  return 0;
}

static int is_activation(const ir_graph *g, int t) {
  if (t < 0) return 0;
  const ir_tensor *x = &g->tensors[t];
  return !x->data && x->dtype == IR_F32 && x->rank > 0;
}

yrt_status calib_stem_nodes(const Onnx__ModelProto *m, int max_stride, char ***names, int *n,
                            yrt_error *err) {
  ir_graph *g = NULL;
  *names = NULL;
  *n = 0;
  yrt_status st = onnx_model_to_ir(m, &g, err);
  if (!st) st = yrt_convert_prepare_float(g, err);
  if (!st) st = ir_stem_nodes(g, max_stride, names, n, err);
  ir_graph_free(g);
  return st;
}

static int name_listed(const char *const *pats, const char *s) {
  for (; pats && *pats && s; pats++)
    if (ir_name_matches(s, *pats)) return 1;
  return 0;
}

yrt_status calib_int16_inputs(const Onnx__ModelProto *m, int first_n, const char *const *patterns,
                              const char *const *exclude, char ***names, int *n, yrt_error *err) {
  ir_graph *g = NULL;
  int *order = NULL, no = 0, taken = 0;
  *names = NULL;
  *n = 0;
  yrt_status st = onnx_model_to_ir(m, &g, err);
  if (!st) st = yrt_convert_prepare_float(g, err);
  if (!st) st = ir_topo_order(g, &order, &no, err);
  if (!st && !(*names = calloc((size_t)no + 1, sizeof(char *)))) st = yrt_set_error(err, YRT_ERR_NOMEM, "out of memory");
  for (int i = 0; !st && i < no; i++) {
    const ir_node *nd = &g->nodes[order[i]];
    if (nd->dead || !ir_node_is_op(nd, ONNX_OP_CONV) || nd->n_in < 1 || nd->in[0] < 0) continue;
    const int first = taken < first_n;
    taken++;
    if (name_listed(exclude, nd->name) || !(first || name_listed(patterns, nd->name))) continue;
    const char *x = g->tensors[nd->in[0]].name;
    int dup = 0;
    for (int k = 0; k < *n && !dup; k++) dup = !strcmp((*names)[k], x);
    if (dup) continue;
    if (!((*names)[*n] = ir_strdup(x))) st = yrt_set_error(err, YRT_ERR_NOMEM, "out of memory");
    else (*n)++;
  }
  free(order);
  ir_graph_free(g);
  if (st) {
    for (int k = 0; *names && k < *n; k++) free((*names)[k]);
    free(*names);
    *names = NULL;
    *n = 0;
  }
  return st;
}

/* y is a Conv output whose readers are exactly a SiLU's Sigmoid and Mul: the Mul output, else -1. */
static int silu_output_of(const ir_graph *g, int y) {
  if (y < 0 || g->tensors[y].is_output) return -1;
  const int p = g->tensors[y].producer;
  if (p < 0 || !ir_node_is_op(&g->nodes[p], ONNX_OP_CONV)) return -1;
  int cons[4];
  if (ir_consumers(g, y, cons, 4) != 2) return -1;
  for (int k = 0; k < 2; k++) {
    const ir_node *sg = &g->nodes[cons[k]], *mul = &g->nodes[cons[1 - k]];
    if (is_silu_sigmoid(g, sg) && sg->in[0] == y && ir_node_is_op(mul, ONNX_OP_MUL) && mul->n_out >= 1)
      return mul->out[0];
  }
  return -1;
}

/* A Concat that only the float head reads joins head outputs (TI YOLO-Pose's box and keypoint
 * convs, one [N, 3 (5 + nc + 3 nk), H, W] map per grid): quantized it would give raw keypoint
 * offsets the step of the objectness logits (keypoints off by 2 px median, 8 px p95 at 192). Run
 * with the head (on this selection's own graph), its convs keep float outputs; concats of such
 * concats too (reverse topological order). */
static yrt_status float_head_concats(ir_graph *g, yrt_error *err) {
  int *order = NULL, n = 0;
  yrt_status st = ir_topo_order(g, &order, &n, err);
  for (int i = n - 1; !st && i >= 0; i--) {
    ir_node *nd = &g->nodes[order[i]];
    if (!nd->dead && !nd->fp32 && ir_node_is_op(nd, ONNX_OP_CONCAT) && nd->n_out == 1 && nd->out[0] >= 0 &&
        only_float_readers(g, nd->out[0]))
      nd->fp32 = 1;
  }
  free(order);
  return st;
}

yrt_status calib_select_tensors(const Onnx__ModelProto *m, const char *const *exclude, char ***names,
                                int *n, int **ties, int **silu_outs, int concat_ties, yrt_error *err) {
  ir_graph *g = NULL;
  *names = NULL;
  *n = 0;
  if (ties) *ties = NULL;
  if (silu_outs) *silu_outs = NULL;
  yrt_status st = onnx_model_to_ir(m, &g, err);
  if (!st) st = yrt_convert_prepare_float(g, err);
  if (!st) st = ir_mark_fp32_region(g, exclude, err);
  if (!st) st = float_head_concats(g, err);
  char *mark = NULL;
  if (!st) {
    mark = calloc((size_t)g->n_tensors + 1, 1);
    if (!mark) st = yrt_set_error(err, YRT_ERR_NOMEM, "quantize: out of memory");
  }
  for (int i = 0; !st && i < g->n_nodes; i++) {
    const ir_node *nd = &g->nodes[i];
    if (nd->dead || nd->fp32 || !is_int8_op(nd)) continue;
    const int silu = is_silu_sigmoid(g, nd);
    for (int k = 0; k < nd->n_in; k++)
      if (is_activation(g, nd->in[k])) mark[nd->in[k]] = 1;
    for (int k = 0; k < nd->n_out; k++)
      if (!silu && is_activation(g, nd->out[k]) && !only_float_readers(g, nd->out[k]))
        mark[nd->out[k]] = 1;
  }
  /* data movement (Reshape, Transpose, Slice, ...) on the int8 side of the graph, reading a
   * quantized tensor and read by int8 ops or more data movement: its outputs are quantized too
   * (tied to its input below), as onnxruntime's quantize_static does, so the converter runs it
   * int8 instead of dequantizing around it (ShuffleNetV2's channel shuffle: Concat -> Reshape ->
   * Transpose -> Reshape -> Slice -> Conv); one a MatMul reads stays as it was (YOLO11's C2PSA) */
  int *order = NULL, n_order = 0;
  if (!st) st = ir_topo_order(g, &order, &n_order, err);
  for (int i = 0; !st && i < n_order; i++) {
    const ir_node *nd = &g->nodes[order[i]];
    if (nd->dead || nd->fp32 || !is_move_op(nd) || is_int8_op(nd) || nd->n_in < 1 || nd->in[0] < 0 ||
        !mark[nd->in[0]])
      continue;
    for (int k = 0; k < nd->n_out; k++)
      if (is_activation(g, nd->out[k]) && has_int8_reader(g, nd->out[k])) mark[nd->out[k]] = 1;
  }
  free(order);
  /* a SiLU's sigmoid output may have been marked as the Mul's input: unmark it */
  for (int i = 0; !st && i < g->n_nodes; i++) {
    const ir_node *nd = &g->nodes[i];
    if (!nd->dead && !nd->fp32 && is_silu_sigmoid(g, nd)) mark[nd->out[0]] = 0;
  }
  int count = 0;
  for (int t = 0; !st && t < g->n_tensors; t++) count += mark[t];
  char **v = NULL;
  if (!st) {
    v = calloc((size_t)count + 1, sizeof(char *));
    if (!v) st = yrt_set_error(err, YRT_ERR_NOMEM, "quantize: out of memory");
  }
  int k = 0;
  for (int t = 0; !st && t < g->n_tensors; t++) {
    if (!mark[t]) continue;
    size_t len = strlen(g->tensors[t].name) + 1;
    v[k] = malloc(len);
    if (!v[k]) {
      st = yrt_set_error(err, YRT_ERR_NOMEM, "quantize: out of memory");
      break;
    }
    memcpy(v[k++], g->tensors[t].name, len);
  }
  /* data movement between two selected tensors: the output shares its input's parameters */
  int *tie = NULL, *slot = NULL, *so = NULL;
  if (!st && (ties || silu_outs)) {
    tie = malloc(sizeof(int) * (size_t)(k ? k : 1));
    so = malloc(sizeof(int) * (size_t)(k ? k : 1));
    slot = malloc(sizeof(int) * (size_t)(g->n_tensors ? g->n_tensors : 1));
    if (!tie || !so || !slot) st = yrt_set_error(err, YRT_ERR_NOMEM, "quantize: out of memory");
  }
  if (!st && (ties || silu_outs)) {
    for (int i = 0; i < k; i++) tie[i] = so[i] = -1;
    for (int t = 0, j = 0; t < g->n_tensors; t++) slot[t] = mark[t] ? j++ : -1;
    for (int t = 0; t < g->n_tensors; t++) {
      const int z = slot[t] >= 0 ? silu_output_of(g, t) : -1;
      if (z >= 0 && slot[z] >= 0) so[slot[t]] = slot[z];
    }
    for (int i = 0; i < g->n_nodes; i++) {
      const ir_node *nd = &g->nodes[i];
      if (nd->dead || nd->fp32 || !is_move_op(nd) || nd->n_in < 1 || nd->in[0] < 0) continue;
      const int src = slot[nd->in[0]];
      for (int o = 0; o < nd->n_out && src >= 0; o++)
        if (nd->out[o] >= 0 && slot[nd->out[o]] >= 0) tie[slot[nd->out[o]]] = src;
    }
    /* A Concat input computed for that Concat alone (a conv, SiLU or Add output nothing else
     * reads) takes the Concat output's parameters: its producer then rounds once, straight to
     * the concatenated scale, where it would otherwise round to its own scale and be rounded
     * again by the Concat's requantization; and the Concat copies it. Data-movement outputs keep
     * their input's parameters (they cannot requantize). */
    for (int i = 0; concat_ties && i < g->n_nodes; i++) {
      const ir_node *nd = &g->nodes[i];
      if (nd->dead || nd->fp32 || !ir_node_is_op(nd, ONNX_OP_CONCAT) || nd->n_out < 1 || nd->out[0] < 0 ||
          slot[nd->out[0]] < 0)
        continue;
      for (int k = 0; k < nd->n_in; k++) {
        const int t = nd->in[k];
        if (t < 0 || slot[t] < 0 || tie[slot[t]] >= 0 || g->tensors[t].is_output) continue;
        const int p = g->tensors[t].producer;
        if (p < 0 || is_move_op(&g->nodes[p])) continue;
        int cons[2];
        if (ir_consumers(g, t, cons, 2) != 1) continue;
        tie[slot[t]] = slot[nd->out[0]];
      }
      /* A Split whose outputs all go into this Concat (C2f / C3k2: cv1 -> Split -> Concat(a, b,
       * m(b)), re-joined by the converter) of a tensor only that Split reads: the tensor takes
       * the Concat's parameters too (its halves follow as data movement), so its conv writes
       * straight into the Concat's buffer (a view, no requantizing copy). Measured: +0.16 and
       * +0.39 mAP50-95 points on two samples, -0.2 ms at 640 (docs/accuracy.md). */
      for (int k = 0; k < nd->n_in; k++) {
        const int t = nd->in[k], sp = t >= 0 ? g->tensors[t].producer : -1;
        if (sp < 0 || !ir_node_is_op(&g->nodes[sp], ONNX_OP_SPLIT) || g->nodes[sp].n_in < 1) continue;
        const ir_node *split = &g->nodes[sp];
        const int x = split->in[0];
        if (x < 0 || slot[x] < 0 || tie[slot[x]] >= 0 || g->tensors[x].is_output) continue;
        const int px = g->tensors[x].producer;
        int cons[2];
        if (px < 0 || is_move_op(&g->nodes[px]) || ir_consumers(g, x, cons, 2) != 1) continue;
        int all_in = 1;
        for (int o = 0; o < split->n_out; o++) {
          int found = 0;
          for (int j = 0; j < nd->n_in; j++) found |= nd->in[j] == split->out[o];
          all_in &= found;
        }
        if (all_in) tie[slot[x]] = slot[nd->out[0]];
      }
    }
  }
  free(slot);
  if (st) {
    for (int i = 0; v && i < k; i++) free(v[i]);
    free(v);
    free(tie);
    free(so);
  } else {
    *names = v;
    *n = k;
    if (ties) *ties = tie;
    else free(tie);
    if (silu_outs) *silu_outs = so;
    else free(so);
  }
  free(mark);
  ir_graph_free(g);
  return st;
}

void calib_result_free(calib_result *r) {
  for (int i = 0; r->t && i < r->n; i++) free(r->t[i].name);
  free(r->t);
  free(r->tie);
  free(r->silu_out);
  free(r->factor);
  r->factor = NULL;
  r->tie = NULL;
  r->silu_out = NULL;
  r->t = NULL;
  r->n = 0;
}

void calib_choose(calib_result *r, yrt_calib_method method, double percentile) {
  for (int i = 0; i < r->n; i++) {
    double lo, hi;
    calib_choose_range(&r->t[i].hist, method, percentile, &lo, &hi);
    if (r->factor) {
      lo *= r->factor[i];
      hi *= r->factor[i];
    }
    calib_int8_params(lo, hi, &r->t[i].scale, &r->t[i].zero_point);
  }
  /* follow tie chains to their source (a Concat output comes after the inputs tied to it) */
  for (int i = 0; r->tie && i < r->n; i++) {
    int s = r->tie[i], hops = 0;
    while (s >= 0 && r->tie[s] >= 0 && hops++ < r->n) s = r->tie[s];
    if (s >= 0) {
      r->t[i].scale = r->t[s].scale;
      r->t[i].zero_point = r->t[s].zero_point;
    }
  }
  /* a conv output only a SiLU reads: only the range the SiLU table can tell apart (its SiLU
   * output's parameters, tied above, are final: conv outputs read by a SiLU are never tied) */
  for (int i = 0; r->silu_range && r->silu_out && i < r->n; i++) {
    const int z = r->silu_out[i];
    if (z < 0) continue;
    double lo, hi;
    calib_choose_range(&r->t[i].hist, method, percentile, &lo, &hi);
    const double sz = r->t[z].scale, z_hi = (127.0 - r->t[z].zero_point) * sz;
    silu_input_range(sz, z_hi, &lo, &hi);
    calib_int8_params(lo, hi, &r->t[i].scale, &r->t[i].zero_point);
  }
}

yrt_status calib_collect(const Onnx__ModelProto *m, const char *calib_dir, const calib_options *o,
                         calib_result *out, yrt_error *err) {
  memset(out, 0, sizeof *out);
  char **names = NULL;
  int n = 0;
  int *ties = NULL;
  int *silu_outs = NULL;
  yrt_status st = calib_select_tensors(m, o->exclude, &names, &n, &ties, &silu_outs, !o->no_concat_ties, err);
  out->tie = ties;
  out->silu_out = silu_outs;
  out->silu_range = 1;
  if (st) return st;
  out->t = calloc((size_t)n + 1, sizeof(calib_tensor));
  if (!out->t) st = yrt_set_error(err, YRT_ERR_NOMEM, "quantize: out of memory");
  for (int i = 0; !st && i < n; i++) {
    out->t[i].name = names[i];
    names[i] = NULL;
    calib_hist_init(&out->t[i].hist);
    out->n = i + 1;
  }
  file_list files = {NULL, 0};
  observer ob;
  memset(&ob, 0, sizeof ob);
  if (!st) st = file_list_images(calib_dir, &files, err);
  if (!st) {
    char **v = malloc(sizeof(char *) * (size_t)(n ? n : 1));
    if (!v) st = yrt_set_error(err, YRT_ERR_NOMEM, "quantize: out of memory");
    for (int i = 0; !st && i < n; i++) v[i] = out->t[i].name;
    if (!st) st = observer_open(&ob, m, v, n, NULL, o->threads, err);
    free(v);
  }
  int total = files.n;
  if (o->max_images > 0 && o->max_images < total) total = o->max_images;
  const double t0 = progress_clock();
  for (int i = 0; !st && i < total; i++) {
    st = observer_run_image(&ob, files.paths[i], err);
    for (int k = 0; !st && k < n; k++) {
      yrt_tensor_view v;
      st = observer_get(&ob, k, &v, err);
      if (!st) calib_hist_add(&out->t[k].hist, v.data, v.count);
    }
    out->images = i + 1;
    if (!o->quiet) progress_bar(i + 1, total, "calibrating", t0);
  }
  if (!st) calib_choose(out, o->method, o->percentile);
  observer_close(&ob);
  file_list_free(&files);
  for (int i = 0; i < n; i++) free(names[i]);
  free(names);
  if (st) calib_result_free(out);
  return st;
}

yrt_status calib_write_qdq(Onnx__ModelProto *m, const calib_result *r, const calib_options *o,
                           yrt_error *err) {
  qdq_act *acts = calloc((size_t)r->n + 1, sizeof(qdq_act));
  if (!acts) return yrt_set_error(err, YRT_ERR_NOMEM, "quantize: out of memory");
  for (int i = 0; i < r->n; i++) {
    acts[i].name = r->t[i].name;
    acts[i].scale = r->t[i].scale;
    acts[i].zero_point = r->t[i].zero_point;
    /* int16 (W8A16): symmetric over the exact extremes seen; 256x the int8 steps leave no need
     * to clip */
    const double amax = fmax(fabs(r->t[i].hist.min), fabs(r->t[i].hist.max));
    if (name_listed(o->int16_acts, r->t[i].name) && amax > 0 && amax < 1e30) {
      acts[i].int16 = 1;
      acts[i].scale = (float)(amax / 32767.0);
      acts[i].zero_point = 0;
    }
  }
  qdq_plan plan = {acts, r->n, o->uint8_acts, o->exclude, o->weight_scale, o->float_head_weights};
  yrt_status st = qdq_write(m, &plan, err);
  free(acts);
  return st;
}

yrt_status calib_qdq_from_folded(const uint8_t *folded, size_t folded_size, const calib_result *r,
                                 const calib_options *o, Onnx__ModelProto **out, yrt_error *err) {
  Onnx__ModelProto *m = NULL;
  yrt_status st = onnx_model_load_memory(folded, folded_size, &m, err);
  if (!st) st = calib_write_qdq(m, r, o, err);
  if (st) {
    onnx_model_free(m);
    m = NULL;
  }
  *out = m;
  return st;
}
