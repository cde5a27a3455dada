/* mem.h — every block the runtime allocates goes through a yrt_allocator (yolort.h): the caller's,
 * or libc's when none was given. A 64-byte header in front of each block records the allocator and
 * the block's size, so the code that frees a block (a kind's release, yrt_model_free) need not know
 * which allocator made it, and the caller's free callback gets the size it was asked for. */
#ifndef YOLORT_MEM_H
#define YOLORT_MEM_H

#include <stddef.h>

#include "yolort.h"

/* Bytes in front of each block (one cache line: blocks stay 64-byte aligned). */
#define YRT_MEM_HEADER 64u

/* bytes (0 allowed) 64-byte aligned, uninitialised; NULL when out of memory. a NULL: libc. */
void *yrt_alloc(const yrt_allocator *a, size_t bytes);
/* Zeroed n * size bytes (NULL also on overflow). */
void *yrt_zalloc(const yrt_allocator *a, size_t n, size_t size);
/* A block of yrt_alloc / yrt_zalloc, or NULL. */
void yrt_free(void *p);

/* libc's aligned_alloc / free as a yrt_allocator (the default). */
yrt_allocator yrt_mem_libc(void);

/* What the allocator is asked for a block of `bytes` (the header included). */
size_t yrt_mem_block_bytes(size_t bytes);

#endif
