/* fuzz_yrt_detect.c — libFuzzer target: the whole-image path on a hostile .yrt, what yolort-detect
 * does (tools/app/detector.c): load, session, letterbox an image into input 0 at META's size,
 * run, decode + NMS output 0. Input layout: 2 bytes image width, 2 bytes height (each taken mod
 * 256, plus 1), then the .yrt (file_size and CRC patched as in fuzz_yrt_load). fuzz_yrt_load runs
 * on zeros and never letterboxes: this target would have found issue 19's heap overflow (a
 * 1-channel model, or a META size that disagrees with the input tensor). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "yolort_format.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void detect(const yrt_model *m, int iw, int ih, const uint8_t *seed) {
  yrt_model_info info;
  yrt_error err;
  FZ_CHECK(yrt_model_get_info(m, &info) == YRT_OK);
  FZ_CHECK(info.input_w >= 1 && info.input_h >= 1);
  if (info.arena_bytes > FZ_MAX_ARENA || fz_run_cost(m) > FZ_MAX_RUN_COST) return;
  if ((uint64_t)info.input_w * (uint64_t)info.input_h > (1u << 20)) return; /* letterbox time */
  yrt_session *s = NULL;
  const yrt_session_options one = {.num_threads = 1}; /* one session per input: no pool each */
  yrt_status st = yrt_session_create(m, &one, &s, &err);
  if (st != YRT_OK) {
    fz_check_error(st, &err);
    return;
  }
  uint8_t *rgb = malloc((size_t)iw * ih * 3);
  void *scratch = malloc(yrt_letterbox_scratch_bytes(iw, ih, info.input_w, info.input_h) + 64);
  FZ_CHECK(rgb && scratch);
  for (size_t i = 0; i < (size_t)iw * ih * 3; i++) rgb[i] = (uint8_t)(seed[i % 8] + i * 31);
  yrt_image img = {iw, ih, rgb};
  yrt_letterbox lb;
  float *input = yrt_session_input_nhwc(s, 0);
  const size_t count = yrt_session_input_count(s, 0);
  FZ_CHECK((input == NULL) == (count == 0));
  if (input) {
    st = yrt_letterbox_f32(&img, info.input_w, info.input_h, input, count, scratch, &lb, &err);
    if (st != YRT_OK) {
      fz_check_error(st, &err);
      FZ_CHECK(count < (size_t)info.input_w * info.input_h * 3); /* refused only when too small */
    } else {
      st = yrt_session_run(s, &err);
      yrt_tensor_view out;
      if (st == YRT_OK) st = yrt_session_output(s, 0, &out, &err);
      if (st != YRT_OK) fz_check_error(st, &err);
      else if (out.rank == 3 && out.dims[0] == 1 && out.dims[1] >= 5 && out.dims[1] - 4 <= YRT_MAX_CLASSES) {
        yrt_postprocess_params pp;
        yrt_postprocess_defaults(&pp);
        const int nc = out.dims[1] - 4, na = out.dims[2];
        void *ps = malloc(yrt_postprocess_scratch_bytes(na, pp.max_detections) + 1);
        yrt_detection *dets = malloc(sizeof *dets * (size_t)pp.max_detections);
        FZ_CHECK(ps && dets);
        int n = -1;
        st = yrt_postprocess(out.data, nc, na, &lb, &pp, ps, dets, pp.max_detections, &n, &err);
        if (st != YRT_OK) fz_check_error(st, &err);
        else {
          FZ_CHECK(n >= 0 && n <= pp.max_detections);
          for (int i = 0; i < n; i++) FZ_CHECK(dets[i].class_id >= 0 && dets[i].class_id < nc);
        }
        free(ps);
        free(dets);
      }
    }
  }
  free(rgb);
  free(scratch);
  yrt_session_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 4 + sizeof(yrt_file_header)) return 0;
  const int iw = data[0] % 256 + 1, ih = data[2] % 256 + 1;
  uint8_t seed[8];
  memcpy(seed, data, 4);
  memcpy(seed + 4, data, 4);
  yrt_model *m = fz_load_sealed(data + 4, size - 4);
  if (!m) return 0;
  detect(m, iw, ih, seed);
  yrt_model_free(m);
  return 0;
}
