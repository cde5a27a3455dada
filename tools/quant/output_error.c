/* output_error.c — see output_error.h. */
#include "output_error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "file_list.h"
#include "fuse_e2e_head.h"
#include "ir.h"
#include "observer.h"
#include "onnx_reader.h"

double output_ref_db(double s, double n) {
  if (n <= 0) return 100.0;
  if (s <= 0) return -100.0;
  const double d = 10.0 * log10(s / n);
  return d > 100.0 ? 100.0 : d < -100.0 ? -100.0 : d;
}

static char *xdup(const char *s) {
  const size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

/* The input of the end-to-end head's DetectTopK, or NULL (no such head: compare output0). */
static yrt_status e2e_tensor(const Onnx__ModelProto *m, char **name, yrt_error *err) {
  *name = NULL;
  ir_graph *g = NULL;
  yrt_status st = onnx_model_to_ir(m, &g, err);
  if (!st) st = yrt_convert_prepare_float(g, err);
  for (int i = 0; !st && i < g->n_nodes; i++) {
    const ir_node *n = &g->nodes[i];
    if (!lw_is_e2e_node(n) || n->n_in < 1 || n->in[0] < 0) continue;
    if (!(*name = xdup(g->tensors[n->in[0]].name)))
      st = yrt_set_error(err, YRT_ERR_NOMEM, "auto-mixed: out of memory");
    break;
  }
  ir_graph_free(g);
  return st;
}

void output_ref_close(output_ref *r) {
  for (int i = 0; i < r->images; i++) {
    if (r->paths) free(r->paths[i]);
    if (r->data) free(r->data[i]);
  }
  free(r->paths);
  free(r->data);
  free(r->count);
  free(r->tensor);
  memset(r, 0, sizeof *r);
}

static yrt_status open_observer(observer *ob, const output_ref *r, const Onnx__ModelProto *m,
                                const char *const *keep, yrt_error *err) {
  char *names[1] = {r->tensor};
  return observer_open(ob, m, names, r->tensor ? 1 : 0, keep, r->threads, err);
}

yrt_status output_ref_open(output_ref *r, const Onnx__ModelProto *m, const char *images_dir,
                           int max_images, int threads, yrt_error *err) {
  memset(r, 0, sizeof *r);
  r->threads = threads;
  file_list files = {NULL, 0};
  yrt_status st = e2e_tensor(m, &r->tensor, err);
  if (!st) st = file_list_images(images_dir, &files, err);
  int total = files.n;
  if (max_images > 0 && max_images < total) total = max_images;
  if (!st && total == 0) st = yrt_set_error(err, YRT_ERR_INVALID_ARG, "auto-mixed: no JPEG in %s", images_dir);
  if (!st) {
    r->paths = calloc((size_t)total, sizeof(char *));
    r->data = calloc((size_t)total, sizeof(float *));
    r->count = calloc((size_t)total, sizeof(size_t));
    if (!r->paths || !r->data || !r->count) st = yrt_set_error(err, YRT_ERR_NOMEM, "auto-mixed: out of memory");
  }
  observer ob;
  int opened = 0;
  if (!st) {
    st = open_observer(&ob, r, m, NULL, err);
    opened = !st;
  }
  for (int i = 0; !st && i < total; i++) {
    yrt_tensor_view v;
    r->images = i + 1;
    if (!(r->paths[i] = xdup(files.paths[i]))) st = yrt_set_error(err, YRT_ERR_NOMEM, "auto-mixed: out of memory");
    if (!st) st = observer_run_image(&ob, files.paths[i], err);
    if (!st) st = observer_get(&ob, r->tensor ? 0 : -1, &v, err);
    if (!st && !(r->data[i] = malloc(sizeof(float) * (v.count ? v.count : 1))))
      st = yrt_set_error(err, YRT_ERR_NOMEM, "auto-mixed: out of memory");
    if (!st) {
      memcpy(r->data[i], v.data, sizeof(float) * v.count);
      r->count[i] = v.count;
    }
  }
  if (opened) observer_close(&ob);
  file_list_free(&files);
  if (st) output_ref_close(r);
  return st;
}

yrt_status output_ref_error(const output_ref *r, const Onnx__ModelProto *q, const char *const *keep_fp32,
                            double *signal, double *noise, yrt_error *err) {
  observer ob;
  yrt_status st = open_observer(&ob, r, q, keep_fp32, err);
  if (st) return st;
  double s = 0, e = 0;
  for (int i = 0; !st && i < r->images; i++) {
    yrt_tensor_view v;
    st = observer_run_image(&ob, r->paths[i], err);
    if (!st) st = observer_get(&ob, r->tensor ? 0 : -1, &v, err);
    if (!st && v.count != r->count[i])
      st = yrt_set_error(err, YRT_ERR_SHAPE, "auto-mixed: %s has %zu elements, the float model's %zu",
                         r->tensor ? r->tensor : "output0", v.count, r->count[i]);
    for (size_t k = 0; !st && k < v.count; k++) {
      const double x = r->data[i][k], d = (double)v.data[k] - x;
      s += x * x;
      e += d * d;
    }
  }
  observer_close(&ob);
  if (!st) {
    *signal = s;
    *noise = e;
  }
  return st;
}
