// test_cpp_track.cpp — yolort_track.hpp: the C++ tracker gives the C tracker's tracks, throws
// yolort::Error on bad arguments, moves and frees.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <vector>

extern "C" {
#include <cmocka.h>
}

#include "yolort_track.hpp"

namespace {

yrt_detection det(float x, float y, float score) {
  yrt_detection d = {};
  d.x0 = x;
  d.y0 = y;
  d.x1 = x + 40.0f;
  d.y1 = y + 80.0f;
  d.score = score;
  return d;
}

void test_same_as_c(void **) {
  yolort::Tracker cpp(16);
  yrt_tracker *c = nullptr;
  yrt_error err;
  assert_int_equal(yrt_tracker_create(nullptr, 16, nullptr, 0, &c, &err), YRT_OK);
  std::vector<yrt_track> tracks;
  tracks.reserve(16);
  for (int f = 0; f < 20; f++) {  // two objects walking towards each other
    std::vector<yrt_detection> dets = {det(10.0f + 5.0f * f, 50.0f, 0.9f), det(300.0f - 5.0f * f, 60.0f, 0.8f)};
    cpp.update(dets, tracks);
    yrt_track ref[16];
    int n = 0;
    assert_int_equal(yrt_tracker_update(c, dets.data(), 2, ref, 16, &n, &err), YRT_OK);
    assert_int_equal(tracks.size(), static_cast<size_t>(n));
    for (int i = 0; i < n; i++) {
      assert_int_equal(tracks[static_cast<size_t>(i)].id, ref[i].id);
      assert_memory_equal(&tracks[static_cast<size_t>(i)].x0, &ref[i].x0, 4 * sizeof(float));
    }
    if (f > 2) assert_int_equal(n, 2);
  }
  yrt_tracker_free(c);
  yrt_track span_out[1];
  std::vector<yrt_detection> one = {det(105.0f, 50.0f, 0.9f)};
  assert_true(cpp.update(one, yolort::Span<yrt_track>(span_out, 1)) <= 1);
}

void test_errors_and_moves(void **) {
  bool threw = false;
  try {
    yolort::Tracker bad(0);
  } catch (const yolort::Error &e) {
    threw = e.status() == YRT_ERR_INVALID_ARG;
  }
  assert_true(threw);
  yolort::Tracker a(4);
  std::vector<yrt_detection> many(5, det(0.0f, 0.0f, 0.9f));  // over the capacity
  std::vector<yrt_track> out;
  threw = false;
  try {
    a.update(many, out);
  } catch (const yolort::Error &e) {
    threw = e.status() == YRT_ERR_INVALID_ARG;
  }
  assert_true(threw);
  yolort::Tracker b(std::move(a));
  assert_null(a.get());
  assert_non_null(b.get());
  b.reset();
  a = std::move(b);
  assert_non_null(a.get());
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_same_as_c),
      cmocka_unit_test(test_errors_and_moves),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
