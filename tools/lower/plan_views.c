/* plan_views.c — zero-copy Concat and Split (the tensor views of yolort_format.h).
 *
 * A Concat input made by an int8 conv (groups 1) or a same-shape int8 binary (the residual Add of
 * a bottleneck) becomes a view of the Concat's output: the node writes its channels straight into
 * the Concat's buffer with a pixel stride, and the Concat copies nothing for it. It needs the
 * input to carry the output's quantization (our quantizer's Concat ties give it that, qdq_tie.c
 * for other QDQ files) and every other reader to take a strided input (int8 convs, binaries,
 * slices). An int8 nearest resize (the neck's upsample) writes a view on any grid when the Concat
 * alone reads it: the Concat's requantization goes into the resize's table (same values). A channel Slice (a Split half) whose readers all take strided inputs becomes a view of
 * its input's holder, read in place. Views are planned here; plan_memory.c places them inside their holders
 * and model_validate_views.c is the runtime's side of the same rules. */
#include <stdlib.h>
#include <string.h>

#include "lower_internal.h"
#include "yk.h"

typedef struct vp {
  lw_ctx *c;
  int *producer; /* per tensor: node writing it, -1 */
} vp;

static int is_i8_nhwc_act(const lw_tensor *t) {
  return t->kind == YRT_TENSOR_ACT && t->dtype == YRT_I8 && t->layout == YRT_LAYOUT_NHWC && t->rank == 4 &&
         t->n_scales <= 1;
}

static int conv_takes_views(const lw_ctx *c, const lw_node *n) {
  /* not an int16-input conv (yk_conv16 reads and writes dense tensors: runtime ops/conv.c) */
  return n->op == YRT_OP_CONV2D && c->t[n->out[0]].dtype == YRT_I8 && c->t[n->in[0]].dtype != YRT_I16 &&
         n->p[YRT_CONV_P_GROUPS] == 1;
}

/* Same-shape [1, H, W, C] int8 binary (yk_binary_i8_pixels): reads and writes views; an
 * element-wise op, so reading one channel range of a holder and writing another is safe. */
static int binary_takes_views(const lw_ctx *c, const lw_node *n) {
  if (n->op != YRT_OP_BINARY || n->n_in != 2) return 0;
  const lw_tensor *y = &c->t[n->out[0]];
  if (!is_i8_nhwc_act(y) || y->dims[0] != 1) return 0;
  for (int k = 0; k < 2; k++) {
    const lw_tensor *x = &c->t[n->in[k]];
    if (!is_i8_nhwc_act(x)) return 0;
    for (int d = 0; d < 4; d++)
      if (x->dims[d] != y->dims[d]) return 0;
  }
  return 1;
}

static int root_of(const lw_ctx *c, int t) { return c->t[t].view_holder ? c->t[t].view_holder - 1 : t; }

/* A conv reading a c-channel view as fast as a dense copy: a 1x1 (a pixel's channels are contiguous
 * either way), or c a multiple of 64 (the kernels' K chunks: a strided kernel row is cut per tap
 * into whole chunks, read in place). Otherwise the taps are cut into short padded segments: the
 * 3x3 over a 16- or 32-channel Split half of YOLO11n-640's C3k2 ran 3x slower on a view (0.32
 * against 0.10 ms; three such layers 0.65 ms) than the Slice's copy costs (0.03 ms). */
static int conv_reads_view_well(const lw_node *n, int64_t c) {
  return (n->p[YRT_CONV_P_KH] == 1 && n->p[YRT_CONV_P_KW] == 1) || c % 64 == 0;
}

/* Every reader of t other than node `except` reads it as a conv's input 0 (reading a view well), a
 * slice's input or a same-shape int8 binary's input. */
static int readers_take_views(const lw_ctx *c, int t, int except) {
  for (int k = 0; k < c->nn; k++) {
    const lw_node *n = &c->n[k];
    if (k == except) continue;
    for (int j = 0; j < n->n_in; j++) {
      if (n->in[j] != t) continue;
      if (!((j == 0 && conv_takes_views(c, n) && conv_reads_view_well(n, c->t[t].dims[3])) ||
            (j == 0 && n->op == YRT_OP_SLICE) || binary_takes_views(c, n)))
        return 0;
    }
  }
  return 1;
}

/* Some conv reading t, other than node `except` (the Concat), writes a tensor held by `root` (it
 * would then read and write one buffer once t is a view of root: Concat(conv(u), u)). */
static int readers_write_into(const lw_ctx *c, int t, int root, int except) {
  for (int k = 0; k < c->nn; k++) {
    const lw_node *n = &c->n[k];
    if (k == except || binary_takes_views(c, n)) continue;
    for (int j = 0; j < n->n_in; j++)
      if (n->in[j] == t && root_of(c, n->out[0]) == root) return 1;
  }
  return 0;
}

static int is_graph_output(const lw_ctx *c, int t) {
  for (int k = 0; k < c->n_outputs; k++)
    if (c->outputs[k] == t) return 1;
  return 0;
}

static int n_readers(const lw_ctx *c, int t) {
  int r = 0;
  for (int k = 0; k < c->nn; k++)
    for (int j = 0; j < c->n[k].n_in; j++) r += c->n[k].in[j] == t;
  return r;
}

/* An int8 nearest resize of one image writes a Concat's view. On another grid than the Concat's it
 * must be the Concat's only input: the Concat's requantization of it (a table, exactly what the
 * Concat would compute) then goes into the resize's own table, and x takes the Concat's grid. */
static int resize_into_view(lw_ctx *c, int p, int t, const lw_tensor *y) {
  lw_node *r = &c->n[p];
  lw_tensor *x = &c->t[t];
  if (r->op != YRT_OP_RESIZE_NEAREST || x->dims[0] != 1) return 0;
  if (x->scale == y->scale && x->zp == y->zp) return 1;
  if (n_readers(c, t) != 1) return 0;
  int8_t rq[256], lut[256];
  yk_lut_build_requant((yk_qparams){x->scale, x->zp}, (yk_qparams){y->scale, y->zp}, rq);
  const int8_t *old = r->n_in > 1 ? (const int8_t *)c->t[r->in[1]].data : NULL;
  for (int u = 0; u < 256; u++) lut[u] = rq[(old ? old[u] : u - 128) + 128];
  const lw_tensor *xin = &c->t[r->in[0]];
  const int tab = lw_lut_table(c, lut, xin->scale, xin->zp); /* may move c->t */
  if (tab < 0) return -1;
  r->in[1] = tab;
  r->n_in = 2;
  c->t[t].scale = y->scale;
  c->t[t].zp = y->zp;
  return 1;
}

/* Concat node k: its conv-made inputs become views of its output. */
static int concat_views(vp *v, int k) {
  lw_ctx *c = v->c;
  const lw_node *n = &c->n[k];
  const lw_tensor *y = &c->t[n->out[0]];
  if (n->p[0] != 3 || !is_i8_nhwc_act(y) || y->view_holder || is_graph_output(c, n->out[0])) return 0;
  int made = 0;
  int64_t off = 0;
  for (int j = 0; j < n->n_in; j++) {
    const int t = n->in[j];
    const int64_t cj = c->t[t].dims[3];
    int once = 1;
    for (int i = 0; i < n->n_in; i++) once &= i == j || n->in[i] != t;
    const int p = v->producer[t];
    const lw_tensor *x = &c->t[t];
    int ok = once && p >= 0 && p < k && is_i8_nhwc_act(x) && !x->view_holder && !is_graph_output(c, t) &&
             x->dims[0] == y->dims[0] && x->dims[1] == y->dims[1] && x->dims[2] == y->dims[2] &&
             readers_take_views(c, t, k) && !readers_write_into(c, t, n->out[0], k);
    if (ok && x->scale == y->scale && x->zp == y->zp &&
        ((conv_takes_views(c, &c->n[p]) && root_of(c, c->n[p].in[0]) != n->out[0]) ||
         binary_takes_views(c, &c->n[p]))) {
      ok = 1;
    } else if (ok) {
      ok = resize_into_view(c, p, t, y);
      if (ok < 0) return -1;
      n = &c->n[k], y = &c->t[n->out[0]]; /* a new table may have moved c->t */
    }
    if (ok) {
      c->t[t].view_holder = n->out[0] + 1;
      c->t[t].view_ch = (int)off;
      made++;
    }
    off += cj;
  }
  return made;
}

/* Slice node k: a channel range, every reader an int8 conv (reading it well) or binary: a view of
 * its input's holder. */
static int slice_view(vp *v, int k) {
  lw_ctx *c = v->c;
  const lw_node *n = &c->n[k];
  const int xt = n->in[0], yt = n->out[0];
  const lw_tensor *x = &c->t[xt];
  lw_tensor *y = &c->t[yt];
  if (!is_i8_nhwc_act(x) || !is_i8_nhwc_act(y) || y->view_holder || is_graph_output(c, yt)) return 0;
  if (x->scale != y->scale || x->zp != y->zp) return 0;
  for (int d = 0; d < 4; d++)
    if (n->p[6 + d] != 1 || (d < 3 && (n->p[d] != 0 || x->dims[d] != y->dims[d]))) return 0;
  for (int r = 0; r < c->nn; r++) {
    const lw_node *m = &c->n[r];
    for (int j = 0; j < m->n_in; j++)
      if (m->in[j] == yt &&
          !(j == 0 && conv_takes_views(c, m) && conv_reads_view_well(m, y->dims[3]) &&
            root_of(c, m->out[0]) != root_of(c, xt)) &&
          !binary_takes_views(c, m))
        return 0;
  }
  y->view_holder = root_of(c, xt) + 1;
  y->view_ch = (x->view_holder ? x->view_ch : 0) + n->p[3];
  return 1;
}

yrt_status lw_plan_views(lw_ctx *c, int *n_views) {
  *n_views = 0;
  vp v = {c, malloc(sizeof(int) * (size_t)(c->nt ? c->nt : 1))};
  if (!v.producer) return lw_err(c, YRT_ERR_NOMEM, "convert: out of memory (views)");
  for (int i = 0; i < c->nt; i++) v.producer[i] = -1;
  for (int k = 0; k < c->nn; k++) v.producer[c->n[k].out[0]] = k;
  /* Concats first: a Split half of a conv output that went into a Concat's buffer is then a
   * view of that buffer. */
  for (int k = 0; k < c->nn; k++) {
    if (c->n[k].op != YRT_OP_CONCAT) continue;
    const int made = concat_views(&v, k);
    if (made < 0) {
      free(v.producer);
      return c->status;
    }
    *n_views += made;
  }
  for (int k = 0; k < c->nn; k++)
    if (c->n[k].op == YRT_OP_SLICE) *n_views += slice_view(&v, k);
  free(v.producer);
  return YRT_OK;
}
