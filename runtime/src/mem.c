/* mem.c — the runtime's one allocation path (mem.h). */
#include "mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct block_head {
  yrt_allocator a; /* by value: a session's or model's copy may be gone when the block is freed */
  size_t total;    /* what a->alloc was asked for */
} block_head;

_Static_assert(sizeof(block_head) <= YRT_MEM_HEADER, "block header fits its cache line");

static void *libc_alloc(void *user, size_t size, size_t align) {
  (void)user;
  return aligned_alloc(align, (size + align - 1) / align * align);
}

static void libc_free(void *user, void *p, size_t size) {
  (void)user;
  (void)size;
  free(p);
}

yrt_allocator yrt_mem_libc(void) { return (yrt_allocator){.alloc = libc_alloc, .free = libc_free, .user = NULL}; }

size_t yrt_mem_block_bytes(size_t bytes) { return bytes > SIZE_MAX - 2 * YRT_MEM_HEADER ? SIZE_MAX : bytes + YRT_MEM_HEADER; }

void *yrt_alloc(const yrt_allocator *a, size_t bytes) {
  const size_t total = yrt_mem_block_bytes(bytes);
  if (total == SIZE_MAX) return NULL;
  const yrt_allocator libc = yrt_mem_libc();
  if (!a || !a->alloc || !a->free) a = &libc;
  uint8_t *raw = a->alloc(a->user, total, YRT_MEM_HEADER);
  if (!raw) return NULL;
  if ((uintptr_t)raw % YRT_MEM_HEADER != 0) { /* a caller's allocator that ignored align: refuse it */
    a->free(a->user, raw, total);
    return NULL;
  }
  block_head h = {.a = *a, .total = total};
  memcpy(raw, &h, sizeof h);
  return raw + YRT_MEM_HEADER;
}

void *yrt_zalloc(const yrt_allocator *a, size_t n, size_t size) {
  if (size && n > SIZE_MAX / size) return NULL;
  void *p = yrt_alloc(a, n * size);
  if (p) memset(p, 0, n * size);
  return p;
}

void yrt_free(void *p) {
  if (!p) return;
  uint8_t *raw = (uint8_t *)p - YRT_MEM_HEADER;
  block_head h;
  memcpy(&h, raw, sizeof h);
  h.a.free(h.a.user, raw, h.total);
}
