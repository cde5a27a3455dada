/* fuzz_jpeg.c — libFuzzer target: hostile JPEG bytes through yrt_image_decode_jpeg, then the
 * letterbox into 64x64 and 320x320 network inputs. Every output value must be in [0, 1] and the
 * placement inside the destination. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "yolort_image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Letterboxing a huge decoded image is slow and says nothing new. */
#define FZ_MAX_LETTERBOX_PIXELS (4u << 20)

static void letterbox(const yrt_image *img, int dw, int dh) {
  size_t sb = yrt_letterbox_scratch_bytes(img->w, img->h, dw, dh);
  float *dst = malloc((size_t)dw * (size_t)dh * 3 * sizeof(float));
  void *scratch = malloc(sb ? sb : 1);
  FZ_CHECK(dst && scratch);
  yrt_letterbox lb;
  yrt_error err;
  yrt_status st = yrt_letterbox_f32(img, dw, dh, dst, (size_t)dw * (size_t)dh * 3, scratch, &lb, &err);
  FZ_CHECK(st == YRT_OK);
  for (size_t i = 0; i < (size_t)dw * (size_t)dh * 3; i++) FZ_CHECK(dst[i] >= 0.0f && dst[i] <= 1.0f);
  FZ_CHECK(isfinite(lb.ratio) && lb.ratio > 0);
  FZ_CHECK(lb.pad_left >= 0 && lb.pad_top >= 0 && lb.pad_left <= (float)dw && lb.pad_top <= (float)dh);
  FZ_CHECK(lb.src_w == img->w && lb.src_h == img->h && lb.dst_w == dw && lb.dst_h == dh);
  free(dst);
  free(scratch);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  yrt_image img;
  yrt_error err;
  err.msg[0] = 0;
  yrt_status st = yrt_image_decode_jpeg(data, size, &img, &err);
  if (st != YRT_OK) {
    FZ_CHECK(img.rgb == NULL);
    fz_check_error(st, &err);
    return 0;
  }
  FZ_CHECK(img.rgb && img.w > 0 && img.h > 0);
  if ((size_t)img.w * (size_t)img.h <= FZ_MAX_LETTERBOX_PIXELS) {
    letterbox(&img, 64, 64);
    letterbox(&img, 320, 320);
    /* Boxes from the decoded pixels: in range, out of range, degenerate. */
    yrt_detection d[3];
    memset(d, 0, sizeof d); /* every field set: the overlay reads the class name too */
    for (int i = 0; i < 3; i++) {
      const uint8_t *p = img.rgb + (size_t)i % ((size_t)img.w * img.h) * 3;
      d[i].x0 = (float)p[0] * 4 - 256;
      d[i].y0 = (float)p[1] * 4 - 256;
      d[i].x1 = d[i].x0 + (float)p[2] * 3;
      d[i].y1 = d[i].y0 - (float)p[0];
      d[i].score = 0.5f;
      d[i].class_id = p[1] - 100;
      d[i].name = i == 1 ? "a class name longer than the tag has room for at all" : NULL;
    }
    yrt_draw_detections(&img, d, 3);
  }
  yrt_image_free(&img);
  return 0;
}
