/* video_nv12.c — a camera loop: raw NV12 frames of WIDTH x HEIGHT from a file or stdin ("-"),
 * one JSON line of detections per frame on stdout, the frame rate on stderr at the end.
 *   video_nv12 MODEL.yrt WIDTH HEIGHT [FILE|-] [THREADS]
 * One session, one frame buffer, reused: nothing is allocated per frame. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "yolort.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void print_json_string(const char *s) {
  putchar('"');
  for (; s && *s; s++) {
    if (*s == '"' || *s == '\\') putchar('\\');
    if ((unsigned char)*s >= 0x20) putchar(*s);
  }
  putchar('"');
}

int main(int argc, char **argv) {
  if (argc < 4 || argc > 6) {
    fprintf(stderr, "usage: video_nv12 MODEL.yrt WIDTH HEIGHT [FILE|-] [THREADS]\n");
    return 2;
  }
  const int w = atoi(argv[2]), h = atoi(argv[3]), threads = argc > 5 ? atoi(argv[5]) : 0;
  if (w < 1 || h < 1 || w > 16384 || h > 16384 || threads < 0) {
    fprintf(stderr, "video_nv12: bad frame size %s x %s or thread count\n", argv[2], argv[3]);
    return 2;
  }
  FILE *in = argc > 4 && strcmp(argv[4], "-") ? fopen(argv[4], "rb") : stdin;
  if (!in) {
    fprintf(stderr, "video_nv12: cannot open %s\n", argv[4]);
    return 1;
  }
  const size_t luma = (size_t)w * h, size = luma + 2 * (size_t)((w + 1) / 2) * (size_t)((h + 1) / 2);
  uint8_t *buf = malloc(size);
  yrt_error err;
  yrt_model *model = NULL;
  yrt_session *session = NULL;
  yrt_session_options opts = {.num_threads = threads};
  if (!buf || yrt_model_load_file(argv[1], &model, &err) || yrt_session_create(model, &opts, &session, &err)) {
    fprintf(stderr, "video_nv12: %s\n", buf ? err.msg : "out of memory");
    return 1;
  }
  yrt_frame frame = {.format = YRT_PIX_NV12, .width = w, .height = h, .plane = {buf, buf + luma},
                     .stride = {(size_t)w, 2 * (size_t)((w + 1) / 2)}};
  yrt_postprocess_params params;
  yrt_postprocess_defaults(&params);
  yrt_detection dets[300];
  int frames = 0, rc = 0;
  double busy = 0;
  while (fread(buf, 1, size, in) == size) {
    int n = 0;
    const double t0 = now_s();
    if (yrt_session_detect(session, &frame, &params, dets, 300, &n, &err)) {
      fprintf(stderr, "video_nv12: frame %d: %s\n", frames, err.msg);
      rc = 1;
      break;
    }
    const double dt = now_s() - t0;
    busy += dt;
    printf("{\"frame\": %d, \"ms\": %.2f, \"detections\": [", frames, 1e3 * dt);
    for (int i = 0; i < n; i++) {
      printf("%s{\"class\": %d, \"name\": ", i ? ", " : "", dets[i].class_id);
      print_json_string(dets[i].name);
      printf(", \"score\": %.4f, \"box\": [%.1f, %.1f, %.1f, %.1f]}", dets[i].score, dets[i].x0, dets[i].y0,
             dets[i].x1, dets[i].y1);
    }
    printf("]}\n");
    frames++;
  }
  if (frames) fprintf(stderr, "video_nv12: %d frames, %.1f fps (detect only)\n", frames, frames / busy);
  else if (!rc) fprintf(stderr, "video_nv12: no complete %dx%d NV12 frame in the input\n", w, h), rc = 1;
  yrt_session_free(session);
  yrt_model_free(model);
  free(buf);
  if (in != stdin) fclose(in);
  return rc;
}
