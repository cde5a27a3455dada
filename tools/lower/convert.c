/* convert.c — the converter pipeline (passes, fusion, lowering, memory plan, writer) and its
 * report. */
#include "convert.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify_task.h"
#include "cut_graph_nms.h"
#include "fuse_detect_head.h"
#include "fuse_e2e_head.h"
#include "fuse_obj_head.h"
#include "fuse_obb_head.h"
#include "fuse_pose_head.h"
#include "ir_preprocess.h"
#include "lower_internal.h"
#include "segment_task.h"

/* Fix the image input's dynamic axes: batch 1, channels 3, height and width from the options,
 * else the metadata's imgsz. The error names the flag that fixes it. */
static yrt_status fix_input_size(ir_graph *g, const yrt_convert_options *o, yrt_error *err) {
  const int oh = o ? o->input_h : 0, ow = o ? o->input_w : 0;
  if (g->n_inputs != 1 || g->tensors[g->inputs[0]].rank != 4) {
    if (oh || ow) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "convert: --size needs one NCHW image input");
    return YRT_OK;
  }
  ir_tensor *x = &g->tensors[g->inputs[0]];
  if (oh < 0 || ow < 0 || oh > 65536 || ow > 65536)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "convert: --size %dx%d outside 1..65536", oh, ow);
  int64_t d[4] = {x->dims[0] < 0 ? 1 : x->dims[0], x->dims[1] < 0 ? 3 : x->dims[1], x->dims[2], x->dims[3]};
  const int fixed = d[2] > 0 && d[3] > 0;
  if (fixed) {
    if (oh && (d[2] != oh || d[3] != ow))
      return yrt_set_error(err, YRT_ERR_INVALID_ARG,
                           "convert: input '%s' is fixed at %lldx%lld (HxW); --size %dx%d only sets the size of a "
                           "model exported with dynamic axes",
                           x->name, (long long)d[2], (long long)d[3], oh, ow);
  } else {
    const int h = oh ? oh : g->imgsz_h, w = oh ? ow : g->imgsz_w;
    if (h < 1 || w < 1)
      return yrt_set_error(err, YRT_ERR_UNSUPPORTED,
                           "convert: input '%s' has dynamic height/width and the model records no imgsz: give the "
                           "size with yolort-convert --size N or --size HxW (e.g. --size 640)",
                           x->name);
    if ((d[2] > 0 && d[2] != h) || (d[3] > 0 && d[3] != w))
      return yrt_set_error(err, YRT_ERR_INVALID_ARG, "convert: input '%s' is fixed at height %lld / width %lld, not %dx%d",
                           x->name, (long long)d[2], (long long)d[3], h, w);
    d[2] = h;
    d[3] = w;
  }
  if (ir_tensor_set_shape(x, 4, d)) return yrt_set_error(err, YRT_ERR_NOMEM, "convert: out of memory");
  return YRT_OK;
}

static yrt_status convert_graph(ir_graph *g, const yrt_convert_options *o, void **yrt, size_t *size,
                                yrt_convert_report *rep, yrt_error *err);

/* The head fusions' float evaluator (lw_head_lower_fn): a head subgraph lowered on its own, in
 * float, with its outputs as they are. The passes receive it as a parameter, so they never
 * include the converter that runs them. */
static yrt_status lower_head_subgraph(ir_graph *sub, void **yrt, size_t *size, yrt_error *err) {
  yrt_convert_report *rep = malloc(sizeof *rep);
  if (!rep) return yrt_set_error(err, YRT_ERR_NOMEM, "fuse head: out of memory");
  yrt_convert_options o;
  memset(&o, 0, sizeof o);
  o.no_fuse_head = 1;
  o.no_views = 1;
  o.raw_outputs = 1;
  o.source = "head";
  const yrt_status st = convert_graph(sub, &o, yrt, size, rep, err);
  free(rep);
  return st;
}

/* After the Detect fusion: a pose head's keypoint decode as one node too. A model whose
 * metadata says pose and whose keypoints were not recognised is refused: its rows would be read
 * as something they are not. */
static yrt_status fuse_keypoints(ir_graph *g, yrt_convert_report *rep, yrt_error *err) {
  int fused = 0, removed = 0;
  char note[320];
  yrt_status st = lw_fuse_pose_head(g, lower_head_subgraph, &fused, &removed, note, sizeof note, err);
  if (st != YRT_OK) return st;
  const int pose = (g->task && strcmp(g->task, "pose") == 0) || g->kpt_shape[0] > 0;
  if (!fused && pose)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED,
                         "convert: the model's task is 'pose' (metadata_props), but its keypoint decode is not the "
                         "Ultralytics Pose head's: %.300s; refused rather than misread",
                         note);
  if (!fused) return YRT_OK;
  rep->head_fused_nodes += removed;
  const size_t len = strlen(rep->head_note);
  snprintf(rep->head_note + len, sizeof rep->head_note - len, "; keypoints: %s", note);
  return YRT_OK;
}

/* The head's decode as one node: the Ultralytics Detect head, else an objectness head (YOLOv5 /
 * v7 / YOLOX). When neither fits, the note says why each was not taken. */
static yrt_status fuse_head(ir_graph *g, const yrt_convert_options *o, yrt_convert_report *rep, yrt_error *err) {
  yrt_status st = lw_fuse_detect_head(g, lower_head_subgraph, &rep->head_fused, &rep->head_fused_nodes, rep->head_note,
                                      sizeof rep->head_note, err);
  if (st == YRT_OK && rep->head_fused) st = fuse_keypoints(g, rep, err);
  if (st != YRT_OK || rep->head_fused) return st;
  char detect_why[sizeof rep->head_note];
  snprintf(detect_why, sizeof detect_why, "%s", rep->head_note);
  st = lw_fuse_obj_head(g, lower_head_subgraph, o ? o->anchors : NULL, o ? o->n_anchors : 0, &rep->head_fused, &rep->head_fused_nodes,
                        rep->head_note, sizeof rep->head_note, err);
  if (st != YRT_OK || rep->head_fused) return st;
  char obj_why[sizeof rep->head_note];
  snprintf(obj_why, sizeof obj_why, "%s", rep->head_note);
  char both[2 * sizeof rep->head_note + 64];
  snprintf(both, sizeof both, "not an Ultralytics Detect head (%s) nor an objectness head (%s)", detect_why, obj_why);
  const size_t len = strnlen(both, sizeof rep->head_note - 1);
  memcpy(rep->head_note, both, len);
  rep->head_note[len] = 0;
  return YRT_OK;
}

/* An output0 whose rows are not the detection rows [1, 4 + nc, N] that every reader of a .yrt
 * takes it for, when no head fusion made it so: refused, never guessed (a YOLOv5 or YOLOX
 * output [1, N, 5 + nc] read as [1, 4 + nc, N] prints garbage). */
static yrt_status refuse_unknown_layout(const ir_graph *g, const yrt_convert_report *rep, yrt_error *err) {
  if (rep->head_fused || rep->e2e || g->n_outputs < 1) return YRT_OK;
  /* only an image model's output is read as detections (a generic graph's is taken as it is) */
  if (g->n_inputs != 1 || g->tensors[g->inputs[0]].rank != 4 || g->tensors[g->inputs[0]].dims[1] != 3) return YRT_OK;
  const ir_tensor *y = &g->tensors[g->outputs[0]];
  if (y->rank == 3 && y->dims[0] == 1 && y->dims[1] > y->dims[2])
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED,
                         "convert: output '%.100s' is [1, %lld, %lld], a row per anchor: a head yolort did not recognise "
                         "(%.240s); refused rather than misread",
                         y->name, (long long)y->dims[1], (long long)y->dims[2], rep->head_note);
  if (y->rank == 5)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED,
                         "convert: output '%.100s' is a raw per-grid head map [%lld, %lld, %lld, %lld, %lld] that no "
                         "head fusion took (%.360s)",
                         y->name, (long long)y->dims[0], (long long)y->dims[1], (long long)y->dims[2],
                         (long long)y->dims[3], (long long)y->dims[4], rep->head_note);
  return YRT_OK;
}

/* An obb model whose rotated decode no fusion made (--no-fuse-head, --exact-qdq, or a head that
 * is not Ultralytics' OBB): its angle row would be read as a class. */
static yrt_status refuse_unfused_obb(const ir_graph *g, const yrt_convert_report *rep, yrt_error *err) {
  if (!(g->task && strcmp(g->task, "obb") == 0)) return YRT_OK;
  for (int i = 0; i < g->n_nodes; i++)
    if (!g->nodes[i].dead && lw_is_obb_node(&g->nodes[i])) return YRT_OK;
  return yrt_set_error(err, YRT_ERR_UNSUPPORTED,
                       "convert: the model's task is 'obb' (metadata_props) and its rotated-box decode was not fused "
                       "(%.300s): its angle row would be read as a class; refused rather than misread",
                       rep->head_note);
}

/* A pose model whose keypoints no fusion decoded (--no-fuse-head, --exact-qdq): its keypoint
 * rows would be read as classes (scores of 200 for "class10"). */
static yrt_status refuse_unfused_pose(const ir_graph *g, const yrt_convert_report *rep, yrt_error *err) {
  if (!(g->task && strcmp(g->task, "pose") == 0) && g->kpt_shape[0] <= 0) return YRT_OK;
  for (int i = 0; i < g->n_nodes; i++)
    if (lw_is_pose_node(&g->nodes[i])) return YRT_OK;
  return yrt_set_error(err, YRT_ERR_UNSUPPORTED,
                       "convert: the model's task is 'pose' (metadata_props) and its keypoint decode was not fused "
                       "(%.200s): its keypoint rows would be read as classes; convert without --no-fuse-head / "
                       "--exact-qdq",
                       rep->head_note);
}

static yrt_status run_passes(ir_graph *g, const yrt_convert_options *o, yrt_convert_report *rep,
                             yrt_error *err) {
  yrt_status st;
  if ((st = lw_cut_graph_nms(g, &rep->nms_cut, rep->nms_note, sizeof rep->nms_note, rep->nms_node,
                             sizeof rep->nms_node, err)) != YRT_OK) return st;
  if ((st = fix_input_size(g, o, err)) != YRT_OK) return st;
  if (o && o->kpt_shape[0] > 0) g->kpt_shape[0] = o->kpt_shape[0], g->kpt_shape[1] = o->kpt_shape[1];
  rep->n_half = g->n_half;
  if ((st = ir_lower_qoperators(g, &rep->n_qoperators, err)) != YRT_OK) return st;
  if ((st = ir_fold_constants(g, err)) != YRT_OK) return st;
  if ((st = ir_recover_integer_ops(g, &rep->n_dynamic, err)) != YRT_OK) return st;
  if ((st = ir_gemm_as_matmul(g, &rep->n_gemm, err)) != YRT_OK) return st;
  if ((st = lw_fuse_e2e_head(g, &rep->e2e, rep->e2e_note, sizeof rep->e2e_note, err)) != YRT_OK) return st;
  if ((st = ir_infer_shapes(g, err)) != YRT_OK) return st;
  int nc = 0;
  if ((st = lw_classify_recognise(g, &rep->classify, &nc, &rep->class_logits, rep->classify_note,
                                  sizeof rep->classify_note, err)) != YRT_OK)
    return st;
  if ((st = ir_dynamic_linear_as_conv(g, &rep->n_linear_conv, err)) != YRT_OK) return st;
  if ((st = ir_avgpool_as_conv(g, &rep->n_avgpool, err)) != YRT_OK) return st;
  if ((st = ir_fold_batchnorm(g, err)) != YRT_OK) return st;
  if ((st = ir_qdq_annotate(g, err)) != YRT_OK) return st;
  /* not under --exact-qdq: onnxruntime computes a QAT graph's in-between tensors in float */
  if (!(o && (o->no_qat_propagate || o->exact_qdq))) rep->n_qat_propagated = ir_qdq_propagate(g);
  /* Before the fp32 region: the quantization of the head's constants is still known here. */
  if (o && o->exact_qdq)
    snprintf(rep->head_note, sizeof rep->head_note, "not fused (--exact-qdq keeps onnxruntime's QDQ head)");
  else if (o && o->no_fuse_head)
    snprintf(rep->head_note, sizeof rep->head_note, "not fused (disabled)");
  else if (rep->classify) /* class scores, not boxes: no decode to fuse */
    rep->head_note[0] = '\0';
  else if ((st = fuse_head(g, o, rep, err)) != YRT_OK)
    return st;
  if (rep->head_fused) { /* a task-less export's mask coefficients: recognised, never classes */
    char seg[256];
    if ((st = lw_segment_recognise(g, seg, sizeof seg, err)) != YRT_OK) return st;
    const size_t l = strlen(rep->head_note);
    if (seg[0] && l + 2 < sizeof rep->head_note) snprintf(rep->head_note + l, sizeof rep->head_note - l, "; %s", seg);
  }
  if (!(o && o->raw_outputs) && (st = refuse_unknown_layout(g, rep, err)) != YRT_OK) return st;
  if (!(o && o->raw_outputs) && (st = refuse_unfused_pose(g, rep, err)) != YRT_OK) return st;
  if (!(o && o->raw_outputs) && (st = refuse_unfused_obb(g, rep, err)) != YRT_OK) return st;
  if (rep->nms_cut && !rep->head_fused && !(o && o->raw_outputs)) /* our NMS needs rows we decoded */
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED,
                         "convert: node '%.100s' is a NonMaxSuppression inside the graph and the rows before it are "
                         "not a head yolort recognised (%.200s). Export with nms=False", rep->nms_node, rep->head_note);
  const char **keep = NULL;
  if ((rep->head_fused || rep->e2e) && o && o->keep_fp32 && !(keep = lw_detect_keep_filter(g, o->keep_fp32)))
    return yrt_set_error(err, YRT_ERR_NOMEM, "convert: out of memory");
  /* a classifier has no detection head: nothing after its Flatten is forced into float */
  st = ir_mark_fp32_region_ex(g, keep ? keep : (o ? o->keep_fp32 : NULL), !(o && o->exact_qdq) && !rep->classify,
                              err);
  free(keep);
  if (st != YRT_OK) return st;
  if (!(o && (o->no_ties || o->exact_qdq))) rep->n_tied = ir_qdq_tie_concat(g);
  rep->n_split_concat = ir_merge_split_concat(g);
  return ir_compact(g, err);
}

yrt_status yrt_convert_prepare_float(ir_graph *g, yrt_error *err) {
  int fused = 0;
  char note[160];
  int cut = 0;
  char cut_note[8];
  yrt_status st = lw_cut_graph_nms(g, &cut, cut_note, sizeof cut_note, NULL, 0, err);
  if (!st) st = ir_fold_constants(g, err);
  if (!st) st = ir_gemm_as_matmul(g, NULL, err);
  if (!st) st = lw_fuse_e2e_head(g, &fused, note, sizeof note, err);
  if (!st) st = ir_infer_shapes(g, err);
  if (!st) st = ir_avgpool_as_conv(g, NULL, err);
  return st;
}

static yrt_status add_inputs(lw_ctx *c) {
  ir_graph *g = c->g;
  c->cur = "graph input";
  for (int i = 0; i < g->n_inputs; i++) {
    int irt = g->inputs[i];
    const ir_tensor *t = &g->tensors[irt];
    if (t->dtype != IR_F32)
      return lw_err(c, YRT_ERR_UNSUPPORTED, "graph input '%s': only float32 inputs", t->name);
    int x = lw_def(c, irt, 0, t->rank == 4 ? YRT_LAYOUT_NHWC : YRT_LAYOUT_PLAIN);
    if (x < 0) return c->status;
    c->t[x].kind = YRT_TENSOR_INPUT;
    c->inputs[c->n_inputs++] = x;
  }
  return YRT_OK;
}

static yrt_status add_outputs(lw_ctx *c) {
  ir_graph *g = c->g;
  c->cur = "graph output";
  for (int i = 0; i < g->n_outputs; i++) {
    int irt = g->outputs[i];
    const ir_tensor *it = &g->tensors[irt];
    int o = lw_get(c, irt, 0, YRT_LAYOUT_PLAIN);
    if (o < 0) return c->status;
    lw_tensor *t = &c->t[o];
    if (t->kind == YRT_TENSOR_CONST || t->kind == YRT_TENSOR_INPUT)
      return lw_err(c, YRT_ERR_UNSUPPORTED,
                    "graph output '%s' is a constant or a graph input: nothing to compute",
                    it->name);
    t->kind = YRT_TENSOR_OUTPUT;
    if (strcmp(t->name, it->name) != 0) { /* the output carries the ONNX name */
      for (int k = 0; k < c->nt; k++) {
        if (k != o && strcmp(c->t[k].name, it->name) == 0) {
          char *tmp = c->t[k].name;
          c->t[k].name = c->t[o].name;
          c->t[o].name = tmp;
          break;
        }
      }
    }
    c->outputs[c->n_outputs++] = o;
  }
  return YRT_OK;
}

static void print_nodes(const lw_ctx *c, FILE *f) {
  for (int i = 0; i < c->nn; i++) {
    const lw_node *n = &c->n[i];
    const lw_tensor *o = &c->t[n->out[0]];
    fprintf(f, "  [%3d] %-14s %-4s %s ->", i, yrt_op_name(n->op),
            o->dtype == YRT_I8 ? "i8" : "f32", n->name);
    for (int k = 0; k < n->n_out; k++) {
      const lw_tensor *t = &c->t[n->out[k]];
      fprintf(f, " %s[", t->name);
      for (int d = 0; d < t->rank; d++) fprintf(f, "%s%lld", d ? "," : "", (long long)t->dims[d]);
      fprintf(f, "]%s @%llu", t->layout == YRT_LAYOUT_NHWC ? "nhwc" : "",
              (unsigned long long)t->offset);
      if (t->view_holder) fprintf(f, " (view: channel %d of %s)", t->view_ch, c->t[t->view_holder - 1].name);
    }
    fprintf(f, "\n");
  }
}

static yrt_status convert_graph(ir_graph *g, const yrt_convert_options *o, void **yrt, size_t *size,
                             yrt_convert_report *rep, yrt_error *err) {
  if (!g || !yrt || !size)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_convert_graph: NULL argument");
  *yrt = NULL;
  *size = 0;
  yrt_convert_report local;
  if (!rep) rep = &local;
  memset(rep, 0, sizeof *rep);
  /* Models whose output rows are not boxes and class scores are refused, never decoded as
   * boxes (keypoints or angles would print as detections). Classifiers convert (their output
   * is class scores, read by yrt_session_classify; no detect decode runs on them). */
  if (g->task && strcmp(g->task, "detect") != 0 && strcmp(g->task, "segment") != 0 &&
      strcmp(g->task, "classify") != 0 && strcmp(g->task, "pose") != 0 && strcmp(g->task, "obb") != 0) {
    if (g->kpt_shape[0] > 0)
      return yrt_set_error(err, YRT_ERR_UNSUPPORTED,
                           "convert: the model's task is '%.32s' (metadata_props; %d keypoints x %d values per box): "
                           "yolort runs 'detect', 'segment', 'pose', 'obb' and 'classify' models only",
                           g->task, g->kpt_shape[0], g->kpt_shape[1]);
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED,
                         "convert: the model's task is '%.32s' (metadata_props): yolort runs 'detect', 'segment', "
                         "'pose', 'obb' and 'classify' models only",
                         g->task);
  }
  yrt_status st = run_passes(g, o, rep, err);
  if (st != YRT_OK) return st;
  if (o && o->class_names) { /* after the head fusion: the metadata's names may steer it, these not */
    char *names = strdup(o->class_names);
    if (!names) return yrt_set_error(err, YRT_ERR_NOMEM, "convert: out of memory");
    free(g->class_names);
    g->class_names = names;
  }
  if (g->n_inputs < 1 || g->n_outputs < 1)
    return yrt_set_error(err, YRT_ERR_FORMAT, "convert: graph has %d inputs and %d outputs",
                         g->n_inputs, g->n_outputs);
  lw_ctx c;
  st = lw_init(&c, g, o, rep, err);
  if (st != YRT_OK) return st;
  int *order = NULL, n_order = 0;
  if ((st = lw_fuse_silu(&c)) != YRT_OK) goto done;
  if ((st = lw_fuse_act(&c)) != YRT_OK) goto done;
  if ((st = lw_fuse_token_matmul(&c)) != YRT_OK) goto done;
  if ((st = lw_fuse_softmax_lut(&c)) != YRT_OK) goto done;
  if ((st = add_inputs(&c)) != YRT_OK) goto done;
  if ((st = ir_topo_order(g, &order, &n_order, err)) != YRT_OK) goto done;
  for (int i = 0; i < n_order; i++)
    if ((st = lw_lower_node(&c, order[i])) != YRT_OK) goto done;
  if ((st = add_outputs(&c)) != YRT_OK) goto done;
  if (c.nn > YRT_MAX_NODES || c.nt > YRT_MAX_TENSORS) { /* before the planners, which are not linear */
    st = yrt_set_error(err, YRT_ERR_UNSUPPORTED, "convert: %d nodes and %d tensors, more than a .yrt holds (%d, %d)",
                       c.nn, c.nt, YRT_MAX_NODES, YRT_MAX_TENSORS);
    goto done;
  }
  lw_schedule_adds(&c);
  if (!(o && o->no_views) && (st = lw_plan_views(&c, &rep->n_views)) != YRT_OK) goto done;
  if ((st = lw_plan_memory(&c)) != YRT_OK) goto done;
  uint32_t flags = 0;
  if (g->synthetic || (o && o->synthetic)) flags |= YRT_FLAG_SYNTHETIC;
  for (int i = 0; i < c.nn; i++) {
    const lw_node *n = &c.n[i];
    /* a dynamically quantized conv (f32 in and out, int8 weights) computes in int8 */
    int i8 = c.t[n->out[0]].dtype == YRT_I8 || (n->op == YRT_OP_CONV2D && n->n_in > 1 && c.t[n->in[1]].dtype == YRT_I8);
    if (n->op < YRT_OP_COUNT_) (i8 ? rep->n_int8 : rep->n_fp32)[n->op]++;
    if (i8) rep->n_int8_nodes++;
  }
  if (rep->n_int8_nodes || rep->n_dynconv) flags |= YRT_FLAG_INT8;
  if (rep->classify && rep->class_logits) flags |= YRT_FLAG_CLASS_LOGITS;
  if (c.n_outputs > 0)
    for (int i = 0; i < c.nn; i++)
      if (c.n[i].op == YRT_OP_DETECT_TOPK && c.n[i].out[0] == c.outputs[0]) flags |= YRT_FLAG_END2END;
  for (int i = 0; i < c.nn; i++) /* older runtimes must refuse the raw angle, not read it as sigmoid */
    if (c.n[i].op == YRT_OP_OBB_DECODE && c.n[i].p[YRT_OBB_P_FORM] == YRT_OBB_RAW) flags |= YRT_FLAG_OBB_RAW;
  /* precedence: --preprocess, then the metadata's own (read first), then a family a head fusion
   * recognised (it fills g->pre only when unset: YOLOX), then the default */
  if (o && o->preprocess && o->preprocess->set) g->pre = *o->preprocess;
  uint64_t wbytes = 0;
  st = lw_write(&c, o && o->source ? o->source : "onnx", flags, yrt, size, &wbytes);
  if (st != YRT_OK) goto done;
  { /* whatever the converter writes, its own loader must accept (an output listed twice, an
     * infinite scale... were written and then refused by every program that loaded them) */
    yrt_model *chk = NULL;
    yrt_error lerr;
    lerr.msg[0] = 0;
    if ((st = yrt_model_load_memory(*yrt, *size, 0, &chk, &lerr)) != YRT_OK) {
      st = yrt_set_error(err, YRT_ERR_UNSUPPORTED, "convert: the .yrt it would write does not load: %.400s", lerr.msg);
      free(*yrt);
      *yrt = NULL;
      *size = 0;
      goto done;
    }
    yrt_model_free(chk);
  }
  {
    yrt_preprocess pp;
    if (ir_preprocess_resolve(&g->pre, &pp, NULL, 0) == 0) ir_preprocess_describe(&pp, rep->preprocess, sizeof rep->preprocess);
    snprintf(rep->preprocess_why, sizeof rep->preprocess_why, "%s",
             !g->pre.set ? "default" : g->pre.why[0] ? g->pre.why : "the converter");
  }
  rep->n_nodes = c.nn;
  rep->n_tensors = c.nt;
  rep->weight_bytes = wbytes;
  rep->arena_bytes = c.arena_bytes;
  rep->file_bytes = *size;
  rep->synthetic = (flags & YRT_FLAG_SYNTHETIC) != 0;
  rep->int8 = (flags & YRT_FLAG_INT8) != 0;
  {
    yrt_file_view im;
    if (yrt_file_map(*yrt, *size, &im, NULL) == YRT_OK) {
      rep->input_w = (int)im.meta->input_w;
      rep->input_h = (int)im.meta->input_h;
      rep->num_classes = (int)im.meta->num_classes;
      rep->no_names = im.meta->class_names == 0;
      if (g->class_names && g->class_names[0] && im.meta->class_names == 0) {
        size_t len = strlen(g->class_names), n = 1;
        if (g->class_names[len - 1] == '\n') len--;
        for (size_t i = 0; i < len; i++) n += g->class_names[i] == '\n';
        if (o && o->class_names) { /* asked for: never dropped silently */
          st = yrt_set_error(err, YRT_ERR_INVALID_ARG, "convert: --names gives %zu class names, the model has %d classes",
                             n, rep->num_classes);
          free(*yrt);
          *yrt = NULL;
          *size = 0;
          goto done;
        }
        snprintf(rep->names_note, sizeof rep->names_note,
                 "the metadata lists %zu class names for %d classes: names ignored (numbered classes)", n,
                 rep->num_classes);
      }
    }
  }
  if (o && o->verbose) print_nodes(&c, stderr);
done:
  free(order);
  lw_free(&c);
  return st;
}

/* A segment model that does not convert (its mask branch, or a head whose coefficient rows do
 * not match its prototypes) is refused naming its task. */
yrt_status yrt_convert_graph(ir_graph *g, const yrt_convert_options *o, void **yrt, size_t *size,
                             yrt_convert_report *rep, yrt_error *err) {
  yrt_status st = convert_graph(g, o, yrt, size, rep, err);
  if (st != YRT_OK && st != YRT_ERR_NOMEM && g && g->task && strcmp(g->task, "segment") == 0 && err) {
    char why[sizeof err->msg];
    snprintf(why, sizeof why, "%s", err->msg);
    yrt_set_error(err, st, "convert: the model's task is 'segment' (metadata_props) and it does not convert: %.400s",
                  why);
  }
  return st;
}

yrt_status yrt_convert_onnx_file(const char *onnx_path, const yrt_convert_options *o, void **yrt,
                                 size_t *size, yrt_convert_report *rep, yrt_error *err) {
  if (!onnx_path || !yrt || !size)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_convert_onnx_file: NULL argument");
  ir_graph *g = NULL;
  yrt_status st = onnx_read_file(onnx_path, &g, err);
  if (st != YRT_OK) return st;
  yrt_convert_options opt;
  memset(&opt, 0, sizeof opt);
  if (o) opt = *o;
  if (!opt.source) {
    const char *base = strrchr(onnx_path, '/');
    opt.source = base ? base + 1 : onnx_path;
  }
  st = yrt_convert_graph(g, &opt, yrt, size, rep, err);
  ir_graph_free(g);
  return st;
}

static void print_bytes(FILE *f, const char *what, uint64_t b) {
  if (b >= 1024 * 1024)
    fprintf(f, "%s %.2f MiB (%llu bytes)", what, (double)b / (1024.0 * 1024.0),
            (unsigned long long)b);
  else
    fprintf(f, "%s %.1f KiB (%llu bytes)", what, (double)b / 1024.0, (unsigned long long)b);
}

void yrt_convert_report_print(const yrt_convert_report *r, FILE *f) {
  if (!r || !f) return;
  fprintf(f, "converted: %d ONNX nodes -> %d yrt nodes (%d int8, %d float), %d tensors%s\n",
          r->n_onnx_nodes, r->n_nodes, r->n_int8_nodes, r->n_nodes - r->n_int8_nodes,
          r->n_tensors, r->synthetic ? ", SYNTHETIC weights" : "");
  if (r->input_w > 1 || r->input_h > 1) {
    fprintf(f, "input %dx%d, %d classes\n", r->input_w, r->input_h, r->num_classes);
    if (r->preprocess[0]) fprintf(f, "preprocessing: %s (%s)\n", r->preprocess, r->preprocess_why);
  }
  else if (r->input_w)
    fprintf(f, "input 0 is not a 3-channel float image: no letterbox size; yolort-detect and yolort-eval "
               "refuse it, feed it with yrt_session_set_input\n");
  if (r->names_note[0]) fprintf(f, "warning: %s\n", r->names_note);
  fprintf(f, "  %-16s %6s %6s\n", "op", "int8", "fp32");
  for (int op = 1; op < YRT_OP_COUNT_; op++)
    if (r->n_int8[op] || r->n_fp32[op])
      fprintf(f, "  %-16s %6d %6d\n", yrt_op_name((uint32_t)op), r->n_int8[op],
              r->n_fp32[op]);
  fprintf(f, "fused Conv+SiLU: %d, layout transposes inserted: %d, Split+Concat re-joins removed: %d\n",
          r->n_fused_silu, r->n_layout_transposes, r->n_split_concat);
  if (r->n_fused_act) fprintf(f, "fused Conv+Relu / LeakyRelu: %d\n", r->n_fused_act);
  fprintf(f, "zero-copy views: %d (conv outputs written into Concat buffers, Split halves read in place)\n",
          r->n_views);
  if (r->n_tied)
    fprintf(f, "Concat ties: %d tensors take their Concat's quantization (not requantized twice)\n", r->n_tied);
  if (r->n_avgpool)
    fprintf(f, "average pools run as depthwise convs (weights 1/k^2): %d\n", r->n_avgpool);
  if (r->n_half)
    fprintf(f, "float16 export: %d constants widened to float32 (exactly); the model runs in float32 "
            "(yolort-quantize makes it int8)\n", r->n_half);
  if (r->n_qoperators)
    fprintf(f, "QOperator layout: %d QLinear nodes read as DequantizeLinear -> float op -> QuantizeLinear\n",
            r->n_qoperators);
  if (r->n_qat_propagated)
    fprintf(f, "QAT layout (Q/DQ on conv inputs only): quantization propagated to %d tensors\n",
            r->n_qat_propagated);
  if (r->n_i8f32)
    fprintf(f, "int8 convs with float output: %d (int8 input and weights, output read by float code)\n",
            r->n_i8f32);
  if (r->n_conv16)
    fprintf(f, "int16 activations (W8A16): %d convs read int16 (int8 weights)\n", r->n_conv16);
  if (r->e2e) fprintf(f, "end-to-end head: %s\n", r->e2e_note);
  if (r->nms_cut) fprintf(f, "NMS in the graph: %s\n", r->nms_note);
  if (r->n_dynamic)
    fprintf(f,
            "dynamic quantization (onnxruntime quantize_dynamic): %d ConvInteger/MatMulInteger with "
            "their float weights recovered; %d convs run int8 with activation ranges measured on "
            "every run. A static calibration is faster and more accurate: run yolort-quantize on "
            "the float model with calibration images.\n",
            r->n_dynamic, r->n_dynconv);
  if (r->n_gemm) fprintf(f, "Gemm as MatMul (+ Add): %d\n", r->n_gemm);
  if (r->n_linear_conv)
    fprintf(f, "dynamically quantized Linear (MatMulInteger) as a 1x1 int8 conv: %d\n", r->n_linear_conv);
  if (r->classify) fprintf(f, "classify: %s; no detect decode\n", r->classify_note);
  if (r->head_note[0])
    fprintf(f, "detect head: %s%s\n", r->head_fused ? "fused, " : "", r->head_note);
  if (!r->int8 && !r->n_dynconv) {
    fprintf(f, "float model (no int8 node): all %d ONNX nodes run in fp32\n", r->n_fp32_onnx);
  } else if (r->n_fp32_onnx) {
    fprintf(f, "ONNX nodes in fp32: %d%s\n", r->n_fp32_onnx,
            r->n_fp32_onnx > r->n_notes ? " (first ones listed)" : "");
    for (int i = 0; i < r->n_notes; i++)
      fprintf(f, "  %-56s %s\n", r->fp32[i].node, r->fp32[i].reason);
  }
  print_bytes(f, "weights", r->weight_bytes);
  print_bytes(f, ", peak arena", r->arena_bytes);
  print_bytes(f, ", file", r->file_bytes);
  fprintf(f, "\n");
}
