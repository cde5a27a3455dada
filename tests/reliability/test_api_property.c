/* test_api_property.c — issue 40: a property test of the public session calls. Seeded random
 * sequences (a few hundred calls each) of yrt_session_set_frame / set_input / run / detect /
 * cancel, refused calls, frames made of random fields and a cancel racing a run from a second
 * thread, on sessions of 1 and 2 threads, through the interpreter of api_seq.h: every run's
 * outputs and every detect's detections must equal, bit for bit, those of a fresh single-threaded
 * session given the same input once. tests/fuzz/fuzz_api_sequence.c drives the same interpreter.
 * On failure it prints the seed, the configuration and the last calls; rerun one sequence with
 * YOLORT_PROPERTY_SEED=N (YOLORT_PROPERTY_STEPS=M for longer ones). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api_seq.h"

static uint64_t rng_next(uint64_t *s) { /* splitmix64: the whole sequence follows from the seed */
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static int env_int(const char *name, int def) {
  const char *v = getenv(name);
  return v && *v ? atoi(v) : def;
}

static void sequences(rel_model_kind kind) {
  seq_world w;
  yrt_error err;
  if (seq_world_make(&w, kind, &err) != YRT_OK) fail_msg("%s: %s", rel_model_name(kind), err.msg);
  const int one = env_int("YOLORT_PROPERTY_SEED", -1), steps = env_int("YOLORT_PROPERTY_STEPS", 300);
  const int seeds = one >= 0 ? 1 : 3; /* 3 x 300 calls per model and thread count: ~1 s of CPU each in Release */
  /* a call takes at most 16 bytes (a frame made of bytes); the interpreter stops at their end */
  const size_t n = (size_t)(steps > 0 ? steps : 1) * 16;
  uint8_t *bytes = malloc(n);
  static char msg[8192];
  assert_non_null(bytes);
  for (int threads = 1; threads <= 2; threads++)
    for (int k = 0; k < seeds; k++) {
      const uint64_t seed = one >= 0 ? (uint64_t)one : (uint64_t)(1000 * (int)kind + 10 * threads + k);
      uint64_t r = seed;
      for (size_t i = 0; i < n; i += 8) {
        const uint64_t v = rng_next(&r);
        memcpy(bytes + i, &v, n - i < 8 ? n - i : 8);
      }
      /* about `steps` calls: the op bytes are 1 of every ~3 */
      if (seq_run(&w, threads, bytes, (size_t)steps * 3, msg, sizeof msg))
        fail_msg("model %s, %d thread(s), seed %llu (YOLORT_PROPERTY_SEED=%llu): %s", w.name, threads,
                 (unsigned long long)seed, (unsigned long long)seed, msg);
    }
  free(bytes);
  seq_world_free(&w);
}

static void test_sequences_int8(void **state) {
  (void)state;
  sequences(REL_MODEL_QDQ_YOLO);
}

static void test_sequences_f32(void **state) {
  (void)state;
  sequences(REL_MODEL_F32_YOLO);
}

/* quantize_dynamic: the int8 convs measure their input range on every run */
static void test_sequences_dynq(void **state) {
  (void)state;
  sequences(REL_MODEL_DYNQ_YOLO);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sequences_int8),
      cmocka_unit_test(test_sequences_f32),
      cmocka_unit_test(test_sequences_dynq),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
