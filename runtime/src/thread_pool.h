/* thread_pool.h — the worker threads a session owns (num_threads > 1 without a caller's pool).
 * Unlike pthreadpool (whose caller waits until every worker has checked in on every parallel
 * node, and whose workers spin ~1M pauses between nodes), a run here is over when its items are
 * done: items are claimed one at a time from a shared word (the caller from the first item up,
 * workers from the last one down, so each thread keeps to the same rows node after node and
 * reads what it wrote from its own cache), so a worker the scheduler has not run yet simply
 * finds nothing left, and idle workers sleep after a short spin. More threads than
 * free cores then cost what the cores can give instead of a scheduling delay per node. */
#ifndef YOLORT_THREAD_POOL_H
#define YOLORT_THREAD_POOL_H

#include <stddef.h>

#include "yolort.h"

typedef struct yrt_thread_pool yrt_thread_pool;

/* Does item i of a run. */
typedef void (*yrt_pool_fn)(void *ctx, size_t i);

/* A pool of threads - 1 workers (the caller of yrt_thread_pool_run is the other one); NULL when
 * threads < 2 or a thread or the memory could not be had. */
yrt_thread_pool *yrt_thread_pool_create(int threads, const yrt_allocator *alloc);
void yrt_thread_pool_destroy(yrt_thread_pool *p);
/* Threads including the caller (1 for NULL). */
int yrt_thread_pool_threads(const yrt_thread_pool *p);
/* fn(ctx, i) for every i in [0, n), returning when all are done; the caller takes items too.
 * One caller at a time per pool. */
void yrt_thread_pool_run(yrt_thread_pool *p, yrt_pool_fn fn, void *ctx, size_t n);

#endif
