/* yolort-convert — ONNX (FP32 or QDQ) -> .yrt model file.
 *   yolort-convert in.onnx -o model.yrt [--keep-fp32 NODE]... [--synthetic] [--exact-qdq]
 *                  [--no-fuse-head] [--no-views] [--no-ties] [--float-add] [--size N|HxW]
 *                  [--no-qat-propagate] [--preprocess SPEC] [--anchors W,H,...] [--kpt-shape N,D]
 *                  [--names FILE|coco] [--target NAME] [-v]
 * Prints what the model became: ops by kind int8/fp32, float nodes and why, weight and peak
 * arena bytes. Errors: message on stderr, exit 1; usage errors (naming the argument) exit 2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "cli_num.h"
#include "cli_usage.h"
#include "cli_stdout.h"
#include "cli_version.h"
#include "class_names.h"
#include "file_write.h"
#include "ir_preprocess.h"
#include "pack_target.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: yolort-convert IN.onnx -o OUT.yrt [--keep-fp32 NODE]... [--synthetic] [--exact-qdq]\n"
          "                      [--no-fuse-head] [--no-views] [--no-ties] [--float-add] [--size N|HxW]\n"
          "                      [--preprocess SPEC] [--anchors W,H,...] [--kpt-shape N,D]\n"
          "                      [--names FILE|coco] [--target NAME]\n"
          "                      [--no-qat-propagate] [-v]\n"
          "  --keep-fp32 NODE  run this ONNX node in float (repeatable)\n"
          "  --synthetic       mark the model as having generated weights\n"
          "  --exact-qdq       keep the QDQ graph's quantization in the head too (reproduces\n"
          "                    onnxruntime; default: the detection head runs in float)\n"
          "  --no-fuse-head    keep the Detect head's decode (DFL, dist2bbox, sigmoid) as separate\n"
          "                    nodes instead of one detect_decode node\n"
          "  --no-views        copy every Concat input and Split output (default: convs write into\n"
          "                    Concat buffers and read Split halves in place where they can)\n"
          "  --no-ties         keep a QDQ file's own ranges on Concat inputs and Split outputs (default:\n"
          "                    they take the Concat's, so nothing is requantized twice; not under\n"
          "                    --exact-qdq)\n"
          "  --float-add       int8 Adds as onnxruntime computes them (dequantize, add, quantize; default:\n"
          "                    fixed point, one integer multiply-add, one step apart on near-halves)\n"
          "  --size N|HxW      input size of a model exported with dynamic axes (default: the\n"
          "                    model's imgsz metadata); e.g. --size 640, --size 480x864\n"
          "  --preprocess SPEC how an image becomes the input, stored in the .yrt (default: the\n"
          "                    recognised family's, the metadata's or rgb,scale=1/255,center,letterbox,\n"
          "                    pad=114); comma-separated: rgb|bgr scale=1/255|1|X center|topleft\n"
          "                    letterbox|stretch|crop pad=N mean=A:B:C std=A:B:C,\n"
          "                    e.g. --preprocess bgr,scale=1,topleft (YOLOX)\n"
          "  --no-qat-propagate  in a QAT / TensorRT-style QDQ graph (Q/DQ on conv inputs only), keep\n"
          "                    the float tensors between convs float (default: they take the\n"
          "                    quantization of the Q their consumers apply, as TensorRT does)\n"
          "  --anchors W,H,...  anchor sizes in input pixels, grid by grid (stride 8 first), for a\n"
          "                    YOLOv5-style head whose file holds none (raw sigmoid maps, as\n"
          "                    YOLOv5-Lite); default: YOLOv5's anchors, said in the summary\n"
          "  --kpt-shape N,D   a pose head's N keypoints of D values (2: x, y; 3: x, y, conf), for a\n"
          "                    file whose metadata does not say (YOLO-Pose); default: the metadata's,\n"
          "                    else read off the head (x, y, conf each), said in the summary\n"
          "  --names FILE|coco class names stored in the .yrt, one per line in FILE, or the 80 COCO\n"
          "                    names (for exports without names: YOLOv5-Lite, YOLOX, legacy files);\n"
          "                    replaces the metadata's; their count must be the model's classes\n"
          "  --target NAME     store the int8 conv weights already packed for NAME's kernels, used in\n"
          "                    place (no copy) by a CPU whose kernels match, else packed at load as\n"
          "                    usual: " YRT_PACK_TARGET_NAMES "\n"
          "  -v                list every lowered node\n" CLI_HELP_TAIL);
}

int main(int argc, char **argv) {
  cli_stdout_guard(); /* results never lost with exit 0 */
  if (cli_version_requested(argc, argv, "yolort-convert")) return 0;
  const char *in = NULL, *out = NULL, *target = "portable";
  const char **keep = calloc((size_t)argc + 1, sizeof(char *));
  int n_keep = 0;
  yrt_convert_options opt;
  memset(&opt, 0, sizeof opt);
  float anchors[2 * YRT_OBJ_MAX_SCALES * YRT_OBJ_MAX_ANCHORS];
  char *names = NULL; /* --names */
  ir_preprocess pre; /* --preprocess */
  memset(&pre, 0, sizeof pre);
  if (!keep) {
    fprintf(stderr, "yolort-convert: out of memory\n");
    return 1;
  }
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
      out = argv[++i];
    } else if (strcmp(argv[i], "--keep-fp32") == 0 && i + 1 < argc) {
      keep[n_keep++] = argv[++i];
    } else if (strcmp(argv[i], "--synthetic") == 0) {
      opt.synthetic = 1;
    } else if (strcmp(argv[i], "--exact-qdq") == 0) {
      opt.exact_qdq = 1;
    } else if (strcmp(argv[i], "--no-fuse-head") == 0) {
      opt.no_fuse_head = 1;
    } else if (strcmp(argv[i], "--no-views") == 0) {
      opt.no_views = 1;
    } else if (strcmp(argv[i], "--no-ties") == 0) {
      opt.no_ties = 1;
    } else if (strcmp(argv[i], "--float-add") == 0) {
      opt.float_add = 1;
    } else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
      const char *s = argv[++i];
      char *end;
      long h = strtol(s, &end, 10), w = h;
      if (end != s && (*end == 'x' || *end == 'X')) {
        const char *s2 = end + 1;
        w = strtol(s2, &end, 10);
        if (end == s2) h = 0;
      }
      if (end == s || *end || h < 1 || w < 1 || h > 65536 || w > 65536) {
        fprintf(stderr, "yolort-convert: --size '%s': want N or HxW (1..65536), e.g. 640 or 480x864\n", s);
        free(keep);
        return 1;
      }
      opt.input_h = (int)h;
      opt.input_w = (int)w;
    } else if (strcmp(argv[i], "--anchors") == 0 && i + 1 < argc) {
      /* w,h pairs: at most 4 grids x 9 anchors */
      const char *s = argv[++i];
      char tok[64];
      int n = 0, bad = 0;
      for (const char *p = s; *p && !bad;) {
        size_t k = strcspn(p, ",");
        if (k == 0 || k >= sizeof tok || n >= (int)(sizeof anchors / sizeof anchors[0])) bad = 1;
        else {
          memcpy(tok, p, k);
          tok[k] = 0;
          if (!cli_parse_float("yolort-convert", "--anchors", tok, 1e-3, 65536, &anchors[n++])) bad = 1;
        }
        p += k;
        if (*p == ',') p++;
      }
      if (bad || n < 2 || n % 2) {
        fprintf(stderr, "yolort-convert: --anchors '%s': want W,H pairs in pixels (at most %d numbers), e.g. "
                "10,13,16,30,33,23,...\n", s, (int)(sizeof anchors / sizeof anchors[0]));
        free(keep);
        return 1;
      }
      opt.anchors = anchors;
      opt.n_anchors = n;
    } else if (strcmp(argv[i], "--kpt-shape") == 0 && i + 1 < argc) {
      const char *s = argv[++i];
      char *end;
      const long nk = strtol(s, &end, 10);
      const long kd = *end == ',' ? strtol(end + 1, &end, 10) : 0;
      if (*end || nk < 1 || nk > 1024 || kd < 2 || kd > 3) {
        fprintf(stderr, "yolort-convert: --kpt-shape '%s': want N,D (1..1024 keypoints of 2 or 3 values), e.g. 17,3\n", s);
        free(keep);
        return 1;
      }
      opt.kpt_shape[0] = (int)nk;
      opt.kpt_shape[1] = (int)kd;
    } else if (strcmp(argv[i], "--preprocess") == 0 && i + 1 < argc) {
      char msg[256];
      if (ir_preprocess_parse(argv[++i], &pre, msg, sizeof msg) != 0) {
        fprintf(stderr, "yolort-convert: %s\n", msg);
        free(keep);
        return 1;
      }
      opt.preprocess = &pre;
    } else if (strcmp(argv[i], "--names") == 0 && i + 1 < argc) {
      char msg[512];
      free(names);
      if (class_names_load(argv[++i], YRT_MAX_CLASSES, &names, msg, sizeof msg) != 0) {
        fprintf(stderr, "yolort-convert: %s\n", msg);
        free(keep);
        return 1;
      }
      opt.class_names = names;
    } else if (strcmp(argv[i], "--target") == 0 && i + 1 < argc) {
      target = argv[++i];
      if (!pack_target_known(target)) {
        fprintf(stderr, "yolort-convert: --target %s: not one of " YRT_PACK_TARGET_NAMES "\n", target);
        free(keep);
        free(names);
        return CLI_EXIT_USAGE;
      }
    } else if (strcmp(argv[i], "--no-qat-propagate") == 0) {
      opt.no_qat_propagate = 1;
    } else if (strcmp(argv[i], "-v") == 0) {
      opt.verbose = 1;
    } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      usage(stdout);
      free(keep);
      free(names);
      return 0;
    } else if (argv[i][0] != '-' && !in) {
      in = argv[i];
    } else {
      const int rc = argv[i][0] == '-' ? cli_bad_option("yolort-convert", argv[i])
                                       : cli_extra_argument("yolort-convert", argv[i]);
      usage(stderr);
      free(keep);
      free(names);
      return rc;
    }
  }
  if (!in || !out) {
    fprintf(stderr, "yolort-convert: needs IN.onnx and -o OUT.yrt\n");
    usage(stderr);
    free(keep);
    free(names);
    return CLI_EXIT_USAGE;
  }
  if (!cli_output_distinct("yolort-convert", "-o", out, "the input", in)) {
    free(keep);
    free(names);
    return 2;
  }
  opt.keep_fp32 = n_keep ? keep : NULL;
  void *buf = NULL;
  size_t size = 0;
  yrt_convert_report rep;
  yrt_error err;
  err.msg[0] = '\0';
  yrt_status st = yrt_convert_onnx_file(in, &opt, &buf, &size, &rep, &err);
  if (st == YRT_OK) st = pack_target_apply(target, &buf, &size, &err);
  if (st == YRT_OK) st = yrt_write_file_atomic(out, buf, size, &err);
  if (st != YRT_OK) {
    fprintf(stderr, "yolort-convert: %s: %s\n", yrt_status_name(st), err.msg);
    free(buf);
    free(keep);
    free(names);
    return 1;
  }
  printf("%s -> %s\n", in, out);
  if (rep.names_note[0]) fprintf(stderr, "yolort-convert: warning: %s\n", rep.names_note);
  else if (rep.no_names)
    fprintf(stderr, "yolort-convert: note: the file carries no class names: classes print as class0..class%d; "
                    "--names FILE (one per line) or --names coco stores them\n", rep.num_classes - 1);
  yrt_convert_report_print(&rep, stdout);
  free(buf);
  free(keep);
  free(names);
  return 0;
}
