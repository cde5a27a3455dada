/* quant_report.c — see quant_report.h. */
#include "quant_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coco_map.h"
#include "detector.h"
#include "eval_run.h"
#include "file_write.h"
#include "file_list.h"
#include "model_open.h"
#include "onnx_write.h"
#include "sqnr.h"

/* float (0) and int8 (1) models on the labelled images: their summaries and the classes most hurt. */
static yrt_status per_class(FILE *f, const quant_report_options *o, const uint8_t *fb, size_t fsize,
                            const uint8_t *qb, size_t qsize, yrt_error *err) {
  detector d[2];
  coco_eval *ev[2] = {NULL, NULL};
  memset(d, 0, sizeof d);
  file_list files = {NULL, 0};
  yrt_model *m = NULL;
  yrt_status st = yrt_open_onnx_memory(fb, fsize, "float", NULL, &m, err);
  if (!st) st = detector_attach(&d[0], m, "the float model", o->threads, err);
  m = NULL;
  if (!st) st = yrt_open_onnx_memory(qb, qsize, "int8", o->keep_fp32, &m, err);
  if (!st) st = detector_attach(&d[1], m, "the int8 model", o->threads, err);
  for (int r = 0; !st && r < 2; r++) st = coco_eval_create(d[r].info.num_classes, 0, &ev[r], err);
  if (!st) st = file_list_images(o->images, &files, err);
  const int total = o->eval_images > 0 && o->eval_images < files.n ? o->eval_images : files.n;
  yrt_postprocess_params pp; /* yolort-eval's protocol (docs/accuracy.md) */
  yrt_postprocess_defaults(&pp);
  pp.conf_threshold = 0.001f;
  pp.iou_threshold = 0.7f;
  pp.max_detections = 300;
  if (!st) st = eval_run_images(d, ev, NULL, 2, &files, total, o->labels, &pp, o->quiet, NULL, NULL, 0, err);
  coco_summary s[2];
  for (int r = 0; !st && r < 2; r++) st = coco_eval_summary(ev[r], &s[r]);
  if (!st) {
    fprintf(f, "\naccuracy on %d images of %s (labels %s), A = float, B = int8\n", total, o->images, o->labels);
    fprintf(f, "  %-6s %8s %10s\n", "model", "mAP50", "mAP50-95");
    fprintf(f, "  %-6s %8.4f %10.4f\n  %-6s %8.4f %10.4f\n", "float", s[0].map50, s[0].map50_95, "int8",
            s[1].map50, s[1].map50_95);
    fprintf(f, "  loss %.2f mAP50-95 points\n\n", 100.0 * (s[0].map50_95 - s[1].map50_95));
    const char **names = eval_class_names(&d[0]);
    coco_print_changes(f, "classes most hurt (AP50-95 lost, float -> int8), top 10:", ev[0], ev[1], 1, 10, names);
    free((void *)names);
  }
  file_list_free(&files);
  for (int r = 0; r < 2; r++) {
    coco_eval_free(ev[r]);
    detector_close(&d[r]);
  }
  return st;
}

yrt_status quant_report_write(const quant_report_options *o, const uint8_t *float_onnx, size_t float_size,
                              const uint8_t *qdq_onnx, size_t qdq_size, yrt_error *err) {
  Onnx__ModelProto *q = NULL;
  sqnr_report r;
  memset(&r, 0, sizeof r);
  FILE *f = NULL;
  yrt_out_file *out = NULL; /* temp file + rename: a failed write is an error, the old file intact */
  yrt_status st = yrt_out_open(o->path, &out, &f, err);
  if (st) return st;
  fprintf(f, "yolort-quantize report\n");
  if (o->input_line) fprintf(f, "%s", o->input_line);
  sqnr_options so = {o->images, o->sqnr_images, o->threads, o->quiet};
  st = onnx_model_load_memory(qdq_onnx, qdq_size, &q, err);
  if (!st) st = sqnr_measure(q, &so, &r, err);
  if (!st) sqnr_report_print(&r, f);
  if (!st && r.n > 0) { /* where to look first: the largest own drops */
    int *idx = malloc(sizeof(int) * (size_t)r.n);
    if (!idx) st = yrt_set_error(err, YRT_ERR_NOMEM, "--report: out of memory");
    for (int k = 0; idx && k < r.n; k++) idx[k] = k;
    for (int i = 1; idx && i < r.n; i++) /* insertion sort, largest drop first, stable */
      for (int j = i; j > 0 && r.l[idx[j]].drop > r.l[idx[j - 1]].drop; j--) {
        const int t = idx[j];
        idx[j] = idx[j - 1];
        idx[j - 1] = t;
      }
    if (idx) {
      fprintf(f, "\nlayers with the largest own SQNR drop, top 10:\n");
      for (int k = 0; k < r.n && k < 10; k++)
        fprintf(f, "  %-48.48s %-8s %8.2f dB, drop %6.2f dB (node %s)\n", r.l[idx[k]].tensor, r.l[idx[k]].op,
                r.l[idx[k]].db, r.l[idx[k]].drop, r.l[idx[k]].node);
    }
    free(idx);
  }
  if (!st && o->labels) st = per_class(f, o, float_onnx, float_size, qdq_onnx, qdq_size, err);
  sqnr_report_free(&r);
  onnx_model_free(q);
  if (!st) st = yrt_out_commit(out, err);
  else yrt_out_abort(out);
  return st;
}
