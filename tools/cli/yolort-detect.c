/* yolort-detect MODEL IMAGE.jpg [-o out.jpg] [--conf 0.25] [--iou 0.45] [--threads N]
 * Runs one image through a model (.yrt, or .onnx converted in memory), prints the detections
 * (class name, score, box in image pixels) and optionally writes an annotated JPEG. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_num.h"
#include "detector.h"

#define PROG "yolort-detect"

static int usage(void) {
  fprintf(stderr,
          "usage: yolort-detect MODEL(.yrt|.onnx) IMAGE.jpg [-o out.jpg] [--conf C] [--iou T]\n"
          "                     [--threads N]\n");
  return 2;
}

int main(int argc, char **argv) {
  const char *model_path = NULL, *image_path = NULL, *out_path = NULL;
  yrt_postprocess_params pp;
  yrt_postprocess_defaults(&pp);
  int threads = 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-o") && i + 1 < argc) out_path = argv[++i];
    else if (!strcmp(argv[i], "--conf") && i + 1 < argc) {
      if (!cli_parse_float(PROG, "--conf", argv[++i], 0, 1, &pp.conf_threshold)) return 2;
    } else if (!strcmp(argv[i], "--iou") && i + 1 < argc) {
      if (!cli_parse_float(PROG, "--iou", argv[++i], 0, 1, &pp.iou_threshold)) return 2;
    } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
      if (!cli_parse_threads(PROG, "--threads", argv[++i], &threads)) return 2;
    }
    else if (argv[i][0] == '-') return usage();
    else if (!model_path) model_path = argv[i];
    else if (!image_path) image_path = argv[i];
    else return usage();
  }
  if (!model_path || !image_path) return usage();

  yrt_error err = {{0}};
  detector d;
  yrt_image img = {0, 0, NULL};
  const yrt_detection *dets = NULL;
  int n = 0;
  yrt_status st = detector_open(&d, model_path, threads, 0, &err);
  if (!st) st = yrt_image_load_jpeg(image_path, &img, &err);
  if (!st) st = detector_run(&d, &img, &pp, &dets, &n, &err);
  if (!st) {
    printf("%d detections in %s (%dx%d)\n", n, image_path, img.w, img.h);
    for (int i = 0; i < n; i++) {
      const char *name = yrt_model_class_name(d.model, dets[i].class_id);
      char fallback[32];
      if (!name || !*name) {
        snprintf(fallback, sizeof fallback, "class%d", dets[i].class_id);
        name = fallback;
      }
      printf("  %-16s %.3f  [%.1f, %.1f, %.1f, %.1f]\n", name, dets[i].score, dets[i].x0,
             dets[i].y0, dets[i].x1, dets[i].y1);
    }
    if (d.info.synthetic) printf("(synthetic model: these detections are meaningless)\n");
  }
  if (!st && out_path) {
    yrt_draw_detections(&img, dets, n);
    st = yrt_image_save_jpeg(&img, out_path, 90, &err);
    if (!st) printf("wrote %s\n", out_path);
  }
  yrt_image_free(&img);
  detector_close(&d);
  if (st) {
    fprintf(stderr, "yolort-detect: %s\n", err.msg);
    return 1;
  }
  return 0;
}
