/* silu_range.c — see silu_range.h. */
#include "silu_range.h"

#include <math.h>

static double silu(double x) { return x / (1.0 + exp(-x)); }

/* silu is decreasing on (-inf, XMIN] and increasing on [XMIN, inf) */
#define SILU_XMIN (-1.2784645427610738)

void silu_input_range(double z_scale, double z_hi, double *lo, double *hi) {
  if (!(z_scale > 0) || !isfinite(z_scale)) return;
  /* low end: the most negative x with |silu(x)| >= z_scale / 4 (bisection on the decreasing
   * branch); if the whole branch is below that, keep the minimum itself */
  const double small = z_scale / 4;
  double cut = SILU_XMIN;
  if (-silu(SILU_XMIN) > small) {
    double a = -60.0, b = SILU_XMIN; /* -silu(a) < small <= -silu(b) */
    for (int i = 0; i < 80; i++) {
      const double m = 0.5 * (a + b);
      if (-silu(m) < small) a = m;
      else b = m;
    }
    cut = a;
  }
  if (*lo < cut) *lo = cut;
  /* high end: silu(x) >= z_hi + z_scale / 2 saturates z; silu(x) >= x - 1e-2 beyond x = 6 and
   * silu is increasing there, so bisect on [0, z_hi + 8] */
  if (z_hi > 0 && isfinite(z_hi)) {
    const double top = z_hi + z_scale / 2;
    double a = 0.0, b = z_hi + 8.0;
    if (silu(b) >= top) {
      for (int i = 0; i < 80; i++) {
        const double m = 0.5 * (a + b);
        if (silu(m) < top) a = m;
        else b = m;
      }
      if (*hi > b) *hi = b;
    }
  }
  if (*lo > 0) *lo = 0;
  if (*hi < 0) *hi = 0;
}
