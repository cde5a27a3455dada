/* transpose.c — Transpose with axis collapsing: size-1 axes are dropped and runs of axes that
 * stay adjacent and in order are merged, so e.g. NCHW<->NHWC becomes a 2-D transpose and a
 * permutation that keeps the innermost axis becomes memcpy of whole runs. The 2-D-like inner
 * case is tiled to keep both sides in cache; 1- and 4-byte elements go through the variants' tiles
 * (transpose_i8_tile, transpose_f32_tile: move.inc). */
#include <string.h>

#include "copy_elem.h"
#include "yk_variants.h"

#define TILE 32

typedef struct tp_plan {
  int r;                   /* collapsed rank (>= 1) */
  int64_t yd[YK_MAX_RANK]; /* y dims */
  int64_t xs[YK_MAX_RANK]; /* x stride (elements) of each y axis */
} tp_plan;

/* Bytes move 8 x 8 at a time in eight 64-bit words (three rounds of masked swaps, Hacker's
 * Delight's transpose8): a byte-at-a-time gather made YOLO11n's attention transpose (2 x 400 x
 * 400) 0.2 ms, serial. The byte order inside a word is little-endian's. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define TP_BYTE_BLOCKS 1
/* y[i * ys + j] = x[i + j * xs] for i, j in [0, 8). */
static inline void transpose8x8(uint8_t *y, int64_t ys, const uint8_t *x, int64_t xs) {
  uint64_t r[8];
  for (int k = 0; k < 8; k++) memcpy(&r[k], x + k * xs, 8); /* r[j] byte i: element (i, j) */
  static const uint64_t mask[3] = {0x00000000FFFFFFFFull, 0x0000FFFF0000FFFFull,
                                   0x00FF00FF00FF00FFull};
  for (int st = 0, s = 4; s >= 1; st++, s >>= 1)
    for (int a = 0; a < 8; a++)
      if (!(a & s)) { /* swap byte c + s of row a with byte c of row a + s, c & s == 0 */
        const uint64_t t = ((r[a] >> (8 * s)) ^ r[a + s]) & mask[st];
        r[a + s] ^= t;
        r[a] ^= t << (8 * s);
      }
  for (int k = 0; k < 8; k++) memcpy(y + k * ys, &r[k], 8); /* r[i] byte j: element (i, j) */
}
#else
#define TP_BYTE_BLOCKS 0
#endif

void yk_transpose_i8_tile__scalar(const uint8_t *x, int64_t xs, uint8_t *y, int64_t ys, int64_t m, int64_t n) {
  int64_t ib = 0;
  if (TP_BYTE_BLOCKS) { /* 8 x 8 blocks, then the tile's right edge */
    ib = m / 8 * 8;
    const int64_t jb = n / 8 * 8;
#if TP_BYTE_BLOCKS
    for (int64_t i = 0; i < ib; i += 8)
      for (int64_t j = 0; j < jb; j += 8) transpose8x8(y + i * ys + j, ys, x + i + j * xs, xs);
#endif
    if (jb < n)
      for (int64_t i = 0; i < ib; i++) yk_copy_strided(y + i * ys + jb, x + i + jb * xs, xs, n - jb, 1);
  }
  for (int64_t i = ib; i < m; i++) yk_copy_strided(y + i * ys, x + i, xs, n, 1);
}

void yk_transpose_f32_tile__scalar(const uint32_t *x, int64_t xs, uint32_t *y, int64_t ys, int64_t m, int64_t n) {
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) memcpy(y + i * ys + j, x + i + j * xs, 4); /* bits, any 4-byte type */
}

static void plan(const yk_shape *sx, const int *perm, tp_plan *pl) {
  const int r = sx->rank;
  int keep[YK_MAX_RANK], newidx[YK_MAX_RANK], kr = 0;
  int64_t kd[YK_MAX_RANK];
  for (int k = 0; k < r; k++) {
    keep[k] = sx->d[k] != 1;
    newidx[k] = keep[k] ? kr : -1;
    if (keep[k]) kd[kr++] = sx->d[k];
  }
  int p[YK_MAX_RANK], pr = 0;
  for (int k = 0; k < r; k++)
    if (keep[perm[k]]) p[pr++] = newidx[perm[k]];
  if (pr == 0) {
    pl->r = 1;
    pl->yd[0] = 1;
    pl->xs[0] = 1;
    return;
  }
  /* Groups of consecutive y axes whose x axes are consecutive too. */
  int gstart[YK_MAX_RANK], glen[YK_MAX_RANK], ng = 0;
  for (int k = 0; k < pr; k++) {
    if (ng > 0 && p[k] == gstart[ng - 1] + glen[ng - 1]) {
      glen[ng - 1]++;
    } else {
      gstart[ng] = p[k];
      glen[ng] = 1;
      ng++;
    }
  }
  int64_t xstr[YK_MAX_RANK]; /* x strides of the kept axes */
  for (int k = pr - 1; k >= 0; k--) xstr[k] = (k == pr - 1) ? 1 : xstr[k + 1] * kd[k + 1];
  pl->r = ng;
  for (int g = 0; g < ng; g++) {
    int64_t d = 1;
    for (int t = 0; t < glen[g]; t++) d *= kd[gstart[g] + t];
    pl->yd[g] = d;
    pl->xs[g] = xstr[gstart[g] + glen[g] - 1];
  }
}

void yk_transpose(const yk_isa *isa, const void *x, const yk_shape *sx, void *y, const int *perm, size_t es) {
  YK_FN_transpose_i8_tile((*tile)) = YK_PICK(isa, transpose_i8_tile);
  YK_FN_transpose_f32_tile((*tile4)) = YK_PICK(isa, transpose_f32_tile);
  const int r = sx->rank < 0 ? 0 : (sx->rank > YK_MAX_RANK ? YK_MAX_RANK : sx->rank);
  const uint8_t *xb = (const uint8_t *)x;
  uint8_t *yb = (uint8_t *)y;
  int64_t total = 1;
  for (int k = 0; k < r; k++) total *= sx->d[k];
  if (total <= 0) return;
  yk_shape s = *sx;
  s.rank = r;
  tp_plan pl;
  plan(&s, perm, &pl);
  const int L = pl.r - 1;
  const int64_t n = pl.yd[L];
  if (pl.xs[L] == 1) {
    /* Innermost axis keeps its place: contiguous runs. */
    const size_t run = (size_t)n * es;
    int64_t idx[YK_MAX_RANK] = {0}, off = 0;
    for (int64_t q = 0; q < total / n; q++) {
      memcpy(yb, xb + off * (int64_t)es, run);
      yb += run;
      for (int k = L - 1; k >= 0; k--) {
        off += pl.xs[k];
        if (++idx[k] < pl.yd[k]) break;
        off -= pl.xs[k] * pl.yd[k];
        idx[k] = 0;
      }
    }
    return;
  }
  /* Find the y axis that walks x contiguously (x's innermost, stride 1): together with the
   * last y axis it forms a 2-D transpose, done in TILE x TILE blocks. */
  int c = -1;
  for (int k = 0; k < L; k++)
    if (pl.xs[k] == 1) c = k;
  if (c < 0) { /* cannot happen after collapsing; plain element walk for safety */
    int64_t idx[YK_MAX_RANK] = {0}, off = 0;
    for (int64_t q = 0; q < total / n; q++) {
      yk_copy_strided(yb, xb + off * (int64_t)es, pl.xs[L], n, es);
      yb += (size_t)n * es;
      for (int k = L - 1; k >= 0; k--) {
        off += pl.xs[k];
        if (++idx[k] < pl.yd[k]) break;
        off -= pl.xs[k] * pl.yd[k];
        idx[k] = 0;
      }
    }
    return;
  }
  /* y strides (elements) */
  int64_t ys[YK_MAX_RANK];
  for (int k = L; k >= 0; k--) ys[k] = (k == L) ? 1 : ys[k + 1] * pl.yd[k + 1];
  const int64_t m = pl.yd[c], xsl = pl.xs[L], ysc = ys[c];
  /* Outer odometer over every y axis except c and L. */
  int64_t idx[YK_MAX_RANK] = {0}, xo = 0, yo = 0;
  const int64_t outer = total / (n * m);
  for (int64_t q = 0; q < outer; q++) {
    for (int64_t i0 = 0; i0 < m; i0 += TILE) {
      const int64_t i1 = i0 + TILE < m ? i0 + TILE : m;
      for (int64_t j0 = 0; j0 < n; j0 += TILE) {
        const int64_t j1 = j0 + TILE < n ? j0 + TILE : n;
        if (es == 1) {
          tile(xb + xo + i0 + j0 * xsl, xsl, yb + yo + i0 * ysc + j0, ysc, i1 - i0, j1 - j0);
          continue;
        }
        if (es == 4 && ((uintptr_t)x | (uintptr_t)y) % 4 == 0) {
          tile4((const uint32_t *)x + xo + i0 + j0 * xsl, xsl, (uint32_t *)y + yo + i0 * ysc + j0, ysc, i1 - i0,
                j1 - j0);
          continue;
        }
        for (int64_t i = i0; i < i1; i++) {
          uint8_t *dst = yb + (yo + i * ysc + j0) * (int64_t)es;
          const uint8_t *src = xb + (xo + i + j0 * xsl) * (int64_t)es;
          yk_copy_strided(dst, src, xsl, j1 - j0, es);
        }
      }
    }
    for (int k = L - 1; k >= 0; k--) {
      if (k == c) continue;
      xo += pl.xs[k];
      yo += ys[k];
      if (++idx[k] < pl.yd[k]) break;
      xo -= pl.xs[k] * pl.yd[k];
      yo -= ys[k] * pl.yd[k];
      idx[k] = 0;
    }
  }
}
