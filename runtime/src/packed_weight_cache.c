/* packed_weight_cache.c — the per-model cache of packed conv weights (packed_weight_cache.h). */
#include "packed_weight_cache.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "model_internal.h"

typedef struct pack_entry {
  void *mem;  /* NULL: not packed yet */
  yk_qconv q; /* the layout it was packed for (variant, blocking, segments, size) and w_sym */
} pack_entry;

struct yrt_model_packs {
  const yrt_model *m;         /* its PACKED records, used in place before packing */
  pthread_mutex_t mu;
  const yrt_allocator *alloc; /* the model's */
  uint32_t n;
  pack_entry e[];
};

yrt_model_packs *yrt_model_packs_create(const yrt_model *m, uint32_t n_nodes, const yrt_allocator *alloc) {
  yrt_model_packs *p = yrt_zalloc(alloc, 1, sizeof *p + (size_t)n_nodes * sizeof(pack_entry));
  if (!p) return NULL;
  if (pthread_mutex_init(&p->mu, NULL) != 0) {
    yrt_free(p);
    return NULL;
  }
  p->alloc = alloc;
  p->m = m;
  p->n = n_nodes;
  return p;
}

void yrt_model_packs_free(yrt_model_packs *p) {
  if (!p) return;
  for (uint32_t i = 0; i < p->n; i++) yrt_free(p->e[i].mem);
  pthread_mutex_destroy(&p->mu);
  yrt_free(p);
}

/* Same packed bytes: the packing reads the same node's weights and bias for the same layout. */
static int same_layout(const yk_qconv *a, const yk_qconv *b) {
  return a->variant == b->variant && a->mr == b->mr && a->nz == b->nz && a->seg_span == b->seg_span &&
         a->nseg == b->nseg && a->seg_bytes == b->seg_bytes && a->packed_bytes == b->packed_bytes &&
         a->out_f32 == b->out_f32;
}

/* The file's block for node when the file is packed for isa's target and its record has q's
 * layout (init chose what the converter's target chose) and q's size, else NULL (records by strictly increasing node: yrt_format.c). */
static const yrt_packed_rec *file_block(const yrt_model *m, uint32_t node, const yk_qconv *q, const yk_isa *isa) {
  if (!m || !m->packed || m->packed->target != yrt_pack_target_of(isa)) return NULL; /* another CPU's */
  uint32_t lo = 0, hi = m->packed->n_entries;
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (m->packed_recs[mid].node < node) lo = mid + 1;
    else hi = mid;
  }
  if (lo == m->packed->n_entries) return NULL;
  const yrt_packed_rec *r = &m->packed_recs[lo];
  const yk_qconv f = {.variant = r->variant, .mr = r->mr, .nz = r->nz, .seg_span = r->seg_span, .nseg = r->nseg,
                      .seg_bytes = r->seg_bytes, .packed_bytes = (size_t)r->size, .out_f32 = r->out_f32};
  return r->node == node && r->size && same_layout(&f, q) ? r : NULL;
}

int yrt_model_packed_qconv(yrt_model_packs *p, uint32_t node, yk_qconv *q, const yk_isa *isa) {
  if (!p || node >= p->n) return 0;
  const yrt_packed_rec *fr = file_block(p->m, node, q, isa);
  if (fr) { /* in place: read-only bytes of the model (no copy, nothing allocated) */
    q->packed = (void *)(uintptr_t)(p->m->packed_base + fr->offset);
    q->w_sym = fr->w_sym;
    return 2;
  }
  int r = 1;
  pthread_mutex_lock(&p->mu);
  pack_entry *e = &p->e[node];
  if (!e->mem) {
    void *mem = yrt_alloc(p->alloc, q->packed_bytes ? q->packed_bytes : 64);
    if (!mem) {
      r = -1;
    } else {
      /* zeroed first: the packer leaves its padding unwritten, and these bytes may be written to a
       * file (yolort-convert --target), which must not depend on what the memory held */
      memset(mem, 0, q->packed_bytes ? q->packed_bytes : 64);
      yk_qconv_pack(q, mem);
      e->mem = mem;
      e->q = *q;
    }
  } else if (!same_layout(&e->q, q)) {
    r = 0;
  }
  if (r == 1) {
    q->packed = e->mem;
    q->w_sym = e->q.w_sym;
  }
  pthread_mutex_unlock(&p->mu);
  return r;
}

uint32_t yrt_model_packs_each(const yrt_model_packs *p, yrt_model_pack_fn fn, void *ctx) {
  uint32_t n = 0;
  for (uint32_t i = 0; p && i < p->n; i++)
    if (p->e[i].mem) {
      if (fn) fn(ctx, i, &p->e[i].q, p->e[i].mem);
      n++;
    }
  return n;
}

uint32_t yrt_pack_target_of(const yk_isa *c) {
#if YK_ARCH_X86_64
  if (c->amx && c->avx512vnni && c->avx512vbmi) return YRT_PACK_X86_AMX;
  if (c->avx512vnni && c->avx512vbmi) return YRT_PACK_X86_AVX512VNNI;
  if (c->avxvnni) return YRT_PACK_X86_AVXVNNI;
  if (c->avx2) return YRT_PACK_X86_AVX2;
#elif YK_ARCH_AARCH64
  if (c->neon_dot) return YRT_PACK_AARCH64_SDOT;
  if (c->neon) return YRT_PACK_AARCH64_NEON;
#endif
  (void)c; /* ARMv7 and others: no target (their kernels are not packed this way) */
  return 0;
}

uint32_t yrt_pack_target_native(void) {
  yk_isa c;
  yk_isa_detect(&c);
  return yrt_pack_target_of(&c);
}
