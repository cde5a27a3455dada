/* yolort-eval MODEL IMAGES LABELS [--compare MODEL2] [--json report.json] [--dets dets.txt]
 *             [-n MAX] [--threads N] [--conf 0.001] [--iou 0.7] [--max-det 300] [-q]
 * COCO mAP@0.5 and mAP@0.5:0.95 (101-point) of a model (.yrt or .onnx) on YOLO-format labels (an
 * obb model: on 4-corner labels, its rotated boxes by probiou or --rotated-iou polygon too);
 * with --compare, both models side by side with the per-class difference, and the 10 classes whose
 * AP50-95 changed most (GT instances, AP of each side); --bootstrap R (with --compare) adds a paired
 * bootstrap over the images of the mAP difference (R resamples, --seed S): its standard error, the
 * resamples' bias and three 95% intervals (BCa, the one to quote; basic; percentile: coco_map.h),
 * i.e. how much of the difference this image set can tell from chance. --from-dets F... [--compare-dets
 * G...] does the same from --dets files, pooled over several runs (eval_dets.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_num.h"
#include "cli_usage.h"
#include "coco_map.h"
#include "detector.h"
#include "eval_dets.h"
#include "eval_run.h"
#include "file_list.h"
#include "file_write.h"
#include "text_out.h"
#include "cli_stdout.h"
#include "cli_version.h"

#define PROG "yolort-eval"

static void help(FILE *f) {
  fprintf(f,
          "usage: yolort-eval MODEL IMAGES_DIR LABELS_DIR [--compare MODEL2] [--json out.json]\n"
          "                   [--dets dets.txt] [-n MAX_IMAGES] [--threads N] [--conf C] [--iou T] [--max-det N] [-q]\n"
          "                   [--bootstrap R [--seed S]]  (with --compare: paired bootstrap of the mAP difference)\n"
          "       yolort-eval --from-dets A.dets [--from-dets ...] [--compare-dets B.dets ...] [--bootstrap R]\n"
          "                   (mAP from --dets files, pooled over files: eval_dets.h)\n"
          "COCO mAP@0.5 and mAP@0.5:0.95 of MODEL (.yrt or .onnx) on the JPEGs of IMAGES_DIR against the\n"
          "YOLO-format labels (class cx cy w h, normalised) of LABELS_DIR; for a pose model whose labels\n"
          "carry keypoints (class cx cy w h x y v ..., Ultralytics pose), the keypoint OKS mAP too; for an\n"
          "obb model, labels of 4 corners (class x1 y1 x2 y2 x3 y3 x4 y4, normalised: Ultralytics / DOTA obb)\n"
          "and the rotated-box mAP (probiou, as Ultralytics' OBB validator) besides the enclosing boxes'.\n"
          "  --rotated-iou K   obb: probiou (default) or polygon (the quadrilaterals' exact IoU, as DOTA's)\n"
          "  --compare MODEL2  evaluate MODEL2 too: side by side, per-class difference, classes that moved most\n"
          "  --json F          write MODEL's results (mAP, per-class AP) to F as JSON\n"
          "  --dets F          write every detection to F as text\n"
          "  --from-dets F     evaluate the --dets file F instead of a model (repeatable: pooled)\n"
          "  --compare-dets F  with --from-dets: the --dets file(s) of a second model, compared (paired)\n"
          "  -n N              at most N images\n"
          "  --threads N       worker threads per session (" CLI_THREADS_DEFAULT_HELP "; capped at the online CPUs)\n"
          "  --conf C          confidence threshold in [0, 1] (default 0.001)\n"
          "  --iou T           NMS IoU threshold in [0, 1] (default 0.7)\n"
          "  --max-det N       detections kept per image (default 300)\n"
          "  --bootstrap R     with --compare: R paired bootstrap resamples of the mAP difference\n"
          "  --seed S          the bootstrap's random seed (default 1)\n"
          "  -q                no progress on stderr\n" CLI_HELP_TAIL);
}

static int usage(void) { return help(stderr), CLI_EXIT_USAGE; }

typedef struct run {
  const char *path;
  detector det;
  coco_eval *ev;
  coco_summary sum;
  coco_eval *kev;     /* a pose model: its keypoints by OKS; an obb model: its rotated boxes (NULL: none) */
  coco_summary ksum;
} run;

static void print_report(run *runs, int n_runs, const coco_bootstrap *bs, long n_kpt_labels, int rot_poly) {
  const int nc = runs[0].det.info.num_classes;
  if (n_runs == 1) {
    printf("%-16s %6s %6s %8s %8s\n", "class", "gt", "det", "AP50", "AP50-95");
    for (int c = 0; c < nc; c++) {
      coco_class_stats s;
      if (coco_eval_class_stats(runs[0].ev, c, &s) || s.num_gt == 0) continue;
      const char *name = yrt_model_class_name(runs[0].det.model, c);
      char safe[256]; /* a class name from the model: control bytes escaped before the terminal */
      printf("%-16.16s %6d %6d %8.3f %8.3f\n", name && *name ? term_escape(name, safe, sizeof safe) : "?", s.num_gt, s.num_det,
             s.ap50, s.ap50_95);
    }
  } else {
    printf("%-16s %6s %8s %8s %8s %8s %8s\n", "class", "gt", "AP50(A)", "AP50(B)", "AP(A)", "AP(B)",
           "dAP");
    for (int c = 0; c < nc; c++) {
      coco_class_stats a, b;
      if (coco_eval_class_stats(runs[0].ev, c, &a) || coco_eval_class_stats(runs[1].ev, c, &b) ||
          a.num_gt == 0)
        continue;
      const char *name = yrt_model_class_name(runs[0].det.model, c);
      char safe[256];
      printf("%-16.16s %6d %8.3f %8.3f %8.3f %8.3f %+8.3f\n", name && *name ? term_escape(name, safe, sizeof safe) : "?", a.num_gt,
             a.ap50, b.ap50, a.ap50_95, b.ap50_95, b.ap50_95 - a.ap50_95);
    }
  }
  printf("\n%-40s %8s %10s %7s\n", "model", "mAP50", "mAP50-95", "images");
  for (int r = 0; r < n_runs; r++) {
    char safe[1024];
    printf("%-40.40s %8.4f %10.4f %7d\n", term_escape(runs[r].path, safe, sizeof safe), runs[r].sum.map50,
           runs[r].sum.map50_95, runs[r].sum.num_images);
  }
  for (int r = 0; r < n_runs; r++) { /* obb: the rotated boxes, as Ultralytics' OBB validator (or DOTA's polygons) */
    char safe[1024];
    if (runs[r].kev && yrt_model_rotated(runs[r].det.model))
      printf("%-40.40s %8.4f %10.4f %7d  rotated boxes (%s mAP; the line above: their enclosing boxes)\n",
             term_escape(runs[r].path, safe, sizeof safe), runs[r].ksum.map50, runs[r].ksum.map50_95,
             runs[r].ksum.num_images, rot_poly ? "polygon IoU" : "probiou");
  }
  for (int r = 0; r < n_runs && n_kpt_labels > 0; r++) { /* pose: keypoints by OKS, as pycocotools' "keypoints" */
    char safe[1024];
    if (runs[r].kev)
      printf("%-40.40s %8.4f %10.4f %7d  keypoints (OKS mAP, %ld labelled keypoints)\n",
             term_escape(runs[r].path, safe, sizeof safe), runs[r].ksum.map50, runs[r].ksum.map50_95,
             runs[r].ksum.num_images, n_kpt_labels);
  }
  if (runs[0].kev && n_kpt_labels == 0 && !yrt_model_rotated(runs[0].det.model))
    printf("note: a pose model, but the labels hold no keypoints: no keypoint (OKS) mAP\n");
  if (n_runs == 2) {
    printf("%-40s %+8.4f %+10.4f\n", "difference (B - A)", runs[1].sum.map50 - runs[0].sum.map50,
           runs[1].sum.map50_95 - runs[0].sum.map50_95);
    /* a class that vanishes hides in the mean: name the ones that moved most */
    const char **names = eval_class_names(&runs[0].det);
    printf("\n");
    coco_print_changes(stdout, "classes with the largest AP50-95 change (B - A), top 10:", runs[0].ev, runs[1].ev,
                       0, 10, names);
    free((void *)names);
    if (bs) {
      printf("\n");
      coco_print_bootstrap(stdout, bs);
    }
  }
  for (int r = 0; r < n_runs; r++)
    if (runs[r].det.info.synthetic)
      printf("note: %s is synthetic (generated weights): its accuracy is meaningless\n", runs[r].path);
}

int main(int argc, char **argv) {
  cli_stdout_guard(); /* results never lost with exit 0 */
  if (cli_version_requested(argc, argv, "yolort-eval")) return 0;
  if (eval_dets_requested(argc, argv)) return eval_dets_main(argc, argv); /* no model: eval_dets.h */
  const char *model = NULL, *images = NULL, *labels = NULL, *cmp = NULL, *json = NULL, *dets_path = NULL;
  int max_images = 0, threads = cli_default_threads(), quiet = 0, reps = 0, seed = 1, rot_poly = 0;
  yrt_postprocess_params pp;
  yrt_postprocess_defaults(&pp);
  pp.conf_threshold = 0.001f;
  pp.iou_threshold = 0.7f;
  pp.max_detections = 300;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) return help(stdout), 0;
    else if (!strcmp(a, "--compare") && i + 1 < argc) cmp = argv[++i];
    else if (!strcmp(a, "--json") && i + 1 < argc) json = argv[++i];
    else if (!strcmp(a, "--dets") && i + 1 < argc) dets_path = argv[++i];
    else if (!strcmp(a, "-n") && i + 1 < argc) {
      if (!cli_parse_int(PROG, "-n", argv[++i], 1, 1000000000, &max_images)) return 2;
    } else if (!strcmp(a, "--threads") && i + 1 < argc) {
      if (!cli_parse_threads(PROG, "--threads", argv[++i], &threads)) return 2;
    } else if (!strcmp(a, "--conf") && i + 1 < argc) {
      if (!cli_parse_float(PROG, "--conf", argv[++i], 0, 1, &pp.conf_threshold)) return 2;
    } else if (!strcmp(a, "--iou") && i + 1 < argc) {
      if (!cli_parse_float(PROG, "--iou", argv[++i], 0, 1, &pp.iou_threshold)) return 2;
    } else if (!strcmp(a, "--max-det") && i + 1 < argc) {
      if (!cli_parse_int(PROG, "--max-det", argv[++i], 1, 100000, &pp.max_detections)) return 2;
    }
    else if (!strcmp(a, "--bootstrap") && i + 1 < argc) {
      if (!cli_parse_int(PROG, "--bootstrap", argv[++i], 0, 100000, &reps)) return 2;
    } else if (!strcmp(a, "--seed") && i + 1 < argc) {
      if (!cli_parse_int(PROG, "--seed", argv[++i], 0, 2000000000, &seed)) return 2;
    }
    else if (!strcmp(a, "--rotated-iou") && i + 1 < argc) {
      const char *k = argv[++i];
      if (strcmp(k, "probiou") && strcmp(k, "polygon")) {
        fprintf(stderr, "%s: --rotated-iou takes probiou or polygon, not '%s'\n", PROG, k);
        return 2;
      }
      rot_poly = !strcmp(k, "polygon");
    }
    else if (!strcmp(a, "-q")) quiet = 1;
    else if (a[0] == '-') return cli_bad_option(PROG, a), usage();
    else if (!model) model = a;
    else if (!images) images = a;
    else if (!labels) labels = a;
    else return cli_extra_argument(PROG, a), usage();
  }
  if (!model || !images || !labels || pp.max_detections < 1) return usage();
  { /* --dets / --json naming an input (a model, an image, a label file, each other) destroyed it */
    const char *oflag[2] = {"--dets", "--json"}, *opath[2] = {dets_path, json};
    for (int k = 0; k < 2; k++)
      if (!cli_output_distinct(PROG, oflag[k], opath[k], "the model", model) ||
          !cli_output_distinct(PROG, oflag[k], opath[k], "the --compare model", cmp) ||
          !cli_output_outside(PROG, oflag[k], opath[k], "image", images) ||
          !cli_output_outside(PROG, oflag[k], opath[k], "label file", labels) ||
          (k == 1 && !cli_output_distinct(PROG, "--json", json, "--dets", dets_path)))
        return 2;
  }
  if (reps && !cmp) {
    fprintf(stderr, "%s: --bootstrap compares two models: give --compare MODEL2\n", PROG);
    return 2;
  }

  yrt_error err = {{0}};
  run runs[2];
  memset(runs, 0, sizeof runs);
  runs[0].path = model;
  runs[1].path = cmp;
  const int n_runs = cmp ? 2 : 1;
  file_list files = {NULL, 0};
  yrt_status st = file_list_images(images, &files, &err);
  for (int r = 0; !st && r < n_runs; r++) {
    st = detector_open(&runs[r].det, runs[r].path, threads, quiet, &err);
    if (!st && detector_is_classifier(&runs[r].det))
      st = yrt_set_error(&err, YRT_ERR_UNSUPPORTED,
                         "classify models have no boxes: %s is an image classifier ([1, %d] class probabilities); "
                         "yolort-eval measures box mAP on YOLO labels (top-1 / top-5 accuracy is not implemented; "
                         "yolort-detect prints the top-5 classes of an image)",
                         runs[r].path, runs[r].det.info.num_classes);
    if (!st) st = coco_eval_create(runs[r].det.info.num_classes, 0, &runs[r].ev, &err);
    /* a pose model's keypoints by OKS too (a --compare model only with model 0's keypoint count);
     * an obb model's rotated boxes (a --compare model only when model 0 is one) */
    const int nk = st ? 0 : yrt_model_keypoints(runs[r].det.model, NULL);
    const int rot = st ? 0 : yrt_model_rotated(runs[r].det.model);
    if (!st && rot && (r == 0 || (runs[0].kev && yrt_model_rotated(runs[0].det.model))))
      st = coco_eval_create(runs[r].det.info.num_classes, 0, &runs[r].kev, &err);
    else if (!st && nk > 0 && (r == 0 ? 1 : runs[0].kev && nk == yrt_model_keypoints(runs[0].det.model, NULL)))
      st = coco_eval_create(runs[r].det.info.num_classes, 0, &runs[r].kev, &err);
  }
  if (!st && n_runs == 2 && runs[0].det.info.num_classes != runs[1].det.info.num_classes)
    st = yrt_set_error(&err, YRT_ERR_SHAPE, "--compare: models have %d and %d classes",
                       runs[0].det.info.num_classes, runs[1].det.info.num_classes);
  int total = files.n;
  if (max_images > 0 && max_images < total) total = max_images;
  FILE *dump = NULL;
  yrt_out_file *dump_out = NULL; /* temp file + rename: a failed write leaves no half file, exit 1 */
  if (!st && dets_path) st = yrt_out_open(dets_path, &dump_out, &dump, &err);
  long n_kpt_labels = 0;
  if (!st) {
    detector d[2];
    coco_eval *ev[2], *kev[2];
    for (int r = 0; r < n_runs; r++) d[r] = runs[r].det, ev[r] = runs[r].ev, kev[r] = runs[r].kev;
    st = eval_run_images(d, ev, kev, n_runs, &files, total, labels, &pp, quiet, dump, &n_kpt_labels, rot_poly, &err);
    for (int r = 0; r < n_runs; r++) runs[r].det = d[r]; /* its buffers may have grown */
  }
  for (int r = 0; !st && r < n_runs; r++) st = coco_eval_summary(runs[r].ev, &runs[r].sum);
  for (int r = 0; !st && r < n_runs; r++)
    if (runs[r].kev) st = coco_eval_summary(runs[r].kev, &runs[r].ksum);
  if (dump_out && !st) st = yrt_out_commit(dump_out, &err);
  else yrt_out_abort(dump_out);
  coco_bootstrap bs;
  if (!st && reps) st = coco_bootstrap_diff(runs[0].ev, runs[1].ev, reps, (unsigned long long)seed, &bs, &err);
  if (!st) print_report(runs, n_runs, reps ? &bs : NULL, n_kpt_labels, rot_poly);
  if (!st && json) {
    const int nc = runs[0].det.info.num_classes;
    const char **names = calloc((size_t)nc + 1, sizeof(char *));
    if (!names) st = yrt_set_error(&err, YRT_ERR_NOMEM, "out of memory");
    for (int c = 0; !st && c < nc; c++) names[c] = yrt_model_class_name(runs[0].det.model, c);
    if (!st) st = coco_eval_write_json(runs[0].ev, json, names, &err);
    free(names);
    if (!st) printf("wrote %s\n", json);
  }
  for (int r = 0; r < n_runs; r++) {
    coco_eval_free(runs[r].ev);
    coco_eval_free(runs[r].kev);
    detector_close(&runs[r].det);
  }
  file_list_free(&files);
  if (st) {
    fprintf(stderr, "yolort-eval: %s\n", err.msg);
    return 1;
  }
  return 0;
}
