/* fuzz_common.h — what the fuzz targets do with a model that loaded: check the info is sane, and,
 * when running it is cheap, create a session, run it once on zeros (the arena starts zeroed) and
 * read every output and node accessor. Failures inside are fine; crashes, leaks, UB and values
 * the API promises not to return are not (FZ_CHECK aborts, which libFuzzer reports). */
#ifndef YOLORT_FUZZ_COMMON_H
#define YOLORT_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_internal.h" /* node records, to bound the work of one run */
#include "yolort.h"
#include "yolort_format.h"

#define FZ_CHECK(c)                                                              \
  do {                                                                           \
    if (!(c)) {                                                                  \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);      \
      abort();                                                                   \
    }                                                                            \
  } while (0)

/* An error must come with a message. */
static inline void fz_check_error(yrt_status st, const yrt_error *err) {
  FZ_CHECK(st > YRT_OK && st <= YRT_ERR_SHAPE);
  FZ_CHECK(err->msg[0] != 0);
  FZ_CHECK(memchr(err->msg, 0, sizeof err->msg) != NULL);
}

/* The header's file_size and CRC made to match the bytes: otherwise nearly every mutation stops
 * at the CRC check and the validator behind it is never reached (the CRC and size checks
 * themselves are tested in tests/reliability). */
static inline void fz_seal(uint8_t *buf, size_t size) {
  if (size < sizeof(yrt_file_header)) return;
  yrt_file_header h;
  memcpy(&h, buf, sizeof h);
  h.file_size = size;
  h.crc32 = yrt_crc32(0, buf + sizeof h, size - sizeof h);
  memcpy(buf, &h, sizeof h);
}

/* data sealed in an exact-size copy (ASan sees any read past the end) and loaded with copy=1;
 * NULL, the error checked, when the loader refuses it. */
static inline yrt_model *fz_load_sealed(const uint8_t *data, size_t size) {
  uint8_t *buf = malloc(size ? size : 1);
  if (!buf) return NULL;
  if (size) memcpy(buf, data, size);
  fz_seal(buf, size);
  yrt_model *m = NULL;
  yrt_error err;
  err.msg[0] = 0;
  const yrt_status st = yrt_model_load_memory(buf, size, 1, &m, &err);
  free(buf);
  if (st != YRT_OK) {
    FZ_CHECK(m == NULL);
    fz_check_error(st, &err);
    return NULL;
  }
  FZ_CHECK(m != NULL);
  return m;
}

/* Rough multiply-accumulate count of one run; large models or hostile shapes are skipped so one
 * input never takes seconds (libFuzzer would report a timeout, which is not a bug here). */
static inline double fz_run_cost(const yrt_model *m) {
  double cost = 0;
  for (uint32_t i = 0; i < m->n_nodes; i++) {
    const yrt_node_rec *n = &m->nodes[i];
    const yrt_tensor_rec *y = &m->tensors[n->out[0]];
    const double out = (double)yrt_tensor_numel(y);
    cost += out;
    for (uint32_t k = 0; k < n->n_in; k++)
      if (n->in[k] != YRT_NONE) cost += (double)yrt_tensor_numel(&m->tensors[n->in[k]]);
    if (n->op == YRT_OP_CONV2D && n->n_in > 1) {
      const yrt_tensor_rec *w = &m->tensors[n->in[1]];
      const double cout = w->rank > 0 && w->dims[0] > 0 ? (double)w->dims[0] : 1.0;
      cost += out * (double)yrt_tensor_numel(w) / cout;
    } else if (n->op == YRT_OP_MATMUL && n->n_in > 0) {
      const yrt_tensor_rec *a = &m->tensors[n->in[0]];
      cost += out * (a->rank > 0 ? (double)a->dims[a->rank - 1] : 1.0);
    } else if (n->op == YRT_OP_MAXPOOL) {
      cost += out * (double)n->p[0] * (double)n->p[1];
    }
  }
  return cost;
}

#define FZ_MAX_RUN_COST 2e7
#define FZ_MAX_ARENA ((size_t)64 << 20)

static inline void fz_exercise_model(const yrt_model *m) {
  yrt_model_info info;
  yrt_error err;
  FZ_CHECK(yrt_model_get_info(m, &info) == YRT_OK);
  FZ_CHECK(info.num_inputs >= 0 && info.num_outputs >= 0 && info.num_nodes >= 0);
  for (int c = -1; c <= info.num_classes && c < 4096; c++) {
    const char *name = yrt_model_class_name(m, c);
    if (name) FZ_CHECK(strlen(name) < 1u << 20);
  }
  if (info.arena_bytes > FZ_MAX_ARENA || fz_run_cost(m) > FZ_MAX_RUN_COST) return;

  yrt_session *s = NULL;
  const yrt_session_options one = {.num_threads = 1}; /* one session per input: no pool each */
  yrt_status st = yrt_session_create(m, &one, &s, &err);
  if (st != YRT_OK) {
    FZ_CHECK(s == NULL);
    fz_check_error(st, &err);
    return;
  }
  yrt_session_set_profiling(s, 1);
  st = yrt_session_run(s, &err);
  if (st != YRT_OK) fz_check_error(st, &err);
  for (int k = -1; k <= info.num_outputs; k++) {
    yrt_tensor_view v;
    st = yrt_session_output(s, k, &v, &err);
    if (k < 0 || k >= info.num_outputs) {
      FZ_CHECK(st == YRT_ERR_INVALID_ARG);
      continue;
    }
    if (st != YRT_OK) continue;
    volatile float sink = 0;
    for (size_t i = 0; i < v.count; i++) sink += v.data[i]; /* ASan: every element readable */
    (void)sink;
  }
  uint64_t ns[8];
  FZ_CHECK(yrt_session_node_times(s, ns, 8) == info.num_nodes);
  for (int i = -1; i <= info.num_nodes; i++) {
    const char *kind = yrt_session_node_kind(s, i), *name = yrt_session_node_name(s, i);
    if (i < 0 || i >= info.num_nodes) FZ_CHECK(!kind && !name);
    else FZ_CHECK(kind && name && strlen(name) < 1u << 20);
  }
  FZ_CHECK(yrt_session_input_nhwc(s, -1) == NULL && yrt_session_input_nhwc(s, info.num_inputs) == NULL);
  yrt_session_free(s);
}

#endif
