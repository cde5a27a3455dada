/* yolort-quantize fp32.onnx CALIB_DIR -o out.qdq.onnx [--yrt out.yrt]
 *   [--method minmax|percentile|entropy] [--percentile 99.99] [--activations int8|uint8]
 *   [--exclude NODE]... [-n MAX_IMAGES] [--threads N] [-q]
 * Post-training quantization with our own FP32 engine as the observer. The QDQ ONNX it writes
 * follows onnxruntime's quantize_static layout (onnxruntime runs it too); --yrt also converts it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "convert.h"
#include "onnx_write.h"

static int usage(void) {
  fprintf(stderr,
          "usage: yolort-quantize fp32.onnx CALIB_DIR -o out.qdq.onnx [--yrt out.yrt]\n"
          "         [--method minmax|percentile|entropy] [--percentile P] [--activations int8|uint8]\n"
          "         [--exclude NODE]... [-n MAX_IMAGES] [--threads N] [-q]\n");
  return 2;
}

static int write_file(const char *path, const void *data, size_t size, yrt_error *err) {
  FILE *f = fopen(path, "wb");
  if (!f) return yrt_set_error(err, YRT_ERR_IO, "cannot create '%s'", path);
  size_t w = fwrite(data, 1, size, f);
  if (fclose(f) != 0 || w != size) return yrt_set_error(err, YRT_ERR_IO, "cannot write '%s'", path);
  return YRT_OK;
}

int main(int argc, char **argv) {
  const char *in = NULL, *dir = NULL, *out = NULL, *yrt_out = NULL;
  calib_options o = {YRT_CALIB_PERCENTILE, 99.99, 0, NULL, 0, 2, 0};
  const char **excl = calloc((size_t)argc + 1, sizeof(char *));
  int n_excl = 0;
  if (!excl) return 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-o") && i + 1 < argc) out = argv[++i];
    else if (!strcmp(a, "--yrt") && i + 1 < argc) yrt_out = argv[++i];
    else if (!strcmp(a, "--method") && i + 1 < argc) {
      if (calib_method_parse(argv[++i], &o.method)) return usage();
    } else if (!strcmp(a, "--percentile") && i + 1 < argc) o.percentile = atof(argv[++i]);
    else if (!strcmp(a, "--activations") && i + 1 < argc) {
      const char *t = argv[++i];
      if (!strcmp(t, "uint8")) o.uint8_acts = 1;
      else if (strcmp(t, "int8")) return usage();
    } else if (!strcmp(a, "--exclude") && i + 1 < argc) excl[n_excl++] = argv[++i];
    else if (!strcmp(a, "-n") && i + 1 < argc) o.max_images = atoi(argv[++i]);
    else if (!strcmp(a, "--threads") && i + 1 < argc) o.threads = atoi(argv[++i]);
    else if (!strcmp(a, "-q")) o.quiet = 1;
    else if (a[0] == '-') return usage();
    else if (!in) in = a;
    else if (!dir) dir = a;
    else return usage();
  }
  if (!in || !dir || !out) return usage();
  if (o.percentile <= 50 || o.percentile > 100) {
    fprintf(stderr, "yolort-quantize: --percentile must be in (50, 100]\n");
    return 2;
  }
  o.exclude = n_excl ? excl : NULL;

  yrt_error err = {{0}};
  Onnx__ModelProto *m = NULL;
  void *yrt = NULL;
  size_t ysize = 0;
  uint8_t *bytes = NULL;
  size_t size = 0;
  yrt_status st = onnx_model_load_file(in, &m, &err);
  if (!st) {
    fprintf(stderr, "yolort-quantize: %s, method %s", in, calib_method_name(o.method));
    if (o.method == YRT_CALIB_PERCENTILE) fprintf(stderr, " %.4g", o.percentile);
    fprintf(stderr, ", %s activations, per-channel int8 weights\n", o.uint8_acts ? "uint8" : "int8");
    st = calib_quantize_model(m, dir, &o, &err);
  }
  if (!st) st = onnx_model_pack(m, &bytes, &size, &err);
  if (!st) st = write_file(out, bytes, size, &err);
  if (!st) printf("wrote %s (%zu bytes)\n", out, size);
  if (!st && yrt_out) {
    yrt_convert_options co = {o.exclude, 0, 0, NULL};
    yrt_convert_report rep;
    ir_graph *g = NULL;
    st = onnx_read_memory(bytes, size, &g, &err);
    if (!st) st = yrt_convert_graph(g, &co, &yrt, &ysize, &rep, &err);
    ir_graph_free(g);
    if (!st) st = write_file(yrt_out, yrt, ysize, &err);
    if (!st) {
      yrt_convert_report_print(&rep, stdout);
      printf("wrote %s (%zu bytes)\n", yrt_out, ysize);
    }
  }
  free(bytes);
  free(yrt);
  onnx_model_free(m);
  free(excl);
  if (st) {
    fprintf(stderr, "yolort-quantize: %s\n", err.msg);
    return 1;
  }
  return 0;
}
