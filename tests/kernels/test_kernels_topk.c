/* test_kernels_topk — the end-to-end head's selection (yk_detect_topk) against Ultralytics'
 * postprocess written naively here (full stable sorts), with ties, k == n, one class, and the
 * per-anchor range yk_minmax_f32 (dynamic quantization) against a plain loop, and its SIMD
 * variants bit for bit against the reference. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "yk.h"
#include "yk_topk.h"
#include "yk_variants.h"

typedef struct item { float v; int i; } item;

static int cmp_item(const void *a, const void *b) {
  const item *x = a, *y = b;
  if (x->v != y->v) return x->v > y->v ? -1 : 1;
  return x->i < y->i ? -1 : x->i > y->i;
}

/* torch: best = scores.amax(-1); idx = best.topk(k); pairs = scores[idx].flatten().topk(k) */
static void reference(const float *x, int nc, int n, int k, float *y) {
  item *a = malloc(sizeof(item) * (size_t)n), *p = malloc(sizeof(item) * (size_t)k * nc);
  assert_non_null(a);
  assert_non_null(p);
  for (int j = 0; j < n; j++) {
    float m = x[4 * (size_t)n + j];
    for (int c = 1; c < nc; c++) m = fmaxf(m, x[(size_t)(4 + c) * n + j]);
    a[j] = (item){m, j};
  }
  qsort(a, (size_t)n, sizeof(item), cmp_item);
  for (int r = 0; r < k; r++)
    for (int c = 0; c < nc; c++) p[r * nc + c] = (item){x[(size_t)(4 + c) * n + a[r].i], r * nc + c};
  qsort(p, (size_t)k * nc, sizeof(item), cmp_item);
  for (int j = 0; j < k; j++) {
    const int an = a[p[j].i / nc].i;
    for (int d = 0; d < 4; d++) y[j * 6 + d] = x[(size_t)d * n + an];
    y[j * 6 + 4] = p[j].v;
    y[j * 6 + 5] = (float)(p[j].i % nc);
  }
  free(a);
  free(p);
}

static void topk_matches_reference(void **state) {
  (void)state;
  static const int cases[][3] = {{80, 2100, 300}, {1, 50, 50}, {3, 37, 5}, {14, 400, 100}, {2, 7, 7}, {5, 1, 1}};
  uint32_t s = 12345;
  for (int t = 0; t < (int)(sizeof cases / sizeof cases[0]); t++) {
    const int nc = cases[t][0], n = cases[t][1], k = cases[t][2];
    float *x = malloc(sizeof(float) * (size_t)(4 + nc) * n), *y0 = malloc(sizeof(float) * 6 * (size_t)k),
          *y1 = malloc(sizeof(float) * 6 * (size_t)k);
    void *scratch = malloc(yk_topk_scratch_bytes(nc, n, k));
    assert_non_null(x);
    assert_non_null(y0);
    assert_non_null(y1);
    assert_non_null(scratch);
    for (size_t i = 0; i < (size_t)(4 + nc) * n; i++) {
      s = s * 1664525u + 1013904223u;
      /* few distinct score values: many ties, which must order as onnxruntime's TopK */
      x[i] = i < 4 * (size_t)n ? (float)(s >> 8) / 65536.0f : (float)((s >> 24) % (t % 2 ? 5 : 200)) / 200.0f;
    }
    reference(x, nc, n, k, y0);
    yk_detect_topk(x, nc, n, k, y1, scratch);
    if (memcmp(y0, y1, sizeof(float) * 6 * (size_t)k) != 0) fail_msg("case %d (nc %d n %d k %d) differs", t, nc, n, k);
    free(x);
    free(y0);
    free(y1);
    free(scratch);
  }
}

static void minmax(void **state) {
  (void)state;
  yk_isa isa;
  yk_isa_detect(&isa);
  float x[37];
  for (int i = 0; i < 37; i++) x[i] = (float)((i * 7919) % 101) - 40.0f;
  for (size_t n = 0; n <= 37; n++) {
    float lo, hi, l = n ? x[0] : 0.0f, h = l;
    for (size_t i = 0; i < n; i++) l = fminf(l, x[i]), h = fmaxf(h, x[i]);
    yk_minmax_f32(&isa, x, n, &lo, &hi);
    assert_true(lo == l && hi == h);
  }
  x[0] = NAN; /* skipped */
  float lo, hi;
  yk_minmax_f32(&isa, x, 37, &lo, &hi);
  assert_false(isnan(lo) || isnan(hi));
}

/* Each SIMD variant against the reference bit for bit (memcmp: the sign of a zero counts) on
 * odd lengths, NaNs anywhere (first element too), +-0, infinities and extreme values. */
static void minmax_variants_exact(void **state) {
  (void)state;
  yk_isa isa;
  yk_isa_detect(&isa);
  enum { N = 203 };
  float x[N];
  uint32_t s = 7;
  const float special[] = {NAN, -0.0f, 0.0f, INFINITY, -INFINITY, 3.4e38f, -3.4e38f, 1e-45f};
  for (int t = 0; t < 64; t++) {
    for (int i = 0; i < N; i++) {
      s = s * 1664525u + 1013904223u;
      x[i] = (s >> 28) < 3 ? special[(s >> 8) % 8] : (t % 4 == 0 ? ((s >> 8) % 2 ? -0.0f : 0.0f)
                                                                  : (float)((int32_t)(s >> 8) - (1 << 23)) / 1024.0f);
    }
    for (size_t off = 0; off < 3; off++)
      for (size_t n = 0; n + off <= N; n += (n < 40 ? 1 : 17)) {
        float l0, h0;
        yk_minmax_f32__scalar(x + off, n, &l0, &h0);
#if YK_ARCH_X86_64
        if (isa.avx2) {
          float l1, h1;
          yk_minmax_f32__avx2(x + off, n, &l1, &h1);
          if (memcmp(&l0, &l1, 4) != 0 || memcmp(&h0, &h1, 4) != 0)
            fail_msg("avx2 t %d off %zu n %zu: %g %g vs %g %g", t, off, n, l1, h1, l0, h0);
        }
#endif
        float l2, h2;
        yk_minmax_f32(&isa, x + off, n, &l2, &h2);
        if (memcmp(&l0, &l2, 4) != 0 || memcmp(&h0, &h2, 4) != 0) fail_msg("dispatch t %d n %zu", t, n);
      }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(topk_matches_reference), cmocka_unit_test(minmax),
                                     cmocka_unit_test(minmax_variants_exact)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
