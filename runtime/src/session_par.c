/* session_par.c — ranges of units over the thread pool (session_par.h). */
#include "session_par.h"

size_t yrt_par_chunk(size_t n, size_t tasks, size_t min_chunk, size_t align) {
  size_t chunk = tasks ? (n + tasks - 1) / tasks : n;
  if (chunk < min_chunk) chunk = min_chunk;
  if (align > 1) chunk = (chunk + align - 1) / align * align;
  return chunk;
}

typedef struct par_job {
  yrt_range_fn fn;
  const void *ctx;
  size_t n, chunk;
} par_job;

static void par_task(void *arg, size_t i) {
  const par_job *j = arg;
  const size_t lo = i * j->chunk, hi = lo + j->chunk < j->n ? lo + j->chunk : j->n;
  j->fn(j->ctx, lo, hi);
}

void yrt_par_ranges(pthreadpool_t pool, size_t n, size_t chunk, yrt_range_fn fn, const void *ctx) {
  if (!pool || chunk == 0 || chunk >= n) {
    fn(ctx, 0, n);
    return;
  }
  par_job j = {fn, ctx, n, chunk};
  pthreadpool_parallelize_1d(pool, par_task, &j, (n + chunk - 1) / chunk, 0);
}

size_t yrt_par_threads(pthreadpool_t pool) { return pool ? pthreadpool_get_threads_count(pool) : 1; }

void yrt_range_fold(const float *lohi, size_t ranges, float *lo, float *hi) {
  float l = 0.0f, h = 0.0f;
  for (size_t i = 0; i < ranges; i++) {
    l = lohi[2 * i] < l ? lohi[2 * i] : l;
    h = lohi[2 * i + 1] > h ? lohi[2 * i + 1] : h;
  }
  *lo = l;
  *hi = h;
}
