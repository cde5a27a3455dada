/* test_kernels_topk — the end-to-end head's selection (yk_detect_topk, and yk_detect_topk_rows with
 * extra rows: keypoints, mask coefficients, an angle) against Ultralytics' postprocess written
 * naively here (full stable sorts), with ties, k == n, one class. */
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
static void reference(const float *x, int nc, int ne, int n, int k, float *y) {
  const int cols = 6 + ne;
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
    for (int d = 0; d < 4; d++) y[j * cols + d] = x[(size_t)d * n + an];
    y[j * cols + 4] = p[j].v;
    y[j * cols + 5] = (float)(p[j].i % nc);
    for (int d = 0; d < ne; d++) y[j * cols + 6 + d] = x[(size_t)(4 + nc + d) * n + an]; /* gathered by idx */
  }
  free(a);
  free(p);
}

static void topk_matches_reference(void **state) {
  (void)state;
  /* nc, n, k, ne (extra rows: pose 51, segment 32, obb 1) */
  static const int cases[][4] = {{80, 2100, 300, 0}, {1, 50, 50, 51}, {3, 37, 5, 1}, {14, 400, 100, 32}, {2, 7, 7, 0},
                                 {5, 1, 1, 3}};
  uint32_t s = 12345;
  for (int t = 0; t < (int)(sizeof cases / sizeof cases[0]); t++) {
    const int nc = cases[t][0], n = cases[t][1], k = cases[t][2], ne = cases[t][3], cols = 6 + ne;
    float *x = malloc(sizeof(float) * (size_t)(4 + nc + ne) * n), *y0 = malloc(sizeof(float) * cols * (size_t)k),
          *y1 = malloc(sizeof(float) * cols * (size_t)k);
    void *scratch = malloc(yk_topk_scratch_bytes(nc, n, k));
    assert_non_null(x);
    assert_non_null(y0);
    assert_non_null(y1);
    assert_non_null(scratch);
    for (size_t i = 0; i < (size_t)(4 + nc + ne) * n; i++) {
      s = s * 1664525u + 1013904223u;
      /* few distinct score values: many ties, which must order as onnxruntime's TopK; the box
       * and extra rows distinct, so a wrong anchor shows */
      const int score_row = i >= 4 * (size_t)n && i < (size_t)(4 + nc) * n;
      x[i] = !score_row ? (float)(s >> 8) / 65536.0f : (float)((s >> 24) % (t % 2 ? 5 : 200)) / 200.0f;
    }
    reference(x, nc, ne, n, k, y0);
    if (ne)
      yk_detect_topk_rows(x, nc, ne, n, k, y1, scratch);
    else
      yk_detect_topk(x, nc, n, k, y1, scratch);
    if (memcmp(y0, y1, sizeof(float) * cols * (size_t)k) != 0)
      fail_msg("case %d (nc %d n %d k %d ne %d) differs", t, nc, n, k, ne);
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
