/* seg_detect.c — see seg_detect.h. */
#include "seg_detect.h"

#include <stdlib.h>

int seg_detect_has_masks(const detector *d) { return yrt_model_mask_channels(d->model) > 0; }

yrt_status seg_detect_run(detector *d, const yrt_image *img, const yrt_postprocess_params *pp,
                          const yrt_detection **dets, int *n, yrt_error *err) {
  const int want = pp->max_detections > 0 ? pp->max_detections : 1;
  if (d->dets_cap < want) {
    yrt_detection *p = realloc(d->dets, sizeof *p * (size_t)want);
    if (!p) return yrt_set_error(err, YRT_ERR_NOMEM, "seg_detect: out of memory");
    d->dets = p;
    d->dets_cap = want;
  }
  yrt_frame f;
  yrt_frame_init(&f);
  f.format = YRT_PIX_RGB888;
  f.width = img->w;
  f.height = img->h;
  f.plane[0] = img->rgb;
  f.stride[0] = (size_t)img->w * 3;
  f.color = YRT_COLOR_BT601_FULL;
  *dets = d->dets;
  return yrt_session_detect(d->session, &f, pp, d->dets, d->dets_cap, n, err);
}

void seg_put_rle(FILE *f, const uint8_t *mask, int w, int h, size_t stride) {
  fprintf(f, "{\"size\": [%d, %d], \"counts\": [", h, w);
  long run = 0;
  int cur = 0, first = 1;
  for (int x = 0; x < w; x++)
    for (int y = 0; y < h; y++) {
      const int v = mask[(size_t)y * stride + (size_t)x] != 0;
      if (v != cur) {
        fprintf(f, first ? "%ld" : ", %ld", run);
        first = 0;
        run = 0;
        cur = v;
      }
      run++;
    }
  fprintf(f, first ? "%ld]}" : ", %ld]}", run);
}
