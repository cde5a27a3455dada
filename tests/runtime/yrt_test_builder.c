/* yrt_test_builder.c — see yrt_test_builder.h. Aborts on allocation failure (test code). */
#include "yrt_test_builder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


struct ytb {
  char *str;
  size_t str_n, str_cap;
  yrt_tensor_rec *t;
  uint32_t n_t, cap_t;
  yrt_node_rec *nodes;
  uint32_t n_nodes, cap_nodes;
  uint8_t *w;
  size_t w_n, w_cap;
  uint32_t inputs[16], outputs[16];
  uint32_t n_in, n_out;
  uint64_t arena;
  int arena_override;
  uint64_t arena_bytes;
  yrt_meta_rec meta;
  int has_norm;           /* write meta_norm after META (96 bytes) */
  yrt_meta_norm_rec meta_norm;
};

static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n);
  if (!q) {
    fprintf(stderr, "ytb: out of memory\n");
    abort();
  }
  return q;
}

ytb *ytb_new(void) {
  ytb *b = calloc(1, sizeof *b);
  if (!b) abort();
  ytb_string(b, ""); /* offset 0 = empty string */
  b->meta.input_w = 32;
  b->meta.input_h = 32;
  b->meta.pad_value = 114.0f;
  b->meta.norm_scale = 1.0f / 255.0f;
  b->meta.strides[0] = 8, b->meta.strides[1] = 16, b->meta.strides[2] = 32;
  return b;
}

void ytb_free(ytb *b) {
  if (!b) return;
  free(b->str);
  free(b->t);
  free(b->nodes);
  free(b->w);
  free(b);
}

uint32_t ytb_string(ytb *b, const char *s) {
  size_t n = strlen(s) + 1;
  if (b->str_n + n > b->str_cap) {
    b->str_cap = (b->str_n + n) * 2 + 64;
    b->str = xrealloc(b->str, b->str_cap);
  }
  memcpy(b->str + b->str_n, s, n);
  uint32_t off = (uint32_t)b->str_n;
  b->str_n += n;
  return off;
}

static size_t dsize(uint32_t dtype) { return yrt_dtype_size(dtype) ? yrt_dtype_size(dtype) : 4; }

static uint32_t add_tensor(ytb *b, const char *name, uint32_t dtype, uint32_t kind, uint32_t layout, int rank,
                           const int32_t *dims) {
  if (b->n_t == b->cap_t) {
    b->cap_t = b->cap_t * 2 + 8;
    b->t = xrealloc(b->t, b->cap_t * sizeof *b->t);
  }
  yrt_tensor_rec *t = &b->t[b->n_t];
  memset(t, 0, sizeof *t);
  t->name = ytb_string(b, name);
  t->dtype = dtype;
  t->kind = kind;
  t->layout = layout;
  t->rank = (uint32_t)rank;
  uint64_t numel = 1;
  for (int d = 0; d < YRT_MAX_RANK; d++) {
    t->dims[d] = d < rank ? dims[d] : 1;
    numel *= (uint64_t)t->dims[d];
  }
  t->nbytes = numel * dsize(dtype);
  t->scale = 1.0f;
  return b->n_t++;
}

uint32_t ytb_tensor(ytb *b, const char *name, uint32_t dtype, uint32_t kind, uint32_t layout, int rank,
                    const int32_t *dims) {
  uint32_t i = add_tensor(b, name, dtype, kind, layout, rank, dims);
  b->t[i].offset = b->arena;
  b->arena = (b->arena + b->t[i].nbytes + 63) / 64 * 64;
  return i;
}

static uint64_t add_weights(ytb *b, const void *data, size_t n) {
  size_t off = (b->w_n + 63) / 64 * 64;
  if (off + n > b->w_cap) {
    b->w_cap = (off + n) * 2 + 64;
    b->w = xrealloc(b->w, b->w_cap);
  }
  memset(b->w + b->w_n, 0, off - b->w_n);
  memcpy(b->w + off, data, n);
  b->w_n = off + n;
  return off;
}

uint32_t ytb_const(ytb *b, const char *name, uint32_t dtype, int rank, const int32_t *dims, const void *data) {
  uint32_t i = add_tensor(b, name, dtype, YRT_TENSOR_CONST, YRT_LAYOUT_PLAIN, rank, dims);
  b->t[i].offset = add_weights(b, data, (size_t)b->t[i].nbytes);
  return i;
}

void ytb_set_q(ytb *b, uint32_t t, float scale, int32_t zp) {
  b->t[t].scale = scale;
  b->t[t].zero_point = zp;
}

void ytb_set_channel_scales(ytb *b, uint32_t t, uint32_t axis, const float *scales, uint32_t n) {
  b->t[t].q_axis = axis;
  b->t[t].n_scales = n;
  b->t[t].scales_offset = add_weights(b, scales, n * sizeof(float));
}

yrt_tensor_rec *ytb_tensor_rec(ytb *b, uint32_t t) { return &b->t[t]; }

uint32_t ytb_node(ytb *b, uint32_t op, const char *name, int n_in, const uint32_t *in, uint32_t out,
                  const int32_t *p, int np, const float *f, int nf) {
  if (b->n_nodes == b->cap_nodes) {
    b->cap_nodes = b->cap_nodes * 2 + 8;
    b->nodes = xrealloc(b->nodes, b->cap_nodes * sizeof *b->nodes);
  }
  yrt_node_rec *n = &b->nodes[b->n_nodes];
  memset(n, 0, sizeof *n);
  n->op = op;
  n->name = ytb_string(b, name);
  n->n_in = (uint32_t)n_in;
  n->n_out = 1;
  for (int k = 0; k < YRT_MAX_NODE_IO; k++) {
    n->in[k] = k < n_in ? in[k] : YRT_NONE;
    n->out[k] = k == 0 ? out : YRT_NONE;
  }
  for (int k = 0; k < np && k < YRT_NODE_PARAMS; k++) n->p[k] = p[k];
  for (int k = 0; k < nf && k < YRT_NODE_FPARAMS; k++) n->f[k] = f[k];
  return b->n_nodes++;
}

yrt_node_rec *ytb_node_rec(ytb *b, uint32_t i) { return &b->nodes[i]; }

void ytb_input(ytb *b, uint32_t t) { b->inputs[b->n_in++] = t; }
void ytb_output(ytb *b, uint32_t t) { b->outputs[b->n_out++] = t; }

void ytb_meta(ytb *b, uint32_t w, uint32_t h, uint32_t num_classes, const char *names) {
  b->meta.input_w = w;
  b->meta.input_h = h;
  b->meta.num_classes = num_classes;
  b->meta.class_names = names ? ytb_string(b, names) : 0;
}

void ytb_preprocess(ytb *b, const yrt_preprocess *pp) {
  b->meta.preprocess = (pp->bgr ? YRT_PRE_BGR : 0u) | (pp->top_left ? YRT_PRE_TOP_LEFT : 0u) |
                       ((uint32_t)pp->resize << YRT_PRE_RESIZE_SHIFT);
  b->meta.pad_value = pp->pad;
  b->meta.norm_scale = pp->scale;
  b->has_norm = 0;
  for (int c = 0; c < 3; c++) b->has_norm |= pp->mean[c] != 0.0f || pp->std[c] != 1.0f;
  memset(&b->meta_norm, 0, sizeof b->meta_norm);
  if (b->has_norm) {
    b->meta.preprocess |= YRT_PRE_MEAN_STD;
    for (int c = 0; c < 3; c++) b->meta_norm.mean[c] = pp->mean[c], b->meta_norm.std[c] = pp->std[c];
  }
}

yrt_meta_rec *ytb_meta_rec(ytb *b) { return &b->meta; }

void ytb_set_arena_bytes(ytb *b, uint64_t bytes) {
  b->arena_override = 1;
  b->arena_bytes = bytes;
}

void *ytb_serialize(ytb *b, size_t *size) {
  if (b->meta.source == 0) b->meta.source = ytb_string(b, "yrt_test_builder");
  /* META's letterbox size is input 0's, as the loader requires: H x W of a float 3-channel rank-4
   * input, else 1x1 (runtime/src/model_load.c check_meta_input) */
  if (b->n_in > 0 && b->inputs[0] < b->n_t) {
    const yrt_tensor_rec *in = &b->t[b->inputs[0]];
    const int nhwc = in->layout == YRT_LAYOUT_NHWC;
    const int image = in->rank == 4 && in->dtype == YRT_F32 && in->dims[nhwc ? 3 : 1] == 3;
    b->meta.input_h = image ? (uint32_t)in->dims[nhwc ? 1 : 2] : 1;
    b->meta.input_w = image ? (uint32_t)in->dims[nhwc ? 2 : 3] : 1;
  }
  uint64_t sizes[YRT_SEC_COUNT_] = {0};
  sizes[YRT_SEC_STRINGS] = b->str_n;
  sizes[YRT_SEC_TENSORS] = (uint64_t)b->n_t * sizeof(yrt_tensor_rec);
  sizes[YRT_SEC_NODES] = (uint64_t)b->n_nodes * sizeof(yrt_node_rec);
  sizes[YRT_SEC_WEIGHTS] = b->w_n;
  sizes[YRT_SEC_PLAN] = sizeof(yrt_plan_rec) + 4ull * (b->n_in + b->n_out);
  sizes[YRT_SEC_META] = sizeof(yrt_meta_rec) + (b->has_norm ? sizeof(yrt_meta_norm_rec) : 0);
  yrt_file_layout l;
  yrt_file_plan(sizes, &l);
  uint8_t *buf = aligned_alloc(64, (size_t)l.total);
  if (!buf) abort();
  memset(buf, 0, (size_t)l.total);
  memcpy(buf + l.offset[YRT_SEC_STRINGS], b->str, b->str_n);
  if (b->n_t) memcpy(buf + l.offset[YRT_SEC_TENSORS], b->t, sizes[YRT_SEC_TENSORS]);
  if (b->n_nodes) memcpy(buf + l.offset[YRT_SEC_NODES], b->nodes, sizes[YRT_SEC_NODES]);
  if (b->w_n) memcpy(buf + l.offset[YRT_SEC_WEIGHTS], b->w, b->w_n);
  yrt_plan_rec plan = {b->arena_override ? b->arena_bytes : b->arena, b->n_in, b->n_out};
  uint8_t *pl = buf + l.offset[YRT_SEC_PLAN];
  memcpy(pl, &plan, sizeof plan);
  memcpy(pl + sizeof plan, b->inputs, 4 * b->n_in);
  memcpy(pl + sizeof plan + 4 * b->n_in, b->outputs, 4 * b->n_out);
  memcpy(buf + l.offset[YRT_SEC_META], &b->meta, sizeof b->meta);
  if (b->has_norm) memcpy(buf + l.offset[YRT_SEC_META] + sizeof b->meta, &b->meta_norm, sizeof b->meta_norm);
  yrt_file_finish(buf, &l, 0);
  *size = (size_t)l.total;
  return buf;
}

void ytb_fix_crc(void *buf, size_t size) { yrt_file_seal(buf, size); }

uint64_t ytb_section(const void *buf, uint32_t kind, uint64_t *size) {
  yrt_file_view im;
  const size_t n = (size_t)((const yrt_file_header *)buf)->file_size;
  if (kind < 1 || kind >= YRT_SEC_COUNT_ || yrt_file_map(buf, n, &im, NULL) != YRT_OK) {
    *size = 0;
    return 0;
  }
  *size = im.sec[kind]->size;
  return im.sec[kind]->offset;
}

void ytb_conv_params(int32_t *p, int kh, int kw, int sh, int sw, int pt, int pl, int pb, int pr, int dh, int dw,
                     int groups, int act, int lut) {
  memset(p, 0, YRT_NODE_PARAMS * sizeof *p);
  p[YRT_CONV_P_KH] = kh, p[YRT_CONV_P_KW] = kw, p[YRT_CONV_P_SH] = sh, p[YRT_CONV_P_SW] = sw;
  p[YRT_CONV_P_PAD_T] = pt, p[YRT_CONV_P_PAD_L] = pl, p[YRT_CONV_P_PAD_B] = pb, p[YRT_CONV_P_PAD_R] = pr;
  p[YRT_CONV_P_DH] = dh, p[YRT_CONV_P_DW] = dw, p[YRT_CONV_P_GROUPS] = groups;
  p[YRT_CONV_P_ACT] = act, p[YRT_CONV_P_LUT] = lut;
}

uint32_t ytb_quantize_conv_i8(ytb *b, uint32_t x, uint32_t xq, uint32_t w, const int32_t *bias, const int32_t *p,
                              const int32_t *yd, float sy, int32_t zy, const int8_t *lut, int use_lut) {
  const int32_t bd[1] = {yd[3]}, ld[1] = {256};
  const uint32_t tb = ytb_const(b, "b", YRT_I32, 1, bd, bias);
  const uint32_t tl = ytb_const(b, "lut", YRT_I8, 1, ld, lut);
  ytb_set_q(b, tl, sy, zy);
  const uint32_t y = ytb_tensor(b, "y", YRT_I8, YRT_TENSOR_OUTPUT, YRT_LAYOUT_NHWC, 4, yd);
  ytb_set_q(b, y, sy, zy);
  ytb_node(b, YRT_OP_QUANTIZE, "q", 1, &x, xq, NULL, 0, NULL, 0);
  int32_t pc[YRT_NODE_PARAMS];
  memcpy(pc, p, sizeof pc);
  pc[YRT_CONV_P_LUT] = use_lut ? (int32_t)tl : -1;
  const uint32_t in[3] = {xq, w, tb};
  ytb_node(b, YRT_OP_CONV2D, "conv", 3, in, y, pc, YRT_NODE_PARAMS, NULL, 0);
  ytb_input(b, x);
  ytb_output(b, y);
  return y;
}

uint32_t ytb_act_i8(ytb *b, const char *name, int rank, const int32_t *dims, float scale, int32_t zp) {
  uint32_t t = ytb_tensor(b, name, YRT_I8, YRT_TENSOR_ACT, YRT_LAYOUT_NHWC, rank, dims);
  ytb_set_q(b, t, scale, zp);
  return t;
}

yrt_status ytb_load(ytb *b, int copy, ytb_loaded *l, yrt_error *err) {
  size_t size;
  memset(l, 0, sizeof *l);
  l->img = ytb_serialize(b, &size);
  ytb_free(b);
  l->step = "load";
  yrt_status st = yrt_model_load_memory(l->img, size, copy, &l->m, err);
  if (st != YRT_OK) return st;
  l->step = "session";
  return yrt_session_create(l->m, NULL, &l->s, err);
}

void ytb_unload(ytb_loaded *l) {
  yrt_session_free(l->s);
  yrt_model_free(l->m);
  free(l->img);
}

int ytb_node_words(const void *img, size_t size, uint32_t node, const uint32_t *vals, size_t n,
                   void (*use)(yrt_model *m, void *ctx), void *ctx) {
  uint64_t len, off = ytb_section(img, YRT_SEC_NODES, &len);
  off += (uint64_t)node * sizeof(yrt_node_rec);
  uint8_t *buf = aligned_alloc(64, (size + 63) / 64 * 64);
  if (!buf) return -1;
  int accepted = 0;
  for (uint64_t w = off; w < off + sizeof(yrt_node_rec); w += 4)
    for (size_t k = 0; k < n; k++) {
      memcpy(buf, img, size);
      memcpy(buf + w, &vals[k], 4);
      ytb_fix_crc(buf, size);
      yrt_model *m = NULL;
      yrt_error err;
      if (yrt_model_load_memory(buf, size, 0, &m, &err) != YRT_OK) continue;
      accepted++;
      if (use) use(m, ctx);
      yrt_model_free(m);
    }
  free(buf);
  return accepted;
}

int ytb_node_sweep(ytb *b, uint32_t node, void (*use)(yrt_model *m, void *ctx), void *ctx) {
  static const uint32_t vals[] = {0u,  1u,  2u,    3u,    4u,          5u,          7u,         8u, 9u, 10u,
                                  16u, 64u, 1024u, 4096u, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu};
  const size_t nv = sizeof vals / sizeof vals[0];
  size_t size;
  void *img = ytb_serialize(b, &size);
  ytb_free(b);
  if (!img) return -1;
  const int accepted = ytb_node_words(img, size, node, vals, nv, use ? use : ytb_use_run, ctx);
  printf("%d of %zu edited records loaded (and ran)\n", accepted, (sizeof(yrt_node_rec) / 4) * nv);
  free(img);
  return accepted;
}

void ytb_use_run(yrt_model *m, void *ctx) {
  (void)ctx;
  const yrt_session_options one = {.num_threads = 1};
  yrt_session *s = NULL;
  yrt_error err;
  if (yrt_session_create(m, &one, &s, &err) != YRT_OK) return;
  yrt_session_run(s, &err);
  yrt_session_free(s);
}

const char *ytb_rejected(ytb *b, const char *what, const char *in_msg) {
  ytb_loaded l;
  yrt_error err;
  err.msg[0] = 0;
  const char *bad = NULL;
  if (ytb_load(b, 0, &l, &err) == YRT_OK) bad = "accepted";
  else if (strcmp(l.step, "load") != 0) bad = "rejected by the session, not the loader";
  else if (in_msg && !strstr(err.msg, in_msg)) bad = "the message does not name what it should";
  printf("%-28s -> %s\n", what, err.msg);
  ytb_unload(&l);
  return bad;
}

void *ytb_kind_then_relu(uint32_t op, const int32_t *p, int n_p, int n_in, int numel, size_t *size) {
  ytb *b = ytb_new();
  const int32_t d[2] = {1, numel};
  uint32_t x = ytb_tensor(b, "x", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_PLAIN, 2, d);
  uint32_t t = ytb_tensor(b, "t", YRT_F32, YRT_TENSOR_ACT, YRT_LAYOUT_PLAIN, 2, d);
  uint32_t y = ytb_tensor(b, "y", YRT_F32, YRT_TENSOR_OUTPUT, YRT_LAYOUT_PLAIN, 2, d);
  uint32_t in[YRT_MAX_NODE_IO];
  for (int k = 0; k < YRT_MAX_NODE_IO; k++) in[k] = x;
  const int32_t relu[1] = {YRT_UNARY_RELU};
  ytb_node(b, op, "dummy", n_in, in, t, p, n_p, NULL, 0);
  ytb_node(b, YRT_OP_UNARY, "relu", 1, &t, y, relu, 1, NULL, 0);
  ytb_input(b, x);
  ytb_output(b, y);
  ytb_meta(b, 1, 1, 0, NULL);
  void *img = ytb_serialize(b, size);
  ytb_free(b);
  return img;
}
