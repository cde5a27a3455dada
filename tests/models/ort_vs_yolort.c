/* ort_vs_yolort — yolort against onnxruntime on the same file and the same letterboxed images.
 *   ort_vs_yolort dump  MODEL IMAGES_DIR N DIR   letterbox the first N images: DIR/<i>.in.f32 (NCHW)
 *   (bench/peers/ort or tests/models/ort_outputs.js writes DIR/<i>.ort.f32 = onnxruntime's output0)
 *   ort_vs_yolort score MODEL IMAGES_DIR N DIR [LABELS_DIR]
 * score prints the recall of onnxruntime's detections (conf 0.25) by yolort's on the same input
 * (same class, IoU >= 0.5) and, with labels, COCO mAP50 / mAP50-95 of both (conf 0.001, IoU 0.7).
 * MODEL is the .onnx (converted on the fly) or its .yrt; an end-to-end model's [1, K, 6] output
 * goes through yrt_postprocess_e2e, others through decode + NMS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coco_map.h"
#include "detector.h"
#include "file_list.h"

static float iou(const yrt_detection *a, const yrt_detection *b) {
  float x0 = a->x0 > b->x0 ? a->x0 : b->x0, y0 = a->y0 > b->y0 ? a->y0 : b->y0;
  float x1 = a->x1 < b->x1 ? a->x1 : b->x1, y1 = a->y1 < b->y1 ? a->y1 : b->y1;
  float w = x1 - x0 > 0 ? x1 - x0 : 0, h = y1 - y0 > 0 ? y1 - y0 : 0, in = w * h;
  float u = (a->x1 - a->x0) * (a->y1 - a->y0) + (b->x1 - b->x0) * (b->y1 - b->y0) - in;
  return u > 0 ? in / u : 0;
}

/* onnxruntime's output for input i through the same post-processing as yolort's */
static yrt_status post(const detector *d, const float *out, const yrt_letterbox *lb, const yrt_postprocess_params *pp,
                       yrt_detection *dets, int cap, int *n, void *scratch, yrt_error *err) {
  const yrt_model_info *in = &d->info;
  if (in->end2end) return yrt_postprocess_e2e(out, cap, in->num_classes, lb, pp, dets, cap, n, err);
  return yrt_postprocess(out, in->num_classes, cap, lb, pp, scratch, dets, cap, n, err);
}

int main(int argc, char **argv) {
  if (argc < 6 || (strcmp(argv[1], "dump") && strcmp(argv[1], "score"))) {
    fprintf(stderr, "usage: ort_vs_yolort dump|score MODEL IMAGES_DIR N DIR [LABELS_DIR]\n");
    return 2;
  }
  const int dump = !strcmp(argv[1], "dump"), want = atoi(argv[4]);
  const char *dir = argv[5], *labels = argc > 6 ? argv[6] : NULL;
  yrt_error err = {{0}};
  detector d;
  file_list files;
  yrt_status st = detector_open(&d, argv[2], 2, 1, &err);
  if (!st) st = file_list_images(argv[3], &files, &err);
  if (st) {
    fprintf(stderr, "ort_vs_yolort: %s\n", err.msg);
    return 1;
  }
  const int W = d.info.input_w, H = d.info.input_h, total = want < files.n ? want : files.n;
  /* output size: [1, 4+nc, N] or [1, K, 6] */
  yrt_tensor_view ov;
  if (!st) st = yrt_session_output(d.session, 0, &ov, &err);
  const int rows = ov.dims[1], cols = ov.dims[2];
  const int cap = d.info.end2end ? rows : cols;
  float *in = malloc(sizeof(float) * 3 * (size_t)W * H), *ort = malloc(sizeof(float) * (size_t)rows * cols);
  void *lbs = NULL, *pps = malloc(yrt_postprocess_scratch_bytes(cap, 300));
  yrt_detection *od = malloc(sizeof(yrt_detection) * (size_t)cap);
  coco_eval *ev[2] = {NULL, NULL};
  if (labels && !dump)
    for (int k = 0; k < 2 && !st; k++) st = coco_eval_create(d.info.num_classes, 0, &ev[k], &err);
  long n_ort = 0, n_hit = 0;
  for (int i = 0; !st && i < total; i++) {
    yrt_image img = {0, 0, NULL};
    st = yrt_image_load_jpeg(files.paths[i], &img, &err);
    if (st) break;
    free(lbs);
    lbs = malloc(yrt_letterbox_scratch_bytes(img.w, img.h, W, H));
    float *nhwc = yrt_session_input_nhwc(d.session, 0);
    yrt_letterbox lb;
    if (!in || !ort || !pps || !od || !lbs) st = yrt_set_error(&err, YRT_ERR_NOMEM, "out of memory");
    if (!st) st = yrt_letterbox_f32(&img, W, H, nhwc, 3 * (size_t)W * H, lbs, &lb, &err);
    char path[1400];
    if (!st && dump) {
      for (int c = 0; c < 3; c++)
        for (int p = 0; p < W * H; p++) in[(size_t)c * W * H + p] = nhwc[(size_t)p * 3 + c];
      snprintf(path, sizeof path, "%s/%d.in.f32", dir, i);
      FILE *f = fopen(path, "wb");
      if (!f || fwrite(in, sizeof(float), 3 * (size_t)W * H, f) != 3 * (size_t)W * H)
        st = yrt_set_error(&err, YRT_ERR_IO, "cannot write %s", path);
      if (f) fclose(f);
    } else if (!st) {
      snprintf(path, sizeof path, "%s/%d.ort.f32", dir, i);
      FILE *f = fopen(path, "rb");
      if (!f || fread(ort, sizeof(float), (size_t)rows * cols, f) != (size_t)rows * cols)
        st = yrt_set_error(&err, YRT_ERR_IO, "cannot read %s (run the onnxruntime step)", path);
      if (f) fclose(f);
      for (int pass = 0; !st && pass < (labels ? 2 : 1); pass++) {
        yrt_postprocess_params pp;
        yrt_postprocess_defaults(&pp);
        if (pass) pp.conf_threshold = 0.001f, pp.iou_threshold = 0.7f;
        int no = 0, ny = 0;
        const yrt_detection *yd;
        st = post(&d, ort, &lb, &pp, od, cap, &no, pps, &err);
        if (!st) st = yrt_letterbox_f32(&img, W, H, nhwc, 3 * (size_t)W * H, lbs, &lb, &err);
        if (!st) st = detector_run(&d, &img, &pp, &yd, &ny, &err);
        if (st) break;
        if (!pass) {
          for (int a = 0; a < no; a++) {
            int hit = 0;
            for (int b = 0; b < ny && !hit; b++) hit = yd[b].class_id == od[a].class_id && iou(&od[a], &yd[b]) >= 0.5f;
            n_ort++;
            n_hit += hit;
          }
        } else {
          char stem[512], lpath[1200];
          file_stem(files.paths[i], stem, sizeof stem);
          snprintf(lpath, sizeof lpath, "%s/%s.txt", labels, stem);
          coco_gt_box *gts = NULL;
          int n_gt = 0;
          st = coco_load_yolo_labels(lpath, img.w, img.h, d.info.num_classes, &gts, &n_gt, &err);
          if (!st) st = coco_eval_add_image(ev[0], yd, ny, gts, n_gt, &err);
          if (!st) st = coco_eval_add_image(ev[1], od, no, gts, n_gt, &err);
          free(gts);
        }
      }
    }
    yrt_image_free(&img);
  }
  int rc = st ? 1 : 0;
  if (st) fprintf(stderr, "ort_vs_yolort: %s\n", err.msg);
  else if (!dump) {
    printf("recall of onnxruntime's %ld detections (conf 0.25) by yolort's: %.4f (%d images)\n", n_ort,
           n_ort ? (double)n_hit / (double)n_ort : 1.0, total);
    if (labels) {
      coco_summary s[2];
      for (int k = 0; k < 2 && !st; k++) {
        st = coco_eval_finalize(ev[k], &err);
        if (!st) st = coco_eval_summary(ev[k], &s[k]);
      }
      if (!st)
        printf("mAP50 / mAP50-95: yolort %.4f / %.4f, onnxruntime %.4f / %.4f\n", s[0].map50, s[0].map50_95,
               s[1].map50, s[1].map50_95);
    }
  }
  for (int k = 0; k < 2; k++) coco_eval_free(ev[k]);
  free(in);
  free(ort);
  free(lbs);
  free(pps);
  free(od);
  file_list_free(&files);
  detector_close(&d);
  return rc;
}
