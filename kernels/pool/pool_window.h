/* pool_window.h — internal: the valid kernel taps of one output position (padding = skipped). */
#ifndef YOLORT_YK_POOL_WINDOW_H
#define YOLORT_YK_POOL_WINDOW_H

/* Taps k in [*k0, *k1) with 0 <= o*s - pad + k*d < in. */
static inline void yk_pool_taps(int o, int s, int pad, int d, int k, int in, int *k0, int *k1) {
  const int base = o * s - pad;
  int lo = 0, hi = k;
  if (d <= 0) d = 1;
  while (lo < hi && base + lo * d < 0) lo++;
  while (hi > lo && base + (hi - 1) * d >= in) hi--;
  *k0 = lo;
  *k1 = hi;
}

#endif /* YOLORT_YK_POOL_WINDOW_H */
