/* test_kernels_conv_transpose_s8.c — the int8 ConvTranspose kernel (yk_conv_transpose.h): the
 * scatter reference against a transcription of the definition written here (int64 sums, float
 * requantization as the int8 conv's), and every row variant (portable, AVX2 when the CPU has it)
 * against the reference bit for bit, on odd sizes and channel counts (pairs with a missing odd
 * channel, the AVX2 blocks of 64, 32, 8 and a tail), strides, pads, dilations, groups, output
 * padding, uneven row ranges, and saturating values (-128 / 127 everywhere, output clamped). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "yk_conv_transpose.h"
#include "yk_qconv.h"

static uint32_t next(uint32_t *s) {
  *s = *s * 1664525u + 1013904223u;
  return *s >> 8;
}

/* One output value from the definition: oy = iy sh - pt + ky dh (likewise x). */
static int8_t naive(const yk_convt_params *p, const yk_convt_q8 *q, const int8_t *x, const int8_t *w, int oy, int ox,
                    int o) {
  const int cig = p->ci / p->group, cog = p->co / p->group, g = o / cog;
  int64_t acc = q->bias ? q->bias[o] : 0;
  for (int iy = 0; iy < p->h; iy++)
    for (int ix = 0; ix < p->w; ix++)
      for (int ky = 0; ky < p->kh; ky++)
        for (int kx = 0; kx < p->kw; kx++) {
          if (iy * p->sh - p->pt + ky * p->dh != oy || ix * p->sw - p->pl + kx * p->dw != ox) continue;
          for (int c = g * cig; c < (g + 1) * cig; c++)
            acc += (int64_t)(x[(iy * p->w + ix) * p->ci + c] - q->x_zp) *
                   w[((c * cog + (o - g * cog)) * p->kh + ky) * p->kw + kx];
        }
  assert_true(acc >= INT32_MIN && acc <= INT32_MAX);
  float v = (float)acc * q->scale[o];
  v = fminf(fmaxf(v, (float)(-128 - q->y_zp)), (float)(127 - q->y_zp));
  return (int8_t)((int32_t)nearbyintf(v) + q->y_zp);
}

/* sat: 0 random values; 1 every x and w at -128 / 127 alternating with large scales (clamps). */
static void check(yk_convt_params p, int bias, int sat, int32_t x_zp, int32_t y_zp) {
  assert_true(yk_conv_transpose_valid(&p));
  uint32_t seed = 11u + (uint32_t)(p.h * 37 + p.co * 5 + sat);
  const size_t nx = (size_t)p.h * p.w * p.ci, nw = (size_t)p.ci * (p.co / p.group) * p.kh * p.kw,
               ny = (size_t)p.oh * p.ow * p.co;
  int8_t *x = malloc(nx), *w = malloc(nw), *y = malloc(ny), *r = malloc(ny);
  int32_t *b = malloc((size_t)p.co * 4), *acc = malloc(ny * 4);
  float *sc = malloc((size_t)p.co * 4);
  int16_t *pk = malloc(yk_conv_transpose_s8_packed_elems(&p) * 2);
  assert_true(x && w && y && r && b && acc && sc && pk);
  for (size_t i = 0; i < nx; i++) x[i] = sat ? (int8_t)(i % 3 ? -128 : 127) : (int8_t)(next(&seed) & 0xFF);
  for (size_t i = 0; i < nw; i++) w[i] = sat ? (int8_t)(i % 2 ? -128 : 127) : (int8_t)(next(&seed) & 0xFF);
  for (int i = 0; i < p.co; i++) {
    b[i] = (int32_t)(next(&seed) % 20001) - 10000;
    sc[i] = (sat ? 0.05f : 0.0004f) * (float)(1 + next(&seed) % 97) / 97.0f;
  }
  const yk_convt_q8 q = {x_zp, y_zp, bias ? b : NULL, sc};
  yk_conv_transpose_s8_ref(&p, &q, x, w, acc, r);
  int clamped = 0;
  for (int oy = 0; oy < p.oh; oy++)
    for (int ox = 0; ox < p.ow; ox++)
      for (int o = 0; o < p.co; o++) {
        const int8_t want = naive(&p, &q, x, w, oy, ox, o);
        assert_int_equal(r[(oy * p.ow + ox) * p.co + o], want);
        clamped += want == -128 || want == 127;
      }
  if (sat) assert_true(clamped > 0);
  yk_conv_transpose_s8_pack(&p, w, pk);
  yk_isa isa;
  yk_isa_detect(&isa);
  for (int variant = 0; variant < 3; variant++) {
    memset(y, 0x5A, ny);
    for (int lo = 0; lo < p.oh;) { /* uneven row ranges, as the pool's tasks */
      const int hi = lo + 1 + lo % 3 < p.oh ? lo + 1 + lo % 3 : p.oh;
      if (variant == 0) yk_conv_transpose_s8_rows__scalar(&p, &q, x, pk, y, lo, hi);
      else if (variant == 1) yk_conv_transpose_s8_rows(&isa, &p, &q, x, pk, y, lo, hi);
#if YK_ARCH_X86_64
      else if (isa.avx2) yk_conv_transpose_s8_rows__avx2(&p, &q, x, pk, y, lo, hi);
#endif
      else memcpy(y, r, ny); /* no such variant here */
      lo = hi;
    }
    assert_memory_equal(y, r, ny);
  }
  free(x); free(w); free(y); free(r); free(b); free(acc); free(sc); free(pk);
}

static int ext(int in, int s, int pa, int pb, int k, int d, int op) { return (in - 1) * s - pa - pb + (k - 1) * d + 1 + op; }

static void test_upsample_2x2(void **state) { /* the segment prototype's: k 2, s 2 */
  (void)state;
  check((yk_convt_params){5, 7, 9, 10, 14, 11, 2, 2, 2, 2, 0, 0, 1, 1, 1}, 1, 0, -3, 5);
  check((yk_convt_params){1, 1, 1, 2, 2, 1, 2, 2, 2, 2, 0, 0, 1, 1, 1}, 0, 0, 0, 0);
  check((yk_convt_params){3, 5, 7, 6, 10, 45, 2, 2, 2, 2, 0, 0, 1, 1, 1}, 1, 0, 17, -20); /* 32 + 8 + 5 */
  check((yk_convt_params){3, 3, 64, 6, 6, 109, 2, 2, 2, 2, 0, 0, 1, 1, 1}, 1, 0, -128, 127); /* 64 + 32 + 8 + 5 */
  check((yk_convt_params){4, 3, 65, 8, 6, 64, 2, 2, 2, 2, 0, 0, 1, 1, 1}, 1, 0, 127, -128);
}

static void test_general(void **state) {
  (void)state;
  /* k 3x2, s 2x3, pads t1 l0 b0 r1, dilation 1x2, output padding 1x0 */
  check((yk_convt_params){5, 3, 3, ext(5, 2, 1, 0, 3, 1, 1), ext(3, 3, 0, 1, 2, 2, 0), 5, 3, 2, 2, 3, 1, 0, 1, 2, 1}, 1, 0, 4, -1);
  /* groups 3, 6 -> 9 (2 channels a group: one pair), k 3, s 1, pad 1 */
  check((yk_convt_params){4, 6, 6, ext(4, 1, 1, 1, 3, 1, 0), ext(6, 1, 1, 1, 3, 1, 0), 9, 3, 3, 1, 1, 1, 1, 1, 1, 3}, 1, 0, 0, 3);
  /* groups 2, 10 -> 82 (5 channels a group: an odd pair; 41 outputs: 32 + 8 + 1) */
  check((yk_convt_params){3, 4, 10, ext(3, 2, 0, 0, 2, 1, 0), ext(4, 2, 0, 0, 2, 1, 0), 82, 2, 2, 2, 2, 0, 0, 1, 1, 2}, 0, 0, -7, 0);
  /* stride larger than the kernel: rows that take the bias alone */
  check((yk_convt_params){3, 4, 2, ext(3, 3, 0, 0, 2, 1, 2), ext(4, 3, 0, 0, 2, 1, 0), 3, 2, 2, 3, 3, 0, 0, 1, 1, 1}, 1, 0, 1, 1);
  /* kernel = stride with pads and output padding, 3x2 */
  check((yk_convt_params){5, 9, 4, ext(5, 3, 1, 0, 3, 1, 2), ext(9, 2, 1, 1, 2, 1, 1), 38, 3, 2, 3, 2, 1, 1, 1, 1, 2}, 1, 0, 2, -2);
}

static void test_saturating(void **state) {
  (void)state;
  /* x, w at -128 / 127, the zero point at the far end: |x - x_zp| = 255, sums near the bound */
  check((yk_convt_params){3, 5, 33, 6, 10, 41, 2, 2, 2, 2, 0, 0, 1, 1, 1}, 1, 1, 127, -128);
  check((yk_convt_params){4, 4, 19, ext(4, 1, 1, 1, 3, 1, 0), ext(4, 1, 1, 1, 3, 1, 0), 72, 3, 3, 1, 1, 1, 1, 1, 1, 1}, 1, 1, -128, 127);
  check((yk_convt_params){3, 3, 7, 6, 6, 16, 2, 2, 2, 2, 0, 0, 1, 1, 1}, 0, 1, 0, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_upsample_2x2),
      cmocka_unit_test(test_general),
      cmocka_unit_test(test_saturating),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
