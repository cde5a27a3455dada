/* frame_rows.c — the frame -> input kernel's variant (include/variants/frame.inc), and the tap tables every variant reads. */
#include <math.h>

#include "yk_frame.h"
#include "yk_variants.h"

void yk_frame_plan_axis(int in, int out, int sub, yk_frame_axis *a) {
  yk_frame_plan_axis_window(in, out, 0, out, sub, a);
}

void yk_frame_plan_axis_window(int in, int out, int first, int n, int sub, yk_frame_axis *a) {
  /* OpenCV INTER_LINEAR: source position (d + 0.5) * scale - 0.5, clamped at both edges. For a
   * chroma plane (sub = 2) the destination is in luma units: its chroma position is halved. */
  const double scale = (double)in / out;
  const int in_s = (in + sub - 1) / sub;
  for (int i = 0; i < n; i++) {
    const int d = first + i;
    double f = ((d + 0.5) * scale) / sub - 0.5;
    int s = (int)floor(f);
    f -= s;
    int step = 1;
    if (s < 0) {
      s = 0;
      f = 0;
    }
    if (s >= in_s - 1) {
      s = in_s - 1;
      f = 0;
      step = 0;
    }
    int w = (int)lrint(f * (1 << YK_FRAME_WBITS));
    if (step == 0) w = 0;
    a->ofs[i] = s;
    a->wt[i] = (int16_t)w;
  }
}

int yk_frame_lut_shift(const int8_t *lut) {
  const int k = (uint8_t)lut[0];
  for (int v = 1; v < 3 * 256; v++)
    if (lut[v] != (int8_t)(uint8_t)(v % 256 + k)) return -1;
  return k;
}

void yk_frame_rows(const yk_isa *isa, const yk_frame_job *j, int r0, int r1) {
  YK_PICK(isa, frame_rows)(j, r0, r1);
}
