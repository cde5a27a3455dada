/* yolort-quantize model.onnx CALIB_DIR -o out.qdq.onnx [--yrt out.yrt] [--float-out float.onnx]
 *   [--method minmax|percentile|entropy|mse|all] [--percentile 99.99] [--activations int8|uint8]
 *   [--exclude NODE|PREFIX*]... [--float-stem STRIDE] [--int16-stem N] [--int16 CONV|PREFIX*]...
 *   [--no-silu-range]
 *   [--no-concat-ties] [--float-head-weights] [-n MAX_IMAGES] [--threads N] [-q]
 *   [--bias-correct | --no-bias-correct] [--bias-correct-passes N] [--bias-correct-images N]
 *   [--bias-correct-output] [--bias-correct-global | --bias-correct-local]
 *   [--bias-correct-wave LEVELS] [--weight-scale max|mse|grid|all]
 *   [--report FILE [--report-labels DIR] [--report-images DIR]]
 *   [--auto-mixed [--budget-ms X | --budget-pct P] [--auto-mixed-images N] [--auto-mixed-runs N]
 *    [--auto-mixed-threads N] [--auto-mixed-timed N]]
 *   [--range-search [--range-search-images N] [--range-search-passes N]] [--preprocess SPEC]
 * The input may be FP32 or an int8 export (onnxruntime quantize_dynamic, static QDQ, QOperator):
 * the float network is recovered first (float_recover.h; --float-out writes it) and recalibrated.
 * Post-training quantization with our own FP32 engine as the observer. The QDQ ONNX it writes
 * follows onnxruntime's quantize_static layout (onnxruntime runs it too); --yrt also converts it.
 * --method all calibrates once and writes one model per method (out.<method>.qdq.onnx), for
 * comparing them with yolort-eval.
 * --bias-correct (bias_correct.h) measures each int8 conv's per-channel mean shift on the
 * calibration images in the quantized model and folds it into the conv's int32 bias; off by
 * default, it did not improve yolo11n's mAP beyond noise (docs/accuracy.md). --weight-scale mse:
 * per-channel weight scales minimising squared error (weight_scale.h), also off by default;
 * --weight-scale grid: weights already on an int8 grid keep their exact integers (weight_scale.h);
 * --weight-scale all writes one model per weight scale from the one calibration.
 * --exclude keeps nodes in float (a trailing '*' matches a name prefix: a whole block);
 * --float-stem S keeps the nodes computed only from stride <= S feature maps (tools/ir/stem.c):
 * S = 8 is the accuracy setting for YOLO11 (no measurable mAP loss, ~1.6x the latency).
 * Conv outputs only a SiLU reads get the range its lookup table can use (silu_range.h);
 * --no-silu-range gives them their calibrated range. A Concat input that only the Concat reads
 * takes the Concat output's parameters (one rounding instead of two; the Concat then copies it);
 * --no-concat-ties keeps their own. The convs whose output only the float head reads keep a float
 * output but get int8 weights (the converter runs them int8 with a float output);
 * --float-head-weights keeps their weights float too (they then run in float).
 * --report FILE: per-layer SQNR of the result and, with --report-labels, the classes most hurt
 * (quant_report.h), on --report-images (default: CALIB_DIR).
 * --auto-mixed keeps in float the int8 layers whose float version removes the most output error
 * per measured millisecond, within a latency budget (auto_mixed.h), and prints what it chose and
 * what it cost.
 * This file parses and checks the arguments; the run is one library call (quant/quantize.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_num.h"
#include "cli_stdout.h"
#include "cli_usage.h"
#include "cli_version.h"
#include "file_write.h"
#include "ir_preprocess.h"
#include "quantize.h"
#include "weight_scale.h"

static void help(FILE *f) {
  fprintf(f,
          "usage: yolort-quantize model.onnx CALIB_DIR -o out.qdq.onnx [options]\n"
          "Post-training quantization: calibrates activation ranges on the JPEGs of CALIB_DIR and writes\n"
          "a QDQ ONNX (onnxruntime's layout), optionally converted to .yrt. model.onnx is FP32 or an int8\n"
          "export (quantize_dynamic, static QDQ, QOperator): its float network is recovered and\n"
          "recalibrated. Accuracy of each option: docs/accuracy.md.\n"
          "  -o OUT.qdq.onnx          the quantized model (required)\n"
          "  --yrt OUT.yrt            also convert it to a .yrt\n"
          "  --float-out F.onnx       also write the float model quantized (recovered from an int8 input)\n"
          "  --method M               range calibration: minmax, percentile (default), entropy, mse, or all\n"
          "                           (all: one model per method, the method's name inserted in OUT)\n"
          "  --percentile P           percentile of |x| kept by --method percentile, in (50, 100]\n"
          "                           (default 99.999)\n"
          "  --activations T          int8 (default) or uint8 activations\n"
          "  --exclude NODE|PREFIX*   keep this node (or every node whose name starts with PREFIX) in float;\n"
          "                           repeatable; an exclusion matching no node is an error\n"
          "  --float-stem S           keep in float the nodes computed only from maps of stride <= S\n"
          "                           (1..64; 8 = the accuracy setting, ~1.6x slower; 0 = off, default)\n"
          "  --int16-stem N           the first N convs read int16 activations (W8A16; their producers\n"
          "                           write int16 after the SiLU); docs/accuracy.md\n"
          "  --int16 CONV|PREFIX*     this conv (or every conv whose name starts with PREFIX) reads int16\n"
          "  --no-silu-range          plain ranges for conv outputs only a SiLU reads (default: SiLU-aware)\n"
          "  --no-concat-ties         do not give a Concat's inputs the Concat's parameters\n"
          "  --float-head-weights     float weights for the head's last convs (default: int8 weights)\n"
          "  -n N                     calibrate on at most N images (default: all)\n"
          "  --threads N              threads for calibration runs (" CLI_THREADS_DEFAULT_HELP ")\n"
          "  -q                       quiet: no progress on stderr\n"
          "  --bias-correct           correct conv biases for the int8 error (local, one pass; default off)\n"
          "  --no-bias-correct        no bias correction (the default)\n"
          "  --bias-correct-passes N  passes of bias correction, 0..10 (the residual re-measured each pass)\n"
          "  --bias-correct-images N  images used to measure the correction (default: the calibration set)\n"
          "  --bias-correct-output    measure on the observed int8 output instead of the accumulator\n"
          "  --bias-correct-global    correct against the float network, one conv level per wave\n"
          "  --bias-correct-local     correct each conv on its own int8 inputs (the default kind)\n"
          "  --bias-correct-wave L    conv levels corrected per wave with --bias-correct-global\n"
          "  --weight-scale K         per-channel weight scale: max (default), mse (clip minimising the\n"
          "                           squared error), grid (weights already on an int8 grid, e.g.\n"
          "                           recovered from an int8 export, kept exact; others max) or all\n"
          "                           (one model per scale from one calibration, wmax / wmse / wgrid\n"
          "                           inserted in OUT)\n"
          "  --report FILE            write a report: per-layer SQNR (int8 vs float, 8 images) and, with\n"
          "                           --report-labels, mAP of float and int8 and the 10 classes most hurt\n"
          "  --report-labels DIR      YOLO labels of the report's images (evaluated: all, or -n of them)\n"
          "  --report-images DIR      the report's images (default: CALIB_DIR)\n"
          "  --auto-mixed             keep in float the layers that remove the most output error per ms,\n"
          "                           measured, within a latency budget; prints the choice and its cost\n"
          "  --budget-ms X            the budget: X ms over the all-int8 time (0..100000)\n"
          "  --budget-pct P           the budget: P %% of the all-int8 time (0..1000; default 15)\n"
          "  --auto-mixed-images N    images the output error is measured on (default 8, from CALIB_DIR)\n"
          "  --auto-mixed-runs N      profiled runs per latency comparison, each node's fastest (default 7)\n"
          "  --auto-mixed-threads N   threads of the profiled runs (default 1: steadiest on a busy machine)\n"
          "  --auto-mixed-timed N     how many of the most beneficial layers get timed (default 48; 0: all)\n"
          "  --range-search           scale each activation range by the factor that most lowers the output\n"
          "                           error against the float model (range_search.h), before --auto-mixed\n"
          "  --range-search-images N  images the error is measured on (default 16, from CALIB_DIR)\n"
          "  --range-search-passes N  sweeps over the tensors, 1..10 (default 1)\n"
          "  --preprocess SPEC        the model's preprocessing (yolort-convert --preprocess): calibration\n"
          "                           images go in that way, and the output ONNX records it\n"
          "                           (metadata_props yolort.preprocess) for the .yrt\n"
          "  --version                print the version and exit\n"
          "  -h, --help               print this help and exit\n");
}

static int usage(void) {
  help(stderr);
  return 2;
}

/* usage() after freeing the exclusion list (a parse error or --help must not leak it). */
static int usage_free(const char **excl) {
  free((void *)excl);
  return usage();
}

#define PROG "yolort-quantize"

int main(int argc, char **argv) {
  cli_stdout_guard(); /* results never lost with exit 0 */
  if (cli_version_requested(argc, argv, "yolort-quantize")) return 0;
  const char *in = NULL, *dir = NULL, *out = NULL, *yrt_out = NULL, *float_out = NULL, *preprocess = NULL;
  quant_report_options ro = {.sqnr_images = 8};
  calib_options o = {YRT_CALIB_PERCENTILE, 99.999, 0, NULL, 0, cli_default_threads(), 0, 0, 0, 0, NULL}; /* best measured: docs/accuracy.md */
  int all = 0, float_stem = 0, silu_range = 1, int16_stem = 0, n_i16 = 0;
  bc_run bc = {.passes = 0, .wave_levels = 1}; /* default off: docs/accuracy.md */
  int auto_mixed = 0, budget_given = 0, weight_all = 0;
  auto_mixed_options ao = {.budget_ms = -1, .budget_pct = 15, .max_images = 8, .runs = 7, .timed = 48,
                         .threads = 1};
  int range_search = 0;
  range_search_options so = {.max_images = 16, .min_gain = 0.002, .passes = 1};
  /* one block: the --exclude names, then (i16) the --int16 ones; free(excl) releases both */
  const char **excl = calloc(2 * ((size_t)argc + 1), sizeof(char *));
  int n_excl = 0;
  if (!excl) return 1;
  const char **i16 = excl + argc + 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      help(stdout);
      free(excl);
      return 0;
    } else if (!strcmp(a, "-o") && i + 1 < argc) out = argv[++i];
    else if (!strcmp(a, "--yrt") && i + 1 < argc) yrt_out = argv[++i];
    else if (!strcmp(a, "--float-out") && i + 1 < argc) float_out = argv[++i];
    else if (!strcmp(a, "--preprocess") && i + 1 < argc) {
      ir_preprocess chk;
      char msg[256];
      preprocess = argv[++i];
      if (ir_preprocess_parse(preprocess, &chk, msg, sizeof msg) != 0) {
        fprintf(stderr, PROG ": %s\n", msg);
        free(excl);
        return 2;
      }
    }
    else if (!strcmp(a, "--report") && i + 1 < argc) ro.path = argv[++i];
    else if (!strcmp(a, "--report-labels") && i + 1 < argc) ro.labels = argv[++i];
    else if (!strcmp(a, "--report-images") && i + 1 < argc) ro.images = argv[++i];
    else if (!strcmp(a, "--method") && i + 1 < argc) {
      if (!strcmp(argv[++i], "all")) all = 1;
      else if (calib_method_parse(argv[i], &o.method))
        return cli_bad_value(PROG, "--method", argv[i], "minmax, percentile, entropy, mse or all"), usage_free(excl);
    } else if (!strcmp(a, "--percentile") && i + 1 < argc) {
      if (!cli_parse_double(PROG, "--percentile", argv[++i], 50, 100, &o.percentile)) return usage_free(excl);
    }
    else if (!strcmp(a, "--activations") && i + 1 < argc) {
      const char *t = argv[++i];
      if (!strcmp(t, "uint8")) o.uint8_acts = 1;
      else if (strcmp(t, "int8")) return cli_bad_value(PROG, "--activations", t, "int8 or uint8"), usage_free(excl);
    } else if (!strcmp(a, "--exclude") && i + 1 < argc) excl[n_excl++] = argv[++i];
    else if (!strcmp(a, "--int16") && i + 1 < argc) i16[n_i16++] = argv[++i];
    else if (!strcmp(a, "--int16-stem") && i + 1 < argc) {
      if (!cli_parse_int(PROG, "--int16-stem", argv[++i], 0, 10000, &int16_stem)) return usage_free(excl);
    } else if (!strcmp(a, "--float-stem") && i + 1 < argc) {
      if (!cli_parse_int(PROG, "--float-stem", argv[++i], 0, 64, &float_stem)) return usage_free(excl);
    }
    else if (!strcmp(a, "--no-silu-range")) silu_range = 0;
    else if (!strcmp(a, "--no-concat-ties")) o.no_concat_ties = 1;
    else if (!strcmp(a, "--float-head-weights")) o.float_head_weights = 1;
    else if (!strcmp(a, "-n") && i + 1 < argc) {
      if (!cli_parse_int(PROG, "-n", argv[++i], 1, 1000000000, &o.max_images)) return usage_free(excl);
    } else if (!strcmp(a, "--threads") && i + 1 < argc) {
      if (!cli_parse_threads(PROG, "--threads", argv[++i], &o.threads)) return usage_free(excl);
    }
    else if (!strcmp(a, "-q")) o.quiet = 1;
    else if (!strcmp(a, "--bias-correct")) bc.passes = bc.passes ? bc.passes : 1;
    else if (!strcmp(a, "--no-bias-correct")) bc.passes = 0;
    else if (!strcmp(a, "--bias-correct-passes") && i + 1 < argc) {
      if (!cli_parse_int(PROG, "--bias-correct-passes", argv[++i], 0, 10, &bc.passes)) return usage_free(excl);
    } else if (!strcmp(a, "--bias-correct-images") && i + 1 < argc) {
      if (!cli_parse_int(PROG, "--bias-correct-images", argv[++i], 0, 1000000000, &bc.max_images))
        return usage_free(excl);
    }
    else if (!strcmp(a, "--bias-correct-output")) bc.observed = 1, bc.passes = bc.passes ? bc.passes : 1;
    else if (!strcmp(a, "--bias-correct-global")) bc.global = 1, bc.passes = bc.passes ? bc.passes : 1;
    else if (!strcmp(a, "--bias-correct-local")) bc.global = 0;
    else if (!strcmp(a, "--bias-correct-wave") && i + 1 < argc) {
      if (!cli_parse_int(PROG, "--bias-correct-wave", argv[++i], 0, 64, &bc.wave_levels)) return usage_free(excl);
    }
    else if (!strcmp(a, "--auto-mixed")) auto_mixed = 1;
    else if (!strcmp(a, "--range-search")) range_search = 1;
    else if (!strcmp(a, "--range-search-images") && i + 1 < argc) {
      if (!cli_parse_int(PROG, "--range-search-images", argv[++i], 1, 100000, &so.max_images))
        return usage_free(excl);
    } else if (!strcmp(a, "--range-search-passes") && i + 1 < argc) {
      if (!cli_parse_int(PROG, "--range-search-passes", argv[++i], 1, 10, &so.passes)) return usage_free(excl);
    }
    else if (!strcmp(a, "--budget-ms") && i + 1 < argc) {
      if (!cli_parse_double(PROG, "--budget-ms", argv[++i], 0, 100000, &ao.budget_ms)) return usage_free(excl);
      budget_given |= 1;
    } else if (!strcmp(a, "--budget-pct") && i + 1 < argc) {
      if (!cli_parse_double(PROG, "--budget-pct", argv[++i], 0, 1000, &ao.budget_pct)) return usage_free(excl);
      budget_given |= 2;
    } else if (!strcmp(a, "--auto-mixed-images") && i + 1 < argc) {
      if (!cli_parse_int(PROG, "--auto-mixed-images", argv[++i], 1, 100000, &ao.max_images)) return usage_free(excl);
    } else if (!strcmp(a, "--auto-mixed-runs") && i + 1 < argc) {
      if (!cli_parse_int(PROG, "--auto-mixed-runs", argv[++i], 1, 1000, &ao.runs)) return usage_free(excl);
    } else if (!strcmp(a, "--auto-mixed-threads") && i + 1 < argc) {
      if (!cli_parse_threads(PROG, "--auto-mixed-threads", argv[++i], &ao.threads)) return usage_free(excl);
    } else if (!strcmp(a, "--auto-mixed-timed") && i + 1 < argc) {
      if (!cli_parse_int(PROG, "--auto-mixed-timed", argv[++i], 0, 100000, &ao.timed)) return usage_free(excl);
    }
    else if (!strcmp(a, "--weight-scale") && i + 1 < argc) {
      const char *t = argv[++i];
      if (!strcmp(t, "mse")) o.weight_scale = WEIGHT_SCALE_MSE;
      else if (!strcmp(t, "grid")) o.weight_scale = WEIGHT_SCALE_GRID;
      else if (!strcmp(t, "all")) weight_all = 1;
      else if (strcmp(t, "max")) return cli_bad_value(PROG, "--weight-scale", t, "max, mse, grid or all"), usage_free(excl);
    }
    else if (a[0] == '-') return cli_bad_option(PROG, a), usage_free(excl);
    else if (!in) in = a;
    else if (!dir) dir = a;
    else return cli_extra_argument(PROG, a), usage_free(excl);
  }
  if (!in || !dir || !out)
    return fprintf(stderr, "%s: needs model.onnx, CALIB_DIR and -o out.qdq.onnx\n", PROG), usage_free(excl);
  { /* no output may be an input (or another output): checked before anything is read */
    const char *oflag[4] = {"-o", "--yrt", "--float-out", "--report"};
    const char *opath[4] = {out, yrt_out, float_out, ro.path};
    int ok = 1;
    for (int k = 0; k < 4 && ok; k++) {
      ok = cli_output_distinct(PROG, oflag[k], opath[k], "the model", in) &&
           cli_output_outside(PROG, oflag[k], opath[k], "calibration file", dir) &&
           cli_output_outside(PROG, oflag[k], opath[k], "--report-labels file", ro.labels) &&
           cli_output_outside(PROG, oflag[k], opath[k], "--report-images file", ro.images);
      for (int j = 0; j < k && ok; j++) ok = cli_output_distinct(PROG, oflag[k], opath[k], oflag[j], opath[j]);
    }
    if (!ok) {
      free(excl);
      return 2;
    }
  }
  if ((ro.labels || ro.images) && !ro.path) {
    fprintf(stderr, "yolort-quantize: --report-labels / --report-images need --report FILE\n");
    free(excl);
    return 2;
  }
  if (o.percentile <= 50 || o.percentile > 100) {
    fprintf(stderr, "yolort-quantize: --percentile must be in (50, 100]\n");
    free(excl);
    return 2;
  }
  if (float_stem < 0 || float_stem > 64) {
    fprintf(stderr, "yolort-quantize: --float-stem must be a stride in [1, 64] (0 = off)\n");
    free(excl);
    return 2;
  }
  if (bc.passes < 0 || bc.passes > 10 || bc.max_images < 0 || bc.wave_levels < 0) {
    fprintf(stderr, "yolort-quantize: --bias-correct-passes must be in [0, 10], --bias-correct-images "
                    "and --bias-correct-wave >= 0\n");
    free(excl);
    return 2;
  }
  if (range_search && all) {
    fprintf(stderr, "yolort-quantize: --range-search searches for one method: not with --method all\n");
    free(excl);
    return 2;
  }
  if (weight_all && all) {
    fprintf(stderr, "yolort-quantize: --weight-scale all and --method all: give one of them\n");
    free(excl);
    return 2;
  }
  if (budget_given == 3 || (budget_given && !auto_mixed) || (auto_mixed && all)) {
    fprintf(stderr, "yolort-quantize: %s\n",
            budget_given == 3 ? "give one of --budget-ms and --budget-pct, not both"
            : !auto_mixed     ? "--budget-ms / --budget-pct need --auto-mixed"
                              : "--auto-mixed chooses for one method: not with --method all");
    free(excl);
    return 2;
  }
  const quantize_job job = {in, dir, out, yrt_out, float_out, preprocess, excl, n_excl, o, all, weight_all,
                            float_stem, silu_range, bc, auto_mixed, ao, range_search, so, ro,
                            int16_stem, i16, n_i16};
  yrt_error err = {{0}};
  const yrt_status st = quantize_run(&job, &err);
  free(excl);
  if (st) {
    fprintf(stderr, "yolort-quantize: %s\n", err.msg);
    return 1;
  }
  return 0;
}
