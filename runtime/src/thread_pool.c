/* thread_pool.c — see thread_pool.h. One 64-bit word holds the run's generation (high half) and
 * its unclaimed items [lo, hi) (16 bits each): the caller claims item lo of generation g by a
 * compare-exchange of (g, lo, hi) -> (g, lo + 1, hi), a worker item hi - 1 by (g, lo, hi - 1), so
 * a late worker of an earlier run can never take an item of the next one. Claiming from both ends
 * keeps, with two threads, each thread on the same part of every node (the caller the first rows,
 * the worker the last ones), so a node finds most of its input in its own core's cache where it
 * wrote it: yolo11n 2 threads 1.75 -> 1.62 ms at 320, 6.3 -> 5.9 ms at 640 (Xeon SPR, KVM)
 * against a single shared counter, which handed rows to whichever thread came first. The job (fn, ctx, n) of generation g lives in slot g & 1: a worker that read the word of
 * generation g-1 and was delayed reads g-1's slot, which the caller does not touch while setting up
 * g (it would with a single slot: such a worker read g's n with g-1's word still in place, claimed
 * an item past g-1's end, and its extra finished count made the caller wait forever — seen under
 * TSan). The slot is rewritten only for g+1, after the word left g-1, so that claim fails.
 * The caller waits for the count of finished items, not for the workers. Sleeping (workers
 * between runs, the caller at the end of one) is on condition variables. Each side of a flag /
 * counter pair writes its own, then a full fence, then reads the other's (Dekker), so a wake-up is
 * never missed. The fences are explicit, not left to seq_cst store + load: qemu-user runs an
 * AArch64 STLR + LDAR pair on an x86 host without a barrier between them, so the load may pass
 * the store there (the aarch64 suite under qemu hung on exactly that). */
#include "mem.h"
#include "thread_pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* How long an idle thread polls before sleeping: longer than the gap between two parallel nodes
 * of a run (a few microseconds), far shorter than a scheduler time slice. */
#define SPIN_NS 50000u

struct yrt_thread_pool {
  int threads, started;
  pthread_t *tid;
  pthread_mutex_t mu;
  pthread_cond_t wake, idle;
  _Atomic uint64_t work;      /* generation << 32 | next item */
  atomic_size_t done;         /* items finished in the current generation */
  atomic_size_t n[2];         /* items of generation g in [g & 1] (fn, ctx too) */
  _Atomic(yrt_pool_fn) fn[2];
  _Atomic(void *) ctx[2];
  atomic_int sleepers;        /* workers waiting on wake */
  atomic_int waiting;         /* 1: the caller waits on idle */
  atomic_int stop;
  uint32_t gen;               /* the caller's copy of the current generation */
};

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  __asm__ __volatile__("yield");
#endif
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint32_t gen_of(uint64_t w) { return (uint32_t)(w >> 32); }

/* Claims and does items of generation g until none is left: the caller from the low end (lo),
 * workers from the high end (hi), so with two threads each keeps taking the same part of every
 * node's rows and finds its previous node's output in its own cache. */
#define LO_OF(w) ((uint32_t)((w) >> 16) & 0xFFFFu)
#define HI_OF(w) ((uint32_t)(w)&0xFFFFu)
static void do_items(yrt_thread_pool *p, uint32_t g, int from_low) {
  uint64_t w = atomic_load_explicit(&p->work, memory_order_acquire);
  for (;;) {
    if (gen_of(w) != g) return;
    const unsigned slot = g & 1u;
    const uint32_t lo = LO_OF(w), hi = HI_OF(w);
    if (lo >= hi) return;
    const size_t n = atomic_load_explicit(&p->n[slot], memory_order_relaxed);
    /* fn / ctx / n read after (g, lo, hi) was seen: they are generation g's unless the claim fails */
    const yrt_pool_fn fn = atomic_load_explicit(&p->fn[slot], memory_order_relaxed);
    void *ctx = atomic_load_explicit(&p->ctx[slot], memory_order_relaxed);
    const size_t i = from_low ? lo : hi - 1;
    const uint64_t nw = from_low ? w + (1u << 16) : w - 1;
    if (!atomic_compare_exchange_weak_explicit(&p->work, &w, nw, memory_order_acquire, memory_order_acquire))
      continue;
    fn(ctx, i);
    const size_t done = atomic_fetch_add_explicit(&p->done, 1, memory_order_seq_cst) + 1;
    atomic_thread_fence(memory_order_seq_cst);
    if (done == n && atomic_load_explicit(&p->waiting, memory_order_seq_cst)) {
      pthread_mutex_lock(&p->mu);
      pthread_cond_signal(&p->idle);
      pthread_mutex_unlock(&p->mu);
    }
    w = atomic_load_explicit(&p->work, memory_order_acquire);
  }
}

static void *worker(void *arg) {
  yrt_thread_pool *p = arg;
  uint32_t seen = 0;
  for (;;) {
    uint64_t w = atomic_load_explicit(&p->work, memory_order_acquire);
    const uint64_t t0 = now_ns();
    for (unsigned k = 1; gen_of(w) == seen && !atomic_load_explicit(&p->stop, memory_order_relaxed); k++) {
      cpu_relax();
      if ((k & 63) == 0 && now_ns() - t0 > SPIN_NS) {
        pthread_mutex_lock(&p->mu);
        atomic_fetch_add_explicit(&p->sleepers, 1, memory_order_seq_cst);
        atomic_thread_fence(memory_order_seq_cst);
        while (gen_of(atomic_load_explicit(&p->work, memory_order_seq_cst)) == seen &&
               !atomic_load_explicit(&p->stop, memory_order_seq_cst))
          pthread_cond_wait(&p->wake, &p->mu);
        atomic_fetch_sub_explicit(&p->sleepers, 1, memory_order_relaxed);
        pthread_mutex_unlock(&p->mu);
      }
      w = atomic_load_explicit(&p->work, memory_order_acquire);
    }
    if (atomic_load_explicit(&p->stop, memory_order_acquire)) return NULL;
    seen = gen_of(w);
    do_items(p, seen, 0);
  }
}

yrt_thread_pool *yrt_thread_pool_create(int threads, const yrt_allocator *alloc) {
  if (threads < 2) return NULL;
  yrt_thread_pool *p = yrt_zalloc(alloc, 1, sizeof *p);
  if (!p) return NULL;
  p->threads = threads;
  p->tid = yrt_zalloc(alloc, (size_t)threads - 1, sizeof *p->tid);
  if (!p->tid || pthread_mutex_init(&p->mu, NULL)) {
    yrt_free(p->tid);
    yrt_free(p);
    return NULL;
  }
  if (pthread_cond_init(&p->wake, NULL)) {
    pthread_mutex_destroy(&p->mu);
    yrt_free(p->tid);
    yrt_free(p);
    return NULL;
  }
  if (pthread_cond_init(&p->idle, NULL)) {
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->mu);
    yrt_free(p->tid);
    yrt_free(p);
    return NULL;
  }
  for (; p->started < threads - 1; p->started++)
    if (pthread_create(&p->tid[p->started], NULL, worker, p)) {
      yrt_thread_pool_destroy(p);
      return NULL;
    }
  return p;
}

void yrt_thread_pool_destroy(yrt_thread_pool *p) {
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  atomic_store_explicit(&p->stop, 1, memory_order_seq_cst);
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->mu);
  for (int i = 0; i < p->started; i++) pthread_join(p->tid[i], NULL);
  pthread_cond_destroy(&p->idle);
  pthread_cond_destroy(&p->wake);
  pthread_mutex_destroy(&p->mu);
  yrt_free(p->tid);
  yrt_free(p);
}

int yrt_thread_pool_threads(const yrt_thread_pool *p) { return p ? p->threads : 1; }

#define RUN_MAX 0xFFFFu /* items per generation (16-bit lo / hi) */

typedef struct batch {
  yrt_pool_fn fn;
  void *ctx;
  size_t first;
} batch;

static void batch_item(void *ctx, size_t i) {
  const batch *b = ctx;
  b->fn(b->ctx, b->first + i);
}

static void run_gen(yrt_thread_pool *p, yrt_pool_fn fn, void *ctx, size_t n);

void yrt_thread_pool_run(yrt_thread_pool *p, yrt_pool_fn fn, void *ctx, size_t n) {
  if (p && n > RUN_MAX) { /* in generations of RUN_MAX items */
    for (size_t first = 0; first < n; first += RUN_MAX) {
      batch b = {fn, ctx, first};
      run_gen(p, batch_item, &b, n - first < RUN_MAX ? n - first : RUN_MAX);
    }
    return;
  }
  run_gen(p, fn, ctx, n);
}

static void run_gen(yrt_thread_pool *p, yrt_pool_fn fn, void *ctx, size_t n) {
  if (!p || n < 2) {
    for (size_t i = 0; i < n; i++) fn(ctx, i);
    return;
  }
  /* slot g & 1 last held generation g-2, whose word is gone: no claim can still use it */
  const uint32_t g = ++p->gen;
  const unsigned slot = g & 1u;
  atomic_store_explicit(&p->fn[slot], fn, memory_order_relaxed);
  atomic_store_explicit(&p->ctx[slot], ctx, memory_order_relaxed);
  atomic_store_explicit(&p->n[slot], n, memory_order_relaxed);
  atomic_store_explicit(&p->done, 0, memory_order_relaxed);
  atomic_store_explicit(&p->work, (uint64_t)g << 32 | (uint64_t)n, memory_order_seq_cst);
  atomic_thread_fence(memory_order_seq_cst);
  if (atomic_load_explicit(&p->sleepers, memory_order_seq_cst) > 0) {
    pthread_mutex_lock(&p->mu);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
  }
  do_items(p, g, 1);
  /* the rest is in the workers' hands: poll briefly, then sleep until the last one signals */
  const uint64_t t0 = now_ns();
  for (unsigned k = 1; atomic_load_explicit(&p->done, memory_order_acquire) != n; k++) {
    cpu_relax();
    if ((k & 63) == 0 && now_ns() - t0 > SPIN_NS) {
      pthread_mutex_lock(&p->mu);
      atomic_store_explicit(&p->waiting, 1, memory_order_seq_cst);
      atomic_thread_fence(memory_order_seq_cst);
      while (atomic_load_explicit(&p->done, memory_order_seq_cst) != n) pthread_cond_wait(&p->idle, &p->mu);
      atomic_store_explicit(&p->waiting, 0, memory_order_relaxed);
      pthread_mutex_unlock(&p->mu);
      break;
    }
  }
}
