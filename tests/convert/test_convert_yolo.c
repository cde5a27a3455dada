/* test_convert_yolo.c — the real models from ../shared convert completely: every node
 * lowered, plan consistent, META right. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "convert.h"
#include "test_data.h"
#include "yrt_view.h"

static void convert_model(const char *rel, int expect_int8) {
  char path[1024];
  YT_REQUIRE_DATA(path, rel);
  void *buf = NULL;
  size_t size = 0;
  yrt_convert_report rep;
  yrt_error err;
  err.msg[0] = 0;
  yrt_status st = yrt_convert_onnx_file(path, NULL, &buf, &size, &rep, &err);
  if (st != YRT_OK) fail_msg("%s: %s: %s", rel, yrt_status_name(st), err.msg);
  yrt_convert_report_print(&rep, stdout);
  yv v;
  assert_int_equal(yv_open(&v, buf, size), 0);
  assert_int_equal(yv_check_plan(&v), 0);
  assert_int_equal(v.meta->input_w, 320);
  assert_int_equal(v.meta->input_h, 320);
  assert_int_equal(v.meta->num_classes, 80);
  assert_int_equal(v.plan->n_inputs, 1);
  assert_int_equal(v.plan->n_outputs, 1);
  const yrt_tensor_rec *out = &v.t[v.io[1]];
  assert_int_equal(out->dims[1], 84);
  assert_int_equal(out->dims[2], 2100);
  assert_int_equal(out->dtype, YRT_F32);
  assert_int_equal(rep.n_fused_silu >= 50, 1);
  if (expect_int8) {
    assert_true(v.h->flags & YRT_FLAG_INT8);
    assert_true(rep.n_int8[YRT_OP_CONV2D] >= 60);
  } else {
    assert_int_equal(rep.n_int8_nodes, 0);
  }
  free(buf);
}

static void test_yolo11n_320_fp32(void **state) {
  (void)state;
  convert_model("models/yolo11n-320.onnx", 0);
}

static void test_yolo11n_320_qdq(void **state) {
  (void)state;
  convert_model("models/yolo11n-320.qdq.onnx", 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_yolo11n_320_fp32),
      cmocka_unit_test(test_yolo11n_320_qdq),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
