/* draw_keypoints.c — overlay a pose detection's keypoints on an RGB image: the COCO skeleton's
 * limbs (17 keypoints; other counts: points only) as 2-px lines and each keypoint as a 5x5 dot,
 * in Ultralytics' pose palette. Keypoints below min_score and non-finite ones are left out;
 * everything is clipped to the image. */
#include "yolort_image.h"

#include <math.h>

/* Ultralytics' pose palette and its limb / keypoint colour choices (utils/plotting.py). */
static const uint8_t k_pose_palette[20][3] = {
    {255, 128, 0},   {255, 153, 51},  {255, 178, 102}, {230, 230, 0},   {255, 153, 255},
    {153, 204, 255}, {255, 102, 255}, {255, 51, 255},  {102, 178, 255}, {51, 153, 255},
    {255, 153, 153}, {255, 102, 102}, {255, 51, 51},   {153, 255, 153}, {102, 255, 102},
    {51, 255, 51},   {0, 255, 0},     {0, 0, 255},     {255, 0, 0},     {255, 255, 255}};
/* COCO limbs, 1-based keypoint pairs as Ultralytics lists them. */
static const uint8_t k_skeleton[19][2] = {{16, 14}, {14, 12}, {17, 15}, {15, 13}, {12, 13}, {6, 12}, {7, 13},
                                          {6, 7},   {6, 8},   {7, 9},   {8, 10},  {9, 11},  {2, 3},   {1, 2},
                                          {1, 3},   {2, 4},   {3, 5},   {4, 6},   {5, 7}};
static const uint8_t k_limb_color[19] = {9, 9, 9, 9, 7, 7, 7, 0, 0, 0, 0, 0, 16, 16, 16, 16, 16, 16, 16};
static const uint8_t k_kpt_color[17] = {16, 16, 16, 16, 16, 0, 0, 0, 0, 0, 0, 9, 9, 9, 9, 9, 9};

static void dot(yrt_image *img, int cx, int cy, int r, const uint8_t rgb[3]) {
  for (int y = cy - r; y <= cy + r; y++)
    for (int x = cx - r; x <= cx + r; x++) {
      if (x < 0 || y < 0 || x >= img->w || y >= img->h) continue;
      uint8_t *p = img->rgb + ((size_t)y * (size_t)img->w + (size_t)x) * 3;
      p[0] = rgb[0];
      p[1] = rgb[1];
      p[2] = rgb[2];
    }
}

static int usable(const yrt_keypoint *k, float min_score) {
  return isfinite(k->x) && isfinite(k->y) && !(k->score < min_score) && fabsf(k->x) < 1e6f && fabsf(k->y) < 1e6f;
}

/* A line of 1-px dots every pixel along its longer axis (radius 1: 3 px wide). */
static void line(yrt_image *img, const yrt_keypoint *a, const yrt_keypoint *b, const uint8_t rgb[3]) {
  const float dx = b->x - a->x, dy = b->y - a->y;
  const int steps = (int)fmaxf(fabsf(dx), fabsf(dy)) + 1;
  for (int i = 0; i <= steps; i++) {
    const float t = (float)i / (float)steps;
    dot(img, (int)lrintf(a->x + t * dx), (int)lrintf(a->y + t * dy), 1, rgb);
  }
}

void yrt_draw_keypoints(yrt_image *img, const yrt_keypoint *kpts, int n, float min_score) {
  if (!img || !img->rgb || !kpts || n < 1) return;
  if (n == 17)
    for (int l = 0; l < 19; l++) {
      const yrt_keypoint *a = &kpts[k_skeleton[l][0] - 1], *b = &kpts[k_skeleton[l][1] - 1];
      if (usable(a, min_score) && usable(b, min_score)) line(img, a, b, k_pose_palette[k_limb_color[l]]);
    }
  for (int i = 0; i < n; i++)
    if (usable(&kpts[i], min_score))
      dot(img, (int)lrintf(kpts[i].x), (int)lrintf(kpts[i].y), 2, k_pose_palette[n == 17 ? k_kpt_color[i] : 16]);
}
