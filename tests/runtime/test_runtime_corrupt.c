/* test_runtime_corrupt.c — hostile .yrt files: every truncation, every byte flipped (with and
 * without a fixed-up CRC), and targeted hostile values in every record field. The loader must
 * return an error, never crash; whatever it accepts must run cleanly (this runs under ASan). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rt_mixed_model.h"
#include "yolort.h"
#include "yrt_test_builder.h"

/* Load from memory (in place); if accepted, create a session, run it and read the outputs. */
static yrt_status load_and_run(const void *img, size_t size) {
  yrt_error err;
  yrt_model *m = NULL;
  yrt_status st = yrt_model_load_memory(img, size, 0, &m, &err);
  if (st != YRT_OK) {
    assert_null(m);
    assert_true(err.msg[0] != '\0');
    return st;
  }
  yrt_session *s = NULL;
  const yrt_session_options one = {.num_threads = 1}; /* thousands of sessions: no pool each */
  st = yrt_session_create(m, &one, &s, &err);
  if (st == YRT_OK) {
    float x[48];
    rt_mixed_input(x);
    yrt_model_info info;
    yrt_model_get_info(m, &info);
    yrt_session_set_input(s, 0, x, 48, &err); /* may refuse if the input's shape was changed */
    st = yrt_session_run(s, &err);
    for (int i = 0; i < info.num_outputs; i++) {
      yrt_tensor_view v;
      if (yrt_session_output(s, i, &v, &err) == YRT_OK) {
        volatile float sink = 0;
        for (size_t k = 0; k < v.count; k++) sink += v.data[k];
        (void)sink;
      }
    }
    yrt_session_free(s);
  }
  yrt_model_free(m);
  return st;
}

static void *copy_aligned(const void *src, size_t size) {
  void *p = aligned_alloc(64, (size + 63) / 64 * 64 + 64);
  assert_non_null(p);
  memcpy(p, src, size);
  return p;
}

static void test_valid_model_runs(void **state) {
  (void)state;
  size_t size;
  void *img = rt_mixed_model(&size);
  yrt_error err;
  yrt_model *m = NULL;
  if (yrt_model_load_memory(img, size, 0, &m, &err) != YRT_OK) fail_msg("%s", err.msg);
  yrt_model_free(m);
  assert_int_equal(load_and_run(img, size), YRT_OK);
  free(img);
}

static void test_truncated(void **state) {
  (void)state;
  size_t size;
  void *img = rt_mixed_model(&size);
  void *buf = copy_aligned(img, size);
  for (size_t n = 0; n < size; n++) {
    assert_int_not_equal(load_and_run(buf, n), YRT_OK);
    /* Also with the header's size and CRC patched to match the truncation. */
    if (n >= 64) {
      uint64_t fs = n;
      memcpy((uint8_t *)buf + 8, &fs, 8);
      ytb_fix_crc(buf, n);
      assert_int_not_equal(load_and_run(buf, n), YRT_OK);
      memcpy(buf, img, 64);
    }
  }
  free(buf);
  free(img);
}

static void test_flipped_bytes(void **state) {
  (void)state;
  size_t size;
  void *img = rt_mixed_model(&size);
  uint8_t *buf = copy_aligned(img, size);
  const uint8_t masks[3] = {0x01, 0x80, 0xFF};
  int accepted = 0;
  for (size_t i = 0; i < size; i++) {
    for (int k = 0; k < 3; k++) {
      buf[i] ^= masks[k];
      /* Without a CRC fix every change after the header is caught. */
      yrt_status st = load_and_run(buf, size);
      if (i >= 64 && i != 16 && i != 17 && i != 18 && i != 19) assert_int_not_equal(st, YRT_OK);
      /* With the CRC fixed the validators must stand alone. */
      ytb_fix_crc(buf, size);
      accepted += load_and_run(buf, size) == YRT_OK;
      memcpy(buf, img, size);
    }
  }
  print_message("flips accepted after crc fix: %d of %zu\n", accepted, size * 3);
  free(buf);
  free(img);
}

/* Hostile 32-bit and 64-bit values written over every aligned word of the record sections. */
static void test_hostile_values(void **state) {
  (void)state;
  size_t size;
  void *img = rt_mixed_model(&size);
  uint8_t *buf = copy_aligned(img, size);
  const uint32_t v32[] = {0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu, 0u, 1u, 2u, 3u, 6u, 7u, 64u, 255u, 256u, 0xFFFFFFFEu};
  const uint64_t v64[] = {UINT64_MAX, 1ull << 63, 1ull << 40, (uint64_t)size, (uint64_t)size - 64, 64u, 0u};
  uint32_t kinds[4] = {YRT_SEC_TENSORS, YRT_SEC_NODES, YRT_SEC_PLAN, YRT_SEC_META};
  for (int s = -1; s < 4; s++) {
    uint64_t off, len;
    if (s < 0) {
      off = 0, len = 64 + 6 * 24; /* header and section table */
    } else {
      off = ytb_section(img, kinds[s], &len);
    }
    for (uint64_t w = off; w + 4 <= off + len; w += 4) {
      for (size_t k = 0; k < sizeof v32 / sizeof v32[0]; k++) {
        memcpy(buf + w, &v32[k], 4);
        ytb_fix_crc(buf, size);
        load_and_run(buf, size);
        memcpy(buf, img, size);
      }
      if (w % 8 == 0 && w + 8 <= off + len) {
        for (size_t k = 0; k < sizeof v64 / sizeof v64[0]; k++) {
          memcpy(buf + w, &v64[k], 8);
          ytb_fix_crc(buf, size);
          load_and_run(buf, size);
          memcpy(buf, img, size);
        }
      }
    }
  }
  free(buf);
  free(img);
}

/* Specific hostile edits that must be rejected (each names what the loader must catch). */
static void expect_reject(void *img, size_t size, size_t off, const void *val, size_t n) {
  uint8_t *buf = copy_aligned(img, size);
  memcpy(buf + off, val, n);
  ytb_fix_crc(buf, size);
  yrt_error err;
  yrt_model *m = NULL;
  yrt_status st = yrt_model_load_memory(buf, size, 0, &m, &err);
  if (st == YRT_OK) fail_msg("edit at %zu accepted", off);
  free(buf);
}

static void test_specific_rejections(void **state) {
  (void)state;
  size_t size;
  void *img = rt_mixed_model(&size);
  uint64_t toff, tlen, noff, nlen;
  toff = ytb_section(img, YRT_SEC_TENSORS, &tlen);
  noff = ytb_section(img, YRT_SEC_NODES, &nlen);
  const size_t trec = sizeof(yrt_tensor_rec), nrec = sizeof(yrt_node_rec);
  int32_t big = INT32_MAX, neg = -1, zero = 0;
  uint64_t huge = UINT64_MAX, odd = 3;
  uint32_t u_big = 0xFFFFFFF0u, seven = 7;
  /* tensor 1 ("q"): dims, rank, nbytes, offset, dtype */
  expect_reject(img, size, toff + trec + offsetof(yrt_tensor_rec, dims) + 4, &big, 4);
  expect_reject(img, size, toff + trec + offsetof(yrt_tensor_rec, dims) + 4, &neg, 4);
  expect_reject(img, size, toff + trec + offsetof(yrt_tensor_rec, dims) + 4, &zero, 4);
  expect_reject(img, size, toff + trec + offsetof(yrt_tensor_rec, rank), &seven, 4);
  expect_reject(img, size, toff + trec + offsetof(yrt_tensor_rec, nbytes), &huge, 8);
  expect_reject(img, size, toff + trec + offsetof(yrt_tensor_rec, offset), &huge, 8);
  expect_reject(img, size, toff + trec + offsetof(yrt_tensor_rec, dtype), &seven, 4);
  /* tensor 2 ("w", const): misaligned data, scales out of range */
  expect_reject(img, size, toff + 2 * trec + offsetof(yrt_tensor_rec, offset), &odd, 8);
  expect_reject(img, size, toff + 2 * trec + offsetof(yrt_tensor_rec, scales_offset), &huge, 8);
  expect_reject(img, size, toff + 2 * trec + offsetof(yrt_tensor_rec, name), &u_big, 4);
  /* node 0: op, input index, output index, n_in */
  expect_reject(img, size, noff + offsetof(yrt_node_rec, op), &u_big, 4);
  expect_reject(img, size, noff + offsetof(yrt_node_rec, in), &u_big, 4);
  expect_reject(img, size, noff + offsetof(yrt_node_rec, out), &u_big, 4);
  expect_reject(img, size, noff + offsetof(yrt_node_rec, n_in), &u_big, 4);
  /* node 1 (conv): kernel size, stride, groups, LUT index */
  expect_reject(img, size, noff + nrec + offsetof(yrt_node_rec, p) + 4 * YRT_CONV_P_KH, &big, 4);
  expect_reject(img, size, noff + nrec + offsetof(yrt_node_rec, p) + 4 * YRT_CONV_P_SH, &zero, 4);
  expect_reject(img, size, noff + nrec + offsetof(yrt_node_rec, p) + 4 * YRT_CONV_P_GROUPS, &big, 4);
  expect_reject(img, size, noff + nrec + offsetof(yrt_node_rec, p) + 4 * YRT_CONV_P_LUT, &big, 4);
  expect_reject(img, size, noff + nrec + offsetof(yrt_node_rec, p) + 4 * YRT_CONV_P_PAD_T, &neg, 4);
  /* node 5 (slice): start past the end, zero step */
  expect_reject(img, size, noff + 5 * nrec + offsetof(yrt_node_rec, p) + 4 * 1, &big, 4);
  expect_reject(img, size, noff + 5 * nrec + offsetof(yrt_node_rec, p) + 4 * 7, &zero, 4);
  /* node 9 (transpose): not a permutation */
  expect_reject(img, size, noff + 9 * nrec + offsetof(yrt_node_rec, p) + 4, &zero, 4);
  /* node 2 (maxpool) reading a tensor written later (node 3's output = tensor index of "cat") */
  uint32_t later = 7; /* "cat" is tensor 7 */
  expect_reject(img, size, noff + 2 * nrec + offsetof(yrt_node_rec, in), &later, 4);
  /* node 0 writing the input */
  uint32_t input = 0;
  expect_reject(img, size, noff + offsetof(yrt_node_rec, out), &input, 4);
  free(img);
}

static void test_memory_plan_overlap(void **state) {
  (void)state;
  /* Two activations of the mixed model moved onto the same arena offset while both are live. */
  size_t size;
  void *img = rt_mixed_model(&size);
  uint64_t toff, tlen;
  toff = ytb_section(img, YRT_SEC_TENSORS, &tlen);
  const size_t trec = sizeof(yrt_tensor_rec);
  uint64_t off_c1;
  memcpy(&off_c1, (uint8_t *)img + toff + 5 * trec + offsetof(yrt_tensor_rec, offset), 8);
  expect_reject(img, size, toff + 6 * trec + offsetof(yrt_tensor_rec, offset), &off_c1, 8); /* mp over c1 */
  free(img);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_valid_model_runs),    cmocka_unit_test(test_truncated),
      cmocka_unit_test(test_flipped_bytes),       cmocka_unit_test(test_hostile_values),
      cmocka_unit_test(test_specific_rejections), cmocka_unit_test(test_memory_plan_overlap),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
