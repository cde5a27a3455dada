/* frame_bench MODEL.yrt [--size WxH] [--format nv12|rgb|...] [--threads 1,2] [--runs N]
 * Times yrt_session_set_frame (frame -> the session's input) on a synthetic frame (default
 * 1920x1080 NV12), per thread count: min and median of N runs, in ms. Also the whole
 * yrt_session_detect with --detect, and the float letterbox of the JPEG path
 * (yrt_letterbox_f32 on an RGB image of the same size, one thread) with --letterbox. --compare
 * alternates yrt_session_detect with what it replaces (set_frame + yrt_session_run + output +
 * yrt_postprocess, every anchor decoded) on the same session, and reports both totals, the
 * detect call's own decode + NMS (the decode node's profiled slot) and the full path's decode
 * node + postprocess. --image JPG: the frame is that picture as RGB888 (real detections for
 * --compare) instead of the synthetic one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "yolort.h"
#include "yolort_image.h"

static double clock_ms(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}
static double now_ms(void) { return clock_ms(CLOCK_MONOTONIC); }
/* CPU time of the whole process (every pool thread): on a loaded machine the wall time measures
 * the queue for the CPU, this measures the work. */
static double cpu_ms(void) { return clock_ms(CLOCK_PROCESS_CPUTIME_ID); }
static int cmp(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp);
  return v[n / 2];
}

/* --compare: see the top of the file. 0 on success. */
static int compare_paths(yrt_model *m, const yrt_frame *f, int th, int runs) {
  yrt_error err;
  yrt_session *s = NULL;
  yrt_session_options o = {.num_threads = th};
  if (yrt_session_create(m, &o, &s, &err)) return fprintf(stderr, "frame_bench: %s\n", err.msg), 1;
  yrt_session_set_profiling(s, 1);
  int node = -1;
  for (int i = 0; yrt_session_node_kind(s, i); i++)
    if (!strncmp(yrt_session_node_kind(s, i), "detect_decode", 13)) node = i;
  const int nn = yrt_session_node_times(s, NULL, 0);
  yrt_tensor_view v;
  if (node < 0 || yrt_session_run(s, &err) || yrt_session_output(s, 0, &v, &err) || v.rank != 3) {
    yrt_session_free(s);
    return fprintf(stderr, "frame_bench: --compare needs a fused detect_decode node writing output0\n"), 1;
  }
  const int classes = v.dims[1] - 4, anchors = v.dims[2];
  yrt_postprocess_params pp;
  yrt_postprocess_params_init(&pp);
  void *scratch = malloc(yrt_postprocess_scratch_bytes(anchors, pp.max_detections));
  uint64_t *ns = malloc(sizeof *ns * (size_t)nn);
  double *t[6];
  for (int k = 0; k < 6; k++) t[k] = malloc(sizeof(double) * (size_t)runs);
  if (!scratch || !ns || !t[0] || !t[1] || !t[2] || !t[3] || !t[4] || !t[5]) return 1;
  yrt_detection d[300];
  int n1 = 0, n2 = 0;
  for (int r = -3; r < runs; r++) {
    double t0 = now_ms();
    if (yrt_session_detect(s, f, &pp, d, 300, &n1, &err)) return fprintf(stderr, "frame_bench: %s\n", err.msg), 1;
    const double a = now_ms() - t0;
    yrt_session_node_times(s, ns, nn);
    const double a_post = 1e-6 * (double)ns[node];
    yrt_letterbox lb;
    t0 = now_ms();
    if (yrt_session_set_frame(s, f, &lb, &err) || yrt_session_run(s, &err))
      return fprintf(stderr, "frame_bench: %s\n", err.msg), 1;
    const double t1 = now_ms();
    if (yrt_session_output(s, 0, &v, &err) ||
        yrt_postprocess(v.data, classes, anchors, &lb, &pp, scratch, d, 300, &n2, &err))
      return fprintf(stderr, "frame_bench: %s\n", err.msg), 1;
    const double b = now_ms() - t0, b_post = now_ms() - t1;
    yrt_session_node_times(s, ns, nn);
    if (r < 0) continue;
    t[0][r] = a, t[1][r] = a_post, t[2][r] = b, t[3][r] = b_post, t[4][r] = 1e-6 * (double)ns[node];
    t[5][r] = a / b;
  }
  double amin = t[0][0], bmin = t[2][0];
  for (int r = 0; r < runs; r++) amin = t[0][r] < amin ? t[0][r] : amin, bmin = t[2][r] < bmin ? t[2][r] : bmin;
  printf("compare %d thread(s), %d alternating runs, conf %.2f (%d / %d detections):\n"
         "  yrt_session_detect              median %.3f ms (min %.3f); its decode + NMS median %.3f ms\n"
         "  set_frame + run + postprocess   median %.3f ms (min %.3f); decode node %.3f ms + output/NMS %.3f ms\n"
         "  ratio detect / full path: median of per-run ratios %.3f\n",
         th, runs, (double)pp.conf_threshold, n1, n2, median(t[0], runs), amin, median(t[1], runs), median(t[2], runs),
         bmin, median(t[4], runs), median(t[3], runs), median(t[5], runs));
  for (int k = 0; k < 6; k++) free(t[k]);
  free(ns);
  free(scratch);
  yrt_session_free(s);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    printf("usage: frame_bench MODEL.yrt [--size WxH] [--format nv12|nv21|i420|rgb|bgr|rgba|bgra|gray]\n"
           "                  [--threads 1,2] [--runs N] [--detect] [--letterbox] [--compare] [--image JPG]\n"
           "times a synthetic frame (default 1920x1080 NV12) into the session's input\n");
    return argc < 2 ? 2 : 0;
  }
  if (!strcmp(argv[1], "--version")) return printf("frame_bench yolort %s\n", yrt_version()), 0;
  int w = 1920, h = 1080, runs = 50, detect = 0, letterbox = 0, compare = 0;
  const char *image = NULL;
  yrt_pixel_format fmt = YRT_PIX_NV12;
  const char *threads_list = "1,2";
  static const char *names[] = {"", "rgb", "bgr", "rgba", "bgra", "nv12", "nv21", "i420", "gray"};
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--size") && i + 1 < argc && sscanf(argv[i + 1], "%dx%d", &w, &h) == 2) i++;
    else if (!strcmp(argv[i], "--runs") && i + 1 < argc && (runs = atoi(argv[++i])) > 0) {
    } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads_list = argv[++i];
    else if (!strcmp(argv[i], "--detect")) detect = 1;
    else if (!strcmp(argv[i], "--letterbox")) letterbox = 1;
    else if (!strcmp(argv[i], "--compare")) compare = 1;
    else if (!strcmp(argv[i], "--image") && i + 1 < argc) image = argv[++i];
    else if (!strcmp(argv[i], "--format") && i + 1 < argc) {
      int k = 1;
      while (k <= 8 && strcmp(names[k], argv[i + 1])) k++;
      if (k > 8) return fprintf(stderr, "frame_bench: unknown format %s\n", argv[i + 1]), 2;
      fmt = (yrt_pixel_format)k, i++;
    } else return fprintf(stderr, "frame_bench: bad argument %s\n", argv[i]), 2;
  }
  if (w < 1 || h < 1 || w > 16384 || h > 16384 || runs < 1) return fprintf(stderr, "frame_bench: bad size/runs\n"), 2;
  const int bpp = fmt <= YRT_PIX_BGR888 ? 3 : fmt <= YRT_PIX_BGRA8888 ? 4 : 1;
  const size_t cw = (size_t)(w + 1) / 2, ch = (size_t)(h + 1) / 2;
  const size_t size = (size_t)w * h * bpp + 2 * cw * ch;
  uint8_t *buf = malloc(size);
  double *t = malloc(sizeof(double) * (size_t)runs), *tc = malloc(sizeof(double) * (size_t)runs);
  if (!buf || !t || !tc) return 1;
  for (size_t i = 0; i < size; i++) buf[i] = (uint8_t)(i * 2654435761u >> 24); /* busy texture */
  yrt_frame f;
  memset(&f, 0, sizeof f);
  f.format = fmt, f.width = w, f.height = h;
  f.plane[0] = buf, f.stride[0] = (size_t)w * bpp;
  f.plane[1] = buf + (size_t)w * h, f.stride[1] = fmt == YRT_PIX_I420 ? cw : 2 * cw;
  f.plane[2] = buf + (size_t)w * h + cw * ch, f.stride[2] = cw;
  yrt_error err;
  yrt_image pic = {0, 0, NULL};
  if (image) {
    if (yrt_image_load_jpeg(image, &pic, &err)) return fprintf(stderr, "frame_bench: %s\n", err.msg), 1;
    memset(&f, 0, sizeof f);
    f.format = YRT_PIX_RGB888, f.width = pic.w, f.height = pic.h, f.plane[0] = pic.rgb, f.stride[0] = 3 * (size_t)pic.w;
  }
  yrt_model *m = NULL;
  if (yrt_model_load_file(argv[1], &m, &err)) return fprintf(stderr, "frame_bench: %s\n", err.msg), 1;
  yrt_model_info info;
  yrt_model_get_info(m, &info);
  if (letterbox) { /* the JPEG path's PIL-exact float letterbox of an RGB image, for a ratio */
    yrt_session *s = NULL;
    if (yrt_session_create(m, NULL, &s, &err)) return fprintf(stderr, "frame_bench: %s\n", err.msg), 1;
    uint8_t *rgb = malloc((size_t)w * h * 3);
    void *scratch = malloc(yrt_letterbox_scratch_bytes(w, h, info.input_w, info.input_h));
    if (!rgb || !scratch) return 1;
    for (size_t i = 0; i < (size_t)w * h * 3; i++) rgb[i] = (uint8_t)(i * 2654435761u >> 24);
    yrt_image im = {w, h, rgb};
    for (int r = -3; r < runs; r++) {
      const double t0 = now_ms(), c0 = cpu_ms();
      if (yrt_letterbox_f32(&im, info.input_w, info.input_h, yrt_session_input_nhwc(s, 0), yrt_session_input_count(s, 0),
                            scratch, NULL, &err))
        return fprintf(stderr, "frame_bench: %s\n", err.msg), 1;
      if (r >= 0) t[r] = now_ms() - t0, tc[r] = cpu_ms() - c0;
    }
    qsort(t, (size_t)runs, sizeof *t, cmp);
    qsort(tc, (size_t)runs, sizeof *tc, cmp);
    printf("letterbox_f32 %dx%d rgb -> %dx%d input, 1 thread: wall min %.3f / median %.3f ms, cpu median %.3f ms "
           "(%d runs)\n", w, h, info.input_w, info.input_h, t[0], t[runs / 2], tc[runs / 2], runs);
    free(rgb), free(scratch);
    yrt_session_free(s);
  }
  for (const char *p = compare ? threads_list : ""; *p;) {
    const int th = atoi(p);
    if (compare_paths(m, &f, th, runs)) return 1;
    p = strchr(p, ',');
    if (!p) break;
    p++;
  }
  for (const char *p = compare ? "" : threads_list; *p;) {
    const int th = atoi(p);
    yrt_session *s = NULL;
    yrt_session_options o = {.num_threads = th};
    if (yrt_session_create(m, &o, &s, &err)) return fprintf(stderr, "frame_bench: %s\n", err.msg), 1;
    yrt_detection d[300];
    int n;
    for (int r = -3; r < runs; r++) { /* 3 warm-up runs */
      const double t0 = now_ms(), c0 = cpu_ms();
      yrt_status st = detect ? yrt_session_detect(s, &f, NULL, d, 300, &n, &err) : yrt_session_set_frame(s, &f, NULL, &err);
      if (st) return fprintf(stderr, "frame_bench: %s\n", err.msg), 1;
      if (r >= 0) t[r] = now_ms() - t0, tc[r] = cpu_ms() - c0;
    }
    qsort(t, (size_t)runs, sizeof *t, cmp);
    qsort(tc, (size_t)runs, sizeof *tc, cmp);
    printf("%s %dx%d %s -> %dx%d input, %d thread(s): wall min %.3f / median %.3f ms, cpu (all threads) median "
           "%.3f ms (%d runs)\n",
           detect ? "detect" : "frame", w, h, names[fmt], info.input_w, info.input_h, th, t[0], t[runs / 2],
           tc[runs / 2], runs);
    yrt_session_free(s);
    p = strchr(p, ',');
    if (!p) break;
    p++;
  }
  yrt_model_free(m);
  if (pic.rgb) yrt_image_free(&pic);
  free(buf);
  free(t);
  free(tc);
  return 0;
}
