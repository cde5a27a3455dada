/* range_search.c — see range_search.h. */
#include "range_search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_list.h"
#include "onnx_write.h"
#include "output_error.h"

int range_search_is_candidate(const calib_result *r, int i) {
  if (i < 0 || i >= r->n) return 0;
  if (r->tie && r->tie[i] >= 0) return 0;
  /* a conv output only a SiLU reads takes its range from the SiLU output's */
  if (r->silu_range && r->silu_out && r->silu_out[i] >= 0) return 0;
  const calib_hist *h = &r->t[i].hist;
  return h->count > 0 && h->max > h->min;
}

/* The output error of r's current parameters. */
static yrt_status measure(const uint8_t *folded, size_t size, calib_result *r, const calib_options *o,
                          const range_search_options *so, const output_ref *ref, double *e, yrt_error *err) {
  Onnx__ModelProto *q = NULL;
  calib_choose(r, so->method, so->percentile);
  yrt_status st = calib_qdq_from_folded(folded, size, r, o, &q, err);
  if (!st) st = output_ref_error(ref, q, o->exclude, e, err);
  onnx_model_free(q);
  return st;
}

yrt_status range_search_run(const uint8_t *folded, size_t folded_size, calib_result *r, const calib_options *o,
                            const range_search_options *so, range_search_result *res, yrt_error *err) {
  memset(res, 0, sizeof *res);
  if (!r->factor) {
    if (!(r->factor = malloc(sizeof(float) * (size_t)(r->n ? r->n : 1))))
      return yrt_set_error(err, YRT_ERR_NOMEM, "range search: out of memory");
    for (int i = 0; i < r->n; i++) r->factor[i] = 1.0f;
  }
  output_ref ref;
  memset(&ref, 0, sizeof ref);
  Onnx__ModelProto *fm = NULL;
  yrt_status st = onnx_model_load_memory(folded, folded_size, &fm, err);
  if (!st) st = output_ref_open(&ref, fm, so->images, so->max_images, o->threads, err);
  onnx_model_free(fm);
  double cur = 0;
  if (!st) st = measure(folded, folded_size, r, o, so, &ref, &cur, err);
  res->int8_db = output_ref_db(cur);
  res->evaluations = 1;
  res->images = ref.images;
  int total = 0;
  for (int i = 0; i < r->n; i++) total += range_search_is_candidate(r, i);
  if (!st && !o->quiet)
    fprintf(stderr, "range search: output error %.2f dB below the signal on %d images; %d tensors\n",
            res->int8_db, ref.images, total);
  for (int pass = 0; !st && pass < (so->passes > 0 ? so->passes : 1); pass++) {
    const double t0 = progress_clock();
    int done = 0, moved = 0;
    for (int i = 0; !st && i < r->n; i++) {
      if (!range_search_is_candidate(r, i)) continue;
      const float f0 = r->factor[i];
      float best_f = f0;
      double best = cur;
      /* a try: factor f0 * step; kept as best when it beats `best` by min_gain */
      const float first[2] = {0.9f, 1.12f};
      int dir = -1;
      for (int k = 0; !st && k < 2; k++) {
        double e = 0;
        r->factor[i] = f0 * first[k];
        st = measure(folded, folded_size, r, o, so, &ref, &e, err);
        res->evaluations++;
        if (!st && e < best * (1.0 - so->min_gain)) {
          best = e;
          best_f = r->factor[i];
          dir = k;
        }
      }
      if (!st && dir >= 0) {
        double e = 0;
        r->factor[i] = f0 * (dir == 0 ? 0.8f : 1.25f);
        st = measure(folded, folded_size, r, o, so, &ref, &e, err);
        res->evaluations++;
        if (!st && e < best * (1.0 - so->min_gain)) {
          best = e;
          best_f = r->factor[i];
        }
      }
      r->factor[i] = best_f;
      if (best_f != f0) moved++;
      cur = best;
      done++;
      if (!o->quiet) {
        if (best_f != f0)
          fprintf(stderr, "range search: %-56s x%.3g  %.2f dB\n", r->t[i].name, (double)best_f, output_ref_db(cur));
        else
          progress_bar(done, total, "range search", t0);
      }
    }
    res->searched = done;
    if (!st && !o->quiet)
      fprintf(stderr, "range search: pass %d moved %d of %d ranges, error %.2f dB\n", pass + 1, moved, done,
              output_ref_db(cur));
    if (!moved) break;
  }
  for (int i = 0; i < r->n; i++) res->changed += r->factor[i] != 1.0f;
  res->search_db = output_ref_db(cur);
  calib_choose(r, so->method, so->percentile);
  output_ref_close(&ref);
  return st;
}
