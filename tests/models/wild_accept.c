/* wild_accept.c — the two C steps of check_wild_accept.sh (yolort against onnxruntime on real
 * exports, issue 15's acceptance):
 *   wild_accept prep MODEL.yrt OUTDIR IMAGE.jpg...
 *     letterboxes each image to the model's input (the runtime's own letterbox), writes the NCHW
 *     float input OUTDIR/in_K.f32 (for onnxruntime) and runs yolort on it: OUTDIR/yrt_K.txt
 *     (one detection per line: class score x1 y1 x2 y2, network-input pixels).
 *   wild_accept compare MODEL.yrt OUTDIR N_IMAGES [FORM]
 *     reads onnxruntime's output0 OUTDIR/ort_K.f32 (+ ort_K.dims), decodes it exactly as yolort's
 *     own output (same postprocess, conf 0.25, NMS 0.45), and prints the recall of yolort's
 *     detections against onnxruntime's: same class, IoU >= 0.5. An output [1, K, 6] is an
 *     end-to-end head's list (x1 y1 x2 y2 score class), taken as is above conf 0.25. FORM names
 *     an objectness head's output [1, N, 5 + nc] (YOLOv5 / v7 / YOLOX): v5 (decoded boxes,
 *     objectness, classes), v5sig (every value a sigmoid, boxes not decoded) or xraw (YOLOX:
 *     raw boxes, sigmoid scores); it is decoded here from the formulas of those families with
 *     the strides and anchors the .yrt's obj_decode node holds, into [1, 4 + nc, N].
 *   wild_accept run MODEL.yrt IN.f32 OUT.f32
 *     runs yolort on one NCHW float input and writes output0 (logical order) as raw floats
 *     (check_head_variants.py compares it with the float reference); outputs 1.. (if any) go to
 *     OUT.f32.1, ...
 * Exit 0 and the recall on stdout ("recall R ort_dets N yrt_dets M"), 1 on any error.
 * A classifier (yrt_model_task "classify"): prep writes yrt_K.txt as its top-5 (one "class prob"
 * per line, yrt_session_classify_output); compare takes onnxruntime's output0 (any rank, nc
 * values), its argmax, and prints "top1_agree A images N top1_in_top5 B" (A: the share of images
 * whose yolort top-1 is onnxruntime's, B: whose onnxruntime top-1 is in yolort's top-5). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yolort_format.h"
#include "yolort_image.h"

#define MAXD 300
/* conf 0.25 (the threshold); WILD_ACCEPT_CONF lowers it for models of other classes, which
 * find little on COCO images at 0.25 */
static float conf_threshold(void) {
  const char *s = getenv("WILD_ACCEPT_CONF");
  const float c = s ? strtof(s, NULL) : 0.25f;
  return c > 0.0f && c < 1.0f ? c : 0.25f;
}
#define CONF conf_threshold()

typedef struct det {
  float b[4], score;
  int cls;
} det;

static int fail(const char *what, const yrt_error *e) {
  fprintf(stderr, "wild_accept: %s: %s\n", what, e ? e->msg : "");
  return 1;
}

/* Detections of one output0 (logical layout) in network-input pixels. */
static int decode(const float *y, int rank, const int *dims, int nc, det *out) {
  int n = 0;
  if (rank == 3 && dims[2] == 6 && dims[1] <= MAXD) { /* end-to-end list */
    for (int i = 0; i < dims[1] && n < MAXD; i++) {
      const float *r = y + (size_t)i * 6;
      if (r[4] < CONF) continue;
      out[n] = (det){{r[0], r[1], r[2], r[3]}, r[4], (int)r[5]};
      n++;
    }
    return n;
  }
  if (rank != 3 || dims[1] < 4 + nc) return -1;
  yrt_postprocess_params pp;
  yrt_postprocess_defaults(&pp);
  pp.conf_threshold = CONF;
  pp.max_detections = MAXD;
  void *scratch = malloc(yrt_postprocess_scratch_bytes(dims[2], MAXD));
  yrt_detection d[MAXD];
  yrt_error err;
  int m = 0;
  if (!scratch || yrt_postprocess(y, nc, dims[2], NULL, &pp, scratch, d, MAXD, &m, &err) != YRT_OK) {
    free(scratch);
    return -1;
  }
  free(scratch);
  for (int i = 0; i < m; i++) out[i] = (det){{d[i].x0, d[i].y0, d[i].x1, d[i].y1}, d[i].score, d[i].class_id};
  return m;
}

static int is_classifier(const yrt_model *m) { return strcmp(yrt_model_task(m), "classify") == 0; }

/* A classifier's top-5 of the input just run, one "class prob" per line. */
static int write_top5(yrt_session *s, const char *path) {
  yrt_class_prob top[5];
  int n = 0;
  yrt_error err;
  if (yrt_session_classify_output(s, 5, top, 5, &n, &err) != YRT_OK) return fail("classify", &err);
  FILE *f = fopen(path, "w");
  if (!f) return fail(path, NULL);
  for (int i = 0; i < n; i++) fprintf(f, "%d %.6f\n", top[i].class_id, top[i].prob);
  return fclose(f) ? fail(path, NULL) : 0;
}

static float iou(const float *a, const float *b) {
  const float iw = fminf(a[2], b[2]) - fmaxf(a[0], b[0]), ih = fminf(a[3], b[3]) - fmaxf(a[1], b[1]);
  if (iw <= 0 || ih <= 0) return 0;
  const float in = iw * ih, u = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - in;
  return u > 0 ? in / u : 0;
}

static int prep(const char *model_path, const char *dir, int n_img, char **imgs) {
  yrt_error err;
  yrt_model *m = NULL;
  yrt_session *s = NULL;
  if (yrt_model_load_file(model_path, &m, &err) != YRT_OK) return fail(model_path, &err);
  yrt_model_info info;
  yrt_model_get_info(m, &info);
  if (yrt_session_create(m, NULL, &s, &err) != YRT_OK) return fail("session", &err);
  const int W = info.input_w, H = info.input_h;
  float *x = malloc(sizeof(float) * 3 * (size_t)W * (size_t)H), *nchw = malloc(sizeof(float) * 3 * (size_t)W * (size_t)H);
  if (!x || !nchw) return fail("out of memory", NULL);
  for (int k = 0; k < n_img; k++) {
    yrt_image img;
    if (yrt_image_load_jpeg(imgs[k], &img, &err) != YRT_OK) return fail(imgs[k], &err);
    void *scratch = malloc(yrt_letterbox_scratch_bytes(img.w, img.h, W, H));
    yrt_letterbox lb;
    /* the model's own preprocessing (a YOLOX export takes BGR 0..255 at the top-left): onnxruntime
     * is fed the same tensor */
    yrt_preprocess pp;
    if (yrt_model_get_preprocess(m, &pp) != YRT_OK) return fail("preprocess", NULL);
    if (!scratch || yrt_preprocess_f32(&img, &pp, W, H, x, 3 * (size_t)W * (size_t)H, scratch, &lb, &err) != YRT_OK)
      return fail("preprocess", &err);
    free(scratch);
    yrt_image_free(&img);
    for (int c = 0; c < 3; c++)
      for (int i = 0; i < W * H; i++) nchw[(size_t)c * W * H + i] = x[(size_t)i * 3 + c];
    char path[4096];
    snprintf(path, sizeof path, "%s/in_%d.f32", dir, k);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(nchw, sizeof(float), 3 * (size_t)W * H, f) != 3 * (size_t)W * H || fclose(f)) return fail(path, NULL);
    if (yrt_session_set_input(s, 0, nchw, 3 * (size_t)W * H, &err) != YRT_OK || yrt_session_run(s, &err) != YRT_OK)
      return fail("run", &err);
    if (is_classifier(m)) {
      snprintf(path, sizeof path, "%s/yrt_%d.txt", dir, k);
      if (write_top5(s, path)) return 1;
      continue;
    }
    yrt_tensor_view v;
    if (yrt_session_output(s, 0, &v, &err) != YRT_OK) return fail("output", &err);
    det d[MAXD];
    const int n = decode(v.data, v.rank, v.dims, info.num_classes, d);
    if (n < 0) return fail("yolort output0 is not [1, 4 + nc, N] or [1, K, 6]", NULL);
    snprintf(path, sizeof path, "%s/yrt_%d.txt", dir, k);
    if (!(f = fopen(path, "w"))) return fail(path, NULL);
    for (int i = 0; i < n; i++) fprintf(f, "%d %.5f %.2f %.2f %.2f %.2f\n", d[i].cls, d[i].score, d[i].b[0], d[i].b[1], d[i].b[2], d[i].b[3]);
    fclose(f);
  }
  printf("%d %d\n", H, W); /* the input size onnxruntime is fed */
  free(x);
  free(nchw);
  yrt_session_free(s);
  yrt_model_free(m);
  return 0;
}

/* The obj_decode node of a .yrt: its parameters and anchors (NULL when it has none). */
typedef struct obj_node {
  int ns, na, nc;
  int stride[8];
  const float *anchors; /* [ns][na][2] */
  void *file;
} obj_node;

static int find_obj_node(const char *path, obj_node *o) {
  memset(o, 0, sizeof *o);
  FILE *f = fopen(path, "rb");
  if (!f || fseek(f, 0, SEEK_END)) return -1;
  const long size = ftell(f);
  rewind(f);
  void *buf = NULL;
  if (size <= 0 || posix_memalign(&buf, 64, (size_t)size) || fread(buf, 1, (size_t)size, f) != (size_t)size) {
    fclose(f);
    free(buf);
    return -1;
  }
  fclose(f);
  yrt_file_view v;
  if (yrt_file_open(buf, (size_t)size, &v, NULL) != YRT_OK) {
    free(buf);
    return -1;
  }
  for (uint32_t i = 0; i < v.n_nodes; i++) {
    const yrt_node_rec *n = &v.nodes[i];
    if (n->op != YRT_OP_OBJ_DECODE) continue;
    o->ns = n->p[YRT_OBJ_P_SCALES];
    o->na = n->p[YRT_OBJ_P_ANCHORS];
    o->nc = n->p[YRT_OBJ_P_CLASSES];
    for (int s = 0; s < o->ns && s < 8; s++) o->stride[s] = n->p[YRT_OBJ_P_STRIDE0 + s];
    const yrt_tensor_rec *a = &v.tensors[n->in[n->n_in - 1]];
    o->anchors = (const float *)(v.weights + a->offset);
    o->file = buf;
    return 0;
  }
  free(buf);
  return -1;
}

/* onnxruntime's [1, N, 5 + nc] of an objectness head in FORM -> [4 + nc][N] (cx, cy, w, h, then
 * objectness x class), the families' formulas; the grids are the input over the strides. */
static float *objectness_rows(const float *y, int n, int cols, const char *form, const obj_node *o, int in_h,
                              int in_w) {
  const int nc = cols - 5;
  float *out = malloc(sizeof(float) * (size_t)(4 + nc) * (size_t)n);
  if (!out || nc != o->nc) {
    free(out);
    return NULL;
  }
  int g = 0;
  for (int s = 0; s < o->ns; s++) {
    const int gh = in_h / o->stride[s], gw = in_w / o->stride[s];
    for (int a = 0; a < o->na; a++)
      for (int r = 0; r < gh; r++)
        for (int c = 0; c < gw && g < n; c++, g++) {
          const float *v = y + (size_t)g * cols;
          const double st = o->stride[s], aw = o->anchors[(s * o->na + a) * 2], ah = o->anchors[(s * o->na + a) * 2 + 1];
          double b[4];
          if (!strcmp(form, "v5")) {
            for (int k = 0; k < 4; k++) b[k] = v[k];
          } else if (!strcmp(form, "v5sig")) {
            b[0] = (2 * v[0] - 0.5 + c) * st, b[1] = (2 * v[1] - 0.5 + r) * st;
            b[2] = 4 * v[2] * v[2] * aw, b[3] = 4 * v[3] * v[3] * ah;
          } else { /* xraw */
            b[0] = (v[0] + c) * st, b[1] = (v[1] + r) * st, b[2] = exp(v[2]) * st, b[3] = exp(v[3]) * st;
          }
          for (int k = 0; k < 4; k++) out[(size_t)k * n + g] = (float)b[k];
          for (int k = 0; k < nc; k++) out[(size_t)(4 + k) * n + g] = v[4] * v[5 + k];
        }
  }
  if (g != n) {
    free(out);
    return NULL;
  }
  return out;
}

/* A classifier: onnxruntime's argmax against yolort's top-1 / top-5 on each image. */
static int compare_classes(const char *dir, int n_img, int nc) {
  int agree = 0, in5 = 0;
  float *y = malloc(sizeof(float) * (size_t)nc);
  if (!y) return fail("out of memory", NULL);
  for (int k = 0; k < n_img; k++) {
    char path[4096];
    int dims[4] = {1, 1, 1, 1}, rank = 0;
    snprintf(path, sizeof path, "%s/ort_%d.dims", dir, k);
    FILE *f = fopen(path, "r");
    if (!f) return free(y), fail(path, NULL);
    while (rank < 4 && fscanf(f, "%d", &dims[rank]) == 1) rank++;
    fclose(f);
    if ((long)dims[0] * dims[1] * dims[2] * dims[3] != nc) return free(y), fail("onnxruntime output0 does not hold the model's classes", NULL);
    snprintf(path, sizeof path, "%s/ort_%d.f32", dir, k);
    if (!(f = fopen(path, "rb")) || fread(y, sizeof(float), (size_t)nc, f) != (size_t)nc) return free(y), fail(path, NULL);
    fclose(f);
    int best = 0;
    for (int i = 1; i < nc; i++)
      if (y[i] > y[best]) best = i;
    snprintf(path, sizeof path, "%s/yrt_%d.txt", dir, k);
    if (!(f = fopen(path, "r"))) return free(y), fail(path, NULL);
    int cls, r = 0;
    float p;
    while (r < 5 && fscanf(f, "%d %f", &cls, &p) == 2) {
      if (cls == best) agree += r == 0, in5++;
      r++;
    }
    fclose(f);
  }
  free(y);
  printf("top1_agree %.4f images %d top1_in_top5 %.4f\n", n_img ? (double)agree / n_img : 1.0, n_img,
         n_img ? (double)in5 / n_img : 1.0);
  return 0;
}

static int compare(const char *model_path, const char *dir, int n_img, const char *form) {
  yrt_error err;
  yrt_model *m = NULL;
  if (yrt_model_load_file(model_path, &m, &err) != YRT_OK) return fail(model_path, &err);
  yrt_model_info info;
  yrt_model_get_info(m, &info);
  if (is_classifier(m)) {
    const int r = compare_classes(dir, n_img, info.num_classes);
    yrt_model_free(m);
    return r;
  }
  int total_ort = 0, total_yrt = 0, matched = 0;
  for (int k = 0; k < n_img; k++) {
    char path[4096];
    int dims[3] = {0, 0, 0}, rank = 0;
    snprintf(path, sizeof path, "%s/ort_%d.dims", dir, k);
    FILE *f = fopen(path, "r");
    if (!f) return fail(path, NULL);
    while (rank < 3 && fscanf(f, "%d", &dims[rank]) == 1) rank++;
    fclose(f);
    const size_t cnt = (size_t)dims[0] * dims[1] * dims[2];
    if (rank != 3 || cnt == 0 || cnt > (1u << 26)) return fail("onnxruntime output0 is not rank 3", NULL);
    float *y = malloc(sizeof(float) * cnt);
    snprintf(path, sizeof path, "%s/ort_%d.f32", dir, k);
    if (!y || !(f = fopen(path, "rb")) || fread(y, sizeof(float), cnt, f) != cnt) return fail(path, NULL);
    fclose(f);
    det o[MAXD], d[MAXD];
    if (form) { /* an objectness head's [1, N, 5 + nc] in the family's own form */
      obj_node on;
      if (find_obj_node(model_path, &on)) return fail("the .yrt has no obj_decode node", NULL);
      float *rows = objectness_rows(y, dims[1], dims[2], form, &on, info.input_h, info.input_w);
      free(on.file);
      free(y);
      if (!rows) return fail("onnxruntime output0 does not fit the model's objectness head", NULL);
      y = rows;
      dims[1] = 4 + info.num_classes;
      dims[2] = (int)(cnt / (size_t)(5 + info.num_classes));
    }
    const int no = decode(y, rank, dims, info.num_classes, o);
    free(y);
    if (no < 0) return fail("onnxruntime output0 has fewer rows than 4 + the model's classes", NULL);
    int nd = 0;
    snprintf(path, sizeof path, "%s/yrt_%d.txt", dir, k);
    if (!(f = fopen(path, "r"))) return fail(path, NULL);
    while (nd < MAXD && fscanf(f, "%d %f %f %f %f %f", &d[nd].cls, &d[nd].score, &d[nd].b[0], &d[nd].b[1], &d[nd].b[2], &d[nd].b[3]) == 6) nd++;
    fclose(f);
    int used[MAXD] = {0};
    for (int i = 0; i < no; i++) { /* greedy: each yolort detection matches one of onnxruntime's */
      int best = -1;
      float bi = 0.5f;
      for (int j = 0; j < nd; j++) {
        if (used[j] || d[j].cls != o[i].cls) continue;
        const float v = iou(o[i].b, d[j].b);
        if (v >= bi) bi = v, best = j;
      }
      if (best >= 0) used[best] = 1, matched++;
    }
    total_ort += no;
    total_yrt += nd;
  }
  printf("recall %.4f ort_dets %d yrt_dets %d\n", total_ort ? (double)matched / total_ort : 1.0, total_ort, total_yrt);
  yrt_model_free(m);
  return 0;
}

static int run_one(const char *model_path, const char *in_path, const char *out_path) {
  yrt_error err;
  yrt_model *m = NULL;
  yrt_session *s = NULL;
  if (yrt_model_load_file(model_path, &m, &err) != YRT_OK) return fail(model_path, &err);
  yrt_model_info info;
  yrt_model_get_info(m, &info);
  if (yrt_session_create(m, NULL, &s, &err) != YRT_OK) return fail("session", &err);
  const size_t cnt = 3 * (size_t)info.input_w * (size_t)info.input_h;
  float *x = malloc(sizeof(float) * cnt);
  FILE *f = fopen(in_path, "rb");
  if (!x || !f || fread(x, sizeof(float), cnt, f) != cnt) return fail(in_path, NULL);
  fclose(f);
  yrt_tensor_view v;
  if (yrt_session_set_input(s, 0, x, cnt, &err) != YRT_OK || yrt_session_run(s, &err) != YRT_OK ||
      yrt_session_output(s, 0, &v, &err) != YRT_OK)
    return fail("run", &err);
  if (!(f = fopen(out_path, "wb")) || fwrite(v.data, sizeof(float), v.count, f) != v.count || fclose(f)) return fail(out_path, NULL);
  for (int k = 1; k < info.num_outputs; k++) { /* further outputs (a debugging export's) to OUT.f32.K */
    yrt_tensor_view vk;
    char path[4096];
    snprintf(path, sizeof path, "%s.%d", out_path, k);
    if (yrt_session_output(s, k, &vk, &err) != YRT_OK) return fail("output", &err);
    if (!(f = fopen(path, "wb")) || fwrite(vk.data, sizeof(float), vk.count, f) != vk.count || fclose(f)) return fail(path, NULL);
  }
  printf("%d %s %d", info.num_classes, yrt_model_task(m), v.rank);
  for (int i = 0; i < v.rank; i++) printf(" %d", v.dims[i]);
  printf("\n");
  free(x);
  yrt_session_free(s);
  yrt_model_free(m);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 5 && !strcmp(argv[1], "run")) return run_one(argv[2], argv[3], argv[4]);
  if (argc >= 5 && !strcmp(argv[1], "prep")) return prep(argv[2], argv[3], argc - 4, argv + 4);
  if ((argc == 5 || argc == 6) && !strcmp(argv[1], "compare"))
    return compare(argv[2], argv[3], atoi(argv[4]), argc == 6 ? argv[5] : NULL);
  fprintf(stderr, "usage: wild_accept prep MODEL.yrt OUTDIR IMAGE.jpg... | compare MODEL.yrt OUTDIR N [v5|v5sig|xraw] | run MODEL.yrt IN.f32 OUT.f32\n");
  return 1;
}
