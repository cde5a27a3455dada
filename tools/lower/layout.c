/* layout.c — physical layout of tensors: NHWC/PLAIN forms of activations, conversions between
 * forms (TRANSPOSE / QUANTIZE / DEQUANTIZE inserted on demand and shared), constants laid out
 * physically (rank-padded for broadcasting, permuted to NHWC). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower_internal.h"

const int lw_l2p_nhwc[4] = {0, 3, 1, 2};
/* physical perms between the two rank-4 layouts (out dim k = in dim perm[k]) */
static const int k_to_nhwc[4] = {0, 2, 3, 1};
static const int k_to_nchw[4] = {0, 3, 1, 2};

uint32_t lw_layout_of(const lw_ctx *c, int irt) {
  const int *f = &c->form[irt * 4];
  if (f[LW_FORM(0, YRT_LAYOUT_NHWC)] >= 0 || f[LW_FORM(1, YRT_LAYOUT_NHWC)] >= 0)
    return YRT_LAYOUT_NHWC;
  return YRT_LAYOUT_PLAIN;
}

int lw_phys_axis(uint32_t layout, int rank, int a) {
  if (layout == YRT_LAYOUT_NHWC && rank == 4) return lw_l2p_nhwc[a];
  return a;
}

static const char *form_suffix(int i8, uint32_t layout) {
  if (i8) return layout == YRT_LAYOUT_NHWC ? "#i8.nhwc" : "#i8";
  return layout == YRT_LAYOUT_NHWC ? "#nhwc" : "#f32";
}

static int any_form(const lw_ctx *c, int irt) {
  const int *f = &c->form[irt * 4];
  return f[0] >= 0 || f[1] >= 0 || f[2] >= 0 || f[3] >= 0;
}

/* Name for a new form of irt: the IR name for the first one, else name + suffix. */
static int form_name(const lw_ctx *c, int irt, int i8, uint32_t layout, char *buf, size_t cap) {
  const char *base = c->g->tensors[irt].name ? c->g->tensors[irt].name : "?";
  int n = any_form(c, irt) ? snprintf(buf, cap, "%s%s", base, form_suffix(i8, layout))
                           : snprintf(buf, cap, "%s", base);
  return n;
}

/* New tensor for a form of activation irt (not registered in the cache). */
static int new_form(lw_ctx *c, int irt, int i8, uint32_t layout, uint32_t kind) {
  const ir_tensor *it = &c->g->tensors[irt];
  if (it->rank < 0) {
    lw_err(c, YRT_ERR_SHAPE, "tensor '%s': unknown shape (node '%s')", it->name,
                  c->cur ? c->cur : "?");
    return -1;
  }
  int64_t d[YRT_MAX_RANK];
  if (it->rank > YRT_MAX_RANK) {
    lw_err(c, YRT_ERR_UNSUPPORTED, "tensor '%s': rank %d (max %d)", it->name,
                  it->rank, YRT_MAX_RANK);
    return -1;
  }
  for (int i = 0; i < it->rank; i++) {
    if (it->dims[i] <= 0) {
      lw_err(c, YRT_ERR_SHAPE, "tensor '%s': dim %d is %lld (node '%s')", it->name, i,
                    (long long)it->dims[i], c->cur ? c->cur : "?");
      return -1;
    }
    d[i] = it->dims[i];
  }
  if (layout == YRT_LAYOUT_NHWC)
    for (int i = 0; i < 4; i++) d[i] = it->dims[k_to_nhwc[i]];
  if (i8 && (!it->q.on || it->q.scales)) {
    lw_err(c, YRT_ERR_UNSUPPORTED,
                  "tensor '%s': int8 form requested without per-tensor quantization", it->name);
    return -1;
  }
  char name[512];
  form_name(c, irt, i8, layout, name, sizeof name);
  /* the quantized form of an int16-annotated tensor (W8A16) is int16: same slot, other dtype */
  const uint32_t qdt = it->q.dtype == IR_I16 ? YRT_I16 : YRT_I8;
  int t = lw_add_tensor(c, name, i8 ? qdt : YRT_F32, kind, layout, it->rank, d);
  if (t < 0) return -1;
  if (i8) {
    c->t[t].scale = it->q.scale;
    c->t[t].zp = it->q.zero_point;
  }
  return t;
}

int lw_emit_transpose(lw_ctx *c, int x, const int *perm, uint32_t out_layout, const char *suffix) {
  char name[512];
  snprintf(name, sizeof name, "%s%s", c->t[x].name, suffix);
  int64_t d[YRT_MAX_RANK];
  int r = c->t[x].rank;
  for (int k = 0; k < r; k++) d[k] = c->t[x].dims[perm[k]];
  int y = lw_add_tensor(c, name, c->t[x].dtype, YRT_TENSOR_ACT, out_layout, r, d);
  if (y < 0) return -1;
  c->t[y].scale = c->t[x].scale;
  c->t[y].zp = c->t[x].zp;
  lw_node *n = lw_add_node(c, YRT_OP_TRANSPOSE, &x, 1, &y, 1);
  if (!n) return -1;
  for (int k = 0; k < YRT_MAX_RANK; k++) n->p[k] = k < r ? perm[k] : k;
  return y;
}

int lw_temp_like(lw_ctx *c, int like, const char *suffix, uint32_t dtype, float scale,
                 int32_t zp) {
  char name[512];
  snprintf(name, sizeof name, "%s%s", c->t[like].name, suffix);
  int64_t d[YRT_MAX_RANK];
  memcpy(d, c->t[like].dims, sizeof d);
  int t = lw_add_tensor(c, name, dtype, YRT_TENSOR_ACT, c->t[like].layout, c->t[like].rank, d);
  if (t < 0) return -1;
  c->t[t].scale = scale;
  c->t[t].zp = zp;
  return t;
}

int lw_get(lw_ctx *c, int irt, int i8, uint32_t layout) {
  const ir_tensor *it = &c->g->tensors[irt];
  if (it->data) return lw_const(c, irt, i8, layout, it->rank);
  if (it->rank != 4) layout = YRT_LAYOUT_PLAIN;
  int *f = &c->form[irt * 4];
  if (f[LW_FORM(i8, layout)] >= 0) return f[LW_FORM(i8, layout)];
  uint32_t other = layout == YRT_LAYOUT_NHWC ? YRT_LAYOUT_PLAIN : YRT_LAYOUT_NHWC;
  int src = -1, y = -1;
  if (f[LW_FORM(i8, other)] >= 0) {
    src = f[LW_FORM(i8, other)];
    y = lw_emit_transpose(c, src, layout == YRT_LAYOUT_NHWC ? k_to_nhwc : k_to_nchw, layout,
                          layout == YRT_LAYOUT_NHWC ? "#nhwc" : "#nchw");
    if (y < 0) return -1;
    if (c->rep) c->rep->n_layout_transposes++;
  } else if (f[LW_FORM(!i8, layout)] >= 0 ||
             (!i8 && f[LW_FORM(1, other)] >= 0)) {
    /* dtype conversion in this layout; from int8 in the other layout, transpose int8 first */
    src = f[LW_FORM(!i8, layout)] >= 0 ? f[LW_FORM(!i8, layout)] : lw_get(c, irt, 1, layout);
    if (src < 0) return -1;
    y = new_form(c, irt, i8, layout, YRT_TENSOR_ACT);
    if (y < 0) return -1;
    if (!lw_add_node(c, i8 ? YRT_OP_QUANTIZE : YRT_OP_DEQUANTIZE, &src, 1, &y, 1)) return -1;
  } else if (i8 && f[LW_FORM(0, other)] >= 0) {
    /* float in the other layout: quantize there, then move int8 bytes */
    src = lw_get(c, irt, 1, other);
    if (src < 0) return -1;
    return lw_get(c, irt, 1, layout);
  } else {
    lw_err(c, YRT_ERR_FORMAT, "tensor '%s' is used by node '%s' before it is produced",
                  it->name, c->cur ? c->cur : "?");
    return -1;
  }
  /* lw_get recursion may have filled the slot meanwhile; keep the first */
  if (f[LW_FORM(i8, layout)] < 0) f[LW_FORM(i8, layout)] = y;
  return f[LW_FORM(i8, layout)];
}

int lw_def(lw_ctx *c, int irt, int i8, uint32_t layout) {
  const ir_tensor *it = &c->g->tensors[irt];
  if (it->rank != 4) layout = YRT_LAYOUT_PLAIN;
  if (any_form(c, irt)) {
    lw_err(c, YRT_ERR_FORMAT, "tensor '%s' is produced twice (node '%s')", it->name,
                  c->cur ? c->cur : "?");
    return -1;
  }
  int t = new_form(c, irt, i8, layout, YRT_TENSOR_ACT);
  if (t >= 0) c->form[irt * 4 + LW_FORM(i8, layout)] = t;
  return t;
}

int lw_const_raw(lw_ctx *c, const char *name, uint32_t dtype, int rank, const int64_t *dims,
                 const void *data, size_t nbytes) {
  int t = lw_add_tensor(c, name, dtype, YRT_TENSOR_CONST, YRT_LAYOUT_PLAIN, rank, dims);
  if (t < 0) return -1;
  if (c->t[t].nbytes != nbytes) {
    lw_err(c, YRT_ERR_SHAPE, "constant '%s': %zu bytes for %zu expected", name, nbytes,
                  c->t[t].nbytes);
    return -1;
  }
  c->t[t].data = malloc(nbytes ? nbytes : 1);
  if (!c->t[t].data) {
    lw_err(c, YRT_ERR_NOMEM, "convert: out of memory for constant '%s'", name);
    return -1;
  }
  if (nbytes) memcpy(c->t[t].data, data, nbytes);
  return t;
}

/* Constant element i of t as float (any numeric dtype). */
static float const_f32(const ir_tensor *t, int64_t i) {
  const char *p = (const char *)t->data;
  switch (t->dtype) {
    case IR_F32: { float v; memcpy(&v, p + 4 * i, 4); return v; }
    case IR_F64: { double v; memcpy(&v, p + 8 * i, 8); return (float)v; }
    default: {
      int64_t v = 0;
      lw_ir_const_i64(t, i, &v);
      return (float)v;
    }
  }
}

int lw_const(lw_ctx *c, int irt, int i8, uint32_t layout, int rank) {
  const ir_tensor *it = &c->g->tensors[irt];
  int r0 = it->rank < 0 ? 0 : it->rank;
  if (rank < r0) rank = r0;
  if (rank != 4) layout = YRT_LAYOUT_PLAIN;
  int cache = rank == r0;
  int *f = &c->form[irt * 4];
  if (cache && f[LW_FORM(i8, layout)] >= 0) return f[LW_FORM(i8, layout)];
  int64_t n = ir_numel(it);
  if (n < 0 || rank > YRT_MAX_RANK) {
    lw_err(c, YRT_ERR_SHAPE, "constant '%s': bad shape (node '%s')", it->name,
                  c->cur ? c->cur : "?");
    return -1;
  }
  int64_t ld[YRT_MAX_RANK], pd[YRT_MAX_RANK];
  for (int k = 0; k < rank; k++) ld[k] = k < rank - r0 ? 1 : it->dims[k - (rank - r0)];
  int perm[YRT_MAX_RANK];
  for (int k = 0; k < rank; k++) perm[k] = k;
  if (layout == YRT_LAYOUT_NHWC)
    for (int k = 0; k < 4; k++) perm[k] = k_to_nhwc[k];
  for (int k = 0; k < rank; k++) pd[k] = ld[perm[k]];
  size_t es;
  const void *src;
  float *tmp = NULL;
  if (i8) {
    if (!lw_q_ok(c->g, irt)) {
      lw_err(c, YRT_ERR_UNSUPPORTED, "constant '%s' has no int8 data (node '%s')",
                    it->name, c->cur ? c->cur : "?");
      return -1;
    }
    es = 1;
    src = it->qdata;
  } else {
    if ((size_t)n * ir_dtype_size(it->dtype) > it->nbytes || ir_dtype_size(it->dtype) == 0) {
      lw_err(c, YRT_ERR_FORMAT, "constant '%s': %zu bytes for %lld elements",
                    it->name, it->nbytes, (long long)n);
      return -1;
    }
    es = 4;
    if (it->dtype == IR_F32) {
      src = it->data;
    } else {
      tmp = malloc(sizeof(float) * (size_t)(n ? n : 1));
      if (!tmp) {
        lw_err(c, YRT_ERR_NOMEM, "convert: out of memory");
        return -1;
      }
      for (int64_t i = 0; i < n; i++) tmp[i] = const_f32(it, i);
      src = tmp;
    }
  }
  char name[512];
  if (any_form(c, irt) || !cache)
    snprintf(name, sizeof name, "%s%s%s", it->name, form_suffix(i8, layout), cache ? "" : ".r");
  else
    snprintf(name, sizeof name, "%s", it->name);
  int t = lw_add_tensor(c, name, i8 ? YRT_I8 : YRT_F32, YRT_TENSOR_CONST, layout, rank, pd);
  if (t < 0) {
    free(tmp);
    return -1;
  }
  char *dst = malloc((size_t)n * es + 1);
  if (!dst) {
    free(tmp);
    lw_err(c, YRT_ERR_NOMEM, "convert: out of memory for constant '%s'", it->name);
    return -1;
  }
  /* permute: out index (physical) -> in index (logical, padded) */
  int64_t lstride[YRT_MAX_RANK];
  int64_t s = 1;
  for (int k = rank - 1; k >= 0; k--) {
    lstride[k] = s;
    s *= ld[k];
  }
  int64_t idx[YRT_MAX_RANK] = {0};
  for (int64_t o = 0; o < n; o++) {
    int64_t li = 0;
    for (int k = 0; k < rank; k++) li += idx[k] * lstride[perm[k]];
    memcpy(dst + o * (int64_t)es, (const char *)src + li * (int64_t)es, es);
    for (int k = rank - 1; k >= 0; k--) {
      if (++idx[k] < pd[k]) break;
      idx[k] = 0;
    }
  }
  free(tmp);
  c->t[t].data = dst;
  if (i8) {
    c->t[t].scale = it->q.scale;
    c->t[t].zp = it->q.zero_point;
  }
  if (cache) f[LW_FORM(i8, layout)] = t;
  return t;
}

int lw_get_rank(lw_ctx *c, int irt, int i8, uint32_t layout, int rank) {
  const ir_tensor *it = &c->g->tensors[irt];
  if (it->data) return lw_const(c, irt, i8, layout, rank);
  int x = lw_get(c, irt, i8, layout);
  if (x < 0 || it->rank >= rank) return x;
  if (c->t[x].layout != YRT_LAYOUT_PLAIN) {
    lw_err(c, YRT_ERR_UNSUPPORTED, "node '%s': rank padding of an NHWC tensor",
                  c->cur ? c->cur : "?");
    return -1;
  }
  int64_t d[YRT_MAX_RANK];
  int r0 = c->t[x].rank;
  for (int k = 0; k < rank; k++) d[k] = k < rank - r0 ? 1 : c->t[x].dims[k - (rank - r0)];
  char name[512];
  snprintf(name, sizeof name, "%s#r%d", c->t[x].name, rank);
  int y = lw_add_tensor(c, name, c->t[x].dtype, YRT_TENSOR_ACT, YRT_LAYOUT_PLAIN, rank, d);
  if (y < 0) return -1;
  c->t[y].scale = c->t[x].scale;
  c->t[y].zp = c->t[x].zp;
  if (!lw_add_node(c, YRT_OP_RESHAPE, &x, 1, &y, 1)) return -1;
  return y;
}
