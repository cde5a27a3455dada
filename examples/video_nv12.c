/* video_nv12.c — a camera loop: raw NV12 frames of WIDTH x HEIGHT from a file or stdin ("-"),
 * one JSON line of detections per frame on stdout (each with its track "id" across frames, 0 while
 * a track is not yet confirmed), the frame rate on stderr at the end.
 *   video_nv12 MODEL.yrt WIDTH HEIGHT [FILE|-] [THREADS]
 * One session, one frame buffer, one tracker, reused: nothing is allocated per frame. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "yolort.h"
#include "yolort_track.h"

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
  yrt_tracker *tracker = NULL;
  yrt_session_options opts = {.num_threads = threads};
  if (!buf || yrt_model_load_file(argv[1], &model, &err) || yrt_session_create(model, &opts, &session, &err) ||
      yrt_tracker_create(NULL, 300, NULL, 0, &tracker, &err)) {
    fprintf(stderr, "video_nv12: %s\n", buf ? err.msg : "out of memory");
    return 1;
  }
  yrt_frame frame;
  yrt_frame_init(&frame); /* struct_size set: plane_bytes below are read */
  frame.format = YRT_PIX_NV12, frame.width = w, frame.height = h;
  frame.plane[0] = buf, frame.plane[1] = buf + luma;
  frame.stride[0] = (size_t)w, frame.stride[1] = 2 * (size_t)((w + 1) / 2);
  frame.plane_bytes[0] = luma, frame.plane_bytes[1] = size - luma; /* a short buffer is refused, not over-read */
  yrt_postprocess_params params;
  yrt_postprocess_defaults(&params);
  yrt_detection dets[300];
  yrt_track tracks[300];
  int ids[300];
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
    int nt = 0;
    if (yrt_tracker_update(tracker, dets, n, tracks, 300, &nt, &err)) {
      fprintf(stderr, "video_nv12: frame %d: %s\n", frames, err.msg);
      rc = 1;
      break;
    }
    for (int i = 0; i < n; i++) ids[i] = 0;
    for (int k = 0; k < nt; k++) ids[tracks[k].det_index] = tracks[k].id;
    const double dt = now_s() - t0;
    busy += dt;
    printf("{\"frame\": %d, \"ms\": %.2f, \"detections\": [", frames, 1e3 * dt);
    for (int i = 0; i < n; i++) {
      printf("%s{\"id\": %d, \"class\": %d, \"name\": ", i ? ", " : "", ids[i], dets[i].class_id);
      print_json_string(dets[i].name);
      printf(", \"score\": %.4f, \"box\": [%.1f, %.1f, %.1f, %.1f]}", dets[i].score, dets[i].x0, dets[i].y0,
             dets[i].x1, dets[i].y1);
    }
    printf("]}\n");
    frames++;
  }
  if (frames) fprintf(stderr, "video_nv12: %d frames, %.1f fps (detect + track)\n", frames, frames / busy);
  else if (!rc) fprintf(stderr, "video_nv12: no complete %dx%d NV12 frame in the input\n", w, h), rc = 1;
  yrt_tracker_free(tracker);
  yrt_session_free(session);
  yrt_model_free(model);
  free(buf);
  if (in != stdin) fclose(in);
  return rc;
}
