/* yolort-detect MODEL IMAGE.jpg... [-o out.jpg] [--json] [--conf 0.25] [--iou 0.45] [--threads N]
 * Runs images through a model (.yrt, or .onnx converted in memory), prints the detections
 * (class name, score, box in image pixels; or one JSON object per image with --json) and
 * optionally writes an annotated JPEG. A classifier (task "classify") prints its top-k classes
 * with their probabilities instead. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_num.h"
#include "cli_usage.h"
#include "detector.h"
#include "seg_detect.h"
#include "file_write.h"
#include "text_out.h"
#include "cli_stdout.h"
#include "cli_version.h"

#define PROG "yolort-detect"

static void help(FILE *f) {
  fprintf(f,
          "usage: yolort-detect MODEL(.yrt|.onnx) IMAGE.jpg [IMAGE.jpg...] [options]\n"
          "Detects objects in JPEG images and prints them (boxes in image pixels).\n"
          "  -o OUT.jpg     write the (single) image annotated with boxes (colour and tag per class id)\n"
          "  --json         one JSON object per image on stdout:\n"
          "                 {\"image\": path, \"width\": w, \"height\": h, \"task\": \"detect\",\n"
          "                  \"preprocess\": {\"channels\": \"rgb\"|\"bgr\", \"scale\": s, \"mean\": [3],\n"
          "                  \"std\": [3], \"resize\": \"letterbox\"|\"stretch\"|\"crop\",\n"
          "                  \"placement\": \"center\"|\"topleft\", \"pad\": n} (the model's),\n"
          "                  \"detections\": [{\"class\": id, \"name\": \"...\", \"score\": s,\n"
          "                  \"box\": [x1, y1, x2, y2]}]}; a segment model's detections also carry\n"
          "                  \"segmentation\": {\"size\": [h, w], \"counts\": [...]} (COCO RLE, uncompressed\n"
          "                  counts, column-major, first run of zeros), and -o draws the masks translucent\n"
          "  --conf C       confidence threshold in [0, 1] (default 0.25, or the export's own NMS's)\n"
          "  --iou T        NMS IoU threshold in [0, 1] (default 0.45, or the export's own NMS's)\n"
          "  --max-det N    keep at most N detections per image (default 300)\n"
          "  --top-k N      classify models: print the N most probable classes (default 5); --json\n"
          "                 then gives {\"image\": path, \"width\": w, \"height\": h, \"task\": \"classify\",\n"
          "                  \"classes\": [{\"class\": id, \"name\": \"...\", \"prob\": p}]}\n"
          "  --threads N    worker threads (" CLI_THREADS_DEFAULT_HELP "; capped at the online CPUs)\n"
          "  --version      print the version and exit\n"
          "  -h, --help     print this help and exit\n");
}

static int usage(const char *why) {
  fprintf(stderr, "yolort-detect: %s\n", why);
  help(stderr);
  return 2;
}

/* strings from files (paths, class names) through text_out.h: always valid JSON */
static void json_string(const char *s) { json_put_string(stdout, s); }

/* The model's name of class id, or "class<id>" (in buf) when the export recorded none. */
static const char *class_label(const detector *d, int id, char *buf, size_t cap) {
  const char *name = yrt_model_class_name(d->model, id);
  if (name && *name) return name;
  snprintf(buf, cap, "class%d", id);
  return buf;
}

#define MAX_KEYPOINTS 1024 /* a pose_decode node's most (yk_pose.h: 3072 values) */

/* mask: NULL, or room for one image-sized mask: each detection's "segmentation" (segment models);
 * a pose model's detections carry their "keypoints", an obb model's their "rbox", "angle" and
 * "corners" (image pixels, radians) */
static yrt_status print_json(const char *path, const yrt_image *img, const detector *d, const yrt_detection *dets,
                             int n, uint8_t *mask, yrt_error *err) {
  yrt_keypoint kp[MAX_KEYPOINTS]; /* 12 KiB */
  printf("{\"image\": ");
  json_string(path);
  const char *task = yrt_model_task(d->model); /* "" when the export did not record it */
  printf(", \"width\": %d, \"height\": %d, \"task\": ", img->w, img->h);
  json_string(*task ? task : "detect");
  yrt_preprocess pp;
  if (yrt_model_get_preprocess(d->model, &pp) == YRT_OK) {
    static const char *const modes[] = {"letterbox", "stretch", "crop"};
    printf(", \"preprocess\": {\"channels\": \"%s\", \"scale\": %.9g, \"mean\": [%.9g, %.9g, %.9g], "
           "\"std\": [%.9g, %.9g, %.9g], \"resize\": \"%s\", \"placement\": \"%s\", \"pad\": %d}",
           pp.bgr ? "bgr" : "rgb", (double)pp.scale, (double)pp.mean[0], (double)pp.mean[1], (double)pp.mean[2],
           (double)pp.std[0], (double)pp.std[1], (double)pp.std[2], modes[pp.resize >= 0 && pp.resize <= 2 ? pp.resize : 0],
           pp.top_left ? "topleft" : "center", (int)pp.pad);
  }
  printf(", \"detections\": [");
  for (int i = 0; i < n; i++) {
    char buf[32];
    const char *name = class_label(d, dets[i].class_id, buf, sizeof buf);
    printf("%s{\"class\": %d, \"name\": ", i ? ", " : "", dets[i].class_id);
    json_string(name);
    fputs(", \"score\": ", stdout); /* never inf or nan: JSON has none (null) */
    json_put_number(stdout, "%.5f", dets[i].score);
    const float box[4] = {dets[i].x0, dets[i].y0, dets[i].x1, dets[i].y1};
    for (int k = 0; k < 4; k++) {
      fputs(k ? ", " : ", \"box\": [", stdout);
      json_put_number(stdout, "%.2f", box[k]);
    }
    fputs("]", stdout);
    if (mask) {
      const yrt_status st = yrt_session_mask(d->session, i, mask, img->w, img->h, (size_t)img->w, err);
      if (st) return printf("]}\n"), st;
      fputs(", \"segmentation\": ", stdout);
      seg_put_rle(stdout, mask, img->w, img->h, (size_t)img->w);
    }
    int nk = 0;
    if (yrt_model_keypoints(d->model, NULL) > 0 && yrt_session_keypoints(d->session, i, kp, MAX_KEYPOINTS, &nk, NULL) == YRT_OK) {
      fputs(", \"keypoints\": [", stdout); /* [x, y, score] in image pixels, the model's keypoint order */
      for (int k = 0; k < nk; k++) {
        fputs(k ? ", [" : "[", stdout);
        json_put_number(stdout, "%.2f", kp[k].x);
        fputs(", ", stdout);
        json_put_number(stdout, "%.2f", kp[k].y);
        fputs(", ", stdout);
        json_put_number(stdout, "%.5f", kp[k].score);
        fputs("]", stdout);
      }
      fputs("]", stdout);
    }
    yrt_rbox rb;
    if (yrt_model_rotated(d->model) && yrt_session_rbox(d->session, i, &rb, sizeof rb, NULL) == YRT_OK) {
      fputs(", \"rbox\": [", stdout); /* cx, cy, w, h in image pixels; angle in radians, [0, pi/2) */
      const float v[4] = {rb.cx, rb.cy, rb.w, rb.h};
      for (int k = 0; k < 4; k++) {
        json_put_number(stdout, "%.2f", v[k]);
        fputs(", ", stdout);
      }
      json_put_number(stdout, "%.6f", rb.angle);
      fputs("], \"angle\": ", stdout);
      json_put_number(stdout, "%.6f", rb.angle);
      fputs(", \"corners\": [", stdout);
      for (int k = 0; k < 4; k++) {
        fputs(k ? ", [" : "[", stdout);
        json_put_number(stdout, "%.2f", rb.corners[k][0]);
        fputs(", ", stdout);
        json_put_number(stdout, "%.2f", rb.corners[k][1]);
        fputs("]", stdout);
      }
      fputs("]", stdout);
    }
    fputs("}", stdout);
  }
  printf("]}\n");
  return YRT_OK;
}

/* An obb model's detections drawn as their rotated boxes (instead of the enclosing ones). */
static void draw_rboxes(yrt_image *img, const detector *d, const yrt_detection *dets, int n) {
  for (int i = 0; i < n; i++) {
    yrt_rbox rb;
    if (yrt_session_rbox(d->session, i, &rb, sizeof rb, NULL) == YRT_OK) yrt_draw_rbox(img, &rb, dets[i].class_id);
  }
}

/* A pose model's keypoints of the n detections just drawn: skeleton and points (score > 0.5,
 * as Ultralytics draws them). */
static void draw_keypoints(yrt_image *img, const detector *d, int n) {
  yrt_keypoint kp[MAX_KEYPOINTS];
  if (yrt_model_keypoints(d->model, NULL) < 1) return;
  for (int i = 0; i < n; i++) {
    int nk = 0;
    if (yrt_session_keypoints(d->session, i, kp, MAX_KEYPOINTS, &nk, NULL) == YRT_OK) yrt_draw_keypoints(img, kp, nk, 0.5f);
  }
}

static void print_text(const char *path, const yrt_image *img, const detector *d, const yrt_detection *dets, int n) {
  char safe[4096]; /* names and paths from files: control bytes escaped before the terminal */
  printf("%d detections in %s (%dx%d)\n", n, term_escape(path, safe, sizeof safe), img->w, img->h);
  for (int i = 0; i < n; i++) {
    char buf[32];
    const char *name = term_escape(class_label(d, dets[i].class_id, buf, sizeof buf), safe, sizeof safe);
    printf("  %-16s %.3f  [%.1f, %.1f, %.1f, %.1f]\n", name, dets[i].score, dets[i].x0, dets[i].y0, dets[i].x1,
           dets[i].y1);
  }
  if (d->info.synthetic) printf("(synthetic model: these detections are meaningless)\n");
}

#define MAX_TOP_K 1024 /* YRT_MAX_CLASSES */

static void print_classes(const char *path, const yrt_image *img, const detector *d, const yrt_class_prob *c, int n,
                          int json) {
  if (json) {
    printf("{\"image\": ");
    json_string(path);
    printf(", \"width\": %d, \"height\": %d, \"task\": \"classify\", \"classes\": [", img->w, img->h);
  } else {
    printf("top-%d classes of %s (%dx%d)\n", n, path, img->w, img->h);
  }
  for (int i = 0; i < n; i++) {
    char buf[32];
    const char *name = class_label(d, c[i].class_id, buf, sizeof buf);
    if (json) {
      printf("%s{\"class\": %d, \"name\": ", i ? ", " : "", c[i].class_id);
      json_string(name);
      printf(", \"prob\": %.6f}", c[i].prob);
    } else {
      printf("  %-24s %.4f\n", name, c[i].prob);
    }
  }
  if (json) printf("]}\n");
  else if (d->info.synthetic) printf("(synthetic model: these classes are meaningless)\n");
}

int main(int argc, char **argv) {
  cli_stdout_guard(); /* results never lost with exit 0 */
  if (cli_version_requested(argc, argv, "yolort-detect")) return 0;
  const char *model_path = NULL, *out_path = NULL;
  const char **images = calloc((size_t)argc, sizeof *images);
  int n_images = 0, json = 0, threads = cli_default_threads(), top_k = 5;
  if (!images) return 1;
  yrt_postprocess_params pp;
  yrt_postprocess_defaults(&pp);
  int set_conf = 0, set_iou = 0, set_max = 0; /* the rest: the model's own defaults */
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const int has = i + 1 < argc;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      help(stdout);
      free(images);
      return 0;
    } else if (!strcmp(a, "-o") && has) out_path = argv[++i];
    else if (!strcmp(a, "--json")) json = 1;
    else if (!strcmp(a, "--conf") && has) {
      if (!cli_parse_float(PROG, "--conf", argv[++i], 0, 1, &pp.conf_threshold)) return free(images), 2;
      set_conf = 1;
    } else if (!strcmp(a, "--iou") && has) {
      if (!cli_parse_float(PROG, "--iou", argv[++i], 0, 1, &pp.iou_threshold)) return free(images), 2;
      set_iou = 1;
    } else if (!strcmp(a, "--max-det") && has) {
      if (!cli_parse_int(PROG, "--max-det", argv[++i], 1, 100000, &pp.max_detections)) return free(images), 2;
      set_max = 1;
    } else if (!strcmp(a, "--top-k") && has) {
      if (!cli_parse_int(PROG, "--top-k", argv[++i], 1, MAX_TOP_K, &top_k)) return free(images), 2;
    } else if (!strcmp(a, "--threads") && has) {
      if (!cli_parse_threads(PROG, "--threads", argv[++i], &threads)) return free(images), 2;
    } else if (a[0] == '-') {
      free(images);
      cli_bad_option(PROG, a);
      help(stderr);
      return CLI_EXIT_USAGE;
    } else if (!model_path) model_path = a;
    else images[n_images++] = a;
  }
  if (!model_path || !n_images) return free(images), usage("needs a model and at least one image");
  if (out_path && n_images > 1) return free(images), usage("-o annotates a single image");
  if (!cli_output_distinct(PROG, "-o", out_path, "the model", model_path) ||
      (n_images == 1 && !cli_output_distinct(PROG, "-o", out_path, "the image", images[0])))
    return free(images), 2;

  yrt_error err = {{0}};
  detector d;
  yrt_status st = detector_open(&d, model_path, threads, 0, &err);
  if (!st) { /* an export that did its own NMS keeps its thresholds unless given here */
    yrt_postprocess_params mp;
    yrt_model_postprocess_defaults(d.model, &mp);
    if (!set_conf) pp.conf_threshold = mp.conf_threshold;
    if (!set_iou) pp.iou_threshold = mp.iou_threshold;
    if (!set_max) pp.max_detections = mp.max_detections;
    pp.class_agnostic = mp.class_agnostic;
  }
  if (!st && detector_is_classifier(&d)) { /* class probabilities, no boxes */
    yrt_class_prob *top = out_path ? NULL : malloc(sizeof *top * (size_t)top_k);
    if (out_path)
      st = yrt_set_error(&err, YRT_ERR_INVALID_ARG, "-o draws boxes; %s is a classify model (no boxes): drop -o",
                         model_path);
    else if (!top)
      st = yrt_set_error(&err, YRT_ERR_NOMEM, "out of memory");
    for (int k = 0; !st && k < n_images; k++) {
      yrt_image img = {0, 0, NULL};
      int n = 0;
      st = yrt_image_load_jpeg(images[k], &img, &err);
      if (!st) st = detector_classify(&d, &img, top_k, top, top_k, &n, &err);
      if (!st) print_classes(images[k], &img, &d, top, n, json);
      yrt_image_free(&img);
    }
    free(top);
    n_images = 0; /* done */
  }
  const int seg = !st && seg_detect_has_masks(&d); /* segment: the frame path, which records the masks */
  for (int k = 0; !st && k < n_images; k++) {
    yrt_image img = {0, 0, NULL};
    const yrt_detection *dets = NULL;
    int n = 0;
    uint8_t *mask = NULL; /* segment models: one mask at a time, image-sized */
    st = yrt_image_load_jpeg(images[k], &img, &err);
    if (!st && seg && !(mask = malloc((size_t)img.w * (size_t)img.h)))
      st = yrt_set_error(&err, YRT_ERR_NOMEM, "out of memory for a %dx%d mask", img.w, img.h);
    if (!st) st = seg ? seg_detect_run(&d, &img, &pp, &dets, &n, &err) : detector_run(&d, &img, &pp, &dets, &n, &err);
    if (!st) {
      if (json) st = print_json(images[k], &img, &d, dets, n, mask, &err);
      else print_text(images[k], &img, &d, dets, n);
    }
    for (int i = 0; !st && out_path && mask && i < n; i++) { /* translucent masks under the boxes */
      st = yrt_session_mask(d.session, i, mask, img.w, img.h, (size_t)img.w, &err);
      if (!st) yrt_draw_mask(&img, mask, (size_t)img.w, dets[i].class_id);
    }
    free(mask);
    if (!st && out_path) {
      if (yrt_model_rotated(d.model)) draw_rboxes(&img, &d, dets, n);
      else yrt_draw_detections(&img, dets, n);
      draw_keypoints(&img, &d, n);
      void *jpeg = NULL; /* encoded in memory, then temp file + rename: a failed write is exit 1 */
      size_t jsize = 0;
      st = yrt_image_encode_jpeg(&img, 90, &jpeg, &jsize, &err);
      if (!st) st = yrt_write_file_atomic(out_path, jpeg, jsize, &err);
      free(jpeg);
      if (!st && !json) printf("wrote %s\n", out_path);
    }
    yrt_image_free(&img);
  }
  detector_close(&d); /* also fine after a failed open (it zeroes d) */
  free(images);
  if (st) {
    fprintf(stderr, "yolort-detect: %s\n", err.msg);
    return 1;
  }
  return 0;
}
