/* detect_topk.c — the end-to-end head's two top-k selections (yk_topk.h). */
#include "yk_topk.h"

#include <stdint.h>
#include <string.h>

typedef struct topk_item {
  float v;
  int32_t i;
} topk_item;

/* a before b: larger value, then lower index (a strict total order, as onnxruntime's TopK). */
static int before(topk_item a, topk_item b) { return a.v > b.v || (a.v == b.v && a.i < b.i); }

static void swap_items(topk_item *a, topk_item *b) {
  topk_item t = *a;
  *a = *b;
  *b = t;
}

/* Reorder it[0..n) so that its first k items are the k best (in any order): quickselect with a
 * median-of-three pivot, O(n) expected. */
static void select_k(topk_item *it, int n, int k) {
  int lo = 0, hi = n - 1;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (before(it[mid], it[lo])) swap_items(&it[mid], &it[lo]);
    if (before(it[hi], it[lo])) swap_items(&it[hi], &it[lo]);
    if (before(it[hi], it[mid])) swap_items(&it[hi], &it[mid]);
    const topk_item pivot = it[mid];
    int i = lo, j = hi;
    while (i <= j) {
      /* bounded: a NaN score breaks the order, never the loop */
      while (i < hi && before(it[i], pivot)) i++;
      while (j > lo && before(pivot, it[j])) j--;
      if (i <= j) swap_items(&it[i++], &it[j--]);
    }
    if (k - 1 <= j) hi = j;
    else if (k - 1 >= i) lo = i;
    else return;
  }
}

/* Insertion sort of the k survivors (k is a few hundred): no recursion, no allocation. */
static void sort_items(topk_item *it, int n) {
  for (int a = 1; a < n; a++) {
    const topk_item v = it[a];
    int b = a - 1;
    for (; b >= 0 && before(v, it[b]); b--) it[b + 1] = it[b];
    it[b + 1] = v;
  }
}

size_t yk_topk_scratch_bytes(int nc, int n, int k) {
  if (nc < 1 || n < 1 || k < 1) return 0;
  const size_t pairs = (size_t)k * (size_t)nc;
  return ((size_t)n > pairs ? (size_t)n : pairs) * sizeof(topk_item) + (size_t)n * sizeof(float);
}

void yk_detect_topk_rows(const float *x, int nc, int ne, int n, int k, float *y, void *scratch) {
  topk_item *it = scratch;
  float *best = (float *)((char *)scratch + yk_topk_scratch_bytes(nc, n, k) - (size_t)n * sizeof(float));
  const float *cls = x + 4 * (size_t)n;
  /* per-anchor maximum, row by row so the reads stay sequential */
  memcpy(best, cls, (size_t)n * sizeof(float));
  for (int c = 1; c < nc; c++) {
    const float *row = cls + (size_t)c * n;
    for (int a = 0; a < n; a++) best[a] = row[a] > best[a] ? row[a] : best[a];
  }
  for (int a = 0; a < n; a++) it[a] = (topk_item){best[a], a};
  select_k(it, n, k);
  sort_items(it, k);
  /* the anchors in rank order; their (rank, class) pairs after them in the scratch */
  int32_t *anchor = (int32_t *)best; /* best[] is no longer needed: k <= n slots */
  for (int r = 0; r < k; r++) anchor[r] = it[r].i;
  for (int r = 0; r < k; r++)
    for (int c = 0; c < nc; c++) it[(size_t)r * nc + c] = (topk_item){cls[(size_t)c * n + anchor[r]], r * nc + c};
  select_k(it, k * nc, k);
  sort_items(it, k);
  for (int j = 0; j < k; j++) {
    const int a = anchor[it[j].i / nc];
    float *o = y + (size_t)j * (size_t)(6 + ne);
    for (int d = 0; d < 4; d++) o[d] = x[(size_t)d * n + a];
    o[4] = it[j].v;
    o[5] = (float)(it[j].i % nc);
    for (int d = 0; d < ne; d++) o[6 + d] = x[(size_t)(4 + nc + d) * n + a];
  }
}

void yk_detect_topk(const float *x, int nc, int n, int k, float *y, void *scratch) {
  yk_detect_topk_rows(x, nc, 0, n, k, y, scratch);
}
