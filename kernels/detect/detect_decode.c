/* detect_decode.c — the Detect head decode of yk_detect.h. The int8 path is table
 * lookups (no exp at run time) and the float path calls the float kernels' SIMD softmax and
 * sigmoid on blocks of anchors. Boxes go in blocks of anchors; int8 class scores go a whole
 * scale's range at once through yk_detect_cls_i8 (scalar / AVX2 / AVX-512 VBMI, bit-exact: a table
 * lookup is a copy of the table's bits), float ones block by block, turned class-major by the
 * 4-byte transpose tile, so every store stream of y is contiguous. */
#include "yk_detect.h"

#include "../unary/exp_f32_inline.h"
#include "yk_inline.h"
#include "yk_variants.h"

/* Floats of stack scratch per call: a block of softmax rows or of class scores. */
#define SCRATCH 4096
#define BLOCK_MAX 64

void yk_detect_exp_table(float scale, float table[256]) {
  for (int i = 0; i < 256; i++) table[i] = yk_exp_neg_f32_1(scale * (float)(i - 255));
}

void yk_detect_sigmoid_table(const yk_isa *isa, float scale, int32_t zp, float table[256]) {
  /* The same dequantize + sigmoid the unfused graph runs, once per possible int8 value. */
  for (int i = 0; i < 256; i++) table[i] = yk_dequantize1((int8_t)(i - 128), scale, zp);
  yk_unary_f32(isa, YK_UNARY_SIGMOID, 0.0f, table, table, 256);
}

/* Expected value of the bins under the softmax of each side's int8 logits, with the max pass
 * (scales where exp(s * (q - 127)) could underflow; without it: yk_detect_dfl_i8). The four sides
 * are accumulated side by side: four independent add chains instead of one long serial one (each
 * side still sums its bins in order). */
static void dfl_i8_max(const int8_t *q, int r, const float *t, const float *proj, float d[4]) {
  float sum[4] = {0}, acc[4] = {0};
  const float *tk[4];
  for (int k = 0; k < 4; k++) {
    const int8_t *qk = q + k * r;
    int m = qk[0];
    for (int j = 1; j < r; j++) m = qk[j] > m ? qk[j] : m;
    tk[k] = t + 255 - m; /* tk[k][q] = exp(s * (q - max)) */
  }
  for (int j = 0; j < r; j++)
    for (int k = 0; k < 4; k++) {
      const float e = tk[k][q[k * r + j]];
      sum[k] += e;
      acc[k] += proj[j] * e;
    }
  /* sum >= 1 (the max bin is exp(0)): never 0, never denormal */
  for (int k = 0; k < 4; k++) d[k] = acc[k] * (1.0f / sum[k]);
}

/* The no-max int8 DFL of n anchors from q into d [n][4]. */
static void dfl_i8(const yk_isa *isa, const int8_t *q, size_t n, int r, const float *t, const float *proj, float *d) {
  /* below 16 anchors the SIMD table split costs more */
  (n >= 16 ? YK_PICK(isa, detect_dfl_i8) : yk_detect_dfl_i8__scalar)(q, n, r, t, proj, d);
}

/* The four sides' expected bins (softmax rows a, r bins a row, against proj) side by side: four
 * independent add chains instead of four serial ones, each side still summed in bin order. */
static void dot4(const float *a, const float *proj, int r, float d[4]) {
  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int j = 0; j < r; j++)
    for (int k = 0; k < 4; k++) acc[k] += a[k * r + j] * proj[j];
  for (int k = 0; k < 4; k++) d[k] = acc[k];
}

/* Local anchors [l0, l0 + n) of scale sc, n <= block size, into columns [a0, a0 + n) of rows na
 * floats apart: boxes then scores. */
static void decode_block(const yk_isa *isa, const yk_detect_params *p, const yk_detect_scale *sc,
                         size_t l0, size_t n, float *y, size_t na, size_t a0, float *tmp) {
  const int r = p->reg_max, nc = p->nc;
  const int dfl_nomax = sc->box_exp && r > 1 && sc->box_no_max;
  if (!sc->box_exp && r > 1) yk_softmax_f32(isa, (const float *)sc->box + l0 * 4 * (size_t)r, tmp, n * 4, (size_t)r, 1);
  if (dfl_nomax) dfl_i8(isa, (const int8_t *)sc->box + l0 * 4 * (size_t)r, n, r, sc->box_exp, p->proj, tmp);
  for (size_t i = 0; i < n; i++) {
    float d[4];
    if (r == 1) /* no DFL: the distances themselves */
      for (int k = 0; k < 4; k++)
        d[k] = sc->box_exp ? sc->box_exp[((const int8_t *)sc->box)[(l0 + i) * 4 + (size_t)k] + 128]
                           : ((const float *)sc->box)[(l0 + i) * 4 + (size_t)k];
    else if (dfl_nomax)
      for (int k = 0; k < 4; k++) d[k] = tmp[i * 4 + (size_t)k];
    else if (sc->box_exp)
      dfl_i8_max((const int8_t *)sc->box + (l0 + i) * 4 * (size_t)r, r, sc->box_exp, p->proj, d);
    else
      dot4(tmp + i * 4 * (size_t)r, p->proj, r, d);
    const size_t li = l0 + i;
    const float ax = (float)(li % (size_t)sc->w) + 0.5f, ay = (float)(li / (size_t)sc->w) + 0.5f;
    /* The export's order of operations: Sub, Add, Add, Div 2, Sub, Mul stride. */
    const float x1 = ax - d[0], y1 = ay - d[1], x2 = ax + d[2], y2 = ay + d[3];
    float *o = y + a0 + i;
    if (p->xyxy) {
      o[0] = x1 * sc->stride;
      o[na] = y1 * sc->stride;
      o[2 * na] = x2 * sc->stride;
      o[3 * na] = y2 * sc->stride;
      continue;
    }
    o[0] = (x1 + x2) / 2.0f * sc->stride;
    o[na] = (y1 + y2) / 2.0f * sc->stride;
    o[2 * na] = (x2 - x1) * sc->stride;
    o[3 * na] = (y2 - y1) * sc->stride;
  }
  float *ys = y + 4 * na + a0;
  if (!sc->cls_sig) { /* int8 scores: the whole range at once (cls_i8) */
    yk_unary_f32(isa, YK_UNARY_SIGMOID, 0.0f, (const float *)sc->cls + l0 * (size_t)nc, tmp, n * (size_t)nc);
    /* anchor-major -> class-major: ys[c * na + i] = tmp[i * nc + c], 8 x 8 blocks on AVX2 (one
     * float a store made this loop most of the float decode) */
    YK_PICK(isa, transpose_f32_tile)((const uint32_t *)(const void *)tmp, nc, (uint32_t *)(void *)ys, (int64_t)na, nc,
                                     (int64_t)n);
  }
}

/* Int8 class scores of local anchors [l0, l0 + n) of scale sc. */
static void cls_i8(const yk_isa *isa, const yk_detect_params *p, const yk_detect_scale *sc, size_t l0, size_t n,
                   float *y, size_t na, size_t a0) {
  const int8_t *q = (const int8_t *)sc->cls + l0 * (size_t)p->nc;
  float *ys = y + 4 * na + a0;
  /* below 16 anchors the SIMD table split costs more */
  (n >= 16 ? YK_PICK(isa, detect_cls_i8) : yk_detect_cls_i8__scalar)(q, n, p->nc, sc->cls_sig, ys, na);
}

void yk_detect_decode(const yk_isa *isa, const yk_detect_params *p, size_t lo, size_t hi, float *y) {
  yk_detect_decode_cols(isa, p, lo, hi, y, p->n_anchors, lo);
}

void yk_detect_decode_cols(const yk_isa *isa, const yk_detect_params *p, size_t lo, size_t hi, float *y, size_t ys,
                           size_t col) {
  float tmp[SCRATCH];
  for (int s = 0; s < p->n_scales; s++) {
    const yk_detect_scale *sc = &p->s[s];
    /* tmp holds a block's float softmax rows or class scores (BLOCK_MAX anchors at most: the
     * rows stay in cache), or its int8 DFL distances (4 floats an anchor: long blocks, the
     * SIMD DFL's table split once per block) */
    size_t block = sc->box_exp && p->reg_max > 1 && sc->box_no_max ? SCRATCH / 4 : BLOCK_MAX;
    if (!sc->box_exp && SCRATCH / (4 * (size_t)p->reg_max) < block) block = SCRATCH / (4 * (size_t)p->reg_max);
    if (!sc->cls_sig && SCRATCH / (size_t)p->nc < block) {
      /* whole 8-anchor tiles of the class transpose (4096 / 80 = 51 left 3 a block to the
       * scalar edge, 10x the SIMD tiles' time) */
      block = SCRATCH / (size_t)p->nc;
      if (block >= 8) block = block / 8 * 8;
    }
    const size_t first = sc->first, last = first + (size_t)sc->h * (size_t)sc->w;
    const size_t b = lo > first ? lo : first, e = hi < last ? hi : last;
    for (size_t a = b; a < e; a += block)
      decode_block(isa, p, sc, a - first, e - a < block ? e - a : block, y, ys, col + (a - lo), tmp);
    if (sc->cls_sig && b < e) cls_i8(isa, p, sc, b - first, e - b, y, ys, col + (b - lo));
  }
}
