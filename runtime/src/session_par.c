/* session_par.c — ranges of units over the session's threads (session_par.h). */
#include "session_par.h"

size_t yrt_par_chunk(size_t n, size_t tasks, size_t min_chunk, size_t align) {
  size_t chunk = tasks ? (n + tasks - 1) / tasks : n;
  if (chunk < min_chunk) chunk = min_chunk;
  if (align > 1) chunk = (chunk + align - 1) / align * align;
  return chunk;
}

/* Blocks on the busiest of `threads` threads when n rows go in ranges of r: ranges in order to the
 * least loaded thread (what a pool's workers taking the next task do, at equal speed). */
static size_t busiest_blocks(size_t n, size_t unit, size_t block, size_t threads, size_t r) {
  size_t load[64] = {0}, most = 0;
  if (threads > 64) threads = 64;
  for (size_t lo = 0; lo < n; lo += r) {
    const size_t rows = n - lo < r ? n - lo : r;
    size_t t = 0;
    for (size_t i = 1; i < threads; i++)
      if (load[i] < load[t]) t = i;
    load[t] += (rows * unit + block - 1) / block;
    if (load[t] > most) most = load[t];
  }
  return most;
}

size_t yrt_par_chunk_blocks(size_t n, size_t unit, size_t block, size_t threads, size_t chunk) {
  if (threads < 2 || block < 2 || n < 2 || unit == 0 || chunk == 0) return chunk;
  size_t best = chunk, best_cost = busiest_blocks(n, unit, block, threads, chunk);
  for (size_t r = 1; r <= n; r++) {
    const size_t cost = busiest_blocks(n, unit, block, threads, r);
    const size_t d = r > chunk ? r - chunk : chunk - r, bd = best > chunk ? best - chunk : chunk - best;
    if (cost < best_cost || (cost == best_cost && (d < bd || (d == bd && r > best)))) {
      best = r;
      best_cost = cost;
    }
  }
  return best;
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

void yrt_par_ranges(const yrt_par *par, size_t n, size_t chunk, yrt_range_fn fn, const void *ctx) {
  if (!par || (!par->own && !par->pp) || chunk == 0 || chunk >= n) {
    fn(ctx, 0, n);
    return;
  }
  par_job j = {fn, ctx, n, chunk};
  if (par->own) yrt_thread_pool_run(par->own, par_task, &j, (n + chunk - 1) / chunk);
  else pthreadpool_parallelize_1d(par->pp, par_task, &j, (n + chunk - 1) / chunk, 0);
}

void yrt_range_fold(const float *lohi, size_t ranges, float *lo, float *hi) {
  float l = 0.0f, h = 0.0f;
  for (size_t i = 0; i < ranges; i++) {
    l = lohi[2 * i] < l ? lohi[2 * i] : l;
    h = lohi[2 * i + 1] > h ? lohi[2 * i + 1] : h;
  }
  *lo = l;
  *hi = h;
}

static void rest_task(void *ctx, size_t i) {
  (void)ctx;
  (void)i;
}

void yrt_par_rest(pthreadpool_t pool) {
  const size_t n = pool ? pthreadpool_get_threads_count(pool) : 1;
  if (n > 1) pthreadpool_parallelize_1d(pool, rest_task, NULL, n, PTHREADPOOL_FLAG_YIELD_WORKERS);
}

/* Row ranges a conv is split into. Two per thread for our AVX-512 / AVX2 / NEON kernels: each
 * claim and each finished range is an atomic on a cache line both cores write, and with the caller
 * taking ranges from the low end and the workers from the high end two per thread still balance.
 * yolo11n, 2 threads, AMD Zen 5 (yolort-bench, 200-300 runs, medians): 16 ranges 1.82-1.86 ms at
 * 320 / 6.63-6.65 at 640, 4 ranges 1.72-1.79 / 6.39-6.41, 2 ranges 1.72-1.73 / 6.45-6.56. AMX keeps
 * 16 (the tile-count choice below starts from them; measured on the Xeon, not here). Not
 * understood: 640's model.2/m.0/cv2 with its residual Add in its ranges takes 0.145 ms with 4
 * ranges at 1 and at 2 threads alike (16: 0.095); finer ranges for such convs did not change the
 * model's time measurably (a noisy host; docs/performance.md). */
#define CONV_TASKS_AMX 16
size_t yrt_par_conv_rows(const yrt_par *par, size_t n, size_t ow, size_t tile) {
  const size_t t = yrt_par_threads(par);
  const size_t chunk = yrt_par_chunk(n, tile ? CONV_TASKS_AMX : t > 1 ? 2 * t : 1, 1, 1);
  /* AMX computes 16-pixel tiles from each range's first pixel: rows of 40 or 20 pixels in 16
   * ranges leave a partial tile in every range (40x40: 3 rows = 7.5 tiles run as 8, 20x20: 2 rows
   * = 2.5 as 3, 10x10: 1 row = 0.625 as 1); take the chunk with the fewest tiles on the busiest
   * thread instead. */
  return tile > 1 ? yrt_par_chunk_blocks(n, ow, tile, t, chunk) : chunk;
}

size_t yrt_par_threads(const yrt_par *par) {
  if (!par) return 1;
  if (par->own) return (size_t)yrt_thread_pool_threads(par->own);
  return par->pp ? pthreadpool_get_threads_count(par->pp) : 1;
}
