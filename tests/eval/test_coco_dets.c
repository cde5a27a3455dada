/* test_coco_dets.c — yolort-eval --dets files read back (coco_dets.h): the records, files without
 * I lines, image names with spaces, every malformed line refused naming file:line, the pairing
 * check, and the evaluation of the read images equal to the bit to the same images added directly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coco_dets.h"
#include "coco_map.h"

static char dir[256];

static const char *write_file(const char *name, const char *text) {
  static char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  return path;
}

static yrt_status read_text(const char *text, coco_dets *d, yrt_error *err) {
  return coco_dets_read(write_file("t.dets", text), d, err);
}

static void test_records(void **state) {
  (void)state;
  coco_dets d;
  memset(&d, 0, sizeof d);
  yrt_error err = {{0}};
  assert_int_equal(read_text("I a 640 480\nG a 3 1.5 2 10.25 20\nD a 3 0.75 1 2 10 20\nD a 0 0.001 0 0 5 5\n"
                             "I empty one 100 100\nI b 10 10\nG b 79 0 0 10 10\n",
                             &d, &err),
                   YRT_OK);
  assert_int_equal(d.n, 3);
  assert_string_equal(d.img[0].name, "a");
  assert_int_equal(d.img[0].w, 640);
  assert_int_equal(d.img[0].n_gt, 1);
  assert_int_equal(d.img[0].n_det, 2);
  assert_true(d.img[0].gts[0].x0 == 1.5f && d.img[0].gts[0].x1 == 10.25f && d.img[0].gts[0].class_id == 3);
  assert_true(d.img[0].dets[0].score == 0.75f && d.img[0].dets[0].y1 == 20.0f);
  assert_string_equal(d.img[1].name, "empty one"); /* a name with a space, no records */
  assert_int_equal(d.img[1].n_gt + d.img[1].n_det, 0);
  assert_int_equal(d.max_class, 79);
  /* a second file appends, even for a name seen before */
  assert_int_equal(read_text("I a 640 480\n", &d, &err), YRT_OK);
  assert_int_equal(d.n, 4);
  assert_int_equal(d.img[3].file, 1);
  coco_dets_free(&d);
  /* before the I line: a new name starts an image */
  assert_int_equal(read_text("G x 1 0 0 4 4\nD x 1 0.5 0 0 4 4\nD y 2 0.5 0 0 4 4\n", &d, &err), YRT_OK);
  assert_int_equal(d.n, 2);
  assert_int_equal(d.img[0].w, 0);
  assert_int_equal(d.img[1].n_det, 1);
  coco_dets_free(&d);
}

static void test_malformed(void **state) {
  (void)state;
  static const struct {
    const char *text, *why;
  } cases[] = {
      {"I a 640 480\nX a 1\n", "t.dets:2: not a record"},
      {"I a 640\n", "t.dets:1: expected I"},
      {"I a 0 480\n", "t.dets:1: image size"},
      {"I a 640 480\nG a 1 0 0 4\n", "t.dets:2: expected G"},
      {"I a 640 480\nD a 1 0.5 0 0 4\n", "t.dets:2: expected D"},
      {"I a 640 480\nG a -1 0 0 4 4\n", "t.dets:2: class id"},
      {"I a 640 480\nG a 1.5 0 0 4 4\n", "t.dets:2: class id"},
      {"I a 640 480\nD a 1 nan 0 0 4 4\n", "t.dets:2: not a finite number"},
      {"I a 640 480\nD a 1 0.5 0 0 4 1e99\n", "t.dets:2: not a finite number"},
      {"I a 640 480\nD a 1 0.5 0 0 4 4x\n", "t.dets:2: not a finite number"},
      {"I a 640 480\nD b 1 0.5 0 0 4 4\n", "t.dets:2: a record for another image"},
      {"D\n", "t.dets:1: not a record"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    coco_dets d;
    memset(&d, 0, sizeof d);
    yrt_error err = {{0}};
    assert_int_equal(read_text(cases[i].text, &d, &err), YRT_ERR_FORMAT);
    if (!strstr(err.msg, cases[i].why)) fail_msg("case %zu: '%s' does not say '%s'", i, err.msg, cases[i].why);
    coco_dets_free(&d);
  }
  coco_dets d;
  memset(&d, 0, sizeof d);
  yrt_error err = {{0}};
  char path[512];
  snprintf(path, sizeof path, "%s/none.dets", dir);
  assert_int_equal(coco_dets_read(path, &d, &err), YRT_ERR_IO);
  assert_non_null(strstr(err.msg, "none.dets"));
  coco_dets_free(&d);
}

static void test_paired(void **state) {
  (void)state;
  coco_dets a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  yrt_error err = {{0}};
  assert_int_equal(read_text("I a 9 9\nG a 1 0 0 4 4\nD a 1 0.9 0 0 4 4\nI b 9 9\n", &a, &err), YRT_OK);
  assert_int_equal(read_text("I a 9 9\nG a 1 0 0 4 4\nI b 9 9\nD b 1 0.9 0 0 4 4\n", &b, &err), YRT_OK);
  assert_int_equal(coco_dets_check_paired(&a, &b, &err), YRT_OK);
  coco_dets_free(&b);
  assert_int_equal(read_text("I a 9 9\nG a 1 0 0 4 5\nI b 9 9\n", &b, &err), YRT_OK);
  assert_int_equal(coco_dets_check_paired(&a, &b, &err), YRT_ERR_INVALID_ARG);
  assert_non_null(strstr(err.msg, "image a has different ground truth"));
  coco_dets_free(&b);
  assert_int_equal(read_text("I a 9 9\nG a 1 0 0 4 4\nI c 9 9\n", &b, &err), YRT_OK);
  assert_int_equal(coco_dets_check_paired(&a, &b, &err), YRT_ERR_INVALID_ARG);
  assert_non_null(strstr(err.msg, "image 2 is b on one side, c on the other"));
  coco_dets_free(&b);
  assert_int_equal(read_text("I a 9 9\nG a 1 0 0 4 4\n", &b, &err), YRT_OK);
  assert_int_equal(coco_dets_check_paired(&a, &b, &err), YRT_ERR_INVALID_ARG);
  assert_non_null(strstr(err.msg, "2 images against 1"));
  coco_dets_free(&a);
  coco_dets_free(&b);
}

/* Random images written as yolort-eval writes them (%.9g) and read back give the same mAP, to the
 * bit, as the same images added directly; a file split in two and read as two files likewise. */
static void test_roundtrip(void **state) {
  (void)state;
  enum { NI = 40, NC = 5 };
  srand(7);
  coco_eval *direct = NULL;
  yrt_error err = {{0}};
  assert_int_equal(coco_eval_create(NC, 0, &direct, &err), YRT_OK);
  char p1[512], p2[512];
  snprintf(p1, sizeof p1, "%s/r1.dets", dir);
  snprintf(p2, sizeof p2, "%s/r2.dets", dir);
  FILE *f1 = fopen(p1, "w"), *f2 = fopen(p2, "w");
  assert_non_null(f1);
  assert_non_null(f2);
  for (int i = 0; i < NI; i++) {
    FILE *f = i < NI / 2 ? f1 : f2;
    coco_gt_box g[6];
    yrt_detection d[30];
    int ng = rand() % 6, nd = rand() % 30;
    fprintf(f, "I img%d 640 480\n", i);
    for (int j = 0; j < ng; j++) {
      float x = (float)(rand() % 50000) / 97.0f, y = (float)(rand() % 40000) / 89.0f;
      g[j] = (coco_gt_box){x, y, x + 10 + (float)(rand() % 9000) / 37.0f, y + 10 + (float)(rand() % 9000) / 41.0f,
                           rand() % NC};
      fprintf(f, "G img%d %d %.9g %.9g %.9g %.9g\n", i, g[j].class_id, g[j].x0, g[j].y0, g[j].x1, g[j].y1);
    }
    for (int j = 0; j < nd; j++) {
      const coco_gt_box *near = ng ? &g[rand() % ng] : NULL;
      float jit = (float)(rand() % 2000) / 333.0f;
      float x0 = near ? near->x0 + jit : 100, y0 = near ? near->y0 - jit : 100;
      float x1 = near ? near->x1 + jit / 3 : 200, y1 = near ? near->y1 + jit : 200;
      d[j] = (yrt_detection){x0, y0, x1, y1, (float)rand() / (float)RAND_MAX, near && rand() % 4 ? near->class_id : rand() % NC,
                             NULL};
      fprintf(f, "D img%d %d %.9g %.9g %.9g %.9g %.9g\n", i, d[j].class_id, d[j].score, d[j].x0, d[j].y0, d[j].x1,
              d[j].y1);
    }
    assert_int_equal(coco_eval_add_image(direct, d, nd, g, ng, &err), YRT_OK);
  }
  fclose(f1);
  fclose(f2);
  assert_int_equal(coco_eval_finalize(direct, &err), YRT_OK);
  coco_dets d;
  memset(&d, 0, sizeof d);
  assert_int_equal(coco_dets_read(p1, &d, &err), YRT_OK);
  assert_int_equal(coco_dets_read(p2, &d, &err), YRT_OK);
  assert_int_equal(d.n, NI);
  coco_eval *back = NULL;
  assert_int_equal(coco_dets_evaluate(&d, d.max_class, 0, &back, &err), YRT_ERR_INVALID_ARG); /* too few classes */
  assert_int_equal(coco_dets_evaluate(&d, NC, 0, &back, &err), YRT_OK);
  coco_summary a, b;
  assert_int_equal(coco_eval_summary(direct, &a), YRT_OK);
  assert_int_equal(coco_eval_summary(back, &b), YRT_OK);
  assert_true(a.map50_95 > 0.05);
  assert_true(a.map50 == b.map50 && a.map50_95 == b.map50_95 && a.num_images == b.num_images && a.num_det == b.num_det);
  coco_eval_free(direct);
  coco_eval_free(back);
  coco_dets_free(&d);
}

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/test_coco_dets.XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}
static int teardown(void **state) {
  (void)state;
  const char *names[] = {"t.dets", "r1.dets", "r2.dets"};
  char p[512];
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    snprintf(p, sizeof p, "%s/%s", dir, names[i]);
    unlink(p);
  }
  rmdir(dir);
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_records),
      cmocka_unit_test(test_malformed),
      cmocka_unit_test(test_paired),
      cmocka_unit_test(test_roundtrip),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
