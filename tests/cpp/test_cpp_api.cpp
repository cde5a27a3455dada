/* test_cpp_api.cpp — yolort.hpp as a C++ program uses it (built as C++11 and as C++20): errors
 * thrown as yolort::Error with the C status and message, move-only RAII handles, Span, and (with
 * the converter in the build) a tiny generated model through Session::detect / run / output,
 * checked equal to the same calls through the C API, also with the options isa_cap and allocator. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

extern "C" { /* Debian's cmocka.h declares print_error & co. without C linkage */
#include <cmocka.h>
}

#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "yolort.h"
#include "yolort.hpp"
#ifdef YOLORT_TEST_REL_MODELS
extern "C" {
#include "rel_models.h"
}
#endif

static_assert(!std::is_copy_constructible<yolort::Model>::value, "Model is move-only");
static_assert(!std::is_copy_assignable<yolort::Model>::value, "Model is move-only");
static_assert(std::is_nothrow_move_constructible<yolort::Model>::value, "Model moves");
static_assert(std::is_nothrow_move_assignable<yolort::Model>::value, "Model moves");
static_assert(!std::is_copy_constructible<yolort::Session>::value, "Session is move-only");
static_assert(!std::is_copy_assignable<yolort::Session>::value, "Session is move-only");
static_assert(std::is_nothrow_move_constructible<yolort::Session>::value, "Session moves");
static_assert(std::is_nothrow_move_assignable<yolort::Session>::value, "Session moves");
static_assert(std::is_base_of<std::runtime_error, yolort::Error>::value, "Error is a runtime_error");
static_assert(std::is_convertible<yolort::Span<float>, yolort::Span<const float> >::value, "Span<const T> from Span<T>");
static_assert(!std::is_convertible<yolort::Span<const float>, yolort::Span<float> >::value, "no const removal");

/* Runs f, which must throw yolort::Error with status want; returns its message. */
template <class F>
static std::string expect_error(F f, yrt_status want) {
  try {
    f();
  } catch (const yolort::Error &e) {
    if (e.status() != want) fail_msg("status %s, want %s: %s", e.status_name(), yrt_status_name(want), e.what());
    return e.what();
  }
  fail_msg("no yolort::Error thrown (want %s)", yrt_status_name(want));
  return std::string();
}

static void test_init_helpers(void **state) {
  (void)state;
  yrt_frame f;
  std::memset(&f, 0xab, sizeof f);
  yrt_frame_init(&f);
  assert_int_equal(f.struct_size, sizeof f);
  assert_int_equal(f.width, 0);
  assert_null(f.plane[0]);
  yrt_session_options o;
  std::memset(&o, 0xab, sizeof o);
  yrt_session_options_init(&o);
  assert_int_equal(o.struct_size, sizeof o);
  assert_int_equal(o.num_threads, 0);
  assert_null(o.thread_pool);
  const yrt_postprocess_params p = yolort::postprocess_params();
  assert_int_equal(p.struct_size, sizeof p);
  assert_true(p.conf_threshold > 0.24f && p.conf_threshold < 0.26f);
  assert_int_equal(p.max_detections, 300);
  assert_int_equal(yolort::session_options(3).num_threads, 3);
  assert_null(yolort::session_options(3).isa_cap);
  assert_null(yolort::session_options(3).allocator);
  const yrt_allocator a = {nullptr, nullptr, nullptr};
  const yrt_session_options capped = yolort::session_options(2, "avx2", &a);
  assert_int_equal(capped.num_threads, 2);
  assert_string_equal(capped.isa_cap, "avx2");
  assert_ptr_equal(capped.allocator, &a);
  assert_int_equal(capped.struct_size, sizeof capped);
  static const uint8_t y[4] = {0}, uv[2] = {0};
  const yrt_frame nv = yolort::nv12_frame(2, 2, y, 2, uv, 2);
  assert_int_equal(nv.format, YRT_PIX_NV12);
  assert_ptr_equal(nv.plane[1], uv);
  assert_int_equal(nv.struct_size, sizeof nv);
  assert_string_equal(yolort::version(), YOLORT_VERSION_STRING);
}

static void test_span(void **state) {
  (void)state;
  float a[3] = {1, 2, 3};
  yolort::Span<float> s(a);
  assert_int_equal(s.size(), 3);
  s[1] = 5;
  assert_true(a[1] == 5.0f);
  yolort::Span<const float> c = s;
  float sum = 0;
  for (float v : c) sum += v;
  assert_true(sum == 9.0f);
  std::vector<float> v(4, 1.0f);
  const std::vector<float> &cv = v;
  assert_int_equal(yolort::Span<float>(v).size(), 4);
  assert_ptr_equal(yolort::Span<const float>(cv).data(), v.data());
  assert_true(yolort::Span<int>().empty());
}

static void test_errors(void **state) {
  (void)state;
  const std::string path = "/nonexistent/yolort-cpp-test/missing.yrt";
  const std::string msg = expect_error([&] { yolort::Model::load_file(path); }, YRT_ERR_IO);
  if (msg.find(path) == std::string::npos) fail_msg("message does not name the path: %s", msg.c_str());
  try {
    yolort::Model::load_file(path);
  } catch (const std::runtime_error &e) { /* catchable as the standard type */
    assert_non_null(std::strstr(e.what(), "missing.yrt"));
  }
  std::vector<unsigned char> junk(256, 0x5a);
  expect_error([&] { yolort::Model::load_memory(junk.data(), junk.size()); }, YRT_ERR_FORMAT);
  expect_error([&] { yolort::Model::load_memory(nullptr, 0); }, YRT_ERR_FORMAT);
  const yolort::Model empty;
  assert_false(static_cast<bool>(empty));
  assert_string_equal(empty.task(), "");
  assert_int_equal(empty.keypoints(), 0);
  assert_false(empty.rotated());
  assert_null(empty.class_name(0));
  expect_error([&] { empty.info(); }, YRT_ERR_INVALID_ARG);
  expect_error([&] { yolort::Session s(empty); }, YRT_ERR_INVALID_ARG);
  /* an empty Session: every call is the C API's NULL-session error */
  yolort::Session none;
  assert_false(static_cast<bool>(none));
  assert_int_equal(none.num_threads(), 0);
  expect_error([&] { none.run(); }, YRT_ERR_INVALID_ARG);
  expect_error([&] { none.output(0); }, YRT_ERR_INVALID_ARG);
  assert_true(none.input_nhwc(0).empty());
  assert_true(none.node_times().empty());
  none.cancel();
  const yrt_frame f = yolort::packed_frame(YRT_PIX_RGB888, 0, 0, nullptr, 0);
  expect_error([&] { none.detect(f); }, YRT_ERR_INVALID_ARG);
  std::vector<yrt_detection> dets(7);
  expect_error([&] { none.detect(f, dets); }, YRT_ERR_INVALID_ARG);
  assert_true(dets.empty()); /* cleared on failure */
}

#ifdef YOLORT_TEST_REL_MODELS
/* The float mini-YOLO of tests/reliability: input [1,3,16,16], output0 [1,6,64], classes cat, dog. */
static std::vector<unsigned char> mini_yolo() {
  yrt_error err;
  void *buf = nullptr;
  size_t size = 0;
  if (rel_model_yrt(REL_MODEL_F32_YOLO, &buf, &size, &err) != YRT_OK) fail_msg("rel_model_yrt: %s", err.msg);
  const unsigned char *b = static_cast<const unsigned char *>(buf);
  std::vector<unsigned char> out(b, b + size);
  free(buf);
  return out;
}

static std::vector<uint8_t> rgb_image(int w, int h) {
  std::vector<uint8_t> rgb(static_cast<size_t>(w) * static_cast<size_t>(h) * 3);
  for (size_t i = 0; i < rgb.size(); i++) rgb[i] = static_cast<uint8_t>((i * 37 + i / 97 * 11) % 251);
  return rgb;
}

static void expect_same(const yrt_detection *a, size_t na, const yrt_detection *b, size_t nb) {
  assert_int_equal(na, nb);
  for (size_t i = 0; i < na; i++) {
    assert_int_equal(a[i].class_id, b[i].class_id);
    assert_true(a[i].score == b[i].score && a[i].x0 == b[i].x0 && a[i].y0 == b[i].y0 && a[i].x1 == b[i].x1 &&
                a[i].y1 == b[i].y1);
    assert_ptr_equal(a[i].name, b[i].name);
  }
}

/* Caller memory for the allocator test: libc's aligned blocks, counted. */
struct Counted {
  size_t live_bytes, blocks;
};
static void *counted_alloc(void *user, size_t size, size_t align) {
  void *p = nullptr;
  if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size ? size : 1) != 0) return nullptr;
  Counted *c = static_cast<Counted *>(user);
  c->live_bytes += size;
  c->blocks++;
  return p;
}
static void counted_free(void *user, void *ptr, size_t size) {
  static_cast<Counted *>(user)->live_bytes -= size;
  free(ptr);
}

/* The options the C API has, through the wrapper: a model and a session on a counted allocator,
 * the kernels capped at the scalar references; the same detections as the C calls with the same
 * options, every block given back; an unknown cap throws the C message. */
static void test_options(void **state) {
  (void)state;
  const std::vector<unsigned char> bytes = mini_yolo();
  Counted mc = {0, 0}, sc = {0, 0};
  const yrt_allocator ma = {counted_alloc, counted_free, &mc}, sa = {counted_alloc, counted_free, &sc};
  const int w = 40, h = 30;
  const std::vector<uint8_t> rgb = rgb_image(w, h);
  const yrt_frame frame = yolort::packed_frame(YRT_PIX_RGB888, w, h, rgb.data(), static_cast<size_t>(w) * 3);
  yrt_postprocess_params pp = yolort::postprocess_params();
  pp.conf_threshold = 0.01f;
  {
    yolort::Model model = yolort::Model::load_memory(bytes.data(), bytes.size(), true, &ma);
    assert_true(mc.blocks > 0 && mc.live_bytes > 0); /* the model's copy came from ma */
    const yrt_session_options o = yolort::session_options(1, "scalar", &sa);
    yolort::Session session(model, o);
    assert_true(sc.blocks > 0 && sc.live_bytes > 0);
    const std::vector<yrt_detection> got = session.detect(frame, &pp);
    yrt_session *cs = nullptr;
    yrt_error err;
    assert_int_equal(yrt_session_create(model.get(), &o, &cs, &err), YRT_OK);
    yrt_detection want[300];
    int n_want = 0;
    assert_int_equal(yrt_session_detect(cs, &frame, &pp, want, 300, &n_want, &err), YRT_OK);
    expect_same(got.data(), got.size(), want, static_cast<size_t>(n_want));
    yrt_session_free(cs);
    const std::string msg =
        expect_error([&] { yolort::Session bad(model, yolort::session_options(1, "sse9")); }, YRT_ERR_INVALID_ARG);
    if (msg.find("isa_cap \"sse9\"") == std::string::npos) fail_msg("message does not name the cap: %s", msg.c_str());
    print_message("isa_cap scalar + allocator: %d detections, C++ == C; session %zu blocks, model %zu\n", n_want,
                  sc.blocks, mc.blocks);
  }
  assert_int_equal(sc.live_bytes, 0); /* every block back, sessions and model alike */
  assert_int_equal(mc.live_bytes, 0);
}

static void test_model_session(void **state) {
  (void)state;
  const std::vector<unsigned char> bytes = mini_yolo();
  yolort::Model model = yolort::Model::load_memory(bytes.data(), bytes.size());
  assert_true(static_cast<bool>(model));
  const yrt_model_info info = model.info();
  assert_int_equal(info.input_w, 16);
  assert_int_equal(info.input_h, 16);
  assert_int_equal(info.num_classes, 2);
  assert_string_equal(model.class_name(1), "dog");
  assert_null(model.class_name(2));

  /* moves: the handle travels, the moved-from one is empty and frees nothing */
  const yrt_model *raw = model.get();
  yolort::Model moved(std::move(model));
  assert_false(static_cast<bool>(model));
  assert_ptr_equal(moved.get(), raw);
  model = std::move(moved);
  assert_ptr_equal(model.get(), raw);

  yolort::Session session(model, yolort::session_options(1));
  assert_int_equal(session.num_threads(), 1);
  yolort::Session other = std::move(session);
  assert_false(static_cast<bool>(session));
  session = std::move(other);

  /* a 40x30 RGB frame, also through the C API on a second session: same detections */
  const int w = 40, h = 30;
  const std::vector<uint8_t> rgb = rgb_image(w, h);
  const yrt_frame frame = yolort::packed_frame(YRT_PIX_RGB888, w, h, rgb.data(), static_cast<size_t>(w) * 3);
  yrt_postprocess_params pp = yolort::postprocess_params();
  pp.conf_threshold = 0.01f; /* generated weights: keep whatever scores there are */
  yrt_session *cs = nullptr;
  yrt_error err;
  assert_int_equal(yrt_session_create(model.get(), nullptr, &cs, &err), YRT_OK);
  yrt_detection want[300];
  int n_want = 0;
  assert_int_equal(yrt_session_detect(cs, &frame, &pp, want, 300, &n_want, &err), YRT_OK);

  const std::vector<yrt_detection> got = session.detect(frame, &pp);
  expect_same(got.data(), got.size(), want, static_cast<size_t>(n_want));
  std::vector<yrt_detection> reused;
  reused.reserve(300);
  const yrt_detection *storage = reused.data();
  session.detect(frame, reused, &pp);
  expect_same(reused.data(), reused.size(), want, static_cast<size_t>(n_want));
  assert_ptr_equal(reused.data(), storage); /* no reallocation frame to frame */
  yrt_detection arr[300];
  const size_t n_arr = session.detect(frame, yolort::Span<yrt_detection>(arr), &pp);
  expect_same(arr, n_arr, want, static_cast<size_t>(n_want));
  if (n_want > 1) { /* a smaller span keeps the best ones */
    yrt_detection one[1];
    assert_int_equal(session.detect(frame, one, &pp), 1);
    expect_same(one, 1, want, 1);
  }
  std::vector<yrt_keypoint> kp(5);
  if (n_want > 0) { /* a detect model: no keypoints */
    session.keypoints(0, kp);
    assert_true(kp.empty());
  }
  assert_int_equal(model.keypoints(), 0);
  assert_false(model.rotated()); /* a detect model: no rotated boxes */
  if (n_want > 0) expect_error([&] { session.rbox(0); }, YRT_ERR_UNSUPPORTED);
  print_message("mini-YOLO on a %dx%d frame: %d detections, C++ == C\n", w, h, n_want);

  /* set_frame + run + output == the C calls */
  const yrt_letterbox lb = session.set_frame(frame);
  assert_int_equal(lb.src_w, w);
  assert_int_equal(lb.dst_w, 16);
  session.set_profiling(true);
  session.run();
  assert_int_equal(session.node_times().size(), static_cast<size_t>(yrt_session_node_times(session.get(), nullptr, 0)));
  const yolort::Tensor out = session.output(0);
  assert_int_equal(out.rank(), 3);
  assert_int_equal(out.shape()[1], 6);
  assert_int_equal(out.shape()[2], 64);
  assert_int_equal(out.size(), 6 * 64);
  yrt_letterbox clb;
  assert_int_equal(yrt_session_set_frame(cs, &frame, &clb, &err), YRT_OK);
  assert_int_equal(yrt_session_run(cs, &err), YRT_OK);
  yrt_tensor_view cv;
  assert_int_equal(yrt_session_output(cs, 0, &cv, &err), YRT_OK);
  assert_int_equal(cv.count, out.size());
  assert_memory_equal(cv.data, out.data().data(), cv.count * sizeof(float));
  expect_error([&] { session.output(5); }, YRT_ERR_INVALID_ARG);

  /* the float input: write in place, or copy an NCHW tensor; wrong sizes throw */
  yolort::Span<float> in = session.input_nhwc(0);
  assert_int_equal(in.size(), 16 * 16 * 3);
  std::vector<float> nchw(in.size(), 0.5f);
  session.set_input(0, nchw);
  assert_true(in[0] == 0.5f && in[in.size() - 1] == 0.5f);
  nchw.pop_back();
  expect_error([&] { session.set_input(0, nchw); }, YRT_ERR_SHAPE);
  session.run();

  /* a bad frame: the C message, naming the field */
  yrt_frame bad = frame;
  bad.stride[0] = 3;
  const std::string msg = expect_error([&] { session.detect(bad); }, YRT_ERR_INVALID_ARG);
  if (msg.find("stride") == std::string::npos) fail_msg("message does not name the stride: %s", msg.c_str());

  /* release / adopt */
  yrt_session *released = session.release();
  assert_false(static_cast<bool>(session));
  yolort::Session adopted(released);
  assert_ptr_equal(adopted.get(), released);
  yrt_session_free(cs);
}
#endif

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_init_helpers),
      cmocka_unit_test(test_span),
      cmocka_unit_test(test_errors),
#ifdef YOLORT_TEST_REL_MODELS
      cmocka_unit_test(test_model_session),
      cmocka_unit_test(test_options),
#endif
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
