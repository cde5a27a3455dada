/* add_i8_fixed.c — the fixed-point int8 Add: its parameters (the dispatch: binary_i8.c). */
#include <math.h>

#include "yk_variants.h"

int yk_add_fixed_params(yk_qparams qa, yk_qparams qb, yk_qparams qy, yk_add_fixed *p) {
  if (!(qa.scale > 0.0f) || !(qb.scale > 0.0f) || !(qy.scale > 0.0f)) return -1;
  const double ra = (double)qa.scale / qy.scale, rb = (double)qb.scale / qy.scale;
  const double r = ra > rb ? ra : rb;
  /* the largest shift keeping both multipliers int16 (vpmaddwd), at most 22 so that zy << shift and
   * the sums stay inside int32 (|a ma + b mb| < 2^24, |zy| 2^22 < 2^29) */
  int shift = 22;
  while (shift > 0 && r * ldexp(1.0, shift) > 32767.0) shift--;
  if (shift < 1 || r * ldexp(1.0, shift) > 32767.0) return -1;
  p->ma = (int16_t)lrint(ra * ldexp(1.0, shift));
  p->mb = (int16_t)lrint(rb * ldexp(1.0, shift));
  p->shift = shift;
  p->zy = qy.zero_point;
  p->bias = (int32_t)((1 << (shift - 1)) - qa.zero_point * p->ma - qb.zero_point * p->mb +
                      (int32_t)((uint32_t)qy.zero_point << shift));
  return 0;
}
