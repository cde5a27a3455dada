/* lower_conv.c — ONNX Conv (+ fused SiLU) -> YRT_OP_CONV2D: NHWC activations, weights packed
 * [Cout][kh][kw][Cin/g], f32 or int8 per-channel with an int32 bias at s_x * s_w[c]. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lower_internal.h"
#include "yk_conv16.h"

static int attr_ints(const ir_node *n, const char *name, int64_t *v, int cap) {
  const ir_attr *a = ir_attr_get(n, name);
  if (!a || a->type != IR_ATTR_INTS) return -1;
  if (a->n_ints > cap) return -2;
  for (int i = 0; i < a->n_ints; i++) v[i] = a->ints[i];
  return a->n_ints;
}

yrt_status lw_spatial_params(lw_ctx *c, const ir_node *n, int64_t h, int64_t w, int kh, int kw,
                             int64_t oh, int64_t ow, int ceil_mode, int32_t *p) {
  int64_t s[2] = {1, 1}, d[2] = {1, 1}, pads[4] = {0, 0, 0, 0};
  int r;
  if ((r = attr_ints(n, "strides", s, 2)) != -1 && r != 2) goto bad;
  if ((r = attr_ints(n, "dilations", d, 2)) != -1 && r != 2) goto bad;
  if ((r = attr_ints(n, "pads", pads, 4)) != -1 && r != 4) goto bad;
  if (s[0] < 1 || s[1] < 1 || d[0] < 1 || d[1] < 1 || kh < 1 || kw < 1) goto bad;
  for (int i = 0; i < 4; i++)
    if (pads[i] < 0) goto bad;
  const char *ap = ir_attr_string(n, "auto_pad", "NOTSET");
  if (strcmp(ap, "VALID") == 0) {
    memset(pads, 0, sizeof pads);
  } else if (strcmp(ap, "SAME_UPPER") == 0 || strcmp(ap, "SAME_LOWER") == 0) {
    int64_t in[2] = {h, w}, k[2] = {kh, kw};
    for (int i = 0; i < 2; i++) {
      int64_t o = (in[i] + s[i] - 1) / s[i];
      int64_t tot = (o - 1) * s[i] + d[i] * (k[i] - 1) + 1 - in[i];
      if (tot < 0) tot = 0;
      int64_t small = tot / 2, big = tot - small;
      int upper = strcmp(ap, "SAME_UPPER") == 0;
      pads[i] = upper ? small : big;
      pads[i + 2] = upper ? big : small;
    }
  } else if (strcmp(ap, "NOTSET") != 0) {
    return lw_err(c, YRT_ERR_UNSUPPORTED, "node '%s': auto_pad '%s'", n->name, ap);
  }
  int64_t in[2] = {h, w}, k[2] = {kh, kw}, out[2] = {oh, ow};
  for (int i = 0; i < 2; i++) {
    int64_t span = in[i] + pads[i] + pads[i + 2] - d[i] * (k[i] - 1) - 1;
    if (span < 0) goto bad;
    int64_t o = ceil_mode ? (span + s[i] - 1) / s[i] + 1 : span / s[i] + 1;
    if (ceil_mode && (o - 1) * s[i] >= in[i] + pads[i]) o--; /* last window must start inside */
    if (o != out[i])
      return lw_err(c, YRT_ERR_SHAPE,
                           "node '%s': output %s is %lld, geometry gives %lld", n->name,
                           i ? "width" : "height", (long long)out[i], (long long)o);
    if (ceil_mode) { /* widen the end pad so floor arithmetic gives the same count */
      int64_t need = (o - 1) * s[i] + d[i] * (k[i] - 1) + 1 - in[i] - pads[i];
      if (need > pads[i + 2]) pads[i + 2] = need;
    }
  }
  p[0] = kh; p[1] = kw; p[2] = (int32_t)s[0]; p[3] = (int32_t)s[1];
  p[4] = (int32_t)pads[0]; p[5] = (int32_t)pads[1]; p[6] = (int32_t)pads[2];
  p[7] = (int32_t)pads[3]; p[8] = (int32_t)d[0]; p[9] = (int32_t)d[1];
  return YRT_OK;
bad:
  return lw_err(c, YRT_ERR_UNSUPPORTED,
                       "node '%s': bad or unsupported strides/dilations/pads", n->name);
}

static int find_sigmoid(const ir_graph *g, int y) {
  int cons[2];
  int k = ir_consumers(g, y, cons, 2);
  for (int i = 0; i < k && i < 2; i++)
    if (ir_node_is_op(&g->nodes[cons[i]], ONNX_OP_SIGMOID)) return cons[i];
  return -1;
}

/* OIHW -> O,kh,kw,I (element size es). */
static void pack_ohwi(const void *src, void *dst, int64_t o, int64_t i, int64_t kh, int64_t kw,
                      size_t es) {
  for (int64_t a = 0; a < o; a++)
    for (int64_t y = 0; y < kh; y++)
      for (int64_t x = 0; x < kw; x++)
        for (int64_t b = 0; b < i; b++)
          memcpy((char *)dst + (size_t)(((a * kh + y) * kw + x) * i + b) * es,
                 (const char *)src + (size_t)(((a * i + b) * kh + y) * kw + x) * es, es);
}

/* Per-channel scales [co] attached to yrt tensor t, for the caller to fill (t's own scale is then
 * the first); NULL, the error set, when out of memory. */
static float *channel_scales(lw_ctx *c, int t, int64_t co) {
  float *sc = malloc(sizeof(float) * (size_t)co);
  if (!sc) {
    lw_err(c, YRT_ERR_NOMEM, "convert: out of memory");
    return NULL;
  }
  c->t[t].scales = sc;
  c->t[t].n_scales = (int)co;
  return sc;
}

static int add_weights(lw_ctx *c, const ir_tensor *W, int i8) {
  int64_t co = W->dims[0], ci = W->dims[1], kh = W->dims[2], kw = W->dims[3];
  int64_t n = co * ci * kh * kw;
  size_t es = i8 ? 1 : 4;
  const void *src = i8 ? W->qdata : W->data;
  if (!i8 && (W->dtype != IR_F32 || W->nbytes < (size_t)n * 4)) {
    lw_err(c, YRT_ERR_UNSUPPORTED, "node '%s': weights '%s' are not float32", c->cur,
                  W->name);
    return -1;
  }
  void *buf = malloc((size_t)n * es);
  if (!buf) {
    lw_err(c, YRT_ERR_NOMEM, "convert: out of memory packing '%s'", W->name);
    return -1;
  }
  pack_ohwi(src, buf, co, ci, kh, kw, es);
  int64_t d[4] = {co, kh, kw, ci};
  int t = lw_const_raw(c, W->name, i8 ? YRT_I8 : YRT_F32, 4, d, buf, (size_t)n * es);
  free(buf);
  if (t < 0 || !i8) return t;
  float *sc = channel_scales(c, t, co);
  if (!sc) return -1;
  for (int64_t k = 0; k < co; k++)
    sc[k] = (W->q.scales && W->q.n_scales > 1) ? W->q.scales[k] : W->q.scale;
  c->t[t].scale = sc[0];
  c->t[t].zp = 0;
  c->t[t].q_axis = 0;
  return t;
}

/* span: largest |sum((x - zp) * w)| of one output; int8 biases are kept within int32 minus it,
 * which the loader requires (runtime/src/ops/conv.c; fuzz finding). */
static int add_bias(lw_ctx *c, int b, int64_t co, int i8, float sx, const float *sw, int64_t span) {
  const ir_graph *g = c->g;
  const ir_tensor *B = b >= 0 ? &g->tensors[b] : NULL;
  char name[512];
  snprintf(name, sizeof name, "%s", B ? B->name : "");
  if (!B) snprintf(name, sizeof name, "%s#bias", c->cur);
  if (B && (!B->data || ir_numel(B) != co)) {
    lw_err(c, YRT_ERR_UNSUPPORTED, "node '%s': bias '%s' must be a constant of %lld",
                  c->cur, B->name, (long long)co);
    return -1;
  }
  void *buf = calloc((size_t)co, 4);
  if (!buf) {
    lw_err(c, YRT_ERR_NOMEM, "convert: out of memory");
    return -1;
  }
  if (B && !i8) {
    if (B->dtype != IR_F32 || B->nbytes < (size_t)co * 4) {
      free(buf);
      lw_err(c, YRT_ERR_UNSUPPORTED, "node '%s': bias '%s' is not float32", c->cur,
                    B->name);
      return -1;
    }
    memcpy(buf, B->data, (size_t)co * 4);
  } else if (B) {
    int32_t *q = buf;
    int have_q = B->q.on && B->qdata && B->q.dtype == IR_I32;
    for (int64_t k = 0; k < co; k++) {
      double want = (double)sx * (double)sw[k];
      double bs = have_q ? ((B->q.scales && B->q.n_scales > 1) ? B->q.scales[k] : B->q.scale) : 0;
      if (have_q && want > 0 && fabs(bs - want) <= 1e-6 * want) {
        int32_t v;
        memcpy(&v, (const char *)B->qdata + 4 * k, 4);
        q[k] = v;
      } else {
        /* bias at another scale (or float): re-derive at s_x * s_w[c] */
        float bf = 0;
        if (B->dtype == IR_F32 && B->nbytes >= (size_t)co * 4) memcpy(&bf, (const char *)B->data + 4 * k, 4);
        double r = want > 0 ? nearbyint((double)bf / want) : 0.0;
        if (r > 2147483647.0) r = 2147483647.0;
        if (r < -2147483648.0) r = -2147483648.0;
        q[k] = (int32_t)r;
      }
      if (q[k] > INT32_MAX - span) q[k] = (int32_t)(INT32_MAX - span);
      if (q[k] < INT32_MIN + span) q[k] = (int32_t)(INT32_MIN + span);
    }
  }
  int64_t d = co;
  int t = lw_const_raw(c, name, i8 ? YRT_I32 : YRT_F32, 1, &d, buf, (size_t)co * 4);
  free(buf);
  if (t < 0 || !i8) return t;
  float *sc = channel_scales(c, t, co);
  if (!sc) return -1;
  for (int64_t k = 0; k < co; k++) sc[k] = sx * sw[k];
  c->t[t].scale = sc[0];
  return t;
}

/* Weights of a dynamically quantized conv (recover_integer_ops.c): int8 symmetric per output
 * channel. A channel whose export integers v = Wq - Wzp fit [-127, 127] keeps them and the
 * export's weight scale (wscale: the node's yolort.dynamic_wscale, one or one per channel), so
 * the int8 products are onnxruntime's own. uint8 weights with a zero point reach -255..255, but
 * one channel's v span at most 255 values: such a channel is stored as v - k (k the channel's
 * offset, recovered by weight_offsets: the runtime adds k * sum(x - x_zp), exact). A channel
 * whose floats are not integers of the scale is requantized to max|w| / 127. Sets W's q / qdata.
 * 0 ok, -1 error. */
static int quantize_weights_sym(lw_ctx *c, int w, const ir_attr *wscale) {
  ir_tensor *W = &c->g->tensors[w];
  if (W->q.on && W->qdata && W->q.dtype == IR_I8 && W->q.zero_point == 0) return 0; /* shared, done */
  const int64_t co = W->dims[0], n = ir_numel(W), per = co > 0 ? n / co : 0;
  if (W->dtype != IR_F32 || co < 1 || per < 1 || W->nbytes < (size_t)n * 4) {
    lw_err(c, YRT_ERR_UNSUPPORTED, "node '%s': weights '%s' are not float32", c->cur, W->name);
    return -1;
  }
  int8_t *q = malloc((size_t)n);
  float *sc = malloc(sizeof(float) * (size_t)co);
  if (!q || !sc) {
    free(q);
    free(sc);
    lw_err(c, YRT_ERR_NOMEM, "convert: out of memory");
    return -1;
  }
  const float *f = W->data;
  const int nws = wscale && wscale->type == IR_ATTR_FLOATS ? wscale->n_floats : 0;
  for (int64_t o = 0; o < co; o++) {
    const float *fo = f + o * per;
    const float s0 = nws == 1 ? wscale->floats[0] : nws == co ? wscale->floats[o] : 0.0f;
    int exact = s0 > 0.0f && isfinite(s0);
    float lo = 0.0f, hi = 0.0f;
    for (int64_t i = 0; i < per && exact; i++) {
      const float v = nearbyintf(fo[i] / s0);
      exact = fabsf(v) <= 255.0f && fabsf(v * s0 - fo[i]) <= 1e-6f * fabsf(fo[i]);
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
    float k = 0.0f; /* the channel's offset: v - k in [-127, 127] (or [-128, 127] for 255 wide) */
    if (hi > 127.0f) k = hi - 127.0f;
    else if (lo < -127.0f) k = lo + 127.0f + (hi - lo > 254.0f ? 1.0f : 0.0f);
    if (exact && hi - lo <= 255.0f) {
      sc[o] = s0;
      for (int64_t i = 0; i < per; i++) q[o * per + i] = (int8_t)(nearbyintf(fo[i] / s0) - k);
      continue;
    } else {
      float m = 0.0f;
      for (int64_t i = 0; i < per; i++) m = fabsf(fo[i]) > m ? fabsf(fo[i]) : m;
      sc[o] = m > 0.0f ? m / 127.0f : 1.0f;
    }
    for (int64_t i = 0; i < per; i++) {
      const float v = nearbyintf(fo[i] / sc[o]);
      q[o * per + i] = (int8_t)(v > 127.0f ? 127.0f : v < -127.0f ? -127.0f : v);
    }
  }
  ir_tensor_clear_quant(W);
  W->qdata = q;
  W->q = (ir_quant){.on = 1, .dtype = IR_I8, .scale = sc[0], .scales = sc, .n_scales = (int)co, .axis = 0};
  return 0;
}

/* The offsets quantize_weights_sym took off W's export integers, one per output channel
 * (round(w / scale) - q): -1 when all are 0, -2 on error, else a new I32 [Cout] tensor. */
static int add_weight_offsets(lw_ctx *c, const ir_tensor *W) {
  const int64_t co = W->dims[0], per = co > 0 ? ir_numel(W) / co : 0;
  const float *f = W->data;
  const int8_t *q = W->qdata;
  int32_t *k = calloc((size_t)co, sizeof(int32_t));
  if (!k) {
    lw_err(c, YRT_ERR_NOMEM, "convert: out of memory");
    return -2;
  }
  int any = 0;
  for (int64_t o = 0; o < co && per > 0; o++) {
    const float s = W->q.scales && W->q.n_scales > 1 ? W->q.scales[o] : W->q.scale;
    k[o] = (int32_t)nearbyintf(f[o * per] / s) - q[o * per];
    any |= k[o] != 0;
  }
  char name[512];
  snprintf(name, sizeof name, "%s#woffset", W->name);
  const int t = any ? lw_const_raw(c, name, YRT_I32, 1, &co, k, (size_t)co * 4) : -1;
  free(k);
  return any && t < 0 ? -2 : t;
}

/* W8A16 (yk_conv16): x annotated int16 (ir_quant IR_I16), int8 symmetric weights, groups 1; the
 * output z (the fused SiLU's when mul >= 0) int16 (the SiLU computed in float by the kernel's
 * output stage) or int8 (the SiLU a LUT from y's int8 grid). 1 lowered, 0 not this path (*why),
 * -1 error. */
static int lower_conv16(lw_ctx *c, int ni, int mul, int sig, int z, const int32_t *geo, const char **why) {
  ir_graph *g = c->g;
  const ir_node *n = &g->nodes[ni];
  const int x = n->in[0], w = n->in[1], b = n->n_in > 2 ? n->in[2] : -1, y = n->out[0];
  const ir_tensor *X = &g->tensors[x], *W = &g->tensors[w], *Z = &g->tensors[z];
  const int64_t co = W->dims[0];
  if (!(W->q.on && W->qdata && W->q.dtype == IR_I8 && W->q.zero_point == 0 &&
        (!W->q.scales || W->q.n_scales == 1 || (W->q.axis == 0 && W->q.n_scales == co))))
    return *why = "int16 input, weights not int8 symmetric", 0;
  if (ir_attr_int(n, "group", 1) != 1) return *why = "int16 input, grouped conv", 0;
  if (co > YK_CONV16_MAX_COUT) return *why = "int16 input, over 512 output channels", 0;
  if (X->q.scales || X->q.zero_point != 0 || !(X->q.scale > 0.0f)) return *why = "int16 input not per-tensor symmetric", 0;
  const int out16 = Z->q.on && Z->q.dtype == IR_I16 && !Z->q.scales && Z->q.zero_point == 0 && Z->q.scale > 0.0f;
  if (!out16 && !lw_q_ok(g, z)) return *why = "int16 input, output not quantized", 0;
  if (!out16 && mul >= 0 && !lw_q_ok(g, y)) return *why = "int16 input, int8 output, SiLU input not quantized", 0;
  if (mul >= 0 && (sig < 0 || g->nodes[sig].fp32 || g->nodes[mul].fp32)) return *why = "SiLU in the float region", 0;
  const int wt = add_weights(c, W, 1);
  if (wt < 0) return -1;
  /* |bias| <= YK_CONV16_BIAS_MAX (the kernel's exact int32 blocks): add_bias keeps it within
   * INT32_MAX - span */
  const int bt = add_bias(c, b, co, 1, X->q.scale, c->t[wt].scales, (int64_t)YK_CONV16_BIAS_MAX + 1);
  if (bt < 0) return -1;
  int lut = -1;
  if (!out16 && mul >= 0) {
    const ir_quant *qy = &g->tensors[y].q, *qz = &Z->q;
    lut = lw_lut_unary(c, YRT_UNARY_SILU, 0.0f, qy->scale, qy->zero_point, qz->scale, qz->zero_point);
    if (lut < 0) return -1;
  }
  const int xi = lw_get(c, x, 1, YRT_LAYOUT_NHWC);
  if (xi < 0) return -1;
  const int zo = lw_def(c, z, 1, YRT_LAYOUT_NHWC);
  if (zo < 0) return -1;
  int in[3] = {xi, wt, bt};
  lw_node *nd = lw_add_node(c, YRT_OP_CONV2D, in, 3, &zo, 1);
  if (!nd) return -1;
  for (int k = 0; k < 10; k++) nd->p[k] = geo[k];
  nd->p[YRT_CONV_P_GROUPS] = 1;
  nd->p[YRT_CONV_P_ACT] = out16 && mul >= 0 ? YRT_UNARY_SILU : YRT_UNARY_NONE;
  nd->p[YRT_CONV_P_LUT] = lut;
  if (c->rep) c->rep->n_conv16++;
  return 1;
}

yrt_status lw_lower_conv(lw_ctx *c, int ni) {
  ir_graph *g = c->g;
  const ir_node *n = &g->nodes[ni];
  if (n->n_in < 2 || n->in[0] < 0 || n->in[1] < 0 || n->n_out < 1 || n->out[0] < 0)
    return lw_err(c, YRT_ERR_FORMAT, "node '%s': Conv needs x, w and an output",
                         n->name);
  int x = n->in[0], w = n->in[1], b = n->n_in > 2 ? n->in[2] : -1, y = n->out[0];
  const ir_tensor *X = &g->tensors[x], *W = &g->tensors[w], *Y = &g->tensors[y];
  if (!W->data || W->rank != 4)
    return lw_err(c, YRT_ERR_UNSUPPORTED,
                         "node '%s': op 'Conv' needs constant 4-D weights", n->name);
  if (X->rank != 4 || Y->rank != 4)
    return lw_err(c, YRT_ERR_UNSUPPORTED, "node '%s': op 'Conv' only 2-D is supported",
                         n->name);
  int mul = c->fuse_mul[ni], sig = mul >= 0 ? find_sigmoid(g, y) : -1;
  const int act = c->fuse_act[ni]; /* Relu / LeakyRelu (fuse_silu.c): int8 both, or float both */
  int z = mul >= 0 ? g->nodes[mul].out[0] : act >= 0 ? g->nodes[act].out[0] : y;
  const char *why = NULL;
  int i8 = lw_node_int8(c, ni, &why);
  /* A SiLU whose Sigmoid output is float (yolort-quantize leaves it so) still fuses into an
   * int8 conv: the LUT then computes silu() exactly from the conv's int8 output. */
  const int exact_silu = sig >= 0 && !lw_q_ok(g, g->nodes[sig].out[0]) && lw_q_ok(g, z) &&
                         !g->nodes[sig].fp32 && !g->nodes[mul].fp32;
  if (i8 && mul >= 0 && !exact_silu) {
    const char *w2 = NULL;
    if (sig < 0 || !lw_node_int8(c, sig, &w2) || !lw_node_int8(c, mul, &w2)) {
      i8 = 0;
      why = w2 ? w2 : "SiLU not quantized";
    }
  }
  /* int8 input and weights, float output (no activation): int8 arithmetic, float result */
  const int i8f32 = !i8 && mul < 0 && act < 0 && lw_conv_i8_float_out(c, ni);
  /* onnxruntime quantize_dynamic: int8 with the input's range measured on every run (float in,
   * float out; the runtime quantizes x; grouped too, as onnxruntime's ConvInteger) unless kept
   * in float */
  const int dyn = !i8 && !i8f32 && ir_attr_int(n, "yolort.dynamic_quant", 0) == 1 && !n->fp32 &&
                  !X->q.on && W->dims[1] * W->dims[2] * W->dims[3] * 255 * 128 <= INT32_MAX / 2;
  if (i8f32 && c->rep) c->rep->n_i8f32++;
  else if (dyn && c->rep) c->rep->n_dynconv++;
  else if (!i8 && !(X->q.on && X->q.dtype == IR_I16)) lw_note_fp32(c, n, why);
  const int qarith = i8 || i8f32; /* weights, bias and input int8 */
  int64_t group = ir_attr_int(n, "group", 1);
  int64_t co = W->dims[0], cig = W->dims[1], kh = W->dims[2], kw = W->dims[3];
  if (group < 1 || co % group != 0 || X->dims[1] != cig * group || Y->dims[1] != co)
    return lw_err(c, YRT_ERR_SHAPE,
                         "node '%s': Conv channels: x %lld, w [%lld,%lld], group %lld, y %lld",
                         n->name, (long long)X->dims[1], (long long)co, (long long)cig,
                         (long long)group, (long long)Y->dims[1]);
  int64_t ks[2];
  if (attr_ints(n, "kernel_shape", ks, 2) == 2 && (ks[0] != kh || ks[1] != kw))
    return lw_err(c, YRT_ERR_SHAPE, "node '%s': kernel_shape disagrees with weights",
                         n->name);
  int32_t geo[10];
  yrt_status st = lw_spatial_params(c, n, X->dims[2], X->dims[3], (int)kh, (int)kw, Y->dims[2],
                                    Y->dims[3], 0, geo);
  if (st != YRT_OK) return st;

  if (X->q.on && X->q.dtype == IR_I16 && !n->fp32 && !lw_node_excluded(c, n)) {
    const int r = lower_conv16(c, ni, mul, sig, z, geo, &why);
    if (r < 0) return c->status;
    if (r > 0) return YRT_OK;
    lw_note_fp32(c, n, why); /* the float conv below reads the int16 input dequantized */
  }
  if (dyn && quantize_weights_sym(c, w, ir_attr_get(n, "yolort.dynamic_wscale"))) return c->status;
  W = &g->tensors[w];
  int wt = add_weights(c, W, qarith || dyn);
  if (wt < 0) return c->status;
  const int64_t span = kh * kw * cig * 255 * 128;
  if (qarith && span > INT32_MAX)
    return lw_err(c, YRT_ERR_UNSUPPORTED, "node '%s': int8 window of %lld products can overflow int32",
                  n->name, (long long)(kh * kw * cig));
  int bt = add_bias(c, b, co, qarith, qarith ? X->q.scale : 0.0f, qarith ? c->t[wt].scales : NULL, span);
  if (bt < 0) return c->status;
  int lut = -1;
  if (i8 && mul >= 0) {
    if (exact_silu) {
      const ir_quant *qy = &g->tensors[y].q, *qz = &g->tensors[z].q;
      lut = lw_lut_unary(c, YRT_UNARY_SILU, 0.0f, qy->scale, qy->zero_point, qz->scale,
                         qz->zero_point);
    } else {
      lut = lw_lut_silu(c, &g->tensors[y].q, &g->tensors[g->nodes[sig].out[0]].q,
                        &g->tensors[z].q);
    }
    if (lut < 0) return c->status;
  } else if (i8 && act >= 0) {
    const onnx_op_row *row = ir_node_op(&g->nodes[act]);
    const float alpha = row && row->alpha != 0.0f ? ir_attr_float(&g->nodes[act], "alpha", row->alpha) : 0.0f;
    const ir_quant *qy = &g->tensors[y].q, *qz = &g->tensors[z].q;
    lut = lw_lut_unary(c, row ? row->lower_kind : YRT_UNARY_RELU, alpha, qy->scale, qy->zero_point, qz->scale,
                       qz->zero_point);
    if (lut < 0) return c->status;
  }
  int xi = lw_get(c, x, qarith, YRT_LAYOUT_NHWC);
  if (xi < 0) return c->status;
  int zo = lw_def(c, z, i8, YRT_LAYOUT_NHWC);
  if (zo < 0) return c->status;
  const int wo = dyn ? add_weight_offsets(c, &g->tensors[w]) : -1;
  if (wo == -2) return c->status;
  int in[4] = {xi, wt, bt, wo};
  lw_node *nd = lw_add_node(c, YRT_OP_CONV2D, in, wo >= 0 ? 4 : 3, &zo, 1);
  if (!nd) return c->status;
  for (int k = 0; k < 10; k++) nd->p[k] = geo[k];
  nd->p[YRT_CONV_P_GROUPS] = (int32_t)group;
  nd->p[YRT_CONV_P_ACT] = (!i8 && mul >= 0) ? YRT_UNARY_SILU : (!i8 && act >= 0) ? YRT_UNARY_RELU : YRT_UNARY_NONE;
  nd->p[YRT_CONV_P_LUT] = lut;
  return YRT_OK;
}
