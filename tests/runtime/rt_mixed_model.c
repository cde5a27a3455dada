/* rt_mixed_model.c — see rt_mixed_model.h. */
#include "rt_mixed_model.h"

#include <string.h>

#include "yrt_test_builder.h"

void rt_mixed_input(float *x) {
  for (int i = 0; i < 48; i++) x[i] = (float)((i * 37) % 29) / 14.0f - 1.0f;
}

void *rt_mixed_model(size_t *size) {
  ytb *b = ytb_new();
  int8_t w[4 * 3 * 3 * 3], lut[256];
  int32_t bias[4] = {10, -20, 30, 0};
  float ws[4] = {0.01f, 0.02f, 0.015f, 0.005f};
  for (int i = 0; i < (int)sizeof w; i++) w[i] = (int8_t)((i * 53) % 255 - 127);
  for (int i = 0; i < 256; i++) lut[i] = (int8_t)((255 - i) - 128);
  float mmw[16 * 3], mulc[3] = {1.5f, -2.0f, 0.5f}, cw[2 * 8], cb[2] = {0.1f, -0.1f};
  for (int i = 0; i < 48; i++) mmw[i] = (float)(i % 7) * 0.1f - 0.3f;
  for (int i = 0; i < 16; i++) cw[i] = (float)(i % 5) * 0.2f - 0.4f;
  int32_t gidx[2] = {0, -1};

  int32_t d_x[4] = {1, 4, 4, 3}, d_w[4] = {4, 3, 3, 3}, d_b[1] = {4}, d_c1[4] = {1, 4, 4, 4};
  int32_t d_cat[4] = {1, 4, 4, 8}, d_up[4] = {1, 8, 8, 8}, d_lut[1] = {256}, d_tr[4] = {1, 8, 4, 4};
  int32_t d_rs[3] = {1, 8, 16}, d_gi[1] = {2}, d_ga[3] = {1, 2, 16}, d_mmw[3] = {1, 16, 3}, d_mm[3] = {1, 2, 3};
  int32_t d_mul[3] = {1, 1, 3}, d_cw[4] = {2, 1, 1, 8}, d_cb[1] = {2}, d_co[4] = {1, 4, 4, 2};

  uint32_t x = ytb_tensor(b, "x", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_NHWC, 4, d_x);
  uint32_t q = ytb_act_i8(b, "q", 4, d_x, 1.0f / 64, 2);
  uint32_t tw = ytb_const(b, "w", YRT_I8, 4, d_w, w);
  ytb_set_channel_scales(b, tw, 0, ws, 4);
  uint32_t tb = ytb_const(b, "b", YRT_I32, 1, d_b, bias);
  uint32_t tl = ytb_const(b, "lut", YRT_I8, 1, d_lut, lut);
  uint32_t c1 = ytb_act_i8(b, "c1", 4, d_c1, 0.05f, -3);
  uint32_t mp = ytb_act_i8(b, "mp", 4, d_c1, 0.05f, -3);
  uint32_t cat = ytb_act_i8(b, "cat", 4, d_cat, 0.06f, 1);
  uint32_t up = ytb_act_i8(b, "up", 4, d_up, 0.06f, 1);
  uint32_t sl = ytb_act_i8(b, "sl", 4, d_cat, 0.06f, 1);
  uint32_t add = ytb_act_i8(b, "add", 4, d_cat, 0.1f, 0);
  uint32_t lu = ytb_act_i8(b, "lu", 4, d_cat, 0.1f, 0);
  uint32_t dq = ytb_tensor(b, "dq", YRT_F32, YRT_TENSOR_ACT, YRT_LAYOUT_NHWC, 4, d_cat);
  uint32_t tr = ytb_tensor(b, "tr", YRT_F32, YRT_TENSOR_ACT, YRT_LAYOUT_PLAIN, 4, d_tr);
  uint32_t rs = ytb_tensor(b, "rs", YRT_F32, YRT_TENSOR_ACT, YRT_LAYOUT_PLAIN, 3, d_rs);
  uint32_t sm = ytb_tensor(b, "sm", YRT_F32, YRT_TENSOR_ACT, YRT_LAYOUT_PLAIN, 3, d_rs);
  uint32_t un = ytb_tensor(b, "un", YRT_F32, YRT_TENSOR_ACT, YRT_LAYOUT_PLAIN, 3, d_rs);
  uint32_t gi = ytb_const(b, "gi", YRT_I32, 1, d_gi, gidx);
  uint32_t ga = ytb_tensor(b, "ga", YRT_F32, YRT_TENSOR_ACT, YRT_LAYOUT_PLAIN, 3, d_ga);
  uint32_t tmmw = ytb_const(b, "mmw", YRT_F32, 3, d_mmw, mmw);
  uint32_t mm = ytb_tensor(b, "mm", YRT_F32, YRT_TENSOR_ACT, YRT_LAYOUT_PLAIN, 3, d_mm);
  uint32_t tmul = ytb_const(b, "mulc", YRT_F32, 3, d_mul, mulc);
  uint32_t out0 = ytb_tensor(b, "out0", YRT_F32, YRT_TENSOR_OUTPUT, YRT_LAYOUT_PLAIN, 3, d_mm);
  uint32_t tcw = ytb_const(b, "cw", YRT_F32, 4, d_cw, cw);
  uint32_t tcb = ytb_const(b, "cb", YRT_F32, 1, d_cb, cb);
  uint32_t out1 = ytb_tensor(b, "out1", YRT_F32, YRT_TENSOR_OUTPUT, YRT_LAYOUT_NHWC, 4, d_co);

  int32_t p[YRT_NODE_PARAMS];
  ytb_node(b, YRT_OP_QUANTIZE, "quant", 1, &x, q, NULL, 0, NULL, 0);
  ytb_conv_params(p, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, YRT_UNARY_NONE, (int)tl);
  uint32_t in_c1[3] = {q, tw, tb};
  ytb_node(b, YRT_OP_CONV2D, "conv_i8", 3, in_c1, c1, p, YRT_NODE_PARAMS, NULL, 0);
  int32_t pool[10] = {3, 3, 1, 1, 1, 1, 1, 1, 1, 1};
  ytb_node(b, YRT_OP_MAXPOOL, "pool", 1, &c1, mp, pool, 10, NULL, 0);
  uint32_t in_cat[2] = {c1, mp};
  int32_t axis3 = 3;
  ytb_node(b, YRT_OP_CONCAT, "cat", 2, in_cat, cat, &axis3, 1, NULL, 0);
  float scales[2] = {2.0f, 2.0f};
  ytb_node(b, YRT_OP_RESIZE_NEAREST, "up", 1, &cat, up, NULL, 0, scales, 2);
  int32_t sp[12] = {0, 1, 1, 0, 0, 0, 1, 2, 2, 1, 1, 1};
  ytb_node(b, YRT_OP_SLICE, "slice", 1, &up, sl, sp, 12, NULL, 0);
  uint32_t in_add[2] = {sl, cat};
  int32_t kadd = YRT_BIN_ADD;
  ytb_node(b, YRT_OP_BINARY, "add", 2, in_add, add, &kadd, 1, NULL, 0);
  uint32_t in_lu[2] = {add, tl};
  ytb_node(b, YRT_OP_LUT, "lut", 2, in_lu, lu, NULL, 0, NULL, 0);
  ytb_node(b, YRT_OP_DEQUANTIZE, "dq", 1, &lu, dq, NULL, 0, NULL, 0);
  int32_t perm[4] = {0, 3, 1, 2};
  ytb_node(b, YRT_OP_TRANSPOSE, "tr", 1, &dq, tr, perm, 4, NULL, 0);
  ytb_node(b, YRT_OP_RESHAPE, "rs", 1, &tr, rs, NULL, 0, NULL, 0);
  int32_t axis2 = 2;
  ytb_node(b, YRT_OP_SOFTMAX, "sm", 1, &rs, sm, &axis2, 1, NULL, 0);
  int32_t ksig = YRT_UNARY_SIGMOID;
  ytb_node(b, YRT_OP_UNARY, "sig", 1, &sm, un, &ksig, 1, NULL, 0);
  uint32_t in_ga[2] = {un, gi};
  int32_t axis1 = 1;
  ytb_node(b, YRT_OP_GATHER, "ga", 2, in_ga, ga, &axis1, 1, NULL, 0);
  uint32_t in_mm[2] = {ga, tmmw};
  ytb_node(b, YRT_OP_MATMUL, "mm", 2, in_mm, mm, NULL, 0, NULL, 0);
  uint32_t in_mul[2] = {mm, tmul};
  int32_t kmul = YRT_BIN_MUL;
  ytb_node(b, YRT_OP_BINARY, "mul", 2, in_mul, out0, &kmul, 1, NULL, 0);
  ytb_conv_params(p, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, YRT_UNARY_SILU, -1);
  uint32_t in_cf[3] = {dq, tcw, tcb};
  ytb_node(b, YRT_OP_CONV2D, "conv_f32", 3, in_cf, out1, p, YRT_NODE_PARAMS, NULL, 0);
  ytb_input(b, x);
  ytb_output(b, out0);
  ytb_output(b, out1);
  ytb_meta(b, 4, 4, 3, "cat\ndog\nbird");
  void *img = ytb_serialize(b, size);
  ytb_free(b);
  return img;
}
