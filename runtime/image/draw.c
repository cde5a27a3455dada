/* draw.c — overlay detections on an RGB image: 2-px box outline in a per-class colour and the
 * class id in a tiny built-in 5x7 digit font on a filled tag above the box. Everything is
 * clipped to the image; non-finite boxes are skipped. */
#include "yolort_image.h"

#include <math.h>

/* Ultralytics' default 20-colour palette, so overlays look familiar. */
static const uint8_t k_palette[20][3] = {
    {0xFF, 0x38, 0x38}, {0xFF, 0x9D, 0x97}, {0xFF, 0x70, 0x1F}, {0xFF, 0xB2, 0x1D}, {0xCF, 0xD2, 0x31},
    {0x48, 0xF9, 0x0A}, {0x92, 0xCC, 0x17}, {0x3D, 0xDB, 0x86}, {0x1A, 0x93, 0x34}, {0x00, 0xD4, 0xBB},
    {0x2C, 0x99, 0xA8}, {0x00, 0xC2, 0xFF}, {0x34, 0x45, 0x93}, {0x64, 0x73, 0xFF}, {0x00, 0x18, 0xEC},
    {0x84, 0x38, 0xFF}, {0x52, 0x00, 0x85}, {0xCB, 0x38, 0xFF}, {0xFF, 0x95, 0xC8}, {0xFF, 0x37, 0xC7}};

/* 5x7 digits, one byte per row, bit 4 = leftmost column. */
static const uint8_t k_digits[10][7] = {
    {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E}, {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E},
    {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}, {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E},
    {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}, {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E},
    {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E}, {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08},
    {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E}, {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C}};

static void fill_rect(yrt_image *img, int x0, int y0, int x1, int y1, const uint8_t rgb[3]) {
  if (x0 < 0) x0 = 0;
  if (y0 < 0) y0 = 0;
  if (x1 > img->w) x1 = img->w;
  if (y1 > img->h) y1 = img->h;
  for (int y = y0; y < y1; y++) {
    uint8_t *p = img->rgb + ((size_t)y * img->w + x0) * 3;
    for (int x = x0; x < x1; x++, p += 3) {
      p[0] = rgb[0];
      p[1] = rgb[1];
      p[2] = rgb[2];
    }
  }
}

/* Clamp a float coordinate into [lo, hi] as an int (boxes may lie partly outside). */
static int clamp_coord(float v, int lo, int hi) {
  if (v <= (float)lo) return lo;
  if (v >= (float)hi) return hi;
  return (int)v;
}

static void draw_class_tag(yrt_image *img, int x, int y, int class_id, const uint8_t bg[3]) {
  char digits[12];
  int nd = 0;
  unsigned v = class_id < 0 ? 0u : (unsigned)class_id;
  do {
    digits[nd++] = (char)(v % 10);
    v /= 10;
  } while (v && nd < (int)sizeof digits);
  int tw = nd * 6 + 1, th = 9;
  if (y - th >= 0) y -= th; /* above the box when there is room, else inside it */
  fill_rect(img, x, y, x + tw, y + th, bg);
  /* Dark text on light colours, white on dark ones. */
  int luma = (299 * bg[0] + 587 * bg[1] + 114 * bg[2]) / 1000;
  const uint8_t fg[3] = {luma > 128 ? 0 : 255, luma > 128 ? 0 : 255, luma > 128 ? 0 : 255};
  for (int d = 0; d < nd; d++) {
    const uint8_t *glyph = k_digits[(int)digits[nd - 1 - d]];
    for (int r = 0; r < 7; r++)
      for (int c = 0; c < 5; c++)
        if (glyph[r] & (0x10 >> c)) {
          int px = x + 1 + d * 6 + c, py = y + 1 + r;
          if (px >= 0 && py >= 0 && px < img->w && py < img->h) {
            uint8_t *p = img->rgb + ((size_t)py * img->w + px) * 3;
            p[0] = fg[0];
            p[1] = fg[1];
            p[2] = fg[2];
          }
        }
  }
}

void yrt_draw_detections(yrt_image *img, const yrt_detection *dets, int n) {
  if (!img || !img->rgb || img->w <= 0 || img->h <= 0 || !dets) return;
  for (int i = 0; i < n; i++) {
    const yrt_detection *d = &dets[i];
    if (!isfinite(d->x0) || !isfinite(d->y0) || !isfinite(d->x1) || !isfinite(d->y1)) continue;
    const uint8_t *col = k_palette[(unsigned)(d->class_id < 0 ? 0 : d->class_id) % 20u];
    int x0 = clamp_coord(fminf(d->x0, d->x1), 0, img->w - 1), x1 = clamp_coord(fmaxf(d->x0, d->x1), 0, img->w - 1);
    int y0 = clamp_coord(fminf(d->y0, d->y1), 0, img->h - 1), y1 = clamp_coord(fmaxf(d->y0, d->y1), 0, img->h - 1);
    fill_rect(img, x0, y0, x1 + 1, y0 + 2, col); /* top */
    fill_rect(img, x0, y1 - 1, x1 + 1, y1 + 1, col); /* bottom */
    fill_rect(img, x0, y0, x0 + 2, y1 + 1, col); /* left */
    fill_rect(img, x1 - 1, y0, x1 + 1, y1 + 1, col); /* right */
    draw_class_tag(img, x0, y0, d->class_id, col);
  }
}

void yrt_draw_mask(yrt_image *img, const uint8_t *mask, size_t stride, int class_id) {
  if (!img || !img->rgb || img->w <= 0 || img->h <= 0 || !mask || stride < (size_t)img->w) return;
  const uint8_t *col = k_palette[(unsigned)(class_id < 0 ? 0 : class_id) % 20u];
  for (int y = 0; y < img->h; y++) {
    const uint8_t *m = mask + (size_t)y * stride;
    uint8_t *p = img->rgb + (size_t)y * (size_t)img->w * 3;
    for (int x = 0; x < img->w; x++, p += 3)
      if (m[x]) /* half the class colour, half the image (Ultralytics' alpha 0.5) */
        for (int c = 0; c < 3; c++) p[c] = (uint8_t)((p[c] + col[c] + 1) / 2);
  }
}

/* A 2-px line from a to b, a 2x2 dot every pixel along its longer axis (at most 65536: a box
 * reaching far past the image costs no more). */
static void line2(yrt_image *img, const float a[2], const float b[2], const uint8_t rgb[3]) {
  const float dx = b[0] - a[0], dy = b[1] - a[1];
  const int steps = (int)fminf(fmaxf(fabsf(dx), fabsf(dy)), 65536.0f) + 1;
  for (int i = 0; i <= steps; i++) {
    const float t = (float)i / (float)steps, x = a[0] + t * dx, y = a[1] + t * dy;
    if (x < -2 || y < -2 || x > (float)img->w + 2 || y > (float)img->h + 2) continue;
    const int px = (int)lrintf(x), py = (int)lrintf(y);
    fill_rect(img, px < 0 ? 0 : px, py < 0 ? 0 : py, px + 2 > img->w ? img->w : px + 2, py + 2 > img->h ? img->h : py + 2, rgb);
  }
}

void yrt_draw_rbox(yrt_image *img, const yrt_rbox *r, int class_id) {
  if (!img || !img->rgb || img->w <= 0 || img->h <= 0 || !r) return;
  for (int k = 0; k < 4; k++)
    if (!isfinite(r->corners[k][0]) || !isfinite(r->corners[k][1]) || fabsf(r->corners[k][0]) > 1e6f ||
        fabsf(r->corners[k][1]) > 1e6f)
      return;
  const uint8_t *col = k_palette[(unsigned)(class_id < 0 ? 0 : class_id) % 20u];
  for (int k = 0; k < 4; k++) line2(img, r->corners[k], r->corners[(k + 1) % 4], col);
  draw_class_tag(img, clamp_coord(r->corners[0][0], 0, img->w - 1), clamp_coord(r->corners[0][1], 0, img->h - 1), class_id,
                 col);
}
