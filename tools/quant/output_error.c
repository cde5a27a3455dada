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

double output_ref_db(double e) {
  if (!(e > 0)) return 100.0;
  const double d = -10.0 * log10(e);
  return d > 100.0 ? 100.0 : d < -100.0 ? -100.0 : d;
}

#define NOMEM_ERR(err) yrt_set_error(err, YRT_ERR_NOMEM, "auto-mixed: out of memory")

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
    if (r->weight) free(r->weight[i]);
  }
  free(r->paths);
  free(r->data);
  free(r->weight);
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
    r->weight = calloc((size_t)total, sizeof(float *));
    if (!r->paths || !r->data || !r->count || !r->weight) st = yrt_set_error(err, YRT_ERR_NOMEM, "auto-mixed: out of memory");
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
    if (!st && i == 0 && v.rank == 3 && v.dims[0] == 1) { /* a detection tensor: boxes + scores */
      r->rows = v.dims[1];
      r->cols = v.dims[2];
      if (r->rows > 4 && r->rows < r->cols) r->boxes_first = 1;
      else if (r->cols > 4 && r->cols < r->rows) r->boxes_first = 2;
    }
    if (!st && r->boxes_first) {
      if ((size_t)r->rows * (size_t)r->cols != v.count)
        st = yrt_set_error(err, YRT_ERR_SHAPE, "auto-mixed: %s changed shape between images",
                           r->tensor ? r->tensor : "output0");
      const int anchors = r->boxes_first == 1 ? r->cols : r->rows, ch = r->boxes_first == 1 ? r->rows : r->cols;
      if (!st && !(r->weight[i] = calloc((size_t)anchors, sizeof(float)))) st = NOMEM_ERR(err);
      for (int a = 0; !st && a < anchors; a++)
        for (int c = 4; c < ch; c++) {
          const float x = r->boxes_first == 1 ? v.data[(size_t)c * (size_t)anchors + (size_t)a]
                                              : v.data[(size_t)a * (size_t)ch + (size_t)c];
          if (x > r->weight[i][a]) r->weight[i][a] = x;
        }
    }
  }
  if (opened) observer_close(&ob);
  file_list_free(&files);
  if (st) output_ref_close(r);
  return st;
}

yrt_status output_ref_error(const output_ref *r, const Onnx__ModelProto *q, const char *const *keep_fp32,
                            double *error, yrt_error *err) {
  observer ob;
  yrt_status st = open_observer(&ob, r, q, keep_fp32, err);
  if (st) return st;
  double s[2] = {0, 0}, e[2] = {0, 0};
  for (int i = 0; !st && i < r->images; i++) {
    yrt_tensor_view v;
    st = observer_run_image(&ob, r->paths[i], err);
    if (!st) st = observer_get(&ob, r->tensor ? 0 : -1, &v, err);
    if (!st && v.count != r->count[i])
      st = yrt_set_error(err, YRT_ERR_SHAPE, "auto-mixed: %s has %zu elements, the float model's %zu",
                         r->tensor ? r->tensor : "output0", v.count, r->count[i]);
    for (size_t k = 0; !st && k < v.count; k++) {
      /* part 0: boxes (or everything), part 1: class scores */
      const size_t row = r->boxes_first ? k / (size_t)r->cols : 0, col = r->boxes_first ? k % (size_t)r->cols : 0;
      const int part = r->boxes_first == 1 ? row >= 4 : r->boxes_first == 2 ? col >= 4 : 0;
      const double w = r->boxes_first && !part ? r->weight[i][r->boxes_first == 1 ? col : row] : 1.0;
      const double x = r->data[i][k], d = (double)v.data[k] - x;
      s[part] += w * x * x;
      e[part] += w * d * d;
    }
  }
  observer_close(&ob);
  const int parts = r->boxes_first ? 2 : 1;
  double rel = 0;
  for (int p = 0; p < parts; p++) rel += s[p] > 0 ? e[p] / s[p] : (e[p] > 0 ? 1e10 : 0);
  if (!st) *error = rel / parts;
  return st;
}
