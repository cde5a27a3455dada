/* jpeg_to_nv12.c — make camera-like test input: decode a JPEG with yolort_image and write it as
 * one raw NV12 frame (BT.601 limited range, chroma averaged over 2x2) to stdout, COUNT times;
 * prints "WIDTH HEIGHT" on stderr.   jpeg_to_nv12 IMAGE.jpg [COUNT] > frames.nv12 */
#include <stdio.h>
#include <stdlib.h>

#include "yolort_image.h"

static uint8_t clamp8(double v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v + 0.5); }

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) return fprintf(stderr, "usage: jpeg_to_nv12 IMAGE.jpg [COUNT] > out.nv12\n"), 2;
  const int count = argc > 2 ? atoi(argv[2]) : 1;
  yrt_image im;
  yrt_error err;
  if (count < 1 || yrt_image_load_jpeg(argv[1], &im, &err)) return fprintf(stderr, "jpeg_to_nv12: %s\n", err.msg), 1;
  const int w = im.w, h = im.h, cw = (w + 1) / 2, ch = (h + 1) / 2;
  uint8_t *out = malloc((size_t)w * h + 2 * (size_t)cw * ch);
  if (!out) return 1;
  for (int i = 0; i < w * h; i++) {
    const uint8_t *p = im.rgb + 3 * (size_t)i;
    out[i] = clamp8(16 + (65.738 * p[0] + 129.057 * p[1] + 25.064 * p[2]) / 256);
  }
  uint8_t *uv = out + (size_t)w * h;
  for (int y = 0; y < ch; y++)
    for (int x = 0; x < cw; x++) {
      double r = 0, g = 0, b = 0;
      for (int k = 0; k < 4; k++) {
        const int sx = 2 * x + (k & 1) < w ? 2 * x + (k & 1) : w - 1, sy = 2 * y + k / 2 < h ? 2 * y + k / 2 : h - 1;
        const uint8_t *p = im.rgb + ((size_t)sy * w + sx) * 3;
        r += p[0] / 4.0, g += p[1] / 4.0, b += p[2] / 4.0;
      }
      uv[2 * ((size_t)y * cw + x)] = clamp8(128 + (-37.945 * r - 74.494 * g + 112.439 * b) / 256);
      uv[2 * ((size_t)y * cw + x) + 1] = clamp8(128 + (112.439 * r - 94.154 * g - 18.285 * b) / 256);
    }
  for (int i = 0; i < count; i++) fwrite(out, 1, (size_t)w * h + 2 * (size_t)cw * ch, stdout);
  fprintf(stderr, "%d %d\n", w, h);
  free(out);
  yrt_image_free(&im);
  return 0;
}
