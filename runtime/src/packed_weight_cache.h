/* packed_weight_cache.h — packed conv weights made once per model and shared by all its sessions (each
 * session used to repack ~3 MB for YOLO11n). The model stays immutable to its readers: the
 * cache is filled under a mutex the first time a session prepares a conv, and freed with the
 * model (sessions must be freed first, as documented for the model itself). */
#ifndef YOLORT_PACKED_WEIGHT_CACHE_H
#define YOLORT_PACKED_WEIGHT_CACHE_H

#include <stdint.h>

#include "yk_qconv.h"
#include "yolort.h"

typedef struct yrt_model_packs yrt_model_packs;

yrt_model_packs *yrt_model_packs_create(uint32_t n_nodes);
void yrt_model_packs_free(yrt_model_packs *p);

/* q initialised (yk_qconv_init / packed_bytes) for node `node`: q->packed points at the model's
 * packed copy (made now by yk_qconv_pack if this is the first session), q->w_sym as packing set
 * it. Returns 1 when shared (never free q->packed), 0 when the cached copy was packed with
 * another layout (then the caller packs its own), -1 out of memory. */
int yrt_model_packed_qconv(yrt_model_packs *p, uint32_t node, yk_qconv *q);

#endif
