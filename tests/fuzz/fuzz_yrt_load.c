/* fuzz_yrt_load.c — libFuzzer target: a hostile .yrt image through yrt_model_load_memory (copy=1),
 * then, if it loaded and is cheap to run, one session run on zeros (fuzz_common.h).
 * The header's file_size and CRC are patched to match the input first: otherwise nearly every
 * mutation stops at the CRC check and the validator behind it is never reached. The CRC and size
 * checks themselves are covered by tests/reliability. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "yolort_format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* Exact-size heap copy: ASan catches any read past the end of the image. */
  uint8_t *buf = malloc(size ? size : 1);
  if (!buf) return 0;
  if (size) memcpy(buf, data, size);
  fz_seal(buf, size);
  yrt_model *m = NULL;
  yrt_error err;
  err.msg[0] = 0;
  yrt_status st = yrt_model_load_memory(buf, size, 1, &m, &err);
  /* copy=1: the model must not keep a pointer into buf. */
  memset(buf, 0xA5, size);
  free(buf);
  if (st != YRT_OK) {
    FZ_CHECK(m == NULL);
    fz_check_error(st, &err);
    return 0;
  }
  FZ_CHECK(m != NULL);
  fz_exercise_model(m);
  yrt_model_free(m);
  return 0;
}
