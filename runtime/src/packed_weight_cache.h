/* packed_weight_cache.h — packed conv weights made once per model and shared by all its sessions (each
 * session used to repack ~3 MB for YOLO11n). The model stays immutable to its readers: the
 * cache is filled under a mutex the first time a session prepares a conv, and freed with the
 * model (sessions must be freed first, as documented for the model itself). */
#ifndef YOLORT_PACKED_WEIGHT_CACHE_H
#define YOLORT_PACKED_WEIGHT_CACHE_H

#include <stdint.h>

#include "yk.h"
#include "yk_qconv.h"
#include "yolort.h"

typedef struct yrt_model_packs yrt_model_packs;

/* alloc: the model's allocator (mem.h), which must outlive the packs; m: the model whose PACKED
 * section (if any) is used in place. */
struct yrt_model;
yrt_model_packs *yrt_model_packs_create(const struct yrt_model *m, uint32_t n_nodes, const yrt_allocator *alloc);
void yrt_model_packs_free(yrt_model_packs *p);

/* q initialised (yk_qconv_init / packed_bytes, for isa) for node `node`: q->packed points at the model's
 * packed copy (made now by yk_qconv_pack if this is the first session), q->w_sym as packing set
 * it. Returns 2 when the model file, packed for isa's target, holds the block in q's layout (its PACKED section: used in
 * place, nothing packed or allocated), 1 when shared (never free q->packed either), 0 when the
 * cached copy was packed with another layout (then the caller packs its own), -1 out of memory. */
int yrt_model_packed_qconv(yrt_model_packs *p, uint32_t node, yk_qconv *q, const yk_isa *isa);

/* fn(ctx, node, layout, bytes) for every node packed so far (node order); returns how many. */
typedef void (*yrt_model_pack_fn)(void *ctx, uint32_t node, const yk_qconv *q, const void *packed);
uint32_t yrt_model_packs_each(const yrt_model_packs *p, yrt_model_pack_fn fn, void *ctx);

/* The yrt_pack_target of this CPU (what its kernels choose), 0 when it has none (a CPU without
 * AVX2 or NEON: the portable file is all there is). */
uint32_t yrt_pack_target_native(void);
/* The same for the features in isa (a session's: its PACKED blocks are used only when the file's
 * target is this one). */
uint32_t yrt_pack_target_of(const yk_isa *isa);

#endif
