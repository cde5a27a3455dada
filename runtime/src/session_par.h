/* session_par.h — splitting [0, n) units (elements, rows, anchors) into ranges on the session's
 * thread pool: one place for the chunk arithmetic every threaded node kind uses. */
#ifndef YOLORT_SESSION_PAR_H
#define YOLORT_SESSION_PAR_H

#include <pthreadpool.h>
#include <stddef.h>

/* Works on units [lo, hi). */
typedef void (*yrt_range_fn)(const void *ctx, size_t lo, size_t hi);

/* Units per range when n units are split into `tasks` ranges: ceil(n / tasks), at least
 * min_chunk, rounded up to a multiple of align (whole SIMD blocks, row pairs, cache lines). */
size_t yrt_par_chunk(size_t n, size_t tasks, size_t min_chunk, size_t align);

/* fn over [0, n) in ranges of chunk units (the last one shorter), on pool; in one call
 * fn(ctx, 0, n) on the calling thread when pool is NULL or one range covers n. */
void yrt_par_ranges(pthreadpool_t pool, size_t n, size_t chunk, yrt_range_fn fn, const void *ctx);

/* A tensor's range measured over the pool: one [lo, hi] slot per range of units (at most
 * YRT_RANGE_SLOTS ranges), folded by yrt_range_fold into [min(0, lo...), max(0, hi...)] (the
 * range dynamic quantization takes). */
#define YRT_RANGE_SLOTS 64
void yrt_range_fold(const float *lohi, size_t ranges, float *lo, float *hi);

/* Threads of pool (1 when NULL). */
size_t yrt_par_threads(pthreadpool_t pool);

#endif
