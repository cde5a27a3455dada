/* op_run.c — the run helpers every kind shares (op_run.h). */
#include "op_run.h"

void yrt_run_par(const yrt_session *s, const yrt_exec *e, yrt_range_fn fn, size_t n, size_t unit_elems) {
  const yrt_node_ctx t = {s, e};
  const size_t threads = yrt_par_threads(&s->par);
  if (threads < 2 || n < 2 || n * unit_elems < 2 * YRT_PAR_MIN_ELEMS) {
    fn(&t, 0, n);
    return;
  }
  const size_t min_chunk = (YRT_PAR_MIN_ELEMS / 4 + unit_elems - 1) / unit_elems;
  const size_t chunk = yrt_par_chunk(n, 4 * threads, min_chunk, unit_elems == 1 ? 64 : 1);
  yrt_par_ranges(&s->par, n, chunk, fn, &t);
}

/* Product of dims [from, to) of t. */
size_t yrt_dims_product(const yrt_tensor_rec *t, uint32_t from, uint32_t to) {
  size_t p = 1;
  for (uint32_t d = from; d < to && d < t->rank; d++) p *= (size_t)t->dims[d];
  return p;
}
