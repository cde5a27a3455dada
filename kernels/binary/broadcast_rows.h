/* broadcast_rows.h — internal: numpy broadcasting reduced to rows. Dims of size 1 in y are dropped and
 * neighbours with the same broadcast pattern merged, so the last (row) dim is as long as
 * possible; every variant walks the same rows, and a row with unit strides is contiguous. */
#ifndef YOLORT_YK_BROADCAST_ROWS_H
#define YOLORT_YK_BROADCAST_ROWS_H

#include "yk.h"

typedef struct yk_bcast {
  int rank;                /* >= 1 */
  int64_t d[YK_MAX_RANK];  /* merged output dims */
  int64_t sa[YK_MAX_RANK]; /* element strides of a and b per merged dim, 0 = broadcast */
  int64_t sb[YK_MAX_RANK];
  int64_t total;           /* elements of y */
} yk_bcast;

/* Shapes of a and b are right-aligned to y's (missing leading dims count as 1). */
void yk_bcast_init(yk_bcast *bc, const yk_shape *sa, const yk_shape *sb, const yk_shape *sy);

/* Odometer over all dims but the last; idx starts zeroed, offsets at 0. */
static inline void yk_bcast_next_row(const yk_bcast *bc, int64_t *idx, int64_t *oa, int64_t *ob) {
  for (int k = bc->rank - 2; k >= 0; k--) {
    *oa += bc->sa[k];
    *ob += bc->sb[k];
    if (++idx[k] < bc->d[k]) return;
    *oa -= bc->sa[k] * bc->d[k];
    *ob -= bc->sb[k] * bc->d[k];
    idx[k] = 0;
  }
}

/* Cursor over y's rows in order: row r is y[r * n .. r * n + n) and reads a from offset oa
 * and b from offset ob with the last merged dim's strides. Every broadcast kernel walks this:
 *   for (yk_bcast_rows w = yk_bcast_rows_begin(&bc); w.r < w.rows; yk_bcast_rows_next(&bc, &w))
 * An empty y (total <= 0) has no rows. */
typedef struct yk_bcast_rows {
  int64_t r, rows, n;         /* row index, row count, row length */
  int64_t oa, ob;             /* element offsets of row r in a and b */
  int64_t idx[YK_MAX_RANK];   /* odometer for yk_bcast_next_row */
} yk_bcast_rows;

static inline yk_bcast_rows yk_bcast_rows_begin(const yk_bcast *bc) {
  yk_bcast_rows w = {0, 0, 0, 0, 0, {0}};
  if (bc->total > 0) {
    w.n = bc->d[bc->rank - 1];
    w.rows = bc->total / w.n;
  }
  return w;
}

static inline void yk_bcast_rows_next(const yk_bcast *bc, yk_bcast_rows *w) {
  w->r++;
  yk_bcast_next_row(bc, w->idx, &w->oa, &w->ob);
}

#endif /* YOLORT_YK_BROADCAST_ROWS_H */
