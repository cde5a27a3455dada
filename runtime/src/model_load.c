/* model_load.c — getting a .yrt image into memory (mmap, copy or in place), checking its
 * header and section table (through the format module, yrt_format.c), and the model accessors. The per-record checks live in
 * model_validate_*.c; nothing in the file is used before all of them passed. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model_internal.h"
#include "model_heads.h"
#include "caller_struct.h"
#include "open_regular.h"
#include "packed_weight_cache.h"
#include "mem.h"
#include "letterbox_geometry.h"
#include "op_table.h"

/* Header and section table (yrt_format.c); the section pointers copied into the model. */
static yrt_status map_image(yrt_model *m, yrt_error *err) {
  yrt_status st = yrt_file_check_header(m->base, m->size, err);
  if (st != YRT_OK) return st;
  yrt_file_view im;
  if ((st = yrt_file_map(m->base, m->size, &im, err)) != YRT_OK) return st;
  m->strings = im.strings;
  m->strings_size = im.strings_size;
  m->tensors = im.tensors;
  m->n_tensors = im.n_tensors;
  if (!im.tensors) { /* an older version's records, widened once (docs/compatibility.md) */
    if (!(m->tensors_upgraded = yrt_alloc(&m->alloc, sizeof(yrt_tensor_rec) * (im.n_tensors ? im.n_tensors : 1u))))
      return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for %u version-%u tensor records",
                           (unsigned)im.n_tensors, (unsigned)im.hdr->version);
    yrt_file_upgrade_tensors(&im, m->tensors_upgraded);
    m->tensors = m->tensors_upgraded;
  }
  m->nodes = im.nodes;
  m->n_nodes = im.n_nodes;
  m->weights = im.weights;
  m->weights_size = im.weights_size;
  m->plan = im.plan;
  m->plan_inputs = im.plan_inputs;
  m->plan_outputs = im.plan_outputs;
  m->meta = im.meta;
  m->meta_norm = im.meta_norm;
  m->packed = im.packed;
  m->packed_recs = im.packed_recs;
  m->packed_base = im.packed_base;
  for (uint32_t i = 0; m->packed && i < m->packed->n_entries; i++)
    if (m->packed_recs[i].node >= m->n_nodes)
      return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: PACKED record %u names node %u of %u", (unsigned)i,
                           (unsigned)m->packed_recs[i].node, (unsigned)m->n_nodes);
  return YRT_OK;
}

/* META's preprocessing: flags, pad, scale and the optional mean / std record, checked, into m->pre. */
static yrt_status load_preprocess(yrt_model *m, yrt_error *err) {
  const yrt_meta_rec *mt = m->meta;
  const uint32_t fl = mt->preprocess;
  if (fl & ~(uint32_t)YRT_PRE_KNOWN_)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED,
                         "yrt: META preprocess flags 0x%x have bits this runtime does not know (0x%x): a newer "
                         "converter's preprocessing, refused rather than run wrong",
                         (unsigned)fl, (unsigned)(fl & ~(uint32_t)YRT_PRE_KNOWN_));
  const uint32_t mode = (fl & YRT_PRE_RESIZE_MASK) >> YRT_PRE_RESIZE_SHIFT;
  if (mode > YRT_RESIZE_CROP)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "yrt: META preprocess resize mode %u (0 letterbox, 1 stretch, 2 crop)",
                         (unsigned)mode);
  if (!!(fl & YRT_PRE_MEAN_STD) != (m->meta_norm != NULL))
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: META preprocess flag mean/std is %d but META %s the mean/std record",
                         !!(fl & YRT_PRE_MEAN_STD), m->meta_norm ? "has" : "lacks");
  yrt_preprocess *p = &m->pre;
  yrt_preprocess_default(p);
  p->bgr = (fl & YRT_PRE_BGR) != 0;
  p->top_left = (fl & YRT_PRE_TOP_LEFT) != 0;
  p->resize = (int)mode;
  p->pad = mt->pad_value;
  p->scale = mt->norm_scale;
  if (m->meta_norm) {
    const yrt_meta_norm_rec *n = m->meta_norm;
    if (n->reserved[0] || n->reserved[1])
      return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: META mean/std reserved words (%u, %u) must be 0",
                           (unsigned)n->reserved[0], (unsigned)n->reserved[1]);
    for (int c = 0; c < 3; c++) p->mean[c] = n->mean[c], p->std[c] = n->std[c];
  }
  return yrt_preprocess_check(p, "yrt: META", err);
}

/* META: sizes and the class-name list, split into NUL-terminated copies. */
static yrt_status load_meta(yrt_model *m, yrt_error *err) {
  const yrt_meta_rec *mt = m->meta;
  if (mt->input_w < 1 || mt->input_w > 65536 || mt->input_h < 1 || mt->input_h > 65536)
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: META input size %ux%u out of range",
                         (unsigned)mt->input_w, (unsigned)mt->input_h);
  if (mt->num_classes > YRT_MAX_CLASSES)
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: META num_classes %u > %u", (unsigned)mt->num_classes,
                         YRT_MAX_CLASSES);
  if (!yrt_model_string_ok(m, mt->class_names) || !yrt_model_string_ok(m, mt->source) ||
      !yrt_model_string_ok(m, mt->task))
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: META string offsets (%u, %u, %u) outside the string table",
                         (unsigned)mt->class_names, (unsigned)mt->source, (unsigned)mt->task);
  const char *task = yrt_model_string(m, mt->task);
  if (task[0] && strcmp(task, "detect") != 0 && strcmp(task, "segment") != 0 && strcmp(task, "classify") != 0 &&
      strcmp(task, "pose") != 0 && strcmp(task, "obb") != 0)
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: META task '%.32s' (detect, segment, pose, obb, classify or none)",
                         task);
  if ((m->hdr->flags & YRT_FLAG_CLASS_LOGITS) && strcmp(task, "classify") != 0)
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: header flag CLASS_LOGITS on a model whose task is '%.32s', not 'classify'",
                         task);
  if (mt->nms_flags & ~(uint32_t)YRT_NMS_KNOWN_)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "yrt: META nms flags 0x%x have bits this runtime does not know",
                         (unsigned)mt->nms_flags);
  if (!(mt->nms_flags & YRT_NMS_SET) && (mt->nms_flags || mt->nms_iou != 0.0f || mt->nms_conf != 0.0f))
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: META nms fields set without the NMS flag");
  if ((mt->nms_flags & YRT_NMS_SET) && (!(mt->nms_iou >= 0.0f && mt->nms_iou <= 1.0f) ||
                                        !(mt->nms_conf >= 0.0f && mt->nms_conf < 1.0f)))
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: META nms IoU %g / score %g outside [0, 1] / [0, 1)",
                         (double)mt->nms_iou, (double)mt->nms_conf);
  yrt_status st = load_preprocess(m, err);
  if (st != YRT_OK) return st;
  const char *names = yrt_model_string(m, mt->class_names);
  size_t len = strlen(names);
  if (len == 0) return YRT_OK; /* numbered classes */
  if (len > 0 && names[len - 1] == '\n') len--; /* tolerate one trailing newline */
  size_t count = 1;
  for (size_t i = 0; i < len; i++) count += names[i] == '\n';
  if (count != mt->num_classes)
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: META lists %zu class names for %u classes", count,
                         (unsigned)mt->num_classes);
  m->class_name_buf = yrt_alloc(&m->alloc, len + 1);
  m->class_names = yrt_alloc(&m->alloc, count * sizeof(*m->class_names));
  if (!m->class_name_buf || !m->class_names)
    return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for %zu class names", count);
  memcpy(m->class_name_buf, names, len);
  m->class_name_buf[len] = '\0';
  size_t k = 0;
  m->class_names[k++] = m->class_name_buf;
  for (size_t i = 0; i < len; i++) {
    if (m->class_name_buf[i] == '\n') {
      m->class_name_buf[i] = '\0';
      m->class_names[k++] = m->class_name_buf + i + 1;
    }
  }
  m->n_class_names = (int)count;
  return YRT_OK;
}

/* META's letterbox size must be input 0's: a float rank-4 3-channel input is an RGB image of
 * exactly META's W x H, anything else has META 1x1 (no image). Without this a 1-channel model, or
 * a META that disagrees with the tensor, made pre-processing write past the input (issue 19). */
static yrt_status check_meta_input(const yrt_model *m, yrt_error *err) {
  const yrt_meta_rec *mt = m->meta;
  int image = 0, w = 1, h = 1;
  if (m->plan->n_inputs > 0) {
    const yrt_tensor_rec *t = &m->tensors[m->plan_inputs[0]];
    const int nhwc = t->layout == YRT_LAYOUT_NHWC;
    if (t->rank == 4 && t->dtype == YRT_F32 && t->dims[nhwc ? 3 : 1] == 3) {
      image = 1;
      h = t->dims[nhwc ? 1 : 2];
      w = t->dims[nhwc ? 2 : 3];
    }
  }
  if ((int64_t)mt->input_w == w && (int64_t)mt->input_h == h) return YRT_OK;
  if (image)
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: META input size %ux%u, but input 0 is a %dx%d RGB image",
                         (unsigned)mt->input_w, (unsigned)mt->input_h, w, h);
  return yrt_set_error(err, YRT_ERR_FORMAT,
                       "yrt: META input size %ux%u, but input 0 is not a 3-channel float image (META must be 1x1)",
                       (unsigned)mt->input_w, (unsigned)mt->input_h);
  return YRT_OK;
}

/* A classifier's output 0 is its num_classes scores, float, one row ([1, nc] or [1, nc, 1, 1]):
 * yrt_session_classify reads num_classes floats from it. */
static yrt_status check_classify(const yrt_model *m, yrt_error *err) {
  if (strcmp(yrt_model_string(m, m->meta->task), "classify") != 0) return YRT_OK;
  if (m->plan->n_outputs < 1 || m->meta->num_classes < 1)
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: a 'classify' model with %u outputs and %u classes (needs >= 1 of each)",
                         (unsigned)m->plan->n_outputs, (unsigned)m->meta->num_classes);
  const yrt_tensor_rec *t = &m->tensors[m->plan_outputs[0]];
  size_t numel = 1;
  for (uint32_t d = 0; d < t->rank; d++) numel *= (size_t)t->dims[d];
  if (t->dtype != YRT_F32 || numel != m->meta->num_classes || (t->rank > 1 && t->dims[0] != 1))
    return yrt_set_error(err, YRT_ERR_FORMAT,
                         "yrt: a 'classify' model's output 0 must be float [1, %u] (it is %s with %zu elements)",
                         (unsigned)m->meta->num_classes, t->dtype == YRT_F32 ? "float" : "not float", numel);
  return YRT_OK;
}

/* output0's rows against META's class count: a detection output [1, R, A] (not NHWC) has
 * R = 4 + num_classes rows, or more when the task is "segment" (the mask coefficients follow the
 * scores and the decode ignores them); an end-to-end one is [1, K, 6] with num_classes >= 1.
 * Without this a segment model decoded its 32 mask coefficients as classes 80..111, and an
 * end-to-end file with its flag cleared gave class 282, score 665 (issue 40). num_classes 0 or
 * at most 4 rows: not a detection model (yrt_session_detect refuses it). */
static yrt_status check_meta_classes(const yrt_model *m, yrt_error *err) {
  if (m->plan->n_outputs < 1) return YRT_OK;
  const yrt_tensor_rec *t = &m->tensors[m->plan_outputs[0]];
  const int64_t nc = m->meta->num_classes;
  if (m->hdr->flags & YRT_FLAG_END2END) {
    if (t->rank != 3 || t->dims[0] != 1 || t->dims[2] < 6 || t->layout == YRT_LAYOUT_NHWC || nc < 1)
      return yrt_set_error(err, YRT_ERR_FORMAT,
                           "yrt: end-to-end flag set, but output0 is not [1, K, 6 (+ extra)] of %lld classes (rank %u, dims %d x %d x %d)",
                           (long long)nc, (unsigned)t->rank, t->dims[0], t->rank > 1 ? t->dims[1] : 0,
                           t->rank > 2 ? t->dims[2] : 0);
    return yrt_e2e_check_columns(m, t->dims[2], err);
  }
  /* [1, R <= 4, A]: no score rows, never decoded as detections */
  if (nc == 0 || t->rank != 3 || t->dims[0] != 1 || t->dims[1] <= 4 || t->layout == YRT_LAYOUT_NHWC) return YRT_OK;
  const int64_t rows = t->dims[1];
  /* an obb model: output0 is its rotated decode's, the angle row after the scores, and only then */
  const int obb_task = strcmp(yrt_model_string(m, m->meta->task), "obb") == 0, rotated = yrt_model_rotated(m);
  if (obb_task != rotated || (rotated && rows != 5 + nc))
    return yrt_set_error(err, YRT_ERR_FORMAT,
                         "yrt: META's task is '%.32s' and output0 (%lld rows, %lld classes) is %swritten by an obb_decode "
                         "node: an obb model's output0 is that node's 4 + classes + 1 angle rows, only its",
                         yrt_model_string(m, m->meta->task), (long long)rows, (long long)nc, rotated ? "" : "not ");
  if (rotated) return YRT_OK;
  if (rows == 4 + nc) return YRT_OK;
  const int segment = strcmp(yrt_model_string(m, m->meta->task), "segment") == 0;
  if (segment && rows > 4 + nc) return yrt_segment_check_model(m, rows - 4 - nc, err);
  /* a pose model: its keypoint decode's rows follow the scores, and only they */
  int kd = 0;
  const int nk = yrt_model_keypoints(m, &kd);
  if (nk > 0 && strcmp(yrt_model_string(m, m->meta->task), "pose") == 0 && rows == 4 + nc + (int64_t)nk * kd)
    return YRT_OK;
  if (nk > 0 && rows == 4 + nc + (int64_t)nk * kd)
    return yrt_set_error(err, YRT_ERR_FORMAT,
                         "yrt: output0 carries %d x %d keypoint values after the scores, but META's task is '%.32s', "
                         "not 'pose'",
                         nk, kd, yrt_model_string(m, m->meta->task));
  if (nk > 0)
    return yrt_set_error(err, YRT_ERR_FORMAT,
                         "yrt: output0 has %lld rows, a pose model of %lld classes and %d x %d keypoint values has %lld "
                         "(task '%.32s')",
                         (long long)rows, (long long)nc, nk, kd, (long long)(4 + nc + (int64_t)nk * kd),
                         yrt_model_string(m, m->meta->task));
  return yrt_set_error(err, YRT_ERR_FORMAT,
                       "yrt: output0 has %lld rows, META says %lld classes (4 + %lld rows%s)", (long long)rows,
                       (long long)nc, (long long)nc,
                       segment ? ", or more for a segment model's mask coefficients" : "; task is not segment");
}

static yrt_status validate(yrt_model *m, yrt_error *err) {
  yrt_status st;
  m->hdr = (const yrt_file_header *)(const void *)m->base;
  if ((st = map_image(m, err)) != YRT_OK) return st;
  if ((st = load_meta(m, err)) != YRT_OK) return st;
  if ((st = yrt_validate_tensors(m, err)) != YRT_OK) return st;
  if ((st = yrt_validate_nodes(m, err)) != YRT_OK) return st;
  if ((st = yrt_validate_views(m, err)) != YRT_OK) return st;
  if ((st = yrt_validate_plan(m, err)) != YRT_OK) return st;
  if ((st = check_meta_classes(m, err)) != YRT_OK) return st;
  if ((st = check_meta_input(m, err)) != YRT_OK) return st;
  return check_classify(m, err);
}

void yrt_model_free(yrt_model *m) {
  if (!m) return;
  if (m->map) munmap(m->map, m->map_len);
  yrt_free(m->owned);
  yrt_free(m->tensors_upgraded);
  yrt_free(m->class_name_buf);
  yrt_free((void *)m->class_names);
  yrt_model_packs_free(m->packs);
  yrt_free(m); /* a block of the caller's allocator itself (model_new) */
}

static yrt_status finish_load(yrt_model *m, yrt_model **out, yrt_error *err) {
  yrt_status st = validate(m, err);
  if (st == YRT_OK && !(m->packs = yrt_model_packs_create(m, m->n_nodes, &m->alloc)))
    st = yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for the packed-weight table of %u nodes",
                       (unsigned)m->n_nodes);
  if (st != YRT_OK) {
    yrt_model_free(m);
    return st;
  }
  *out = m;
  return YRT_OK;
}

static yrt_status load_memory(const void *data, size_t size, int copy, const yrt_op_table *ops,
                              const yrt_allocator *alloc, yrt_model **out, yrt_error *err);

yrt_status yrt_model_load_memory_ops(const void *data, size_t size, int copy, const yrt_op_table *ops,
                                     yrt_model **out, yrt_error *err) {
  return load_memory(data, size, copy, ops, NULL, out, err);
}

yrt_status yrt_model_load_memory(const void *data, size_t size, int copy, yrt_model **out,
                                 yrt_error *err) {
  return yrt_model_load_memory_ops(data, size, copy, yrt_builtin_ops(), out, err);
}

yrt_status yrt_model_load_memory_with(const void *data, size_t size, int copy, const yrt_allocator *alloc,
                                      yrt_model **out, yrt_error *err) {
  if (alloc && (!alloc->alloc || !alloc->free))
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_model_load_memory_with: allocator without %s function",
                         alloc->alloc ? "a free" : "an alloc");
  return load_memory(data, size, copy, yrt_builtin_ops(), alloc, out, err);
}

static void *model_count_alloc(void *user, size_t size, size_t align) {
  yrt_model *m = user;
  void *p = m->user_alloc.alloc(m->user_alloc.user, size, align);
  if (p) atomic_fetch_add(&m->live, size);
  return p;
}

static void model_count_free(void *user, void *p, size_t size) {
  yrt_model *m = user;
  atomic_fetch_sub(&m->live, size);
  m->user_alloc.free(m->user_alloc.user, p, size);
}

static void model_alloc_init(yrt_model *m, const yrt_allocator *a) {
  m->user_alloc = a ? *a : yrt_mem_libc();
  m->alloc = (yrt_allocator){.alloc = model_count_alloc, .free = model_count_free, .user = m};
  atomic_init(&m->live, 0);
}

/* A zeroed model struct from the caller's allocator a, its own allocator set up. */
static yrt_model *model_new(const yrt_allocator *a) {
  yrt_model *m = yrt_zalloc(a, 1, sizeof *m);
  if (!m) return NULL;
  model_alloc_init(m, a);
  atomic_store(&m->live, yrt_mem_block_bytes(sizeof *m)); /* the struct itself: a block of a */
  return m;
}

static yrt_status load_memory(const void *data, size_t size, int copy, const yrt_op_table *ops,
                              const yrt_allocator *alloc, yrt_model **out, yrt_error *err) {
  if (!out || !ops) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_model_load_memory: out is NULL");
  *out = NULL;
  if (!data && size > 0)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_model_load_memory: data is NULL");
  if (size < sizeof(yrt_file_header))
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: buffer of %zu bytes is smaller than the header", size);
  if (!copy && (uintptr_t)data % YRT_ALIGN != 0)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG,
                         "yrt_model_load_memory: in-place buffer %p is not %u-byte aligned", data, YRT_ALIGN);
  yrt_model *m = model_new(alloc);
  if (!m) return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for the model");
  m->ops = ops;
  if (copy) {
    if (size > SIZE_MAX - 2 * YRT_ALIGN) {
      yrt_free(m);
      return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: %zu-byte model is too large to copy", size);
    }
    /* + YRT_ALIGN: slack for SIMD code that reads a few bytes past a constant's end. */
    size_t cap = (size + 2 * YRT_ALIGN - 1) / YRT_ALIGN * YRT_ALIGN;
    m->owned = yrt_alloc(&m->alloc, cap);
    if (!m->owned) {
      yrt_free(m);
      return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory copying a %zu-byte model", size);
    }
    memcpy(m->owned, data, size);
    m->base = m->owned;
  } else {
    m->base = data;
  }
  m->size = size;
  return finish_load(m, out, err);
}

/* The validator's message with the path in front, so it says which file. */
static yrt_status prefix_path(yrt_status s, const char *path, yrt_error *err) {
  if (s != YRT_OK && err) {
    char tmp[sizeof err->msg];
    memcpy(tmp, err->msg, sizeof tmp);
    yrt_set_error(err, s, "%s: %s", path, tmp);
  }
  return s;
}

/* A regular file of at least a header (opened without blocking on a FIFO), its size in *len. */
static yrt_status open_model_file(const char *path, int *fd, size_t *len, yrt_error *err) {
  yrt_status ost = yrt_open_regular(path, "yrt: model", fd, err);
  if (ost != YRT_OK) return ost;
  struct stat st;
  if (fstat(*fd, &st) != 0) {
    ost = yrt_set_error(err, YRT_ERR_IO, "yrt: model %s: cannot stat: %s", path, strerror(errno));
  } else if ((uint64_t)st.st_size < sizeof(yrt_file_header)) {
    ost = yrt_set_error(err, YRT_ERR_FORMAT, "yrt: %s is %lld bytes, smaller than the header", path,
                        (long long)st.st_size);
  } else if ((uint64_t)st.st_size > SIZE_MAX - 2 * YRT_ALIGN) {
    ost = yrt_set_error(err, YRT_ERR_FORMAT, "yrt: %s is too large to load", path);
  }
  if (ost != YRT_OK) {
    close(*fd);
    *fd = -1;
    return ost;
  }
  *len = (size_t)st.st_size;
  return YRT_OK;
}

/* Reads the whole file into memory the model owns: the file may then be replaced, rewritten or
 * truncated (cp over it) while the model is in use; a mapping would raise SIGBUS on the next
 * session create or run, or change validated bytes underneath. */
yrt_status yrt_model_load_file(const char *path, yrt_model **out, yrt_error *err) {
  if (!out || !path) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_model_load_file: NULL argument");
  *out = NULL;
  int fd = -1;
  size_t len = 0;
  yrt_status st = open_model_file(path, &fd, &len, err);
  if (st != YRT_OK) return st;
  yrt_model *m = model_new(NULL);
  /* + YRT_ALIGN: slack for SIMD code that reads a few bytes past a constant's end (as a copy) */
  const size_t cap = (len + 2 * YRT_ALIGN - 1) / YRT_ALIGN * YRT_ALIGN;
  uint8_t *buf = m ? yrt_alloc(&m->alloc, cap) : NULL;
  if (!m || !buf) {
    close(fd);
    yrt_free(m);
    return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory reading the %zu-byte model %s", len, path);
  }
  size_t got = 0;
  while (got < len) {
    const ssize_t r = read(fd, buf + got, len - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      st = yrt_set_error(err, YRT_ERR_IO, "yrt: model %s: read error after %zu of %zu bytes: %s", path, got, len,
                         strerror(errno));
      break;
    }
    if (r == 0) {
      st = yrt_set_error(err, YRT_ERR_IO, "yrt: model %s: %zu of %zu bytes read, the file shrank while reading", path,
                         got, len);
      break;
    }
    got += (size_t)r;
  }
  close(fd);
  if (st != YRT_OK) {
    yrt_free(buf);
    yrt_free(m);
    return st;
  }
  memset(buf + len, 0, cap - len);
  m->ops = yrt_builtin_ops();
  m->owned = buf;
  m->base = buf;
  m->size = len;
  return prefix_path(finish_load(m, out, err), path, err);
}

yrt_status yrt_model_load_file_mapped(const char *path, yrt_model **out, yrt_error *err) {
  if (!out || !path) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_model_load_file_mapped: NULL argument");
  *out = NULL;
  int fd = -1;
  size_t len = 0;
  yrt_status st = open_model_file(path, &fd, &len, err);
  if (st != YRT_OK) return st;
  void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
  int map_errno = errno;
  close(fd);
  if (map == MAP_FAILED)
    return yrt_set_error(err, YRT_ERR_IO, "yrt: cannot map %s: %s", path, strerror(map_errno));
  yrt_model *m = model_new(NULL);
  if (!m) {
    munmap(map, len);
    return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for the model");
  }
  m->ops = yrt_builtin_ops();
  m->map = map;
  m->map_len = len;
  m->base = map; /* page aligned, so YRT_ALIGN aligned */
  m->size = len;
  return prefix_path(finish_load(m, out, err), path, err);
}

yrt_status yrt_model_get_info(const yrt_model *m, yrt_model_info *info) {
  return yrt_model_get_info_sized(m, info, YRT_MODEL_INFO_V1_SIZE);
}

yrt_status yrt_model_get_info_sized(const yrt_model *m, yrt_model_info *out, size_t out_size) {
  if (!m || !out) return YRT_ERR_INVALID_ARG;
  yrt_model_info full, *info = &full;
  memset(info, 0, sizeof *info);
  info->input_w = (int)m->meta->input_w;
  info->input_h = (int)m->meta->input_h;
  info->num_classes = (int)m->meta->num_classes;
  info->num_inputs = (int)m->plan->n_inputs;
  info->num_outputs = (int)m->plan->n_outputs;
  info->num_nodes = (int)m->n_nodes;
  info->num_tensors = (int)m->n_tensors;
  for (uint32_t i = 0; i < m->n_nodes; i++)
    info->num_int8_nodes += m->tensors[m->nodes[i].out[0]].dtype == YRT_I8;
  info->synthetic = (m->hdr->flags & YRT_FLAG_SYNTHETIC) ? 1 : 0;
  info->end2end = (m->hdr->flags & YRT_FLAG_END2END) ? 1 : 0;
  info->arena_bytes = yrt_model_arena_bytes(m);
  info->weight_bytes = m->weights_size;
  info->file_bytes = m->size;
  return yrt_struct_write(out, out_size, &full, sizeof full, YRT_MODEL_INFO_V1_SIZE, "yrt_model_get_info", NULL);
}

yrt_status yrt_model_get_preprocess(const yrt_model *m, yrt_preprocess *pp) {
  if (!m || !pp) return YRT_ERR_INVALID_ARG;
  *pp = m->pre;
  return YRT_OK;
}

const char *yrt_model_task(const yrt_model *m) { return m ? yrt_model_string(m, m->meta->task) : ""; }

const char *yrt_model_class_name(const yrt_model *m, int class_id) {
  if (!m || class_id < 0 || class_id >= m->n_class_names) return NULL;
  return m->class_names[class_id];
}
