/* pthreadpool_tsan.c — a minimal thread pool behind pthreadpool's interface, for the
 * ThreadSanitizer build only (-DYOLORT_TSAN=ON links it instead of Debian's libpthreadpool).
 * Debian's pool is not instrumented, so the happens-before edges its atomics create were invisible
 * to TSan, and CI could only pass by suppressing our own kernels (issue 19). This pool is compiled
 * with -fsanitize=thread: a job is published and collected under one mutex, so TSan sees every
 * edge, and any race it reports is real. Implements what yolort and libXNNPACK.so call (nm -D):
 * create/destroy/get_threads_count and parallelize 1d .. 6d_tile_2d. Not for production: one
 * shared counter, no work stealing. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <pthreadpool.h>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define TP_HAVE_CSR 1
#endif

enum { TP_MAX_DIMS = 6 };

typedef struct tp_job {
  int kind;                  /* dims * 10 + tiled dims (0, 1 or 2) */
  void *fn, *ctx;
  int dims;
  size_t range[TP_MAX_DIMS], tile[TP_MAX_DIMS], count[TP_MAX_DIMS];
  size_t items;
  uint32_t flags;
} tp_job;

struct pthreadpool {
  pthread_mutex_t mu;
  pthread_cond_t work, done;
  pthread_mutex_t serial; /* one parallelize call at a time */
  size_t n_threads;       /* including the caller */
  pthread_t *workers;
  uint64_t generation;
  size_t pending; /* workers still on the current job */
  int stop;
  tp_job job;
  atomic_size_t next;
};

static void run_item(const tp_job *j, size_t idx) {
  size_t s[TP_MAX_DIMS] = {0}, z[TP_MAX_DIMS] = {0};
  for (int d = j->dims - 1; d >= 0; d--) {
    const size_t c = idx % j->count[d];
    idx /= j->count[d];
    s[d] = c * j->tile[d];
    z[d] = j->range[d] - s[d] < j->tile[d] ? j->range[d] - s[d] : j->tile[d];
  }
  void *x = j->ctx;
  switch (j->kind) {
    case 10: ((pthreadpool_task_1d_t)j->fn)(x, s[0]); break;
    case 11: ((pthreadpool_task_1d_tile_1d_t)j->fn)(x, s[0], z[0]); break;
    case 20: ((pthreadpool_task_2d_t)j->fn)(x, s[0], s[1]); break;
    case 21: ((pthreadpool_task_2d_tile_1d_t)j->fn)(x, s[0], s[1], z[1]); break;
    case 22: ((pthreadpool_task_2d_tile_2d_t)j->fn)(x, s[0], s[1], z[0], z[1]); break;
    case 30: ((pthreadpool_task_3d_t)j->fn)(x, s[0], s[1], s[2]); break;
    case 32: ((pthreadpool_task_3d_tile_2d_t)j->fn)(x, s[0], s[1], s[2], z[1], z[2]); break;
    case 40: ((pthreadpool_task_4d_t)j->fn)(x, s[0], s[1], s[2], s[3]); break;
    case 42: ((pthreadpool_task_4d_tile_2d_t)j->fn)(x, s[0], s[1], s[2], s[3], z[2], z[3]); break;
    case 50: ((pthreadpool_task_5d_t)j->fn)(x, s[0], s[1], s[2], s[3], s[4]); break;
    case 52: ((pthreadpool_task_5d_tile_2d_t)j->fn)(x, s[0], s[1], s[2], s[3], s[4], z[3], z[4]); break;
    case 62: ((pthreadpool_task_6d_tile_2d_t)j->fn)(x, s[0], s[1], s[2], s[3], s[4], s[5], z[4], z[5]); break;
    default: abort();
  }
}

/* Items of the current job until none are left; the denormal flag as pthreadpool does it. */
static void drain(pthreadpool_t p, const tp_job *j) {
#ifdef TP_HAVE_CSR
  const unsigned csr = _mm_getcsr();
  if (j->flags & PTHREADPOOL_FLAG_DISABLE_DENORMALS) _mm_setcsr(csr | 0x8040u); /* FTZ | DAZ */
#endif
  for (;;) {
    const size_t i = p ? atomic_fetch_add(&p->next, 1) : SIZE_MAX;
    if (i >= j->items) break;
    run_item(j, i);
  }
#ifdef TP_HAVE_CSR
  _mm_setcsr(csr);
#endif
}

static void *worker(void *arg) {
  pthreadpool_t p = arg;
  uint64_t seen = 0;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while (!p->stop && p->generation == seen) pthread_cond_wait(&p->work, &p->mu);
    if (p->stop) break;
    seen = p->generation;
    const tp_job j = p->job;
    pthread_mutex_unlock(&p->mu);
    drain(p, &j);
    pthread_mutex_lock(&p->mu);
    if (--p->pending == 0) pthread_cond_signal(&p->done);
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

pthreadpool_t pthreadpool_create(size_t threads) {
  if (threads == 0) {
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    threads = n > 0 ? (size_t)n : 1;
  }
  pthreadpool_t p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->n_threads = threads;
  pthread_mutex_init(&p->mu, NULL);
  pthread_mutex_init(&p->serial, NULL);
  pthread_cond_init(&p->work, NULL);
  pthread_cond_init(&p->done, NULL);
  atomic_init(&p->next, 0);
  p->workers = calloc(threads, sizeof *p->workers);
  if (!p->workers) {
    free(p);
    return NULL;
  }
  for (size_t i = 1; i < threads; i++)
    if (pthread_create(&p->workers[i], NULL, worker, p) != 0) {
      p->n_threads = i; /* destroy joins the ones that started */
      pthreadpool_destroy(p);
      return NULL;
    }
  return p;
}

size_t pthreadpool_get_threads_count(pthreadpool_t p) { return p ? p->n_threads : 1; }

void pthreadpool_destroy(pthreadpool_t p) {
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  p->stop = 1;
  pthread_cond_broadcast(&p->work);
  pthread_mutex_unlock(&p->mu);
  for (size_t i = 1; i < p->n_threads; i++) pthread_join(p->workers[i], NULL);
  pthread_cond_destroy(&p->work);
  pthread_cond_destroy(&p->done);
  pthread_mutex_destroy(&p->mu);
  pthread_mutex_destroy(&p->serial);
  free(p->workers);
  free(p);
}

static void run(pthreadpool_t p, int kind, void *fn, void *ctx, int dims, const size_t *range, const size_t *tile,
                uint32_t flags) {
  tp_job j = {.kind = kind, .fn = fn, .ctx = ctx, .dims = dims, .items = 1, .flags = flags};
  for (int d = 0; d < dims; d++) {
    j.range[d] = range[d];
    j.tile[d] = tile[d] ? tile[d] : 1;
    j.count[d] = (range[d] + j.tile[d] - 1) / j.tile[d];
    j.items *= j.count[d];
  }
  if (j.items == 0) return;
  if (!p || p->n_threads <= 1 || j.items == 1) {
    /* inline, in order, like pthreadpool without a pool */
#ifdef TP_HAVE_CSR
    const unsigned csr = _mm_getcsr();
    if (flags & PTHREADPOOL_FLAG_DISABLE_DENORMALS) _mm_setcsr(csr | 0x8040u);
#endif
    for (size_t i = 0; i < j.items; i++) run_item(&j, i);
#ifdef TP_HAVE_CSR
    _mm_setcsr(csr);
#endif
    return;
  }
  pthread_mutex_lock(&p->serial);
  pthread_mutex_lock(&p->mu);
  p->job = j;
  atomic_store(&p->next, 0);
  p->pending = p->n_threads - 1;
  p->generation++;
  pthread_cond_broadcast(&p->work);
  pthread_mutex_unlock(&p->mu);
  drain(p, &j);
  pthread_mutex_lock(&p->mu);
  while (p->pending > 0) pthread_cond_wait(&p->done, &p->mu);
  pthread_mutex_unlock(&p->mu);
  pthread_mutex_unlock(&p->serial);
}

#define R(...) (const size_t[]){__VA_ARGS__}

void pthreadpool_parallelize_1d(pthreadpool_t p, pthreadpool_task_1d_t f, void *c, size_t r, uint32_t fl) {
  run(p, 10, (void *)f, c, 1, R(r), R(1), fl);
}
void pthreadpool_parallelize_1d_tile_1d(pthreadpool_t p, pthreadpool_task_1d_tile_1d_t f, void *c, size_t r, size_t t,
                                        uint32_t fl) {
  run(p, 11, (void *)f, c, 1, R(r), R(t), fl);
}
void pthreadpool_parallelize_2d(pthreadpool_t p, pthreadpool_task_2d_t f, void *c, size_t ri, size_t rj, uint32_t fl) {
  run(p, 20, (void *)f, c, 2, R(ri, rj), R(1, 1), fl);
}
void pthreadpool_parallelize_2d_tile_1d(pthreadpool_t p, pthreadpool_task_2d_tile_1d_t f, void *c, size_t ri,
                                        size_t rj, size_t tj, uint32_t fl) {
  run(p, 21, (void *)f, c, 2, R(ri, rj), R(1, tj), fl);
}
void pthreadpool_parallelize_2d_tile_2d(pthreadpool_t p, pthreadpool_task_2d_tile_2d_t f, void *c, size_t ri,
                                        size_t rj, size_t ti, size_t tj, uint32_t fl) {
  run(p, 22, (void *)f, c, 2, R(ri, rj), R(ti, tj), fl);
}
void pthreadpool_parallelize_3d(pthreadpool_t p, pthreadpool_task_3d_t f, void *c, size_t ri, size_t rj, size_t rk,
                                uint32_t fl) {
  run(p, 30, (void *)f, c, 3, R(ri, rj, rk), R(1, 1, 1), fl);
}
void pthreadpool_parallelize_3d_tile_2d(pthreadpool_t p, pthreadpool_task_3d_tile_2d_t f, void *c, size_t ri,
                                        size_t rj, size_t rk, size_t tj, size_t tk, uint32_t fl) {
  run(p, 32, (void *)f, c, 3, R(ri, rj, rk), R(1, tj, tk), fl);
}
void pthreadpool_parallelize_4d(pthreadpool_t p, pthreadpool_task_4d_t f, void *c, size_t ri, size_t rj, size_t rk,
                                size_t rl, uint32_t fl) {
  run(p, 40, (void *)f, c, 4, R(ri, rj, rk, rl), R(1, 1, 1, 1), fl);
}
void pthreadpool_parallelize_4d_tile_2d(pthreadpool_t p, pthreadpool_task_4d_tile_2d_t f, void *c, size_t ri,
                                        size_t rj, size_t rk, size_t rl, size_t tk, size_t tl, uint32_t fl) {
  run(p, 42, (void *)f, c, 4, R(ri, rj, rk, rl), R(1, 1, tk, tl), fl);
}
void pthreadpool_parallelize_5d(pthreadpool_t p, pthreadpool_task_5d_t f, void *c, size_t ri, size_t rj, size_t rk,
                                size_t rl, size_t rm, uint32_t fl) {
  run(p, 50, (void *)f, c, 5, R(ri, rj, rk, rl, rm), R(1, 1, 1, 1, 1), fl);
}
void pthreadpool_parallelize_5d_tile_2d(pthreadpool_t p, pthreadpool_task_5d_tile_2d_t f, void *c, size_t ri,
                                        size_t rj, size_t rk, size_t rl, size_t rm, size_t tl, size_t tm, uint32_t fl) {
  run(p, 52, (void *)f, c, 5, R(ri, rj, rk, rl, rm), R(1, 1, 1, tl, tm), fl);
}
void pthreadpool_parallelize_6d_tile_2d(pthreadpool_t p, pthreadpool_task_6d_tile_2d_t f, void *c, size_t ri,
                                        size_t rj, size_t rk, size_t rl, size_t rm, size_t rn, size_t tm, size_t tn,
                                        uint32_t fl) {
  run(p, 62, (void *)f, c, 6, R(ri, rj, rk, rl, rm, rn), R(1, 1, 1, 1, tm, tn), fl);
}
