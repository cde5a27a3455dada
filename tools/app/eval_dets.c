/* eval_dets.c — see eval_dets.h. */
#include "eval_dets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_num.h"
#include "coco_dets.h"
#include "coco_map.h"

#define PROG "yolort-eval"

int eval_dets_requested(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--from-dets")) return 1;
  return 0;
}

static int usage(void) {
  fprintf(stderr, "usage: yolort-eval --from-dets A.dets [--from-dets A2.dets ...] [--compare-dets B.dets ...]\n"
                  "                   [--bootstrap R [--seed S]] [-q]\n"
                  "  mAP from yolort-eval --dets files: each side the images of its files in order; B must hold\n"
                  "  the same images with the same ground truth (a paired comparison, B - A)\n");
  return 2;
}

int eval_dets_main(int argc, char **argv) {
  int na = 0, nb = 0, reps = 0, seed = 1;
  const char **fa = calloc((size_t)argc, sizeof *fa), **fb = calloc((size_t)argc, sizeof *fb);
  if (!fa || !fb) {
    free(fa);
    free(fb);
    fprintf(stderr, "%s: out of memory for %d arguments\n", PROG, argc);
    return 1;
  }
  int bad = 0;
  for (int i = 1; i < argc && !bad; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--from-dets") && i + 1 < argc) fa[na++] = argv[++i];
    else if (!strcmp(a, "--compare-dets") && i + 1 < argc) fb[nb++] = argv[++i];
    else if (!strcmp(a, "--bootstrap") && i + 1 < argc) {
      if (!cli_parse_int(PROG, "--bootstrap", argv[++i], 0, 100000, &reps)) bad = 2;
    } else if (!strcmp(a, "--seed") && i + 1 < argc) {
      if (!cli_parse_int(PROG, "--seed", argv[++i], 0, 2000000000, &seed)) bad = 2;
    } else if (!strcmp(a, "-q")) {
      /* no progress to silence: accepted for symmetry with the model mode */
    } else {
      fprintf(stderr, "%s: --from-dets mode: unexpected argument '%s' (models, images and labels are not read)\n",
              PROG, a);
      bad = 2;
    }
  }
  if (!bad && !na) bad = 2;
  if (!bad && reps && !nb) {
    fprintf(stderr, "%s: --bootstrap compares two sides: give --compare-dets\n", PROG);
    bad = 2;
  }
  if (bad) {
    free(fa);
    free(fb);
    return usage();
  }
  yrt_error err = {{0}};
  coco_dets da, db;
  memset(&da, 0, sizeof da);
  memset(&db, 0, sizeof db);
  coco_eval *ea = NULL, *eb = NULL;
  coco_summary sa, sb;
  yrt_status st = YRT_OK;
  for (int i = 0; !st && i < na; i++) st = coco_dets_read(fa[i], &da, &err);
  for (int i = 0; !st && i < nb; i++) st = coco_dets_read(fb[i], &db, &err);
  if (!st && !da.n) st = yrt_set_error(&err, YRT_ERR_FORMAT, "--from-dets: no image in %s%s", fa[0], na > 1 ? " ..." : "");
  if (!st && nb) st = coco_dets_check_paired(&da, &db, &err);
  /* a --dets file has no class count: enough for every id seen on either side */
  int nc = (da.max_class > db.max_class ? da.max_class : db.max_class) + 1;
  if (nc < 1) nc = 1;
  if (!st) st = coco_dets_evaluate(&da, nc, 0, &ea, &err);
  if (!st && nb) st = coco_dets_evaluate(&db, nc, 0, &eb, &err);
  if (!st) st = coco_eval_summary(ea, &sa);
  if (!st && nb) st = coco_eval_summary(eb, &sb);
  coco_bootstrap bs;
  if (!st && reps) st = coco_bootstrap_diff(ea, eb, reps, (unsigned long long)seed, &bs, &err);
  if (!st) {
    /* the files in full, then the table by side (a path cut to the column would hide which) */
    for (int i = 0; i < na; i++) printf("A %s\n", fa[i]);
    for (int i = 0; i < nb; i++) printf("B %s\n", fb[i]);
    char la[64], lb[64];
    snprintf(la, sizeof la, "A (%d file%s)", na, na > 1 ? "s" : "");
    snprintf(lb, sizeof lb, "B (%d file%s)", nb, nb > 1 ? "s" : "");
    printf("\n%-40s %8s %10s %7s\n", "detections", "mAP50", "mAP50-95", "images");
    printf("%-40s %8.4f %10.4f %7d\n", la, sa.map50, sa.map50_95, sa.num_images);
    if (nb) {
      printf("%-40s %8.4f %10.4f %7d\n", lb, sb.map50, sb.map50_95, sb.num_images);
      printf("%-40s %+8.4f %+10.4f\n", "difference (B - A)", sb.map50 - sa.map50, sb.map50_95 - sa.map50_95);
      printf("\n");
      coco_print_changes(stdout, "classes with the largest AP50-95 change (B - A), top 10:", ea, eb, 0, 10, NULL);
      if (reps) {
        printf("\n");
        coco_print_bootstrap(stdout, &bs);
      }
    }
  }
  coco_eval_free(ea);
  coco_eval_free(eb);
  coco_dets_free(&da);
  coco_dets_free(&db);
  free(fa);
  free(fb);
  if (st) {
    fprintf(stderr, "%s: %s\n", PROG, err.msg);
    return 1;
  }
  return 0;
}
