/* model_internal.h — the loaded model as the runtime sees it (after validation), and the
 * validation passes model_load.c runs. Nothing here is used before yrt_model_validate passed. */
#ifndef YOLORT_MODEL_INTERNAL_H
#define YOLORT_MODEL_INTERNAL_H

#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "yolort.h"
#include "yolort_format.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "yolort reads .yrt files in place and needs a little-endian target"
#endif

_Static_assert(sizeof(yrt_tensor_rec) == 96, "tensor record layout");
_Static_assert(sizeof(yrt_node_rec) == 192, "node record layout");
_Static_assert(sizeof(yrt_plan_rec) == 16, "plan record layout");
_Static_assert(sizeof(yrt_meta_rec) == 64, "meta record layout");
_Static_assert(sizeof(yrt_meta_norm_rec) == 32, "meta norm record layout");

struct yrt_op_table;

struct yrt_model {
  const struct yrt_op_table *ops; /* the node kinds it is validated and run with (op_def.h) */
  const uint8_t *base; /* the file image, YRT_ALIGN aligned */
  size_t size;
  void *owned;         /* aligned copy to free, or NULL */
  yrt_tensor_rec *tensors_upgraded; /* an older version's tensor records widened (tensors), or NULL */
  void *map;           /* mmap'ed file to unmap, or NULL */
  size_t map_len;

  const yrt_file_header *hdr;
  const char *strings;
  size_t strings_size;
  const yrt_tensor_rec *tensors;
  uint32_t n_tensors;
  const yrt_node_rec *nodes;
  uint32_t n_nodes;
  const uint8_t *weights;
  size_t weights_size;
  const yrt_plan_rec *plan;
  const uint32_t *plan_inputs;
  const uint32_t *plan_outputs;
  const yrt_meta_rec *meta;
  const yrt_meta_norm_rec *meta_norm; /* NULL: mean 0, std 1 */
  yrt_preprocess pre;                 /* META's preprocessing, checked (load_meta) */

  /* class names split out of the META string: names[i] -> NUL-terminated copy */
  char *class_name_buf;
  const char **class_names;
  int n_class_names;

  /* packed conv weights shared by the sessions (packed_weight_cache.h); the only part of a loaded model
   * that changes, under its own mutex */
  struct yrt_model_packs *packs;
  /* the file's PACKED section (yolort_format.h), NULL when it has none: blocks used in place */
  const yrt_packed_hdr *packed;
  const yrt_packed_rec *packed_recs;
  const uint8_t *packed_base;

  /* Every block of the model comes from alloc (mem.h): a counting wrapper (user = this model)
   * around the load's allocator (user_alloc, libc's by default); live is what the model holds
   * from it, its own struct included (model_load.c). */
  yrt_allocator alloc;
  yrt_allocator user_alloc;
  _Atomic size_t live;
};

/* Bytes of slack after the planned arena: SIMD kernels (XNNPACK) may read up to 16 bytes past a
 * tensor's end. */
#define YRT_ARENA_SLACK 64u

/* Arena bytes a session needs: the plan's peak, plus slack, rounded up to YRT_ALIGN. */
static inline size_t yrt_model_arena_bytes(const yrt_model *m) {
  return (size_t)((m->plan->arena_bytes + YRT_ARENA_SLACK + YRT_ALIGN - 1) / YRT_ALIGN * YRT_ALIGN);
}

/* Validation passes, in order; each returns YRT_OK or an error with a message. They assume
 * the previous passes succeeded (the section pointers above are filled by model_load.c). */
yrt_status yrt_validate_tensors(const yrt_model *m, yrt_error *err);
yrt_status yrt_validate_nodes(const yrt_model *m, yrt_error *err);
yrt_status yrt_validate_views(const yrt_model *m, yrt_error *err);
yrt_status yrt_validate_plan(const yrt_model *m, yrt_error *err);

/* Is [off, off+len) inside the string section with a NUL before its end? Inline: the loader and
 * every validation pass ask it (a function in model_load.c made each pass a circle with it). */
static inline int yrt_model_string_ok(const yrt_model *m, uint32_t off) {
  if ((size_t)off >= m->strings_size) return 0;
  return memchr(m->strings + off, '\0', m->strings_size - off) != NULL;
}
/* String at offset (only after validation). */
static inline const char *yrt_model_string(const yrt_model *m, uint32_t off) {
  return m->strings + off;
}

/* Element count of a validated tensor. */
static inline size_t yrt_tensor_numel(const yrt_tensor_rec *t) {
  size_t n = 1;
  for (uint32_t i = 0; i < t->rank; i++) n *= (size_t)t->dims[i];
  return n;
}

/* Constant data of a validated CONST tensor. */
static inline const void *yrt_tensor_const_data(const yrt_model *m, const yrt_tensor_rec *t) {
  return m->weights + t->offset;
}

/* Views (yrt_tensor_rec.view_holder): the tensor holding t's bytes (t itself when not a view),
 * t's first channel in it, and the pixel stride in elements (the holder's C; an NHWC view's own
 * C when dense). Only after validation. */
static inline uint32_t yrt_view_root(const yrt_model *m, uint32_t t) {
  return m->tensors[t].view_holder ? m->tensors[t].view_holder - 1 : t;
}
static inline int yrt_is_view(const yrt_tensor_rec *t) { return t->view_holder != 0; }
static inline size_t yrt_pixel_stride(const yrt_model *m, const yrt_tensor_rec *t) {
  const yrt_tensor_rec *h = t->view_holder ? &m->tensors[t->view_holder - 1] : t;
  return (size_t)h->dims[h->rank ? h->rank - 1 : 0];
}

/* Per-channel scales of a validated tensor, or NULL when per-tensor. */
static inline const float *yrt_tensor_scales(const yrt_model *m, const yrt_tensor_rec *t) {
  return t->n_scales > 1 ? (const float *)(const void *)(m->weights + t->scales_offset) : NULL;
}

#endif
