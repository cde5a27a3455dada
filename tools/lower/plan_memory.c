/* plan_memory.c — arena offsets for every ACT/INPUT/OUTPUT tensor (views: inside their holder).
 * Liveness in node order (first write .. last read, inclusive, so a node's output never
 * overlaps its inputs); graph inputs/outputs live the whole run. Placement is greedy first-fit
 * by decreasing size (TFLite Micro's GreedyMemoryPlanner idea), 64-byte aligned. */
#include <stdlib.h>

#include "lower_internal.h"

static uint64_t align64(uint64_t x) { return (x + 63u) & ~(uint64_t)63u; }

typedef struct plan_item {
  int t;
  uint64_t size;
} plan_item;

static int by_size_desc(const void *a, const void *b) {
  const plan_item *x = a, *y = b;
  if (x->size != y->size) return x->size < y->size ? 1 : -1;
  return x->t - y->t;
}

static int by_offset(const void *a, const void *b) {
  const plan_item *x = a, *y = b; /* size field reused as offset here */
  if (x->size != y->size) return x->size < y->size ? -1 : 1;
  return x->t - y->t;
}

yrt_status lw_plan_memory(lw_ctx *c) {
  int nt = c->nt, nn = c->nn;
  for (int i = 0; i < nt; i++) {
    c->t[i].first = c->t[i].last = -1;
    c->t[i].offset = 0;
  }
  for (int k = 0; k < nn; k++) {
    const lw_node *n = &c->n[k];
    for (int j = 0; j < n->n_out; j++) {
      lw_tensor *t = &c->t[n->out[j]];
      if (t->first < 0) t->first = k;
      if (t->last < k) t->last = k;
    }
    for (int j = 0; j < n->n_in; j++) {
      lw_tensor *t = &c->t[n->in[j]];
      if (t->first < 0) t->first = k;
      if (t->last < k) t->last = k;
    }
  }
  /* An int8 Add right after the conv that makes one of its inputs is run by the runtime in that
   * conv's own tasks (the conv row's absorb_next), each task adding its rows as soon as it
   * wrote them: the Add's output must then not share bytes with the conv's input, which the
   * other tasks still read. Keeping that input alive through the Add says so. */
  for (int k = 1; k < nn; k++) {
    const lw_node *a = &c->n[k], *v = &c->n[k - 1];
    if (a->op != YRT_OP_BINARY || a->n_in != 2 || v->op != YRT_OP_CONV2D || c->t[a->out[0]].dtype != YRT_I8 ||
        c->t[v->out[0]].dtype != YRT_I8 || (a->in[0] != v->out[0] && a->in[1] != v->out[0]))
      continue;
    lw_tensor *x = &c->t[v->in[0]];
    if (x->last < k) x->last = k;
  }
  plan_item *items = malloc(sizeof(plan_item) * (size_t)(nt ? nt : 1));
  plan_item *placed = malloc(sizeof(plan_item) * (size_t)(nt ? nt : 1));
  if (!items || !placed) {
    free(items);
    free(placed);
    return lw_err(c, YRT_ERR_NOMEM, "convert: out of memory (memory plan)");
  }
  int n_items = 0;
  for (int i = 0; i < nt; i++) {
    lw_tensor *t = &c->t[i];
    if (t->kind != YRT_TENSOR_CONST && (t->kind != YRT_TENSOR_ACT || t->first < 0)) { /* I/O, unused */
      t->first = 0;
      t->last = nn;
    }
  }
  /* A view lives in its holder: the holder's buffer is needed from the first view's write to
   * the last read of any of them (plan_views.c). */
  for (int i = 0; i < nt; i++) {
    const lw_tensor *t = &c->t[i];
    if (!t->view_holder) continue;
    lw_tensor *h = &c->t[t->view_holder - 1];
    if (t->first < h->first) h->first = t->first;
    if (t->last > h->last) h->last = t->last;
  }
  for (int i = 0; i < nt; i++) {
    lw_tensor *t = &c->t[i];
    if (t->kind == YRT_TENSOR_CONST || t->view_holder) continue;
    items[n_items].t = i;
    items[n_items].size = align64(t->nbytes ? t->nbytes : 1);
    n_items++;
  }
  qsort(items, (size_t)n_items, sizeof *items, by_size_desc);
  uint64_t arena = 0;
  for (int i = 0; i < n_items; i++) {
    lw_tensor *t = &c->t[items[i].t];
    /* conflicts: already placed tensors whose lifetime overlaps, sorted by offset */
    int nc = 0;
    for (int j = 0; j < i; j++) {
      const lw_tensor *u = &c->t[items[j].t];
      if (u->first <= t->last && t->first <= u->last) {
        placed[nc].t = items[j].t;
        placed[nc].size = u->offset;
        nc++;
      }
    }
    qsort(placed, (size_t)nc, sizeof *placed, by_offset);
    uint64_t off = 0;
    for (int j = 0; j < nc; j++) {
      const lw_tensor *u = &c->t[placed[j].t];
      uint64_t u_end = u->offset + align64(u->nbytes ? u->nbytes : 1);
      if (off + items[i].size <= u->offset) break; /* fits in the gap before u */
      if (u_end > off) off = u_end;
    }
    t->offset = off;
    if (off + items[i].size > arena) arena = off + items[i].size;
  }
  for (int i = 0; i < nt; i++) {
    lw_tensor *t = &c->t[i];
    if (t->view_holder) t->offset = c->t[t->view_holder - 1].offset + (uint64_t)t->view_ch * yrt_dtype_size(t->dtype);
  }
  free(items);
  free(placed);
  c->arena_bytes = arena;
  return YRT_OK;
}
