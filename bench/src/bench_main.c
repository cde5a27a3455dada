/* bench_main.c — yolort-bench: latency, end-to-end split, memory and op profile of a .yrt
 * model through the public API only (yolort.h). See bench_usage() and docs/performance.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bench_convs.h"
#include "bench_opts.h"
#include "bench_report.h"
#include "bench_run.h"
#include "bench_streams.h"
#include "bench_util.h"
#include "cli_stdout.h"
#include "yolort.h"

#if defined(YOLORT_HAVE_CONVERT) && defined(__has_include)
#if __has_include("convert.h")
#include "convert.h"
#define BENCH_CAN_CONVERT 1
#endif
#endif

/* A model opened for benchmarking, plus its raw .yrt bytes when the conv list is needed. */
typedef struct opened_model {
  char path[1024];
  yrt_model *model;
  void *yrt;        /* .yrt bytes (converted, or read for --convs); may be NULL */
  size_t yrt_size;
  int converted;
  double load_ms;
} opened_model;

static int is_onnx(const char *path) {
  size_t n = strlen(path);
  return n >= 5 && strcasecmp(path + n - 5, ".onnx") == 0;
}

/* MODEL with "{S}" replaced by the size (size 0: unchanged). */
static int model_path(const char *pattern, int size, char *out, size_t cap) {
  const char *p = strstr(pattern, "{S}");
  int n;
  if (!p || size <= 0) n = snprintf(out, cap, "%s", pattern);
  else n = snprintf(out, cap, "%.*s%d%s", (int)(p - pattern), pattern, size, p + 3);
  return (n < 0 || (size_t)n >= cap) ? -1 : 0;
}

static yrt_status open_model(const char *path, int need_bytes, opened_model *m, yrt_error *err) {
  memset(m, 0, sizeof(*m));
  snprintf(m->path, sizeof m->path, "%s", path);
  double t0 = bench_now_ms();
  yrt_status st;
  if (is_onnx(path)) {
#ifdef BENCH_CAN_CONVERT
    st = yrt_convert_onnx_file(path, NULL, &m->yrt, &m->yrt_size, NULL, err);
    if (st != YRT_OK) return st;
    m->converted = 1;
    st = yrt_model_load_memory(m->yrt, m->yrt_size, 0, &m->model, err);
#else
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED,
                         "%s: this yolort-bench was built without the converter; run "
                         "yolort-convert first and pass the .yrt",
                         path);
#endif
  } else {
    st = yrt_model_load_file(path, &m->model, err);
  }
  m->load_ms = bench_now_ms() - t0;
  if (st != YRT_OK) return st;
  if (need_bytes && !m->yrt) {
    char msg[512];
    if (bench_read_file(path, &m->yrt, &m->yrt_size, msg, sizeof msg) != 0)
      return yrt_set_error(err, YRT_ERR_IO, "%s", msg);
  }
  return YRT_OK;
}

static void close_model(opened_model *m) {
  yrt_model_free(m->model); /* before the buffer it may use in place */
  free(m->yrt);
  memset(m, 0, sizeof(*m));
}

static int dump_convs(const opened_model *m, const char *dest) {
  bench_conv *convs = NULL;
  int n = 0;
  char msg[512];
  if (bench_yrt_convs(m->yrt, m->yrt_size, &convs, &n, msg, sizeof msg) != 0) {
    fprintf(stderr, "yolort-bench: %s: %s\n", m->path, msg);
    return 1;
  }
  FILE *f = strcmp(dest, "-") == 0 ? stdout : fopen(dest, "w");
  if (!f) {
    fprintf(stderr, "yolort-bench: cannot write %s\n", dest);
    free(convs);
    return 1;
  }
  bench_convs_write(f, convs, n);
  free(convs);
  if (f == stdout) return 0; /* checked at exit (cli_stdout.h) */
  int bad = fflush(f) != 0 || ferror(f);
  if (fclose(f) != 0) bad = 1;
  if (bad) fprintf(stderr, "yolort-bench: writing %s failed: the layer shapes are lost\n", dest);
  return bad;
}

/* The model's part of the report, the same in every mode. */
static bench_model_report model_report(const opened_model *om, const yrt_model_info *info) {
  bench_model_report rep = {
      .path = om->path,
      .file_bytes = bench_file_size(om->path),
      .converted = om->converted,
      .yrt_bytes = info->file_bytes,
      .weight_bytes = info->weight_bytes,
      .arena_bytes = info->arena_bytes,
      .nodes = info->num_nodes,
      .int8_nodes = info->num_int8_nodes,
      .synthetic = info->synthetic,
      .load_ms = om->load_ms,
  };
  return rep;
}

/* --streams: every threads x streams pair of one model; prints the frames/s table. */
static int bench_model_streams(const bench_opts *o, opened_model *om, int first) {
  yrt_model_info info;
  if (yrt_model_get_info(om->model, &info) != YRT_OK) {
    fprintf(stderr, "yolort-bench: %s: cannot read model info\n", om->path);
    return 1;
  }
  int n = o->n_threads * o->n_streams, done = 0, rc = 0;
  bench_stream_result *res = calloc((size_t)n, sizeof *res);
  if (!res) {
    fprintf(stderr, "yolort-bench: out of memory\n");
    return 1;
  }
  for (int t = 0; t < o->n_threads && !rc; t++)
    for (int k = 0; k < o->n_streams && !rc; k++) {
      yrt_error err = {{0}};
      yrt_status st = bench_run_streams(om->model, o, o->streams[k], o->threads[t], &res[done], &err);
      if (st != YRT_OK) {
        fprintf(stderr, "yolort-bench: %s (%d streams, threads %d): %s: %s\n", om->path,
                o->streams[k], o->threads[t], yrt_status_name(st), err.msg);
        rc = 1;
      } else {
        done++;
      }
    }
  if (o->json) {
    if (!first) fputc(',', stdout);
    const bench_model_report rep = model_report(om, &info);
    bench_print_json_streams(stdout, &rep, info.input_w, info.input_h, o->warmup, o->runs, res, done);
  } else {
    printf("model %s  (%d warm-up + %d runs per stream)\n", om->path, o->warmup, o->runs);
    bench_print_streams(res, done);
  }
  free(res);
  return rc;
}

/* Every threads x batch configuration of one model; prints its report. */
static int bench_model(const bench_opts *o, opened_model *om, const bench_input *base, int first,
                       int wanted_size) {
  yrt_model_info info;
  yrt_error err = {{0}};
  if (yrt_model_get_info(om->model, &info) != YRT_OK) {
    fprintf(stderr, "yolort-bench: %s: cannot read model info\n", om->path);
    return 1;
  }
  if (wanted_size > 0 && (info.input_w != wanted_size || info.input_h != wanted_size)) {
    fprintf(stderr, "yolort-bench: %s has input %dx%d, not %d (convert a model at that size, or "
                    "put {S} in the model path)\n",
            om->path, info.input_w, info.input_h, wanted_size);
    return 1;
  }
  if (info.synthetic && !o->json)
    printf("NOTICE: %s is a synthetic model: its speed is real, its detections are meaningless\n",
           om->path);
  else if (info.synthetic)
    fprintf(stderr, "NOTICE: %s is synthetic: detections are meaningless\n", om->path);

  bench_input in = *base;
  bench_conv *convs = NULL;
  int n_convs = 0;
  if (o->convs && om->yrt) {
    char msg[512];
    if (bench_yrt_convs(om->yrt, om->yrt_size, &convs, &n_convs, msg, sizeof msg) != 0)
      fprintf(stderr, "yolort-bench: --convs: %s (skipped)\n", msg);
    in.convs = convs;
    in.n_convs = n_convs;
  }
  int n_cfg = o->n_threads * o->n_batch;
  bench_result *res = calloc((size_t)n_cfg, sizeof *res);
  if (!res) {
    free(convs);
    fprintf(stderr, "yolort-bench: out of memory\n");
    return 1;
  }
  int rc = 0, done = 0;
  for (int t = 0; t < o->n_threads && !rc; t++) {
    for (int b = 0; b < o->n_batch && !rc; b++) {
      yrt_status st = bench_run_config(om->model, o, &in, o->threads[t], o->batch[b], &res[done], &err);
      done++;
      if (st != YRT_OK) {
        fprintf(stderr, "yolort-bench: %s (threads %d, batch %d): %s: %s\n", om->path,
                o->threads[t], o->batch[b], yrt_status_name(st), err.msg);
        rc = 1;
        done--;
        bench_result_free(&res[done]);
      }
    }
  }
  bench_model_report rep = model_report(om, &info);
  rep.convs = convs;
  rep.n_convs = n_convs;
  rep.results = res;
  rep.n_results = done;
  if (o->json) {
    if (!first) fputc(',', stdout);
    bench_print_json_model(stdout, &rep, o->convs);
  } else {
    bench_print_table(stdout, &rep, o->convs);
  }
  for (int i = 0; i < done; i++) bench_result_free(&res[i]);
  free(res);
  free(convs);
  return rc;
}

int main(int argc, char **argv) {
  cli_stdout_guard(); /* results never lost with exit 0 */
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--version")) {
      printf("yolort-bench yolort %s\n", yrt_version());
      return 0;
    }
  bench_opts o;
  char msg[512];
  int prc = bench_parse_args(argc, argv, &o, msg, sizeof msg);
  if (prc == 1) return 0;
  if (prc != 0) {
    fprintf(stderr, "yolort-bench: %s\n", msg);
    bench_usage(stderr, argv[0]);
    return 2;
  }
  bench_input in;
  memset(&in, 0, sizeof in);
  void *jpeg = NULL;
  if (o.image) {
    if (bench_read_file(o.image, &jpeg, &in.jpeg_size, msg, sizeof msg) != 0) {
      fprintf(stderr, "yolort-bench: %s\n", msg);
      return 1;
    }
    in.jpeg = jpeg;
    in.frame = o.frame;
  }
  bench_cpu cpu;
  bench_cpu_read(&cpu);
  if (o.json) {
    printf("{\"tool\":\"yolort-bench\",\"cpu\":{\"model\":");
    bench_print_json_string(stdout, cpu.model);
    printf(",\"cpus\":%d,\"avx2\":%d,\"avx512f\":%d,\"avx512_vnni\":%d,\"avx_vnni\":%d,\"amx_int8\":%d}",
           cpu.online, cpu.avx2, cpu.avx512f, cpu.avx512_vnni, cpu.avx_vnni, cpu.amx_int8);
    printf(",\"isa_cap\":");
    if (o.isa) bench_print_json_string(stdout, o.isa);
    else printf("null");
    printf(",\"image\":");
    if (o.image) bench_print_json_string(stdout, o.image);
    else printf("null");
    printf(",\"models\":[");
  } else if (!o.dump_convs) {
    printf("yolort-bench  cpu: %s (%d online; avx2 %d avx512f %d avx512_vnni %d avx_vnni %d amx_int8 %d)\n",
           cpu.model, cpu.online, cpu.avx2, cpu.avx512f, cpu.avx512_vnni, cpu.avx_vnni, cpu.amx_int8);
    if (o.isa) printf("isa cap: %s (our kernels; XNNPACK keeps the CPU's best)\n", o.isa);
  }
  int rc = 0;
  int n_sizes = o.n_size > 0 ? o.n_size : 1;
  for (int si = 0; si < n_sizes; si++) {
    int size = o.n_size > 0 ? o.size[si] : 0;
    char path[1024];
    if (model_path(o.model, size, path, sizeof path) != 0) {
      fprintf(stderr, "yolort-bench: model path too long\n");
      rc = 1;
      break;
    }
    opened_model om;
    yrt_error err = {{0}};
    yrt_status st = open_model(path, o.convs || o.dump_convs, &om, &err);
    if (st != YRT_OK) {
      fprintf(stderr, "yolort-bench: %s: %s\n", yrt_status_name(st), err.msg);
      close_model(&om);
      rc = 1;
      continue;
    }
    if (o.dump_convs) rc |= dump_convs(&om, o.dump_convs);
    else if (o.n_streams > 0) rc |= bench_model_streams(&o, &om, si == 0);
    else rc |= bench_model(&o, &om, &in, si == 0, size);
    close_model(&om);
  }
  if (o.json) printf("]}\n");
  free(jpeg);
  return rc;
}
