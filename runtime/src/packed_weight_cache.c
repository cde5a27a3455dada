/* packed_weight_cache.c — the per-model cache of packed conv weights (packed_weight_cache.h). */
#include "packed_weight_cache.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct pack_entry {
  void *mem;  /* NULL: not packed yet */
  yk_qconv q; /* the layout it was packed for (variant, blocking, segments, size) and w_sym */
} pack_entry;

struct yrt_model_packs {
  pthread_mutex_t mu;
  uint32_t n;
  pack_entry e[];
};

yrt_model_packs *yrt_model_packs_create(uint32_t n_nodes) {
  yrt_model_packs *p = calloc(1, sizeof *p + (size_t)n_nodes * sizeof(pack_entry));
  if (!p) return NULL;
  if (pthread_mutex_init(&p->mu, NULL) != 0) {
    free(p);
    return NULL;
  }
  p->n = n_nodes;
  return p;
}

void yrt_model_packs_free(yrt_model_packs *p) {
  if (!p) return;
  for (uint32_t i = 0; i < p->n; i++) free(p->e[i].mem);
  pthread_mutex_destroy(&p->mu);
  free(p);
}

/* Same packed bytes: the packing reads the same node's weights and bias for the same layout. */
static int same_layout(const yk_qconv *a, const yk_qconv *b) {
  return a->variant == b->variant && a->mr == b->mr && a->nz == b->nz && a->seg_span == b->seg_span &&
         a->nseg == b->nseg && a->seg_bytes == b->seg_bytes && a->packed_bytes == b->packed_bytes &&
         a->out_f32 == b->out_f32;
}

int yrt_model_packed_qconv(yrt_model_packs *p, uint32_t node, yk_qconv *q) {
  if (!p || node >= p->n) return 0;
  int r = 1;
  pthread_mutex_lock(&p->mu);
  pack_entry *e = &p->e[node];
  if (!e->mem) {
    void *mem = NULL;
    if (posix_memalign(&mem, 64, q->packed_bytes ? q->packed_bytes : 64) != 0) {
      r = -1;
    } else {
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
