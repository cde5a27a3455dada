/* model_open.c — see model_open.h. */
#include "model_open.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "convert.h"
#include "ir.h"

int yrt_path_is_onnx(const char *path) {
  size_t n = path ? strlen(path) : 0;
  return n >= 5 && strcasecmp(path + n - 5, ".onnx") == 0;
}

yrt_status yrt_open_model(const char *path, int quiet, yrt_model **out, yrt_error *err) {
  if (!path || !out) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "open model: NULL argument");
  yrt_status st;
  if (yrt_path_is_onnx(path)) {
    void *buf = NULL;
    size_t size = 0;
    yrt_convert_report rep;
    memset(&rep, 0, sizeof rep);
    st = yrt_convert_onnx_file(path, NULL, &buf, &size, &rep, err);
    if (st != YRT_OK) return st;
    if (!quiet) yrt_convert_report_print(&rep, stderr);
    st = yrt_model_load_memory(buf, size, 1, out, err);
    free(buf);
  } else {
    st = yrt_model_load_file(path, out, err);
  }
  if (st != YRT_OK) return st;
  yrt_model_info info;
  if (yrt_model_get_info(*out, &info) == YRT_OK && info.synthetic)
    fprintf(stderr,
            "note: %s has generated (synthetic) weights: its speed is real, its detections are "
            "meaningless\n",
            path);
  return YRT_OK;
}

yrt_status yrt_open_onnx_memory(const void *bytes, size_t size, const char *source, const char *const *keep_fp32,
                                yrt_model **out, yrt_error *err) {
  ir_graph *g = NULL;
  void *buf = NULL;
  size_t ysize = 0;
  yrt_convert_options co = {.keep_fp32 = keep_fp32, .source = source};
  yrt_status st = onnx_read_memory(bytes, size, &g, err);
  if (!st) st = yrt_convert_graph(g, &co, &buf, &ysize, NULL, err);
  ir_graph_free(g);
  if (!st) st = yrt_model_load_memory(buf, ysize, 1, out, err);
  free(buf);
  return st;
}
