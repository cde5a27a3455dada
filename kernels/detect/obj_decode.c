/* obj_decode.c — objectness head decode (yk_obj_decode.h). Portable: table lookups for an int8
 * head; a float head's sigmoids taken an anchor's vector at a time by the vectorised float kernel
 * (yk_unary_f32), which was most of the decode's time done one expf at a time. */
#include <math.h>

#include "yk.h"
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

/* An anchor's values through fn (1 sigmoid; 0 as they are) into v[0..n), float or int8 input. */
static const float *anchor_values(const yk_isa *isa, const void *base, const yk_obj_tables *t, size_t i, int n, int fn,
                                  float *v) {
  if (t) {
    const int8_t *q = (const int8_t *)base + i;
    const float *tab = fn ? t->sig : t->deq;
    for (int k = 0; k < n; k++) v[k] = tab[q[k] + 128];
    return v;
  }
  const float *x = (const float *)base + i;
  if (!fn) return x;
  yk_unary_f32(isa, YK_UNARY_SIGMOID, 0.0f, x, v, (size_t)n);
  return v;
}

/* Anchor g of the head decoded into column col of rows ys floats apart (rows 0..3 the box, then
 * the scores). */
static void decode_one(const yk_isa *isa, const yk_obj_params *p, const yk_obj_scale *sc, size_t g, float *y, size_t ys,
                       size_t col_out, float *sx, float *ss);

void yk_obj_decode(const yk_isa *isa, const yk_obj_params *p, size_t lo, size_t hi, float *y) {
  float sx[5 + YK_OBJ_MAX_CLASSES], ss[1 + YK_OBJ_MAX_CLASSES];
  for (int s = 0; s < p->n_scales; s++) {
    const yk_obj_scale *sc = &p->s[s];
    const size_t last = sc->first + (size_t)p->na * (size_t)sc->h * (size_t)sc->w;
    const size_t a0 = lo > sc->first ? lo : sc->first, a1 = hi < last ? hi : last;
    for (size_t g = a0; g < a1; g++) decode_one(isa, p, sc, g, y, p->n_anchors, g, sx, ss);
  }
}

static const yk_obj_scale *scale_of(const yk_obj_params *p, size_t g) {
  int s = 0;
  while (s + 1 < p->n_scales && g >= p->s[s + 1].first) s++;
  return &p->s[s];
}

void yk_obj_decode_cols(const yk_isa *isa, const yk_obj_params *p, const int32_t *list, size_t n_list, float *y) {
  float sx[5 + YK_OBJ_MAX_CLASSES], ss[1 + YK_OBJ_MAX_CLASSES];
  for (size_t j = 0; j < n_list; j++) {
    const size_t g = (size_t)list[j];
    decode_one(isa, p, scale_of(p, g), g, y, n_list, j, sx, ss);
  }
}

/* An anchor's best score bound: objectness, then objectness x the best class; float heads through
 * the scalar sigmoid (a margin below covers its rounding against the vectorised one). */
static float best_score(const yk_obj_params *p, const yk_obj_scale *sc, size_t g, float conf, float margin) {
  const int nc = p->nc, na = p->na, split = sc->score != NULL;
  const size_t cells = (size_t)sc->h * (size_t)sc->w, j = g - sc->first, a = j / cells, cell = j % cells;
  const void *b = split ? sc->score : sc->x;
  const yk_obj_tables *t = split ? sc->ts : sc->tx;
  const size_t per = (size_t)yk_obj_per(p);
  const size_t ob = split ? cell * (size_t)(na * (1 + nc)) + a * (size_t)(1 + nc) : cell * (size_t)na * per + a * per + 4;
  const float obj = value(b, t, ob, 1);
  if (!(obj > conf - margin)) return obj; /* scores are obj x sigmoid <= obj */
  if (t) {
    const int8_t *q = (const int8_t *)b + ob + 1;
    float best = t->sig[q[0] + 128];
    for (int c = 1; c < nc; c++) best = t->sig[q[c] + 128] > best ? t->sig[q[c] + 128] : best;
    return obj * best;
  }
  const float *x = (const float *)b + ob + 1;
  float mx = x[0];
  for (int c = 1; c < nc; c++) mx = x[c] > mx || mx != mx ? x[c] : mx;
  return obj * sigmoidf(mx); /* sigmoid is monotonic: the best class is the largest logit */
}

size_t yk_obj_over(const yk_obj_params *p, float conf, size_t lo, size_t hi, int32_t *list) {
  size_t n = 0;
  const float margin = 1e-5f; /* float heads: the scan's scalar sigmoid against the decode's */
  for (int s = 0; s < p->n_scales; s++) {
    const yk_obj_scale *sc = &p->s[s];
    const size_t last = sc->first + (size_t)p->na * (size_t)sc->h * (size_t)sc->w;
    const size_t a0 = lo > sc->first ? lo : sc->first, a1 = hi < last ? hi : last;
    const float m = (sc->score ? sc->ts : sc->tx) ? 0.0f : margin; /* int8 scores: the decode's tables */
    for (size_t g = a0; g < a1; g++) {
      const float b = best_score(p, sc, g, conf, m);
      if (b > conf - m || b != b) list[n++] = (int32_t)g;
    }
  }
  return n;
}

static void decode_one(const yk_isa *isa, const yk_obj_params *p, const yk_obj_scale *sc, size_t g, float *y, size_t ys,
                       size_t col_out, float *sx, float *ss) {
  const size_t n = ys, g_out = col_out;
  const int nc = p->nc, na = p->na, split = sc->score != NULL;
  const int per = split ? 4 : yk_obj_per(p); /* channels of one anchor in x */
  const size_t cells = (size_t)sc->h * (size_t)sc->w;
  {
    {
      const size_t j = g - sc->first, a = j / cells, cell = j % cells;
      const float col = (float)(cell % (size_t)sc->w), row = (float)(cell / (size_t)sc->w);
      const size_t xb = cell * (size_t)(na * per) + a * (size_t)per;
      float cx, cy, w, h;
      /* box values (and, joint, the scores): sigmoids for YOLOv5 / v7, as they are for YOLOX */
      const float *v = anchor_values(isa, sc->x, sc->tx, xb, split ? 4 : 5 + nc, p->mode == YK_OBJ_SIGMOID || !split, sx);
      if (p->mode == YK_OBJ_SIGMOID) {
        cx = (2.0f * v[0] - 0.5f + col) * sc->stride;
        cy = (2.0f * v[1] - 0.5f + row) * sc->stride;
        const float sw = 2.0f * v[2], sh = 2.0f * v[3];
        w = sw * sw * sc->anchor[a][0];
        h = sh * sh * sc->anchor[a][1];
      } else {
        cx = (value(sc->x, sc->tx, xb + 0, 0) + col) * sc->stride;
        cy = (value(sc->x, sc->tx, xb + 1, 0) + row) * sc->stride;
        w = value(sc->x, sc->tx, xb + 2, 2) * sc->anchor[a][0];
        h = value(sc->x, sc->tx, xb + 3, 2) * sc->anchor[a][1];
      }
      y[0 * n + g_out] = cx;
      y[1 * n + g_out] = cy;
      y[2 * n + g_out] = w;
      y[3 * n + g_out] = h;
      const float *sv = split ? anchor_values(isa, sc->score, sc->ts, cell * (size_t)(na * (1 + nc)) + a * (size_t)(1 + nc),
                                              1 + nc, 1, ss)
                              : v + 4;
      const float obj = sv[0];
      for (int c = 0; c < nc; c++) y[(size_t)(4 + c) * n + g_out] = obj * sv[1 + c];
    }
  }
}
