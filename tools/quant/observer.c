/* observer.c — see observer.h. */
#include "observer.h"

#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "ir.h"
#include "onnx_write.h"
#include "yolort_image.h"

yrt_status observer_open(observer *o, const Onnx__ModelProto *m, char *const *names, int n,
                         const char *const *keep_fp32, int threads, yrt_error *err) {
  memset(o, 0, sizeof *o);
  uint8_t *bytes = NULL;
  size_t size = 0;
  Onnx__ModelProto *c = NULL;
  yrt_status st = onnx_model_pack(m, &bytes, &size, err);
  if (!st) st = onnx_model_load_memory(bytes, size, &c, err);
  free(bytes);
  bytes = NULL;
  o->index = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
  if (!st && !o->index) st = yrt_set_error(err, YRT_ERR_NOMEM, "observer: out of memory");
  /* the converter keeps the ONNX output order; a name listed twice became "plan lists output
   * tensor N twice" (yolort-quantize on tiny graphs, issue 19) */
  int n_out = 0;
  if (!st) n_out = (int)c->graph->n_output;
  for (int i = 0; !st && i < n; i++) {
    int at = -1;
    for (int j = 0; j < n_out && at < 0; j++)
      if (c->graph->output[j]->name && strcmp(c->graph->output[j]->name, names[i]) == 0) at = j;
    if (at < 0) {
      if (onnx_model_add_output(c, names[i], IR_F32, -1, NULL))
        st = yrt_set_error(err, YRT_ERR_NOMEM, "observer: out of memory");
      at = n_out++;
    }
    o->index[i] = at;
  }
  if (!st) st = onnx_model_pack(c, &bytes, &size, err);
  onnx_model_free(c);
  ir_graph *g = NULL;
  if (!st) st = onnx_read_memory(bytes, size, &g, err);
  free(bytes);
  void *yrt = NULL;
  size_t ysize = 0;
  /* observed tensors become outputs: the head may stay unfused, its output read as it is */
  yrt_convert_options co = {.keep_fp32 = keep_fp32, .source = "observer", .raw_outputs = 1};
  if (!st) st = yrt_convert_graph(g, &co, &yrt, &ysize, NULL, err);
  /* the .yrt's outputs are the converted graph's, in order; a fused head may have merged the
   * file's own outputs (YOLO-Pose's three raw maps become one decode): found again by name */
  if (!st) n_out = g->n_outputs;
  for (int i = 0; !st && i < n; i++) {
    o->index[i] = -1;
    for (int j = 0; j < g->n_outputs && o->index[i] < 0; j++)
      if (g->tensors[g->outputs[j]].name && strcmp(g->tensors[g->outputs[j]].name, names[i]) == 0) o->index[i] = j;
    if (o->index[i] < 0)
      st = yrt_set_error(err, YRT_ERR_UNSUPPORTED, "observer: tensor '%.200s' is no output of the converted model (a "
                         "fused head took it)", names[i]);
  }
  ir_graph_free(g);
  if (!st) st = yrt_model_load_memory(yrt, ysize, 1, &o->model, err);
  free(yrt);
  if (!st) st = yrt_model_get_info(o->model, &o->info);
  if (!st && o->info.num_outputs != n_out)
    st = yrt_set_error(err, YRT_ERR_SHAPE, "observer: model has %d outputs, expected %d",
                       o->info.num_outputs, n_out);
  yrt_session_options so;
  yrt_session_options_init(&so);
  so.num_threads = threads;
  if (!st) st = yrt_session_create(o->model, &so, &o->session, err);
  o->n = n;
  if (st) observer_close(o);
  return st;
}

yrt_status observer_run_image(observer *o, const char *jpeg_path, yrt_error *err) {
  yrt_image img = {0, 0, NULL};
  yrt_status st = yrt_image_load_jpeg(jpeg_path, &img, err);
  if (st) return st;
  size_t need = yrt_letterbox_scratch_bytes(img.w, img.h, o->info.input_w, o->info.input_h);
  if (need > o->scratch_bytes || !o->scratch) {
    void *p = realloc(o->scratch, need ? need : 1);
    if (!p) st = yrt_set_error(err, YRT_ERR_NOMEM, "observer: out of memory");
    else {
      o->scratch = p;
      o->scratch_bytes = need;
    }
  }
  yrt_letterbox lb;
  yrt_preprocess pre; /* the model's own (calibration sees what the runtime will feed) */
  if (!st) st = yrt_model_get_preprocess(o->model, &pre);
  if (!st)
    st = yrt_preprocess_f32(&img, &pre, o->info.input_w, o->info.input_h, yrt_session_input_nhwc(o->session, 0),
                            yrt_session_input_count(o->session, 0), o->scratch, &lb, err);
  yrt_image_free(&img);
  if (!st) st = yrt_session_run(o->session, err);
  return st;
}

yrt_status observer_get(observer *o, int k, yrt_tensor_view *v, yrt_error *err) {
  if (k < -1 || k >= o->n) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "observer: tensor %d", k);
  return yrt_session_output(o->session, k < 0 ? 0 : o->index[k], v, err);
}

void observer_close(observer *o) {
  yrt_session_free(o->session);
  yrt_model_free(o->model);
  free(o->scratch);
  free(o->index);
  memset(o, 0, sizeof *o);
}
