/* onnx_reader.c — ONNX ModelProto (protobuf-c) -> ir_graph. Validates everything it copies:
 * a corrupt or hostile file gives YRT_ERR_FORMAT "onnx: ...", never a crash. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "ir_preprocess.h"
#include "onnx_ops.h"
#include "onnx.pb-c.h"
#include "onnx_reader.h"
#include "onnx_wire_check.h"
#include "yolort_format.h"
#include "open_regular.h"

/* Largest file we accept (protobuf's own limit is 2 GiB). */
#define ONNX_MAX_FILE ((size_t)2 << 30)

static const char *nz(const char *s) { return s ? s : ""; }

static int is_default_domain(const char *d) { return !d || !*d || strcmp(d, "ai.onnx") == 0; }

/* ---- tensors */

/* IEEE binary16 bits -> float (exact: every half is a float). */
static float half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, bits;
  if (e == 0x1f) bits = sign | 0x7f800000u | (m << 13);           /* inf, NaN */
  else if (e) bits = sign | ((e + 112u) << 23) | (m << 13);       /* normal: bias 15 -> 127 */
  else if (!m) bits = sign;                                       /* +-0 */
  else {                                                          /* subnormal: normalise */
    e = 113;
    while (!(m & 0x400u)) m <<= 1, e--;
    bits = sign | (e << 23) | ((m & 0x3ffu) << 13);
  }
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

/* float16 (10) / bfloat16 (16) tensor data -> n floats in out: from raw_data (2 bytes each,
 * little-endian) or int32_data (one element's bits each, as ONNX stores them). Returns the
 * element count the data holds ((size_t)-1 for a raw_data of odd length); converts only when
 * it is n. */
static size_t widen_half(const Onnx__TensorProto *tp, int type, size_t n, float *out) {
  size_t have;
  if (tp->has_raw_data && tp->raw_data.len > 0) have = tp->raw_data.len % 2 ? (size_t)-1 : tp->raw_data.len / 2;
  else have = tp->n_int32_data;
  if (have != n) return have;
  for (size_t i = 0; i < n; i++) {
    uint16_t h = tp->has_raw_data && tp->raw_data.len > 0
                     ? (uint16_t)(tp->raw_data.data[2 * i] | tp->raw_data.data[2 * i + 1] << 8)
                     : (uint16_t)tp->int32_data[i];
    if (type == IR_ONNX_BFLOAT16) {
      uint32_t bits = (uint32_t)h << 16;
      memcpy(&out[i], &bits, 4);
    } else {
      out[i] = half_to_float(h);
    }
  }
  return n;
}

/* How many elements tp's data field holds (the field the decoder below reads), (size_t)-1 for a
 * raw_data length that is no whole number of elements. */
static size_t stored_count(const Onnx__TensorProto *tp, ir_dtype dt, int half, size_t es, int64_t numel,
                           const char **field) {
  if (half) {
    *field = tp->has_raw_data && tp->raw_data.len > 0 ? "raw_data" : "int32_data";
    if (tp->has_raw_data && tp->raw_data.len > 0) return tp->raw_data.len % 2 ? (size_t)-1 : tp->raw_data.len / 2;
    return tp->n_int32_data;
  }
  if (tp->has_raw_data && (tp->raw_data.len > 0 || numel == 0))
    return *field = "raw_data", tp->raw_data.len % es ? (size_t)-1 : tp->raw_data.len / es;
  if (dt == IR_F32 && tp->n_float_data) return *field = "float_data", tp->n_float_data;
  if (dt == IR_F64 && tp->n_double_data) return *field = "double_data", tp->n_double_data;
  if (dt == IR_I64 && tp->n_int64_data) return *field = "int64_data", tp->n_int64_data;
  if ((dt == IR_I32 || dt == IR_I8 || dt == IR_U8 || dt == IR_BOOL || dt == IR_I16 || dt == IR_U16) && tp->n_int32_data)
    return *field = "int32_data", tp->n_int32_data;
  return *field = "data", 0;
}

yrt_status onnx_tensor_decode(const Onnx__TensorProto *tp, const char *name, ir_dtype *dtype,
                              int *rank, int64_t *dims, void **out_data, size_t *out_nbytes,
                              yrt_error *err) {
  *out_data = NULL;
  name = name ? name : nz(tp->name);
  ir_dtype dt;
  int half = 0; /* float16 / bfloat16 data: 2-byte elements widened to float32 */
  switch (tp->data_type) {
    case IR_F32: case IR_U8: case IR_I8: case IR_I32: case IR_I64: case IR_BOOL: case IR_F64:
    case IR_U16: case IR_I16: /* int16 QDQ zero points */
      dt = (ir_dtype)tp->data_type;
      break;
    case IR_ONNX_FLOAT16: case IR_ONNX_BFLOAT16:
      dt = IR_F32;
      half = tp->data_type;
      break;
    default: {
      static const char *const kind[] = {[4] = " (uint16)", [5] = " (int16)", [10] = " (float16)",
                                         [16] = " (bfloat16)", [17] = " (float8)", [18] = " (float8)",
                                         [19] = " (float8)", [20] = " (float8)", [21] = " (uint4)",
                                         [22] = " (int4)", [23] = " (float4)"};
      const char *k = tp->data_type >= 0 && tp->data_type < 24 && kind[tp->data_type] ? kind[tp->data_type] : "";
      return yrt_set_error(err, YRT_ERR_UNSUPPORTED,
                           "onnx: tensor '%s' has unsupported data type %d%s (yolort reads float32, "
                           "float16, bfloat16, int8, uint8, int16, uint16, int32, int64, bool, float64)", name, (int)tp->data_type, k);
    }
  }
  if ((tp->has_data_location &&
       tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) ||
      tp->n_external_data > 0)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED,
                         "onnx: tensor '%s' uses external data (save the model with all tensors "
                         "inside the .onnx file)", name);
  if (tp->segment)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "onnx: tensor '%s' is segmented", name);
  if (tp->n_dims > IR_MAX_RANK)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "onnx: tensor '%s' has rank %zu (max %d)",
                         name, tp->n_dims, IR_MAX_RANK);
  int64_t numel = 1;
  for (size_t i = 0; i < tp->n_dims; i++) {
    if (tp->dims[i] < 0 || tp->dims[i] > ((int64_t)1 << 40))
      return yrt_set_error(err, YRT_ERR_FORMAT, "onnx: tensor '%s' has invalid dim %lld", name,
                           (long long)tp->dims[i]);
    numel *= tp->dims[i];
    if (numel > ((int64_t)1 << 31))
      return yrt_set_error(err, YRT_ERR_FORMAT, "onnx: tensor '%s' is too large", name);
  }
  size_t es = ir_dtype_size(dt);
  size_t nbytes = (size_t)numel * es;
  const char *field;
  size_t have = stored_count(tp, dt, half, es, numel, &field);
  /* before allocating: dims claiming 2^31 elements over a few bytes of data cost gigabytes
   * (found by fuzz_onnx_values: a 37 KB file, 8 GiB zeroed) */
  if (have != (size_t)numel)
    return yrt_set_error(err, YRT_ERR_FORMAT, "onnx: tensor '%s' has %s for %zd elements but its dims say %lld", name,
                         field, (ssize_t)have, (long long)numel);
  uint8_t *data = malloc(nbytes ? nbytes : 1);
  if (!data) return yrt_set_error(err, YRT_ERR_NOMEM, "onnx: out of memory for tensor '%s'", name);
  if (half) {
    field = tp->has_raw_data && tp->raw_data.len > 0 ? "raw_data" : "int32_data";
    have = widen_half(tp, half, (size_t)numel, (float *)data);
  } else if (tp->has_raw_data && (tp->raw_data.len > 0 || numel == 0)) {
    field = "raw_data";
    have = tp->raw_data.len;
    if (have == nbytes && nbytes) memcpy(data, tp->raw_data.data, nbytes);
    have /= es;
    if (tp->raw_data.len % es) have = (size_t)-1;
  } else if (dt == IR_F32 && tp->n_float_data) {
    field = "float_data";
    have = tp->n_float_data;
    if (have == (size_t)numel) memcpy(data, tp->float_data, nbytes);
  } else if (dt == IR_F64 && tp->n_double_data) {
    field = "double_data";
    have = tp->n_double_data;
    if (have == (size_t)numel) memcpy(data, tp->double_data, nbytes);
  } else if (dt == IR_I64 && tp->n_int64_data) {
    field = "int64_data";
    have = tp->n_int64_data;
    if (have == (size_t)numel) memcpy(data, tp->int64_data, nbytes);
  } else if ((dt == IR_I32 || dt == IR_I8 || dt == IR_U8 || dt == IR_BOOL || dt == IR_I16 || dt == IR_U16) &&
             tp->n_int32_data) {
    field = "int32_data";
    have = tp->n_int32_data;
    if (have == (size_t)numel) {
      for (int64_t i = 0; i < numel; i++) {
        int32_t v = tp->int32_data[i];
        if (dt == IR_I32) memcpy(data + i * 4, &v, 4);
        else if (dt == IR_I8) ((int8_t *)data)[i] = (int8_t)v;
        else if (dt == IR_I16 || dt == IR_U16) {
          const uint16_t h = (uint16_t)v; /* one element's bits, as ONNX stores them */
          memcpy(data + i * 2, &h, 2);
        } else data[i] = (uint8_t)v;
      }
    }
  } else {
    field = "data";
    have = 0;
  }
  if (have != (size_t)numel) {
    free(data);
    return yrt_set_error(err, YRT_ERR_FORMAT,
                         "onnx: tensor '%s' has %s for %zd elements but its dims say %lld", name,
                         field, (ssize_t)have, (long long)numel);
  }
  *dtype = dt;
  *rank = (int)tp->n_dims;
  for (size_t i = 0; i < tp->n_dims; i++) dims[i] = tp->dims[i];
  *out_data = data;
  *out_nbytes = nbytes;
  return YRT_OK;
}

yrt_status onnx_tensor_to_ir(ir_graph *g, const Onnx__TensorProto *tp, const char *name, int *out,
                             yrt_error *err) {
  *out = -1;
  name = name ? name : nz(tp->name);
  ir_dtype dt;
  int rank;
  int64_t dims[IR_MAX_RANK];
  void *data;
  size_t nbytes;
  yrt_status st = onnx_tensor_decode(tp, name, &dt, &rank, dims, &data, &nbytes, err);
  if (st) return st;
  if (tp->data_type == IR_ONNX_FLOAT16 || tp->data_type == IR_ONNX_BFLOAT16) g->n_half++;
  int t = ir_add_tensor(g, name, dt);
  if (t < 0) {
    free(data);
    return yrt_set_error(err, YRT_ERR_NOMEM, "onnx: out of memory");
  }
  ir_tensor *it = &g->tensors[t];
  it->data = data;
  it->nbytes = nbytes;
  ir_tensor_set_shape(it, rank, dims);
  *out = t;
  return YRT_OK;
}

/* ---- value info (graph inputs / outputs / value_info) */

static yrt_status apply_value_info(ir_graph *g, int t, const Onnx__ValueInfoProto *vi, int is_input,
                                   yrt_error *err) {
  ir_tensor *it = &g->tensors[t];
  if (!vi->type || vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
      !vi->type->tensor_type)
    return YRT_OK; /* sequences/maps: leave unknown, shape inference will complain if used */
  const Onnx__TypeProto__Tensor *tt = vi->type->tensor_type;
  if (tt->has_elem_type && it->dtype == IR_UNDEF) it->dtype = ir_dtype_from_onnx(tt->elem_type);
  if (!tt->shape || it->data) return YRT_OK;
  if (tt->shape->n_dim > IR_MAX_RANK)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "onnx: tensor '%s' has rank %zu (max %d)",
                         it->name, tt->shape->n_dim, IR_MAX_RANK);
  int64_t dims[IR_MAX_RANK];
  int known = 1;
  for (size_t i = 0; i < tt->shape->n_dim; i++) {
    const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
    if (d && d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
        d->dim_value >= 0) {
      dims[i] = d->dim_value;
    } else if (is_input && i == 0) {
      dims[i] = 1; /* symbolic batch of a graph input: we compile for batch 1 */
    } else {
      dims[i] = -1;
      known = 0;
    }
  }
  if (!known && !is_input) return YRT_OK; /* partial shapes of intermediates are re-inferred */
  /* graph inputs with unknown dims keep the -1 so shape inference can name them */
  ir_tensor_set_shape(it, (int)tt->shape->n_dim, dims);
  return YRT_OK;
}

/* ---- attributes */

static yrt_status copy_attr(ir_graph *g, int node, const Onnx__AttributeProto *a, yrt_error *err) {
  const char *nname = g->nodes[node].name;
  const char *an = nz(a->name);
  int type = a->has_type ? (int)a->type : 0;
  if (!type) { /* very old exporters omit the type: infer it from the field that is set */
    if (a->t) type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
    else if (a->n_ints) type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
    else if (a->n_floats) type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS;
    else if (a->has_s) type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
    else if (a->has_f) type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
    else if (a->has_i) type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
  }
  int rc = 0;
  switch (type) {
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT: rc = ir_set_attr_int(g, node, an, a->i); break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT: rc = ir_set_attr_float(g, node, an, a->f); break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING: {
      char *s = malloc(a->s.len + 1);
      if (!s) return yrt_set_error(err, YRT_ERR_NOMEM, "onnx: out of memory");
      if (a->s.len) memcpy(s, a->s.data, a->s.len);
      s[a->s.len] = 0;
      rc = ir_set_attr_string(g, node, an, s);
      free(s);
      break;
    }
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
      if (a->n_ints > (1u << 20))
        return yrt_set_error(err, YRT_ERR_FORMAT, "onnx: node '%s' attribute '%s' too long", nname, an);
      rc = ir_set_attr_ints(g, node, an, a->ints, (int)a->n_ints);
      break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
      if (a->n_floats > (1u << 20))
        return yrt_set_error(err, YRT_ERR_FORMAT, "onnx: node '%s' attribute '%s' too long", nname, an);
      rc = ir_set_attr_floats(g, node, an, a->floats, (int)a->n_floats);
      break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR: {
      if (!a->t)
        return yrt_set_error(err, YRT_ERR_FORMAT, "onnx: node '%s' attribute '%s' has no tensor",
                             nname, an);
      char tname[64];
      snprintf(tname, sizeof(tname), "_yrt_attr_%d_%s", node, an);
      int t;
      yrt_status st = onnx_tensor_to_ir(g, a->t, tname, &t, err);
      if (st) return st;
      rc = ir_set_attr_tensor(g, node, an, t);
      break;
    }
    default:
      /* graphs, sparse tensors, string lists: no op we support uses them; the op itself is
       * rejected by shape inference if it matters. */
      return YRT_OK;
  }
  if (rc) return yrt_set_error(err, YRT_ERR_NOMEM, "onnx: out of memory");
  return YRT_OK;
}

/* Constant node -> data on its output tensor (the node itself is not kept). */
static yrt_status read_constant(ir_graph *g, const Onnx__NodeProto *np, int out_t, yrt_error *err) {
  const char *nname = nz(np->name);
  if (np->n_attribute != 1 || !np->attribute[0])
    return yrt_set_error(err, YRT_ERR_FORMAT, "onnx: Constant node '%s' needs exactly one attribute",
                         nname);
  const Onnx__AttributeProto *a = np->attribute[0];
  const char *an = nz(a->name);
  ir_tensor *t = &g->tensors[out_t];
  if (strcmp(an, "value") == 0 && a->t) {
    int rank;
    int64_t dims[IR_MAX_RANK];
    yrt_status st = onnx_tensor_decode(a->t, t->name, &t->dtype, &rank, dims, &t->data,
                                       &t->nbytes, err);
    if (st) return st;
    if (a->t->data_type == IR_ONNX_FLOAT16 || a->t->data_type == IR_ONNX_BFLOAT16) g->n_half++;
    ir_tensor_set_shape(t, rank, dims);
    return YRT_OK;
  }
  if (strcmp(an, "value_float") == 0 || strcmp(an, "value_int") == 0) {
    int is_f = an[6] == 'f';
    t->dtype = is_f ? IR_F32 : IR_I64;
    int64_t iv = a->i;
    float fv = a->f;
    if (ir_tensor_set_data(t, is_f ? (const void *)&fv : (const void *)&iv, is_f ? 4 : 8))
      return yrt_set_error(err, YRT_ERR_NOMEM, "onnx: out of memory");
    ir_tensor_set_shape(t, 0, NULL);
    return YRT_OK;
  }
  if (strcmp(an, "value_floats") == 0 || strcmp(an, "value_ints") == 0) {
    int is_f = an[6] == 'f';
    size_t n = is_f ? a->n_floats : a->n_ints;
    if (n > (1u << 24))
      return yrt_set_error(err, YRT_ERR_FORMAT, "onnx: Constant node '%s' too large", nname);
    t->dtype = is_f ? IR_F32 : IR_I64;
    if (ir_tensor_set_data(t, is_f ? (const void *)a->floats : (const void *)a->ints,
                           n * (is_f ? 4 : 8)))
      return yrt_set_error(err, YRT_ERR_NOMEM, "onnx: out of memory");
    int64_t d = (int64_t)n;
    ir_tensor_set_shape(t, 1, &d);
    return YRT_OK;
  }
  return yrt_set_error(err, YRT_ERR_UNSUPPORTED,
                       "onnx: Constant node '%s' with attribute '%s' is not supported", nname, an);
}

/* ---- metadata */

/* "[480, 864]", "640" (a square), "32": up to two positive ints <= 65536; anything else leaves
 * both 0. One value fills both. */
static void parse_int_list(const char *s, int *a, int *b) {
  long v[2] = {0, 0};
  int n = 0;
  const char *p = s;
  while (*p == ' ' || *p == '[' || *p == '(') p++;
  while (n < 2 && *p) {
    char *end;
    errno = 0;
    const long x = strtol(p, &end, 10);
    if (end == p || errno || x < 1 || x > 65536) return;
    v[n++] = x;
    p = end;
    while (*p == ' ' || *p == ',') p++;
    if (*p == ']' || *p == ')') break;
  }
  if (n == 0) return;
  *a = (int)v[0];
  *b = (int)(n == 2 ? v[1] : v[0]);
}

/* Ultralytics writes names as a python dict literal: {0: 'person', 1: 'bicycle', ...}.
 * Returns a malloc'ed '\n'-separated list in key order, or NULL if it does not parse. */
char *onnx_parse_names(const char *s) {
  if (!s) return NULL;
  enum { MAXN = 4096 };
  char **names = calloc(MAXN, sizeof(char *));
  if (!names) return NULL;
  int maxk = -1, ok = 0;
  const char *p = s;
  while (*p == ' ') p++;
  if (*p++ != '{') goto out;
  for (;;) {
    while (*p == ' ' || *p == ',' || *p == '\n') p++;
    if (*p == '}') { ok = 1; break; }
    char *end;
    errno = 0;
    long k = strtol(p, &end, 10);
    if (end == p || errno || k < 0 || k >= MAXN || names[k]) goto out;
    p = end;
    while (*p == ' ') p++;
    if (*p++ != ':') goto out;
    while (*p == ' ') p++;
    char q = *p++;
    if (q != '\'' && q != '"') goto out;
    size_t len = strlen(p);
    char *v = malloc(len + 1);
    if (!v) goto out;
    size_t w = 0;
    while (*p && *p != q) {
      if (*p == '\\' && p[1]) p++;
      char c = *p++;
      v[w++] = (c == '\n') ? ' ' : c;
    }
    v[w] = 0;
    names[k] = v;
    if (*p++ != q) goto out;
    if (k > maxk) maxk = (int)k;
  }
out:;
  char *res = NULL;
  if (ok && maxk >= 0) {
    size_t total = 1;
    int dense = 1;
    for (int i = 0; i <= maxk; i++) {
      if (!names[i]) dense = 0;
      else total += strlen(names[i]) + 1;
    }
    if (dense && (res = malloc(total)) != NULL) {
      size_t w = 0;
      for (int i = 0; i <= maxk; i++) {
        size_t l = strlen(names[i]);
        memcpy(res + w, names[i], l);
        w += l;
        if (i < maxk) res[w++] = '\n';
      }
      res[w] = 0;
    }
  }
  for (int i = 0; i < MAXN; i++) free(names[i]);
  free(names);
  return res;
}

/* ---- graph */

/* Tensor named `name`, created (no data, rank -1) if absent. */
static int tensor_for(ir_graph *g, const char *name) {
  int t = ir_find_tensor(g, name);
  if (t < 0) t = ir_add_tensor(g, name, IR_UNDEF);
  return t;
}

yrt_status onnx_model_to_ir(const Onnx__ModelProto *m, ir_graph **out, yrt_error *err) {
  *out = NULL;
  const Onnx__GraphProto *gp = m->graph;
  if (!gp) return yrt_set_error(err, YRT_ERR_FORMAT, "onnx: model has no graph");
  ir_graph *g = ir_graph_new();
  if (!g) return yrt_set_error(err, YRT_ERR_NOMEM, "onnx: out of memory");
  yrt_status st = YRT_OK;
#define FAIL(code, ...) do { st = yrt_set_error(err, code, __VA_ARGS__); goto fail; } while (0)
#define NOMEM() FAIL(YRT_ERR_NOMEM, "onnx: out of memory")

  g->opset = -1;
  for (size_t i = 0; i < m->n_opset_import; i++) {
    const Onnx__OperatorSetIdProto *o = m->opset_import[i];
    if (o && is_default_domain(o->domain) && o->has_version) g->opset = o->version;
  }
  if (g->opset < 0) FAIL(YRT_ERR_FORMAT, "onnx: model has no default-domain opset_import");
  /* Q/DQ pairs and constants roughly double a detector's nodes; past this no .yrt can hold it
   * (YRT_MAX_NODES), and some converter passes are not linear in the node count */
  if (gp->n_node > 4 * (size_t)YRT_MAX_NODES || gp->n_initializer > 4 * (size_t)YRT_MAX_TENSORS)
    FAIL(YRT_ERR_UNSUPPORTED, "onnx: graph has %zu nodes and %zu initializers, more than yolort converts (%d, %d)",
         gp->n_node, gp->n_initializer, 4 * YRT_MAX_NODES, 4 * YRT_MAX_TENSORS);
  if (g->opset < 7 || g->opset > 22)
    FAIL(YRT_ERR_UNSUPPORTED, "onnx: opset %lld not supported (need 7..22)", (long long)g->opset);

  for (size_t i = 0; i < m->n_metadata_props; i++) {
    const Onnx__StringStringEntryProto *e = m->metadata_props[i];
    if (!e || !e->key) continue;
    if (strcmp(e->key, "names") == 0) {
      free(g->class_names);
      g->class_names = onnx_parse_names(e->value);
    } else if (strcmp(e->key, "task") == 0 && e->value) {
      free(g->task);
      if (!(g->task = ir_strdup(e->value))) NOMEM();
    } else if (strcmp(e->key, "imgsz") == 0 && e->value) {
      parse_int_list(e->value, &g->imgsz_h, &g->imgsz_w);
    } else if (strcmp(e->key, "kpt_shape") == 0 && e->value) {
      parse_int_list(e->value, &g->kpt_shape[0], &g->kpt_shape[1]);
    } else if (strcmp(e->key, "stride") == 0 && e->value) {
      int s = 0, unused = 0;
      parse_int_list(e->value, &s, &unused);
      g->meta_stride = s;
    } else if (strcmp(e->key, "yolort.synthetic") == 0) {
      g->synthetic = e->value && strcmp(e->value, "1") == 0;
    } else if (strcmp(e->key, "yolort.preprocess") == 0) {
      /* a --preprocess SPEC recorded in the model (yolort-quantize --preprocess) */
      char msg[256];
      if (ir_preprocess_parse(e->value ? e->value : "", &g->pre, msg, sizeof msg) != 0)
        FAIL(YRT_ERR_FORMAT, "onnx: metadata_props yolort.preprocess: %s", msg);
      snprintf(g->pre.why, sizeof g->pre.why, "metadata yolort.preprocess");
    }
  }
  /* Preprocessing from the metadata (the lowest precedence but the default's: a recognised family
   * and --preprocess replace it). Ultralytics classify exports are fed the shorter side resized to
   * the input and a centre crop (classify_transforms), RGB / 255. */
  if (!g->pre.set && g->task && strcmp(g->task, "classify") == 0) {
    g->pre.set = 1;
    g->pre.scale = 1.0f / 255.0f;
    g->pre.std[0] = g->pre.std[1] = g->pre.std[2] = 1.0f;
    g->pre.resize = IR_RESIZE_CROP;
    g->pre.pad = 114.0f;
    snprintf(g->pre.why, sizeof g->pre.why, "metadata task=classify");
  }

  /* initializers first: they are constants even if also listed as graph inputs */
  for (size_t i = 0; i < gp->n_initializer; i++) {
    const Onnx__TensorProto *tp = gp->initializer[i];
    if (!tp || !tp->name || !*tp->name) FAIL(YRT_ERR_FORMAT, "onnx: initializer %zu has no name", i);
    if (ir_find_tensor(g, tp->name) >= 0)
      FAIL(YRT_ERR_FORMAT, "onnx: initializer '%s' defined twice", tp->name);
    int t;
    if ((st = onnx_tensor_to_ir(g, tp, NULL, &t, err))) goto fail;
  }
  if (gp->n_sparse_initializer)
    FAIL(YRT_ERR_UNSUPPORTED, "onnx: sparse initializers are not supported");

  for (size_t i = 0; i < gp->n_input; i++) {
    const Onnx__ValueInfoProto *vi = gp->input[i];
    if (!vi || !vi->name || !*vi->name) FAIL(YRT_ERR_FORMAT, "onnx: graph input %zu has no name", i);
    int t = ir_find_tensor(g, vi->name);
    if (t >= 0 && g->tensors[t].data) continue; /* initializer with a default: a constant */
    if (t >= 0) FAIL(YRT_ERR_FORMAT, "onnx: graph input '%s' listed twice", vi->name);
    if ((t = ir_add_tensor(g, vi->name, IR_UNDEF)) < 0 || ir_graph_add_input(g, t)) NOMEM();
    if ((st = apply_value_info(g, t, vi, 1, err))) goto fail;
  }

  for (size_t i = 0; i < gp->n_node; i++) {
    const Onnx__NodeProto *np = gp->node[i];
    if (!np || !np->op_type || !*np->op_type) FAIL(YRT_ERR_FORMAT, "onnx: node %zu has no op_type", i);
    char autoname[48];
    const char *nname = np->name;
    if (!nname || !*nname) {
      snprintf(autoname, sizeof(autoname), "%s_%zu", np->op_type, i);
      nname = autoname;
    }
    if (np->n_input > 4096 || np->n_output > 4096)
      FAIL(YRT_ERR_FORMAT, "onnx: node '%s' has too many inputs/outputs", nname);
    size_t n_out = np->n_output;
    while (n_out > 0 && (!np->output[n_out - 1] || !*np->output[n_out - 1])) n_out--;
    int *ins = malloc(sizeof(int) * (np->n_input + 1));
    int *outs = malloc(sizeof(int) * (n_out + 1));
    if (!ins || !outs) { free(ins); free(outs); NOMEM(); }
    for (size_t j = 0; j < np->n_input && !st; j++) {
      const char *in = np->input[j];
      if (!in || !*in) { ins[j] = -1; continue; }
      if ((ins[j] = tensor_for(g, in)) < 0) st = YRT_ERR_NOMEM;
    }
    for (size_t j = 0; j < n_out && !st; j++) {
      const char *o = np->output[j];
      int t = (o && *o) ? tensor_for(g, o) : ir_add_tensor(g, NULL, IR_UNDEF);
      if (t < 0) { st = YRT_ERR_NOMEM; break; }
      ir_tensor *tt = &g->tensors[t];
      if (tt->producer >= 0 || tt->data || tt->is_input) {
        st = yrt_set_error(err, YRT_ERR_FORMAT, "onnx: tensor '%s' (output of node '%s') is "
                           "defined more than once", tt->name, nname);
        break;
      }
      for (size_t k = 0; k < j; k++)
        if (outs[k] == t) {
          st = yrt_set_error(err, YRT_ERR_FORMAT, "onnx: node '%s' lists output '%s' twice", nname,
                             tt->name);
          break;
        }
      outs[j] = t;
    }
    if (st) {
      free(ins);
      free(outs);
      if (st == YRT_ERR_NOMEM) NOMEM();
      goto fail;
    }
    if (is_default_domain(np->domain) && onnx_op_id(np->op_type) == ONNX_OP_CONSTANT) {
      free(ins);
      if (n_out != 1) { free(outs); FAIL(YRT_ERR_FORMAT, "onnx: Constant node '%s' needs one output", nname); }
      int ot = outs[0];
      free(outs);
      if ((st = read_constant(g, np, ot, err))) goto fail;
      continue;
    }
    int nd = ir_add_node(g, nname, np->op_type, ins, (int)np->n_input, outs, (int)n_out);
    free(ins);
    free(outs);
    if (nd < 0) NOMEM();
    if (!is_default_domain(np->domain)) {
      free(g->nodes[nd].domain);
      if (!(g->nodes[nd].domain = ir_strdup(np->domain))) NOMEM();
    }
    for (size_t j = 0; j < np->n_attribute; j++) {
      if (!np->attribute[j] || !np->attribute[j]->name)
        FAIL(YRT_ERR_FORMAT, "onnx: node '%s' has an unnamed attribute", nname);
      if ((st = copy_attr(g, nd, np->attribute[j], err))) goto fail;
    }
    /* float16 is float32 here (ir_dtype_from_onnx): a Cast to it casts to float32 */
    if (g->nodes[nd].op == ONNX_OP_CAST && ir_dtype_from_onnx(ir_attr_int(&g->nodes[nd], "to", 0)) == IR_F32 &&
        ir_set_attr_int(g, nd, "to", IR_F32))
      NOMEM();
  }

  for (size_t i = 0; i < gp->n_output; i++) {
    const Onnx__ValueInfoProto *vi = gp->output[i];
    if (!vi || !vi->name) FAIL(YRT_ERR_FORMAT, "onnx: graph output %zu has no name", i);
    int t = ir_find_tensor(g, vi->name);
    if (t < 0) FAIL(YRT_ERR_FORMAT, "onnx: graph output '%s' is not produced by any node", vi->name);
    if (g->tensors[t].is_output) /* the .yrt plan cannot list a tensor twice (the loader refuses it) */
      FAIL(YRT_ERR_FORMAT, "onnx: graph output '%s' is listed twice (outputs %zu and an earlier one)", vi->name, i);
    if (ir_graph_add_output(g, t)) NOMEM();
    if ((st = apply_value_info(g, t, vi, 0, err))) goto fail;
  }
  for (size_t i = 0; i < gp->n_value_info; i++) {
    const Onnx__ValueInfoProto *vi = gp->value_info[i];
    if (!vi || !vi->name) continue;
    int t = ir_find_tensor(g, vi->name);
    if (t >= 0 && (st = apply_value_info(g, t, vi, 0, err))) goto fail;
  }

  /* every used tensor must come from somewhere */
  for (int i = 0; i < g->n_nodes; i++) {
    const ir_node *n = &g->nodes[i];
    for (int j = 0; j < n->n_in; j++) {
      if (n->in[j] < 0) continue;
      const ir_tensor *t = &g->tensors[n->in[j]];
      if (t->producer < 0 && !t->data && !t->is_input)
        FAIL(YRT_ERR_FORMAT, "onnx: node '%s' reads tensor '%s' that nothing defines", n->name,
             t->name);
    }
  }
  *out = g;
  return YRT_OK;
fail:
  if (st == YRT_OK) st = YRT_ERR_FORMAT;
  ir_graph_free(g);
  return st;
#undef FAIL
#undef NOMEM
}

yrt_status onnx_read_memory(const void *data, size_t size, ir_graph **out, yrt_error *err) {
  if (!out) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "onnx_read_memory: out is NULL");
  *out = NULL;
  if (!data || size == 0) return yrt_set_error(err, YRT_ERR_FORMAT, "onnx: empty input");
  yrt_status wst = onnx_wire_check(data, size, &onnx__model_proto__descriptor, err);
  if (wst != YRT_OK) return wst;
  Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, size, data);
  if (!m) return yrt_set_error(err, YRT_ERR_FORMAT, "onnx: not a valid ONNX protobuf (%zu bytes)", size);
  yrt_status st = onnx_model_to_ir(m, out, err);
  onnx__model_proto__free_unpacked(m, NULL);
  return st;
}

yrt_status onnx_read_file_bytes(const char *path, uint8_t **bytes, size_t *size, yrt_error *err) {
  *bytes = NULL;
  *size = 0;
  FILE *f = yrt_fopen_regular(path, "ONNX model", "rb", err); /* never blocks on a FIFO */
  if (!f) return YRT_ERR_IO;
  if (fseek(f, 0, SEEK_END) != 0) {
    fclose(f);
    return yrt_set_error(err, YRT_ERR_IO, "cannot seek '%s'", path);
  }
  long len = ftell(f);
  if (len < 0 || (size_t)len > ONNX_MAX_FILE || fseek(f, 0, SEEK_SET) != 0) {
    fclose(f);
    return yrt_set_error(err, YRT_ERR_IO, "cannot size '%s'", path);
  }
  uint8_t *buf = malloc((size_t)len ? (size_t)len : 1);
  if (!buf) {
    fclose(f);
    return yrt_set_error(err, YRT_ERR_NOMEM, "out of memory reading '%s'", path);
  }
  size_t got = fread(buf, 1, (size_t)len, f);
  fclose(f);
  if (got != (size_t)len) {
    free(buf);
    return yrt_set_error(err, YRT_ERR_IO, "short read on '%s'", path);
  }
  *bytes = buf;
  *size = got;
  return YRT_OK;
}

yrt_status onnx_read_file(const char *path, ir_graph **out, yrt_error *err) {
  if (!path || !out) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "onnx_read_file: NULL argument");
  *out = NULL;
  uint8_t *buf = NULL;
  size_t size = 0;
  yrt_status st = onnx_read_file_bytes(path, &buf, &size, err);
  if (st) return st;
  st = onnx_read_memory(buf, size, out, err);
  free(buf);
  if (st && err) { /* name the file: prepend without overflowing */
    char tmp[sizeof(err->msg)];
    snprintf(tmp, sizeof(tmp), "%s", err->msg);
    yrt_set_error(err, st, "%s: %s", path, tmp);
  }
  return st;
}
