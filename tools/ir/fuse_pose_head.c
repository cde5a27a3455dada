/* fuse_pose_head.c — recognise the Ultralytics Pose head's keypoint decode (Pose.kpts_decode as
 * exported: view(1, nk, kd, N), (v[:, :, :2] * 2 + (anchors - 0.5)) * strides, cat with
 * v[:, :, 2:3].sigmoid(), view(1, nk kd, N)) by what it computes and replace it by one
 * PoseDecode node (see fuse_pose_head.h). The structure only proposes the candidate (the
 * tensor joined after the boxes, the per-scale maps it reads); head_verify.c's runner proves on
 * random logits that the export's subgraph computes exactly that decode before anything is
 * replaced, so a look-alike (another grid offset, scale or order) is never decoded as pose. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuse_detect_head.h"
#include "fuse_pose_head.h"
#include "onnx_ops.h"

#define NOMEM() yrt_set_error(err, YRT_ERR_NOMEM, "fuse pose head: out of memory")

/* The keypoint candidate: the DetectDecode node's grids and the tensor joined after its rows. */
typedef struct pose_cand {
  int det;                              /* the DetectDecode node */
  int ns;
  int64_t gh[LW_HEAD_MAX_SCALES], gw[LW_HEAD_MAX_SCALES], stride[LW_HEAD_MAX_SCALES];
  int64_t n;                            /* anchors */
  int k;                                /* [1, nk kd, n] joined after the boxes */
  int nk, kd;
  int map[LW_HEAD_MAX_SCALES];          /* index into h.in of scale s's keypoint map */
} pose_cand;

/* The DetectDecode node and a Concat(axis 1) that reads its output first and one [1, K, N]
 * tensor after it. -1 with note set when there is none. */
static int find_candidate(const ir_graph *g, pose_cand *pc, char *note, size_t cap) {
  pc->det = -1;
  for (int i = 0; i < g->n_nodes && pc->det < 0; i++)
    if (lw_is_detect_node(&g->nodes[i])) pc->det = i;
  if (pc->det < 0) return lw_head_note(note, cap, "no Detect decode was fused");
  const ir_node *d = &g->nodes[pc->det];
  const int dy = d->out[0];
  const ir_attr *st = ir_attr_get(d, "strides");
  pc->ns = (d->n_in - 1) / 2;
  if (!st || st->n_ints != pc->ns || pc->ns < 1 || pc->ns > LW_HEAD_MAX_SCALES)
    return lw_head_note(note, cap, "the Detect decode has no strides");
  pc->n = 0;
  for (int s = 0; s < pc->ns; s++) {
    const ir_tensor *b = &g->tensors[d->in[s]];
    pc->gh[s] = b->dims[2];
    pc->gw[s] = b->dims[3];
    pc->stride[s] = st->ints[s];
    pc->n += pc->gh[s] * pc->gw[s];
  }
  int cons[8];
  const int nc = ir_consumers(g, dy, cons, 8);
  for (int c = 0; c < nc && c < 8; c++) {
    const ir_node *j = &g->nodes[cons[c]];
    if (!ir_node_is_op(j, ONNX_OP_CONCAT) || ir_attr_int(j, "axis", -1) != 1 || j->n_in != 2 || j->in[0] != dy) continue;
    const ir_tensor *k = &g->tensors[j->in[1]];
    if (k->data || k->rank != 3 || k->dims[0] != 1 || k->dims[2] != pc->n || k->dims[1] < 2) continue;
    pc->k = j->in[1];
    return 0;
  }
  return lw_head_note(note, cap, "no tensor [1, K, %lld] is joined after the boxes' rows", (long long)pc->n);
}

/* Each of the walk's per-scale tensors against the Detect grids: one [1, K, H, W] per grid. */
static int match_maps(const ir_graph *g, const lw_head *h, pose_cand *pc, char *note, size_t cap) {
  const int64_t K = g->tensors[pc->k].dims[1];
  if (h->n_in != pc->ns) return lw_head_note(note, cap, "the keypoint rows read %d per-scale tensors, the boxes %d grids", h->n_in, pc->ns);
  for (int s = 0; s < pc->ns; s++) {
    pc->map[s] = -1;
    for (int i = 0; i < h->n_in; i++) {
      const ir_tensor *t = &g->tensors[h->in[i]];
      if (t->dims[1] == K && t->dims[2] == pc->gh[s] && t->dims[3] == pc->gw[s]) pc->map[s] = i;
    }
    if (pc->map[s] < 0)
      return lw_head_note(note, cap, "no %lld-channel map of grid %lldx%lld feeds the keypoint rows", (long long)K,
                  (long long)pc->gh[s], (long long)pc->gw[s]);
  }
  return 0;
}

/* The decode's definition (double precision): out [nk kd][n]. */
static void reference(const pose_cand *pc, float *const *in_data, double *out) {
  const int64_t n = pc->n, nv = (int64_t)pc->nk * pc->kd;
  int64_t first = 0;
  for (int s = 0; s < pc->ns; s++) {
    const float *x = in_data[pc->map[s]];
    const int64_t hw = pc->gh[s] * pc->gw[s];
    for (int64_t i = 0; i < hw; i++) {
      const double col = (double)(i % pc->gw[s]), row = (double)(i / pc->gw[s]), st = (double)pc->stride[s];
      for (int64_t c = 0; c < nv; c++) {
        const double v = x[c * hw + i];
        const int64_t j = c % pc->kd;
        out[c * n + first + i] = j == 0 ? (2 * v + col) * st : j == 1 ? (2 * v + row) * st : 1.0 / (1.0 + exp(-v));
      }
    }
    first += hw;
  }
}

/* The subgraph's output on random logits against the reference for pc->kd. *ok when equal. */
static yrt_status verify(const ir_graph *g, const lw_head *h, pose_cand *pc, lw_head_runner *r, float *const *in_data,
                         double *worst, int *ok, char *note, size_t cap, yrt_error *err) {
  *ok = 0;
  const float *outp;
  size_t count;
  if (lw_head_runner_run(r, g, h, in_data, &outp, &count, note, cap)) return YRT_OK;
  const int64_t nv = (int64_t)pc->nk * pc->kd;
  if (count != (size_t)(nv * pc->n)) {
    lw_head_note(note, cap, "keypoint rows have %zu values, the decode makes %lld", count, (long long)(nv * pc->n));
    return YRT_OK;
  }
  double *ref = malloc(sizeof(double) * (size_t)(nv * pc->n));
  if (!ref) return NOMEM();
  reference(pc, in_data, ref);
  *worst = 0;
  int64_t first = 0;
  for (int s = 0; s < pc->ns; s++) {
    const int64_t hw = pc->gh[s] * pc->gw[s];
    for (int64_t c = 0; c < nv; c++)
      for (int64_t i = first; i < first + hw; i++) {
        const double want = ref[c * pc->n + i], got = outp[c * pc->n + i], dev = fabs(got - want);
        double tol = 1e-3 * (1 + fabs(want));
        /* quantized constants of a QDQ head (its grid, 2, strides) move a keypoint that much */
        if (c % pc->kd < 2) tol += 2 * h->q_abs * (double)pc->stride[s] + 2 * h->q_rel * fabs(want);
        if (!(dev <= tol)) {
          lw_head_note(note, cap, "computes something else: keypoint value %lld (of %d x %d) at anchor %lld is %g, the pose decode "
               "gives %g", (long long)c, pc->nk, pc->kd, (long long)i, got, want);
          free(ref);
          return YRT_OK;
        }
        *worst = fmax(*worst, dev);
      }
    first += hw;
  }
  free(ref);
  *ok = 1;
  return YRT_OK;
}

/* Replace the subgraph by PoseDecode(maps, the boxes' rows) -> pc->k. */
static yrt_status rewrite(ir_graph *g, const lw_head *h, const pose_cand *pc, int *n_removed) {
  char name[300];
  snprintf(name, sizeof name, "%s/pose_decode", g->nodes[h->nodes[0]].name ? g->nodes[h->nodes[0]].name : "head");
  *n_removed = lw_head_remove(g, h);
  int in[LW_HEAD_MAX_SCALES + 1];
  for (int s = 0; s < pc->ns; s++) in[s] = h->in[pc->map[s]];
  in[pc->ns] = g->nodes[pc->det].out[0]; /* the boxes' rows: which anchors can become detections */
  int out = pc->k;
  const int nd = ir_add_node(g, name, "PoseDecode", in, pc->ns + 1, &out, 1);
  if (nd < 0) return YRT_ERR_NOMEM;
  free(g->nodes[nd].domain);
  g->nodes[nd].domain = ir_strdup("yolort");
  if (!g->nodes[nd].domain || ir_set_attr_int(g, nd, "num_keypoints", pc->nk) || ir_set_attr_int(g, nd, "dims", pc->kd) ||
      ir_set_attr_ints(g, nd, "strides", pc->stride, pc->ns))
    return YRT_ERR_NOMEM;
  if (!g->task || !g->task[0]) { /* what it is, when the export did not say */
    free(g->task);
    if (!(g->task = ir_strdup("pose"))) return YRT_ERR_NOMEM;
  }
  return YRT_OK;
}

yrt_status lw_fuse_pose_head(ir_graph *g, lw_head_lower_fn lower, int *fused, int *n_removed, char *note, size_t cap, yrt_error *err) {
  *fused = 0;
  *n_removed = 0;
  if (cap) note[0] = 0;
  if (g->n_inputs != 1 || g->tensors[g->inputs[0]].rank != 4) return YRT_OK;
  const int64_t in_h = g->tensors[g->inputs[0]].dims[2], in_w = g->tensors[g->inputs[0]].dims[3];
  pose_cand pc;
  memset(&pc, 0, sizeof pc);
  if (find_candidate(g, &pc, note, cap)) return YRT_OK;
  lw_head *h = calloc(1, sizeof *h);
  if (!h) return NOMEM();
  yrt_status st = YRT_OK;
  float *in_data[LW_HEAD_MAX_IN] = {0};
  lw_head_runner r;
  int opened = 0;
  if (lw_head_walk(g, pc.k, in_h, in_w, 0, h, note, cap) || match_maps(g, h, &pc, note, cap)) goto done;
  if ((st = lw_head_runner_open(g, lower, h, &r, &opened, note, cap, err)) != YRT_OK || !opened) goto done;
  uint32_t seed = 0x2545F491u;
  for (int i = 0; i < h->n_in; i++) {
    const size_t cnt = (size_t)ir_numel(&g->tensors[h->in[i]]);
    if (!(in_data[i] = malloc(sizeof(float) * cnt))) {
      st = NOMEM();
      goto done;
    }
    /* offsets of a few cells and both tails of the visibility sigmoid */
    for (size_t k = 0; k < cnt; k++) in_data[i][k] = lw_head_probe(&seed, -4.0f, 4.0f);
  }
  const int64_t K = g->tensors[pc.k].dims[1];
  const int want_kd = g->kpt_shape[0] > 0 && (int64_t)g->kpt_shape[0] * g->kpt_shape[1] == K ? g->kpt_shape[1] : 0;
  char first[256] = "";
  double worst = 0;
  for (int kd = 3; kd >= 2 && !*fused; kd--) {
    if ((want_kd && kd != want_kd) || K % kd) continue;
    pc.kd = kd;
    pc.nk = (int)(K / kd);
    int ok = 0;
    if ((st = verify(g, h, &pc, &r, in_data, &worst, &ok, note, cap, err)) != YRT_OK) goto done;
    if (!ok) {
      if (!first[0]) snprintf(first, sizeof first, "%s", note);
      continue;
    }
    if (rewrite(g, h, &pc, n_removed) != YRT_OK) {
      st = NOMEM();
      goto done;
    }
    *fused = 1;
    snprintf(note, cap, "%d nodes -> pose_decode (%d keypoints x %d, %d scales); verified on random logits, max "
             "deviation %.2g px", *n_removed, pc.nk, pc.kd, pc.ns, worst);
  }
  if (!*fused && first[0]) snprintf(note, cap, "%s", first);
  else if (!*fused && !first[0]) lw_head_note(note, cap, "%lld keypoint rows are not keypoints x 2 or 3 values%s", (long long)K,
                                      want_kd ? " as the metadata's kpt_shape says" : "");
done:
  if (opened) lw_head_runner_close(&r);
  for (int i = 0; i < LW_HEAD_MAX_IN; i++) free(in_data[i]);
  free(h);
  return st;
}

int lw_is_pose_node(const ir_node *n) { return ir_node_is_live_op(n, ONNX_OP_YOLORT_POSE_DECODE); }
