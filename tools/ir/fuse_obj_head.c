/* fuse_obj_head.c — objectness heads (YOLOv5 / YOLOv7 anchor heads, YOLOX, YOLO-Pose) recognised
 * by what they compute and replaced by one ObjDecode node, plus a PoseDecode node for the
 * keypoints of a YOLO-Pose head (see fuse_obj_head.h).
 *
 * Structure only proposes: the output [1, N, 5 + nc] is walked back to the per-scale conv
 * outputs (through data moves and sigmoids), grouped by grid, and read either as one tensor of
 * na (5 + nc) channels per scale (YOLOv5 / v7) or as box 4 + objectness 1 + classes nc
 * (YOLOX). What the export computes after the convs is then measured: the subgraph, run on zero
 * logits, shows whether its boxes are decoded (YOLOv5: (0.5 + grid) stride and the anchor sizes
 * themselves; YOLOX: grid stride and the stride), only squashed by a sigmoid (YOLOv5-Lite's raw
 * maps: 0.5) or raw (YOLOX without decode: 0), and whether the scores went through a sigmoid.
 * That reading is accepted only when the subgraph's output on random logits equals, value by
 * value, what the reading predicts. Anything else leaves the graph alone with a note.
 *
 * YOLO-Pose (TI edgeai-yolov5 and its forks): each anchor's vector carries nk keypoints x kd
 * (x, y, conf) after its classes. Per grid the export concatenates two convs, the detection
 * conv (na (5 + nc) channels) then the keypoint conv (na nk kd), and views the result as
 * [na, 5 + nc + nk kd]: anchor a's vector is channels a per .. a per + per - 1 of the
 * concatenation, across both convs (so the Concat stays, and both decodes read its output).
 * The keypoint count comes from the metadata's kpt_shape or --kpt-shape, else from that
 * structure (the first conv's channels give nc, the rest are keypoints of x, y, conf). Keypoints
 * are read raw or decoded as TI's Detect does ((2 v - 0.5 + grid) stride, sigmoid conf), also
 * verified value by value. */
#include "fuse_obj_head.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuse_detect_head.h"
#include "ir_preprocess.h"
#include "onnx_ops.h"

#define MAX_PER 3 /* tensors per scale: 1 (joint), 2 (YOLO-Pose: detection, keypoints) or 3 (box, objectness, classes) */

/* How the graph leaves the box values and the scores. */
enum box_form { BOX_V5, BOX_X, BOX_SIG, BOX_RAW };
static const char *const k_box_form[] = {"decoded as YOLOv5 (anchors)", "decoded as YOLOX (grid + exp)",
                                         "sigmoid only (not decoded)", "raw (not decoded)"};

/* How the graph leaves the keypoints (YOLO-Pose). */
enum kpt_form { KPT_RAW, KPT_DECODED };

typedef struct obj_head {
  lw_head h;                                  /* walk: in[], nodes[], y, quantization slack */
  int ns, na, nc, split;
  int cat;                                    /* per grid t[s][0] then t[s][1] concatenated (YOLO-Pose) */
  int64_t ch0;                                /* cat: channels of t[s][0] */
  int nk, kd, kpt_form, kpt_guessed;          /* keypoints after the classes (nk 0: none) */
  int64_t n;                                  /* anchors (rows of the output) */
  int64_t gh[YRT_OBJ_MAX_SCALES], gw[YRT_OBJ_MAX_SCALES], stride[YRT_OBJ_MAX_SCALES];
  int t[YRT_OBJ_MAX_SCALES][MAX_PER];         /* index into h.in: joint t[s][0]; split box, obj, cls */
  int box_form, score_sig;
  float anchor[YRT_OBJ_MAX_SCALES][YRT_OBJ_MAX_ANCHORS][2];
  double max_dev;
  char anchor_note[160];
} obj_head;

/* YOLOv5's default anchors (models/yolov5*.yaml), P3-P5 and P3-P6: the anchors of a raw head
 * that carries none, unless --anchors gives the trained ones. */
static const float k_v5_p5[3][3][2] = {{{10, 13}, {16, 30}, {33, 23}},
                                       {{30, 61}, {62, 45}, {59, 119}},
                                       {{116, 90}, {156, 198}, {373, 326}}};
static const float k_v5_p6[4][3][2] = {{{19, 27}, {44, 40}, {38, 94}},
                                       {{96, 68}, {86, 152}, {180, 137}},
                                       {{140, 301}, {303, 264}, {238, 542}},
                                       {{436, 615}, {739, 380}, {925, 792}}};

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

static double sigm(double x) { return 1.0 / (1.0 + exp(-x)); }

/* Values per anchor vector: box 4, objectness, classes, keypoints. */
static int cols_of(const obj_head *o) { return 5 + o->nc + o->nk * o->kd; }

/* Scale, anchor and cell of output row g. */
static void locate(const obj_head *o, int64_t g, int *s, int *a, int64_t *row, int64_t *col) {
  int k = 0;
  int64_t first = 0;
  while (k < o->ns - 1 && g >= first + o->na * o->gh[k] * o->gw[k]) first += o->na * o->gh[k] * o->gw[k], k++;
  const int64_t j = g - first, cells = o->gh[k] * o->gw[k], cell = j % cells;
  *s = k;
  *a = (int)(j / cells);
  *row = cell / o->gw[k];
  *col = cell % o->gw[k];
}

/* Logit k (0..4 + nc) of output row g, from the per-scale inputs (NCHW). */
static float logit(const obj_head *o, float *const *in, int64_t g, int k) {
  int s, a;
  int64_t row, col;
  locate(o, g, &s, &a, &row, &col);
  const int64_t hw = o->gh[s] * o->gw[s], cell = row * o->gw[s] + col, c = (int64_t)a * cols_of(o) + k;
  if (o->cat) return c < o->ch0 ? in[o->t[s][0]][c * hw + cell] : in[o->t[s][1]][(c - o->ch0) * hw + cell];
  if (!o->split) return in[o->t[s][0]][c * hw + cell];
  if (k < 4) return in[o->t[s][0]][(int64_t)k * hw + cell];
  if (k == 4) return in[o->t[s][1]][cell];
  return in[o->t[s][2]][(int64_t)(k - 5) * hw + cell];
}

/* What the graph's output holds at row g, value k, under the reading in o. */
static double predicted(const obj_head *o, float *const *in, int64_t g, int k) {
  const double v = logit(o, in, g, k);
  if (k >= 4 && k < 5 + o->nc) return o->score_sig ? sigm(v) : v;
  int s, a;
  int64_t row, col;
  locate(o, g, &s, &a, &row, &col);
  if (k >= 5 + o->nc) { /* a keypoint value: x, y, conf */
    const int j = (k - 5 - o->nc) % o->kd;
    if (o->kpt_form == KPT_RAW) return v;
    return j == 2 ? sigm(v) : (2 * v - 0.5 + (j == 0 ? (double)col : (double)row)) * (double)o->stride[s];
  }
  const double cell = k == 0 ? (double)col : (double)row, st = (double)o->stride[s];
  switch (o->box_form) {
  case BOX_V5:
    return k < 2 ? (2 * sigm(v) - 0.5 + cell) * st : 4 * sigm(v) * sigm(v) * o->anchor[s][a][k - 2];
  case BOX_X:
    return k < 2 ? (v + cell) * st : exp(v) * st;
  case BOX_SIG:
    return sigm(v);
  default:
    return v;
  }
}

/* The keypoints of a YOLO-Pose vector of `cols` values whose detection part has 5 + nc: the
 * metadata's / --kpt-shape's kpt_shape (kpt[0] > 0), else x, y, conf each. -1 when they do not fit. */
static int kpt_split(obj_head *o, int64_t cols, const int kpt[2], char *note, size_t cap) {
  const int64_t K = cols - 5 - o->nc;
  o->kpt_guessed = kpt[0] <= 0;
  o->kd = kpt[0] > 0 ? kpt[1] : 3;
  o->nk = (int)(K / o->kd);
  if (K < o->kd || K % o->kd || o->nk * o->kd > 3072 || o->kd < 2 || o->kd > 3)
    return fail(note, cap, "%lld values after the %d classes are not keypoints of %d values%s", (long long)K, o->nc, o->kd,
                kpt[0] > 0 ? " (kpt_shape)" : "");
  if (kpt[0] > 0 && o->nk != kpt[0])
    return fail(note, cap, "%lld values after the %d classes, kpt_shape says %d x %d", (long long)K, o->nc, kpt[0], kpt[1]);
  return 0;
}

/* Group the walked tensors by grid (largest first) and read the channel layout; kpt: the
 * metadata's or --kpt-shape's keypoints (0, 0: not given). */
static int group(const ir_graph *g, obj_head *o, int64_t in_h, int64_t in_w, int64_t rows, int64_t cols, const int kpt[2],
                 char *note, size_t cap) {
  const lw_head *h = &o->h;
  int per[YRT_OBJ_MAX_SCALES] = {0};
  o->ns = 0;
  for (int i = 0; i < h->n_in; i++) {
    const ir_tensor *t = &g->tensors[h->in[i]];
    int s = 0;
    while (s < o->ns && o->gh[s] != t->dims[2]) s++;
    if (s == o->ns) {
      if (o->ns >= YRT_OBJ_MAX_SCALES) return fail(note, cap, "the head reads more than %d grids", YRT_OBJ_MAX_SCALES);
      o->gh[s] = t->dims[2];
      o->gw[s] = t->dims[3];
      o->ns++;
    }
    if (per[s] >= MAX_PER) return fail(note, cap, "grid %lldx%lld: more than %d tensors", (long long)t->dims[2], (long long)t->dims[3], MAX_PER);
    o->t[s][per[s]++] = i;
  }
  for (int a = 0; a < o->ns; a++) /* largest grid first, as the exports order their anchors */
    for (int b = a + 1; b < o->ns; b++)
      if (o->gh[b] > o->gh[a]) {
        int64_t x = o->gh[a]; o->gh[a] = o->gh[b]; o->gh[b] = x;
        x = o->gw[a]; o->gw[a] = o->gw[b]; o->gw[b] = x;
        int k = per[a]; per[a] = per[b]; per[b] = k;
        for (int j = 0; j < MAX_PER; j++) k = o->t[a][j], o->t[a][j] = o->t[b][j], o->t[b][j] = k;
      }
  int64_t cells = 0;
  for (int s = 0; s < o->ns; s++) {
    if (per[s] != per[0]) return fail(note, cap, "grid %d reads %d tensors, grid 0 reads %d", s, per[s], per[0]);
    if (in_h % o->gh[s] || in_w % o->gw[s] || in_h / o->gh[s] != in_w / o->gw[s])
      return fail(note, cap, "grid %lldx%lld is not the input over one stride", (long long)o->gh[s], (long long)o->gw[s]);
    o->stride[s] = in_h / o->gh[s];
    cells += o->gh[s] * o->gw[s];
  }
  if (rows % cells) return fail(note, cap, "%lld rows are not a multiple of the %lld grid cells", (long long)rows, (long long)cells);
  o->na = (int)(rows / cells);
  o->nc = (int)(cols - 5 - (kpt[0] > 0 ? (int64_t)kpt[0] * kpt[1] : 0));
  o->n = rows;
  if (kpt[0] > 0 && kpt_split(o, cols, kpt, note, cap)) return -1;
  if (o->na < 1 || o->na > YRT_OBJ_MAX_ANCHORS || o->nc < 1 || o->nc > YRT_MAX_CLASSES)
    return fail(note, cap, "%d anchors per cell and %d classes are outside what yolort decodes", o->na, o->nc);
  if (per[0] == 1) {
    o->split = 0;
    for (int s = 0; s < o->ns; s++)
      if (g->tensors[h->in[o->t[s][0]]].dims[1] != (int64_t)o->na * cols)
        return fail(note, cap, "grid %d has %lld channels, not %d anchors x %lld values", s,
                    (long long)g->tensors[h->in[o->t[s][0]]].dims[1], o->na, (long long)cols);
    return 0;
  }
  if (per[0] == 2) { /* YOLO-Pose: the detection conv and the keypoint conv, concatenated */
    o->cat = 1;
    for (int s = 0; s < o->ns; s++)
      if (g->tensors[h->in[o->t[s][0]]].dims[1] + g->tensors[h->in[o->t[s][1]]].dims[1] != (int64_t)o->na * cols)
        return fail(note, cap, "grid %d reads two tensors of %lld + %lld channels, not %d anchors x %lld values", s,
                    (long long)g->tensors[h->in[o->t[s][0]]].dims[1], (long long)g->tensors[h->in[o->t[s][1]]].dims[1],
                    o->na, (long long)cols);
    return 0;
  }
  if (per[0] != 3 || o->na != 1 || o->ns > 3)
    return fail(note, cap, "%d tensors per grid and %d anchors per cell: not a YOLOv5 or YOLOX head", per[0], o->na);
  o->split = 1;
  return 0;
}

/* Split layout: order each grid's three tensors as box (4), objectness (1), classes (nc), in
 * permutation `perm` of their channel-count matches (several when nc is 1 or 4). 0 when perm
 * is one of them. */
static int split_order(const ir_graph *g, obj_head *o, const int orig[YRT_OBJ_MAX_SCALES][MAX_PER], int perm) {
  static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  const int64_t want[3] = {4, 1, o->nc};
  for (int s = 0; s < o->ns; s++)
    for (int r = 0; r < 3; r++) {
      o->t[s][r] = orig[s][perms[perm][r]];
      if (g->tensors[o->h.in[o->t[s][r]]].dims[1] != want[r]) return -1;
    }
  return 0;
}

/* YOLO-Pose layout: the two tensors of each grid in order `swap` (0 as walked, 1 reversed): the
 * first one's channels, and from them (without a kpt_shape) the classes and keypoints. 0 when
 * they fit. */
static int cat_order(const ir_graph *g, obj_head *o, int swap, int64_t cols, const int kpt[2], char *note, size_t cap) {
  if (swap)
    for (int s = 0; s < o->ns; s++) {
      const int k = o->t[s][0];
      o->t[s][0] = o->t[s][1], o->t[s][1] = k;
    }
  o->ch0 = g->tensors[o->h.in[o->t[0][0]]].dims[1];
  for (int s = 1; s < o->ns; s++)
    if (g->tensors[o->h.in[o->t[s][0]]].dims[1] != o->ch0) return fail(note, cap, "the grids' first convs differ in channels");
  if (kpt[0] > 0) /* the concatenation's boundary is the detection conv's end */
    return o->ch0 == (int64_t)o->na * (5 + o->nc)
               ? 0
               : fail(note, cap, "kpt_shape %d x %d leaves %d classes, but the detection conv has %lld channels, not %d x "
                      "(5 + %d)", kpt[0], kpt[1], o->nc, (long long)o->ch0, o->na, o->nc);
  if (o->ch0 % o->na || o->ch0 / o->na < 6 || o->ch0 / o->na - 5 > YRT_MAX_CLASSES)
    return fail(note, cap, "the first conv's %lld channels are not %d anchors x (5 + classes)", (long long)o->ch0, o->na);
  o->nc = (int)(o->ch0 / o->na - 5);
  return kpt_split(o, cols, kpt, note, cap);
}

/* Read the zero-logit output: box and score forms, and the anchors when the graph decodes. */
static int read_zero(obj_head *o, const float *y0, char *note, size_t cap) {
  const int64_t C = cols_of(o);
  const double tol = 1e-3;
  int sig = 1, raw = 1, kraw = 1, kdec = 1;
  for (int64_t g = 0; g < o->n; g++)
    for (int64_t k = 4; k < 5 + o->nc; k++) {
      sig &= fabs(y0[g * C + k] - 0.5) <= tol;
      raw &= fabs(y0[g * C + k]) <= tol;
    }
  if (!sig && !raw) return fail(note, cap, "on zero logits the scores are neither 0.5 nor 0: not an objectness head");
  o->score_sig = sig;
  for (int64_t g = 0; g < o->n && o->nk; g++) { /* keypoints: raw, or (grid - 0.5) stride and conf 0.5 */
    int s, a;
    int64_t row, col;
    locate(o, g, &s, &a, &row, &col);
    const double st = (double)o->stride[s], t5 = tol * (1 + st * (double)(o->gw[s] + o->gh[s]));
    for (int64_t k = 5 + o->nc; k < C; k++) {
      const int j = (int)((k - 5 - o->nc) % o->kd);
      const double v = y0[g * C + k], want = j == 2 ? 0.5 : ((j == 0 ? (double)col : (double)row) - 0.5) * st;
      kraw &= fabs(v) <= tol;
      kdec &= fabs(v - want) <= (j == 2 ? tol : t5);
    }
  }
  if (o->nk && !kraw && !kdec)
    return fail(note, cap, "on zero logits the keypoints are neither raw nor decoded as YOLO-Pose ((2 v - 0.5 + grid) stride)");
  o->kpt_form = kraw ? KPT_RAW : KPT_DECODED;
  int forms[4] = {1, 1, 1, 1};
  float seen[YRT_OBJ_MAX_SCALES][YRT_OBJ_MAX_ANCHORS][2];
  int have[YRT_OBJ_MAX_SCALES][YRT_OBJ_MAX_ANCHORS] = {{0}};
  for (int64_t g = 0; g < o->n; g++) {
    int s, a;
    int64_t row, col;
    locate(o, g, &s, &a, &row, &col);
    const double st = (double)o->stride[s];
    const float *b = y0 + g * C;
    const double t5 = tol * (1 + st * (double)(o->gw[s] + o->gh[s]));
    forms[BOX_V5] &= fabs(b[0] - (col + 0.5) * st) <= t5 && fabs(b[1] - (row + 0.5) * st) <= t5;
    forms[BOX_X] &= fabs(b[0] - col * st) <= t5 && fabs(b[1] - row * st) <= t5 && fabs(b[2] - st) <= tol * st &&
                    fabs(b[3] - st) <= tol * st;
    for (int k = 0; k < 4; k++) {
      forms[BOX_SIG] &= fabs(b[k] - 0.5) <= tol;
      forms[BOX_RAW] &= fabs(b[k]) <= tol;
    }
    if (!have[s][a]) {
      seen[s][a][0] = b[2], seen[s][a][1] = b[3], have[s][a] = 1;
    } else if (fabs(b[2] - seen[s][a][0]) > tol * (1 + fabs(seen[s][a][0])) ||
               fabs(b[3] - seen[s][a][1]) > tol * (1 + fabs(seen[s][a][1]))) {
      forms[BOX_V5] = 0; /* a YOLOv5 anchor is one size over its grid */
    }
    if (!(b[2] > 0 && b[3] > 0 && b[2] <= 65536 && b[3] <= 65536)) forms[BOX_V5] = 0;
  }
  for (int f = 0; f < 4; f++)
    if (forms[f]) {
      o->box_form = f;
      if (f == BOX_V5)
        for (int s = 0; s < o->ns; s++)
          for (int a = 0; a < o->na; a++) o->anchor[s][a][0] = seen[s][a][0], o->anchor[s][a][1] = seen[s][a][1];
      return 0;
    }
  return fail(note, cap, "on zero logits the boxes match no known decode (YOLOv5, YOLOX, sigmoid or raw)");
}

/* The decode's anchors when the graph has none: --anchors, else YOLOv5's defaults (joint) or the
 * stride (YOLOX). */
static int choose_anchors(obj_head *o, const float *user, int n_user, char *note, size_t cap) {
  if (o->box_form == BOX_V5) {
    if (n_user) snprintf(o->anchor_note, sizeof o->anchor_note, "--anchors ignored: the graph holds its anchors");
    return 0;
  }
  if (o->box_form == BOX_X || (o->box_form == BOX_RAW && o->na == 1)) { /* YOLOX: size exp(t) * stride */
    for (int s = 0; s < o->ns; s++) o->anchor[s][0][0] = o->anchor[s][0][1] = (float)o->stride[s];
    if (n_user) snprintf(o->anchor_note, sizeof o->anchor_note, "--anchors ignored: a YOLOX head sizes boxes by its strides");
    return 0;
  }
  if (n_user) {
    if (n_user != 2 * o->ns * o->na)
      return fail(note, cap, "--anchors gives %d values, the head needs %d (%d grids x %d anchors x w,h)", n_user,
                  2 * o->ns * o->na, o->ns, o->na);
    for (int s = 0; s < o->ns; s++)
      for (int a = 0; a < o->na; a++)
        for (int k = 0; k < 2; k++) o->anchor[s][a][k] = user[(s * o->na + a) * 2 + k];
    snprintf(o->anchor_note, sizeof o->anchor_note, "anchors from --anchors");
    return 0;
  }
  if (o->box_form == BOX_RAW && !o->nk) /* raw logits: YOLOv7 (no --grid) or YOLOv5 exports, anchors differ */
    return fail(note, cap, "raw logits, no anchors in the file, family unknown: give them with --anchors W,H,... (YOLOv7: "
                "12,16,19,36,40,28,36,75,76,55,72,146,142,110,192,243,459,401; YOLOv5: 10,13,16,30,33,23,30,61,62,45,59,"
                "119,116,90,156,198,373,326)");
  const float(*def)[3][2] = o->ns == 3 ? k_v5_p5 : o->ns == 4 ? k_v5_p6 : NULL;
  if (!def || o->na != 3)
    return fail(note, cap, "the head is not decoded in the graph and has %d grids x %d anchors: give its anchors with "
                "yolort-convert --anchors w,h,...", o->ns, o->na);
  for (int s = 0; s < o->ns; s++)
    for (int a = 0; a < 3; a++) o->anchor[s][a][0] = def[s][a][0], o->anchor[s][a][1] = def[s][a][1];
  /* YOLO-Pose (TI edgeai-yolov5) keeps YOLOv5's yaml anchors whatever its strides */
  snprintf(o->anchor_note, sizeof o->anchor_note,
           "the file holds no anchors: YOLOv5's default P3-P%d anchors assumed%s (--anchors sets the trained ones)",
           o->ns == 3 ? 5 : 6, o->nk ? ", as YOLO-Pose's configs" : "");
  return 0;
}

/* The subgraph on zero logits then on random ones, compared with the reading. *ok when equal. */
static yrt_status measure(const ir_graph *g, lw_head_lower_fn lower, obj_head *o, int *ok, char *note, size_t cap, yrt_error *err) {
  *ok = 0;
  lw_head_runner r;
  int opened = 0;
  yrt_status st = lw_head_runner_open(g, lower, &o->h, &r, &opened, note, cap, err);
  if (st != YRT_OK || !opened) return st;
  float *in[LW_HEAD_MAX_IN] = {0};
  const int64_t C = cols_of(o);
  for (int i = 0; i < o->h.n_in; i++)
    if (!(in[i] = calloc((size_t)ir_numel(&g->tensors[o->h.in[i]]), sizeof(float)))) goto nomem;
  const float *y;
  size_t count;
  if (lw_head_runner_run(&r, g, &o->h, in, &y, &count, note, cap)) goto done;
  if (count != (size_t)(o->n * C)) {
    fail(note, cap, "the head output has %zu values, not %lld x %lld", count, (long long)o->n, (long long)C);
    goto done;
  }
  if (read_zero(o, y, note, cap)) goto done;
  uint32_t seed = 0x2545F491u;
  for (int i = 0; i < o->h.n_in; i++) {
    const int64_t cnt = ir_numel(&g->tensors[o->h.in[i]]);
    for (int64_t k = 0; k < cnt; k++) in[i][k] = lw_head_probe(&seed, -4.0f, 4.0f);
  }
  if (lw_head_runner_run(&r, g, &o->h, in, &y, &count, note, cap)) goto done;
  double worst = 0;
  for (int64_t gi = 0; gi < o->n; gi++)
    for (int k = 0; k < C; k++) {
      const double want = predicted(o, in, gi, k), got = y[gi * C + k], dev = fabs(got - want);
      double tol = 1e-3 * (1 + fabs(want));
      if (k < 4 || (k >= 5 + o->nc && o->kpt_form == KPT_DECODED)) /* pixels: quantized grid / stride constants */
        tol += 2 * o->h.q_abs * (double)o->stride[o->ns - 1] + 2 * o->h.q_rel * fabs(want);
      if (!(dev <= tol)) {
        fail(note, cap, "computes something else than a head %s: row %lld value %d is %g, expected %g",
             k_box_form[o->box_form], (long long)gi, k, got, want);
        goto done;
      }
      worst = fmax(worst, dev);
    }
  o->max_dev = worst;
  *ok = 1;
  goto done;
nomem:
  st = yrt_set_error(err, YRT_ERR_NOMEM, "fuse objectness head: out of memory");
done:
  for (int i = 0; i < LW_HEAD_MAX_IN; i++) free(in[i]);
  lw_head_runner_close(&r);
  return st;
}

/* Merge the walk of another output of the same head into h (its tensors and nodes, once). */
static int merge_walk(lw_head *h, const lw_head *w, char *note, size_t cap) {
  for (int i = 0; i < w->n_in; i++) {
    int seen = 0;
    for (int j = 0; j < h->n_in && !seen; j++) seen = h->in[j] == w->in[i];
    if (seen) continue;
    if (h->n_in >= LW_HEAD_MAX_IN) return fail(note, cap, "the head reads more than %d per-grid tensors", LW_HEAD_MAX_IN);
    h->in[h->n_in++] = w->in[i];
  }
  for (int i = 0; i < w->n_nodes; i++) {
    int seen = 0;
    for (int j = 0; j < h->n_nodes && !seen; j++) seen = h->nodes[j] == w->nodes[i];
    if (seen) continue;
    if (h->n_nodes >= LW_HEAD_MAX_NODES) return fail(note, cap, "the head has more than %d nodes", LW_HEAD_MAX_NODES);
    h->nodes[h->n_nodes++] = w->nodes[i];
  }
  h->q_abs = fmax(h->q_abs, w->q_abs);
  h->q_rel = fmax(h->q_rel, w->q_rel);
  return 0;
}

/* One candidate head: one output [1, N, 5 + nc], or one raw map [1, na, H, W, 5 + nc] per grid
 * (ys largest grid first). Walk, group, measure (each box / objectness / class order of a split
 * head). *ok when o describes a verified head. */
static yrt_status try_head(const ir_graph *g, lw_head_lower_fn lower, const int *ys, int n_ys, int64_t in_h, int64_t in_w, obj_head *o,
                           int *ok, char *note, size_t cap, yrt_error *err) {
  const int kpt[2] = {g->kpt_shape[0] > 0 ? g->kpt_shape[0] : 0, g->kpt_shape[0] > 0 ? g->kpt_shape[1] : 0};
  *ok = 0;
  memset(o, 0, sizeof *o);
  const ir_tensor *yt = &g->tensors[ys[0]];
  int64_t rows = 0, cols = 0;
  if (yt->rank == 3) {
    if (n_ys != 1 || yt->dims[0] != 1 || yt->dims[2] < 6 || yt->dims[1] <= yt->dims[2]) {
      fail(note, cap, "output '%s' is not [1, N, 5 + nc]", yt->name);
      return YRT_OK;
    }
    rows = yt->dims[1], cols = yt->dims[2];
  } else {
    for (int k = 0; k < n_ys; k++) {
      const ir_tensor *t = &g->tensors[ys[k]];
      if (t->rank != 5 || t->dims[0] != 1 || t->dims[4] < 6 || (k && (t->dims[1] != yt->dims[1] || t->dims[4] != yt->dims[4]))) {
        fail(note, cap, "outputs are not raw per-grid maps [1, na, H, W, 5 + nc] of one shape");
        return YRT_OK;
      }
      rows += t->dims[1] * t->dims[2] * t->dims[3];
    }
    cols = yt->dims[4];
  }
  if (lw_head_walk(g, ys[0], in_h, in_w, 1, &o->h, note, cap)) return YRT_OK;
  if (n_ys > 1) {
    lw_head *w = malloc(sizeof *w);
    if (!w) return yrt_set_error(err, YRT_ERR_NOMEM, "fuse objectness head: out of memory");
    for (int k = 1; k < n_ys; k++) {
      memset(w, 0, sizeof *w);
      if (lw_head_walk(g, ys[k], in_h, in_w, 1, w, note, cap) || merge_walk(&o->h, w, note, cap)) {
        free(w);
        return YRT_OK;
      }
      o->h.y_more[o->h.n_y_more++] = ys[k];
    }
    free(w);
  }
  if (group(g, o, in_h, in_w, rows, cols, kpt, note, cap)) return YRT_OK;
  if (!o->split && !o->cat) return measure(g, lower, o, ok, note, cap, err);
  int orig[YRT_OBJ_MAX_SCALES][MAX_PER];
  memcpy(orig, o->t, sizeof orig);
  char first[256] = "";
  for (int swap = 0; swap < 2 && o->cat; swap++) { /* which of the two convs comes first */
    memcpy(o->t, orig, sizeof orig);
    yrt_status st = YRT_OK;
    if (!cat_order(g, o, swap, cols, kpt, note, cap)) st = measure(g, lower, o, ok, note, cap, err);
    if (st != YRT_OK || *ok) return st;
    if (!first[0]) snprintf(first, sizeof first, "%s", note);
  }
  for (int p = 0; p < 6 && o->split; p++) {
    if (split_order(g, o, orig, p)) continue;
    yrt_status st = measure(g, lower, o, ok, note, cap, err);
    if (st != YRT_OK || *ok) return st;
    if (!first[0]) snprintf(first, sizeof first, "%s", note);
  }
  snprintf(note, cap, "%s", first[0] ? first : "no grid's tensors have 4, 1 and nc channels");
  return YRT_OK;
}

#define NOMEM() yrt_set_error(err, YRT_ERR_NOMEM, "fuse objectness head: out of memory")

/* The quantization of a Concat of two int8 tensors: a range covering both (objectness and class
 * logits have alike ranges; the decode reads them through tables). */
static void joint_quant(const ir_tensor *a, const ir_tensor *b, ir_tensor *y) {
  if (!a->q.on || !b->q.on || a->q.scales || b->q.scales) return;
  const double lo = fmin((-128.0 - a->q.zero_point) * a->q.scale, (-128.0 - b->q.zero_point) * b->q.scale);
  const double hi = fmax((127.0 - a->q.zero_point) * a->q.scale, (127.0 - b->q.zero_point) * b->q.scale);
  const double s = (hi - lo) / 255.0;
  if (!(s > 0)) return;
  y->q.on = 1;
  y->q.dtype = IR_I8;
  y->q.scale = (float)s;
  long zp = lround(-128.0 - lo / s);
  y->q.zero_point = (int32_t)(zp < -128 ? -128 : zp > 127 ? 127 : zp);
}

/* A new tensor `name` [1, C, H, W] (or [1, C, N] when w is 0) = Concat(a, b) on axis 1; its id,
 * -1 when out of memory. */
static int add_concat(ir_graph *g, const char *name, int a, int b, int64_t c, int64_t h, int64_t w) {
  const int t = ir_add_tensor(g, name, IR_F32);
  const int64_t d[4] = {1, c, h, w};
  if (t < 0 || ir_tensor_set_shape(&g->tensors[t], w ? 4 : 3, d)) return -1;
  if (w) joint_quant(&g->tensors[a], &g->tensors[b], &g->tensors[t]);
  const int parts[2] = {a, b}, k = ir_add_node(g, name, "Concat", parts, 2, &t, 1);
  return k < 0 || ir_set_attr_int(g, k, "axis", 1) ? -1 : t;
}

/* A YOLO-Pose head's keypoints: PoseDecode(maps, rows) -> [1, nk kd, N], then output y =
 * Concat(rows, keypoints): the rows an Ultralytics pose model's output0 has. */
static yrt_status add_keypoints(ir_graph *g, const obj_head *o, const char *base, const int *maps, int rows, int y,
                                yrt_error *err) {
  char name[300];
  snprintf(name, sizeof name, "%s/pose_decode", base);
  const int kt = ir_add_tensor(g, name, IR_F32);
  const int64_t kd3[3] = {1, (int64_t)o->nk * o->kd, o->n};
  if (kt < 0 || ir_tensor_set_shape(&g->tensors[kt], 3, kd3)) return NOMEM();
  int in[YRT_OBJ_MAX_SCALES + 1];
  for (int s = 0; s < o->ns; s++) in[s] = maps[s];
  in[o->ns] = rows; /* which anchors can become detections */
  const int nd = ir_add_node(g, name, "PoseDecode", in, o->ns + 1, &kt, 1);
  if (nd < 0) return NOMEM();
  free(g->nodes[nd].domain);
  g->nodes[nd].domain = ir_strdup("yolort");
  int64_t strides[YRT_OBJ_MAX_SCALES];
  for (int s = 0; s < o->ns; s++) strides[s] = o->stride[s];
  if (!g->nodes[nd].domain || ir_set_attr_int(g, nd, "num_keypoints", o->nk) || ir_set_attr_int(g, nd, "dims", o->kd) ||
      ir_set_attr_ints(g, nd, "strides", strides, o->ns) || ir_set_attr_int(g, nd, "form", YRT_POSE_ANCHOR) ||
      ir_set_attr_int(g, nd, "anchors_per_cell", o->na) || ir_set_attr_int(g, nd, "values_per_anchor", cols_of(o)) ||
      ir_set_attr_int(g, nd, "first_keypoint_value", 5 + o->nc))
    return NOMEM();
  snprintf(name, sizeof name, "%s/obj_decode/with_keypoints", base);
  const int parts[2] = {rows, kt}, k = ir_add_node(g, name, "Concat", parts, 2, &y, 1);
  if (k < 0 || ir_set_attr_int(g, k, "axis", 1)) return NOMEM();
  if (!g->task || !g->task[0]) { /* what it is, when the export did not say */
    free(g->task);
    if (!(g->task = ir_strdup("pose"))) return NOMEM();
  }
  if (g->kpt_shape[0] <= 0) g->kpt_shape[0] = o->nk, g->kpt_shape[1] = o->kd;
  /* TI edgeai-yolov5's detect.py (and the YOLOv5 it forks): RGB / 255, letterbox centred, pad
   * 114 — yolort's default; said so, since the family's TFLite demos stretch instead */
  char msg[160];
  if (!g->pre.set && ir_preprocess_parse("rgb,scale=1/255,center,letterbox,pad=114", &g->pre, msg, sizeof msg) == 0)
    snprintf(g->pre.why, sizeof g->pre.why, "YOLO-Pose family (TI edgeai-yolov5 detect.py: RGB /255, letterbox centred)");
  return YRT_OK;
}

static yrt_status rewrite(ir_graph *g, obj_head *o, yrt_error *err) {
  char name[300], base[200];
  snprintf(base, sizeof base, "%s", g->nodes[o->h.nodes[0]].name ? g->nodes[o->h.nodes[0]].name : "head");
  /* a head with one raw output per grid: the decode's rows become its one output (the others go
   * first, so their nodes are not kept for them) */
  for (int k = 0; k < o->h.n_y_more; k++) {
    const int t = o->h.y_more[k];
    g->tensors[t].is_output = 0;
    int w = 0;
    for (int j = 0; j < g->n_outputs; j++)
      if (g->outputs[j] != t) g->outputs[w++] = g->outputs[j];
    g->n_outputs = w;
  }
  o->h.n_removed = lw_head_remove(g, &o->h);
  int in[YRT_MAX_NODE_IO], n_in = 0;
  for (int s = 0; s < o->ns; s++) {
    in[n_in] = o->h.in[o->t[s][0]];
    if (o->cat) { /* YOLO-Pose: the anchor vectors run across both convs, read from their Concat */
      snprintf(name, sizeof name, "%s/obj_decode/maps%d", base, s);
      if ((in[n_in] = add_concat(g, name, o->h.in[o->t[s][0]], o->h.in[o->t[s][1]], (int64_t)o->na * cols_of(o), o->gh[s],
                                 o->gw[s])) < 0)
        return NOMEM();
    }
    n_in++;
  }
  if (o->split)
    for (int s = 0; s < o->ns; s++) { /* objectness + classes in one tensor per grid */
      snprintf(name, sizeof name, "%s/obj_decode/scores%d", base, s);
      if ((in[n_in++] = add_concat(g, name, o->h.in[o->t[s][1]], o->h.in[o->t[s][2]], 1 + o->nc, o->gh[s], o->gw[s])) < 0)
        return NOMEM();
    }
  float an[YRT_OBJ_MAX_SCALES * YRT_OBJ_MAX_ANCHORS * 2];
  for (int s = 0; s < o->ns; s++)
    for (int a = 0; a < o->na; a++)
      for (int k = 0; k < 2; k++) an[(s * o->na + a) * 2 + k] = o->anchor[s][a][k];
  const int64_t ad[3] = {o->ns, o->na, 2};
  const int at = ir_add_const_f32(g, base, "/obj_decode/anchors", 3, ad, an, (size_t)(o->ns * o->na * 2));
  if (at < 0) return NOMEM();
  in[n_in++] = at;
  snprintf(name, sizeof name, "%s/obj_decode", base);
  int y = o->h.y;
  if (o->nk) { /* the rows go on to the keypoint decode and the Concat that makes the output */
    snprintf(name, sizeof name, "%s/obj_decode/rows", base);
    const int64_t rd[3] = {1, 4 + o->nc, o->n};
    if ((y = ir_add_tensor(g, name, IR_F32)) < 0 || ir_tensor_set_shape(&g->tensors[y], 3, rd)) return NOMEM();
    snprintf(name, sizeof name, "%s/obj_decode", base);
  }
  const int nd = ir_add_node(g, name, "ObjDecode", in, n_in, &y, 1);
  if (nd < 0) return NOMEM();
  free(g->nodes[nd].domain);
  g->nodes[nd].domain = ir_strdup("yolort");
  int64_t strides[YRT_OBJ_MAX_SCALES];
  for (int s = 0; s < o->ns; s++) strides[s] = o->stride[s];
  const int mode = o->box_form == BOX_X || (o->box_form == BOX_RAW && o->na == 1) ? YRT_OBJ_EXP : YRT_OBJ_SIGMOID;
  if (!g->nodes[nd].domain || ir_set_attr_int(g, nd, "anchors_per_cell", o->na) ||
      ir_set_attr_int(g, nd, "num_classes", o->nc) || ir_set_attr_int(g, nd, "mode", mode) ||
      ir_set_attr_int(g, nd, "split", o->split) || ir_set_attr_ints(g, nd, "strides", strides, o->ns) ||
      (o->nk && ir_set_attr_int(g, nd, "values_per_anchor", cols_of(o))))
    return NOMEM();
  const int64_t yd[3] = {1, 4 + o->nc + o->nk * o->kd, o->n};
  if (ir_tensor_set_shape(&g->tensors[o->h.y], 3, yd)) return NOMEM();
  if (o->nk) {
    yrt_status st = add_keypoints(g, o, base, in, y, o->h.y, err);
    if (st != YRT_OK) return st;
  }
  /* YOLOX's official export takes BGR pixels in 0..255, the image at the top-left (its demo's
   * preproc); unless the user or the metadata said otherwise */
  if (mode == YRT_OBJ_EXP && !g->pre.set) {
    g->pre.set = 1;
    g->pre.bgr = 1;
    g->pre.scale = 1.0f;
    g->pre.mean[0] = g->pre.mean[1] = g->pre.mean[2] = 0.0f;
    g->pre.std[0] = g->pre.std[1] = g->pre.std[2] = 1.0f;
    g->pre.top_left = 1;
    g->pre.resize = IR_RESIZE_LETTERBOX;
    g->pre.pad = 114.0f;
    snprintf(g->pre.why, sizeof g->pre.why, "YOLOX family (its export's preproc: BGR 0..255, top-left)");
  }
  return YRT_OK;
}

static void summarise(const obj_head *o, char *note, size_t cap) {
  const int mode = o->box_form == BOX_X || (o->box_form == BOX_RAW && o->na == 1) ? YRT_OBJ_EXP : YRT_OBJ_SIGMOID;
  int k = snprintf(note, cap, "%d nodes -> obj_decode (%s, %d grids, strides", o->h.n_removed,
                   mode == YRT_OBJ_EXP ? "YOLOX" : "YOLOv5/v7 anchors", o->ns);
  for (int s = 0; s < o->ns && k > 0 && (size_t)k < cap; s++) k += snprintf(note + k, cap - (size_t)k, " %lld", (long long)o->stride[s]);
  if (k > 0 && (size_t)k < cap)
    k += snprintf(note + k, cap - (size_t)k, ", %d anchor%s per cell, %d classes; graph output %s; verified, max deviation %.2g)",
                  o->na, o->na > 1 ? "s" : "", o->nc, k_box_form[o->box_form], o->max_dev);
  if (k > 0 && (size_t)k < cap && o->nk)
    k += snprintf(note + k, cap - (size_t)k, "; keypoints: %d x %d %s (%s) -> pose_decode, YOLO-Pose form", o->nk, o->kd,
                  o->kpt_form == KPT_RAW ? "raw" : "decoded", o->kpt_guessed ? "x, y, conf from the keypoint conv; --kpt-shape sets them" : "kpt_shape");
  if (k > 0 && (size_t)k < cap && o->anchor_note[0]) snprintf(note + k, cap - (size_t)k, "; %s", o->anchor_note);
}

yrt_status lw_fuse_obj_head(ir_graph *g, lw_head_lower_fn lower, const float *anchors, int n_anchors, int *fused, int *n_removed, char *note,
                            size_t note_cap, yrt_error *err) {
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
  obj_head *o = malloc(sizeof *o);
  if (!o) return NOMEM();
  /* candidates: each output, then the raw per-grid maps together (largest grid first) */
  int maps[YRT_OBJ_MAX_SCALES], n_maps = 0;
  for (int c = 0; c < g->n_outputs; c++) {
    const ir_tensor *t = &g->tensors[g->outputs[c]];
    if (t->rank != 5) continue;
    if (n_maps == YRT_OBJ_MAX_SCALES) {
      n_maps = 0;
      break;
    }
    int k = n_maps++;
    while (k > 0 && g->tensors[maps[k - 1]].dims[2] < t->dims[2]) maps[k] = maps[k - 1], k--;
    maps[k] = g->outputs[c];
  }
  char first[256] = "";
  yrt_status st = YRT_OK;
  for (int c = 0; c <= g->n_outputs; c++) {
    int ok = 0;
    if (c == g->n_outputs && !n_maps) break;
    const int one = c < g->n_outputs ? g->outputs[c] : -1;
    if (one >= 0 && g->tensors[one].rank == 5) continue;
    if ((st = try_head(g, lower, one >= 0 ? &one : maps, one >= 0 ? 1 : n_maps, in_h, in_w, o, &ok, note, note_cap, err)) != YRT_OK)
      break;
    if (ok && choose_anchors(o, anchors, n_anchors, note, note_cap)) ok = 0;
    if (!ok) {
      if (!first[0]) snprintf(first, sizeof first, "%s", note);
      continue;
    }
    if ((st = rewrite(g, o, err)) != YRT_OK) break;
    *fused = 1;
    *n_removed = o->h.n_removed;
    summarise(o, note, note_cap);
    free(o);
    return YRT_OK;
  }
  free(o);
  if (st == YRT_OK && note_cap) snprintf(note, note_cap, "%s", first);
  return st;
}

int lw_is_obj_node(const ir_node *n) {
  return ir_node_is_live_op(n, ONNX_OP_YOLORT_OBJ_DECODE);
}
