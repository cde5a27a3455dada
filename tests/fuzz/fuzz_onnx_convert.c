/* fuzz_onnx_convert.c — libFuzzer target: hostile ONNX bytes through onnx_read_memory and the whole
 * converter (yrt_convert_graph: folding, shape inference, QDQ, lowering, memory plan, writer).
 * Whatever the converter writes must load (the runtime validator is the second line of defence,
 * but a converter that writes files its own runtime rejects is a bug), and is run once when cheap. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ir_graph *g = NULL;
  yrt_error err;
  err.msg[0] = 0;
  yrt_status st = onnx_read_memory(data, size, &g, &err);
  if (st != YRT_OK) {
    FZ_CHECK(g == NULL);
    fz_check_error(st, &err);
    return 0;
  }
  FZ_CHECK(g != NULL);
  void *yrt = NULL;
  size_t n = 0;
  yrt_convert_report rep;
  err.msg[0] = 0;
  st = yrt_convert_graph(g, NULL, &yrt, &n, &rep, &err);
  ir_graph_free(g);
  if (st != YRT_OK) {
    fz_check_error(st, &err);
    free(yrt);
    return 0;
  }
  FZ_CHECK(yrt != NULL && n >= 64 && ((uintptr_t)yrt % 64) == 0);
  yrt_model *m = NULL;
  st = yrt_model_load_memory(yrt, n, 0, &m, &err);
  if (st != YRT_OK) {
    fprintf(stderr, "converter output rejected by the loader: %s\n", err.msg);
    abort();
  }
  fz_exercise_model(m);
  yrt_model_free(m);
  free(yrt);
  return 0;
}
