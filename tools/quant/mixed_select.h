/* mixed_select.h — which layers to keep in float under a latency budget, from measured numbers
 * (yolort-quantize --auto-mixed; the measuring is auto_mixed.h's). Pure: no model, no timing,
 * so the choice itself is unit-tested and deterministic for given measurements. */
#ifndef YOLORT_MIXED_SELECT_H
#define YOLORT_MIXED_SELECT_H

#include <stdio.h>

typedef struct mixed_candidate {
  char *node;      /* the group's conv (the name shown) */
  char **group;    /* NULL-terminated node names kept float together (conv, its SiLU) */
  double benefit;  /* fraction of the all-int8 output error removed with this group alone float */
  double in_set;   /* fraction removed when it was added to the layers chosen before it */
  double gain_db;  /* output SQNR gained with this group alone float */
  double cost_ms;  /* measured latency cost of this group alone float */
  int measured;    /* cost_ms was measured (only the most beneficial candidates are timed) */
  int chosen;      /* set by mixed_select */
  int rank;        /* order chosen in (1..), 0 if not chosen */
  int rejected;    /* tried with the chosen set and removed no error there (mixed_select) */
} mixed_candidate;

/* A cost under this counts as this much when ranking by benefit / cost: a measured cost of ~0
 * (or a noisy negative one) must not make a useless layer rank first. */
#define MIXED_COST_FLOOR_MS 0.01
/* A candidate removing less than this fraction of the all-int8 error, added to the set, is
 * rejected: YOLO26n's choice otherwise spent 2.5 ms of its budget on a conv removing 0.0%. */
#define MIXED_MIN_REMOVED 0.005

/* The error a candidate removes when added to the chosen set (c[i].chosen marks it): *removed =
 * fraction of the all-int8 error. Returns 0, or non-zero to stop the selection (an error). */
typedef int (*mixed_marginal_fn)(void *ctx, const mixed_candidate *c, int n, int i, double *removed);

/* Greedy within budget_ms: each step takes the `round` best remaining candidates by benefit /
 * max(cost, floor) (ties by index) among those with benefit > 0, a measured cost and room in the
 * budget (costs < 0 count as 0); asks `marginal` what each removes added to the set chosen so far
 * (errors do not add up: yolo11n's layers each removed 15-44% alone) and takes the best removal
 * per ms; one that removes under MIXED_MIN_REMOVED there is rejected. marginal NULL: a candidate removes its
 * own benefit (round is then irrelevant). Sets chosen / rank / in_set / rejected; returns how many
 * were chosen (or -1 when marginal failed) and *used_ms their summed cost. budget_ms < 0 chooses
 * nothing. */
int mixed_select(mixed_candidate *c, int n, double budget_ms, int round, mixed_marginal_fn marginal, void *ctx,
                 double *used_ms);

/* Un-choose the chosen candidate of the highest rank (the last added); returns its index or -1. */
int mixed_unchoose_last(mixed_candidate *c, int n);

typedef struct mixed_summary {
  double int8_ms;       /* all-int8 time (sum of node times, fastest run) */
  double budget_ms;     /* the budget in ms */
  double budget_pct;    /* the budget as a % of int8_ms */
  double predicted_ms;  /* sum of the chosen candidates' own costs */
  int tried;            /* sets measured while choosing */
  double measured_ms;   /* cost of the chosen set measured together */
  double int8_db;       /* output SQNR of the all-int8 model against float */
  double mixed_db;      /* output SQNR of the mixed model */
  const char *tensor;   /* the tensor the error is measured on */
  int images;           /* images the error is measured on */
  int runs;             /* profiled runs per latency comparison */
  int threads;
  int candidates, timed;
} mixed_summary;

/* The report: the chosen layers (error gained, latency cost each), the totals (all-int8 time,
 * mixed time, budget) and the best candidates left out. */
void mixed_report_print(FILE *f, const mixed_candidate *c, int n, const mixed_summary *s);

#endif
