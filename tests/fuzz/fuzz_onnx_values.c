/* fuzz_onnx_values.c — libFuzzer target: valid ONNX models with hostile numbers, what the round-3
 * probe (issue 40) used and byte-level mutation rarely reaches: a custom mutator parses the model
 * and rewrites one to three values — an initializer element (a weight scale NaN, 0, negative or
 * denormal, a zero point out of range, a shape constant), a node attribute (int, ints, float), an
 * initializer's or the graph input's dims — then serialises it again (one time in four it mutates
 * bytes instead). Seeds: the tiny models, among them the quantize_dynamic one (DynamicQuantizeLinear
 * + ConvInteger: the converter's recover_integer_ops path) and the QDQ one. Each input goes
 * through the converter as in fuzz_onnx_convert (what it writes must load), then through
 * yolort-quantize's input stage (float_recover: the float graph behind a quantized export), whose
 * result must be serialisable and is converted the same way. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "float_recover.h"
#include "fuzz_convert.h"
#include "onnx_write.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

static uint64_t rnd(uint64_t *s) { /* splitmix64 from libFuzzer's seed: the mutation is reproducible */
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static float hostile_float(uint64_t *r, float old) {
  static const float v[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, -1.0f, 1e-40f, FLT_MIN, 1e30f, 3e38f, -0.25f, 0.5f};
  const int k = (int)(rnd(r) % 16);
  if (k < 12) return v[k];
  if (k == 12) return -old;
  if (k == 13) return old * 1e10f;
  if (k == 14) return old * 1e-10f;
  return old * 2.0f;
}

static int64_t hostile_int(uint64_t *r, int64_t old) {
  static const int64_t v[] = {0, 1, -1, 2, 127, 128, 255, -128, 256, INT32_MAX, INT32_MIN, (int64_t)1 << 40, INT64_MAX};
  const int k = (int)(rnd(r) % 16);
  if (k < 13) return v[k];
  /* wrapping on purpose (unsigned: no UB in the mutator itself) */
  if (k == 13) return (int64_t)((uint64_t)old + 1u);
  if (k == 14) return (int64_t)((uint64_t)old - 1u);
  return (int64_t)((uint64_t)old * 2u);
}

/* One element of initializer t, whatever its storage. 0: nothing to change. */
static int mutate_tensor_value(Onnx__TensorProto *t, uint64_t *r) {
  const int dt = t->data_type;
  const size_t es = dt == 1 || dt == 6 ? 4 : dt == 7 ? 8 : dt == 2 || dt == 3 ? 1 : 0;
  if (t->has_raw_data && es && t->raw_data.len >= es) {
    uint8_t *p = t->raw_data.data + (rnd(r) % (t->raw_data.len / es)) * es;
    if (dt == 1) {
      float f;
      memcpy(&f, p, 4);
      f = hostile_float(r, f);
      memcpy(p, &f, 4);
    } else if (dt == 6) {
      int32_t v;
      memcpy(&v, p, 4);
      v = (int32_t)hostile_int(r, v);
      memcpy(p, &v, 4);
    } else if (dt == 7) {
      int64_t v;
      memcpy(&v, p, 8);
      v = hostile_int(r, v);
      memcpy(p, &v, 8);
    } else {
      *p = (uint8_t)hostile_int(r, *p);
    }
    return 1;
  }
  if (t->n_float_data) {
    float *f = &t->float_data[rnd(r) % t->n_float_data];
    *f = hostile_float(r, *f);
    return 1;
  }
  if (t->n_int32_data) {
    int32_t *v = &t->int32_data[rnd(r) % t->n_int32_data];
    *v = (int32_t)hostile_int(r, *v);
    return 1;
  }
  if (t->n_int64_data) {
    int64_t *v = &t->int64_data[rnd(r) % t->n_int64_data];
    *v = hostile_int(r, *v);
    return 1;
  }
  return 0;
}

static int mutate_attribute(Onnx__NodeProto *n, uint64_t *r) {
  if (!n->n_attribute) return 0;
  Onnx__AttributeProto *a = n->attribute[rnd(r) % n->n_attribute];
  if (a->n_ints) {
    int64_t *v = &a->ints[rnd(r) % a->n_ints];
    *v = hostile_int(r, *v);
  } else if (a->n_floats) {
    float *f = &a->floats[rnd(r) % a->n_floats];
    *f = hostile_float(r, *f);
  } else if (a->has_f) {
    a->f = hostile_float(r, a->f);
  } else if (a->has_i) {
    a->i = hostile_int(r, a->i);
  } else if (a->t) {
    return mutate_tensor_value(a->t, r);
  } else {
    return 0;
  }
  return 1;
}

static int mutate_model(Onnx__ModelProto *m, uint64_t *r) {
  Onnx__GraphProto *g = m->graph;
  if (!g) return 0;
  const int what = (int)(rnd(r) % 10);
  if (what < 6 && g->n_initializer) return mutate_tensor_value(g->initializer[rnd(r) % g->n_initializer], r);
  if (what < 8 && g->n_node) return mutate_attribute(g->node[rnd(r) % g->n_node], r);
  if (what == 8 && g->n_initializer) {
    Onnx__TensorProto *t = g->initializer[rnd(r) % g->n_initializer];
    if (!t->n_dims) return 0;
    int64_t *d = &t->dims[rnd(r) % t->n_dims];
    *d = hostile_int(r, *d);
    return 1;
  }
  if (g->n_input && g->input[0]->type && g->input[0]->type->tensor_type && g->input[0]->type->tensor_type->shape) {
    Onnx__TensorShapeProto *s = g->input[0]->type->tensor_type->shape;
    if (!s->n_dim) return 0;
    Onnx__TensorShapeProto__Dimension *d = s->dim[rnd(r) % s->n_dim];
    if (d->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) return 0;
    d->dim_value = hostile_int(r, d->dim_value);
    return 1;
  }
  return 0;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
  uint64_t r = seed;
  if (rnd(&r) % 4 == 0) return LLVMFuzzerMutate(data, size, max_size);
  Onnx__ModelProto *m = NULL;
  yrt_error err;
  if (onnx_model_load_memory(data, size, &m, &err) != YRT_OK) return LLVMFuzzerMutate(data, size, max_size);
  int changed = 0;
  const int times = 1 + (int)(rnd(&r) % 3);
  for (int k = 0; k < times; k++) changed += mutate_model(m, &r);
  uint8_t *out = NULL;
  size_t n = 0;
  const int packed = changed && onnx_model_pack(m, &out, &n, &err) == YRT_OK && n <= max_size;
  onnx_model_free(m);
  if (!packed) {
    free(out);
    return LLVMFuzzerMutate(data, size, max_size);
  }
  memcpy(data, out, n);
  free(out);
  return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_convert_and_run(data, size);
  /* yolort-quantize's input stage on the same bytes */
  Onnx__ModelProto *m = NULL;
  yrt_error err;
  err.msg[0] = 0;
  yrt_status st = onnx_model_load_memory(data, size, &m, &err);
  if (st != YRT_OK) {
    FZ_CHECK(m == NULL);
    fz_check_error(st, &err);
    return 0;
  }
  float_recover_report rep;
  st = float_recover(&m, &rep, &err);
  if (st != YRT_OK) {
    fz_check_error(st, &err);
  } else {
    uint8_t *bytes = NULL;
    size_t n = 0;
    st = onnx_model_pack(m, &bytes, &n, &err);
    FZ_CHECK(st == YRT_OK); /* the recovered graph is a model like any other */
    if (float_recover_any(&rep)) fz_convert_and_run(bytes, n);
    free(bytes);
  }
  onnx_model_free(m);
  return 0;
}
