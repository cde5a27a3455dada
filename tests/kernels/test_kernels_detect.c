/* test_kernels_detect.c — the Detect decode's int8 kernels. Class scores: the scalar reference
 * against a naive loop, and the AVX-512 VBMI variant bit-exact against it on odd anchor counts
 * (whole 16-anchor steps, a tail, fewer than 16), class counts that are and are not multiples of
 * 4, odd row strides, a misaligned input, every int8 value and table entries of arbitrary bits
 * (NaN payloads, -0, denormals: the lookup must copy bits, not compute); the AVX2 variant (blocks of
 * anchors, 4 classes a load) the same way. DFL (no max pass): the
 * variant bit-exact against the scalar one for odd anchor counts, reg_max 16 / 4 / 8 and 6 (not a
 * multiple of 4: scalar fallback), an exp table of the real kind, arbitrary projection weights.
 * Threshold scan (yk_detect_over_*): the reference against a per-anchor loop, every variant the CPU
 * has bit-exact with it, on odd anchor and class counts, sparse and dense hits, hits on an
 * anchor's last value and the block's last value, thresholds at both int8 ends, and floats with
 * NaN, infinities, -0 and denormals. */
#include "kt_common.h"

static void cls_i8_variants_match(void **state) {
  (void)state;
  yk_isa isa;
  yk_isa_detect(&isa);
  kt_rng r = {0x5eedf00dULL};
  float t[256];
  for (int i = 0; i < 256; i++) {
    const uint32_t bits = kt_u32(&r) ^ (kt_u32(&r) << 16);
    memcpy(&t[i], &bits, 4);
  }
  static const size_t ns[] = {1, 15, 16, 17, 31, 51, 100, 333, 600};
  static const int ncs[] = {80, 3, 4, 7, 81, 1};
  for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
    for (size_t b = 0; b < sizeof ncs / sizeof ncs[0]; b++) {
      const size_t n = ns[a], ys = n + 3;
      const int nc = ncs[b];
      void *qb, *y0b, *y1b;
      int8_t *q = kt_alloc(n * (size_t)nc, 5, &qb);
      float *y0 = kt_alloc((size_t)nc * ys * 4, 0, &y0b), *y1 = kt_alloc((size_t)nc * ys * 4, 0, &y1b);
      assert_non_null(q);
      assert_non_null(y0);
      assert_non_null(y1);
      kt_fill_i8(&r, q, n * (size_t)nc);
      q[0] = -128;
      q[n * (size_t)nc - 1] = 127;
      yk_detect_cls_i8__scalar(q, n, nc, t, y0, ys);
      for (int c = 0; c < nc; c++)
        for (size_t i = 0; i < n; i++)
          assert_memory_equal(&y0[(size_t)c * ys + i], &t[q[i * (size_t)nc + (size_t)c] + 128], 4);
#if YK_ARCH_X86_64
      if (isa.avx512 && isa.avx512vbmi) {
        yk_detect_cls_i8__avx512vbmi(q, n, nc, t, y1, ys);
        /* the gaps between rows (ys > n) keep their fill in both */
        assert_memory_equal(y0, y1, (size_t)nc * ys * 4);
      } else {
        print_message("no AVX-512 VBMI: variant skipped\n");
      }
      if (isa.avx2) {
        memset(y1, 0xA5, (size_t)nc * ys * 4);
        yk_detect_cls_i8__avx2(q, n, nc, t, y1, ys);
        assert_memory_equal(y0, y1, (size_t)nc * ys * 4);
      }
#endif
      free(qb);
      free(y0b);
      free(y1b);
    }
}

static void dfl_i8_variants_match(void **state) {
  (void)state;
  yk_isa isa;
  yk_isa_detect(&isa);
  kt_rng r = {0xd1f1ULL};
  float t[256], proj[16];
  for (int i = 0; i < 256; i++) t[i] = expf(0.11f * (float)(i - 255));
  for (int j = 0; j < 16; j++) proj[j] = kt_float(&r, -3.0f, 20.0f);
  static const size_t ns[] = {1, 15, 16, 17, 33, 100, 1025};
  static const int rs[] = {16, 4, 8, 6};
  for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
    for (size_t b = 0; b < sizeof rs / sizeof rs[0]; b++) {
      const size_t n = ns[a], bytes = n * 4 * (size_t)rs[b];
      void *qb, *d0b, *d1b;
      int8_t *q = kt_alloc(bytes, 3, &qb);
      float *d0 = kt_alloc(n * 16, 0, &d0b), *d1 = kt_alloc(n * 16, 0, &d1b);
      assert_non_null(q);
      assert_non_null(d0);
      assert_non_null(d1);
      kt_fill_i8(&r, q, bytes);
      q[0] = -128;
      q[bytes - 1] = 127;
      yk_detect_dfl_i8__scalar(q, n, rs[b], t, proj, d0);
      /* spot check of the reference: anchor 0, side 0 in double */
      double sum = 0.0, acc = 0.0;
      for (int j = 0; j < rs[b]; j++) {
        sum += t[q[j] + 128];
        acc += (double)proj[j] * t[q[j] + 128];
      }
      assert_true(fabs(d0[0] - acc / sum) <= 1e-4 * (1.0 + fabs(acc / sum)));
#if YK_ARCH_X86_64
      if (isa.avx512 && isa.avx512vbmi) {
        yk_detect_dfl_i8__avx512vbmi(q, n, rs[b], t, proj, d1);
        assert_memory_equal(d0, d1, n * 16);
      }
#endif
      free(qb);
      free(d0b);
      free(d1b);
    }
}

/* The scan's meaning, written the slow way: anchor a is listed iff some value of it is over. */
static size_t over_naive_i8(const int8_t *q, size_t n, int nc, int8_t t, int32_t base, int32_t *list) {
  size_t k = 0;
  for (size_t a = 0; a < n; a++)
    for (int c = 0; c < nc; c++)
      if (q[a * (size_t)nc + (size_t)c] > t) {
        list[k++] = base + (int32_t)a;
        break;
      }
  return k;
}
static size_t over_naive_f32(const float *x, size_t n, int nc, float t, int32_t base, int32_t *list) {
  size_t k = 0;
  for (size_t a = 0; a < n; a++)
    for (int c = 0; c < nc; c++)
      if (!(x[a * (size_t)nc + (size_t)c] < t)) {
        list[k++] = base + (int32_t)a;
        break;
      }
  return k;
}

typedef size_t (*over_i8_fn)(const int8_t *, size_t, int, int8_t, int32_t, int32_t *);
typedef size_t (*over_f32_fn)(const float *, size_t, int, float, int32_t, int32_t *);

static void over_variants_match(void **state) {
  (void)state;
  yk_isa isa;
  yk_isa_detect(&isa);
  over_i8_fn vi8[4] = {0};
  over_f32_fn vf32[4] = {0};
  int nv = 0;
#if YK_ARCH_X86_64
  if (isa.avx2) vi8[nv] = yk_detect_over_i8__avx2, vf32[nv++] = yk_detect_over_f32__avx2;
  if (isa.avx512) vi8[nv] = yk_detect_over_i8__avx512, vf32[nv++] = yk_detect_over_f32__avx512;
#elif YK_ARCH_AARCH64
  if (isa.neon) vi8[nv] = yk_detect_over_i8__neon, vf32[nv++] = yk_detect_over_f32__neon;
#elif YK_ARCH_ARMV7
  if (isa.neon) vi8[nv++] = yk_detect_over_i8__neon; /* integer only on ARMv7 */
#endif
  if (!nv) print_message("no SIMD variant on this CPU: reference only\n");
  kt_rng r = {0x0afe0ULL};
  static const size_t ns[] = {1, 3, 15, 16, 17, 64, 100, 333};
  static const int ncs[] = {80, 1, 3, 5, 16, 64, 81};
  /* hit density: one value in `every` is put over the threshold (0: none) */
  static const int every[] = {0, 1, 7, 97, 5000};
  static const int8_t ts[] = {-128, -3, 50, 126, 127};
  for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
    for (size_t b = 0; b < sizeof ncs / sizeof ncs[0]; b++)
      for (size_t h = 0; h < sizeof every / sizeof every[0]; h++)
        for (size_t u = 0; u < sizeof ts / sizeof ts[0]; u++) {
          const size_t n = ns[a], total = n * (size_t)ncs[b];
          const int8_t t = ts[u];
          void *qb, *xb;
          int8_t *q = kt_alloc(total, 1, &qb);
          float *x = kt_alloc(total * 4, 4, &xb);
          int32_t *l0 = malloc(n * 4), *l1 = malloc(n * 4);
          assert_non_null(q);
          assert_non_null(x);
          assert_non_null(l0);
          assert_non_null(l1);
          const float tf = (float)t * 0.25f;
          for (size_t i = 0; i < total; i++) {
            const int over = every[h] && kt_u32(&r) % (uint32_t)every[h] == 0;
            q[i] = over && t < 127 ? (int8_t)kt_int(&r, t + 1, 127) : (int8_t)kt_int(&r, -128, t);
            x[i] = over ? tf + kt_float(&r, 0.0f, 3.0f) : tf - kt_float(&r, 1e-6f, 30.0f);
          }
          if (h == 2) { /* an anchor's last value, the block's last value, special floats */
            q[total - 1] = t < 127 ? 127 : t;
            x[total - 1] = tf;
            x[0] = -0.0f;
            if (total > 9) {
              x[5] = -INFINITY;
              x[7] = NAN;
              x[9] = INFINITY;
              x[3] = -1e-40f;
            }
          }
          const size_t k0 = yk_detect_over_i8__scalar(q, n, ncs[b], t, 7, l0);
          assert_int_equal(k0, over_naive_i8(q, n, ncs[b], t, 7, l1));
          assert_memory_equal(l0, l1, k0 * 4);
          for (int v = 0; v < nv; v++) {
            memset(l1, 0xee, n * 4);
            assert_int_equal(vi8[v](q, n, ncs[b], t, 7, l1), k0);
            assert_memory_equal(l0, l1, k0 * 4);
          }
          /* float, and a threshold that is itself -0 (-0 < 0 is false: over) */
          const float tfs[2] = {tf, -0.0f};
          for (int f = 0; f < 2; f++) {
            const size_t j0 = yk_detect_over_f32__scalar(x, n, ncs[b], tfs[f], 0, l0);
            assert_int_equal(j0, over_naive_f32(x, n, ncs[b], tfs[f], 0, l1));
            assert_memory_equal(l0, l1, j0 * 4);
            for (int v = 0; v < nv; v++) {
              if (!vf32[v]) continue;
              memset(l1, 0xee, n * 4);
              assert_int_equal(vf32[v](x, n, ncs[b], tfs[f], 0, l1), j0);
              assert_memory_equal(l0, l1, j0 * 4);
            }
          }
          free(qb);
          free(xb);
          free(l0);
          free(l1);
        }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(cls_i8_variants_match), cmocka_unit_test(dfl_i8_variants_match),
                                     cmocka_unit_test(over_variants_match)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
