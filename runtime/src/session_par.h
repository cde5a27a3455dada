/* session_par.h — splitting [0, n) units (elements, rows, anchors) into ranges on the session's
 * threads: one place for the chunk arithmetic every threaded node kind uses, and for the choice
 * of pool (the session's own threads, thread_pool.h, or a caller's pthreadpool). */
#ifndef YOLORT_SESSION_PAR_H
#define YOLORT_SESSION_PAR_H

#include <stddef.h>

#include "thread_pool.h"
#include "pthreadpool_opt.h"

/* The threads a session's own kernels run on: own (the session's workers) or else pp (a caller's
 * pthreadpool); both NULL: the calling thread. */
typedef struct yrt_par {
  yrt_thread_pool *own;
  pthreadpool_t pp;
} yrt_par;

/* Works on units [lo, hi). */
typedef void (*yrt_range_fn)(const void *ctx, size_t lo, size_t hi);

/* Units per range when n units are split into `tasks` ranges: ceil(n / tasks), at least
 * min_chunk, rounded up to a multiple of align (whole SIMD blocks, row pairs, cache lines). */
size_t yrt_par_chunk(size_t n, size_t tasks, size_t min_chunk, size_t align);

/* A chunk of n rows of `unit` items each for a kernel that works in blocks of `block` items
 * starting afresh at every range's first item (a last partial block costs a whole one): the
 * chunk whose busiest thread (tasks handed to the least loaded of `threads` in order) has the
 * fewest blocks, the one nearest `chunk` among equals (fewer tasks when as near). `chunk` itself
 * when threads < 2 or block < 2. */
size_t yrt_par_chunk_blocks(size_t n, size_t unit, size_t block, size_t threads, size_t chunk);

/* The task-count policy of an int8 conv (next to the chunk arithmetic it feeds): rows per range
 * for n rows of `ow` pixels. tile: the pixels of the kernel's tiles when it starts one afresh at
 * every range (AMX: its mr), else 0. */
size_t yrt_par_conv_rows(const yrt_par *par, size_t n, size_t ow, size_t tile);

/* fn over [0, n) in ranges of chunk units (the last one shorter), on par's threads; in one call
 * fn(ctx, 0, n) on the calling thread when par is NULL / has no threads or one range covers n. */
void yrt_par_ranges(const yrt_par *par, size_t n, size_t chunk, yrt_range_fn fn, const void *ctx);

/* A tensor's range measured over the pool: one [lo, hi] slot per range of units (at most
 * YRT_RANGE_SLOTS ranges), folded by yrt_range_fold into [min(0, lo...), max(0, hi...)] (the
 * range dynamic quantization takes). */
#define YRT_RANGE_SLOTS 64
void yrt_range_fold(const float *lohi, size_t ranges, float *lo, float *hi);

/* Puts a pthreadpool's workers to sleep now instead of letting them spin-wait for the next
 * parallel call (pthreadpool spins ~1M pauses first): called where a burst of work ends (after a
 * run, after creation), so idle sessions leave the cores to other processes. No-op for NULL. */
void yrt_par_rest(pthreadpool_t pool);

/* Threads of par (1 when NULL or without threads). */
size_t yrt_par_threads(const yrt_par *par);

#endif
