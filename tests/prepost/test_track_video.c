/* test_track_video.c — yrt_tracker on videos made from val images with a known motion: a crop
 * window (the image less 180 x 90 pixels) slides 3 px right and 1.5 px down per frame over 60
 * frames, so every object drifts left and up across the frame. Each frame goes through
 * yrt_session_detect (yolo11n-640 QDQ from ../shared, converted here) and the tracker, boxes in
 * the window's pixels. The objects present throughout are the labelled ones inside every window
 * (at least 24 px a side); each frame, the track whose box (back in image pixels) overlaps one
 * most (IoU >= 0.5) gives its ID. Counted per object: frames where the detector found it with a
 * score over the tracker's track_thresh (IoU >= 0.5), frames where it is tracked, and ID switches
 * (a different ID from the last one it had). Asserted: tracked in at least 85% of the frames it
 * was detected in (the first frame of a track after frame 1 is unconfirmed, a missed detection
 * is a lost frame), at most one ID switch over all the videos. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "convert.h"
#include "test_data.h"
#include "yolort_image.h"
#include "yolort_track.h"

enum { FRAMES = 60, MAX_OBJ = 64, CAP = 300 };
#define DX 3.0
#define DY 1.5
#define SPAN_X 180 /* the window is the image less these */
#define SPAN_Y 90

static const char *const k_videos[] = {"000000064523", "000000025603", "000000001000", "000000376322"};

typedef struct gt {
  float x0, y0, x1, y1;
} gt;

static float iou4(float ax0, float ay0, float ax1, float ay1, const gt *b) {
  const float iw = fminf(ax1, b->x1) - fmaxf(ax0, b->x0), ih = fminf(ay1, b->y1) - fmaxf(ay0, b->y0);
  if (!(iw > 0 && ih > 0)) return 0;
  const float in = iw * ih;
  return in / ((ax1 - ax0) * (ay1 - ay0) + (b->x1 - b->x0) * (b->y1 - b->y0) - in);
}

/* Labelled objects inside every window: [last x, first x + window) x [last y, first y + window). */
static int load_gt(const char *stem, int w, int h, gt *out) {
  char rel[256], path[1024];
  snprintf(rel, sizeof rel, "data/coco/val/labels/%s.txt", stem);
  YT_REQUIRE_DATA(path, rel);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  const float lx = (float)ceil(DX * (FRAMES - 1)), ly = (float)ceil(DY * (FRAMES - 1));
  const float rx = (float)(w - SPAN_X), ry = (float)(h - SPAN_Y);
  int n = 0, cls;
  float cx, cy, bw, bh;
  while (n < MAX_OBJ && fscanf(f, "%d %f %f %f %f", &cls, &cx, &cy, &bw, &bh) == 5) {
    const gt g = {(cx - bw / 2) * (float)w, (cy - bh / 2) * (float)h, (cx + bw / 2) * (float)w,
                  (cy + bh / 2) * (float)h};
    if (g.x0 >= lx && g.y0 >= ly && g.x1 <= rx && g.y1 <= ry && g.x1 - g.x0 >= 24 && g.y1 - g.y0 >= 24) out[n++] = g;
  }
  fclose(f);
  return n;
}

static void test_track_video(void **state) {
  (void)state;
  char path[1024];
  YT_REQUIRE_DATA(path, "models/yolo11n-640.qdq.onnx");
  yrt_error err = {{0}};
  void *buf = NULL;
  size_t size = 0;
  yrt_convert_options o = {0};
  if (yrt_convert_onnx_file(path, &o, &buf, &size, NULL, &err) != YRT_OK) fail_msg("convert: %s", err.msg);
  yrt_model *m = NULL;
  if (yrt_model_load_memory(buf, size, 1, &m, &err) != YRT_OK) fail_msg("load: %s", err.msg);
  free(buf);
  yrt_session *s = NULL;
  if (yrt_session_create(m, NULL, &s, &err) != YRT_OK) fail_msg("session: %s", err.msg);
  const size_t tbytes = yrt_tracker_memory_bytes(CAP);
  void *tmem = aligned_alloc(64, (tbytes + 63) / 64 * 64); /* the caller's memory: nothing allocated after */
  assert_non_null(tmem);
  yrt_detection *dets = malloc(CAP * sizeof *dets);
  yrt_track *tracks = malloc(CAP * sizeof *tracks);
  assert_non_null(dets);
  assert_non_null(tracks);
  int objects = 0, switches = 0, tracked_frames = 0, detected_frames = 0;
  for (size_t v = 0; v < sizeof k_videos / sizeof *k_videos; v++) {
    char rel[256];
    snprintf(rel, sizeof rel, "data/coco/val/images/%s.jpg", k_videos[v]);
    YT_REQUIRE_DATA(path, rel);
    yrt_image im;
    if (yrt_image_load_jpeg(path, &im, &err) != YRT_OK) fail_msg("%s: %s", rel, err.msg);
    gt g[MAX_OBJ];
    const int ng = load_gt(k_videos[v], im.w, im.h, g);
    assert_true(ng > 0);
    int last_id[MAX_OBJ], seen[MAX_OBJ], sw[MAX_OBJ], found[MAX_OBJ];
    for (int k = 0; k < ng; k++) last_id[k] = 0, seen[k] = 0, sw[k] = 0, found[k] = 0;
    yrt_tracker *t = NULL;
    if (yrt_tracker_create(NULL, CAP, tmem, tbytes, &t, &err) != YRT_OK) fail_msg("tracker: %s", err.msg);
    for (int f = 0; f < FRAMES; f++) {
      yrt_frame fr;
      yrt_frame_init(&fr);
      fr.format = YRT_PIX_RGB888, fr.width = im.w, fr.height = im.h;
      fr.plane[0] = im.rgb, fr.stride[0] = (size_t)im.w * 3;
      fr.plane_bytes[0] = fr.stride[0] * (size_t)im.h;
      const int ox = (int)lrint(DX * f), oy = (int)lrint(DY * f);
      fr.crop_x = ox, fr.crop_y = oy, fr.crop_w = im.w - SPAN_X, fr.crop_h = im.h - SPAN_Y;
      int n = 0, nt = 0;
      if (yrt_session_detect(s, &fr, NULL, dets, CAP, &n, &err) != YRT_OK) fail_msg("detect: %s", err.msg);
      for (int i = 0; i < n; i++) /* the video's pixels: the window's */
        dets[i].x0 -= (float)ox, dets[i].x1 -= (float)ox, dets[i].y0 -= (float)oy, dets[i].y1 -= (float)oy;
      if (yrt_tracker_update(t, dets, n, tracks, CAP, &nt, &err) != YRT_OK) fail_msg("update: %s", err.msg);
      for (int k = 0; k < ng; k++) {
        for (int i = 0; i < n; i++)
          if (dets[i].score > 0.5f &&
              iou4(dets[i].x0 + (float)ox, dets[i].y0 + (float)oy, dets[i].x1 + (float)ox, dets[i].y1 + (float)oy,
                   &g[k]) >= 0.5f) {
            found[k]++;
            break;
          }
        float best = 0.5f;
        int id = 0;
        for (int i = 0; i < nt; i++) {
          const yrt_track *tr = &tracks[i];
          const float u = iou4(tr->x0 + (float)ox, tr->y0 + (float)oy, tr->x1 + (float)ox, tr->y1 + (float)oy, &g[k]);
          if (u >= best) best = u, id = tr->id;
        }
        if (!id) continue;
        seen[k]++;
        if (last_id[k] && id != last_id[k]) sw[k]++;
        last_id[k] = id;
      }
    }
    yrt_tracker_free(t);
    for (int k = 0; k < ng; k++) {
      print_message("%s object %d (%.0fx%.0f): detected in %d, tracked in %d of %d frames, %d ID switches\n",
                    k_videos[v], k, (double)(g[k].x1 - g[k].x0), (double)(g[k].y1 - g[k].y0), found[k], seen[k],
                    FRAMES, sw[k]);
      objects += found[k] > 0;
      switches += sw[k];
      tracked_frames += seen[k];
      detected_frames += found[k];
    }
    yrt_image_free(&im);
  }
  print_message("%zu videos of %d frames, %d objects present throughout and detected: %d object-frames "
                "detected, %d tracked, %d ID switches\n",
                sizeof k_videos / sizeof *k_videos, FRAMES, objects, detected_frames, tracked_frames, switches);
  assert_true(objects >= 6);
  assert_true(tracked_frames * 100 >= detected_frames * 85);
  assert_true(switches <= 1);
  free(tmem);
  free(dets);
  free(tracks);
  yrt_session_free(s);
  yrt_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_track_video)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
