/* quantize.c — yolort-quantize's run as a library call (quantize.h). */
#include "quantize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bias_correct.h"
#include "convert.h"
#include "file_write.h"
#include "float_recover.h"
#include "onnx_write.h"
#include "weight_scale.h"

#define PROG "yolort-quantize"

/* "a/b.qdq.onnx" + "entropy" -> "a/b.entropy.qdq.onnx" (before the first '.' of the base name). */
static void with_tag(const char *path, const char *tag, char *out, size_t cap) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  const char *dot = strchr(base, '.');
  if (!tag || !dot) {
    snprintf(out, cap, "%s", path);
    return;
  }
  snprintf(out, cap, "%.*s.%s%s", (int)(dot - path), path, tag, dot);
}

typedef struct method_run {
  yrt_calib_method m;
  double pct;
  const char *tag;
} method_run;


/* Bias correction of the QDQ model q (in place): each pass measures the per-channel shifts
 * left against the float model and moves them into the int32 biases. */
static yrt_status bias_correct(Onnx__ModelProto *q, const uint8_t *folded, size_t folded_size,
                               const calib_options *o, const bc_run *bc, yrt_error *err) {
  Onnx__ModelProto *ref = NULL;
  yrt_status st = onnx_model_load_memory(folded, folded_size, &ref, err);
  for (int p = 0; !st && p < bc->passes; p++) {
    bias_correct_options bo = {bc->dir, bc->max_images, o->threads, o->quiet, bc->observed, bc->global,
                                bc->wave_levels};
    bias_correct_stats bs;
    st = bias_correct_apply(q, ref, &bo, &bs, err);
    if (!st)
      fprintf(stderr,
              "yolort-quantize: bias correction pass %d: %d convs (%d left alone), %d images, "
              "%d wave(s), mean |shift| %.5f std\n",
              p + 1, bs.convs, bs.skipped, bs.images, bs.waves, bs.mean_abs_shift);
  }
  onnx_model_free(ref);
  return st;
}

/* Write the QDQ (and .yrt, and report) of one method from the shared calibration. */
static yrt_status emit(const uint8_t *folded, size_t folded_size, calib_result *r,
                       const calib_options *o, const method_run *mr, const bc_run *bc,
                       const char *out, const char *yrt_out, const quant_report_options *ro, int tagged,
                       yrt_error *err) {
  char qpath[1024], ypath[1024], rpath[1024];
  with_tag(out, tagged ? mr->tag : NULL, qpath, sizeof qpath);
  if (yrt_out) with_tag(yrt_out, tagged ? mr->tag : NULL, ypath, sizeof ypath);
  calib_choose(r, mr->m, mr->pct);
  Onnx__ModelProto *m = NULL;
  uint8_t *bytes = NULL;
  size_t size = 0;
  yrt_status st = calib_qdq_from_folded(folded, folded_size, r, o, &m, err);
  if (!st && bc->passes > 0) st = bias_correct(m, folded, folded_size, o, bc, err);
  if (!st) st = onnx_model_pack(m, &bytes, &size, err);
  onnx_model_free(m);
  if (!st) st = yrt_write_file_atomic(qpath, bytes, size, err);
  if (!st) printf("wrote %s (%s, %zu bytes)\n", qpath, mr->tag, size);
  if (!st && yrt_out) {
    yrt_convert_options co = {.keep_fp32 = o->exclude};
    yrt_convert_report rep;
    ir_graph *g = NULL;
    void *yrt = NULL;
    size_t ysize = 0;
    st = onnx_read_memory(bytes, size, &g, err);
    if (!st) st = yrt_convert_graph(g, &co, &yrt, &ysize, &rep, err);
    ir_graph_free(g);
    if (!st) st = yrt_write_file_atomic(ypath, yrt, ysize, err);
    if (!st) {
      if (!o->quiet) yrt_convert_report_print(&rep, stdout);
      printf("wrote %s (%d int8 nodes of %d, %zu bytes)\n", ypath, rep.n_int8_nodes, rep.n_nodes, ysize);
    }
    free(yrt);
  }
  if (!st && ro->path) {
    quant_report_options rt = *ro;
    with_tag(ro->path, tagged ? mr->tag : NULL, rpath, sizeof rpath);
    rt.path = rpath;
    st = quant_report_write(&rt, folded, folded_size, bytes, size, err);
    if (!st) printf("wrote %s (report)\n", rpath);
  }
  free(bytes);
  return st;
}

yrt_status quantize_run(const quantize_job *job, yrt_error *err) {
  const char *in = job->in, *dir = job->dir, *out = job->out, *yrt_out = job->yrt_out;
  const char *float_out = job->float_out, *preprocess = job->preprocess;
  const char *const *excl = job->excl;
  const int n_excl = job->n_excl, all = job->all, weight_all = job->weight_all, float_stem = job->float_stem;
  const int silu_range = job->silu_range, auto_mixed = job->auto_mixed, range_search = job->range_search;
  calib_options o = job->o;
  bc_run bc = job->bc;
  auto_mixed_options ao = job->ao;
  range_search_options so = job->so;
  quant_report_options ro = job->ro;
  bc.dir = dir;
  if (!bc.max_images) bc.max_images = o.max_images;
  Onnx__ModelProto *m = NULL;
  uint8_t *folded = NULL;
  size_t folded_size = 0;
  calib_result r;
  memset(&r, 0, sizeof r);
  yrt_status st = onnx_model_load_file(in, &m, err);
  /* recorded before anything reads the model: every in-memory conversion (the observers, --yrt)
   * and the output ONNX then carry it */
  if (!st && preprocess && onnx_model_set_metadata(m, "yolort.preprocess", preprocess))
    st = yrt_set_error(err, YRT_ERR_NOMEM, PROG ": out of memory");
  float_recover_report frep;
  if (!st) st = float_recover(&m, &frep, err);
  char input_line[512] = "";
  if (!st) {
    float_recover_describe(&frep, input_line, sizeof input_line);
    fprintf(stderr, "yolort-quantize: %s", input_line);
  }
  if (!st && float_out) {
    uint8_t *fb = NULL;
    size_t fsize = 0;
    st = onnx_model_pack(m, &fb, &fsize, err);
    if (!st) st = yrt_write_file_atomic(float_out, fb, fsize, err);
    if (!st) printf("wrote %s (float, %zu bytes)\n", float_out, fsize);
    free(fb);
  }
  if (!st) {
    fprintf(stderr, "yolort-quantize: %s, method %s", in, all ? "all" : calib_method_name(o.method));
    if (!all && o.method == YRT_CALIB_PERCENTILE) fprintf(stderr, " %.6g", o.percentile);
    fprintf(stderr, ", %s activations, per-channel int8 weights\n", o.uint8_acts ? "uint8" : "int8");
    st = qdq_fold_batchnorm(m, err);
  }
  /* --float-stem: the high-resolution stem joins the exclusions (docs/accuracy.md) */
  char **stem = NULL;
  int n_stem = 0;
  const char **all_excl = NULL;
  if (!st && float_stem) st = calib_stem_nodes(m, float_stem, &stem, &n_stem, err);
  if (!st && !(all_excl = calloc((size_t)(n_excl + n_stem) + 1, sizeof(char *))))
    st = yrt_set_error(err, YRT_ERR_NOMEM, "out of memory");
  if (!st) {
    for (int i = 0; i < n_excl; i++) all_excl[i] = excl[i];
    for (int i = 0; i < n_stem; i++) all_excl[n_excl + i] = stem[i];
    o.exclude = n_excl + n_stem ? all_excl : NULL;
    if (float_stem)
      fprintf(stderr, "yolort-quantize: --float-stem %d keeps %d nodes in float (%s ... %s)\n", float_stem,
              n_stem, n_stem ? stem[0] : "-", n_stem ? stem[n_stem - 1] : "-");
  }
  /* --int16-stem / --int16: the inputs of those convs written int16 (W8A16, docs/accuracy.md) */
  char **i16 = NULL;
  int n_i16 = 0;
  const char **i16_pat = NULL;
  if (!st && (job->int16_stem || job->n_int16)) {
    if (!(i16_pat = calloc((size_t)job->n_int16 + 1, sizeof(char *))))
      st = yrt_set_error(err, YRT_ERR_NOMEM, "out of memory");
    for (int i = 0; !st && i < job->n_int16; i++) i16_pat[i] = job->int16[i];
    if (!st) st = calib_int16_inputs(m, job->int16_stem, i16_pat, o.exclude, &i16, &n_i16, err);
    if (!st) {
      o.int16_acts = (const char *const *)i16;
      fprintf(stderr, "yolort-quantize: int16 activations (W8A16) on %d conv inputs (%s ... %s)\n", n_i16,
              n_i16 ? i16[0] : "-", n_i16 ? i16[n_i16 - 1] : "-");
    }
  }
  if (!st) st = onnx_model_pack(m, &folded, &folded_size, err);
  if (!st) st = calib_collect(m, dir, &o, &r, err);
  if (!st) fprintf(stderr, "yolort-quantize: %d activations observed on %d images\n", r.n, r.images);
  r.silu_range = silu_range;
  /* --range-search: per-tensor factors on the chosen ranges, kept by every later calib_choose */
  if (!st && range_search) {
    range_search_result rsr;
    so.images = dir;
    so.method = o.method;
    so.percentile = o.percentile;
    st = range_search_run(folded, folded_size, &r, &o, &so, &rsr, err);
    if (!st)
      printf("range search: %d of %d ranges scaled, output error %.2f -> %.2f dB below the signal "
             "(%d images, %d models measured)\n",
             rsr.changed, rsr.searched, rsr.int8_db, rsr.search_db, rsr.images, rsr.evaluations);
  }
  /* --auto-mixed: its choice joins the exclusions, the calibration restricted to match */
  const char **mixed_excl = NULL;
  auto_mixed_result amr;
  memset(&amr, 0, sizeof amr);
  if (!st && auto_mixed) {
    ao.images = dir;
    ao.method = o.method;
    ao.percentile = o.percentile;
    st = auto_mixed_run(folded, folded_size, &r, &o, &ao, &amr, err);
    if (!st) mixed_report_print(stdout, amr.c, amr.n, &amr.s);
    int nk = 0, nb = n_excl + n_stem;
    while (!st && amr.keep[nk]) nk++;
    if (!st && !(mixed_excl = calloc((size_t)(nb + nk) + 1, sizeof(char *))))
      st = yrt_set_error(err, YRT_ERR_NOMEM, "out of memory");
    for (int i = 0; !st && i < nb; i++) mixed_excl[i] = all_excl[i];
    for (int i = 0; !st && i < nk; i++) mixed_excl[nb + i] = amr.keep[i];
    if (!st && nb + nk) o.exclude = mixed_excl;
    Onnx__ModelProto *fm = NULL;
    calib_result sub;
    memset(&sub, 0, sizeof sub);
    if (!st) st = onnx_model_load_memory(folded, folded_size, &fm, err);
    if (!st) st = auto_mixed_subset(fm, &r, &o, &sub, err);
    onnx_model_free(fm);
    if (!st) {
      calib_result_free(&r);
      r = sub;
    }
  }
  ro.images = ro.images ? ro.images : dir;
  ro.eval_images = o.max_images;
  if (ro.sqnr_images > o.max_images && o.max_images > 0) ro.sqnr_images = o.max_images;
  ro.threads = o.threads;
  ro.quiet = o.quiet;
  ro.input_line = input_line;
  ro.keep_fp32 = o.exclude;
  const method_run runs[] = {{YRT_CALIB_MINMAX, 0, "minmax"},
                             {YRT_CALIB_PERCENTILE, 99.99, "percentile"},
                             {YRT_CALIB_PERCENTILE, 99.999, "percentile99999"},
                             {YRT_CALIB_ENTROPY, 0, "entropy"},
                             {YRT_CALIB_MSE, 0, "mse"}};
  if (!st && all) {
    for (size_t k = 0; !st && k < sizeof runs / sizeof runs[0]; k++)
      st = emit(folded, folded_size, &r, &o, &runs[k], &bc, out, yrt_out, &ro, 1, err);
  } else if (!st && weight_all) {
    /* one model per weight scale from the one calibration (they differ in the weights only) */
    const struct { weight_scale_kind k; const char *tag; } ws[] = {
        {WEIGHT_SCALE_MAX, "wmax"}, {WEIGHT_SCALE_MSE, "wmse"}, {WEIGHT_SCALE_GRID, "wgrid"}};
    for (size_t k = 0; !st && k < sizeof ws / sizeof ws[0]; k++) {
      calib_options ok = o;
      ok.weight_scale = (int)ws[k].k;
      method_run one = {o.method, o.percentile, ws[k].tag};
      st = emit(folded, folded_size, &r, &ok, &one, &bc, out, yrt_out, &ro, 1, err);
    }
  } else if (!st) {
    method_run one = {o.method, o.percentile, calib_method_name(o.method)};
    st = emit(folded, folded_size, &r, &o, &one, &bc, out, yrt_out, &ro, 0, err);
  }
  calib_result_free(&r);
  auto_mixed_result_free(&amr);
  free(mixed_excl);
  free(folded);
  onnx_model_free(m);
  free(all_excl);
  for (int i = 0; i < n_i16; i++) free(i16[i]);
  free(i16);
  free(i16_pat);
  for (int i = 0; i < n_stem; i++) free(stem[i]);
  free(stem);
  return st;
}
