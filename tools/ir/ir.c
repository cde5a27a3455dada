/* ir.c — construction, lookup and bookkeeping of the converter graph IR (see ir.h). */
#include "ir.h"
#include "onnx_ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t ir_dtype_size(ir_dtype t) {
  switch (t) {
    case IR_F32: return 4;
    case IR_U8: return 1;
    case IR_I8: return 1;
    case IR_U16: return 2;
    case IR_I16: return 2;
    case IR_I32: return 4;
    case IR_I64: return 8;
    case IR_BOOL: return 1;
    case IR_F64: return 8;
    default: return 0;
  }
}

ir_dtype ir_dtype_from_onnx(int64_t onnx_type) {
  if (onnx_type == IR_ONNX_FLOAT16 || onnx_type == IR_ONNX_BFLOAT16) return IR_F32;
  if (onnx_type < 0 || onnx_type > 64 || !ir_dtype_size((ir_dtype)onnx_type)) return IR_UNDEF;
  return (ir_dtype)onnx_type;
}

char *ir_strdup(const char *s) {
  if (!s) s = "";
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

/* ---- name -> tensor index hash (open addressing, linear probing). Slots hold index+1. */

static uint64_t hash_str(const char *s) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

static void hash_put(int *slots, int cap, const ir_tensor *tensors, int idx) {
  uint64_t m = (uint64_t)cap - 1;
  uint64_t h = hash_str(tensors[idx].name) & m;
  while (slots[h]) {
    /* A later tensor with the same name shadows the earlier one. */
    if (strcmp(tensors[slots[h] - 1].name, tensors[idx].name) == 0) break;
    h = (h + 1) & m;
  }
  slots[h] = idx + 1;
}

/* (Re)builds the hash with room for at least `need` tensors. Returns 0 on allocation failure. */
static int hash_rebuild(ir_graph *g, int need) {
  int cap = 64;
  while (cap < need * 2) cap *= 2;
  int *slots = calloc((size_t)cap, sizeof(int));
  if (!slots) return 0;
  for (int i = 0; i < g->n_tensors; i++) hash_put(slots, cap, g->tensors, i);
  free(g->name_hash);
  g->name_hash = slots;
  g->name_hash_cap = cap;
  return 1;
}

/* Without memory for the hash, lookups fall back to linear search. */
static void hash_drop(ir_graph *g) {
  free(g->name_hash);
  g->name_hash = NULL;
  g->name_hash_cap = 0;
}

void ir_graph_rehash(ir_graph *g) {
  if (g && !hash_rebuild(g, g->n_tensors + 1)) hash_drop(g);
}

ir_graph *ir_graph_new(void) {
  ir_graph *g = calloc(1, sizeof(*g));
  if (!g) return NULL;
  g->opset = 13;
  return g;
}

/* Room for one more element in a growable array of `n` used of `*cap`: doubles the capacity
 * (from 64) when full. Returns the (maybe moved) array, or NULL with `arr` and `*cap` untouched. */
static void *grow(void *arr, int n, int *cap, size_t elem) {
  if (n != *cap) return arr;
  int c = *cap ? *cap * 2 : 64;
  void *p = realloc(arr, (size_t)c * elem);
  if (p) *cap = c;
  return p;
}

/* A malloc'd copy of n elements (at least one element allocated, so 0 is not NULL). */
static void *dup_elems(const void *src, int n, size_t elem) {
  void *d = malloc(elem * (size_t)(n ? n : 1));
  if (d && n) memcpy(d, src, elem * (size_t)n);
  return d;
}

static void free_attr(ir_attr *a) {
  free(a->name);
  free(a->s);
  free(a->ints);
  free(a->floats);
}

void ir_tensor_clear_quant(ir_tensor *t) {
  free(t->q.scales);
  memset(&t->q, 0, sizeof(t->q));
  free(t->qdata);
  t->qdata = NULL;
}

static void free_tensor(ir_tensor *t) {
  free(t->name);
  free(t->data);
  ir_tensor_clear_quant(t);
}

static void free_node(ir_node *n) {
  free(n->name);
  free(n->op_type);
  free(n->domain);
  free(n->in);
  free(n->out);
  for (int i = 0; i < n->n_attrs; i++) free_attr(&n->attrs[i]);
  free(n->attrs);
}

void ir_graph_free(ir_graph *g) {
  if (!g) return;
  for (int i = 0; i < g->n_tensors; i++) free_tensor(&g->tensors[i]);
  for (int i = 0; i < g->n_nodes; i++) free_node(&g->nodes[i]);
  free(g->tensors);
  free(g->nodes);
  free(g->inputs);
  free(g->outputs);
  free(g->class_names);
  free(g->task);
  free(g->name_hash);
  free(g);
}

int ir_add_tensor(ir_graph *g, const char *name, ir_dtype dtype) {
  if (!g) return -1;
  char auto_name[32];
  if (!name) { /* anonymous tensors get a unique generated name */
    snprintf(auto_name, sizeof(auto_name), "_yrt_t%d", g->n_tensors);
    name = auto_name;
  }
  ir_tensor *grown = grow(g->tensors, g->n_tensors, &g->cap_tensors, sizeof(ir_tensor));
  if (!grown) return -1;
  g->tensors = grown;
  ir_tensor *t = &g->tensors[g->n_tensors];
  memset(t, 0, sizeof(*t));
  t->name = ir_strdup(name);
  if (!t->name) return -1;
  t->dtype = dtype;
  t->rank = -1;
  t->producer = -1;
  int idx = g->n_tensors++;
  if (g->n_tensors * 2 > g->name_hash_cap) {
    if (!hash_rebuild(g, g->n_tensors)) hash_drop(g);
  } else {
    hash_put(g->name_hash, g->name_hash_cap, g->tensors, idx);
  }
  return idx;
}

int ir_find_tensor(const ir_graph *g, const char *name) {
  if (!g || !name) return -1;
  if (g->name_hash) {
    uint64_t m = (uint64_t)g->name_hash_cap - 1;
    uint64_t h = hash_str(name) & m;
    while (g->name_hash[h]) {
      int idx = g->name_hash[h] - 1;
      if (idx < g->n_tensors && strcmp(g->tensors[idx].name, name) == 0) return idx;
      h = (h + 1) & m;
    }
    return -1;
  }
  for (int i = g->n_tensors - 1; i >= 0; i--)
    if (strcmp(g->tensors[i].name, name) == 0) return i;
  return -1;
}

int ir_add_node(ir_graph *g, const char *name, const char *op_type, const int *in, int n_in,
                const int *out, int n_out) {
  if (!g || n_in < 0 || n_out < 0) return -1;
  for (int i = 0; i < n_in; i++)
    if (in[i] < -1 || in[i] >= g->n_tensors) return -1;
  for (int i = 0; i < n_out; i++)
    if (out[i] < 0 || out[i] >= g->n_tensors) return -1;
  ir_node *grown = grow(g->nodes, g->n_nodes, &g->cap_nodes, sizeof(ir_node));
  if (!grown) return -1;
  g->nodes = grown;
  ir_node *n = &g->nodes[g->n_nodes];
  memset(n, 0, sizeof(*n));
  n->name = ir_strdup(name);
  n->op_type = ir_strdup(op_type);
  n->domain = ir_strdup("");
  n->op = onnx_op_id(op_type);
  n->in = dup_elems(in, n_in, sizeof(int));
  n->out = dup_elems(out, n_out, sizeof(int));
  if (!n->name || !n->op_type || !n->domain || !n->in || !n->out) {
    free_node(n);
    return -1;
  }
  n->n_in = n_in;
  n->n_out = n_out;
  int idx = g->n_nodes++;
  for (int i = 0; i < n_out; i++) g->tensors[out[i]].producer = idx;
  return idx;
}

/* ---- attributes */

const ir_attr *ir_attr_get(const ir_node *n, const char *name) {
  if (!n || !name) return NULL;
  for (int i = 0; i < n->n_attrs; i++)
    if (strcmp(n->attrs[i].name, name) == 0) return &n->attrs[i];
  return NULL;
}

int64_t ir_attr_int(const ir_node *n, const char *name, int64_t dflt) {
  const ir_attr *a = ir_attr_get(n, name);
  if (!a) return dflt;
  if (a->type == IR_ATTR_INT) return a->i;
  if (a->type == IR_ATTR_FLOAT) return (int64_t)a->f;
  return dflt;
}

float ir_attr_float(const ir_node *n, const char *name, float dflt) {
  const ir_attr *a = ir_attr_get(n, name);
  if (!a) return dflt;
  if (a->type == IR_ATTR_FLOAT) return a->f;
  if (a->type == IR_ATTR_INT) return (float)a->i;
  return dflt;
}

const char *ir_attr_string(const ir_node *n, const char *name, const char *dflt) {
  const ir_attr *a = ir_attr_get(n, name);
  if (!a || a->type != IR_ATTR_STRING || !a->s) return dflt;
  return a->s;
}

/* An attribute holding only its (owned) name and type: value fields cleared, no tensor. */
static void attr_init(ir_attr *a, char *name, ir_attr_type type) {
  memset(a, 0, sizeof(*a));
  a->name = name;
  a->type = type;
  a->tensor = -1;
}

/* Returns the (new or replaced) attribute slot, name set and value fields cleared. */
static ir_attr *attr_slot(ir_graph *g, int node, const char *name, ir_attr_type type) {
  if (!g || node < 0 || node >= g->n_nodes || !name) return NULL;
  ir_node *n = &g->nodes[node];
  for (int i = 0; i < n->n_attrs; i++) {
    if (strcmp(n->attrs[i].name, name) == 0) {
      ir_attr *a = &n->attrs[i];
      free(a->s);
      free(a->ints);
      free(a->floats);
      attr_init(a, a->name, type);
      return a;
    }
  }
  ir_attr *na = realloc(n->attrs, sizeof(ir_attr) * (size_t)(n->n_attrs + 1));
  if (!na) return NULL;
  n->attrs = na;
  char *copy = ir_strdup(name);
  if (!copy) return NULL;
  ir_attr *a = &na[n->n_attrs];
  attr_init(a, copy, type);
  n->n_attrs++;
  return a;
}

int ir_set_attr_int(ir_graph *g, int node, const char *name, int64_t v) {
  ir_attr *a = attr_slot(g, node, name, IR_ATTR_INT);
  if (!a) return -1;
  a->i = v;
  return 0;
}

int ir_set_attr_float(ir_graph *g, int node, const char *name, float v) {
  ir_attr *a = attr_slot(g, node, name, IR_ATTR_FLOAT);
  if (!a) return -1;
  a->f = v;
  return 0;
}

int ir_set_attr_string(ir_graph *g, int node, const char *name, const char *v) {
  ir_attr *a = attr_slot(g, node, name, IR_ATTR_STRING);
  if (!a) return -1;
  a->s = ir_strdup(v);
  return a->s ? 0 : -1;
}

int ir_set_attr_ints(ir_graph *g, int node, const char *name, const int64_t *v, int n) {
  ir_attr *a = attr_slot(g, node, name, IR_ATTR_INTS);
  if (!a || n < 0) return -1;
  a->ints = dup_elems(v, n, sizeof(int64_t));
  if (!a->ints) return -1;
  a->n_ints = n;
  return 0;
}

int ir_set_attr_floats(ir_graph *g, int node, const char *name, const float *v, int n) {
  ir_attr *a = attr_slot(g, node, name, IR_ATTR_FLOATS);
  if (!a || n < 0) return -1;
  a->floats = dup_elems(v, n, sizeof(float));
  if (!a->floats) return -1;
  a->n_floats = n;
  return 0;
}

int ir_set_attr_tensor(ir_graph *g, int node, const char *name, int tensor) {
  ir_attr *a = attr_slot(g, node, name, IR_ATTR_TENSOR);
  if (!a) return -1;
  a->tensor = tensor;
  return 0;
}

/* ---- tensors */

int ir_tensor_set_shape(ir_tensor *t, int rank, const int64_t *dims) {
  if (!t || rank < -1 || rank > IR_MAX_RANK) return -1;
  t->rank = rank;
  memset(t->dims, 0, sizeof(t->dims));
  if (rank > 0) memcpy(t->dims, dims, sizeof(int64_t) * (size_t)rank);
  return 0;
}

int ir_tensor_set_data(ir_tensor *t, const void *data, size_t nbytes) {
  if (!t) return -1;
  void *d = malloc(nbytes ? nbytes : 1);
  if (!d) return -1;
  if (nbytes) memcpy(d, data, nbytes);
  free(t->data);
  t->data = d;
  t->nbytes = nbytes;
  return 0;
}

int ir_quant_copy(ir_quant *dst, const ir_quant *src) {
  ir_quant tmp = *src;
  tmp.scales = NULL;
  if (src->scales && src->n_scales > 0) {
    tmp.scales = malloc(sizeof(float) * (size_t)src->n_scales);
    if (!tmp.scales) return -1;
    memcpy(tmp.scales, src->scales, sizeof(float) * (size_t)src->n_scales);
  }
  free(dst->scales);
  *dst = tmp;
  return 0;
}

int ir_consumers(const ir_graph *g, int t, int *nodes, int cap) {
  int count = 0;
  if (!g || t < 0) return 0;
  for (int i = 0; i < g->n_nodes; i++) {
    const ir_node *n = &g->nodes[i];
    if (n->dead) continue;
    for (int j = 0; j < n->n_in; j++) {
      if (n->in[j] == t) {
        if (nodes && count < cap) nodes[count] = i;
        count++;
        break;
      }
    }
  }
  return count;
}

int64_t ir_numel(const ir_tensor *t) {
  if (!t || t->rank < 0) return -1;
  int64_t n = 1;
  for (int i = 0; i < t->rank; i++) {
    if (t->dims[i] < 0) return -1;
    if (__builtin_mul_overflow(n, t->dims[i], &n)) return -1; /* hostile dims (fuzz finding) */
  }
  return n;
}

void ir_replace_uses(ir_graph *g, int from, int to) {
  for (int i = 0; i < g->n_nodes; i++) {
    ir_node *n = &g->nodes[i];
    if (n->dead) continue;
    for (int j = 0; j < n->n_in; j++)
      if (n->in[j] == from) n->in[j] = to;
  }
  for (int i = 0; i < g->n_outputs; i++)
    if (g->outputs[i] == from) g->outputs[i] = to;
}

/* ---- ordering */

yrt_status ir_topo_order(const ir_graph *g, int **order, int *n, yrt_error *err) {
  if (!g || !order || !n) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "ir_topo_order: NULL");
  *order = NULL;
  *n = 0;
  int nn = g->n_nodes, nt = g->n_tensors;
  int *prod = malloc(sizeof(int) * (size_t)(nt ? nt : 1));
  int *indeg = calloc((size_t)(nn ? nn : 1), sizeof(int));
  int *queue = malloc(sizeof(int) * (size_t)(nn ? nn : 1));
  /* consumer lists in CSR form: for tensor t, cons[cstart[t] .. cstart[t+1]) */
  int *cstart = calloc((size_t)nt + 1, sizeof(int));
  int *cons = NULL;
  yrt_status st = YRT_OK;
  if (!prod || !indeg || !queue || !cstart) { st = YRT_ERR_NOMEM; goto done; }
  for (int i = 0; i < nt; i++) prod[i] = -1;
  int live = 0, edges = 0;
  for (int i = 0; i < nn; i++) {
    const ir_node *nd = &g->nodes[i];
    if (nd->dead) continue;
    live++;
    for (int j = 0; j < nd->n_out; j++)
      if (nd->out[j] >= 0 && nd->out[j] < nt) prod[nd->out[j]] = i;
  }
  for (int i = 0; i < nn; i++) {
    const ir_node *nd = &g->nodes[i];
    if (nd->dead) continue;
    for (int j = 0; j < nd->n_in; j++) {
      int t = nd->in[j];
      if (t < 0 || t >= nt || prod[t] < 0) continue;
      indeg[i]++;
      cstart[t + 1]++;
      edges++;
    }
  }
  for (int t = 0; t < nt; t++) cstart[t + 1] += cstart[t];
  cons = malloc(sizeof(int) * (size_t)(edges ? edges : 1));
  int *fill = malloc(sizeof(int) * (size_t)(nt ? nt : 1));
  if (!cons || !fill) { free(fill); st = YRT_ERR_NOMEM; goto done; }
  memcpy(fill, cstart, sizeof(int) * (size_t)nt);
  for (int i = 0; i < nn; i++) {
    const ir_node *nd = &g->nodes[i];
    if (nd->dead) continue;
    for (int j = 0; j < nd->n_in; j++) {
      int t = nd->in[j];
      if (t < 0 || t >= nt || prod[t] < 0) continue;
      cons[fill[t]++] = i;
    }
  }
  free(fill);
  int head = 0, tail = 0;
  for (int i = 0; i < nn; i++)
    if (!g->nodes[i].dead && indeg[i] == 0) queue[tail++] = i;
  while (head < tail) {
    int i = queue[head++];
    const ir_node *nd = &g->nodes[i];
    for (int j = 0; j < nd->n_out; j++) {
      int t = nd->out[j];
      if (t < 0 || t >= nt || prod[t] != i) continue;
      for (int k = cstart[t]; k < cstart[t + 1]; k++)
        if (--indeg[cons[k]] == 0) queue[tail++] = cons[k];
    }
  }
  if (tail != live) {
    int bad = -1;
    for (int i = 0; i < nn && bad < 0; i++)
      if (!g->nodes[i].dead && indeg[i] > 0) bad = i;
    st = yrt_set_error(err, YRT_ERR_FORMAT, "graph has a cycle (node '%s' never becomes ready)",
                       bad >= 0 ? g->nodes[bad].name : "?");
    goto done;
  }
  *order = queue;
  *n = live;
  queue = NULL;
done:
  if (st == YRT_ERR_NOMEM) yrt_set_error(err, st, "ir_topo_order: out of memory");
  free(prod);
  free(indeg);
  free(queue);
  free(cstart);
  free(cons);
  return st;
}

yrt_status ir_compact(ir_graph *g, yrt_error *err) {
  if (!g) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "ir_compact: NULL graph");
  int nt = g->n_tensors;
  int *keep = calloc((size_t)(nt ? nt : 1), sizeof(int)); /* new index + 1, 0 = drop */
  if (!keep) return yrt_set_error(err, YRT_ERR_NOMEM, "ir_compact: out of memory");
  for (int i = 0; i < g->n_nodes; i++) {
    ir_node *n = &g->nodes[i];
    if (n->dead) continue;
    for (int j = 0; j < n->n_in; j++)
      if (n->in[j] >= 0) keep[n->in[j]] = 1;
    for (int j = 0; j < n->n_out; j++) keep[n->out[j]] = 1;
    for (int j = 0; j < n->n_attrs; j++)
      if (n->attrs[j].type == IR_ATTR_TENSOR && n->attrs[j].tensor >= 0 &&
          n->attrs[j].tensor < nt)
        keep[n->attrs[j].tensor] = 1;
  }
  for (int i = 0; i < g->n_outputs; i++) keep[g->outputs[i]] = 1;
  for (int i = 0; i < g->n_inputs; i++) keep[g->inputs[i]] = 1;
  int w = 0;
  for (int i = 0; i < nt; i++) {
    if (keep[i]) {
      if (w != i) g->tensors[w] = g->tensors[i];
      keep[i] = ++w;
    } else {
      free_tensor(&g->tensors[i]);
    }
  }
  g->n_tensors = w;
  /* nodes */
  int wn = 0;
  for (int i = 0; i < g->n_nodes; i++) {
    ir_node *n = &g->nodes[i];
    if (n->dead) { free_node(n); continue; }
    for (int j = 0; j < n->n_in; j++)
      if (n->in[j] >= 0) n->in[j] = keep[n->in[j]] - 1;
    for (int j = 0; j < n->n_out; j++) n->out[j] = keep[n->out[j]] - 1;
    for (int j = 0; j < n->n_attrs; j++)
      if (n->attrs[j].type == IR_ATTR_TENSOR && n->attrs[j].tensor >= 0 &&
          n->attrs[j].tensor < nt)
        n->attrs[j].tensor = keep[n->attrs[j].tensor] - 1;
    if (wn != i) g->nodes[wn] = *n;
    wn++;
  }
  g->n_nodes = wn;
  for (int i = 0; i < g->n_inputs; i++) g->inputs[i] = keep[g->inputs[i]] - 1;
  for (int i = 0; i < g->n_outputs; i++) g->outputs[i] = keep[g->outputs[i]] - 1;
  free(keep);
  for (int i = 0; i < g->n_tensors; i++) g->tensors[i].producer = -1;
  for (int i = 0; i < g->n_nodes; i++)
    for (int j = 0; j < g->nodes[i].n_out; j++) g->tensors[g->nodes[i].out[j]].producer = i;
  ir_graph_rehash(g);
  return YRT_OK;
}

static int append_int(int **arr, int *n, int v) {
  int *a = realloc(*arr, sizeof(int) * (size_t)(*n + 1));
  if (!a) return -1;
  a[(*n)++] = v;
  *arr = a;
  return 0;
}

int ir_graph_add_input(ir_graph *g, int t) {
  if (!g || t < 0 || t >= g->n_tensors || append_int(&g->inputs, &g->n_inputs, t)) return -1;
  g->tensors[t].is_input = 1;
  return 0;
}

int ir_graph_add_output(ir_graph *g, int t) {
  if (!g || t < 0 || t >= g->n_tensors || append_int(&g->outputs, &g->n_outputs, t)) return -1;
  g->tensors[t].is_output = 1;
  return 0;
}

double ir_const_f64(const ir_tensor *t, int64_t i) {
  switch (t->dtype) {
    case IR_F32: { float v; memcpy(&v, (const char *)t->data + i * 4, 4); return v; }
    case IR_F64: { double v; memcpy(&v, (const char *)t->data + i * 8, 8); return v; }
    case IR_I8: return ((const int8_t *)t->data)[i];
    case IR_U8: case IR_BOOL: return ((const uint8_t *)t->data)[i];
    case IR_I16: { int16_t v; memcpy(&v, (const char *)t->data + i * 2, 2); return v; }
    case IR_U16: { uint16_t v; memcpy(&v, (const char *)t->data + i * 2, 2); return v; }
    case IR_I32: { int32_t v; memcpy(&v, (const char *)t->data + i * 4, 4); return v; }
    case IR_I64: { int64_t v; memcpy(&v, (const char *)t->data + i * 8, 8); return (double)v; }
    default: return 0;
  }
}

int64_t ir_const_i64(const ir_tensor *t, int64_t i) {
  switch (t->dtype) {
    case IR_I64: { int64_t v; memcpy(&v, (const char *)t->data + i * 8, 8); return v; }
    case IR_I32: { int32_t v; memcpy(&v, (const char *)t->data + i * 4, 4); return v; }
    case IR_I8: return ((const int8_t *)t->data)[i];
    case IR_U8: case IR_BOOL: return ((const uint8_t *)t->data)[i];
    case IR_I16: { int16_t v; memcpy(&v, (const char *)t->data + i * 2, 2); return v; }
    case IR_U16: { uint16_t v; memcpy(&v, (const char *)t->data + i * 2, 2); return v; }
    default: {
      double d = ir_const_f64(t, i);
      if (d != d) return 0;
      if (d >= 9.2e18) return INT64_MAX;
      if (d <= -9.2e18) return INT64_MIN;
      return (int64_t)d;
    }
  }
}

int ir_name_matches(const char *name, const char *pattern) {
  if (!name || !pattern) return 0;
  const size_t n = strlen(pattern);
  if (n > 0 && pattern[n - 1] == '*') return strncmp(name, pattern, n - 1) == 0;
  return strcmp(name, pattern) == 0;
}

int ir_node_is(const ir_node *n, const char *op_type) {
  return n && n->op_type && strcmp(n->op_type, op_type) == 0 && (!n->domain || !n->domain[0]);
}

int ir_add_const_f32(ir_graph *g, const char *base, const char *suffix, int rank, const int64_t *dims,
                     const float *data, size_t n) {
  size_t bl = strlen(base), sl = strlen(suffix);
  char *name = malloc(bl + sl + 1);
  if (!name) return -1;
  memcpy(name, base, bl);
  memcpy(name + bl, suffix, sl + 1);
  /* a name already taken: an unnamed tensor instead */
  int t = ir_find_tensor(g, name) < 0 ? ir_add_tensor(g, name, IR_F32) : ir_add_tensor(g, NULL, IR_F32);
  free(name);
  if (t < 0 || ir_tensor_set_data(&g->tensors[t], data, n * 4)) return -1;
  ir_tensor_set_shape(&g->tensors[t], rank, dims);
  return t;
}
