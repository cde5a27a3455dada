/* fuzz_api_sequence.c — libFuzzer target: sequences of the public session calls (set_frame,
 * set_input, run, detect, cancel, refused calls, frames whose every field comes from the bytes,
 * a cancel racing a run from a second thread) read from the input by the interpreter of
 * tests/reliability/api_seq.h, which test_api_property drives with seeded random bytes. Every
 * output and detection with a known input must equal a fresh session's, bit for bit; a frame
 * field out of range must be refused (INVALID_ARG with a message) before any pixel is read (its
 * planes are then 1 byte: ASan). Byte 0 picks the model (float, QDQ int8, quantize_dynamic) and
 * the session's threads (1, or 2 for one value in four); the models and their references are made
 * once per process. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "api_seq.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define N_WORLDS 3

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* built once per process (libFuzzer's usual lazy init; read-only afterwards) */
  static seq_world worlds[N_WORLDS];
  static int made;
  static const rel_model_kind kinds[N_WORLDS] = {REL_MODEL_F32_YOLO, REL_MODEL_QDQ_YOLO, REL_MODEL_DYNQ_YOLO};
  if (!made) {
    for (int k = 0; k < N_WORLDS; k++) {
      yrt_error err;
      if (seq_world_make(&worlds[k], kinds[k], &err) != YRT_OK) {
        fprintf(stderr, "fuzz_api_sequence: %s\n", err.msg);
        abort();
      }
    }
    made = 1;
  }
  if (size < 1) return 0;
  const seq_world *w = &worlds[data[0] % N_WORLDS];
  /* 2 threads one input in four: a pooled run waits for its workers to be scheduled, which on a
   * loaded machine costs far more than the run (the property test covers both evenly) */
  const int threads = (data[0] / N_WORLDS) % 4 == 3 ? 2 : 1;
  static char msg[8192];
  if (seq_run(w, threads, data + 1, size - 1, msg, sizeof msg)) {
    fprintf(stderr, "fuzz_api_sequence: model %s, %d thread(s): %s\n", w->name, threads, msg);
    abort();
  }
  return 0;
}
