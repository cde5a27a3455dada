/* fuzz_yrt_fields.c — libFuzzer target: CRC-valid .yrt files changed field by field, what found
 * issue 40's silent wrong results (an end-to-end flag cleared: class 282, score 665; class counts
 * that disagree with output0's rows). A custom mutator finds the header, the section table and
 * the record sections (tensors, nodes, plan, meta; strings now and then) and rewrites one to
 * three aligned 32-bit words with values that mean something to a loader (0, 1, -1, small enum
 * values, the word +-1, a bit flipped, a copy of another word of the same section, float NaN /
 * inf / denormal / negative); then the file size and the CRC are made right again, so the
 * validator behind the CRC check is what decides (one time in four, bytes are mutated instead).
 * Each input is loaded, run on zeros when cheap (fuzz_common.h), and sent down the one-call
 * camera path, yrt_session_detect on a small RGB frame: every detection must name a class below
 * META's class count, with a finite score at or above the threshold. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "yolort_format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

static uint64_t rnd(uint64_t *s) { /* splitmix64 from libFuzzer's seed */
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static uint32_t hostile_word(uint64_t *r, uint32_t old, uint32_t other) {
  static const float fv[] = {NAN, INFINITY, -1.0f, 0.0f, 1e-40f, 1e30f};
  const int k = (int)(rnd(r) % 20);
  if (k < 9) return (uint32_t)k; /* enums, counts, flags */
  if (k == 9) return 0xFFFFFFFFu;
  if (k == 10) return 0x7FFFFFFFu;
  if (k == 11) return 0x80000000u;
  if (k == 12) return old + 1;
  if (k == 13) return old - 1;
  if (k == 14) return old ^ (1u << (rnd(r) % 32));
  if (k == 15) return other;
  if (k == 16) return old * 2;
  uint32_t w;
  const float f = fv[rnd(r) % 6];
  memcpy(&w, &f, 4);
  return w;
}

/* The byte range [*off, *off + *len) of one place worth changing, 4-aligned. 0: none. */
static int pick_region(const uint8_t *buf, size_t size, uint64_t *r, size_t *off, size_t *len) {
  yrt_file_header h;
  memcpy(&h, buf, sizeof h);
  const int what = (int)(rnd(r) % 8);
  if (what == 0) { /* the header: flags, reserved words, section count and table offset */
    *off = 0, *len = sizeof h;
    return 1;
  }
  if (h.n_sections == 0 || h.n_sections > YRT_MAX_SECTIONS || h.section_table_offset >= size ||
      size - h.section_table_offset < (uint64_t)h.n_sections * sizeof(yrt_section_rec))
    return 0;
  if (what == 1) {
    *off = (size_t)h.section_table_offset, *len = h.n_sections * sizeof(yrt_section_rec);
    return 1;
  }
  /* a record section: tensors and nodes most often, weights never (byte mutation covers them) */
  static const uint32_t kinds[6] = {YRT_SEC_TENSORS, YRT_SEC_NODES, YRT_SEC_NODES, YRT_SEC_PLAN, YRT_SEC_META,
                                    YRT_SEC_STRINGS};
  const uint32_t want = kinds[what - 2];
  for (uint32_t i = 0; i < h.n_sections; i++) {
    yrt_section_rec s;
    memcpy(&s, buf + h.section_table_offset + i * sizeof s, sizeof s);
    if (s.kind != want || s.offset >= size || s.size > size - s.offset || s.size < 4) continue;
    *off = (size_t)s.offset, *len = (size_t)s.size;
    return 1;
  }
  return 0;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
  uint64_t r = seed;
  if (size < sizeof(yrt_file_header) || rnd(&r) % 4 == 0) {
    const size_t n = LLVMFuzzerMutate(data, size, max_size);
    fz_seal(data, n);
    return n;
  }
  const int times = 1 + (int)(rnd(&r) % 3);
  for (int t = 0; t < times; t++) {
    size_t off = 0, len = 0;
    if (!pick_region(data, size, &r, &off, &len)) continue;
    const size_t words = len / 4;
    const size_t a = off + (rnd(&r) % words) * 4, b = off + (rnd(&r) % words) * 4;
    uint32_t old, other;
    memcpy(&old, data + a, 4);
    memcpy(&other, data + b, 4);
    const uint32_t w = hostile_word(&r, old, other);
    memcpy(data + a, &w, 4);
  }
  fz_seal(data, size);
  return size;
}

static void detect(const yrt_model *m) {
  yrt_model_info info;
  yrt_error err;
  FZ_CHECK(yrt_model_get_info(m, &info) == YRT_OK);
  if (info.arena_bytes > FZ_MAX_ARENA || fz_run_cost(m) > FZ_MAX_RUN_COST) return;
  if ((uint64_t)info.input_w * (uint64_t)info.input_h > (1u << 20)) return; /* letterbox time */
  yrt_session *s = NULL;
  const yrt_session_options one = {.num_threads = 1};
  yrt_status st = yrt_session_create(m, &one, &s, &err);
  if (st != YRT_OK) {
    fz_check_error(st, &err);
    return;
  }
  static uint8_t px[23 * 17 * 3];
  for (size_t i = 0; i < sizeof px; i++) px[i] = (uint8_t)(i * 37u);
  yrt_frame f;
  yrt_frame_init(&f);
  f.format = YRT_PIX_RGB888;
  f.width = 23;
  f.height = 17;
  f.plane[0] = px;
  f.stride[0] = 23 * 3;
  yrt_postprocess_params pp;
  yrt_postprocess_defaults(&pp);
  pp.conf_threshold = 0.01f;
  yrt_detection dets[64];
  int n = -1;
  st = yrt_session_detect(s, &f, &pp, dets, 64, &n, &err);
  if (st != YRT_OK) {
    fz_check_error(st, &err);
  } else {
    FZ_CHECK(n >= 0 && n <= 64);
    for (int i = 0; i < n; i++) {
      FZ_CHECK(dets[i].class_id >= 0 && dets[i].class_id < info.num_classes);
      FZ_CHECK(isfinite(dets[i].score) && dets[i].score >= pp.conf_threshold);
    }
  }
  yrt_session_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  yrt_model *m = fz_load_sealed(data, size); /* sealed again: crossover and the seeds come unsealed */
  if (!m) return 0;
  fz_exercise_model(m);
  detect(m);
  yrt_model_free(m);
  return 0;
}
