/* pthreadpool_opt.h — pthreadpool where the build has it (YRT_HAVE_PTHREADPOOL: always with
 * XNNPACK, whose operators run on one), else a stand-in of the few calls the session makes, so
 * the core runtime needs only libc + pthreads. In such a build no pthreadpool ever exists: the
 * session refuses a caller's thread_pool, runs on its own threads (thread_pool.h), and every
 * pthreadpool_t is NULL. */
#ifndef YOLORT_PTHREADPOOL_OPT_H
#define YOLORT_PTHREADPOOL_OPT_H

#include <stddef.h>

#if YRT_HAVE_PTHREADPOOL
#include <pthreadpool.h>
#else
typedef struct pthreadpool *pthreadpool_t; /* the public header's opaque struct pthreadpool */
#define PTHREADPOOL_FLAG_YIELD_WORKERS 0x00000002
static inline pthreadpool_t pthreadpool_create(size_t threads) {
  (void)threads;
  return NULL;
}
static inline void pthreadpool_destroy(pthreadpool_t pool) { (void)pool; }
static inline size_t pthreadpool_get_threads_count(pthreadpool_t pool) {
  (void)pool;
  return 1;
}
/* Only reached with a pool, and there is none: still correct, on the calling thread. */
static inline void pthreadpool_parallelize_1d(pthreadpool_t pool, void (*fn)(void *, size_t), void *ctx,
                                              size_t n, unsigned flags) {
  (void)pool, (void)flags;
  for (size_t i = 0; i < n; i++) fn(ctx, i);
}
#endif

#endif
