/* model_validate_tensors.c — every tensor record checked on its own: enums, shape, byte size,
 * where its data lives (weights section or arena) and its quantization parameters. */
#include <math.h>

#include "model_internal.h"

/* Sanity caps on one tensor (and on the arena) and on one dimension: far above any YOLO model,
 * far below where int / size_t index arithmetic in kernels could overflow (also on 32-bit ARM). */
#define YRT_MAX_TENSOR_BYTES (1ull << 31)
#define YRT_MAX_DIM (1 << 24)

static int scale_ok(float s) { return isfinite(s) && s > 0.0f && isnormal(s); }

static yrt_status check_one(const yrt_model *m, uint32_t i, const yrt_tensor_rec *t, yrt_error *err) {
  if (!yrt_model_string_ok(m, t->name))
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: tensor %u: name offset %u outside the string table",
                         (unsigned)i, (unsigned)t->name);
  const char *name = yrt_model_string(m, t->name);
  const size_t es = yrt_dtype_size(t->dtype);
  if (es == 0)
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: tensor %u '%s': unknown dtype %u", (unsigned)i, name,
                         (unsigned)t->dtype);
  if (t->kind < YRT_TENSOR_CONST || t->kind > YRT_TENSOR_OUTPUT)
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: tensor %u '%s': unknown kind %u", (unsigned)i, name,
                         (unsigned)t->kind);
  if (t->rank > YRT_MAX_RANK)
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: tensor %u '%s': rank %u > %d", (unsigned)i, name,
                         (unsigned)t->rank, YRT_MAX_RANK);
  if (t->layout != YRT_LAYOUT_PLAIN && !(t->layout == YRT_LAYOUT_NHWC && t->rank == 4))
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: tensor %u '%s': layout %u with rank %u", (unsigned)i,
                         name, (unsigned)t->layout, (unsigned)t->rank);
  uint64_t numel = 1;
  for (uint32_t d = 0; d < YRT_MAX_RANK; d++) {
    int32_t v = t->dims[d];
    if (d >= t->rank) {
      if (v != 1)
        return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: tensor %u '%s': unused dim %u is %d, want 1",
                             (unsigned)i, name, (unsigned)d, (int)v);
      continue;
    }
    if (v <= 0 || v > YRT_MAX_DIM)
      return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: tensor %u '%s': dim %u is %d", (unsigned)i, name,
                           (unsigned)d, (int)v);
    if ((uint64_t)v > YRT_MAX_TENSOR_BYTES / numel)
      return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: tensor %u '%s': element count overflows", (unsigned)i,
                           name);
    numel *= (uint64_t)v;
  }
  if (numel * es > YRT_MAX_TENSOR_BYTES || t->nbytes != numel * es)
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: tensor %u '%s': nbytes %llu, shape says %llu",
                         (unsigned)i, name, (unsigned long long)t->nbytes,
                         (unsigned long long)(numel * es));

  if (t->kind == YRT_TENSOR_CONST) {
    if (t->offset % YRT_ALIGN != 0 || t->offset > m->weights_size || t->nbytes > m->weights_size - t->offset)
      return yrt_set_error(err, YRT_ERR_FORMAT,
                           "yrt: tensor %u '%s': constant data [%llu, +%llu) not %u-aligned or outside the "
                           "%zu-byte weights section",
                           (unsigned)i, name, (unsigned long long)t->offset, (unsigned long long)t->nbytes,
                           YRT_ALIGN, m->weights_size);
  } else {
    const uint64_t arena = m->plan->arena_bytes;
    if (t->offset % es != 0 || t->offset > arena || t->nbytes > arena - t->offset)
      return yrt_set_error(err, YRT_ERR_FORMAT,
                           "yrt: tensor %u '%s': arena range [%llu, +%llu) misaligned or outside arena_bytes %llu",
                           (unsigned)i, name, (unsigned long long)t->offset, (unsigned long long)t->nbytes,
                           (unsigned long long)arena);
  }

  if (t->n_scales > 1) {
    if (t->dtype == YRT_F32)
      return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: tensor %u '%s': float tensor with %u scales",
                           (unsigned)i, name, (unsigned)t->n_scales);
    if (t->q_axis >= t->rank || (int64_t)t->n_scales != t->dims[t->q_axis])
      return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: tensor %u '%s': %u scales on axis %u do not match its shape",
                           (unsigned)i, name, (unsigned)t->n_scales, (unsigned)t->q_axis);
    const uint64_t sb = 4ull * t->n_scales;
    if (t->scales_offset % 4 != 0 || t->scales_offset > m->weights_size || sb > m->weights_size - t->scales_offset)
      return yrt_set_error(err, YRT_ERR_FORMAT,
                           "yrt: tensor %u '%s': scales [%llu, +%llu) misaligned or outside the weights section",
                           (unsigned)i, name, (unsigned long long)t->scales_offset, (unsigned long long)sb);
    const float *sc = yrt_tensor_scales(m, t);
    for (uint32_t k = 0; k < t->n_scales; k++)
      if (t->dtype == YRT_I8 && !scale_ok(sc[k]))
        return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: tensor %u '%s': scale[%u] = %g is not a positive number",
                             (unsigned)i, name, (unsigned)k, (double)sc[k]);
  } else if (t->dtype == YRT_I8 && !scale_ok(t->scale)) {
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: tensor %u '%s': int8 scale %g is not a positive number",
                         (unsigned)i, name, (double)t->scale);
  }
  /* int16 activations: symmetric, one scale, inside the arena between a QUANTIZE and its convs */
  if (t->dtype == YRT_I16 && (t->kind != YRT_TENSOR_ACT || t->n_scales > 1 || t->zero_point != 0 || !scale_ok(t->scale)))
    return yrt_set_error(err, YRT_ERR_FORMAT,
                         "yrt: tensor %u '%s': int16 tensors are activations with one positive scale and zero "
                         "point 0 (kind %u, %u scales, scale %g, zp %d)",
                         (unsigned)i, name, (unsigned)t->kind, (unsigned)t->n_scales, (double)t->scale,
                         (int)t->zero_point);
  if (t->dtype == YRT_I8 && (t->zero_point < -128 || t->zero_point > 127))
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: tensor %u '%s': int8 zero point %d", (unsigned)i, name,
                         (int)t->zero_point);
  return YRT_OK;
}

yrt_status yrt_validate_tensors(const yrt_model *m, yrt_error *err) {
  if (m->plan->arena_bytes > YRT_MAX_TENSOR_BYTES)
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: arena_bytes %llu is implausibly large",
                         (unsigned long long)m->plan->arena_bytes);
  uint64_t end = 0; /* where the last arena tensor ends */
  for (uint32_t i = 0; i < m->n_tensors; i++) {
    yrt_status st = check_one(m, i, &m->tensors[i], err);
    if (st != YRT_OK) return st;
    const yrt_tensor_rec *t = &m->tensors[i];
    if (t->kind != YRT_TENSOR_CONST && t->offset + t->nbytes > end) end = t->offset + t->nbytes;
  }
  /* The arena is what the tensors need, no more: a 2.7 MB file claimed 2 GiB, and every session
   * allocated and zeroed it (issue 19). The converter places tensors at 64-byte steps (an empty
   * tensor still takes one). */
  const uint64_t need = (end + YRT_ALIGN - 1) / YRT_ALIGN * YRT_ALIGN + YRT_ALIGN;
  if (m->plan->arena_bytes > need)
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: arena_bytes %llu, but its tensors end at byte %llu",
                         (unsigned long long)m->plan->arena_bytes, (unsigned long long)end);
  return YRT_OK;
}
