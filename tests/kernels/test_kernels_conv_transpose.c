/* test_kernels_conv_transpose.c — the float ConvTranspose kernel (yk_conv_transpose.h): the
 * row-gather form against the scatter reference, bit for bit (one summation order), and the
 * reference against a double-precision transcription of the ONNX definition written here, on odd
 * sizes, strides, pads, dilations, groups, output padding and row ranges; every variant the CPU
 * has (AVX2: blocks of 64, 32 and 8 channels and a tail). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "yk_conv_transpose.h"

static float frand(uint32_t *s) {
  *s = *s * 1664525u + 1013904223u;
  return (float)((*s >> 8) & 0xFFFF) / 32768.0f - 1.0f;
}

/* y[oy][ox][o] = b[o] + sum x[iy][ix][c] w[c][o - g cog][ky][kx] over oy = iy sh - pt + ky dh, ... */
static double naive(const yk_convt_params *p, const float *x, const float *w, const float *b, int oy, int ox, int o) {
  const int cig = p->ci / p->group, cog = p->co / p->group, g = o / cog;
  double acc = b ? b[o] : 0.0;
  for (int iy = 0; iy < p->h; iy++)
    for (int ix = 0; ix < p->w; ix++)
      for (int ky = 0; ky < p->kh; ky++)
        for (int kx = 0; kx < p->kw; kx++) {
          if (iy * p->sh - p->pt + ky * p->dh != oy || ix * p->sw - p->pl + kx * p->dw != ox) continue;
          for (int c = g * cig; c < (g + 1) * cig; c++)
            acc += (double)x[(iy * p->w + ix) * p->ci + c] * w[((c * cog + (o - g * cog)) * p->kh + ky) * p->kw + kx];
        }
  return acc;
}

static void check(yk_convt_params p, int bias) {
  assert_true(yk_conv_transpose_valid(&p));
  uint32_t seed = 7u + (uint32_t)(p.h * 31 + p.co);
  const size_t nx = (size_t)p.h * p.w * p.ci, nw = (size_t)p.ci * (p.co / p.group) * p.kh * p.kw,
               ny = (size_t)p.oh * p.ow * p.co;
  float *x = malloc(nx * 4), *w = malloc(nw * 4), *b = malloc((size_t)p.co * 4), *y = malloc(ny * 4),
        *r = malloc(ny * 4), *pk = malloc(yk_conv_transpose_packed_floats(&p) * 4);
  assert_non_null(x); assert_non_null(w); assert_non_null(b); assert_non_null(y); assert_non_null(r); assert_non_null(pk);
  for (size_t i = 0; i < nx; i++) x[i] = frand(&seed);
  for (size_t i = 0; i < nw; i++) w[i] = frand(&seed);
  for (int i = 0; i < p.co; i++) b[i] = frand(&seed);
  yk_conv_transpose_f32_ref(&p, x, w, bias ? b : NULL, r);
  yk_conv_transpose_pack(&p, w, pk);
  yk_isa isa;
  yk_isa_detect(&isa);
  for (int variant = 0; variant < 3; variant++) {
    memset(y, 0xAB, ny * 4);
    /* in uneven row ranges, as the pool's tasks */
    for (int lo = 0; lo < p.oh;) {
      const int hi = lo + 1 + lo % 3 < p.oh ? lo + 1 + lo % 3 : p.oh;
      if (variant == 0) yk_conv_transpose_f32_rows__scalar(&p, x, pk, bias ? b : NULL, y, lo, hi);
      else if (variant == 1) yk_conv_transpose_f32_rows(&isa, &p, x, pk, bias ? b : NULL, y, lo, hi);
#if YK_ARCH_X86_64
      else if (isa.avx2) yk_conv_transpose_f32_rows__avx2(&p, x, pk, bias ? b : NULL, y, lo, hi);
#endif
      else memcpy(y, r, ny * 4); /* no such variant here */
      lo = hi;
    }
    assert_memory_equal(y, r, ny * 4);
  }
  for (int oy = 0; oy < p.oh; oy++)
    for (int ox = 0; ox < p.ow; ox++)
      for (int o = 0; o < p.co; o++) {
        const double want = naive(&p, x, w, bias ? b : NULL, oy, ox, o);
        assert_true(fabs(r[(oy * p.ow + ox) * p.co + o] - want) <= 1e-4 * (1.0 + fabs(want)));
      }
  free(x); free(w); free(b); free(y); free(r); free(pk);
}

/* output extent: (in - 1) s - pt - pb + (k - 1) d + 1 + op */
static int ext(int in, int s, int pa, int pb, int k, int d, int op) { return (in - 1) * s - pa - pb + (k - 1) * d + 1 + op; }

static void test_upsample_2x2(void **state) { /* the segment prototype's: k 2, s 2 */
  (void)state;
  check((yk_convt_params){5, 7, 9, 10, 14, 11, 2, 2, 2, 2, 0, 0, 1, 1, 1}, 1);
  check((yk_convt_params){1, 1, 1, 2, 2, 1, 2, 2, 2, 2, 0, 0, 1, 1, 1}, 0);
  check((yk_convt_params){3, 5, 7, 6, 10, 45, 2, 2, 2, 2, 0, 0, 1, 1, 1}, 1); /* 32 + 8 + 5 channels */
  check((yk_convt_params){3, 3, 5, 6, 6, 109, 2, 2, 2, 2, 0, 0, 1, 1, 1}, 1); /* 64 + 32 + 8 + 5 */
  /* kernel = stride (one tap a pixel): 3x2, pads, output padding, groups, channels 16 + tail */
  check((yk_convt_params){5, 9, 4, ext(5, 3, 1, 0, 3, 1, 2), ext(9, 2, 1, 1, 2, 1, 1), 38, 3, 2, 3, 2, 1, 1, 1, 1, 2}, 1);
  check((yk_convt_params){2, 11, 3, 4, 22, 16, 2, 2, 2, 2, 0, 0, 1, 1, 1}, 0);
}

static void test_general(void **state) {
  (void)state;
  /* k 3x2, s 2x3, pads t1 l0 b0 r1, dilation 1x2, output padding 1x0 */
  check((yk_convt_params){5, 3, 3, ext(5, 2, 1, 0, 3, 1, 1), ext(3, 3, 0, 1, 2, 2, 0), 5, 3, 2, 2, 3, 1, 0, 1, 2, 1}, 1);
  /* groups 3, 6 -> 9, k 3, s 1, pad 1 */
  check((yk_convt_params){4, 6, 6, ext(4, 1, 1, 1, 3, 1, 0), ext(6, 1, 1, 1, 3, 1, 0), 9, 3, 3, 1, 1, 1, 1, 1, 1, 3}, 1);
  /* groups 2, 10 -> 82 (41 a group: 32 + 8 + 1) */
  check((yk_convt_params){3, 4, 10, ext(3, 2, 0, 0, 2, 1, 0), ext(4, 2, 0, 0, 2, 1, 0), 82, 2, 2, 2, 2, 0, 0, 1, 1, 2}, 0);
  /* stride larger than the kernel: rows that take the bias alone */
  check((yk_convt_params){3, 4, 2, ext(3, 3, 0, 0, 2, 1, 2), ext(4, 3, 0, 0, 2, 1, 0), 3, 2, 2, 3, 3, 0, 0, 1, 1, 1}, 1);
}

static void test_invalid(void **state) {
  (void)state;
  yk_convt_params p = {5, 7, 9, 10, 14, 11, 2, 2, 2, 2, 0, 0, 1, 1, 1};
  p.oh = 12; /* past the geometry's extent + stride - 1 */
  assert_false(yk_conv_transpose_valid(&p));
  p.oh = 10;
  p.group = 2; /* 9 input channels do not split */
  assert_false(yk_conv_transpose_valid(&p));
  p.group = 1;
  p.pt = -1;
  assert_false(yk_conv_transpose_valid(&p));
  assert_false(yk_conv_transpose_valid(NULL));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_upsample_2x2),
      cmocka_unit_test(test_general),
      cmocka_unit_test(test_invalid),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
