/* yolort-inspect MODEL.onnx [--images DIR] [-n N] [--threads T]
 *                [--auto-mixed DB -o out.yrt] [--max-groups G]
 * Operator census by block, fusable patterns and quantization-sensitive ops; with images, the
 * per-layer SQNR of the int8 (QDQ) model against the same model in float (layers under 15 dB
 * flagged), and --auto-mixed: keep the most damaging layers in float until output0 reaches DB. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_num.h"
#include "cli_usage.h"
#include "file_write.h"
#include "census.h"
#include "convert.h"
#include "ir.h"
#include "onnx_reader.h"
#include "onnx_write.h"
#include "sqnr.h"
#include "cli_stdout.h"
#include "cli_version.h"
#include "yolort.h"
#include "yolort_format.h"

#define PROG "yolort-inspect"

static void help(FILE *f) {
  fprintf(f,
          "usage: yolort-inspect MODEL.onnx [--images DIR] [-n N] [--threads T]\n"
          "                      [--auto-mixed DB -o out.yrt] [--max-groups G] [-q]\n"
          "Operator census by block, fusable patterns and quantization-sensitive ops of an ONNX model.\n"
          "Given a .yrt (a converted model) it says so and prints what the runtime runs: input, classes,\n"
          "node kinds, weight and arena bytes (--images and --auto-mixed need the ONNX).\n"
          "  --images DIR      also the per-layer SQNR of the int8 (QDQ) model against it in float, on\n"
          "                    these JPEGs (layers under 15 dB flagged)\n"
          "  -n N              at most N images (default 8)\n"
          "  --threads T       worker threads (" CLI_THREADS_DEFAULT_HELP "; capped at the online CPUs)\n"
          "  --auto-mixed DB   with --images and -o: keep the most damaging layers in float until\n"
          "                    output0's SQNR reaches DB, and write that model\n"
          "  -o OUT.yrt        where --auto-mixed writes its model\n"
          "  --max-groups G    --auto-mixed tries at most G groups of layers (default 12)\n"
          "  -q                no progress on stderr\n" CLI_HELP_TAIL);
}

/* The task (Ultralytics metadata) and, for a segment model, how output0's rows split: boxes,
 * classes, one mask coefficient per prototype of output1. */
static void print_task(const ir_graph *g) {
  const char *task = g->task && g->task[0] ? g->task : "detect";
  printf("task: %s%s", task, g->task && g->task[0] ? "" : " (no task in the metadata)");
  if (strcmp(task, "segment") == 0 && g->n_outputs >= 2) {
    const ir_tensor *o = &g->tensors[g->outputs[0]], *p = &g->tensors[g->outputs[1]];
    int nc = 0;
    for (const char *c = g->class_names; c && *c; c++) nc += *c == '\n' ? 1 : c[1] == '\0';
    if (o->rank == 3 && p->rank == 4)
      printf(": output0 [1, %lld, %lld] = 4 box + %d classes + %lld mask coefficients, output1 [1, %lld, %lld, %lld] "
             "prototypes", (long long)o->dims[1], (long long)o->dims[2], nc, (long long)(o->dims[1] - 4 - nc),
             (long long)p->dims[1], (long long)p->dims[2], (long long)p->dims[3]);
  }
  printf("\n");
}

static int usage(void) { return help(stderr), CLI_EXIT_USAGE; }

static yrt_status print_census(const Onnx__ModelProto *m, yrt_error *err) {
  ir_graph *g = NULL;
  yrt_status st = onnx_model_to_ir(m, &g, err);
  /* a quantize_dynamic export (a classifier's too): its ConvInteger / MatMulInteger chains as the
   * float Conv / MatMul the converter recovers, so the census sees the network */
  if (!st) st = ir_fold_constants(g, err);
  if (!st) st = ir_recover_integer_ops(g, NULL, err);
  if (!st) st = yrt_convert_prepare_float(g, err);
  if (!st) census_print(g, stdout);
  if (!st) print_task(g);
  ir_graph_free(g);
  return st;
}

static yrt_status write_mixed(const Onnx__ModelProto *m, char **keep, const char *path,
                              yrt_error *err) {
  uint8_t *bytes = NULL;
  size_t size = 0;
  ir_graph *g = NULL;
  void *yrt = NULL;
  size_t ysize = 0;
  yrt_convert_options co = {.keep_fp32 = (const char *const *)keep};
  yrt_convert_report rep;
  yrt_status st = onnx_model_pack(m, &bytes, &size, err);
  if (!st) st = onnx_read_memory(bytes, size, &g, err);
  free(bytes);
  if (!st) st = yrt_convert_graph(g, &co, &yrt, &ysize, &rep, err);
  ir_graph_free(g);
  if (!st) {
    st = yrt_write_file_atomic(path, yrt, ysize, err);
  }
  if (!st) {
    yrt_convert_report_print(&rep, stdout);
    printf("wrote %s (%zu bytes)\n", path, ysize);
  }
  free(yrt);
  return st;
}

/* 1 when path starts with the .yrt magic: a converted model, whose ONNX graph (what the census
 * and SQNR read) is gone. */
static int is_yrt_file(const char *path) {
  unsigned char m[4] = {0, 0, 0, 0};
  struct stat sb; /* a FIFO would block fopen: the ONNX reader refuses it by name */
  if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) return 0;
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  const size_t n = fread(m, 1, sizeof m, f);
  fclose(f);
  return n == 4 && (uint32_t)(m[0] | m[1] << 8 | m[2] << 16 | (uint32_t)m[3] << 24) == YRT_MAGIC;
}

/* What a .yrt holds: its summary and its node kinds, as the runtime sees them. */
static yrt_status print_yrt(const char *path, yrt_error *err) {
  yrt_model *m = NULL;
  yrt_session *s = NULL;
  yrt_model_info info;
  yrt_status st = yrt_model_load_file(path, &m, err);
  if (!st) st = yrt_model_get_info(m, &info);
  yrt_session_options so;
  yrt_session_options_init(&so);
  so.num_threads = 1;
  if (!st) st = yrt_session_create(m, &so, &s, err);
  if (!st) {
    const char *task = yrt_model_task(m);
    printf("%s is a .yrt file (converted by yolort-convert): the operator census, fusable patterns and\n"
           "per-layer SQNR read the ONNX it was made from; here is what the runtime runs\n", path);
    printf("task %s, input %dx%d, %d classes%s%s\n", task[0] ? task : "(not recorded)", info.input_w,
           info.input_h, info.num_classes, info.end2end ? ", end-to-end (NMS-free)" : "",
           info.synthetic ? ", SYNTHETIC weights" : "");
    printf("%d nodes (%d int8), %d tensors, weights %zu bytes, arena %zu bytes, file %zu bytes\n", info.num_nodes,
           info.num_int8_nodes, info.num_tensors, info.weight_bytes, info.arena_bytes, info.file_bytes);
    printf("node kinds\n");
    const int n = info.num_nodes;
    for (int i = 0; i < n; i++) {
      const char *k = yrt_session_node_kind(s, i);
      int seen = 0, count = 0;
      for (int j = 0; j < i && !seen; j++) seen = !strcmp(yrt_session_node_kind(s, j), k);
      if (seen) continue;
      for (int j = i; j < n; j++) count += !strcmp(yrt_session_node_kind(s, j), k);
      printf("  %-20s %5d\n", k, count);
    }
  }
  yrt_session_free(s);
  yrt_model_free(m);
  return st;
}

int main(int argc, char **argv) {
  cli_stdout_guard(); /* results never lost with exit 0 */
  if (cli_version_requested(argc, argv, "yolort-inspect")) return 0;
  const char *model = NULL, *out = NULL;
  sqnr_options so = {NULL, 8, cli_default_threads(), 0};
  double budget = 0;
  int max_groups = 12;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) return help(stdout), 0;
    else if (!strcmp(a, "--images") && i + 1 < argc) so.images = argv[++i];
    else if (!strcmp(a, "-n") && i + 1 < argc) {
      if (!cli_parse_int(PROG, "-n", argv[++i], 1, 1000000000, &so.max_images)) return 2;
    } else if (!strcmp(a, "--threads") && i + 1 < argc) {
      if (!cli_parse_threads(PROG, "--threads", argv[++i], &so.threads)) return 2;
    } else if (!strcmp(a, "--auto-mixed") && i + 1 < argc) {
      if (!cli_parse_double(PROG, "--auto-mixed", argv[++i], 0, 1e6, &budget)) return 2;
    } else if (!strcmp(a, "--max-groups") && i + 1 < argc) {
      if (!cli_parse_int(PROG, "--max-groups", argv[++i], 1, 100000, &max_groups)) return 2;
    }
    else if (!strcmp(a, "-o") && i + 1 < argc) out = argv[++i];
    else if (!strcmp(a, "-q")) so.quiet = 1;
    else if (a[0] == '-') return cli_bad_option(PROG, a), usage();
    else if (!model) model = a;
    else return cli_extra_argument(PROG, a), usage();
  }
  if (!model || (budget > 0 && (!out || !so.images))) return usage();
  if (!cli_output_distinct(PROG, "-o", out, "the model", model) ||
      !cli_output_outside(PROG, "-o", out, "image", so.images))
    return 2;

  yrt_error err = {{0}};
  if (is_yrt_file(model)) {
    if (so.images || budget > 0) {
      fprintf(stderr, PROG ": %s is a .yrt file (converted): %s needs the ONNX model it was made from\n", model,
              so.images ? "--images" : "--auto-mixed");
      return 2;
    }
    if (print_yrt(model, &err) != YRT_OK) return fprintf(stderr, PROG ": %s: %s\n", model, err.msg), 1;
    return 0;
  }
  Onnx__ModelProto *m = NULL;
  sqnr_report r;
  memset(&r, 0, sizeof r);
  char **keep = NULL;
  yrt_status st = onnx_model_load_file(model, &m, &err);
  if (!st) st = print_census(m, &err);
  if (!st && so.images) {
    st = sqnr_measure(m, &so, &r, &err);
    if (!st) {
      sqnr_report_print(&r, stdout);
    }
  }
  if (!st && budget > 0) {
    double db = 0;
    st = sqnr_auto_mixed(m, &r, budget, max_groups, &so, &keep, &db, &err);
    if (!st) {
      int n = 0;
      while (keep[n]) n++;
      printf("auto-mixed: %d node(s) kept in float, output0 SQNR %.2f dB (budget %.2f dB)%s\n", n, db,
             budget, db >= budget ? "" : " — budget not met");
      for (int i = 0; i < n; i++) printf("  float: %s\n", keep[i]);
      st = write_mixed(m, keep, out, &err);
    }
  }
  sqnr_free_names(keep);
  sqnr_report_free(&r);
  onnx_model_free(m);
  if (st) {
    fprintf(stderr, "yolort-inspect: %s\n", err.msg);
    return 1;
  }
  return 0;
}
