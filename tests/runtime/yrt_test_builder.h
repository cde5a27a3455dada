/* yrt_test_builder.h — builds small .yrt images in tests (the converter is not needed).
 * Activations get their own arena range each (bump allocation, 64-aligned), so the memory plan
 * is trivially valid; tests that want hostile files edit the records or the serialized bytes. */
#ifndef YRT_TEST_BUILDER_H
#define YRT_TEST_BUILDER_H

#include <stddef.h>
#include <stdint.h>

#include "yolort.h"
#include "yolort_format.h"

typedef struct ytb ytb;

ytb *ytb_new(void);
void ytb_free(ytb *b);

/* Add a string, return its offset. */
uint32_t ytb_string(ytb *b, const char *s);
/* Arena tensor (ACT / INPUT / OUTPUT). Returns its index. */
uint32_t ytb_tensor(ytb *b, const char *name, uint32_t dtype, uint32_t kind, uint32_t layout, int rank,
                    const int32_t *dims);
/* Constant tensor with data copied into the weights section. */
uint32_t ytb_const(ytb *b, const char *name, uint32_t dtype, int rank, const int32_t *dims, const void *data);
void ytb_set_q(ytb *b, uint32_t t, float scale, int32_t zp);
/* Int8 NHWC activation quantized with (scale, zp): ytb_tensor + ytb_set_q. */
uint32_t ytb_act_i8(ytb *b, const char *name, int rank, const int32_t *dims, float scale, int32_t zp);
/* Per-channel scales (copied into weights). */
void ytb_set_channel_scales(ytb *b, uint32_t t, uint32_t axis, const float *scales, uint32_t n);
yrt_tensor_rec *ytb_tensor_rec(ytb *b, uint32_t t);

/* Node with one output. p / f may be NULL (zeros). Returns the node index. */
uint32_t ytb_node(ytb *b, uint32_t op, const char *name, int n_in, const uint32_t *in, uint32_t out,
                  const int32_t *p, int np, const float *f, int nf);
yrt_node_rec *ytb_node_rec(ytb *b, uint32_t i);

void ytb_input(ytb *b, uint32_t t);
void ytb_output(ytb *b, uint32_t t);
void ytb_meta(ytb *b, uint32_t w, uint32_t h, uint32_t num_classes, const char *names);
void ytb_set_arena_bytes(ytb *b, uint64_t bytes); /* override the computed peak */
/* META's preprocessing (flags, pad, scale; the mean / std record when not 0 / 1), as the
 * converter's writer stores it; ytb_meta_rec for raw edits (e.g. unknown flag bits). */
void ytb_preprocess(ytb *b, const yrt_preprocess *pp);
yrt_meta_rec *ytb_meta_rec(ytb *b);

/* Serialize into a new 64-aligned buffer (free with free()). */
void *ytb_serialize(ytb *b, size_t *size);

/* A built model loaded and given one session with default options. */
typedef struct ytb_loaded {
  void *img; /* the serialized image */
  yrt_model *m;
  yrt_session *s;
  const char *step; /* on failure, the call that failed: "load" or "session" */
} ytb_loaded;

/* Serializes and frees b, loads the image (copy as in yrt_model_load_memory) and creates the
 * session. Returns the failing call's status (err set, l->step naming it) or YRT_OK; free with
 * ytb_unload either way. */
yrt_status ytb_load(ytb *b, int copy, ytb_loaded *l, yrt_error *err);
void ytb_unload(ytb_loaded *l);

/* Recompute the header CRC after editing a serialized image. */
void ytb_fix_crc(void *buf, size_t size);
/* Find a section in a serialized image: returns its offset and writes its size, 0 if absent. */
uint64_t ytb_section(const void *buf, uint32_t kind, uint64_t *size);

/* Every 32-bit word of node `node`'s record in a serialized image set to each of vals[0..n): the
 * image (CRC fixed) loaded, and when it loads, use(model, ctx) called (e.g. a session run).
 * Returns how many edits loaded. A hostile-record sweep: rejected or harmless, never a crash. */
int ytb_node_words(const void *img, size_t size, uint32_t node, const uint32_t *vals, size_t n,
                   void (*use)(yrt_model *m, void *ctx), void *ctx);
/* A test's hostile-record sweep: b serialized and freed, then ytb_node_words over its node `node`
 * with the edge values every kind's test uses (small counts, 1024, 4096, INT32_MAX, INT32_MIN, all
 * ones), use NULL meaning ytb_use_run; prints and returns how many loaded (-1: out of memory). */
int ytb_node_sweep(ytb *b, uint32_t node, void (*use)(yrt_model *m, void *ctx), void *ctx);
/* A session of one thread (a sweep makes many: no pool each), run once. */
void ytb_use_run(yrt_model *m, void *ctx);
/* A hostile edit's verdict: b loaded (serialized and freed); NULL when the loader rejected it with
 * in_msg in its message (in_msg NULL: any message), printed as "what -> message"; else what is
 * wrong ("accepted", ...). */
const char *ytb_rejected(ytb *b, const char *what, const char *in_msg);

/* A model of one node of kind op (parameters p[0..n_p), n_in inputs, all the float input x) then a
 * built-in ReLU: x [1, numel] -> op -> t -> relu -> y, f32 (a kind registered by a test). */
void *ytb_kind_then_relu(uint32_t op, const int32_t *p, int n_p, int n_in, int numel, size_t *size);

/* Conv params helper: fills p[YRT_CONV_P_*]. */
void ytb_conv_params(int32_t *p, int kh, int kw, int sh, int sw, int pt, int pl, int pb, int pr, int dh, int dw,
                     int groups, int act, int lut);

/* The rest of an int8-output conv test's graph once x (the f32 input), xq (its quantized form)
 * and the weights w are made: x -QUANTIZE-> xq, CONV2D(xq, w, bias) -> y with the params p
 * (ytb_conv_params; its LUT index is set here), y an int8 NHWC output of dims yd quantized
 * (sy, zy), and a 256-entry int8 LUT constant quantized as y (a fused LUT's index domain), fused
 * when use_lut. bias: yd[3] int32. x is the graph's input, y its output; returns y. */
uint32_t ytb_quantize_conv_i8(ytb *b, uint32_t x, uint32_t xq, uint32_t w, const int32_t *bias, const int32_t *p,
                              const int32_t *yd, float sy, int32_t zy, const int8_t *lut, int use_lut);

#endif
