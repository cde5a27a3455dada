/* broadcast_rows.c — broadcasting shapes collapsed to the fewest, longest rows. */
#include "broadcast_rows.h"

static int64_t aligned_dim(const yk_shape *s, int ry, int k) {
  int r = s->rank < 0 ? 0 : (s->rank > YK_MAX_RANK ? YK_MAX_RANK : s->rank);
  int ks = k - (ry - r);
  return ks >= 0 ? s->d[ks] : 1;
}

void yk_bcast_init(yk_bcast *bc, const yk_shape *sa, const yk_shape *sb, const yk_shape *sy) {
  int ry = sy->rank < 0 ? 0 : (sy->rank > YK_MAX_RANK ? YK_MAX_RANK : sy->rank);
  int ba_l[YK_MAX_RANK], bb_l[YK_MAX_RANK];
  int r = 0;
  bc->total = 1;
  for (int k = 0; k < ry; k++) {
    int64_t dy = sy->d[k];
    bc->total *= dy;
    if (dy == 1) continue;
    int ba = aligned_dim(sa, ry, k) == 1, bb = aligned_dim(sb, ry, k) == 1;
    if (r > 0 && ba_l[r - 1] == ba && bb_l[r - 1] == bb) {
      bc->d[r - 1] *= dy;
    } else {
      bc->d[r] = dy;
      ba_l[r] = ba;
      bb_l[r] = bb;
      r++;
    }
  }
  if (r == 0) {
    bc->d[0] = 1;
    ba_l[0] = bb_l[0] = 0;
    r = 1;
  }
  bc->rank = r;
  int64_t ra = 1, rb = 1;
  for (int k = r - 1; k >= 0; k--) {
    bc->sa[k] = ba_l[k] ? 0 : ra;
    bc->sb[k] = bb_l[k] ? 0 : rb;
    if (!ba_l[k]) ra *= bc->d[k];
    if (!bb_l[k]) rb *= bc->d[k];
  }
}
