/* onnx_write.c — build/edit/serialise ONNX models in memory (see onnx_write.h for ownership). */
#include "onnx_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_write.h"
#include "onnx_reader.h"
#include "onnx_wire_check.h"

static char *dupstr(const char *s) { return ir_strdup(s ? s : ""); }

/* Grow a protobuf-c repeated pointer field by one slot; returns the slot or NULL. */
static void **grow(void ***arr, size_t *n) {
  void **a = realloc(*arr, sizeof(void *) * (*n + 1));
  if (!a) return NULL;
  *arr = a;
  a[*n] = NULL;
  return &a[(*n)++];
}
#define GROW(arr, n) grow((void ***)&(arr), &(n))

Onnx__ModelProto *onnx_model_new(int64_t opset) {
  Onnx__ModelProto *m = malloc(sizeof(*m));
  if (!m) return NULL;
  onnx__model_proto__init(m);
  m->has_ir_version = 1;
  m->ir_version = 8;
  m->producer_name = dupstr("yolort");
  m->graph = malloc(sizeof(*m->graph));
  if (m->graph) {
    onnx__graph_proto__init(m->graph);
    m->graph->name = dupstr("yolort");
  }
  if (!m->producer_name || !m->graph || !m->graph->name || onnx_model_set_opset(m, opset)) {
    onnx_model_free(m);
    return NULL;
  }
  return m;
}

void onnx_model_free(Onnx__ModelProto *m) {
  if (m) onnx__model_proto__free_unpacked(m, NULL);
}

yrt_status onnx_model_load_memory(const void *data, size_t size, Onnx__ModelProto **out,
                                  yrt_error *err) {
  if (!out) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "onnx_model_load_memory: out is NULL");
  *out = NULL;
  if (!data || !size) return yrt_set_error(err, YRT_ERR_FORMAT, "onnx: empty input");
  yrt_status wst = onnx_wire_check(data, size, &onnx__model_proto__descriptor, err);
  if (wst != YRT_OK) return wst;
  Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, size, data);
  if (!m) return yrt_set_error(err, YRT_ERR_FORMAT, "onnx: not a valid ONNX protobuf (%zu bytes)", size);
  if (!m->graph) {
    onnx_model_free(m);
    return yrt_set_error(err, YRT_ERR_FORMAT, "onnx: model has no graph");
  }
  *out = m;
  return YRT_OK;
}

yrt_status onnx_model_load_file(const char *path, Onnx__ModelProto **out, yrt_error *err) {
  if (!path || !out) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "onnx_model_load_file: NULL");
  uint8_t *buf = NULL;
  size_t size = 0;
  yrt_status st = onnx_read_file_bytes(path, &buf, &size, err);
  if (st) return st;
  st = onnx_model_load_memory(buf, size, out, err);
  free(buf);
  return st;
}

yrt_status onnx_model_pack(const Onnx__ModelProto *m, uint8_t **bytes, size_t *size,
                           yrt_error *err) {
  if (!m || !bytes || !size) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "onnx_model_pack: NULL");
  size_t n = onnx__model_proto__get_packed_size(m);
  uint8_t *b = malloc(n ? n : 1);
  if (!b) return yrt_set_error(err, YRT_ERR_NOMEM, "onnx_model_pack: out of memory (%zu bytes)", n);
  size_t w = onnx__model_proto__pack(m, b);
  if (w != n) {
    free(b);
    return yrt_set_error(err, YRT_ERR_FORMAT, "onnx_model_pack: packed %zu of %zu bytes", w, n);
  }
  *bytes = b;
  *size = n;
  return YRT_OK;
}

yrt_status onnx_model_write_file(const Onnx__ModelProto *m, const char *path, yrt_error *err) {
  uint8_t *b = NULL;
  size_t n = 0;
  yrt_status st = onnx_model_pack(m, &b, &n, err);
  if (st) return st;
  st = yrt_write_file_atomic(path, b, n, err); /* temp file + rename, like every output */
  free(b);
  return st;
}

static int is_default_domain(const char *d) { return !d || !*d || strcmp(d, "ai.onnx") == 0; }

int onnx_model_set_opset(Onnx__ModelProto *m, int64_t opset) { return onnx_model_set_opset_domain(m, "", opset); }

int onnx_model_set_opset_domain(Onnx__ModelProto *m, const char *domain, int64_t opset) {
  if (!m) return -1;
  const int dflt = is_default_domain(domain);
  for (size_t i = 0; i < m->n_opset_import; i++) {
    Onnx__OperatorSetIdProto *o = m->opset_import[i];
    if (o && (dflt ? is_default_domain(o->domain) : o->domain && strcmp(o->domain, domain) == 0)) {
      o->has_version = 1;
      o->version = opset;
      return 0;
    }
  }
  Onnx__OperatorSetIdProto *o = malloc(sizeof(*o));
  if (!o) return -1;
  onnx__operator_set_id_proto__init(o);
  o->domain = dupstr(dflt ? "" : domain);
  o->has_version = 1;
  o->version = opset;
  void **slot = o->domain ? GROW(m->opset_import, m->n_opset_import) : NULL;
  if (!slot) {
    onnx__operator_set_id_proto__free_unpacked(o, NULL);
    return -1;
  }
  *slot = o;
  return 0;
}

int onnx_model_set_metadata(Onnx__ModelProto *m, const char *key, const char *value) {
  if (!m || !key) return -1;
  char *v = dupstr(value);
  if (!v) return -1;
  for (size_t i = 0; i < m->n_metadata_props; i++) {
    Onnx__StringStringEntryProto *e = m->metadata_props[i];
    if (e && e->key && strcmp(e->key, key) == 0) {
      free(e->value);
      e->value = v;
      return 0;
    }
  }
  Onnx__StringStringEntryProto *e = malloc(sizeof(*e));
  if (!e) { free(v); return -1; }
  onnx__string_string_entry_proto__init(e);
  e->key = dupstr(key);
  e->value = v;
  void **slot = e->key ? GROW(m->metadata_props, m->n_metadata_props) : NULL;
  if (!slot) {
    onnx__string_string_entry_proto__free_unpacked(e, NULL);
    return -1;
  }
  *slot = e;
  return 0;
}

static Onnx__ValueInfoProto *value_info_new(const char *name, ir_dtype dtype, int rank,
                                            const int64_t *dims) {
  if (rank > IR_MAX_RANK) return NULL;
  Onnx__ValueInfoProto *vi = malloc(sizeof(*vi));
  if (!vi) return NULL;
  onnx__value_info_proto__init(vi);
  vi->name = dupstr(name);
  vi->type = malloc(sizeof(*vi->type));
  if (!vi->name || !vi->type) goto fail;
  onnx__type_proto__init(vi->type);
  Onnx__TypeProto__Tensor *tt = malloc(sizeof(*tt));
  if (!tt) goto fail;
  onnx__type_proto__tensor__init(tt);
  vi->type->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
  vi->type->tensor_type = tt;
  tt->has_elem_type = 1;
  tt->elem_type = (int32_t)dtype;
  if (rank >= 0) {
    tt->shape = malloc(sizeof(*tt->shape));
    if (!tt->shape) goto fail;
    onnx__tensor_shape_proto__init(tt->shape);
    for (int i = 0; i < rank; i++) {
      Onnx__TensorShapeProto__Dimension *d = malloc(sizeof(*d));
      if (!d) goto fail;
      onnx__tensor_shape_proto__dimension__init(d);
      void **slot = GROW(tt->shape->dim, tt->shape->n_dim);
      if (!slot) { free(d); goto fail; }
      *slot = d;
      if (dims[i] >= 0) {
        d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
        d->dim_value = dims[i];
      } else {
        d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
        d->dim_param = dupstr("N");
        if (!d->dim_param) goto fail;
      }
    }
  }
  return vi;
fail:
  onnx__value_info_proto__free_unpacked(vi, NULL);
  return NULL;
}

int onnx_model_add_input(Onnx__ModelProto *m, const char *name, ir_dtype dtype, int rank,
                         const int64_t *dims) {
  if (!m || !m->graph || !name) return -1;
  Onnx__ValueInfoProto *vi = value_info_new(name, dtype, rank, dims);
  void **slot = vi ? GROW(m->graph->input, m->graph->n_input) : NULL;
  if (!slot) {
    if (vi) onnx__value_info_proto__free_unpacked(vi, NULL);
    return -1;
  }
  *slot = vi;
  return 0;
}

int onnx_model_add_output(Onnx__ModelProto *m, const char *name, ir_dtype dtype, int rank,
                          const int64_t *dims) {
  if (!m || !m->graph || !name) return -1;
  Onnx__ValueInfoProto *vi = value_info_new(name, dtype, rank, dims);
  void **slot = vi ? GROW(m->graph->output, m->graph->n_output) : NULL;
  if (!slot) {
    if (vi) onnx__value_info_proto__free_unpacked(vi, NULL);
    return -1;
  }
  *slot = vi;
  return 0;
}

Onnx__TensorProto *onnx_tensor_new(const char *name, ir_dtype dtype, int rank,
                                   const int64_t *dims, const void *data, int raw) {
  size_t es = ir_dtype_size(dtype);
  if (!es || rank < 0 || rank > IR_MAX_RANK || (rank > 0 && !dims)) return NULL;
  size_t numel = 1;
  for (int i = 0; i < rank; i++) {
    if (dims[i] < 0) return NULL;
    numel *= (size_t)dims[i];
  }
  if (numel && !data) return NULL;
  Onnx__TensorProto *t = malloc(sizeof(*t));
  if (!t) return NULL;
  onnx__tensor_proto__init(t);
  t->name = dupstr(name);
  t->has_data_type = 1;
  t->data_type = (int32_t)dtype;
  t->dims = malloc(sizeof(int64_t) * (size_t)(rank ? rank : 1));
  if (!t->name || !t->dims) goto fail;
  t->n_dims = (size_t)rank;
  for (int i = 0; i < rank; i++) t->dims[i] = dims[i];
  if (raw || numel == 0) {
    t->has_raw_data = 1;
    t->raw_data.len = numel * es;
    t->raw_data.data = malloc(numel ? numel * es : 1);
    if (!t->raw_data.data) goto fail;
    if (numel) memcpy(t->raw_data.data, data, numel * es);
    return t;
  }
  switch (dtype) {
    case IR_F32:
      if (!(t->float_data = malloc(numel * 4))) goto fail;
      memcpy(t->float_data, data, numel * 4);
      t->n_float_data = numel;
      break;
    case IR_F64:
      if (!(t->double_data = malloc(numel * 8))) goto fail;
      memcpy(t->double_data, data, numel * 8);
      t->n_double_data = numel;
      break;
    case IR_I64:
      if (!(t->int64_data = malloc(numel * 8))) goto fail;
      memcpy(t->int64_data, data, numel * 8);
      t->n_int64_data = numel;
      break;
    case IR_I32: case IR_I8: case IR_U8: case IR_BOOL:
      if (!(t->int32_data = malloc(numel * 4))) goto fail;
      for (size_t i = 0; i < numel; i++) {
        int32_t v;
        if (dtype == IR_I32) memcpy(&v, (const char *)data + i * 4, 4);
        else if (dtype == IR_I8) v = ((const int8_t *)data)[i];
        else v = ((const uint8_t *)data)[i];
        t->int32_data[i] = v;
      }
      t->n_int32_data = numel;
      break;
    default: goto fail;
  }
  return t;
fail:
  onnx__tensor_proto__free_unpacked(t, NULL);
  return NULL;
}

int onnx_model_add_initializer_ex(Onnx__ModelProto *m, const char *name, ir_dtype dtype,
                                  int rank, const int64_t *dims, const void *data, int raw) {
  if (!m || !m->graph || !name) return -1;
  Onnx__TensorProto *t = onnx_tensor_new(name, dtype, rank, dims, data, raw);
  void **slot = t ? GROW(m->graph->initializer, m->graph->n_initializer) : NULL;
  if (!slot) {
    if (t) onnx__tensor_proto__free_unpacked(t, NULL);
    return -1;
  }
  *slot = t;
  return 0;
}

int onnx_model_add_initializer(Onnx__ModelProto *m, const char *name, ir_dtype dtype, int rank,
                               const int64_t *dims, const void *data) {
  return onnx_model_add_initializer_ex(m, name, dtype, rank, dims, data, 1);
}

Onnx__TensorProto *onnx_model_find_initializer(const Onnx__ModelProto *m, const char *name) {
  if (!m || !m->graph || !name) return NULL;
  for (size_t i = 0; i < m->graph->n_initializer; i++) {
    Onnx__TensorProto *t = m->graph->initializer[i];
    if (t && t->name && strcmp(t->name, name) == 0) return t;
  }
  return NULL;
}

int onnx_model_remove_initializer(Onnx__ModelProto *m, const char *name) {
  if (!m || !m->graph || !name) return -1;
  Onnx__GraphProto *g = m->graph;
  for (size_t i = 0; i < g->n_initializer; i++) {
    Onnx__TensorProto *t = g->initializer[i];
    if (t && t->name && strcmp(t->name, name) == 0) {
      onnx__tensor_proto__free_unpacked(t, NULL);
      memmove(&g->initializer[i], &g->initializer[i + 1],
              sizeof(void *) * (g->n_initializer - i - 1));
      g->n_initializer--;
      return 0;
    }
  }
  return -1;
}

static char **strv(const char *const *v, int n) {
  char **r = calloc((size_t)(n ? n : 1), sizeof(char *));
  if (!r) return NULL;
  for (int i = 0; i < n; i++) {
    if (!(r[i] = dupstr(v[i]))) {
      for (int j = 0; j < i; j++) free(r[j]);
      free(r);
      return NULL;
    }
  }
  return r;
}

Onnx__NodeProto *onnx_model_insert_node(Onnx__ModelProto *m, int pos, const char *op_type,
                                        const char *name, const char *const *in, int n_in,
                                        const char *const *out, int n_out) {
  if (!m || !m->graph || !op_type || n_in < 0 || n_out < 0) return NULL;
  Onnx__GraphProto *g = m->graph;
  if (pos < 0 || (size_t)pos > g->n_node) return NULL;
  Onnx__NodeProto *n = malloc(sizeof(*n));
  if (!n) return NULL;
  onnx__node_proto__init(n);
  n->op_type = dupstr(op_type);
  n->name = dupstr(name);
  n->domain = dupstr("");
  n->input = strv(in, n_in);
  n->n_input = n->input ? (size_t)n_in : 0;
  n->output = strv(out, n_out);
  n->n_output = n->output ? (size_t)n_out : 0;
  void **slot = NULL;
  if (n->op_type && n->name && n->domain && n->input && n->output)
    slot = GROW(g->node, g->n_node);
  if (!slot) {
    onnx__node_proto__free_unpacked(n, NULL);
    return NULL;
  }
  (void)slot;
  memmove(&g->node[pos + 1], &g->node[pos], sizeof(void *) * (g->n_node - 1 - (size_t)pos));
  g->node[pos] = n;
  return n;
}

Onnx__NodeProto *onnx_model_add_node(Onnx__ModelProto *m, const char *op_type, const char *name,
                                     const char *const *in, int n_in, const char *const *out,
                                     int n_out) {
  if (!m || !m->graph) return NULL;
  return onnx_model_insert_node(m, (int)m->graph->n_node, op_type, name, in, n_in, out, n_out);
}

int onnx_model_find_node(const Onnx__ModelProto *m, const char *name) {
  if (!m || !m->graph || !name) return -1;
  for (size_t i = 0; i < m->graph->n_node; i++) {
    const Onnx__NodeProto *n = m->graph->node[i];
    if (n && n->name && strcmp(n->name, name) == 0) return (int)i;
  }
  return -1;
}

int onnx_node_set_domain(Onnx__NodeProto *n, const char *domain) {
  char *d = n ? dupstr(domain) : NULL;
  if (!d) return -1;
  free(n->domain);
  n->domain = d;
  return 0;
}

int onnx_node_set_input(Onnx__NodeProto *n, int i, const char *name) {
  if (!n || i < 0 || (size_t)i > n->n_input) return -1;
  char *s = dupstr(name);
  if (!s) return -1;
  if ((size_t)i == n->n_input) { /* append */
    char **in = realloc(n->input, sizeof(char *) * (n->n_input + 1));
    if (!in) {
      free(s);
      return -1;
    }
    n->input = in;
    n->input[n->n_input++] = s;
    return 0;
  }
  free(n->input[i]);
  n->input[i] = s;
  return 0;
}

/* New attribute appended to n (replacing one with the same name). */
static Onnx__AttributeProto *attr_new(Onnx__NodeProto *n, const char *name,
                                      Onnx__AttributeProto__AttributeType type) {
  if (!n || !name) return NULL;
  Onnx__AttributeProto *a = malloc(sizeof(*a));
  if (!a) return NULL;
  onnx__attribute_proto__init(a);
  a->name = dupstr(name);
  a->has_type = 1;
  a->type = type;
  if (!a->name) goto fail;
  for (size_t i = 0; i < n->n_attribute; i++) {
    if (n->attribute[i] && n->attribute[i]->name && strcmp(n->attribute[i]->name, name) == 0) {
      onnx__attribute_proto__free_unpacked(n->attribute[i], NULL);
      n->attribute[i] = a;
      return a;
    }
  }
  void **slot = GROW(n->attribute, n->n_attribute);
  if (!slot) goto fail;
  *slot = a;
  return a;
fail:
  onnx__attribute_proto__free_unpacked(a, NULL);
  return NULL;
}

int onnx_node_attr_int(Onnx__NodeProto *n, const char *name, int64_t v) {
  Onnx__AttributeProto *a = attr_new(n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
  if (!a) return -1;
  a->has_i = 1;
  a->i = v;
  return 0;
}

int onnx_node_attr_float(Onnx__NodeProto *n, const char *name, float v) {
  Onnx__AttributeProto *a = attr_new(n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
  if (!a) return -1;
  a->has_f = 1;
  a->f = v;
  return 0;
}

int onnx_node_attr_string(Onnx__NodeProto *n, const char *name, const char *v) {
  Onnx__AttributeProto *a = attr_new(n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
  if (!a) return -1;
  size_t len = strlen(v ? v : "");
  a->has_s = 1;
  a->s.data = malloc(len ? len : 1);
  if (!a->s.data) return -1; /* a stays in the node, empty: freed with the model */
  a->s.len = len;
  if (len) memcpy(a->s.data, v, len);
  return 0;
}

int onnx_node_attr_ints(Onnx__NodeProto *n, const char *name, const int64_t *v, int count) {
  if (count < 0) return -1;
  Onnx__AttributeProto *a = attr_new(n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
  if (!a) return -1;
  a->ints = malloc(sizeof(int64_t) * (size_t)(count ? count : 1));
  if (!a->ints) return -1;
  if (count) memcpy(a->ints, v, sizeof(int64_t) * (size_t)count);
  a->n_ints = (size_t)count;
  return 0;
}

int onnx_node_attr_floats(Onnx__NodeProto *n, const char *name, const float *v, int count) {
  if (count < 0) return -1;
  Onnx__AttributeProto *a = attr_new(n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS);
  if (!a) return -1;
  a->floats = malloc(sizeof(float) * (size_t)(count ? count : 1));
  if (!a->floats) return -1;
  if (count) memcpy(a->floats, v, sizeof(float) * (size_t)count);
  a->n_floats = (size_t)count;
  return 0;
}

int onnx_node_attr_tensor(Onnx__NodeProto *n, const char *name, Onnx__TensorProto *t) {
  if (!t) return -1;
  Onnx__AttributeProto *a = attr_new(n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR);
  if (!a) {
    onnx__tensor_proto__free_unpacked(t, NULL);
    return -1;
  }
  a->t = t;
  return 0;
}
