/* test_hostile_inputs.c — the crashes, hangs and giant allocations of issue 19 (a longer probe than
 * CI's fuzzing), each rebuilt from a generator here and checked to give a clear error now:
 *   1 a model input that is not the 3-channel image META says (heap overflow in the letterbox)
 *   2 an ONNX whose TypeProto nests 5000 deep (stack overflow in protobuf-c's unpack)
 *   4 JPEG costs: thousands of progressive scans, 16384x16384 progressive frames
 *   5 graphs of 80k-100k nodes (quadratic memory-plan checks in the loader and the converter)
 *   6 a small file claiming a 2 GiB arena (allocated and zeroed by every session)
 *   8 messages that named the wrong thing (opset range, a 16384^2 input)
 * docs/reliability.md lists each finding and its fix. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <turbojpeg.h>

#include "convert.h"
#include "detector.h"
#include "file_write.h"
#include "onnx_write.h"
#include "rel_models.h"
#include "yolort_image.h"
#include "yolort_format.h"

static void *model_yrt(rel_model_kind k, size_t *n) {
  void *buf = NULL;
  yrt_error err;
  if (rel_model_yrt(k, &buf, n, &err) != YRT_OK) fail_msg("rel_model_yrt(%s): %s", rel_model_name(k), err.msg);
  return buf;
}

static void fix_crc(uint8_t *buf, size_t n) {
  yrt_file_header h;
  memcpy(&h, buf, sizeof h);
  h.crc32 = yrt_crc32(0, buf + sizeof h, n - sizeof h);
  memcpy(buf, &h, sizeof h);
}

static yrt_meta_rec *find_meta(uint8_t *buf) {
  yrt_file_header h;
  memcpy(&h, buf, sizeof h);
  yrt_section_rec *sec = (yrt_section_rec *)(void *)(buf + h.section_table_offset);
  for (uint32_t s = 0; s < h.n_sections; s++)
    if (sec[s].kind == YRT_SEC_META) return (yrt_meta_rec *)(void *)(buf + sec[s].offset);
  fail_msg("no META section");
  return NULL;
}

static void tmp_path(char *out, size_t cap, const char *what) {
  snprintf(out, cap, "%s/tests/reliability/tmp_hostile_%ld_%s", YOLORT_BINARY_DIR, (long)getpid(), what);
}

static void expect_load(const void *buf, size_t n, yrt_status want, const char *msg_part) {
  yrt_model *m = NULL;
  yrt_error err;
  err.msg[0] = 0;
  const yrt_status st = yrt_model_load_memory(buf, n, 1, &m, &err);
  yrt_model_free(m);
  if (st != want) fail_msg("load: %s (%s), want %s", yrt_status_name(st), err.msg, yrt_status_name(want));
  if (msg_part && !strstr(err.msg, msg_part)) fail_msg("message '%s' lacks '%s'", err.msg, msg_part);
}

/* ------------------------------------------------ 1: inputs that are not the META image */

/* A 1-channel (and a 4-channel) ONNX converts, but is no RGB image: META says 1x1, and the
 * whole-image path (letterbox into the session input) refuses it instead of writing 3*H*W floats
 * into H*W (ASan heap-buffer-overflow WRITE in yrt_letterbox_f32 before). */
static void test_non_rgb_input_models(void **state) {
  (void)state;
  const rel_model_kind kinds[2] = {REL_MODEL_F32_YOLO_1CH, REL_MODEL_F32_YOLO_4CH};
  for (int k = 0; k < 2; k++) {
    size_t n = 0;
    void *buf = model_yrt(kinds[k], &n);
    yrt_model *m = NULL;
    yrt_error err;
    assert_int_equal(yrt_model_load_memory(buf, n, 1, &m, &err), YRT_OK);
    yrt_model_info info;
    assert_int_equal(yrt_model_get_info(m, &info), YRT_OK);
    assert_int_equal(info.input_w, 1);
    assert_int_equal(info.input_h, 1);
    yrt_session *s = NULL;
    assert_int_equal(yrt_session_create(m, NULL, &s, &err), YRT_OK);
    const size_t count = yrt_session_input_count(s, 0);
    assert_int_equal(count, (size_t)(k ? 4 : 1) * 16 * 16);
    /* what detector.c did: letterbox to META's size (the old META said 16x16) */
    uint8_t px[20 * 20 * 3] = {0};
    yrt_image img = {20, 20, px};
    void *scratch = malloc(yrt_letterbox_scratch_bytes(20, 20, 16, 16) + 64);
    assert_non_null(scratch);
    err.msg[0] = 0;
    if (k == 0) {
      assert_int_equal(yrt_letterbox_f32(&img, 16, 16, yrt_session_input_nhwc(s, 0), count, scratch, NULL, &err),
                       YRT_ERR_INVALID_ARG);
      assert_non_null(strstr(err.msg, "destination holds 256 floats"));
    }
    free(scratch);
    yrt_session_free(s);
    yrt_model_free(m);
    /* the whole-image path (yolort-detect, yolort-eval) refuses it by name */
    char path[1024];
    tmp_path(path, sizeof path, k ? "4ch.yrt" : "1ch.yrt");
    assert_int_equal(yrt_write_file_atomic(path, buf, n, &err), YRT_OK);
    free(buf);
    detector d;
    err.msg[0] = 0;
    yrt_status st = detector_open(&d, path, 1, 1, &err);
    if (st == YRT_OK) {
      const yrt_detection *dets = NULL;
      int nd = 0;
      yrt_postprocess_params pp;
      yrt_postprocess_defaults(&pp);
      st = detector_run(&d, &img, &pp, &dets, &nd, &err);
      detector_close(&d);
    }
    if (st != YRT_ERR_SHAPE) fail_msg("detector on %s: %s (%s), want YRT_ERR_SHAPE", path, yrt_status_name(st), err.msg);
    assert_non_null(strstr(err.msg, "not a"));
    unlink(path);
  }
}

/* A .yrt whose META input size disagrees with the input tensor (CRC fixed) is refused at load. */
static void test_meta_disagrees_with_input(void **state) {
  (void)state;
  size_t n = 0;
  uint8_t *buf = model_yrt(REL_MODEL_F32_YOLO, &n);
  expect_load(buf, n, YRT_OK, NULL);
  yrt_meta_rec *mt = find_meta(buf);
  assert_int_equal(mt->input_w, 16);
  const uint32_t sizes[][2] = {{32, 16}, {16, 8}, {640, 640}, {1, 1}};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    mt->input_w = sizes[i][0];
    mt->input_h = sizes[i][1];
    fix_crc(buf, n);
    expect_load(buf, n, YRT_ERR_FORMAT, "META input size");
  }
  free(buf);
  /* a 4-channel model claiming a 16x16 image (what the old converter wrote) */
  buf = model_yrt(REL_MODEL_F32_YOLO_4CH, &n);
  mt = find_meta(buf);
  mt->input_w = mt->input_h = 16;
  fix_crc(buf, n);
  expect_load(buf, n, YRT_ERR_FORMAT, "not a 3-channel");
  free(buf);
}

/* ------------------------------------------------ 2: deeply nested protobuf */

static size_t put_varint(uint8_t *p, uint64_t v) {
  size_t n = 0;
  do {
    p[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    v >>= 7;
  } while (v);
  return n;
}

/* Wraps buf[0, *n) as field `field` (length-delimited), in place (buf has room in front). */
static void wrap(uint8_t *buf, size_t cap, size_t *start, size_t end, unsigned field) {
  uint8_t hdr[16];
  size_t h = put_varint(hdr, (uint64_t)field << 3 | 2);
  h += put_varint(hdr + h, end - *start);
  assert_true(*start >= h && cap >= end);
  *start -= h;
  memcpy(buf + *start, hdr, h);
}

/* ModelProto { graph(7) { input(11) { name(1) "x", type(2) TypeProto { sequence_type(4) {
 * elem_type(1) TypeProto { sequence_type(4) { ... } } } } } }, `levels` TypeProtos deep. */
static uint8_t *deep_onnx(int levels, size_t *n) {
  const size_t cap = (size_t)levels * 8 + 256;
  uint8_t *buf = calloc(cap, 1);
  assert_non_null(buf);
  size_t start = cap, end = cap;
  for (int i = 0; i < levels; i++) {
    wrap(buf, cap, &start, end, 1); /* Sequence.elem_type */
    wrap(buf, cap, &start, end, 4); /* TypeProto.sequence_type */
  }
  wrap(buf, cap, &start, end, 2);   /* ValueInfoProto.type */
  const uint8_t name[3] = {0x0a, 0x01, 'x'};
  start -= 3;
  memcpy(buf + start, name, 3);
  wrap(buf, cap, &start, end, 11);  /* GraphProto.input */
  wrap(buf, cap, &start, end, 7);   /* ModelProto.graph */
  const uint8_t ir_version[2] = {0x08, 0x08};
  start -= 2;
  memcpy(buf + start, ir_version, 2);
  *n = end - start;
  memmove(buf, buf + start, *n);
  return buf;
}

static void test_deep_onnx(void **state) {
  (void)state;
  size_t n = 0;
  uint8_t *deep = deep_onnx(5000, &n);
  assert_true(n > 30000 && n < 40000); /* the probe's file was 34.5 KB */
  ir_graph *g = NULL;
  yrt_error err;
  err.msg[0] = 0;
  assert_int_equal(onnx_read_memory(deep, n, &g, &err), YRT_ERR_FORMAT);
  assert_null(g);
  assert_non_null(strstr(err.msg, "nested deeper"));
  Onnx__ModelProto *m = NULL;
  err.msg[0] = 0;
  assert_int_equal(onnx_model_load_memory(deep, n, &m, &err), YRT_ERR_FORMAT); /* quantize, inspect */
  assert_null(m);
  assert_non_null(strstr(err.msg, "nested deeper"));
  free(deep);
  /* 20 levels pass the pre-scan (the graph is then refused for what it is, not for its depth) */
  deep = deep_onnx(20, &n);
  err.msg[0] = 0;
  yrt_status st = onnx_read_memory(deep, n, &g, &err);
  ir_graph_free(g);
  if (st != YRT_OK) assert_null(strstr(err.msg, "nested deeper"));
  free(deep);
  /* truncated inside a nested message */
  deep = deep_onnx(50, &n);
  deep[n - 1] = 0x0a; /* a field header whose length byte is missing */
  assert_int_equal(onnx_read_memory(deep, n, &g, &err), YRT_ERR_FORMAT);
  free(deep);
}

/* ------------------------------------------------ 4: JPEG costs */

/* A progressive JPEG of w x h (libjpeg-turbo's standard progression script). */
static uint8_t *progressive_jpeg(int w, int h, size_t *n) {
  uint8_t *px = malloc((size_t)w * h * 3);
  assert_non_null(px);
  for (size_t i = 0; i < (size_t)w * h * 3; i++) px[i] = (uint8_t)(i * 13 + i / 7);
  tjhandle tj = tjInitCompress();
  assert_non_null(tj);
  unsigned char *jpeg = NULL;
  unsigned long size = 0;
  assert_int_equal(tjCompress2(tj, px, w, 0, h, TJPF_RGB, &jpeg, &size, TJSAMP_420, 90, TJFLAG_PROGRESSIVE), 0);
  tjDestroy(tj);
  free(px);
  uint8_t *out = malloc(size);
  assert_non_null(out);
  memcpy(out, jpeg, size);
  tjFree(jpeg);
  *n = size;
  return out;
}

/* Offset of the first marker `m` (0xFFm, outside entropy-coded data: good enough for headers). */
static size_t find_marker(const uint8_t *p, size_t n, uint8_t m) {
  for (size_t i = 2; i + 1 < n; i++)
    if (p[i] == 0xFF && p[i + 1] == m) return i;
  fail_msg("marker %02x not found", m);
  return 0;
}

static void expect_jpeg(const uint8_t *p, size_t n, const yrt_jpeg_limits *lim, yrt_status want, const char *part) {
  yrt_image img;
  yrt_error err;
  err.msg[0] = 0;
  const yrt_status st = yrt_image_decode_jpeg_limited(p, n, lim, &img, &err);
  if (st != want) fail_msg("decode: %s (%s), want %s", yrt_status_name(st), err.msg, yrt_status_name(want));
  if (part && !strstr(err.msg, part)) fail_msg("message '%s' lacks '%s'", err.msg, part);
  if (st == YRT_OK) yrt_image_free(&img);
  else assert_null(img.rgb);
}

static void test_jpeg_costs(void **state) {
  (void)state;
  size_t n = 0;
  uint8_t *jp = progressive_jpeg(48, 32, &n);
  expect_jpeg(jp, n, NULL, YRT_OK, NULL); /* a normal progressive JPEG (about 10 scans) */
  /* the same scans repeated 200 times: refused before decoding (2112 scans took 34 s) */
  const size_t last_sos = n - 2; /* find the last SOS */
  size_t sos = 0;
  for (size_t i = 2; i + 1 < last_sos; i++)
    if (jp[i] == 0xFF && jp[i + 1] == 0xDA) sos = i;
  assert_true(sos > 0);
  const size_t seg = n - 2 - sos, reps = 200;
  uint8_t *many = malloc(sos + seg * reps + 2);
  assert_non_null(many);
  memcpy(many, jp, sos);
  for (size_t r = 0; r < reps; r++) memcpy(many + sos + r * seg, jp + sos, seg);
  many[sos + seg * reps] = 0xFF;
  many[sos + seg * reps + 1] = 0xD9;
  expect_jpeg(many, sos + seg * reps + 2, NULL, YRT_ERR_FORMAT, "scans");
  free(many);
  /* a 16384x16384 progressive frame header: refused before any allocation (1.59 GB peak before) */
  uint8_t *big = malloc(n);
  assert_non_null(big);
  memcpy(big, jp, n);
  const size_t sof = find_marker(big, n, 0xC2); /* SOF2: FF C2 len(2) precision(1) h(2) w(2) */
  big[sof + 5] = 0x40, big[sof + 6] = 0x00, big[sof + 7] = 0x40, big[sof + 8] = 0x00;
  expect_jpeg(big, n, NULL, YRT_ERR_FORMAT, "over the limit");
  free(big);
  /* the limits are the caller's */
  yrt_jpeg_limits lim = {0, 0, 0};
  expect_jpeg(jp, n, &lim, YRT_OK, NULL);
  lim.max_pixels = 48 * 32 - 1;
  expect_jpeg(jp, n, &lim, YRT_ERR_FORMAT, "over the limit");
  lim.max_pixels = 0;
  lim.max_side = 40;
  expect_jpeg(jp, n, &lim, YRT_ERR_FORMAT, "over the limit");
  lim.max_side = 0;
  lim.max_scans = 1;
  expect_jpeg(jp, n, &lim, YRT_ERR_FORMAT, "scans");
  lim.max_scans = -1;
  expect_jpeg(jp, n, &lim, YRT_ERR_INVALID_ARG, NULL);
  free(jp);
}

/* ------------------------------------------------ 5: huge graphs */

/* x[1,8] -> Sigmoid -> Sigmoid ... (n nodes) -> y. With n_copies > 0 the single node list is
 * replaced by n_copies pointers to its first node (for the ONNX count limit; never converted). */
static uint8_t *chain_onnx(int n, size_t n_copies, size_t *size) {
  Onnx__ModelProto *m = onnx_model_new(13);
  assert_non_null(m);
  const int64_t d[2] = {1, 8};
  assert_int_equal(onnx_model_add_input(m, "x", IR_F32, 2, d), 0);
  char prev[32] = "x", cur[32], name[32];
  for (int i = 0; i < n; i++) {
    snprintf(cur, sizeof cur, i == n - 1 ? "y" : "t%d", i);
    snprintf(name, sizeof name, "s%d", i);
    const char *in[1] = {prev}, *out[1] = {cur};
    assert_non_null(onnx_model_add_node(m, "Sigmoid", name, in, 1, out, 1));
    snprintf(prev, sizeof prev, "%s", cur);
  }
  assert_int_equal(onnx_model_add_output(m, "y", IR_F32, 2, d), 0);
  Onnx__NodeProto **saved = m->graph->node, **copies = NULL;
  const size_t saved_n = m->graph->n_node;
  if (n_copies) {
    copies = malloc(n_copies * sizeof *copies);
    assert_non_null(copies);
    for (size_t i = 0; i < n_copies; i++) copies[i] = saved[0];
    m->graph->node = copies;
    m->graph->n_node = n_copies;
  }
  uint8_t *bytes = NULL;
  yrt_error err;
  assert_int_equal(onnx_model_pack(m, &bytes, size, &err), YRT_OK);
  m->graph->node = saved;
  m->graph->n_node = saved_n;
  free(copies);
  onnx_model_free(m);
  return bytes;
}

static yrt_status convert_bytes(const uint8_t *bytes, size_t n, void **yrt, size_t *yn, yrt_error *err) {
  ir_graph *g = NULL;
  *yrt = NULL;
  yrt_status st = onnx_read_memory(bytes, n, &g, err);
  if (st == YRT_OK) st = yrt_convert_graph(g, NULL, yrt, yn, NULL, err);
  ir_graph_free(g);
  return st;
}

static void test_huge_graphs(void **state) {
  (void)state;
  yrt_error err;
  size_t n = 0, yn = 0;
  void *yrt = NULL;
  /* a long chain converts and loads (the live-set plan check walks it once) */
  uint8_t *bytes = chain_onnx(3000, 0, &n);
  assert_int_equal(convert_bytes(bytes, n, &yrt, &yn, &err), YRT_OK);
  free(bytes);
  expect_load(yrt, yn, YRT_OK, NULL);
  /* ... and the same file claiming more nodes than a .yrt holds: grow the NODES section */
  {
    yrt_file_header h;
    memcpy(&h, yrt, sizeof h);
    yrt_section_rec *sec = (yrt_section_rec *)(void *)((uint8_t *)yrt + h.section_table_offset);
    int k = -1;
    for (uint32_t i = 0; i < h.n_sections; i++)
      if (sec[i].kind == YRT_SEC_NODES) k = (int)i;
    assert_true(k >= 0);
    const uint64_t have = sec[k].size / sizeof(yrt_node_rec);
    uint64_t add = YRT_MAX_NODES + 1 - have;
    while ((add * sizeof(yrt_node_rec)) % YRT_ALIGN) add++;
    const size_t delta = (size_t)(add * sizeof(yrt_node_rec)), at = (size_t)(sec[k].offset + sec[k].size);
    uint8_t *big = aligned_alloc(YRT_ALIGN, (yn + delta + YRT_ALIGN - 1) / YRT_ALIGN * YRT_ALIGN);
    assert_non_null(big);
    memcpy(big, yrt, at);
    memset(big + at, 0, delta);
    memcpy(big + at + delta, (uint8_t *)yrt + at, yn - at);
    yrt_file_header *bh = (yrt_file_header *)(void *)big;
    if (bh->section_table_offset >= at) bh->section_table_offset += delta;
    yrt_section_rec *bs = (yrt_section_rec *)(void *)(big + bh->section_table_offset);
    for (uint32_t i = 0; i < bh->n_sections; i++)
      if (bs[i].offset >= at) bs[i].offset += delta;
    bs[k].size += delta;
    bh->file_size = yn + delta;
    fix_crc(big, yn + delta);
    expect_load(big, yn + delta, YRT_ERR_FORMAT, "more than the 16384");
    free(big);
  }
  free(yrt);
  /* the converter refuses past YRT_MAX_NODES before planning memory (100k nodes: > 120 s) */
  bytes = chain_onnx(YRT_MAX_NODES + 1, 0, &n);
  err.msg[0] = 0;
  assert_int_equal(convert_bytes(bytes, n, &yrt, &yn, &err), YRT_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.msg, "more than a .yrt holds"));
  assert_null(yrt);
  free(bytes);
  /* the reader refuses a graph far past that before building any IR */
  bytes = chain_onnx(1, 4 * (size_t)YRT_MAX_NODES + 1, &n);
  ir_graph *g = NULL;
  err.msg[0] = 0;
  assert_int_equal(onnx_read_memory(bytes, n, &g, &err), YRT_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.msg, "more than yolort converts"));
  free(bytes);
}

/* ------------------------------------------------ 6: arena claims */

static void test_arena_claims(void **state) {
  (void)state;
  size_t n = 0;
  uint8_t *buf = model_yrt(REL_MODEL_QDQ_YOLO, &n);
  yrt_file_header h;
  memcpy(&h, buf, sizeof h);
  yrt_section_rec *sec = (yrt_section_rec *)(void *)(buf + h.section_table_offset);
  yrt_plan_rec *plan = NULL;
  for (uint32_t s = 0; s < h.n_sections; s++)
    if (sec[s].kind == YRT_SEC_PLAN) plan = (yrt_plan_rec *)(void *)(buf + sec[s].offset);
  assert_non_null(plan);
  const uint64_t real = plan->arena_bytes;
  plan->arena_bytes = (2ull << 30) - 64; /* the probe's 2 GiB claim */
  fix_crc(buf, n);
  expect_load(buf, n, YRT_ERR_FORMAT, "but its tensors end at");
  plan->arena_bytes = real + 4096;
  fix_crc(buf, n);
  expect_load(buf, n, YRT_ERR_FORMAT, "but its tensors end at");
  plan->arena_bytes = real;
  fix_crc(buf, n);
  /* the caller's cap */
  yrt_model *m = NULL;
  yrt_error err;
  assert_int_equal(yrt_model_load_memory(buf, n, 1, &m, &err), YRT_OK);
  yrt_model_info info;
  assert_int_equal(yrt_model_get_info(m, &info), YRT_OK);
  yrt_session_options o = {0};
  o.max_arena_bytes = info.arena_bytes - 1;
  yrt_session *s = NULL;
  err.msg[0] = 0;
  assert_int_equal(yrt_session_create(m, &o, &s, &err), YRT_ERR_NOMEM);
  assert_null(s);
  assert_non_null(strstr(err.msg, "over the cap"));
  o.max_arena_bytes = info.arena_bytes;
  assert_int_equal(yrt_session_create(m, &o, &s, &err), YRT_OK);
  yrt_session_free(s);
  yrt_model_free(m);
  free(buf);
}

/* ------------------------------------------------ 8: messages */

static void test_messages(void **state) {
  (void)state;
  yrt_error err;
  void *yrt = NULL;
  size_t yn = 0;
  /* a 16384^2 image input: was "dim 3 = 3, too large" */
  Onnx__ModelProto *m = onnx_model_new(13);
  assert_non_null(m);
  const int64_t d[4] = {1, 3, 16384, 16384};
  assert_int_equal(onnx_model_add_input(m, "images", IR_F32, 4, d), 0);
  const char *in[1] = {"images"}, *out[1] = {"y"};
  assert_non_null(onnx_model_add_node(m, "Sigmoid", "s", in, 1, out, 1));
  assert_int_equal(onnx_model_add_output(m, "y", IR_F32, 4, d), 0);
  uint8_t *bytes = NULL;
  size_t n = 0;
  assert_int_equal(onnx_model_pack(m, &bytes, &n, &err), YRT_OK);
  onnx_model_free(m);
  err.msg[0] = 0;
  assert_int_equal(convert_bytes(bytes, n, &yrt, &yn, &err), YRT_ERR_UNSUPPORTED);
  if (!strstr(err.msg, "16384") || !strstr(err.msg, "over 2 GiB")) fail_msg("message: %s", err.msg);
  free(bytes);
  /* opset 6: the message gives the range actually accepted (7 to 10 convert: Upsample, old Slice) */
  m = onnx_model_new(6);
  assert_non_null(m);
  const int64_t d2[2] = {1, 8};
  assert_int_equal(onnx_model_add_input(m, "x", IR_F32, 2, d2), 0);
  const char *in2[1] = {"x"};
  assert_non_null(onnx_model_add_node(m, "Sigmoid", "s", in2, 1, out, 1));
  assert_int_equal(onnx_model_add_output(m, "y", IR_F32, 2, d2), 0);
  assert_int_equal(onnx_model_pack(m, &bytes, &n, &err), YRT_OK);
  onnx_model_free(m);
  ir_graph *g = NULL;
  err.msg[0] = 0;
  assert_int_equal(onnx_read_memory(bytes, n, &g, &err), YRT_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.msg, "need 7..22"));
  free(bytes);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_non_rgb_input_models),
      cmocka_unit_test(test_meta_disagrees_with_input),
      cmocka_unit_test(test_deep_onnx),
      cmocka_unit_test(test_jpeg_costs),
      cmocka_unit_test(test_huge_graphs),
      cmocka_unit_test(test_arena_claims),
      cmocka_unit_test(test_messages),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
