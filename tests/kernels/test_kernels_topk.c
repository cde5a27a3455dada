/* test_kernels_topk — the end-to-end head's selection (yk_detect_topk) against Ultralytics'
 * postprocess written naively here (full stable sorts), with ties, k == n, one class. */
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

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(topk_matches_reference)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
