/* obj_decode.c — objectness head decode (yk_obj_decode.h). Portable: one exp / sigmoid per value
 * of a float head, table lookups for an int8 one. */
#include <math.h>

#include "yk_obj_decode.h"

static float sigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }

void yk_obj_tables_init(float scale, int32_t zp, yk_obj_tables *t) {
  for (int i = 0; i < 256; i++) {
    const float v = (float)(i - 128 - zp) * scale;
    t->deq[i] = v;
    t->sig[i] = sigmoidf(v);
    t->ex[i] = expf(v); /* inf past ~88: a box that large is dropped by postprocess */
  }
}

/* Value k of an anchor's vector, through the right function: 0 plain, 1 sigmoid, 2 exp. */
static inline float value(const void *base, const yk_obj_tables *t, size_t i, int fn) {
  if (t) {
    const int q = ((const int8_t *)base)[i] + 128;
    return fn == 0 ? t->deq[q] : fn == 1 ? t->sig[q] : t->ex[q];
  }
  const float v = ((const float *)base)[i];
  return fn == 0 ? v : fn == 1 ? sigmoidf(v) : expf(v);
}

void yk_obj_decode(const yk_obj_params *p, size_t lo, size_t hi, float *y) {
  const size_t n = p->n_anchors;
  const int nc = p->nc, na = p->na, split = p->s[0].score != NULL;
  const int per = split ? 4 : 5 + nc; /* channels of one anchor in x */
  for (int s = 0; s < p->n_scales; s++) {
    const yk_obj_scale *sc = &p->s[s];
    const size_t cells = (size_t)sc->h * (size_t)sc->w, last = sc->first + (size_t)na * cells;
    const size_t a0 = lo > sc->first ? lo : sc->first, a1 = hi < last ? hi : last;
    for (size_t g = a0; g < a1; g++) {
      const size_t j = g - sc->first, a = j / cells, cell = j % cells;
      const float col = (float)(cell % (size_t)sc->w), row = (float)(cell / (size_t)sc->w);
      const size_t xb = cell * (size_t)(na * per) + a * (size_t)per;
      float cx, cy, w, h;
      if (p->mode == YK_OBJ_SIGMOID) {
        cx = (2.0f * value(sc->x, sc->tx, xb + 0, 1) - 0.5f + col) * sc->stride;
        cy = (2.0f * value(sc->x, sc->tx, xb + 1, 1) - 0.5f + row) * sc->stride;
        const float sw = 2.0f * value(sc->x, sc->tx, xb + 2, 1), sh = 2.0f * value(sc->x, sc->tx, xb + 3, 1);
        w = sw * sw * sc->anchor[a][0];
        h = sh * sh * sc->anchor[a][1];
      } else {
        cx = (value(sc->x, sc->tx, xb + 0, 0) + col) * sc->stride;
        cy = (value(sc->x, sc->tx, xb + 1, 0) + row) * sc->stride;
        w = value(sc->x, sc->tx, xb + 2, 2) * sc->anchor[a][0];
        h = value(sc->x, sc->tx, xb + 3, 2) * sc->anchor[a][1];
      }
      y[0 * n + g] = cx;
      y[1 * n + g] = cy;
      y[2 * n + g] = w;
      y[3 * n + g] = h;
      const void *sb = split ? sc->score : sc->x;
      const yk_obj_tables *st = split ? sc->ts : sc->tx;
      const size_t ob = split ? cell * (size_t)(na * (1 + nc)) + a * (size_t)(1 + nc) : xb + 4;
      const float obj = value(sb, st, ob, 1);
      for (int c = 0; c < nc; c++) y[(size_t)(4 + c) * n + g] = obj * value(sb, st, ob + 1 + (size_t)c, 1);
    }
  }
}
