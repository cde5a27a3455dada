/* yrt_format.c — the .yrt framing (yolort_format.h): CRC, header check, section map, layout
 * and sealing of a new image. The one implementation the loader, the converter's writer,
 * yolort-bench and the tests share. */
#include <string.h>

#include "yolort_format.h"

_Static_assert(sizeof(yrt_file_header) == 64, "header layout");
_Static_assert(sizeof(yrt_section_rec) == 24, "section record layout");

const char *yrt_section_name(uint32_t kind) {
  static const char *const names[YRT_SEC_COUNT_] = {"?", "STRINGS", "TENSORS", "NODES", "WEIGHTS", "PLAN", "META",
                                                    "PACKED"};
  return kind < YRT_SEC_COUNT_ ? names[kind] : "?";
}

_Static_assert(sizeof(yrt_packed_hdr) == 32, "packed header layout");
_Static_assert(sizeof(yrt_packed_rec) == 64, "packed record layout");

static const char *const pack_targets[YRT_PACK_TARGET_COUNT_] = {
    NULL, "x86-avx2", "x86-avxvnni", "x86-avx512vnni", "x86-amx", "aarch64-neon", "aarch64-sdot"};

const char *yrt_pack_target_name(uint32_t target) {
  return target < YRT_PACK_TARGET_COUNT_ ? pack_targets[target] : NULL;
}

uint32_t yrt_pack_target_parse(const char *name) {
  for (uint32_t t = 1; name && t < YRT_PACK_TARGET_COUNT_; t++)
    if (strcmp(name, pack_targets[t]) == 0) return t;
  return 0;
}

/* PACKED's framing: the header, the records inside the section, each block YRT_ALIGN-aligned inside
 * it, nodes strictly increasing, reserved words 0. What a record's layout means for its node is the
 * runtime's to check (packed_weight_cache.c), as for every other record. */
static yrt_status map_packed(const uint8_t *base, const yrt_section_rec *s, yrt_file_view *im, yrt_error *err) {
  if (s->size < sizeof(yrt_packed_hdr))
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: PACKED section is %llu bytes, smaller than its header",
                         (unsigned long long)s->size);
  const yrt_packed_hdr *h = (const yrt_packed_hdr *)(const void *)(base + s->offset);
  if (!yrt_pack_target_name(h->target))
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "yrt: PACKED target %u is none this runtime knows (1..%u)",
                         (unsigned)h->target, (unsigned)YRT_PACK_TARGET_COUNT_ - 1);
  for (int i = 0; i < 6; i++)
    if (h->reserved[i])
      return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: PACKED reserved[%d] = 0x%x (must be 0)", i,
                           (unsigned)h->reserved[i]);
  if (h->n_entries > (s->size - sizeof *h) / sizeof(yrt_packed_rec))
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: PACKED lists %u records but its %llu bytes hold %llu",
                         (unsigned)h->n_entries, (unsigned long long)s->size,
                         (unsigned long long)((s->size - sizeof *h) / sizeof(yrt_packed_rec)));
  const yrt_packed_rec *r = (const yrt_packed_rec *)(const void *)(base + s->offset + sizeof *h);
  const uint64_t recs_end = sizeof *h + (uint64_t)h->n_entries * sizeof *r;
  for (uint32_t i = 0; i < h->n_entries; i++) {
    if (r[i].reserved[0] || r[i].reserved[1] || r[i].reserved[2])
      return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: PACKED record %u: reserved words must be 0", (unsigned)i);
    if (i > 0 && r[i].node <= r[i - 1].node)
      return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: PACKED record %u: node %u after node %u (strictly increasing)",
                           (unsigned)i, (unsigned)r[i].node, (unsigned)r[i - 1].node);
    if (r[i].offset % YRT_ALIGN != 0 || r[i].offset < recs_end || r[i].offset > s->size ||
        r[i].size > s->size - r[i].offset)
      return yrt_set_error(err, YRT_ERR_FORMAT,
                           "yrt: PACKED record %u (node %u): block [%llu, +%llu) is not %u-aligned or outside the "
                           "section's %llu bytes after its records",
                           (unsigned)i, (unsigned)r[i].node, (unsigned long long)r[i].offset,
                           (unsigned long long)r[i].size, YRT_ALIGN, (unsigned long long)s->size);
  }
  im->packed = h;
  im->packed_recs = r;
  im->packed_base = base + s->offset;
  return YRT_OK;
}

/* Table-driven; the table is built on the stack per call (1 KiB, a few microseconds) so there
 * is no global mutable state and no hand-typed constant table. */
uint32_t yrt_crc32(uint32_t crc, const void *data, size_t n) {
  uint32_t table[256];
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = (c & 1u) ? (0xEDB88320u ^ (c >> 1)) : (c >> 1);
    table[i] = c;
  }
  const uint8_t *p = (const uint8_t *)data;
  crc = ~crc;
  for (size_t i = 0; i < n; i++) crc = table[(crc ^ p[i]) & 0xFFu] ^ (crc >> 8);
  return ~crc;
}

uint32_t yrt_file_crc(const void *image, size_t size) {
  if (size < sizeof(yrt_file_header)) return 0;
  return yrt_crc32(0, (const uint8_t *)image + sizeof(yrt_file_header), size - sizeof(yrt_file_header));
}

void yrt_file_seal(void *image, size_t size) {
  if (size < sizeof(yrt_file_header)) return;
  const uint32_t crc = yrt_file_crc(image, size);
  memcpy((uint8_t *)image + offsetof(yrt_file_header, crc32), &crc, sizeof crc);
}

yrt_status yrt_file_check_header(const void *data, size_t size, yrt_error *err) {
  if (size < sizeof(yrt_file_header))
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: file is %zu bytes, smaller than the %zu-byte header", size,
                         sizeof(yrt_file_header));
  if ((uintptr_t)data % 8 != 0)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt: image at %p is not 8-byte aligned", data);
  const yrt_file_header *h = data;
  if (h->magic != YRT_MAGIC)
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: bad magic 0x%08x (want 0x%08x \"YRT1\")", (unsigned)h->magic,
                         (unsigned)YRT_MAGIC);
  if (h->version < YRT_VERSION_MIN || h->version > YRT_VERSION)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED,
                         "yrt: version %u, this runtime reads versions %u to %u (%s)", (unsigned)h->version,
                         (unsigned)YRT_VERSION_MIN, (unsigned)YRT_VERSION,
                         h->version > YRT_VERSION ? "a newer yolort-convert wrote it: update the runtime, or convert "
                                                    "with this release's yolort-convert"
                                                  : "re-convert the model with this release's yolort-convert");
  if (h->file_size != (uint64_t)size)
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: header says %llu bytes but the buffer holds %zu (truncated?)",
                         (unsigned long long)h->file_size, size);
  /* docs/format.md: flag bits this runtime does not know and reserved words must be 0 (the header
   * is outside the CRC, so these are checked on their own) */
  if (h->flags & ~(uint32_t)YRT_FLAG_KNOWN_)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED,
                         "yrt: header flags 0x%x have bits this runtime does not know (0x%x): a newer yolort-convert?",
                         (unsigned)h->flags, (unsigned)(h->flags & ~(uint32_t)YRT_FLAG_KNOWN_));
  for (int i = 0; i < 7; i++)
    if (h->reserved[i])
      return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: header reserved[%d] = 0x%x (must be 0)", i,
                           (unsigned)h->reserved[i]);
  const uint32_t crc = yrt_file_crc(data, size);
  if (crc != h->crc32)
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: crc32 mismatch (file 0x%08x, computed 0x%08x)",
                         (unsigned)h->crc32, (unsigned)crc);
  return YRT_OK;
}

yrt_status yrt_file_map(const void *data, size_t size, yrt_file_view *im, yrt_error *err) {
  memset(im, 0, sizeof *im);
  if (size < sizeof(yrt_file_header) || (uintptr_t)data % 8 != 0)
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: %zu-byte image at %p: too small or not 8-byte aligned", size,
                         data);
  const uint8_t *base = data;
  const yrt_file_header *h = data;
  im->hdr = h;
  if (h->n_sections < 1 || h->n_sections > YRT_MAX_SECTIONS)
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: n_sections = %u (1..%u)", (unsigned)h->n_sections,
                         YRT_MAX_SECTIONS);
  const uint64_t tab_off = h->section_table_offset;
  const uint64_t tab_bytes = (uint64_t)h->n_sections * sizeof(yrt_section_rec);
  if (tab_off < sizeof(yrt_file_header) || tab_off % 8 != 0 || tab_off > size || tab_bytes > size - tab_off)
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: section table at %llu (%llu bytes) is misaligned or outside the file",
                         (unsigned long long)tab_off, (unsigned long long)tab_bytes);
  const yrt_section_rec *sec = (const yrt_section_rec *)(const void *)(base + tab_off);
  const yrt_section_rec **by_kind = im->sec;
  for (uint32_t i = 0; i < h->n_sections; i++) {
    const yrt_section_rec *s = &sec[i];
    if (s->kind < 1 || s->kind >= YRT_SEC_COUNT_)
      return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: section %u has unknown kind %u", (unsigned)i, (unsigned)s->kind);
    if (s->reserved)
      return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: section %u (%s) reserved = 0x%x (must be 0)", (unsigned)i,
                           yrt_section_name(s->kind), (unsigned)s->reserved);
    if (by_kind[s->kind] != NULL)
      return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: section %s appears twice", yrt_section_name(s->kind));
    if (s->offset % YRT_ALIGN != 0 || s->offset < sizeof(yrt_file_header) || s->offset > size ||
        s->size > size - s->offset)
      return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: section %s [%llu, +%llu) is not %u-aligned or outside the %llu-byte file",
                           yrt_section_name(s->kind), (unsigned long long)s->offset, (unsigned long long)s->size,
                           YRT_ALIGN, (unsigned long long)size);
    /* Sections may not overlap the section table nor each other. */
    if (s->size > 0 && s->offset < tab_off + tab_bytes && tab_off < s->offset + s->size)
      return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: section %s overlaps the section table", yrt_section_name(s->kind));
    for (uint32_t k = 1; k < YRT_SEC_COUNT_; k++) {
      const yrt_section_rec *o = by_kind[k];
      if (o && s->size > 0 && o->size > 0 && s->offset < o->offset + o->size && o->offset < s->offset + s->size)
        return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: sections %s and %s overlap", yrt_section_name(s->kind),
                             yrt_section_name(k));
    }
    by_kind[s->kind] = s;
  }
  for (uint32_t k = 1; k < YRT_SEC_COUNT_; k++)
    if (by_kind[k] == NULL && k != YRT_SEC_PACKED)
      return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: section %s is missing", yrt_section_name(k));
  if (!by_kind[YRT_SEC_PACKED] != !(h->flags & YRT_FLAG_PACKED))
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: header flag PACKED is %d but the file %s a PACKED section",
                         !!(h->flags & YRT_FLAG_PACKED), by_kind[YRT_SEC_PACKED] ? "has" : "lacks");
  if (by_kind[YRT_SEC_PACKED]) {
    yrt_status pst = map_packed(base, by_kind[YRT_SEC_PACKED], im, err);
    if (pst != YRT_OK) return pst;
  }

  const yrt_section_rec *s;
  s = by_kind[YRT_SEC_STRINGS];
  im->strings = (const char *)(base + s->offset);
  im->strings_size = (size_t)s->size;

  s = by_kind[YRT_SEC_TENSORS];
  const size_t rec = h->version == 1 ? YRT_TENSOR_REC_V1_BYTES : sizeof(yrt_tensor_rec);
  if (s->size % rec != 0 || s->size / rec >= YRT_NONE)
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: TENSORS section is %llu bytes, not a multiple of the %zu-byte record",
                         (unsigned long long)s->size, rec);
  im->tensor_rec_bytes = (uint32_t)rec;
  im->tensor_recs = base + s->offset;
  im->tensors = rec == sizeof(yrt_tensor_rec) ? (const yrt_tensor_rec *)(const void *)(base + s->offset) : NULL;
  im->n_tensors = (uint32_t)(s->size / rec);
  if (im->n_tensors > YRT_MAX_TENSORS)
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: %u tensors, more than the %u a .yrt may hold",
                         (unsigned)im->n_tensors, (unsigned)YRT_MAX_TENSORS);

  s = by_kind[YRT_SEC_NODES];
  if (s->size % sizeof(yrt_node_rec) != 0 || s->size / sizeof(yrt_node_rec) > INT32_MAX)
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: NODES section is %llu bytes, not a multiple of the %zu-byte record",
                         (unsigned long long)s->size, sizeof(yrt_node_rec));
  im->nodes = (const yrt_node_rec *)(const void *)(base + s->offset);
  im->n_nodes = (uint32_t)(s->size / sizeof(yrt_node_rec));
  if (im->n_nodes > YRT_MAX_NODES)
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: %u nodes, more than the %u a .yrt may hold",
                         (unsigned)im->n_nodes, (unsigned)YRT_MAX_NODES);

  s = by_kind[YRT_SEC_WEIGHTS];
  im->weights = base + s->offset;
  im->weights_size = (size_t)s->size;

  s = by_kind[YRT_SEC_PLAN];
  if (s->size < sizeof(yrt_plan_rec))
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: PLAN section is %llu bytes, smaller than its record",
                         (unsigned long long)s->size);
  im->plan = (const yrt_plan_rec *)(const void *)(base + s->offset);
  if (s->size != sizeof(yrt_plan_rec) + 4ull * ((uint64_t)im->plan->n_inputs + im->plan->n_outputs))
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: PLAN section is %llu bytes but lists %u inputs and %u outputs",
                         (unsigned long long)s->size, (unsigned)im->plan->n_inputs, (unsigned)im->plan->n_outputs);
  im->plan_inputs = (const uint32_t *)(const void *)(base + s->offset + sizeof(yrt_plan_rec));
  im->plan_outputs = im->plan_inputs + im->plan->n_inputs;

  s = by_kind[YRT_SEC_META];
  if (s->size != sizeof(yrt_meta_rec) && s->size != sizeof(yrt_meta_rec) + sizeof(yrt_meta_norm_rec))
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: META section is %llu bytes, want %zu (or %zu with mean / std)",
                         (unsigned long long)s->size, sizeof(yrt_meta_rec),
                         sizeof(yrt_meta_rec) + sizeof(yrt_meta_norm_rec));
  im->meta = (const yrt_meta_rec *)(const void *)(base + s->offset);
  im->meta_norm = s->size > sizeof(yrt_meta_rec)
                      ? (const yrt_meta_norm_rec *)(const void *)(base + s->offset + sizeof(yrt_meta_rec))
                      : NULL;
  return YRT_OK;
}

/* Version 1 records are the current ones minus their trailing fields (view_holder,
 * view_channel): a prefix copy, the rest zero. */
_Static_assert(offsetof(yrt_tensor_rec, view_holder) == YRT_TENSOR_REC_V1_BYTES, "v1 tensor record is a prefix");

void yrt_file_tensor(const yrt_file_view *im, uint32_t i, yrt_tensor_rec *out) {
  memset(out, 0, sizeof *out);
  memcpy(out, im->tensor_recs + (size_t)i * im->tensor_rec_bytes, im->tensor_rec_bytes);
}

void yrt_file_upgrade_tensors(const yrt_file_view *im, yrt_tensor_rec *out) {
  for (uint32_t i = 0; i < im->n_tensors; i++) yrt_file_tensor(im, i, &out[i]);
}

yrt_status yrt_file_open(const void *data, size_t size, yrt_file_view *im, yrt_error *err) {
  memset(im, 0, sizeof *im);
  yrt_status st = yrt_file_check_header(data, size, err);
  return st != YRT_OK ? st : yrt_file_map(data, size, im, err);
}

static uint64_t align_up(uint64_t x) { return (x + YRT_ALIGN - 1) / YRT_ALIGN * YRT_ALIGN; }

void yrt_file_plan(const uint64_t size[YRT_SEC_COUNT_], yrt_file_layout *l) {
  memset(l, 0, sizeof *l);
  uint64_t pos = align_up(sizeof(yrt_file_header) + (YRT_SEC_COUNT_ - 1) * sizeof(yrt_section_rec));
  for (uint32_t k = 1; k < YRT_SEC_COUNT_; k++) {
    l->offset[k] = pos;
    l->size[k] = size[k];
    pos = align_up(pos + size[k]);
  }
  l->total = pos;
}

void yrt_file_finish(void *image, const yrt_file_layout *l, uint32_t flags) {
  uint8_t *img = image;
  uint32_t n = 0;
  flags &= ~(uint32_t)YRT_FLAG_PACKED;
  for (uint32_t k = 1; k < YRT_SEC_COUNT_; k++) {
    if (k == YRT_SEC_PACKED && !l->size[k]) continue; /* optional: left out when empty */
    if (k == YRT_SEC_PACKED) flags |= YRT_FLAG_PACKED;
    yrt_section_rec r;
    memset(&r, 0, sizeof r);
    r.kind = k;
    r.offset = l->offset[k];
    r.size = l->size[k];
    memcpy(img + sizeof(yrt_file_header) + (size_t)n++ * sizeof r, &r, sizeof r);
  }
  yrt_file_header h;
  memset(&h, 0, sizeof h);
  h.magic = YRT_MAGIC;
  h.version = YRT_VERSION;
  h.file_size = l->total;
  h.n_sections = n;
  h.section_table_offset = sizeof(yrt_file_header);
  h.flags = flags;
  memcpy(img, &h, sizeof h);
  yrt_file_seal(img, (size_t)l->total);
}
