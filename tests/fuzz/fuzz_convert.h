/* fuzz_convert.h — what the ONNX targets do with their bytes: read, convert (every pass,
 * lowering, plan, writer), require the runtime's loader to accept whatever the converter wrote,
 * then run it once when cheap (fuzz_common.h). */
#ifndef YOLORT_FUZZ_CONVERT_H
#define YOLORT_FUZZ_CONVERT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "fuzz_common.h"

static inline void fz_convert_and_run(const uint8_t *data, size_t size) {
  ir_graph *g = NULL;
  yrt_error err;
  err.msg[0] = 0;
  yrt_status st = onnx_read_memory(data, size, &g, &err);
  if (st != YRT_OK) {
    FZ_CHECK(g == NULL);
    fz_check_error(st, &err);
    return;
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
    return;
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
}

#endif
