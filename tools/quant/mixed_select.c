/* mixed_select.c — see mixed_select.h. */
#include "mixed_select.h"

#include <stdlib.h>

static double ratio(const mixed_candidate *c) {
  return c->benefit / (c->cost_ms > MIXED_COST_FLOOR_MS ? c->cost_ms : MIXED_COST_FLOOR_MS);
}

static int eligible(const mixed_candidate *c) { return c->measured && c->benefit > 0; }

/* 1 if a ranks before b (a, b indices into c) */
static int before(const mixed_candidate *c, int a, int b) {
  const double ra = ratio(&c[a]), rb = ratio(&c[b]);
  if (ra != rb) return ra > rb;
  return a < b;
}

static int fits(const mixed_candidate *c, double room) {
  return (c->cost_ms > 0 ? c->cost_ms : 0) <= room + 1e-9; /* sums of decimals: no rounding excuse */
}

int mixed_select(mixed_candidate *c, int n, double budget_ms, int round, mixed_marginal_fn marginal, void *ctx,
                 double *used_ms) {
  double used = 0;
  int chosen = 0, failed = 0;
  for (int i = 0; i < n; i++) {
    c[i].chosen = c[i].rank = c[i].rejected = 0;
    c[i].in_set = 0;
  }
  if (round < 1 || !marginal) round = 1;
  while (budget_ms >= 0 && !failed) {
    /* the `round` best that fit, in ranking order (a selection by repeated scan: n is small) */
    int pick = -1;
    double pick_removed = 0, pick_ratio = 0;
    int tried[64], nt = 0;
    if (round > 64) round = 64;
    while (nt < round) {
      int best = -1;
      for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int k = 0; k < nt; k++) seen |= tried[k] == i;
        if (seen || c[i].chosen || c[i].rejected || !eligible(&c[i]) || !fits(&c[i], budget_ms - used)) continue;
        if (best < 0 || before(c, i, best)) best = i;
      }
      if (best < 0) break;
      tried[nt++] = best;
    }
    if (nt == 0) break;
    for (int k = 0; k < nt; k++) {
      double removed = c[tried[k]].benefit;
      if (marginal && marginal(ctx, c, n, tried[k], &removed)) {
        failed = 1;
        break;
      }
      if (!(removed >= MIXED_MIN_REMOVED)) {
        c[tried[k]].rejected = 1;
        continue;
      }
      const double cost = c[tried[k]].cost_ms > MIXED_COST_FLOOR_MS ? c[tried[k]].cost_ms : MIXED_COST_FLOOR_MS;
      if (pick < 0 || removed / cost > pick_ratio) {
        pick = tried[k];
        pick_removed = removed;
        pick_ratio = removed / cost;
      }
    }
    if (failed || pick < 0) continue;
    used += c[pick].cost_ms > 0 ? c[pick].cost_ms : 0;
    c[pick].chosen = 1;
    c[pick].rank = ++chosen;
    c[pick].in_set = pick_removed;
  }
  if (used_ms) *used_ms = used;
  return failed ? -1 : chosen;
}

int mixed_unchoose_last(mixed_candidate *c, int n) {
  int last = -1;
  for (int i = 0; i < n; i++)
    if (c[i].chosen && (last < 0 || c[i].rank > c[last].rank)) last = i;
  if (last >= 0) c[last].chosen = c[last].rank = 0;
  return last;
}

void mixed_report_print(FILE *f, const mixed_candidate *c, int n, const mixed_summary *s) {
  fprintf(f, "auto-mixed: error on %s over %d image(s); latency: per-node fastest of %d profiled runs, "
             "%d thread(s), against the all-int8 model run alternately\n",
          s->tensor ? s->tensor : "output0", s->images, s->runs, s->threads);
  fprintf(f, "auto-mixed: %d candidate layer(s), %d timed (the most beneficial alone), %d set(s) tried\n",
          s->candidates, s->timed, s->tried);
  fprintf(f, "alone -%%: output error removed by the layer alone in float; in set -%%: removed when added to "
             "the layers above it (%% of the all-int8 error)\n");
  int chosen = 0;
  for (int i = 0; i < n; i++) chosen += c[i].chosen;
  fprintf(f, "kept in float (%d), in the order chosen:\n", chosen);
  fprintf(f, "  %-4s %-52s %9s %9s %9s\n", "rank", "layer", "alone -%", "in set -%", "cost ms");
  for (int r = 1; r <= chosen; r++)
    for (int i = 0; i < n; i++)
      if (c[i].chosen && c[i].rank == r)
        fprintf(f, "  %-4d %-52.52s %9.1f %9.1f %9.3f\n", r, c[i].node, 100.0 * c[i].benefit, 100.0 * c[i].in_set,
                c[i].cost_ms);
  /* the five best timed candidates that were not chosen, for judging the budget */
  fprintf(f, "best left out (no room in the budget, or removed nothing added to the set: in set 'none'):\n");
  char *seen = calloc((size_t)(n > 0 ? n : 1), 1);
  int shown = 0;
  for (int k = 0; seen && k < 5; k++) {
    int best = -1;
    for (int i = 0; i < n; i++)
      if (!seen[i] && !c[i].chosen && eligible(&c[i]) && (best < 0 || before(c, i, best))) best = i;
    if (best < 0) break;
    seen[best] = 1;
    fprintf(f, "  %-4s %-52.52s %9.1f %9s %9.3f\n", "-", c[best].node, 100.0 * c[best].benefit,
            c[best].rejected ? "none" : "-", c[best].cost_ms);
    shown++;
  }
  free(seen);
  if (!shown) fprintf(f, "  (none)\n");
  fprintf(f, "all-int8 %.3f ms; budget %.3f ms (%.1f%%); chosen %.3f ms predicted (sum of own costs), "
             "%.3f ms measured together; mixed %.3f ms (+%.1f%%)\n",
          s->int8_ms, s->budget_ms, s->budget_pct, s->predicted_ms, s->measured_ms, s->int8_ms + s->measured_ms,
          s->int8_ms > 0 ? 100.0 * s->measured_ms / s->int8_ms : 0.0);
  fprintf(f, "output error (dB below the signal; boxes and scores alike): all-int8 %.2f dB, mixed %.2f dB\n", s->int8_db, s->mixed_db);
}
