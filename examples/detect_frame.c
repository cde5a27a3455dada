/* detect_frame.c — load a model, detect the objects of one NV12 camera frame, print them. */
#include <stdio.h>
#include <stdlib.h>
#include "yolort.h"

int main(int argc, char **argv) {
  if (argc != 5) return fprintf(stderr, "usage: detect_frame MODEL.yrt FRAME.nv12 WIDTH HEIGHT\n"), 2;
  const int w = atoi(argv[3]), h = atoi(argv[4]);
  const size_t size = (size_t)w * h + 2 * (size_t)((w + 1) / 2) * ((h + 1) / 2);
  uint8_t *nv12 = malloc(size);
  FILE *f = fopen(argv[2], "rb");
  if (w < 1 || h < 1 || !nv12 || !f || fread(nv12, 1, size, f) != size) return fprintf(stderr, "cannot read %s\n", argv[2]), 1;
  fclose(f);
  yrt_frame frame = {.format = YRT_PIX_NV12, .width = w, .height = h, .plane = {nv12, nv12 + (size_t)w * h},
                     .stride = {(size_t)w, 2 * (size_t)((w + 1) / 2)}};
  yrt_error err;
  yrt_model *model = NULL;
  yrt_session *session = NULL;
  yrt_detection dets[100];
  int n = 0;
  if (yrt_model_load_file(argv[1], &model, &err) || yrt_session_create(model, NULL, &session, &err) ||
      yrt_session_detect(session, &frame, NULL, dets, 100, &n, &err))
    return fprintf(stderr, "detect_frame: %s\n", err.msg), 1;
  for (int i = 0; i < n; i++)
    printf("%-12s %.2f  [%.0f, %.0f, %.0f, %.0f]\n", dets[i].name ? dets[i].name : "?", dets[i].score, dets[i].x0,
           dets[i].y0, dets[i].x1, dets[i].y1);
  yrt_session_free(session);
  yrt_model_free(model);
  free(nv12);
  return 0;
}
