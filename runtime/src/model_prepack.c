/* model_prepack.c — yrt_model_prepack (model_prepack.h): a session made for the target's ISA packs
 * the model's convs into the model's shared cache (packed_weight_cache.c, the same code every session
 * runs); those blocks, with their layouts, become the PACKED section of a copy of the image. */
#include "model_prepack.h"

#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "model_internal.h"
#include "packed_weight_cache.h"
#include "session_internal.h"

#if YK_ARCH_X86_64
#define BUILD_ARCH "x86-64"
#elif YK_ARCH_AARCH64
#define BUILD_ARCH "aarch64"
#else
#define BUILD_ARCH "another CPU"
#endif

/* The CPU features a target assumes (yolort_format.h), for this build's architecture; 0 when the
 * target is another architecture's. */
static int target_isa(uint32_t target, yk_isa *isa) {
  memset(isa, 0, sizeof *isa);
#if YK_ARCH_X86_64
  if (target < YRT_PACK_X86_AVX2 || target > YRT_PACK_X86_AMX) return 0;
  isa->avx2 = 1;
  isa->avxvnni = target == YRT_PACK_X86_AVXVNNI;
  isa->avx512 = isa->avx512vnni = isa->avx512vbmi = target >= YRT_PACK_X86_AVX512VNNI;
  isa->amx = target == YRT_PACK_X86_AMX;
#elif YK_ARCH_AARCH64
  if (target != YRT_PACK_AARCH64_NEON && target != YRT_PACK_AARCH64_SDOT) return 0;
  isa->neon = 1;
  isa->neon_dot = target == YRT_PACK_AARCH64_SDOT;
#else
  (void)target;
  return 0;
#endif
  yk_isa_select(isa);
  return 1;
}

typedef struct pack_out {
  uint8_t *sec;        /* the PACKED section being written, or NULL while sizing */
  uint32_t n;          /* records so far */
  uint64_t data;       /* bytes of blocks so far (each YRT_ALIGN-rounded) */
  uint64_t recs_end;   /* header + records: where the blocks start */
} pack_out;

static uint64_t align_up(uint64_t x) { return (x + YRT_ALIGN - 1) / YRT_ALIGN * YRT_ALIGN; }

static void put_block(void *ctx, uint32_t node, const yk_qconv *q, const void *packed) {
  pack_out *o = ctx;
  if (o->sec) {
    yrt_packed_rec r;
    memset(&r, 0, sizeof r);
    r.node = node;
    r.variant = q->variant;
    r.mr = q->mr;
    r.nz = q->nz;
    r.seg_span = q->seg_span;
    r.nseg = q->nseg;
    r.seg_bytes = q->seg_bytes;
    r.w_sym = q->w_sym;
    r.out_f32 = q->out_f32;
    r.offset = o->recs_end + o->data;
    r.size = q->packed_bytes;
    memcpy(o->sec + sizeof(yrt_packed_hdr) + (size_t)o->n * sizeof r, &r, sizeof r);
    memcpy(o->sec + r.offset, packed, q->packed_bytes);
  }
  o->n++;
  o->data += align_up(q->packed_bytes);
}

/* image's sections 1..META copied into a new image, with a PACKED section from packs' blocks
 * (packs NULL: none, the portable file). */
static yrt_status rebuild(const uint8_t *image, size_t size, const yrt_model_packs *packs, uint32_t target,
                          void **out, size_t *out_size, yrt_error *err) {
  yrt_file_view im;
  yrt_status st = yrt_file_map(image, size, &im, err);
  if (st != YRT_OK) return st;
  pack_out po = {0};
  yrt_model_packs_each(packs, put_block, &po);
  po.recs_end = align_up(sizeof(yrt_packed_hdr) + (uint64_t)po.n * sizeof(yrt_packed_rec));
  uint64_t sizes[YRT_SEC_COUNT_] = {0};
  for (uint32_t k = 1; k < YRT_SEC_PACKED; k++) sizes[k] = im.sec[k]->size;
  sizes[YRT_SEC_PACKED] = packs ? po.recs_end + po.data : 0;
  yrt_file_layout l;
  yrt_file_plan(sizes, &l);
  /* YRT_ALIGN-aligned (l.total is a multiple): loadable in place; free() releases it */
  uint8_t *img = l.total <= SIZE_MAX ? aligned_alloc(YRT_ALIGN, (size_t)l.total) : NULL;
  if (!img)
    return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for a %llu-byte model", (unsigned long long)l.total);
  memset(img, 0, (size_t)l.total);
  for (uint32_t k = 1; k < YRT_SEC_PACKED; k++) memcpy(img + l.offset[k], image + im.sec[k]->offset, sizes[k]);
  if (packs) {
    pack_out w = {.sec = img + l.offset[YRT_SEC_PACKED], .recs_end = po.recs_end};
    const yrt_packed_hdr h = {.target = target, .n_entries = po.n};
    memcpy(w.sec, &h, sizeof h);
    yrt_model_packs_each(packs, put_block, &w);
  }
  yrt_file_finish(img, &l, im.hdr->flags);
  *out = img;
  *out_size = (size_t)l.total;
  return YRT_OK;
}

yrt_status yrt_model_prepack(const void *yrt, size_t size, uint32_t target, void **out, size_t *out_size,
                             yrt_error *err) {
  if (!yrt || !out || !out_size) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_model_prepack: NULL argument");
  *out = NULL;
  *out_size = 0;
  const char *name = yrt_pack_target_name(target);
  if (!name) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_model_prepack: unknown target %u", (unsigned)target);
  yk_isa isa;
  if (!target_isa(target, &isa))
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED,
                         "yrt: target %s is packed by a yolort built for its architecture (this build's kernels are "
                         "for %s)",
                         name, BUILD_ARCH);
  yrt_model *m = NULL;
  yrt_status st = yrt_model_load_memory(yrt, size, 1, &m, err); /* checked: a hostile input is refused */
  if (st != YRT_OK) return st;
  yrt_model_free(m);
  /* the portable file first: a session of a file already packed would use its blocks in place
   * and pack nothing */
  void *portable = NULL;
  size_t portable_size = 0;
  if ((st = rebuild(yrt, size, NULL, 0, &portable, &portable_size, err)) != YRT_OK) return st;
  if ((st = yrt_model_load_memory(portable, portable_size, 0, &m, err)) != YRT_OK) {
    free(portable);
    return st;
  }
  /* an allocator keeps XNNPACK out (yolort.h): every conv our kernels can run is packed */
  const yrt_allocator libc = yrt_mem_libc();
  yrt_session_options o;
  yrt_session_options_init(&o);
  o.num_threads = 1;
  o.allocator = &libc;
  yrt_session *s = NULL;
  if ((st = yrt_session_create_isa(m, &o, &isa, &s, err)) == YRT_OK)
    st = rebuild(portable, portable_size, m->packs, target, out, out_size, err);
  yrt_session_free(s);
  yrt_model_free(m);
  free(portable);
  return st;
}
