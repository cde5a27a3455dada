/* seg_accept.c — the C steps of check_segment.sh (issue 36 item 3: a segment model's boxes and
 * masks against onnxruntime's on the same letterboxed images):
 *   seg_accept prep MODEL.yrt OUTDIR IMAGE.jpg...
 *     each image as an RGB camera frame through yrt_session_detect (conf 0.25, NMS 0.45), then
 *     yrt_session_mask of every detection: OUTDIR/yrt_K.txt (class score x1 y1 x2 y2, image
 *     pixels), OUTDIR/yrt_K.masks (the masks, w x h bytes each), OUTDIR/lb_K.txt (the letterbox)
 *     and the session's own letterboxed input as NCHW floats OUTDIR/in_K.f32 for onnxruntime;
 *     on the first image also a crop of the frame: its masks in the crop's pixels, inside the
 *     boxes less the crop's origin, and a mask of the whole frame's size refused.
 *   seg_accept compare MODEL.yrt OUTDIR N
 *     onnxruntime's output0 / output1 (OUTDIR/ort_K.f32, ort_K.1.f32, written by ort_wild.js)
 *     decoded by the same postprocess, and each kept detection's mask computed here by a
 *     transcription of Ultralytics' process_mask_native in double (independent of segment.c):
 *     prints "recall R mask_iou_mean M mask_iou_min m matched K ort_dets N yrt_dets Y" (same
 *     class, box IoU >= 0.5; mask IoU of the matched pairs; the share of them >= 0.90). On an end-to-end model (output0
 *     [1, K, 6 + nm]: Segment.postprocess) onnxruntime's rows over conf are its detections (no NMS),
 *     their coefficients columns 6.. of the row.
 * Exit 0 on success, 1 on any error. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prepost/postprocess_internal.h"
#include "yolort_image.h"

#define MAXD 300
#define CONF 0.25f

typedef struct det {
  float b[4], score;
  int cls, anchor;
} det;

static int fail(const char *what, const char *why) {
  fprintf(stderr, "seg_accept: %s: %s\n", what, why ? why : "");
  return 1;
}

static void *read_all(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long sz = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *p = sz > 0 ? malloc((size_t)sz) : NULL;
  if (p && fread(p, 1, (size_t)sz, f) != (size_t)sz) {
    free(p);
    p = NULL;
  }
  fclose(f);
  if (n) *n = p ? (size_t)sz : 0;
  return p;
}

static int prep(const char *model_path, const char *dir, int n_img, char **imgs) {
  yrt_error err = {{0}};
  yrt_model *m = NULL;
  yrt_session *s = NULL;
  if (yrt_model_load_file(model_path, &m, &err) || yrt_session_create(m, NULL, &s, &err)) return fail("load", err.msg);
  if (yrt_model_mask_channels(m) < 1) return fail("model", "no masks (yrt_model_mask_channels 0)");
  yrt_postprocess_params pp;
  yrt_postprocess_defaults(&pp);
  pp.conf_threshold = CONF;
  pp.max_detections = MAXD;
  static yrt_detection d[MAXD];
  for (int k = 0; k < n_img; k++) {
    yrt_image img = {0, 0, NULL};
    if (yrt_image_load_jpeg(imgs[k], &img, &err)) return fail(imgs[k], err.msg);
    yrt_frame f;
    yrt_frame_init(&f);
    f.format = YRT_PIX_RGB888;
    f.width = img.w, f.height = img.h;
    f.plane[0] = img.rgb;
    f.stride[0] = (size_t)img.w * 3;
    f.color = YRT_COLOR_BT601_FULL;
    int n = 0;
    char path[4096];
    /* the letterboxed input first (the arena may reuse its bytes during the run), by the same
     * call yrt_session_detect makes */
    yrt_letterbox lb;
    if (yrt_session_set_frame(s, &f, &lb, &err)) return fail("set_frame", err.msg);
    const float *x = yrt_session_input_nhwc(s, 0);
    const size_t cnt = yrt_session_input_count(s, 0);
    if (!x || cnt != (size_t)lb.dst_w * (size_t)lb.dst_h * 3) return fail("input", "not a float NHWC input");
    float *nchw = malloc(cnt * sizeof *nchw);
    uint8_t *mask = malloc((size_t)img.w * (size_t)img.h);
    if (!nchw || !mask) return fail("prep", "out of memory");
    for (size_t i = 0; i < cnt / 3; i++)
      for (int c = 0; c < 3; c++) nchw[(size_t)c * (cnt / 3) + i] = x[i * 3 + (size_t)c];
    snprintf(path, sizeof path, "%s/in_%d.f32", dir, k);
    FILE *fi = fopen(path, "wb");
    if (!fi || fwrite(nchw, sizeof *nchw, cnt, fi) != cnt) return fail(path, "write");
    fclose(fi);
    snprintf(path, sizeof path, "%s/lb_%d.txt", dir, k);
    FILE *fl = fopen(path, "w");
    if (!fl) return fail(path, "write");
    fprintf(fl, "%d %d %.9g %.9g %.9g %.9g %d %d\n", lb.src_w, lb.src_h, (double)lb.ratio,
            (double)(lb.ratio_y > 0 ? lb.ratio_y : lb.ratio), (double)lb.pad_left, (double)lb.pad_top, lb.dst_w, lb.dst_h);
    fclose(fl);
    if (yrt_session_detect(s, &f, &pp, d, MAXD, &n, &err)) return fail("detect", err.msg);
    snprintf(path, sizeof path, "%s/yrt_%d.txt", dir, k);
    FILE *ft = fopen(path, "w");
    snprintf(path, sizeof path, "%s/yrt_%d.masks", dir, k);
    FILE *fm = fopen(path, "wb");
    if (!ft || !fm) return fail(path, "write");
    for (int i = 0; i < n; i++) {
      fprintf(ft, "%d %.6f %.4f %.4f %.4f %.4f\n", d[i].class_id, (double)d[i].score, (double)d[i].x0, (double)d[i].y0,
              (double)d[i].x1, (double)d[i].y1);
      if (yrt_session_mask(s, i, mask, img.w, img.h, (size_t)img.w, &err)) return fail("mask", err.msg);
      if (fwrite(mask, 1, (size_t)img.w * (size_t)img.h, fm) != (size_t)img.w * (size_t)img.h) return fail(path, "write");
    }
    fclose(ft);
    fclose(fm);
    if (k == 0 && img.w > 64 && img.h > 64) { /* a crop: masks in the crop's pixels, inside its boxes */
      f.crop_x = 32, f.crop_y = 16, f.crop_w = img.w - 48, f.crop_h = img.h - 32;
      int nc = 0;
      if (yrt_session_detect(s, &f, &pp, d, MAXD, &nc, &err)) return fail("detect (crop)", err.msg);
      size_t on = 0;
      for (int i = 0; i < nc; i++) {
        if (yrt_session_mask(s, i, mask, f.crop_w, f.crop_h, (size_t)img.w, &err)) return fail("mask (crop)", err.msg);
        for (int y = 0; y < f.crop_h; y++)
          for (int x = 0; x < f.crop_w; x++) {
            if (!mask[(size_t)y * (size_t)img.w + (size_t)x]) continue;
            on++;
            const float fx = (float)(x + f.crop_x), fy = (float)(y + f.crop_y);
            if (fx < d[i].x0 - 1 || fx > d[i].x1 + 1 || fy < d[i].y0 - 1 || fy > d[i].y1 + 1)
              return fail("mask (crop)", "a mask pixel outside its box (crop offset misapplied)");
          }
      }
      if (nc > 0 && on == 0) return fail("mask (crop)", "every mask of the crop is empty");
      if (yrt_session_mask(s, 0, mask, img.w, img.h, (size_t)img.w, &err) != YRT_ERR_INVALID_ARG && nc > 0)
        return fail("mask (crop)", "a mask of the whole frame's size was accepted for a crop");
    }
    free(nchw);
    free(mask);
    yrt_image_free(&img);
  }
  yrt_session_free(s);
  yrt_model_free(m);
  return 0;
}

static float box_iou(const float *a, const float *b) {
  const float w = fminf(a[2], b[2]) - fmaxf(a[0], b[0]), h = fminf(a[3], b[3]) - fmaxf(a[1], b[1]);
  if (w <= 0 || h <= 0) return 0;
  const float i = w * h;
  return i / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - i);
}

/* Ultralytics process_mask_native, in double: logits on the prototype grid, scale_masks (pad
 * cut by int(), F.interpolate bilinear align_corners=False), crop_mask, > 0. */
static void ref_mask(const float *y0, int n_anchors, int nc, const float *proto, int nm, int ph, int pw, int anchor,
                     const float *box, int w, int h, double ratio, double ratio_y, double pad_l, double pad_t, int in_w,
                     int in_h, uint8_t *out) {
  const double sx = (double)pw / in_w, sy = (double)ph / in_h;
  const int left = (int)(pad_l * sx), top = (int)(pad_t * sy);
  int right = (int)(pad_l * sx + w * ratio * sx), bottom = (int)(pad_t * sy + h * ratio_y * sy);
  if (right > pw) right = pw;
  if (bottom > ph) bottom = ph;
  const int cw = right - left, ch = bottom - top;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      uint8_t *o = &out[(size_t)y * w + x];
      *o = 0;
      if (!(x >= box[0] && x < box[2] && y >= box[1] && y < box[3])) continue;
      double v = 0;
      double fy = fmax(((double)y + 0.5) * ch / h - 0.5, 0), fx = fmax(((double)x + 0.5) * cw / w - 0.5, 0);
      int iy = (int)fy, ix = (int)fx;
      if (iy > ch - 1) iy = ch - 1;
      if (ix > cw - 1) ix = cw - 1;
      const int iy1 = iy + 1 < ch ? iy + 1 : ch - 1, ix1 = ix + 1 < cw ? ix + 1 : cw - 1;
      const double ly = fy - iy, lx = fx - ix;
      const int ys[2] = {iy, iy1}, xs[2] = {ix, ix1};
      const double wy[2] = {1 - ly, ly}, wx[2] = {1 - lx, lx};
      for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++) {
          double l = 0;
          for (int k = 0; k < nm; k++)
            l += (double)y0[(size_t)(4 + nc + k) * n_anchors + anchor] *
                 proto[((size_t)k * ph + (size_t)(top + ys[a])) * pw + (size_t)(left + xs[b])];
          v += wy[a] * wx[b] * l;
        }
      *o = v > 0;
    }
}

static int compare(const char *model_path, const char *dir, int n_img) {
  yrt_error err = {{0}};
  yrt_model *m = NULL;
  if (yrt_model_load_file(model_path, &m, &err)) return fail("load", err.msg);
  yrt_model_info info;
  yrt_model_get_info(m, &info);
  const int nc = info.num_classes, nm = yrt_model_mask_channels(m), e2e = info.end2end;
  int ort_total = 0, yrt_total = 0, matched = 0;
  double iou_sum = 0, iou_min = 1;
  int n_ge90 = 0; /* matched masks of IoU >= 0.90 */
  for (int k = 0; k < n_img; k++) {
    char path[4096];
    size_t n0, n1;
    snprintf(path, sizeof path, "%s/ort_%d.f32", dir, k);
    float *y0 = read_all(path, &n0);
    snprintf(path, sizeof path, "%s/ort_%d.1.f32", dir, k);
    float *proto = read_all(path, &n1);
    if (!y0 || !proto) return fail(path, "missing onnxruntime output");
    const int rows = e2e ? 6 + nm : 4 + nc + nm, n_anchors = (int)(n0 / 4 / (size_t)rows);
    const int side = (int)lround(sqrt((double)(n1 / 4 / (size_t)nm)));
    if (nm < 1 || (size_t)rows * (size_t)n_anchors * 4 != n0 || (size_t)side * (size_t)side * (size_t)nm * 4 != n1)
      return fail("compare", "onnxruntime's outputs are not [1, 4 + nc + nm, N] and [1, nm, S, S]");
    int w, h, in_w, in_h;
    double ratio, ratio_y, pl, pt;
    snprintf(path, sizeof path, "%s/lb_%d.txt", dir, k);
    FILE *fl = fopen(path, "r");
    if (!fl || fscanf(fl, "%d %d %lf %lf %lf %lf %d %d", &w, &h, &ratio, &ratio_y, &pl, &pt, &in_w, &in_h) != 8)
      return fail(path, "read");
    fclose(fl);
    /* onnxruntime's detections, by the same postprocess, with their anchors */
    yrt_postprocess_params pp;
    yrt_postprocess_defaults(&pp);
    pp.conf_threshold = CONF;
    pp.max_detections = MAXD;
    void *scratch = malloc(yrt_postprocess_scratch_bytes(n_anchors, MAXD));
    static yrt_detection od[MAXD];
    int on = 0;
    const yrt_letterbox lb = {(float)ratio, (float)pl, (float)pt, w, h, in_w, in_h, 0, 0, (float)ratio_y};
    int32_t kept[MAXD];
    if (e2e) { /* the rows over conf, their coefficients moved into the column layout ref_mask reads */
      if (n_anchors > MAXD) return fail("compare", "more end-to-end rows than MAXD");
      float *cols = calloc((size_t)(4 + nc + nm) * (size_t)n_anchors, sizeof *cols);
      if (!cols || yrt_postprocess_e2e_rows(y0, n_anchors, rows, 0, nc, &lb, &pp, od, MAXD, &on, kept, &err))
        return fail("postprocess", cols ? err.msg : "out of memory");
      for (int a = 0; a < n_anchors; a++)
        for (int c = 0; c < nm; c++) cols[(size_t)(4 + nc + c) * n_anchors + a] = y0[(size_t)a * rows + 6 + c];
      free(y0);
      y0 = cols;
    } else if (!scratch || yrt_postprocess(y0, nc, n_anchors, &lb, &pp, scratch, od, MAXD, &on, &err)) {
      return fail("postprocess", err.msg);
    }
    const int *anchors = e2e ? kept : yrt_postprocess_kept_anchors(scratch, n_anchors);
    /* yolort's */
    static det yd[MAXD];
    int yn = 0;
    snprintf(path, sizeof path, "%s/yrt_%d.txt", dir, k);
    FILE *ft = fopen(path, "r");
    if (!ft) return fail(path, "read");
    while (yn < MAXD && fscanf(ft, "%d %f %f %f %f %f", &yd[yn].cls, &yd[yn].score, &yd[yn].b[0], &yd[yn].b[1],
                               &yd[yn].b[2], &yd[yn].b[3]) == 6)
      yn++;
    fclose(ft);
    snprintf(path, sizeof path, "%s/yrt_%d.masks", dir, k);
    size_t nmask;
    uint8_t *ymasks = yn ? read_all(path, &nmask) : NULL;
    if (yn && (!ymasks || nmask != (size_t)yn * (size_t)w * (size_t)h)) return fail(path, "masks missing or short");
    uint8_t *omask = malloc((size_t)w * (size_t)h);
    char *used = calloc((size_t)yn + 1, 1);
    if (!omask || !used) return fail("compare", "out of memory");
    for (int i = 0; i < on; i++) {
      const float ob[4] = {od[i].x0, od[i].y0, od[i].x1, od[i].y1};
      int best = -1;
      float best_iou = 0.5f, best_key = -1e30f;
      for (int j = 0; j < yn; j++) {
        const float v = box_iou(ob, yd[j].b);
        /* end-to-end rows keep the near-duplicates NMS would drop (neighbouring anchors: like boxes,
         * other coefficients): the one of the same anchor is also the one of the nearest score */
        const float key = e2e ? v - fabsf(yd[j].score - od[i].score) : v;
        if (!used[j] && yd[j].cls == od[i].class_id && v >= 0.5f && key > best_key) best = j, best_iou = v, best_key = key;
      }
      (void)best_iou;
      if (best < 0) continue;
      used[best] = 1;
      matched++;
      ref_mask(y0, n_anchors, nc, proto, nm, side, side, anchors[i], ob, w, h, ratio, ratio_y, pl, pt, in_w, in_h, omask);
      const uint8_t *ym = ymasks + (size_t)best * (size_t)w * (size_t)h;
      size_t inter = 0, uni = 0;
      for (size_t p = 0; p < (size_t)w * (size_t)h; p++) {
        inter += omask[p] && ym[p];
        uni += omask[p] || ym[p];
      }
      const double iou = uni ? (double)inter / (double)uni : 1.0;
      n_ge90 += iou >= 0.90;
      iou_sum += iou;
      if (iou < iou_min) iou_min = iou;
    }
    ort_total += on;
    yrt_total += yn;
    free(omask);
    free(used);
    free(ymasks);
    free(scratch);
    free(y0);
    free(proto);
  }
  printf("recall %.4f mask_iou_mean %.4f mask_iou_min %.4f matched %d ort_dets %d yrt_dets %d mask_iou_ge90 %.4f\n",
         ort_total ? (double)matched / ort_total : 1.0, matched ? iou_sum / matched : 1.0, matched ? iou_min : 1.0,
         matched, ort_total, yrt_total, matched ? (double)n_ge90 / matched : 1.0);
  yrt_model_free(m);
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 5 && strcmp(argv[1], "prep") == 0) return prep(argv[2], argv[3], argc - 4, argv + 4);
  if (argc == 5 && strcmp(argv[1], "compare") == 0) return compare(argv[2], argv[3], atoi(argv[4]));
  fprintf(stderr, "usage: seg_accept prep MODEL.yrt OUTDIR IMAGE.jpg... | compare MODEL.yrt OUTDIR N\n");
  return 1;
}
