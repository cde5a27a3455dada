/* coco_report.c — JSON report of a finalized coco_eval. */
#include <string.h>

#include "coco_map.h"
#include "coco_map_internal.h"
#include "file_write.h"
#include "text_out.h"

/* class names from the model: always valid JSON (text_out.h) */
static void json_string(FILE *f, const char *s) { json_put_string(f, s); }

yrt_status coco_eval_write_json_file(const coco_eval *ev, FILE *f, const char *const *class_names, yrt_error *err) {
  coco_summary s;
  if (!f || coco_eval_summary(ev, &s) != YRT_OK)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "coco_eval_write_json: NULL file or evaluator not finalized");
  fprintf(f,
          "{\n  \"num_images\": %d,\n  \"num_classes\": %d,\n  \"num_classes_with_gt\": %d,\n  \"num_gt\": %ld,\n"
          "  \"num_det\": %ld,\n  \"max_dets_per_class\": %d,\n  \"map50\": ",
          s.num_images, s.num_classes, s.num_classes_with_gt, s.num_gt, s.num_det, ev->max_dets);
  json_put_number(f, "%.6f", s.map50); /* non-finite: null, never inf / nan */
  fputs(",\n  \"map75\": ", f);
  json_put_number(f, "%.6f", s.map75);
  fputs(",\n  \"map50_95\": ", f);
  json_put_number(f, "%.6f", s.map50_95);
  fputs(",\n  \"classes\": [", f);
  for (int c = 0; c < ev->num_classes; c++) {
    coco_class_stats cs;
    coco_eval_class_stats(ev, c, &cs);
    fprintf(f, "%s\n    {\"id\": %d, ", c ? "," : "", c);
    if (class_names && class_names[c]) {
      fputs("\"name\": ", f);
      json_string(f, class_names[c]);
      fputs(", ", f);
    }
    fprintf(f, "\"num_gt\": %d, \"num_det\": %d", cs.num_gt, cs.num_det);
    const char *key[4] = {"ap50", "ap75", "ap50_95", "recall50"};
    const double val[4] = {cs.ap50, cs.ap75, cs.ap50_95, cs.recall50};
    for (int k = 0; k < 4; k++) {
      fprintf(f, ", \"%s\": ", key[k]);
      json_put_number(f, "%.6f", val[k]);
    }
    fputc('}', f);
  }
  fputs("\n  ]\n}\n", f);
  if (ferror(f)) return yrt_set_error(err, YRT_ERR_IO, "coco_eval_write_json: write error");
  return YRT_OK;
}

yrt_status coco_eval_write_json(const coco_eval *ev, const char *path, const char *const *class_names,
                                yrt_error *err) {
  if (!path) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "coco_eval_write_json: NULL path");
  FILE *f = NULL;
  yrt_out_file *o = NULL; /* temp file + rename: a failed write is an error, the old file intact */
  yrt_status st = yrt_out_open(path, &o, &f, err);
  if (st != YRT_OK) return st;
  st = coco_eval_write_json_file(ev, f, class_names, err);
  if (st == YRT_OK) st = yrt_out_commit(o, err);
  else yrt_out_abort(o);
  if (st != YRT_OK && err && strstr(err->msg, path) == NULL) {
    char tmp[sizeof err->msg];
    memcpy(tmp, err->msg, sizeof tmp);
    yrt_set_error(err, st, "%s: %s", path, tmp);
  }
  return st;
}
