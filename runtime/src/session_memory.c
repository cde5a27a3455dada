/* session_memory.c — yrt_session_memory_need: a session made and freed under a counting wrapper of
 * its allocator, so that the figure is what that allocator will be asked for, not an estimate kept
 * in step with the allocation sites by hand (docs/embedding.md, "Memory budget"). */
#include <stddef.h>
#include <string.h>

#include "mem.h"
#include "session_internal.h"
#include "caller_struct.h"

typedef struct counting {
  yrt_allocator inner; /* the caller's, or libc's */
  size_t live, high, blocks;
} counting;

static void *count_alloc(void *user, size_t size, size_t align) {
  counting *c = user;
  void *p = c->inner.alloc(c->inner.user, size, align);
  if (p) {
    c->live += size;
    c->blocks++;
    if (c->live > c->high) c->high = c->live;
  }
  return p;
}

static void count_free(void *user, void *p, size_t size) {
  counting *c = user;
  c->live -= size;
  c->blocks--;
  c->inner.free(c->inner.user, p, size);
}

/* yrt_session_memory as first published (yolort.h: growable). */
#define YRT_SESSION_MEMORY_V1_SIZE (offsetof(yrt_session_memory, in_place_bytes) + sizeof(size_t))

yrt_status yrt_session_memory_need_sized(const yrt_model *model, const yrt_session_options *opts,
                                         yrt_session_memory *mem, size_t mem_size, yrt_error *err) {
  if (!model || !mem)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_session_memory_need: %s is NULL", model ? "mem" : "model");
  yrt_session_options o;
  yrt_session_options_init(&o);
  if (opts) {
    yrt_status st = yrt_struct_read(opts, opts->struct_size, offsetof(yrt_session_options, struct_size), sizeof o, &o,
                                    "yrt_session_memory_need: options", err);
    if (st != YRT_OK) return st;
    o.struct_size = sizeof o;
  }
  if (o.allocator && (!o.allocator->alloc || !o.allocator->free))
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_session_memory_need: options.allocator without %s function",
                         o.allocator->alloc ? "a free" : "an alloc");
  counting c = {.inner = o.allocator ? *o.allocator : yrt_mem_libc()};
  const yrt_allocator wrap = {.alloc = count_alloc, .free = count_free, .user = &c};
  o.allocator = &wrap; /* measured as a session with an allocator: no XNNPACK (yolort.h) */
  const size_t model_before = atomic_load(&model->live);
  yrt_session *s = NULL;
  yrt_status st = yrt_session_create(model, &o, &s, err);
  if (st != YRT_OK) return st;
  yrt_session_memory full;
  memset(&full, 0, sizeof full);
  full.session_bytes = c.high;
  full.session_blocks = c.blocks;
  full.model_bytes = atomic_load(&model->live);
  full.shared_bytes = full.model_bytes - model_before;
  full.arena_bytes = yrt_model_arena_bytes(model);
  full.in_place_bytes = s->packed_in_place;
  yrt_session_free(s);
  return yrt_struct_write(mem, mem_size, &full, sizeof full, YRT_SESSION_MEMORY_V1_SIZE, "yrt_session_memory_need",
                          err);
}
